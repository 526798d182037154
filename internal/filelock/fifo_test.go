//go:build unix

package filelock

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TryLockOpen locks a FIFO through the descriptor a writer holds: a
// second descriptor of it, in this process or another, is refused until
// UnlockOpen, and the first keeps its write deadline (the descriptor
// stays in Go's poller).
func TestTryLockOpenFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "audit.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	open := func() *os.File {
		f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	a, b := open(), open()
	if err := TryLockOpen(a); errors.Is(err, ErrUnsupported) {
		t.Skipf("this system cannot lock a FIFO: %v", err)
	} else if err != nil {
		t.Fatal(err)
	}
	if err := TryLockOpen(b); !errors.Is(err, ErrLocked) {
		t.Fatalf("second descriptor while the first holds the lock: %v, want ErrLocked", err)
	}
	if err := UnlockOpen(a); err != nil {
		t.Fatal(err)
	}
	if err := TryLockOpen(b); err != nil {
		t.Fatalf("second descriptor once released: %v", err)
	}
	// a's deadline still ends a write that waits for room in the pipe.
	if err := a.SetWriteDeadline(time.Now().Add(100 * time.Millisecond)); err != nil {
		t.Fatalf("deadline after the lock: %v", err)
	}
	start := time.Now()
	for time.Since(start) < 5*time.Second {
		if _, err := a.Write(make([]byte, 1<<16)); err != nil {
			if !errors.Is(err, os.ErrDeadlineExceeded) {
				t.Fatalf("write into a full pipe: %v, want the deadline", err)
			}
			return
		}
	}
	t.Fatal("the write deadline did not end a write into a full pipe")
}
