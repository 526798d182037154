package cli

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
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
// nothing and the second Ctrl-C was ignored (about a minute in all). On
// kfake the target's Produce answers are held; on Apache Kafka see
// TestFaultBackfillSecondInterruptQuits.
func TestBackfillSecondInterruptQuits(t *testing.T) {
	c := testkit.New(t)
	if c.Fake == nil {
		t.Skip("the stalled target is staged with kfake's control functions (TestFaultBackfillSecondInterruptQuits freezes a real broker)")
	}
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
	cmd, stderr, exited := startBackfillBinary(t, "-b", c.BrokerList(), "--timeout", "30s", "replay", src, "--produce-to", dst, "--format", "none", "-q", "--no-verify")
	select {
	case <-produced:
	case err := <-exited:
		t.Fatalf("the backfill ended before it produced: %v; stderr %q", err, stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("no Produce request in 30 s; stderr %q", stderr.String())
	}
	interruptTwice(t, cmd, stderr, exited)
}

// TestFaultBackfillSecondInterruptQuits is the same on Apache Kafka: the
// broker is frozen (SIGSTOP) while copies are in flight. The replay also
// writes the records to a named pipe this test reads, so the copy is
// surely under way, and not over, when the broker freezes.
func TestFaultBackfillSecondInterruptQuits(t *testing.T) {
	b := needSecureBroker(t)
	src := bigTopic(t, b.c, 20000, 200)
	dst := b.c.Topic(3, nil)
	out := filepath.Join(t.TempDir(), "out.fifo")
	if err := syscall.Mkfifo(out, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd, stderr, exited := startBackfillBinary(t, "-b", b.plaintext, "--timeout", "30s", "replay", src, "--produce-to", dst,
		"--out", out, "--format", "raw", "-q", "--no-verify", "--fetch-max-bytes", "64KiB")
	opened := make(chan *os.File, 1)
	go func() {
		if f, err := os.Open(out); err == nil {
			opened <- f
		}
	}()
	var fifo *os.File
	select {
	case fifo = <-opened:
	case err := <-exited:
		t.Fatalf("the backfill ended before writing: %v; stderr %q", err, stderr.String())
	case <-time.After(2 * time.Minute):
		t.Fatal("the backfill did not open its output")
	}
	defer fifo.Close()
	if _, err := io.ReadFull(fifo, make([]byte, 1024)); err != nil {
		t.Fatalf("reading the backfill's first records: %v", err)
	}
	secureScript(t, b, "freeze")
	t.Cleanup(func() { secureScript(t, b, "thaw") })
	// Let the replay go on with what it fetched: its copies now wait
	// for a broker that does not answer.
	go func() { _, _ = io.Copy(io.Discard, fifo) }()
	time.Sleep(time.Second)
	interruptTwice(t, cmd, stderr, exited)
}

// startBackfillBinary starts the real offsetctl with args (its audit log in
// a temporary directory); exited gets its Wait's error, and the process is
// killed at the test's end if it still runs.
func startBackfillBinary(t *testing.T, args ...string) (*exec.Cmd, *syncBuffer, chan error) {
	t.Helper()
	stderr := newSyncBuffer()
	cmd := exec.Command(builtOffsetctl(t), args...)
	cmd.Env = append(os.Environ(), "OFFSETCTL_AUDIT_LOG="+filepath.Join(t.TempDir(), "audit.jsonl"))
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		exited <- <-exited // waited for; kept for a later reader
	})
	return cmd, stderr, exited
}

// interruptTwice sends Ctrl-C to a backfill whose copies cannot be
// acknowledged, expects stderr to say what it waits for and how to quit,
// then sends a second Ctrl-C and expects the process to end by it at once.
func interruptTwice(t *testing.T, cmd *exec.Cmd, stderr *syncBuffer, exited chan error) {
	t.Helper()
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
		exited <- err // for the cleanup's wait
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("after the second Ctrl-C: %v, want the process ended by SIGINT", err)
		}
		ws, _ := ee.Sys().(syscall.WaitStatus)
		if !ws.Signaled() || ws.Signal() != syscall.SIGINT {
			t.Fatalf("after the second Ctrl-C: %v (%v), want the process ended by SIGINT", err, ws)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("still running 10 s after the second Ctrl-C (the copies wait up to 30 s); stderr %q", stderr.String())
	}
}
