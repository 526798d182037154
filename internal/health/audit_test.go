package health

import (
	"strings"
	"testing"
	"time"

	"github.com/offsetctl/offsetctl/internal/audit"
)

func i64(v int64) *int64 { return &v }

// A rewind is explained by an audited reset of that group's partition to
// the offset it went back to, around that time; not by a refused one, one
// of another group, partition or offset, or one long before.
func TestAuditExplainer(t *testing.T) {
	reset := func(id, outcome string, at time.Time, group string, part int32, after int64) audit.Entry {
		return audit.Entry{V: 2, ID: id, Time: at, Action: audit.ActReset, Outcome: outcome,
			Changes: []audit.Change{{Group: group, Topic: "orders", Partition: part, Before: i64(510), After: i64(after)}}}
	}
	ps := []Partition{{Topic: "orders", Partition: 1, Commits: commits(500, 510, 20, 30), LogEnds: ends(600)}}
	o := Options{Window: 10 * time.Minute, Now: at(200)}
	for _, c := range []struct {
		name string
		log  []audit.Entry
		want Status
		why  string
	}{
		{"the reset", []audit.Entry{reset("a1", audit.Applied, at(100), "g", 1, 20)}, OK, "rewound from 510 to 20 at 2026-12-02T12:02:00Z by offsetctl reset (audit a1, applied)"},
		{"an undo", []audit.Entry{{ID: "u1", Time: at(119), Action: audit.ActUndo, Outcome: audit.Partly, Changes: []audit.Change{{Group: "g", Topic: "orders", Partition: 1, After: i64(20)}}}}, OK, "offsetctl undo (audit u1, partly)"},
		{"refused", []audit.Entry{reset("a2", audit.Refused, at(100), "g", 1, 20)}, REWIND, ""},
		{"failed", []audit.Entry{reset("a2", audit.Failed, at(100), "g", 1, 20)}, REWIND, ""},
		{"another group", []audit.Entry{reset("a3", audit.Applied, at(100), "h", 1, 20)}, REWIND, ""},
		{"another partition", []audit.Entry{reset("a4", audit.Applied, at(100), "g", 2, 20)}, REWIND, ""},
		{"another offset", []audit.Entry{reset("a5", audit.Applied, at(100), "g", 1, 21)}, REWIND, ""},
		{"long before", []audit.Entry{reset("a6", audit.Applied, at(54), "g", 1, 20)}, REWIND, ""},
		{"after", []audit.Entry{reset("a7", audit.Applied, at(126), "g", 1, 20)}, REWIND, ""},
		{"a replay", []audit.Entry{{ID: "r", Time: at(100), Action: audit.ActReplay, Changes: []audit.Change{{Group: "g", Topic: "orders", Partition: 1, After: i64(20)}}}}, REWIND, ""},
		{"a change that failed", []audit.Entry{{ID: "e", Time: at(100), Action: audit.ActReset, Outcome: audit.Partly, Changes: []audit.Change{{Group: "g", Topic: "orders", Partition: 1, After: i64(20), Error: "x"}}}}, REWIND, ""},
	} {
		o.Explain = AuditExplainer(c.log)
		g := EvaluateGroup("g", ps, o)
		if g.Status != c.want || !strings.Contains(g.Partitions[0].Reason, c.why) {
			t.Errorf("%s: %s %q, want %s %q", c.name, g.Status, g.Partitions[0].Reason, c.want, c.why)
		}
	}
}
