//go:build windows

package filelock

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// tryLock is LockFileEx of the file's first byte, exclusive and failing
// at once; Windows releases it when the handle closes or the process ends.
func tryLock(f *os.File) error {
	var ol windows.Overlapped
	err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ol)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, windows.ERROR_LOCK_VIOLATION):
		return ErrLocked
	default:
		return &os.PathError{Op: "LockFileEx", Path: f.Name(), Err: err}
	}
}

// tryLockOpen: the files it is for (FIFOs) do not exist on Windows.
func tryLockOpen(*os.File) error { return ErrUnsupported }

func unlockOpen(*os.File) error { return nil }
