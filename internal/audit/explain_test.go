package audit

import (
	"strings"
	"testing"
	"time"

	"github.com/offsetctl/offsetctl/internal/health"
)

var t0 = time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)

func sec(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }

// commits makes one commit a minute from t0, at these offsets.
func commits(offsets ...int64) []health.Commit {
	cs := make([]health.Commit, len(offsets))
	for i, o := range offsets {
		cs[i] = health.Commit{Offset: o, Time: sec(60 * i)}
	}
	return cs
}

func ends(offsets ...int64) []health.LogEnd {
	es := make([]health.LogEnd, len(offsets))
	for i, o := range offsets {
		es[i] = health.LogEnd{Offset: o, Time: sec(60 * i)}
	}
	return es
}

// A rewind is explained by an audited reset of that group's partition to
// the offset it went back to, around that time; not by a refused one, one
// of another group, partition or offset, or one long before.
func TestAuditExplainer(t *testing.T) {
	reset := func(id, outcome string, when time.Time, group string, part int32, after int64) Entry {
		return Entry{V: 2, ID: id, Time: when, Action: ActReset, Outcome: outcome, ClusterID: "c1",
			Changes: []Change{{Group: group, Topic: "orders", Partition: part, Before: at(510), After: at(after)}}}
	}
	ps := []health.Partition{{Topic: "orders", Partition: 1, Commits: commits(500, 510, 20, 30), LogEnds: ends(600)}}
	o := health.Options{Window: 10 * time.Minute, Now: sec(200)}
	for _, c := range []struct {
		name string
		log  []Entry
		want health.Status
		why  string
	}{
		{"the reset", []Entry{reset("a1", Applied, sec(100), "g", 1, 20)}, health.OK, "rewound from 510 to 20 at 2026-12-02T12:02:00Z by offsetctl reset (audit a1, applied)"},
		{"an undo", []Entry{{ID: "u1", Time: sec(119), Action: ActUndo, Outcome: Partly, ClusterID: "c1", Changes: []Change{{Group: "g", Topic: "orders", Partition: 1, After: at(20)}}}}, health.OK, "offsetctl undo (audit u1, partly)"},
		{"refused", []Entry{reset("a2", Refused, sec(100), "g", 1, 20)}, health.REWIND, ""},
		{"another cluster", []Entry{onCluster("c2", reset("a8", Applied, sec(100), "g", 1, 20))}, health.REWIND, ""},
		{"no cluster id", []Entry{onCluster("", reset("a9", Applied, sec(100), "g", 1, 20))}, health.REWIND, ""},
		{"the reset of this cluster after one of another", []Entry{reset("b1", Applied, sec(100), "g", 1, 20), onCluster("c2", reset("b2", Applied, sec(101), "g", 1, 20))}, health.OK, "(audit b1, applied)"},
		{"failed", []Entry{reset("a2", Failed, sec(100), "g", 1, 20)}, health.REWIND, ""},
		{"another group", []Entry{reset("a3", Applied, sec(100), "h", 1, 20)}, health.REWIND, ""},
		{"another partition", []Entry{reset("a4", Applied, sec(100), "g", 2, 20)}, health.REWIND, ""},
		{"another offset", []Entry{reset("a5", Applied, sec(100), "g", 1, 21)}, health.REWIND, ""},
		{"long before", []Entry{reset("a6", Applied, sec(54), "g", 1, 20)}, health.REWIND, ""},
		{"after", []Entry{reset("a7", Applied, sec(126), "g", 1, 20)}, health.REWIND, ""},
		{"a replay", []Entry{{ID: "r", Time: sec(100), Action: ActReplay, Changes: []Change{{Group: "g", Topic: "orders", Partition: 1, After: at(20)}}}}, health.REWIND, ""},
		{"a change that failed", []Entry{{ID: "e", Time: sec(100), Action: ActReset, Outcome: Partly, Changes: []Change{{Group: "g", Topic: "orders", Partition: 1, After: at(20), Error: "x"}}}}, health.REWIND, ""},
	} {
		o.Explain = RewindExplainer(c.log, "c1")
		g := health.EvaluateGroup("g", ps, o)
		if g.Status != c.want || !strings.Contains(g.Partitions[0].Reason, c.why) {
			t.Errorf("%s: %s %q, want %s %q", c.name, g.Status, g.Partitions[0].Reason, c.want, c.why)
		}
	}
	// The connected cluster's id unknown: nothing explains a rewind, not
	// even an entry without an id.
	for _, e := range []Entry{reset("a1", Applied, sec(100), "g", 1, 20), onCluster("", reset("a9", Applied, sec(100), "g", 1, 20))} {
		o.Explain = RewindExplainer([]Entry{e}, "")
		if g := health.EvaluateGroup("g", ps, o); g.Status != health.REWIND {
			t.Errorf("cluster id unknown, entry of %q: %s %q, want REWIND", e.ClusterID, g.Status, g.Partitions[0].Reason)
		}
	}
}

// onCluster is e recorded on the cluster whose id is id.
func onCluster(id string, e Entry) Entry {
	e.ClusterID = id
	return e
}
