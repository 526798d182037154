package main

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/offsetctl/offsetctl/cluster"
	"github.com/offsetctl/offsetctl/internal/testkit"
)

// TestPlayground starts the playground on random ports, reads the address
// it prints, and checks with lag that the seeded group is there.
func TestPlayground(t *testing.T) {
	if testkit.Real() {
		t.Skip("the playground is an in-process cluster; nothing to run against a real broker")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := &syncBuffer{}
	done := make(chan int, 1)
	go func() {
		a := &app{stdout: out, stderr: out, stdin: strings.NewReader(""), getenv: func(string) string { return "" }, now: time.Now}
		done <- a.execute(ctx, []string{"playground", "--listen", "127.0.0.1:0", "--brokers-count", "2"})
	}()
	re := regexp.MustCompile(`at (127\.0\.0\.1:\d+,127\.0\.0\.1:\d+)`)
	var addr string
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if m := re.FindStringSubmatch(out.String()); m != nil && strings.Contains(out.String(), "Ctrl-C") {
			addr = m[1]
			break
		}
	}
	if addr == "" {
		t.Fatalf("playground printed no address:\n%s", out.String())
	}
	var rep lagJSON
	decodeJSON(t, mustRun(t, nil, 0, "--brokers", addr, "lag", cluster.DemoGroup, "-o", "json"), &rep)
	if len(rep.Groups) != 1 || rep.Groups[0].TotalLag != 13 || len(rep.Groups[0].Partitions) != cluster.DemoPartitions {
		t.Errorf("seeded group = %+v", rep.Groups)
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("playground exit %d", code)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("playground did not stop on cancel")
	}
}
