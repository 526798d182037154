package exporter

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/offsetctl/offsetctl/internal/cluster"
	"github.com/offsetctl/offsetctl/internal/health"
	"github.com/offsetctl/offsetctl/internal/lag"
)

// historyGatherer is a fakeGatherer that knows the real commits, as the
// offsets-topic source does.
type historyGatherer struct {
	fakeGatherer
	hist map[string]map[health.Key][]health.Commit
}

func (h *historyGatherer) commitHistory(group string) map[health.Key][]health.Commit {
	return h.hist[group]
}

// With the real commits (--commit-source offsets-topic) the status is
// judged from them, not from the rounds' samples: a group that commits
// the same offset every few seconds under lag is STALL (from samples it
// is STOP, as a stall looks the same); one whose last commit is older than
// the window STOP; a rewind the Explainer explains OK, one it does not
// REWIND; a history that misses the round's committed offset is ended
// with it.
func TestExporterStatusFromCommits(t *testing.T) {
	clock := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return clock.Add(time.Duration(s) * time.Second) }
	var rounds []*lag.Snapshot
	for i := int64(0); i < 4; i++ {
		rounds = append(rounds, statusSnapshot(map[string][2]int64{
			"stopped": {10, 100 + 10*i}, // here: the stalled group
			"idle":    {10, 100 + 10*i}, // here: the stopped group
			"rewound": {20, 100},
			"behind":  {20, 100}, // here: the reset group
			"gaining": {60, 100}, // history without the round's commit
		}))
	}
	hist := map[string]map[health.Key][]health.Commit{
		"stopped": {{Topic: "t-stopped", Partition: 0}: {{Offset: 10, Time: at(-50)}, {Offset: 10, Time: at(-30)}, {Offset: 10, Time: at(-10)}, {Offset: 10, Time: at(30)}}},
		"idle":    {{Topic: "t-idle", Partition: 0}: {{Offset: 10, Time: at(-900)}}},
		"rewound": {{Topic: "t-rewound", Partition: 0}: {{Offset: 90, Time: at(-20)}, {Offset: 20, Time: at(-10)}}},
		"behind":  {{Topic: "t-behind", Partition: 0}: {{Offset: 90, Time: at(-20)}, {Offset: 20, Time: at(-10)}}},
		"gaining": {{Topic: "t-gaining", Partition: 0}: {{Offset: 40, Time: at(-20)}, {Offset: 50, Time: at(-5)}}},
	}
	run := func(real bool) string {
		now := clock
		explain := func(r health.Rewind) (string, bool) {
			return "offsetctl reset", r.Group == "behind" && r.To.Offset == 20
		}
		c := New(cluster.Config{}, Options{Interval: 15 * time.Second, Now: func() time.Time { return now }, Status: true, StatusWindow: 2 * time.Minute, Explain: explain})
		var g gatherer = &fakeGatherer{snaps: rounds}
		if real {
			g = &historyGatherer{fakeGatherer: fakeGatherer{snaps: rounds}, hist: hist}
		}
		for range rounds {
			c.GatherOnce(context.Background(), g)
			now = now.Add(15 * time.Second)
		}
		return pageText(t, c)
	}
	want := func(page string, st map[string]string) {
		t.Helper()
		for g, s := range st {
			if line := `kafka_consumergroup_status{consumergroup="` + g + `",status="` + s + `"} 1` + "\n"; !strings.Contains(page, line) {
				t.Errorf("missing %q", line)
			}
		}
	}
	want(run(true), map[string]string{"stopped": "STALL", "idle": "STOP", "rewound": "REWIND", "behind": "OK", "gaining": "OK"})
	want(run(false), map[string]string{"stopped": "STOP", "idle": "STOP", "rewound": "STOP", "behind": "STOP"})
}
