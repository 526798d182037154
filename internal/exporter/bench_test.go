package exporter

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/offsetctl/offsetctl/internal/lag"
	"github.com/offsetctl/offsetctl/internal/testkit"
)

// benchData is built once per process: Go runs a benchmark function once
// with b.N = 1 before the measured run, and a second set of 500 groups
// would double what every later gather reads.
var benchData struct {
	once          sync.Once
	c             *testkit.Cluster
	topic, prefix string // the fleet's topic and its groups' prefix
}

// benchCluster commits 500 groups × 1,000 partitions once per process.
func benchCluster(b *testing.B) *testkit.Cluster {
	benchData.once.Do(func() {
		nGroups, nParts := benchSize()
		c := testkit.NewDetached(b)
		benchData.prefix = testkit.Name(b, "xbench")
		benchData.topic = c.LagFleet(benchData.prefix, nGroups, nParts)
		benchData.c = c
	})
	if benchData.c == nil {
		b.Fatal("benchmark data could not be made")
	}
	return benchData.c
}

// benchSize is the 500 groups × 1,000 partitions;
// OFFSETCTL_BENCH_SMALL shrinks it for a quick look.
func benchSize() (groups, partitions int) {
	if os.Getenv("OFFSETCTL_BENCH_SMALL") != "" {
		return 10, 100
	}
	return 500, 1000
}

// BenchmarkExporterGather times one exporter gather (no time lag: every
// group lags, so the first round would read 500,000 records' positions
// and say nothing about the gather itself) over 500 groups with commits
// on all 1,000 partitions of one topic, while a scraper fetches /metrics
// over HTTP in a loop. It reports the gather time, the scrape latency
// during gathers (median and max), the series served and the peak RSS of
// the process. On kfake the broker runs in the same process, so the RSS
// includes it; with KAFKA_BROKERS it is the exporter's alone.
func BenchmarkExporterGather(b *testing.B) {
	c := benchCluster(b)
	ctx := context.Background()
	cfg := c.Cfg
	cfg.Timeout = 5 * time.Minute
	col := New(cfg, Options{Interval: 5 * time.Minute, Request: lag.GatherRequest{AllGroups: true}})
	reg := prometheus.NewRegistry()
	reg.MustRegister(col)
	srv := httptest.NewServer(Handler(reg, col))
	defer srv.Close()
	g, err := col.open()
	if err != nil {
		b.Fatal(err)
	}
	defer g.close()
	col.GatherOnce(ctx, g) // the first scrapes then serve a full report
	if !col.Healthy() {
		b.Fatal("first gather failed")
	}

	var lat []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		done := make(chan struct{})
		scraped := make(chan []time.Duration)
		go func() {
			var l []time.Duration
			for {
				select {
				case <-done:
					scraped <- l
					return
				default:
				}
				start := time.Now()
				resp, err := http.Get(srv.URL)
				if err != nil {
					b.Error(err)
					scraped <- l
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				l = append(l, time.Since(start))
			}
		}()
		col.GatherOnce(ctx, g)
		close(done)
		lat = append(lat, <-scraped...)
		if !col.Healthy() {
			b.Fatal("gather failed")
		}
	}
	b.StopTimer()
	series := 0
	if resp, err := http.Get(srv.URL); err == nil {
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			if line := sc.Bytes(); len(line) > 0 && line[0] != '#' {
				series++
			}
		}
		resp.Body.Close()
	}
	slices.Sort(lat)
	if len(lat) > 0 {
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "scrape-median-ms")
		b.ReportMetric(float64(lat[len(lat)-1].Microseconds())/1000, "scrape-max-ms")
	}
	b.ReportMetric(float64(len(lat))/float64(b.N), "scrapes/gather")
	b.ReportMetric(float64(series), "series")
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		b.ReportMetric(float64(ru.Maxrss)/1024, "peak-rss-MiB")
	}
}
