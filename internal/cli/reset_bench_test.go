package cli

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/offsetctl/offsetctl/internal/testkit"
)

// benchPartitions is the partition count of the reset benchmarks
// (OFFSETCTL_BENCH_PARTITIONS overrides the default 10,000).
func benchPartitions(b *testing.B) int32 {
	n := int32(10000)
	if s := os.Getenv("OFFSETCTL_BENCH_PARTITIONS"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v <= 0 {
			b.Fatalf("OFFSETCTL_BENCH_PARTITIONS=%q", s)
		}
		n = int32(v)
	}
	return n
}

// resetBenchSetup creates n partitions (topics of at most 1,000
// partitions: KRaft refuses 10,000 in one request) with one record each and
// a group committed at 0 on every partition.
func resetBenchSetup(b *testing.B, n int32) (*testkit.Cluster, string) {
	c := testkit.New(b)
	// Realistic names are ~40 characters (testkit.Name); with
	// OFFSETCTL_BENCH_SHORT_NAMES=1 they are ~10, small enough for one
	// 10,000-partition OffsetCommit to fit the coordinator's 1 MiB batch.
	short := os.Getenv("OFFSETCTL_BENCH_SHORT_NAMES") == "1"
	name := func(prefix string) string {
		if short {
			var r [4]byte
			_, _ = rand.Read(r[:])
			return prefix + hex.EncodeToString(r[:])
		}
		return testkit.Name(b, prefix)
	}
	g := name("g")
	var topics []string
	for left := n; left > 0; left -= 1000 {
		parts := min(left, 1000)
		topic := name("b")
		c.CreateTopic(topic, parts, nil)
		topics = append(topics, topic)
		recs := make([]*kgo.Record, 0, parts)
		offs := make(map[int32]int64, parts)
		for p := int32(0); p < parts; p++ {
			recs = append(recs, &kgo.Record{Topic: topic, Partition: p, Value: []byte("x")})
			offs[p] = 0
		}
		c.ProduceRecords(recs...)
		c.Commit(g, topic, offs)
	}
	if testkit.Real() {
		b.Cleanup(func() {
			adm := c.Admin()
			ctx := testkit.Ctx(b)
			_, _ = adm.DeleteGroups(ctx, g)
			_, _ = adm.DeleteTopics(ctx, topics...)
		})
	}
	return c, g
}

// BenchmarkReset10kPartitions times the whole `reset --execute` command
// (gather, plan, backup with fsync, one OffsetCommit, read back and verify)
// for one group over 10,000 partitions (--all-topics), alternating earliest and latest so
// every run moves every offset. On kfake it also counts OffsetCommit
// requests per run (the metric commits/op; one coordinator, so 1).
func BenchmarkReset10kPartitions(b *testing.B) {
	n := benchPartitions(b)
	c, g := resetBenchSetup(b, n)
	var commits atomic.Int64
	if c.Fake != nil {
		c.Fake.ControlKey(kmsg.OffsetCommit.Int16(), func(kmsg.Request) (kmsg.Response, error, bool) {
			c.Fake.KeepControl()
			commits.Add(1)
			return nil, nil, false
		})
	}
	dir := b.TempDir()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		to := "earliest"
		if i%2 == 0 {
			to = "latest"
		}
		r := offsetctl(b, c, "reset", "-o", benchFormat(), g, "--all-topics", "--to", to, "--execute", "--backup", filepath.Join(dir, fmt.Sprintf("b%d.csv", i)))
		if r.code != 0 {
			b.Fatalf("reset: exit %d\n%s", r.code, r.stderr)
		}
		if c.Fake == nil {
			// On a real broker, count from what the command says.
			n := int64(1)
			if _, after, ok := strings.Cut(r.stderr, "so it was sent as "); ok {
				fmt.Sscanf(after, "%d", &n)
			}
			commits.Add(n)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(commits.Load())/float64(b.N), "commits/op")
	b.ReportMetric(float64(n), "partitions")
}

// BenchmarkApacheReset10kPartitions times Apache's kafka-consumer-groups
// --reset-offsets --execute for the same reset (real broker only).
func BenchmarkApacheReset10kPartitions(b *testing.B) {
	if !testkit.Real() || os.Getenv("OFFSETCTL_KAFKA_SCRIPT") == "" {
		b.Skip("needs KAFKA_BROKERS and OFFSETCTL_KAFKA_SCRIPT")
	}
	n := benchPartitions(b)
	c, g := resetBenchSetup(b, n)
	b.ResetTimer()
	failed := 0
	for i := 0; i < b.N; i++ {
		to, want := "--to-earliest", int64(0)
		if i%2 == 0 {
			to, want = "--to-latest", 1
		}
		out := c.ApacheTool("--reset-offsets", "--group", g, "--all-topics", to, "--execute")
		b.StopTimer()
		// Did it commit? Apache's tool prints an error and exits 0 when
		// the broker refuses the commit. On failure, move the offsets
		// to the target ourselves so the next run starts from the
		// same state as after a success.
		at := 0
		for _, ps := range c.Committed(g) {
			for _, o := range ps {
				if o == want {
					at++
				}
			}
		}
		if at != int(n) {
			failed++
			b.Logf("run %d: Apache's tool committed %d of %d partitions; its output starts: %s", i, at, n, head(out, 300))
			r := offsetctl(b, c, "reset", "-o", "json", g, "--all-topics", "--to", strings.TrimPrefix(to, "--to-"), "--execute", "--backup", filepath.Join(b.TempDir(), "fix.csv"))
			if r.code != 0 {
				b.Fatalf("fixing up after Apache: %s", r.stderr)
			}
		}
		b.StartTimer()
	}
	b.StopTimer()
	b.ReportMetric(float64(failed)/float64(b.N), "failed-runs/op")
	b.ReportMetric(float64(n), "partitions")
}

// benchFormat is the output format of the benchmarked command
// (OFFSETCTL_BENCH_OUTPUT, default table).
func benchFormat() string {
	if f := os.Getenv("OFFSETCTL_BENCH_OUTPUT"); f != "" {
		return f
	}
	return "table"
}

func head(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}
