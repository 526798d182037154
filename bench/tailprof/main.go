// Command tailprof runs the exporter's tail of __consumer_offsets alone
// (health.Tailer, as `exporter --commit-source offsets-topic` builds it),
// in process, so its cost per record can be measured and profiled without
// the exporter's rounds: it waits for the warm-up, lets -settle pass, then
// measures -for, printing one line: records applied, CPU seconds
// (user+system of the process), ns per record, CPU seconds per 15 s, the
// records per second, and VmHWM. -cpuprofile writes a CPU profile of the
// measured span.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetctl/offsetctl/internal/health"
)

func main() {
	brokers := flag.String("brokers", "127.0.0.1:9092", "seed brokers, comma-separated")
	window := flag.Duration("window", 0, "TailOptions.Window (the exporter's --status-window with --status, else 0)")
	settle := flag.Duration("settle", 10*time.Second, "time after the warm-up before measuring")
	span := flag.Duration("for", 45*time.Second, "time measured")
	prof := flag.String("cpuprofile", "", "write a CPU profile of the measured span to this file")
	minBytes := flag.Int("fetch-min-bytes", 0, "kgo.FetchMinBytes added to the tail's consumer (0: the tail's own)")
	maxWait := flag.Duration("fetch-max-wait", 0, "kgo.FetchMaxWait added to the tail's consumer (0: the tail's own)")
	flag.Parse()
	var extra []kgo.Opt
	if *minBytes > 0 {
		extra = append(extra, kgo.FetchMinBytes(int32(*minBytes)))
	}
	if *maxWait > 0 {
		extra = append(extra, kgo.FetchMaxWait(*maxWait))
	}
	if err := run(*brokers, *window, *settle, *span, *prof, extra); err != nil {
		fmt.Fprintln(os.Stderr, "tailprof:", err)
		os.Exit(1)
	}
}

func run(brokers string, window, settle, span time.Duration, prof string, extra []kgo.Opt) error {
	seeds := kgo.SeedBrokers(strings.Split(brokers, ",")...)
	acl, err := kgo.NewClient(seeds)
	if err != nil {
		return err
	}
	defer acl.Close()
	r := health.TopicReader{Admin: kadm.NewClient(acl), NewClient: func(opts ...kgo.Opt) (*kgo.Client, error) {
		return kgo.NewClient(append(append([]kgo.Opt{seeds}, opts...), extra...)...)
	}}
	t := health.NewTailer(r, health.TailOptions{Window: window})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go t.Run(ctx)
	start := time.Now()
	select {
	case <-t.Ready():
	case <-time.After(5 * time.Minute):
		return fmt.Errorf("no warm-up in 5 minutes")
	}
	warm := time.Since(start)
	time.Sleep(settle)
	var f *os.File
	if prof != "" {
		if f, err = os.Create(prof); err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
	}
	n0, c0 := records(t), cpu()
	time.Sleep(span)
	n1, c1 := records(t), cpu()
	if f != nil {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			return err
		}
	}
	n, c := n1-n0, (c1 - c0).Seconds()
	parts := 0
	t.View(func(s *health.TailState) { parts = s.Partitions() })
	fmt.Printf("warm-up %.1fs records %d cpu %.3fs ns/record %.0f cpu-per-15s %.3f records/s %.0f partitions %d VmHWM %s\n",
		warm.Seconds(), n, c, c*1e9/float64(max(n, 1)), c*15/span.Seconds(), float64(n)/span.Seconds(), parts, hwm())
	return nil
}

func records(t *health.Tailer) int {
	var n int
	t.View(func(s *health.TailState) { n = s.Records })
	return n
}

func cpu() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func hwm() string {
	b, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmHWM:") {
			return strings.Join(strings.Fields(l)[1:], "")
		}
	}
	return "?"
}
