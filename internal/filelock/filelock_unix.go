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
	return flockNB(int(f.Fd()), f.Name())
}

// tryLockOpen is tryLock on a file whose descriptor is in Go's poller
// (a FIFO opened O_NONBLOCK): reached through SyscallConn, as f.Fd()
// would put the descriptor in blocking mode and end f's deadlines.
func tryLockOpen(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) { ferr = flockNB(int(fd), f.Name()) }); err != nil {
		return err
	}
	return ferr
}

// unlockOpen releases tryLockOpen's lock, f staying open.
func unlockOpen(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) {
		for {
			if ferr = syscall.Flock(int(fd), syscall.LOCK_UN); !errors.Is(ferr, syscall.EINTR) {
				return
			}
		}
	}); err != nil {
		return err
	}
	if ferr != nil {
		return &os.PathError{Op: "flock", Path: f.Name(), Err: ferr}
	}
	return nil
}

func flockNB(fd int, name string) error {
	for {
		err := syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return ErrLocked
		case errors.Is(err, syscall.EOPNOTSUPP), errors.Is(err, syscall.ENOTSUP), errors.Is(err, syscall.EINVAL):
			// A FIFO outside Linux: its file system takes no flock.
			return &os.PathError{Op: "flock", Path: name, Err: errors.Join(ErrUnsupported, err)}
		default:
			return &os.PathError{Op: "flock", Path: name, Err: err}
		}
	}
}
