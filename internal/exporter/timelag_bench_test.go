package exporter

import (
	"context"
	"testing"
	"time"

	"github.com/offsetctl/offsetctl/internal/cluster"
	"github.com/offsetctl/offsetctl/internal/lag"
)

// movingFleet is bench/exporter_tail.sh's fleet in round i (benchSize's
// groups x partitions of one topic): every log end at 3 + i, idle groups
// at (g+p) % 4, every 10th group committing at the log end - (g+p) % 4.
func movingFleet(groups, parts int, i int64) *lag.Snapshot {
	s := fleetSnapshot(groups, parts, 0)
	for p := range parts {
		s.Offsets.Partitions["fleet"][int32(p)] = lag.PartitionOffsets{Start: 0, End: 3 + i}
	}
	for g := range s.Groups {
		for p := range parts {
			off := int64((g + p) % 4)
			if g%10 == 0 {
				off = 3 + i - off
			}
			s.Groups[g].Commits["fleet"][int32(p)] = lag.Commit{Offset: off}
		}
	}
	return s
}

// BenchmarkTimeLagRound runs rounds with time lag over movingFleet (4
// rounds prepared, cycled), the reads of the log counted, not made (a
// fake lag.FillTimeLag answering every row): the time-lag reads a round
// asks for and the cost of the cache around them.
func BenchmarkTimeLagRound(b *testing.B) {
	nGroups, nParts := benchSize()
	var snaps []*lag.Snapshot
	for i := range int64(4) {
		snaps = append(snaps, movingFleet(nGroups, nParts, i))
	}
	clock := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	c := New(cluster.Config{}, Options{Interval: 15 * time.Second, TimeLag: true, Now: func() time.Time { return clock }})
	var calls, rows int
	c.read = func(_ context.Context, _ cluster.Config, rep *lag.LagReport, _ lag.Isolation, _ time.Time) (int, error) {
		calls++
		for gi := range rep.Groups {
			for pi := range rep.Groups[gi].Partitions {
				rep.Groups[gi].Partitions[pi].TimeLagMs = new(int64(1000))
				rows++
			}
		}
		return 0, nil
	}
	round := func(i int) {
		c.GatherOnce(context.Background(), &fakeGatherer{snaps: snaps[i%4 : i%4+1], batch: lag.LagBatchGroups})
		clock = clock.Add(15 * time.Second)
	}
	round(0)
	calls, rows = 0, 0
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		round(i + 1)
	}
	b.StopTimer()
	if !c.Healthy() {
		b.Fatal("round failed")
	}
	b.ReportMetric(float64(calls)/float64(b.N), "reads/op")
	b.ReportMetric(float64(rows)/float64(b.N), "rows-read/op")
}
