//go:build unix

package filelock

import (
	"errors"
	"os"
	"syscall"
)

// tryLock is flock(2) LOCK_EX|LOCK_NB: it belongs to the open file
// description, so a second open of the same file, in this process or
// another, is refused with EWOULDBLOCK.
func tryLock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return ErrLocked
		default:
			return &os.PathError{Op: "flock", Path: f.Name(), Err: err}
		}
	}
}
