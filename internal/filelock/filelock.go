// Package filelock takes an exclusive advisory lock on a file, held until
// Unlock or until the process ends however it ends: the kernel drops the
// lock with the process's last descriptor of the file, so a kill -9 never
// leaves a stale lock behind (unlike a lock file created with O_EXCL).
package filelock

import (
	"errors"
	"os"
)

// ErrLocked says another process (or another descriptor of this one)
// holds the lock.
var ErrLocked = errors.New("locked by another process")

// ErrUnsupported says the file cannot be locked with TryLockOpen where it
// is: flock(2) of a FIFO works on Linux, not on every system.
var ErrUnsupported = errors.New("this file cannot be locked here")

// Lock is a held lock.
type Lock struct{ f *os.File }

// TryLock opens (creating it if needed) the file at path and takes an
// exclusive lock on it without waiting: ErrLocked when it is held.
func TryLock(path string) (*Lock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := tryLock(f); err != nil {
		f.Close()
		return nil, err
	}
	return &Lock{f: f}, nil
}

// Unlock releases the lock (closing the descriptor releases it). The file
// stays: removing it would let a process that opened the old file before
// the removal and one that creates a new file both hold "the" lock.
func (l *Lock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}

// TryLockOpen takes an exclusive lock on the open file f itself, without
// waiting (ErrLocked when it is held, ErrUnsupported when f cannot be
// locked here): for a file no lock file can stand beside, such as a FIFO
// in a directory the user cannot write. Every process that opens the
// same file and locks it so excludes the others; the lock is released by
// UnlockOpen, or when f is closed. f's deadlines keep working.
func TryLockOpen(f *os.File) error { return tryLockOpen(f) }

// UnlockOpen releases TryLockOpen's lock; f stays open.
func UnlockOpen(f *os.File) error { return unlockOpen(f) }
