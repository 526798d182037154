package exporter

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/offsetctl/offsetctl/internal/cluster"
	"github.com/offsetctl/offsetctl/internal/health"
	"github.com/offsetctl/offsetctl/internal/lag"
	"github.com/offsetctl/offsetctl/internal/testkit"
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
// is WARN, then STOP once it stands for the window: a stall looks the
// same); one whose last commit is older than
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
			"behind":  {20, 100},              // here: the reset group
			"gaining": {60 + 10*i, 100 + 5*i}, // history without the round's commit; lag falls (Burrow: a lag that never falls is WARN)
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
	// From samples, 45s of a 2m window: WARN (STOP once the offsets
	// stand for the window).
	want(run(false), map[string]string{"stopped": "WARN", "idle": "WARN", "rewound": "WARN", "behind": "WARN"})
}

// TestTailGathererLostPartition: once a partition of the offsets topic
// starts past offset 0 (records deleted: commits may be gone), the groups
// hashed there are failed reads every round, their last values kept on
// the page, stale; the other groups are read as before; the round fails,
// saying which partition and what to use instead.
func TestTailGathererLostPartition(t *testing.T) {
	c := testkit.New(t)
	prefix := testkit.Name(t, "lost")
	const nGroups, nParts = 6, 2
	topic := c.LagFleet(prefix, nGroups, nParts)
	st := tailStateOf(topic, prefix, nGroups, nParts)
	req := lag.GatherRequest{AllGroups: true, Match: func(g string) bool { return strings.HasPrefix(g, prefix+"-") }}
	col := New(c.Cfg, Options{Interval: time.Minute, Request: req, CommitSource: SourceOffsetsTopic})
	adm, err := c.Cfg.NewAdmin()
	if err != nil {
		t.Fatal(err)
	}
	g := &tailGatherer{adm: adm, tailer: stateSource{st}, done: make(chan struct{})}
	defer g.close()
	ctx := testkit.Ctx(t)
	col.GatherOnce(ctx, g)
	if !col.Healthy() {
		t.Fatalf("first gather: %s", col.lastErr)
	}
	lostGroup := fmt.Sprintf("%s-%03d", prefix, 1)
	p := health.OffsetsPartition(lostGroup, 50)
	st.LostBefore(map[int32]int64{p: 7, p + 1: 0}, 50)
	col.GatherOnce(ctx, g)
	if col.Healthy() || !strings.Contains(col.lastErr, fmt.Sprintf("partition %d starts at offset 7", p)) ||
		!strings.Contains(col.lastErr, "use --commit-source poll") {
		t.Fatalf("gather with a lost partition: healthy %v, error %q", col.Healthy(), col.lastErr)
	}
	page := pageText(t, col)
	for i := 0; i < nGroups; i++ {
		name := fmt.Sprintf("%s-%03d", prefix, i)
		lost := health.OffsetsPartition(name, 50) == p
		stale := fmt.Sprintf(`offsetctl_lag_stale{consumergroup="%s",partition="0",topic="%s"} 1`, name, topic)
		lagLine := fmt.Sprintf(`kafka_consumergroup_lag{consumergroup="%s",partition="0",topic="%s"} `, name, topic)
		if !strings.Contains(page, lagLine) || strings.Contains(page, stale) != lost {
			t.Errorf("group %s (lost %v): lag series %v, stale %v", name, lost, strings.Contains(page, lagLine), strings.Contains(page, stale))
		}
	}
}
