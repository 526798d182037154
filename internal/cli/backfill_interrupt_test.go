package cli

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/offsetctl/offsetctl/internal/testkit"
)

// TestBackfillSecondInterruptQuits runs the real binary (main's signal
// handling) on a backfill whose target stops answering: after the first
// Ctrl-C it waits for the copies in flight (up to --timeout, here 30 s)
// and says so on stderr after a second, with how to quit at once; a second
// Ctrl-C then ends the process by the signal, at once. Before, it said
// nothing and the second Ctrl-C was ignored (about a minute in all).
func TestBackfillSecondInterruptQuits(t *testing.T) {
	c := testkit.New(t)
	if c.Fake == nil {
		t.Skip("the stalled target is staged with kfake's control functions")
	}
	bin := builtOffsetctl(t)
	src := backfillSource(t, c, 200)
	dst := c.Topic(3, nil)
	produced := make(chan struct{}, 1)
	c.Fake.ControlKey(kmsg.Produce.Int16(), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.Fake.KeepControl()
		select {
		case produced <- struct{}{}:
		default:
		}
		c.Fake.SleepControl(func() { time.Sleep(20 * time.Second) })
		return nil, nil, false
	})
	stderr := newSyncBuffer()
	cmd := exec.Command(bin, "-b", c.BrokerList(), "--timeout", "30s", "replay", src, "--produce-to", dst, "--format", "none", "-q", "--no-verify")
	cmd.Env = append(os.Environ(), "OFFSETCTL_AUDIT_LOG="+t.TempDir()+"/audit.jsonl")
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		_ = cmd.Process.Kill()
		<-exited
	}()
	select {
	case <-produced:
	case err := <-exited:
		t.Fatalf("the backfill ended before it produced: %v; stderr %q", err, stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("no Produce request in 30 s; stderr %q", stderr.String())
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(15 * time.Second)
	for !strings.Contains(stderr.String(), "interrupted: waiting up to 30s for the copies in flight") {
		if time.Now().After(deadline) {
			t.Fatalf("no word on stderr 15 s after the first Ctrl-C: %q", stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(stderr.String(), "Ctrl-C again quits at once") {
		t.Fatalf("stderr does not say how to quit at once: %q", stderr.String())
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("after the second Ctrl-C: %v, want the process ended by SIGINT", err)
		}
		ws, _ := ee.Sys().(syscall.WaitStatus)
		if !ws.Signaled() || ws.Signal() != syscall.SIGINT {
			t.Fatalf("after the second Ctrl-C: %v (%v), want the process ended by SIGINT", err, ws)
		}
		exited <- err // for the deferred wait
	case <-time.After(10 * time.Second):
		t.Fatalf("still running 10 s after the second Ctrl-C (the copies wait up to 30 s); stderr %q", stderr.String())
	}
}
