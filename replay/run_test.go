package replay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/offsetctl/offsetctl/internal/cluster"
)

// fakeTopic starts kfake with topic holding n records per partition.
func fakeTopic(tb testing.TB, partitions int32, n int) (*kfake.Cluster, cluster.Config) {
	tb.Helper()
	fake, err := kfake.NewCluster(kfake.NumBrokers(3), kfake.SeedTopics(partitions, "t"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(fake.Close)
	cfg := cluster.Config{Brokers: fake.ListenAddrs(), Timeout: 30 * time.Second}
	cl, err := cfg.NewClient(kgo.DefaultProduceTopic("t"), kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.ProducerLinger(5*time.Millisecond))
	if err != nil {
		tb.Fatal(err)
	}
	defer cl.Close()
	val := []byte(strings.Repeat("v", 100))
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		for p := int32(0); p < partitions; p++ {
			wg.Add(1)
			cl.Produce(context.Background(), &kgo.Record{Partition: p, Value: val}, func(_ *kgo.Record, err error) {
				defer wg.Done()
				if err != nil {
					tb.Error(err)
				}
			})
		}
	}
	wg.Wait()
	return fake, cfg
}

// TestConsumeSendsNoGroupRequest counts every group-related request the
// cluster receives during a replay without the proof: the replay client
// alone must send none, not even FindCoordinator or OffsetFetch.
func TestConsumeSendsNoGroupRequest(t *testing.T) {
	fake, cfg := fakeTopic(t, 3, 200)
	keys := map[int16]string{
		kmsg.FindCoordinator.Int16(): "FindCoordinator", kmsg.OffsetFetch.Int16(): "OffsetFetch",
		kmsg.OffsetCommit.Int16(): "OffsetCommit", kmsg.TxnOffsetCommit.Int16(): "TxnOffsetCommit",
		kmsg.JoinGroup.Int16(): "JoinGroup", kmsg.SyncGroup.Int16(): "SyncGroup", kmsg.Heartbeat.Int16(): "Heartbeat",
		kmsg.LeaveGroup.Int16(): "LeaveGroup", kmsg.ConsumerGroupHeartbeat.Int16(): "ConsumerGroupHeartbeat",
	}
	var (
		mu     sync.Mutex
		counts = map[string]int{}
		fetch  int
	)
	for k, name := range keys {
		fake.ControlKey(k, func(kmsg.Request) (kmsg.Response, error, bool) {
			fake.KeepControl()
			mu.Lock()
			counts[name]++
			mu.Unlock()
			return nil, nil, false
		})
	}
	fake.ControlKey(kmsg.Fetch.Int16(), func(kmsg.Request) (kmsg.Response, error, bool) {
		fake.KeepControl()
		mu.Lock()
		fetch++
		mu.Unlock()
		return nil, nil, false
	})
	res, err := Run(context.Background(), cfg, Options{Topic: "t", Sink: io.Discard, NoVerify: true})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if res.Records != 600 || fetch == 0 {
		t.Fatalf("records %d, fetches %d", res.Records, fetch)
	}
	if len(counts) != 0 {
		t.Fatalf("group requests during a group-less replay: %v", counts)
	}
}

// BenchmarkReplay measures the whole consumer loop (fetch, decode, hash,
// encode) on an in-process kfake cluster, per format. The end-to-end
// comparison with kcat is bench/replay.sh.
func BenchmarkReplay(b *testing.B) {
	const perPartition = 50_000
	_, cfg := fakeTopic(b, 3, perPartition)
	for _, f := range []Format{None, Raw, JSONL} {
		b.Run(string(f), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(3 * perPartition * 100)
			for b.Loop() {
				res, err := Run(context.Background(), cfg, Options{Topic: "t", Sink: nullWriter{}, Format: f, NoVerify: true})
				if err != nil || res.Records != 3*perPartition {
					b.Fatalf("%v, %d records", err, res.Records)
				}
			}
		})
	}
}

// nullWriter discards like io.Discard, but Run does not recognise it, so
// the records are really encoded.
type nullWriter struct{}

func (nullWriter) Write(p []byte) (int, error) { return len(p), nil }

// TestReplayRequestKinds records every request the cluster receives during
// a replay, with the proof and with NoVerify, and asserts the exact set:
// docs/replay.md "Requests and ACLs" lists them, with the ACLs. The
// proof is read-only: ListGroups, FindCoordinator (for the groups' coordinators),
// OffsetFetch and DescribeGroups / ConsumerGroupDescribe; the replay
// itself is Metadata, ListOffsets and Fetch (and ApiVersions).
func TestReplayRequestKinds(t *testing.T) {
	for _, noVerify := range []bool{true, false} {
		fake, cfg := fakeTopic(t, 3, 50)
		// Commits on the topic from a classic and a KIP-848 group, so
		// the proof describes both kinds.
		cl, err := cfg.NewClient()
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range []string{"classic-g", "kip848-g"} {
			opts := []kgo.Opt{kgo.ConsumerGroup(g), kgo.ConsumeTopics("t"), kgo.DisableAutoCommit(), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart())}
			if g == "kip848-g" {
				opts = append(opts, kgo.ServerSideBalancer(), kgo.Balancers(kgo.RangeBalancer()))
			}
			gc, err := cfg.NewClient(opts...)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			for n := 0; n < 10 && ctx.Err() == nil; {
				n += gc.PollFetches(ctx).NumRecords()
			}
			if err := gc.CommitUncommittedOffsets(ctx); err != nil {
				t.Fatal(err)
			}
			cancel()
			gc.Close() // leaves: its heartbeats are not the replay's
		}
		cl.Close()
		var mu sync.Mutex
		seen := map[string]bool{}
		for k := int16(0); k <= kmsg.MaxKey; k++ {
			name := kmsg.NameForKey(k)
			fake.ControlKey(k, func(kmsg.Request) (kmsg.Response, error, bool) {
				fake.KeepControl()
				mu.Lock()
				seen[name] = true
				mu.Unlock()
				return nil, nil, false
			})
		}
		res, err := Run(context.Background(), cfg, Options{Topic: "t", Sink: io.Discard, NoVerify: noVerify})
		if err != nil || res.Records != 150 {
			t.Fatalf("noVerify=%v: %v, %d records", noVerify, err, res.Records)
		}
		// KIP-714 client telemetry (GetTelemetrySubscriptions,
		// PushTelemetry) needs no ACL; whether it is sent depends on
		// the broker, so it is neither required nor refused.
		want := []string{"ApiVersions", "Fetch", "ListOffsets", "Metadata"}
		if !noVerify {
			want = append(want, "ConsumerGroupDescribe", "DescribeGroups", "FindCoordinator", "ListGroups", "OffsetFetch")
		}
		slices.Sort(want)
		mu.Lock()
		var got []string
		for name := range seen {
			if name != "GetTelemetrySubscriptions" && name != "PushTelemetry" {
				got = append(got, name)
			}
		}
		mu.Unlock()
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("noVerify=%v: requests %v, want exactly %v", noVerify, got, want)
		}
	}
}

// TestRecordsWriteError: a closed output ends a plain replay quietly,
// with an error only when records asked for were not written; a backfill
// and any other write error stay loud.
func TestRecordsWriteError(t *testing.T) {
	epipe := fmt.Errorf("write |1: %w", syscall.EPIPE)
	bounded := Plan{Partitions: []PartitionPlan{{Partition: 0, From: 0, Bound: 10, StopAtMs: -1}}}
	tail := Plan{Follow: true, Partitions: []PartitionPlan{{Partition: 0, Bound: NoBound, StopAtMs: -1}}}
	tailUntilTime := Plan{Follow: true, Partitions: []PartitionPlan{{Partition: 0, Bound: NoBound, StopAtMs: 5000}}}
	tailMax := tail
	tailMax.Max = 3
	cases := []struct {
		name        string
		plan        Plan
		copying     bool
		err         error
		wantStopped string
		wantClosed  bool // the error wraps ErrOutputClosed
		wantNil     bool
	}{
		{"bounded replay, reader gone", bounded, false, epipe, StoppedOutputClosed, true, false},
		{"io.Pipe reader closed", bounded, false, io.ErrClosedPipe, StoppedOutputClosed, true, false},
		{"tail with no end, reader gone", tail, false, epipe, StoppedOutputClosed, false, true},
		{"tail with an end time", tailUntilTime, false, epipe, StoppedOutputClosed, true, false},
		{"tail with --max", tailMax, false, epipe, StoppedOutputClosed, true, false},
		{"backfill stays loud", bounded, true, epipe, StoppedError, false, false},
		{"disk full stays loud", bounded, false, syscall.ENOSPC, StoppedError, false, false},
	}
	for _, c := range cases {
		stopped, err := recordsWriteError(c.plan, c.copying, c.err)
		if stopped != c.wantStopped || (err == nil) != c.wantNil || errors.Is(err, ErrOutputClosed) != c.wantClosed {
			t.Errorf("%s: stopped %q, err %v", c.name, stopped, err)
		}
		if err != nil && !errors.Is(err, c.err) {
			t.Errorf("%s: %v does not wrap the write error", c.name, err)
		}
	}
}
