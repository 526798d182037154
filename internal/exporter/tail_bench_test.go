package exporter

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/offsetctl/offsetctl/internal/health"
	"github.com/offsetctl/offsetctl/internal/lag"
)

// cpuTime is the process' user + system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// stateSource is a tailSource already warm, over a prepared state.
type stateSource struct{ s *health.TailState }

func (f stateSource) Run(ctx context.Context)                  { <-ctx.Done() }
func (f stateSource) Ready() <-chan struct{}                   { c := make(chan struct{}); close(c); return c }
func (f stateSource) Status() (warm bool, left int, err error) { return true, 0, nil }
func (f stateSource) View(fn func(*health.TailState))          { fn(f.s) }

// tailStateOf is the state a tailer of __consumer_offsets would hold for
// benchCluster's fleet: group g at (g+p) % 4 on partition p of topic.
func tailStateOf(topic, prefix string, groups, parts int) *health.TailState {
	s := health.NewTailState(health.TailOptions{})
	val := func(off int64) []byte {
		v := kmsg.NewOffsetCommitValue()
		v.Version, v.Offset, v.CommitTimestamp, v.LeaderEpoch = 3, off, 1, -1
		return v.AppendTo(nil)
	}
	for g := 0; g < groups; g++ {
		name := fmt.Sprintf("%s-%03d", prefix, g)
		for p := 0; p < parts; p++ {
			k := kmsg.OffsetCommitKey{Version: 1, Group: name, Topic: topic, Partition: int32(p)}
			s.Apply(health.TailRecord{Key: k.AppendTo(nil), Value: val(int64((g + p) % 4))})
		}
	}
	return s
}

// BenchmarkTailRound times one round of the offsets-topic gatherer
// (--commit-source offsets-topic) over 500 groups x 1,000 partitions
// (OFFSETCTL_BENCH_SMALL: 10 x 100) on kfake: ListGroups, the log
// offsets, the rows from the tail's state and the next page's state. The
// tail's state is prepared (what the tailer would hold), so only the
// round is timed; time lag is off (BenchmarkTailRoundTimeLag has it).
func BenchmarkTailRound(b *testing.B) { benchTailRound(b, false) }

// BenchmarkTailRoundTimeLag is BenchmarkTailRound with time lag on: the
// fleet's commits do not move, so after the first round (which reads
// them) every row's time lag comes from its row on the page, as an idle
// group's does in bench/exporter_tail.sh.
func BenchmarkTailRoundTimeLag(b *testing.B) { benchTailRound(b, true) }

func benchTailRound(b *testing.B, timeLag bool) {
	c := benchCluster(b)
	nGroups, nParts := benchSize()
	cfg := c.Cfg
	cfg.Timeout = 5 * time.Minute
	col := New(cfg, Options{Interval: 5 * time.Minute, Request: lag.GatherRequest{AllGroups: true}, CommitSource: SourceOffsetsTopic, TimeLag: timeLag})
	adm, err := cfg.NewAdmin()
	if err != nil {
		b.Fatal(err)
	}
	g := &tailGatherer{adm: adm, tailer: stateSource{tailStateOf(benchData.topic, benchData.prefix, nGroups, nParts)}, done: make(chan struct{})}
	defer g.close()
	ctx := context.Background()
	col.GatherOnce(ctx, g)
	if !col.Healthy() {
		b.Fatal("first gather failed")
	}
	b.ReportAllocs()
	cpu0 := cpuTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		col.GatherOnce(ctx, g)
	}
	b.StopTimer()
	// The process' CPU (the in-process broker's answers and the GC
	// included): on a shared machine, steadier than the wall time.
	b.ReportMetric((cpuTime()-cpu0).Seconds()*1000/float64(b.N), "cpu-ms/op")
	if !col.Healthy() || len(col.last.groups) != nGroups {
		b.Fatalf("gather: healthy %v, %d groups", col.Healthy(), len(col.last.groups))
	}
	if timeLag {
		// Group 1 committed 2 of partition 1's 3 records: lag 1.
		if r, ok := col.last.state[benchData.prefix+"-001"].row(benchData.topic, 1); !ok || r.lag != 1 || r.timeLagMs <= 0 {
			b.Fatalf("group 1, partition 1: %+v %v; want lag 1 and a time lag", r, ok)
		}
	}
}
