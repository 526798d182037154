//go:build !unix && !windows

package filelock

import (
	"errors"
	"os"
)

// tryLock has no lock primitive to use on this platform: refuse rather
// than pretend to hold a lock.
func tryLock(f *os.File) error {
	return errors.New("file locks are not supported on this platform")
}

func tryLockOpen(*os.File) error { return ErrUnsupported }

func unlockOpen(*os.File) error { return nil }
