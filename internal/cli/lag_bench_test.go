package cli

import (
	"context"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetctl/offsetctl/internal/lag"
	"github.com/offsetctl/offsetctl/internal/testkit"
)

// requestCounter counts requests a client writes, by API key.
type requestCounter struct {
	mu sync.Mutex
	n  map[int16]int
}

func (r *requestCounter) OnBrokerWrite(_ kgo.BrokerMetadata, key int16, _ int, _, _ time.Duration, err error) {
	if err != nil {
		return
	}
	r.mu.Lock()
	r.n[key]++
	r.mu.Unlock()
}

// lagBenchGroups and lagBenchPartitions size the lag benchmark; the issue
// asks for 100 groups × 1,000 partitions. OFFSETCTL_BENCH_SMALL shrinks it.
func lagBenchSize() (groups, partitions int) {
	if os.Getenv("OFFSETCTL_BENCH_SMALL") != "" {
		return 10, 100
	}
	return 100, 1000
}

// BenchmarkLagAllGroups times `offsetctl lag --all-groups -o json` over
// 100 groups, each with commits on all 1,000 partitions of one topic, and
// reports the requests that gathering sends by kind (one round per batch of
// lag.LagBatchGroups groups).
func BenchmarkLagAllGroups(b *testing.B) {
	nGroups, nParts := lagBenchSize()
	c := testkit.New(b)
	c.LagFleet(testkit.Name(b, "bench"), nGroups, nParts)
	ctx := context.Background()

	// Requests one gathering sends, counted by API key.
	rc := &requestCounter{n: map[int16]int{}}
	cfg := c.Cfg
	hooked, err := cfg.NewAdmin(kgo.WithHooks(rc))
	if err != nil {
		b.Fatal(err)
	}
	// The command's own gathering: batches of lag.LagBatchGroups.
	if err := lag.StreamLag(ctx, hooked, lag.GatherRequest{AllGroups: true}, lag.LagOptions{}, lag.StreamOptions{}, func(context.Context, lag.LagBatch) error { return nil }); err != nil {
		b.Fatal(err)
	}
	hooked.Close()
	names := map[int16]string{2: "ListOffsets", 3: "Metadata", 9: "OffsetFetch", 15: "DescribeGroups", 16: "ListGroups", 69: "ConsumerGroupDescribe", 10: "FindCoordinator"}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := offsetctl(b, c, "lag", "--all-groups", "-o", "json", "--timeout", "120s")
		if r.code != 0 {
			b.Fatalf("exit %d: %s", r.code, r.stderr)
		}
	}
	b.StopTimer()
	// ResetTimer drops reported metrics: report the request counts now.
	for k, n := range rc.n {
		name := names[k]
		if name == "" {
			name = "key" + strconv.Itoa(int(k))
		}
		b.ReportMetric(float64(n), name+"-reqs")
	}
	// The comparison with Apache's tool is bench/lag.sh: interleaved runs,
	// min and median of each, not one timing of each.
}
