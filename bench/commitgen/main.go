// Command commitgen is a steady commit load on a fleet of consumer groups
// (groups PREFIX-0000 ... committed on every partition of TOPIC, as
// bench/laggen leaves them): every second it appends -records records to
// each partition of TOPIC, so log ends move, then commits a tenth (1 /
// -stride) of the group-partitions at growing offsets, each at its
// partition's new log end minus (g+p)%4, so a group that commits lags by
// 0-3 records right after its commit.
//
// Which tenth, -mode:
//
//	groups      every -stride-th group (g % stride == 0) commits all its
//	            partitions: how a fleet looks where a few groups are busy
//	            and most are idle, and a consumer commits its whole
//	            assignment (one OffsetCommit per group and second);
//	partitions  every group commits the partitions p with p % stride ==
//	            g % stride: every group changes every second (one
//	            OffsetCommit per group and second, 1 / stride of its
//	            partitions).
//
// Every -report it prints the commits and records per second achieved to
// stderr, and on SIGINT/SIGTERM (or after -for) one summary line to stdout,
// so a run can be validated against the rate asked for. With -status FILE
// it rewrites FILE every second with one line: unix time, the lowest and
// highest log end of TOPIC, and the lowest log end the latest commit round
// was based on (active group-partitions are committed at that end minus
// (g+p)%4, or a later one).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

type config struct {
	brokers     []string
	topic       string
	prefix      string
	groups      int
	partitions  int32
	stride      int
	mode        string
	records     int
	concurrency int
	report      time.Duration
	duration    time.Duration
	status      string
}

func main() {
	var c config
	brokers := flag.String("brokers", "127.0.0.1:9092", "bootstrap brokers")
	flag.StringVar(&c.topic, "topic", "lag-bench", "the fleet's topic")
	flag.StringVar(&c.prefix, "prefix", "lag-bench", "group name prefix (groups PREFIX-0000, ...)")
	flag.IntVar(&c.groups, "groups", 500, "groups in the fleet")
	partitions := flag.Int("partitions", 1000, "partitions of the topic")
	flag.IntVar(&c.stride, "stride", 10, "1 / stride of the group-partitions commit each second")
	flag.StringVar(&c.mode, "mode", "groups", "which ones: groups (every stride-th group, all partitions) or partitions (every group, every stride-th partition)")
	flag.IntVar(&c.records, "records", 1, "records appended to each partition each second")
	flag.IntVar(&c.concurrency, "concurrency", 8, "commit requests in flight")
	flag.DurationVar(&c.report, "report", 10*time.Second, "how often to print the rate achieved")
	flag.DurationVar(&c.duration, "for", 0, "stop after this long (0: at SIGINT/SIGTERM)")
	flag.StringVar(&c.status, "status", "", "file rewritten every second with: unix-time end-min end-max committed-end")
	flag.Parse()
	c.brokers, c.partitions = strings.Split(*brokers, ","), int32(*partitions)
	if (c.mode != "groups" && c.mode != "partitions") || c.stride < 1 || c.records < 1 || c.groups < 1 || c.partitions < 1 {
		fmt.Fprintln(os.Stderr, "commitgen: -mode is groups or partitions; -stride, -records, -groups, -partitions at least 1")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if c.duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.duration)
		defer cancel()
	}
	if err := run(ctx, c); err != nil {
		fmt.Fprintln(os.Stderr, "commitgen:", err)
		os.Exit(1)
	}
}

// active reports whether group g commits partition p each second.
func (c config) active(g int, p int32) bool {
	if c.mode == "groups" {
		return g%c.stride == 0
	}
	return int(p)%c.stride == g%c.stride
}

// counters are the totals since start, read by the reporter.
type counters struct {
	commits, records, failedCommits, failedRecords, late atomic.Int64
}

func run(ctx context.Context, c config) error {
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.brokers...), kgo.DefaultProduceTopic(c.topic),
		kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.ProducerLinger(5*time.Millisecond))
	if err != nil {
		return err
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	ends, err := adm.ListEndOffsets(ctx, c.topic)
	if err != nil {
		return fmt.Errorf("log ends of %s: %w", c.topic, err)
	}
	end := make([]int64, c.partitions)
	ends.Each(func(o kadm.ListedOffset) {
		if o.Partition < c.partitions {
			end[o.Partition] = o.Offset
		}
	})
	var n counters
	start := time.Now()
	reports := time.NewTicker(c.report)
	defer reports.Stop()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	last, lastAt := snapshot(&n), start
	committed := int64(-1)
	for {
		select {
		case <-ctx.Done():
			summary(&n, time.Since(start))
			return nil
		case <-reports.C:
			now := snapshot(&n)
			d := time.Since(lastAt).Seconds()
			fmt.Fprintf(os.Stderr, "commitgen: %.0fs: %.0f commits/s, %.0f records/s, %d late ticks, %d failed commits\n",
				time.Since(start).Seconds(), float64(now[0]-last[0])/d, float64(now[1]-last[1])/d, now[2], now[3])
			last, lastAt = now, time.Now()
		case <-tick.C:
			t0 := time.Now()
			if base := tickOnce(ctx, c, cl, adm, end, &n); base >= 0 {
				committed = base
			}
			writeStatus(c.status, end, committed)
			if time.Since(t0) > time.Second {
				n.late.Add(1)
			}
		}
	}
}

func snapshot(n *counters) [4]int64 {
	return [4]int64{n.commits.Load(), n.records.Load(), n.late.Load(), n.failedCommits.Load()}
}

// tickOnce appends the records of one second, then commits the active
// group-partitions at the new ends. It returns the lowest end the commits
// were based on (-1 when none succeeded).
func tickOnce(ctx context.Context, c config, cl *kgo.Client, adm *kadm.Client, end []int64, n *counters) int64 {
	recs := make([]*kgo.Record, 0, int(c.partitions)*c.records)
	for p := int32(0); p < c.partitions; p++ {
		for i := 0; i < c.records; i++ {
			recs = append(recs, &kgo.Record{Partition: p, Value: []byte("commitgen")})
		}
	}
	for _, r := range cl.ProduceSync(ctx, recs...) {
		if r.Err != nil {
			n.failedRecords.Add(1)
			continue
		}
		n.records.Add(1)
		end[r.Record.Partition] = max(end[r.Record.Partition], r.Record.Offset+1)
	}
	if ctx.Err() != nil {
		return -1
	}
	base := end[0]
	for _, e := range end {
		base = min(base, e)
	}
	var wg sync.WaitGroup
	var ok atomic.Bool
	sem := make(chan struct{}, c.concurrency)
	for g := 0; g < c.groups; g++ {
		offs := make(kadm.Offsets)
		for p := int32(0); p < c.partitions; p++ {
			if c.active(g, p) {
				offs.AddOffset(c.topic, p, max(0, end[p]-int64((g+int(p))%4)), -1)
			}
		}
		if len(offs) == 0 {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func(name string, offs kadm.Offsets) {
			defer wg.Done()
			defer func() { <-sem }()
			k := int64(len(offs[c.topic]))
			if err := adm.CommitAllOffsets(ctx, name, offs); err != nil {
				if !errors.Is(err, context.Canceled) {
					n.failedCommits.Add(k)
				}
				return
			}
			n.commits.Add(k)
			ok.Store(true)
		}(fmt.Sprintf("%s-%04d", c.prefix, g), offs)
	}
	wg.Wait()
	if !ok.Load() {
		return -1
	}
	return base
}

// writeStatus replaces path's content with one line (renamed into place,
// so a reader never sees half of it).
func writeStatus(path string, end []int64, base int64) {
	if path == "" {
		return
	}
	lo, hi := end[0], end[0]
	for _, e := range end {
		lo, hi = min(lo, e), max(hi, e)
	}
	tmp := path + ".tmp"
	line := fmt.Sprintf("%.3f %d %d %d\n", float64(time.Now().UnixNano())/1e9, lo, hi, base)
	if os.WriteFile(tmp, []byte(line), 0o644) == nil {
		_ = os.Rename(tmp, path)
	}
}

func summary(n *counters, d time.Duration) {
	s := d.Seconds()
	fmt.Printf("commitgen: %.1f s, %d commits (%.0f/s), %d records (%.0f/s), %d failed commits, %d failed records, %d ticks over 1 s\n",
		s, n.commits.Load(), float64(n.commits.Load())/s, n.records.Load(), float64(n.records.Load())/s,
		n.failedCommits.Load(), n.failedRecords.Load(), n.late.Load())
}
