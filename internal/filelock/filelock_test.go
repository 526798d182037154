package filelock

import (
	"errors"
	"path/filepath"
	"testing"
)

// A second lock of the same file is refused while the first is held, in
// the same process too (flock belongs to the open file description), and
// granted once it is released.
func TestTryLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	a, err := TryLock(path)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := TryLock(path); !errors.Is(err, ErrLocked) {
		t.Fatalf("second lock while held: %v, %v; want ErrLocked", b, err)
	}
	if err := a.Unlock(); err != nil {
		t.Fatal(err)
	}
	b, err := TryLock(path)
	if err != nil {
		t.Fatalf("lock after release: %v", err)
	}
	_ = b.Unlock()
	if err := (*Lock)(nil).Unlock(); err != nil {
		t.Fatal(err)
	}
	if _, err := TryLock(filepath.Join(t.TempDir(), "missing", "x.lock")); err == nil || errors.Is(err, ErrLocked) {
		t.Fatalf("lock in a missing directory: %v, want an open error", err)
	}
}
