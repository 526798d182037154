package semantics

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A `semantics` parent killed with SIGKILL (no Ctrl-C, so no cleanup) left
// its worker processes running against the cluster, live members of the
// experiment's groups, until each reached its crash point. The kernel now
// kills a worker when its parent dies. The test runs a parent (this test
// binary) that launches a worker (a shell that records its pid and
// sleeps), kills the parent with SIGKILL, and waits for the worker to be
// gone.
func TestWorkerDiesWithKilledParent(t *testing.T) {
	if pidFile := os.Getenv("OFFSETCTL_TEST_LAUNCH_PARENT"); pidFile != "" {
		l := ExecLauncher{Path: "/bin/sh", Args: []string{"-c", "echo $$ > " + pidFile + "; exec sleep 60"}}
		_, _, _ = l.Launch(context.Background(), WorkerSpec{})
		return
	}
	pidFile := filepath.Join(t.TempDir(), "worker.pid")
	parent := exec.Command(os.Args[0], "-test.run=^TestWorkerDiesWithKilledParent$")
	parent.Env = append(os.Environ(), "OFFSETCTL_TEST_LAUNCH_PARENT="+pidFile)
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	worker := 0
	for deadline := time.Now().Add(30 * time.Second); worker == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			_ = parent.Process.Kill()
			t.Fatal("the worker did not start")
		}
		if b, err := os.ReadFile(pidFile); err == nil && strings.HasSuffix(string(b), "\n") {
			worker, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
	}
	if err := syscall.Kill(worker, 0); err != nil {
		t.Fatalf("worker %d is not running: %v", worker, err)
	}
	if err := parent.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = parent.Wait()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		err := syscall.Kill(worker, 0)
		if errors.Is(err, syscall.ESRCH) || zombie(worker) {
			return
		}
		if time.Now().After(deadline) {
			_ = syscall.Kill(worker, syscall.SIGKILL)
			t.Fatalf("worker %d still runs 10 s after its parent was killed", worker)
		}
	}
}

// zombie reports whether pid has exited but is not reaped yet (its new
// parent, init or a subreaper, reaps it in its own time).
func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && len(s) > i+2 && s[i+2] == 'Z'
}
