package durable

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// A path the user names for a file to write (a backup, a snapshot, a
// digest, a checkpoint, records, a log directory) is checked before the
// work that ends in writing it, so that a path that cannot be written is
// refused before anything is read or changed: the callers make that bad
// input (exit 2). UserPath tells the same kinds of error apart when they
// come up only at the write (the path changed since its check): they are
// the path's, the user's to fix; a disk that fails while writing (ENOSPC,
// EIO) is not.

// CheckNew checks that path can be created as a new file (Create): nothing
// is there, not even a link (the error then matches fs.ErrExist), and a
// file can be created in its directory. The directory is tried by
// creating and removing a file in it, as mode bits do not say what a
// read-only or special file system refuses. The error is the cause
// alone (PathError), for the caller to put after the path.
func CheckNew(path string) error {
	if _, err := os.Lstat(path); err == nil {
		return &PathError{Err: syscall.EEXIST}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return pathErr(err)
	}
	return probeDir(filepath.Dir(path))
}

// CheckWrite checks that path can be opened for writing, created or
// truncated: what is there is not a directory; when nothing is, a file
// can be created in its directory.
func CheckWrite(path string) error {
	st, err := os.Stat(path)
	switch {
	case err == nil && st.IsDir():
		return &PathError{Err: syscall.EISDIR}
	case err == nil:
		return nil
	case !errors.Is(err, fs.ErrNotExist):
		return pathErr(err)
	}
	return probeDir(filepath.Dir(path))
}

// CheckReplace checks that path can be written by Replace (a temporary
// file in its directory renamed over it): it is not a directory, and a
// file can be created in its directory, whether path exists or not.
func CheckReplace(path string) error {
	st, err := os.Stat(path)
	switch {
	case err == nil && st.IsDir():
		return &PathError{Err: syscall.EISDIR}
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return pathErr(err)
	}
	return probeDir(filepath.Dir(path))
}

// CheckDir checks that dir can hold new files once os.MkdirAll has made
// it: an existing dir must be a directory that takes a new file; else
// its nearest existing ancestor must be one (MkdirAll creates the rest).
func CheckDir(dir string) error {
	for d := filepath.Clean(dir); ; {
		st, err := os.Stat(d)
		switch {
		case err == nil && !st.IsDir():
			return &PathError{Err: syscall.ENOTDIR}
		case err == nil:
			return probeDir(d)
		case !errors.Is(err, fs.ErrNotExist):
			return pathErr(err)
		}
		parent := filepath.Dir(d)
		if parent == d {
			return pathErr(err)
		}
		d = parent
	}
}

// probeDir creates a file in dir and removes it again.
func probeDir(dir string) error {
	f, err := os.CreateTemp(dir, ".offsetctl-probe-*")
	if err != nil {
		return pathErr(err)
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// PathError is a path to write that cannot be: Err is the cause, whose
// words (the system's: "no such file or directory", "not a directory",
// "permission denied") are its text; the path itself is the caller's to
// show, shortened.
type PathError struct {
	Err error
}

func (e *PathError) Error() string { return Reason(e.Err) }

func (e *PathError) Unwrap() error { return e.Err }

// pathErr wraps an error of os (an *fs.PathError, whose text repeats a
// path: ours, or a probe's name) as the cause of a PathError.
func pathErr(err error) error {
	return &PathError{Err: err}
}

// Reason is the cause of err without the path an *fs.PathError (or a
// *os.LinkError, *os.SyscallError) puts in front of it.
func Reason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err.Error()
	}
	return err.Error()
}

// UserPath reports whether err, from creating or opening a file to write
// (or its directory), is about the path as given: nothing or a file
// where a directory should be, a directory where a file should be, a file
// that exists, no permission, a read-only file system, a symbolic link
// refused, a name too long. Those are the user's to fix (bad input); any
// other error, such as a full disk or an I/O error, is an operational
// failure.
func UserPath(err error) bool {
	for _, e := range []error{fs.ErrExist, fs.ErrNotExist, fs.ErrPermission, syscall.ENOTDIR, syscall.EISDIR, syscall.EROFS, syscall.ELOOP, syscall.ENAMETOOLONG} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}
