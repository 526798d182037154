package cli

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/offsetctl/offsetctl/internal/testkit"
)

// runChild runs offsetctl args in a child process (the test binary as
// offsetctl, see TestMain) and returns its exit code and stderr.
func runChild(t *testing.T, c *testkit.Cluster, args []string) (int, string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, append([]string{"--brokers", c.BrokerList()}, args...)...)
	cmd.Env = append(os.Environ(), semanticsWorkerEnv+"=1")
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = nil, &stderr
	err = cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("running %v: %v", args, err)
	}
	return cmd.ProcessState.ExitCode(), stderr.String()
}

// Two runs of one checkpointed backfill at once (QA: both copied the
// whole range, the target got it twice, and each reported 0 possible
// duplicates): run A, a real child process, is frozen (SIGSTOP) with
// produce requests in flight; run B, another child with the same command
// line, is refused with exit 1 and one line naming the checkpoint, and
// copies nothing. A is killed with SIGKILL: the kernel drops its lock, and
// the same command then resumes and completes, the target holding the
// source exactly once plus the possible duplicates it reports. The stale
// temporary file of an interrupted checkpoint write (planted as a kill -9
// mid-write leaves it) is gone once A holds the lock, and none is left at
// the end.
func TestBackfillCheckpointLock(t *testing.T) {
	c := testkit.New(t)
	src, dst := ckptSource(t, c, 10000)
	want, _, _ := replayJSON(t, c, 0, src, "--payload-digest", "--format", "none", "--no-verify")
	dir := t.TempDir()
	ckpt := filepath.Join(dir, "bf.ckpt")
	stale := filepath.Join(dir, ".bf.ckpt.tmp-777")
	if err := os.WriteFile(stale, []byte(`{"format":`), 0o600); err != nil {
		t.Fatal(err)
	}
	args := []string{"--audit-log", testAuditLog(t), "replay", src, "--produce-to", dst, "--source-header", "--checkpoint", ckpt,
		"--checkpoint-interval", "2ms", "--format", "none", "-q", "--fetch-max-bytes", "64KiB"}

	var codeB int
	var stderrB string
	var staleGone bool
	_, reached, _ := childAtLog(t, c, args, []string{"wrote Produce", "wrote Produce"}, func(a *exec.Cmd) {
		if err := a.Process.Signal(syscall.SIGSTOP); err != nil {
			t.Errorf("SIGSTOP: %v", err)
		}
		_, err := os.Stat(stale)
		staleGone = errors.Is(err, fs.ErrNotExist)
		codeB, stderrB = runChild(t, c, args)
		_ = a.Process.Kill() // SIGKILL, still stopped
	})
	if !reached {
		t.Fatal("run A ended before it was stopped: make the copy longer")
	}
	if !staleGone {
		t.Errorf("the stale temporary file %s is still there while run A holds the lock", stale)
	}
	line := strings.TrimSpace(stderrB)
	if codeB != 1 || strings.Contains(line, "\n") || !strings.Contains(line, "another run holds the checkpoint "+ckpt) {
		t.Fatalf("run B beside run A: exit %d stderr %q, want exit 1 and one line naming the checkpoint", codeB, stderrB)
	}

	res, _, r := replayJSON(t, c, 0, args[3:]...)
	ck := res.Backfill.Checkpoint
	if !res.Backfill.Complete || ck == nil || !ck.Complete || !ck.Resumed {
		t.Fatalf("the run after the kill: %+v %+v\n%s", res.Backfill, ck, r.stderr)
	}
	_, total, distinct := dedupCopy(t, c, src, dst)
	t.Logf("source %d records; target %d, %d possible duplicates reported, %d distinct", want.Records, total, ck.PossibleDuplicates, distinct)
	if int64(distinct) != want.Records || total-ck.PossibleDuplicates != want.Records {
		t.Fatalf("target %d records (%d distinct) - %d possible duplicates: want the source's %d exactly", total, distinct, ck.PossibleDuplicates, want.Records)
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".bf.ckpt.tmp-*"))
	if len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
