package exporter

import (
	"strings"
	"testing"
	"time"

	"github.com/offsetctl/offsetctl/internal/health"
	"github.com/offsetctl/offsetctl/internal/lag"
	"github.com/offsetctl/offsetctl/internal/testkit"
)

// groupLines is the lines of page about group, but the members series
// (not written with the offsets-topic source) and the time of the read.
func groupLines(page, group string) []string {
	var out []string
	for _, l := range strings.Split(page, "\n") {
		if strings.Contains(l, `consumergroup="`+group+`"`) && !strings.HasPrefix(l, "kafka_consumergroup_members") &&
			!strings.HasPrefix(l, "offsetctl_consumergroup_last_success_timestamp_seconds") {
			out = append(out, l)
		}
	}
	return out
}

// TestTailGathererShareGroups: with --commit-source offsets-topic a
// share group (KIP-932), named or matched, has the lag series polling
// gives it: its start offsets are not in __consumer_offsets (the share
// coordinator keeps them), so a round asks DescribeShareGroupOffsets for
// them. Before, the group was on the page without a lag series: no lag.
func TestTailGathererShareGroups(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(3, nil)
	c.Produce(topic, map[int32]int{0: 10, 1: 10, 2: 10}, time.Now().Add(-time.Hour))
	group := testkit.Name(t, "share")
	c.ShareConsumer(group, topic, 3)()
	c.SetShareOffsets(group, topic, map[int32]int64{0: 2, 1: 5, 2: 10})
	ctx := testkit.Ctx(t)

	for _, req := range []lag.GatherRequest{
		{Groups: []string{group}, ShareGroups: true},
		{AllGroups: true, ShareGroups: true, Match: func(g string) bool { return g == group }},
	} {
		poll := New(c.Cfg, Options{Interval: time.Minute, Request: req})
		adm, err := c.Cfg.NewAdmin()
		if err != nil {
			t.Fatal(err)
		}
		pg := adminGatherer{adm}
		poll.GatherOnce(ctx, pg)
		pg.close()

		tail := New(c.Cfg, Options{Interval: time.Minute, Request: req, CommitSource: SourceOffsetsTopic})
		adm, err = c.Cfg.NewAdmin()
		if err != nil {
			t.Fatal(err)
		}
		tg := &tailGatherer{adm: adm, tailer: stateSource{health.NewTailState(health.TailOptions{})}, done: make(chan struct{})}
		tail.GatherOnce(ctx, tg)
		tg.close()

		if !poll.Healthy() || !tail.Healthy() {
			t.Fatalf("named %v: healthy: poll %v (%s), offsets-topic %v (%s)", req.Groups != nil, poll.Healthy(), poll.lastErr, tail.Healthy(), tail.lastErr)
		}
		want, got := groupLines(pageText(t, poll), group), groupLines(pageText(t, tail), group)
		lag0 := `kafka_consumergroup_lag{consumergroup="` + group + `",partition="0",topic="` + topic + `"} 8`
		if !strings.Contains(strings.Join(want, "\n"), lag0) {
			t.Fatalf("polling's page has no %s:\n%s", lag0, strings.Join(want, "\n"))
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("named %v: the share group's series from the offsets-topic source:\n%s\nwant polling's:\n%s", req.Groups != nil, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}
