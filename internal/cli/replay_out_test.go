package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/offsetctl/offsetctl/internal/exitcode"
	"github.com/offsetctl/offsetctl/internal/testkit"
)

// TestReplayRefusedKeepsOut: a replay refused as bad input (exit 2) leaves
// an existing --out file as it was: the file is opened, and truncated,
// only when the replay starts. And --out naming a file replay keeps
// otherwise (the checkpoint, the digest file, the audit log), by any path,
// is refused before anything.
func TestReplayRefusedKeepsOut(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(3, nil)
	c.Produce(topic, map[int32]int{0: 20, 1: 20, 2: 20}, time.Time{})
	dir := t.TempDir()
	out := filepath.Join(dir, "p.txt")
	const precious = "precious\n"
	for _, tc := range []struct {
		want string
		args []string
	}{
		{"start offset 99 is outside the log", []string{"replay", topic, "--from", "0=99"}},
		{"has no partition 9", []string{"replay", topic, "--partitions", "9"}},
		{"--until 2 is before the start offset 5", []string{"replay", topic, "--from", "0=5", "--until", "0=2"}},
		{"group nobody has no commits", []string{"replay", topic, "--verify-groups", "nobody"}},
		{"does not exist", []string{"replay", testkit.Name(t, "nosuch")}},
		{"target topic", []string{"replay", topic, "--produce-to", testkit.Name(t, "nosuch")}},
		{"is the topic being replayed", []string{"replay", topic, "--produce-to", topic}},
	} {
		if err := os.WriteFile(out, []byte(precious), 0o644); err != nil {
			t.Fatal(err)
		}
		badInput(t, c, tc.want, append(tc.args, "--out", out, "-q")...)
		if b, err := os.ReadFile(out); err != nil || string(b) != precious {
			t.Fatalf("%v: --out holds %q (%v) after the refusal, want %q", tc.args, b, err, precious)
		}
	}

	// The same file as --checkpoint, --digest-out or the audit log.
	ckpt := filepath.Join(dir, "same.ckpt")
	if err := os.WriteFile(ckpt, []byte("a checkpoint\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.ckpt")
	if err := os.Link(ckpt, link); err != nil {
		t.Fatal(err)
	}
	dst := c.Topic(3, nil)
	for _, o := range []string{ckpt, link, dir + "/../" + filepath.Base(dir) + "/same.ckpt"} {
		badInput(t, c, "is the --checkpoint file", "replay", topic, "--produce-to", dst, "--checkpoint", ckpt, "--out", o, "-q")
	}
	if b, _ := os.ReadFile(ckpt); string(b) != "a checkpoint\n" {
		t.Fatalf("the checkpoint holds %q after the refusal", b)
	}
	digest := filepath.Join(dir, "d.json")
	badInput(t, c, "is the --digest-out file", "replay", topic, "--digest-out", digest, "--out", dir+"/../"+filepath.Base(dir)+"/./d.json", "-q")
	if _, err := os.Lstat(digest); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the refused run left %s (%v)", digest, err)
	}
	log := testAuditLog(t)
	mustRun(t, c, 0, "replay", topic, "--format", "none", "-q") // the log exists, with an entry
	before, err := os.ReadFile(log)
	if err != nil || len(before) == 0 {
		t.Fatalf("audit log: %v, %d bytes", err, len(before))
	}
	badInput(t, c, "is the audit log", "replay", topic, "--out", log, "-q")
	if after, _ := os.ReadFile(log); !bytes.Equal(after, before) {
		t.Fatalf("the audit log changed: %d bytes, was %d", len(after), len(before))
	}
	// Not the same file: a run goes through and truncates --out.
	if err := os.WriteFile(out, []byte(precious), 0o644); err != nil {
		t.Fatal(err)
	}
	mustRun(t, c, 0, "replay", topic, "--out", out, "--digest-out", digest, "-q")
	if b, _ := os.ReadFile(out); bytes.Contains(b, []byte("precious")) || strings.Count(string(b), "\n") != 60 {
		t.Fatalf("--out after a run: %d lines, %q...", strings.Count(string(b), "\n"), b[:min(len(b), 40)])
	}
}

// TestReplayOutFifoCancel: --out on a FIFO nobody reads waits in open(2)
// for a reader; an interruption (Ctrl-C, SIGTERM: the command's context
// ends) ends the wait at once, exit 1 with one line saying so, no record
// read.
func TestReplayOutFifoCancel(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(1, nil)
	c.Produce(topic, map[int32]int{0: 5}, time.Time{})
	fifo := filepath.Join(t.TempDir(), "records.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	t.Cleanup(func() {
		// Let the open left waiting finish (and close what it opened).
		if r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			time.Sleep(50 * time.Millisecond)
			r.Close()
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(time.Second, cancel)
	start := time.Now()
	done := make(chan result, 1)
	go func() { done <- offsetctlCtx(ctx, t, c, "replay", topic, "--out", fifo, "-q", "--no-verify") }()
	var r result
	select {
	case r = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the replay did not return within 20s of its context's end: blocked opening the FIFO")
	}
	took := time.Since(start)
	if r.code != exitcode.Failure || took > 10*time.Second || strings.Count(r.stderr, "\n") != 1 ||
		!strings.Contains(r.stderr, "interrupted while waiting to open --out") || r.stdout != "" {
		t.Fatalf("after %s: exit %d, stdout %q, stderr %q", took, r.code, r.stdout, r.stderr)
	}
}
