package exporter

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"testing"
	"time"

	"github.com/offsetctl/offsetctl/internal/cluster"
	"github.com/offsetctl/offsetctl/internal/lag"
)

// fleetSnapshot is a fleet of groups each with commits on every partition
// of one topic, all lagging, as BenchmarkExporterGather's broker holds.
func fleetSnapshot(groups, parts int, round int64) *lag.Snapshot {
	s := &lag.Snapshot{Offsets: lag.TopicOffsets{Partitions: map[string]map[int32]lag.PartitionOffsets{"fleet": {}}}}
	for p := 0; p < parts; p++ {
		s.Offsets.Partitions["fleet"][int32(p)] = lag.PartitionOffsets{Start: 0, End: 3 + round}
	}
	for g := 0; g < groups; g++ {
		cm := map[int32]lag.Commit{}
		for p := 0; p < parts; p++ {
			cm[int32(p)] = lag.Commit{Offset: int64((g+p)%4) - 1 + round}
		}
		s.Groups = append(s.Groups, lag.GroupSnapshot{GroupInfo: lag.GroupInfo{Group: fmt.Sprintf("fleet-%03d", g),
			Type: "classic", State: "Empty", ProtocolType: "consumer", Exists: true},
			Commits: map[string]map[int32]lag.Commit{"fleet": cm}})
	}
	return s
}

// BenchmarkGatherBackToBack runs gathers of 500 groups x 1,000 partitions
// (OFFSETCTL_BENCH_SMALL: 10 x 100) back to back from prepared snapshots,
// no broker, writing the page after each; it reports the heap in use at
// its peak (sampled after each batch) and the page write time.
func BenchmarkGatherBackToBack(b *testing.B) {
	nGroups, nParts := benchSize()
	snaps := []*lag.Snapshot{fleetSnapshot(nGroups, nParts, 1), fleetSnapshot(nGroups, nParts, 2)}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	clock := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	c := New(cluster.Config{}, Options{Interval: 5 * time.Second, Now: func() time.Time { return clock }})
	var peak uint64
	var write time.Duration
	done := make(chan struct{})
	sampled := make(chan uint64)
	go func() {
		var top uint64
		var m runtime.MemStats
		for {
			select {
			case <-done:
				sampled <- top
				return
			case <-time.After(20 * time.Millisecond):
				runtime.ReadMemStats(&m)
				top = max(top, m.HeapInuse)
			}
		}
	}()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		g := &fakeGatherer{snaps: snaps[i%2 : i%2+1], batch: lag.LagBatchGroups}
		c.GatherOnce(context.Background(), g)
		clock = clock.Add(5 * time.Second)
		start := time.Now()
		if err := WriteText(io.Discard, c); err != nil {
			b.Fatal(err)
		}
		write += time.Since(start)
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapInuse)
	}
	close(done)
	peak = max(peak, <-sampled)
	b.ReportMetric(float64(peak-base)/(1<<20), "heap-MiB")
	b.ReportMetric(write.Seconds()/float64(b.N), "write-s")
}
