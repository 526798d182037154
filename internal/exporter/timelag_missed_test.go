package exporter

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/offsetctl/offsetctl/internal/cluster"
	"github.com/offsetctl/offsetctl/internal/lag"
)

// ordersSnapshot is group "billing" (Stable) committed at commits[p] on
// orders partition p, whose log is 0..ends[p].
func ordersSnapshot(commits, ends []int64) *lag.Snapshot {
	cs := map[int32]lag.Commit{}
	offs := map[int32]lag.PartitionOffsets{}
	for p := range commits {
		cs[int32(p)] = lag.Commit{Offset: commits[p]}
		offs[int32(p)] = lag.PartitionOffsets{Start: 0, End: ends[p]}
	}
	return &lag.Snapshot{
		Groups: []lag.GroupSnapshot{{GroupInfo: lag.GroupInfo{Group: "billing", Type: "classic", State: "Stable", ProtocolType: "consumer", Exists: true},
			Commits: map[string]map[int32]lag.Commit{"orders": cs}}},
		Offsets: lag.TopicOffsets{Partitions: map[string]map[int32]lag.PartitionOffsets{"orders": offs}},
	}
}

// timeLagReader is a collector's time-lag read whose answer a test sets
// per round: every row read finds a record written at ts (Unix ms), or
// (hang) the read waits for its budget to end, or (fail) it ends with no
// time lag and a note, as lag.FillTimeLag does for a partition whose
// fetch failed (and does not count: it counts only the rows its deadline
// cut).
type timeLagReader struct {
	ts         int64
	hang, fail bool
	reads      int
}

func (r *timeLagReader) read(ctx context.Context, _ cluster.Config, rep *lag.LagReport, _ lag.Isolation, now time.Time) (int, error) {
	r.reads++
	n := 0
	for gi := range rep.Groups {
		for pi := range rep.Groups[gi].Partitions {
			p := &rep.Groups[gi].Partitions[pi]
			switch {
			case r.hang:
				n++
			case r.fail:
				p.Note = "time lag unknown: NOT_LEADER_OR_FOLLOWER"
			default:
				p.TimeLagMs = new(now.UnixMilli() - r.ts)
			}
		}
	}
	if r.hang {
		<-ctx.Done()
	}
	return n, nil
}

// timeLagFamilies are the families a time-lag test compares.
var timeLagFamilies = []string{"kafka_consumergroup_lag", "kafka_consumergroup_lag_seconds", "offsetctl_lag_stale",
	"offsetctl_consumergroup_stale", "offsetctl_consumergroup_last_success_timestamp_seconds",
	"offsetctl_gather_success", "offsetctl_gather_time_lag_missed"}

// scrapedLines is the lines of timeLagFamilies a scrape of c serves, as
// name{labels} value, sorted: the page read back with Prometheus' parser.
func scrapedLines(t *testing.T, c *Collector) []string {
	t.Helper()
	fams, err := scraped(c).Gather()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range fams {
		if !slices.Contains(timeLagFamilies, f.GetName()) {
			continue
		}
		for _, m := range f.Metric {
			var labels []string
			for _, l := range m.Label {
				labels = append(labels, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
			}
			v := m.GetGauge().GetValue()
			line := f.GetName()
			if len(labels) > 0 {
				line += "{" + strings.Join(labels, ",") + "}"
			}
			out = append(out, line+" "+strconv.FormatFloat(v, 'f', -1, 64))
		}
	}
	slices.Sort(out)
	return out
}

// compareTimeLag checks that a scrape of c serves exactly lines of
// timeLagFamilies.
func compareTimeLag(t *testing.T, c *Collector, what, lines string) {
	t.Helper()
	var want []string
	for _, l := range strings.Split(strings.TrimSpace(lines), "\n") {
		want = append(want, strings.TrimSpace(l))
	}
	slices.Sort(want)
	if got := scrapedLines(t, c); !slices.Equal(got, want) {
		t.Fatalf("%s: scraped\n%s\nwant\n%s", what, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestTimeLagNotMeasuredKeepsLastValue is QA's round: the cluster frozen
// for a moment while the group's positions move, so the time-lag read
// misses the round's budget. The lag_seconds served before must stay on
// the page (a missing series reads as no lag: max() leaves it out and a
// firing time-lag alert clears), as its last value marked stale, and the
// page must not read complete: it used to drop the series with
// offsetctl_gather_success 1 and no stale mark. A partition whose commit
// stayed put has its exact time lag without a read (the same record, one
// round older): fresh. A read that fails (a fetch error, which the read
// does not count as cut) is the same. A round that measures clears the
// marks.
func TestTimeLagNotMeasuredKeepsLastValue(t *testing.T) {
	clock := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	t0 := strconv.FormatInt(clock.Unix(), 10)
	ends := []int64{10_000, 10_000, 10_000, 10_000}
	g := &fakeGatherer{snaps: []*lag.Snapshot{
		ordersSnapshot([]int64{100, 200, 300, 400}, ends),
		ordersSnapshot([]int64{150, 250, 350, 400}, ends), // p3 did not move
		ordersSnapshot([]int64{150, 250, 350, 400}, ends),
		ordersSnapshot([]int64{150, 250, 350, 400}, ends),
	}}
	c := New(cluster.Config{}, Options{Interval: 200 * time.Millisecond, TimeLag: true, Now: func() time.Time { return clock }})
	r := &timeLagReader{ts: clock.UnixMilli() - 1_234_400}
	c.read = r.read

	c.GatherOnce(context.Background(), g)
	compareTimeLag(t, c, "round 1, every time lag read", fmt.Sprintf(`
kafka_consumergroup_lag{consumergroup="billing",partition="0",topic="orders"} 9900
kafka_consumergroup_lag{consumergroup="billing",partition="1",topic="orders"} 9800
kafka_consumergroup_lag{consumergroup="billing",partition="2",topic="orders"} 9700
kafka_consumergroup_lag{consumergroup="billing",partition="3",topic="orders"} 9600
kafka_consumergroup_lag_seconds{consumergroup="billing",partition="0",topic="orders"} 1234.4
kafka_consumergroup_lag_seconds{consumergroup="billing",partition="1",topic="orders"} 1234.4
kafka_consumergroup_lag_seconds{consumergroup="billing",partition="2",topic="orders"} 1234.4
kafka_consumergroup_lag_seconds{consumergroup="billing",partition="3",topic="orders"} 1234.4
offsetctl_consumergroup_stale{consumergroup="billing"} 0
offsetctl_consumergroup_last_success_timestamp_seconds{consumergroup="billing"} %s
offsetctl_gather_success 1
offsetctl_gather_time_lag_missed 0`, t0))

	for _, round := range []struct {
		name       string
		hang, fail bool
	}{{"round 2, the read cut by its budget", true, false}, {"round 3, the read failed", false, true}} {
		clock = clock.Add(15 * time.Second)
		r.hang, r.fail = round.hang, round.fail
		c.GatherOnce(context.Background(), g)
		p3 := strconv.FormatFloat(1234.4+clock.Sub(time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)).Seconds(), 'f', -1, 64)
		compareTimeLag(t, c, round.name, fmt.Sprintf(`
kafka_consumergroup_lag{consumergroup="billing",partition="0",topic="orders"} 9850
kafka_consumergroup_lag{consumergroup="billing",partition="1",topic="orders"} 9750
kafka_consumergroup_lag{consumergroup="billing",partition="2",topic="orders"} 9650
kafka_consumergroup_lag{consumergroup="billing",partition="3",topic="orders"} 9600
kafka_consumergroup_lag_seconds{consumergroup="billing",partition="0",topic="orders"} 1234.4
kafka_consumergroup_lag_seconds{consumergroup="billing",partition="1",topic="orders"} 1234.4
kafka_consumergroup_lag_seconds{consumergroup="billing",partition="2",topic="orders"} 1234.4
kafka_consumergroup_lag_seconds{consumergroup="billing",partition="3",topic="orders"} %s
offsetctl_lag_stale{consumergroup="billing",partition="0",topic="orders"} 1
offsetctl_lag_stale{consumergroup="billing",partition="1",topic="orders"} 1
offsetctl_lag_stale{consumergroup="billing",partition="2",topic="orders"} 1
offsetctl_consumergroup_stale{consumergroup="billing"} 1
offsetctl_consumergroup_last_success_timestamp_seconds{consumergroup="billing"} %s
offsetctl_gather_success 0
offsetctl_gather_time_lag_missed 3`, p3, t0))
	}

	clock = clock.Add(15 * time.Second)
	r.hang, r.fail, r.ts = false, false, clock.UnixMilli()-1_000_000
	c.GatherOnce(context.Background(), g)
	compareTimeLag(t, c, "round 4, measured again", fmt.Sprintf(`
kafka_consumergroup_lag{consumergroup="billing",partition="0",topic="orders"} 9850
kafka_consumergroup_lag{consumergroup="billing",partition="1",topic="orders"} 9750
kafka_consumergroup_lag{consumergroup="billing",partition="2",topic="orders"} 9650
kafka_consumergroup_lag{consumergroup="billing",partition="3",topic="orders"} 9600
kafka_consumergroup_lag_seconds{consumergroup="billing",partition="0",topic="orders"} 1000
kafka_consumergroup_lag_seconds{consumergroup="billing",partition="1",topic="orders"} 1000
kafka_consumergroup_lag_seconds{consumergroup="billing",partition="2",topic="orders"} 1000
kafka_consumergroup_lag_seconds{consumergroup="billing",partition="3",topic="orders"} 1279.4
offsetctl_consumergroup_stale{consumergroup="billing"} 0
offsetctl_consumergroup_last_success_timestamp_seconds{consumergroup="billing"} %s
offsetctl_gather_success 1
offsetctl_gather_time_lag_missed 0`, strconv.FormatInt(clock.Unix(), 10)))
}

// TestTimeLagAtLogEndNotExtrapolated: a partition at its log end has
// lag_seconds 0 by definition, which says nothing of the record appended
// there since (0 plus the time elapsed would be a guess, not the age of
// that record). When the partition then lags with its commit unchanged
// and the read misses, it keeps its 0 marked stale, and the page is not
// complete; before, the series dropped on a complete page.
func TestTimeLagAtLogEndNotExtrapolated(t *testing.T) {
	clock := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	g := &fakeGatherer{snaps: []*lag.Snapshot{
		ordersSnapshot([]int64{500}, []int64{500}),
		ordersSnapshot([]int64{500}, []int64{520}),
	}}
	c := New(cluster.Config{}, Options{Interval: 200 * time.Millisecond, TimeLag: true, Now: func() time.Time { return clock }})
	r := &timeLagReader{ts: clock.UnixMilli() - 1}
	c.read = r.read
	c.GatherOnce(context.Background(), g)
	if r.reads != 0 {
		t.Fatalf("%d reads for a partition without lag", r.reads)
	}
	clock = clock.Add(15 * time.Second)
	r.hang = true
	c.GatherOnce(context.Background(), g)
	if r.reads != 1 {
		t.Fatalf("%d reads, want the lagging partition read once", r.reads)
	}
	compareTimeLag(t, c, "the partition lags, its read cut", fmt.Sprintf(`
kafka_consumergroup_lag{consumergroup="billing",partition="0",topic="orders"} 20
kafka_consumergroup_lag_seconds{consumergroup="billing",partition="0",topic="orders"} 0
offsetctl_lag_stale{consumergroup="billing",partition="0",topic="orders"} 1
offsetctl_consumergroup_stale{consumergroup="billing"} 1
offsetctl_consumergroup_last_success_timestamp_seconds{consumergroup="billing"} %s
offsetctl_gather_success 0
offsetctl_gather_time_lag_missed 1`, strconv.FormatInt(clock.Add(-15*time.Second).Unix(), 10)))
}

// The time-lag stale mark fits in the row's padding: a row stays 32
// bytes, the bulk of the state at 500 groups x 1,000 partitions.
func TestRowStateSize(t *testing.T) {
	if n := unsafe.Sizeof(rowState{}); n != 32 {
		t.Errorf("rowState is %d bytes, want 32", n)
	}
}

// TestTimeLagExactAfterStaleRound: a partition whose read failed for a
// round (its row carried stale) or whose group was not read (the round
// cut before it, or its commits unreadable), and whose commit has not
// moved since its time lag was measured, has the same record at its
// commit: its time lag is exactly the measured one plus the time since,
// with no read at all. A round whose read would miss serves that, fresh
// and complete; it kept the stale value, and the round failed, before.
func TestTimeLagExactAfterStaleRound(t *testing.T) {
	ends := []int64{10_000, 10_000}
	failing := func(how string) *lag.Snapshot {
		s := ordersSnapshot([]int64{100, 200}, ends)
		switch how {
		case "partition":
			s.Offsets.Partitions["orders"][0] = lag.PartitionOffsets{Start: -1, End: -1, Err: errors.New("NOT_LEADER_OR_FOLLOWER")}
		case "group":
			s.Groups[0].Err = errors.New("COORDINATOR_NOT_AVAILABLE")
		}
		return s
	}
	for _, how := range []string{"partition", "group", "cut"} {
		t.Run(how, func(t *testing.T) {
			clock := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
			good := ordersSnapshot([]int64{100, 200}, ends)
			g := &fakeGatherer{snaps: []*lag.Snapshot{good, good, failing(how), failing(how), good}}
			if how == "cut" {
				g.cutAfter = map[int]int{2: 0, 3: 0}
			}
			c := New(cluster.Config{}, Options{Interval: 200 * time.Millisecond, TimeLag: true, Now: func() time.Time { return clock }})
			r := &timeLagReader{ts: clock.UnixMilli() - 1_234_400}
			c.read = r.read
			c.GatherOnce(context.Background(), g)
			clock = clock.Add(15 * time.Second)
			c.GatherOnce(context.Background(), g) // from the page: the cache lets the position go
			r.hang = true                         // the cluster slow from now on: no read answers
			for range 2 {                         // two rounds that cannot read the partition
				clock = clock.Add(15 * time.Second)
				c.GatherOnce(context.Background(), g)
			}
			if v := scrapedLines(t, c); !slices.Contains(v, `offsetctl_lag_stale{consumergroup="billing",partition="0",topic="orders"} 1`) {
				t.Fatalf("the failed rounds did not mark partition 0 stale:\n%s", strings.Join(v, "\n"))
			}
			clock = clock.Add(15 * time.Second)
			reads := r.reads
			c.GatherOnce(context.Background(), g)
			if r.reads != reads {
				t.Errorf("%d reads of the log for positions whose records are known", r.reads-reads)
			}
			compareTimeLag(t, c, "commits unchanged, the read would miss", fmt.Sprintf(`
kafka_consumergroup_lag{consumergroup="billing",partition="0",topic="orders"} 9900
kafka_consumergroup_lag{consumergroup="billing",partition="1",topic="orders"} 9800
kafka_consumergroup_lag_seconds{consumergroup="billing",partition="0",topic="orders"} 1294.4
kafka_consumergroup_lag_seconds{consumergroup="billing",partition="1",topic="orders"} 1294.4
offsetctl_consumergroup_stale{consumergroup="billing"} 0
offsetctl_consumergroup_last_success_timestamp_seconds{consumergroup="billing"} %s
offsetctl_gather_success 1
offsetctl_gather_time_lag_missed 0`, strconv.FormatInt(clock.Unix(), 10)))
		})
	}
}
