// Package durable is offsetctl's one way to write a file that must be
// whole when it is there at all: backups, audit sidecars, compressed
// rotated audit logs, replay checkpoints.
//
// A new file (Create, CreateNumbered, then Finish) is opened with O_EXCL,
// so it never replaces another file (nor follows a link planted at its
// name), written, fsynced, closed, and its directory fsynced, since only
// then is the new directory entry itself durable. If any step fails the
// file is removed: a cut-short backup left behind would pass for a real
// one. Replace writes a file that may exist already the same way under a
// temporary name in its directory and renames it over the old one: a
// reader sees the old file or the new one, never half of either.
package durable

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// File is what Finish needs of the new file: an *os.File (a test hands in
// one whose writes fail as on a full disk).
type File interface {
	io.Writer
	Sync() error
	Close() error
}

// Create creates path for writing; it fails with an error matching
// fs.ErrExist when anything (a file, a link) is there already.
func Create(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
}

// CreateNumbered creates the first free name of stem+ext, stem+"-2"+ext,
// stem+"-3"+ext, ... up to stem+"-"+max+ext (for names the tool picks:
// two runs in the same instant never collide, and never overwrite). When
// all are taken the error matches fs.ErrExist.
func CreateNumbered(stem, ext string, max int) (*os.File, string, error) {
	for n := 1; n <= max; n++ {
		path := stem + ext
		if n > 1 {
			path = fmt.Sprintf("%s-%d%s", stem, n, ext)
		}
		f, err := Create(path)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, path, err
	}
	return nil, "", fmt.Errorf("%s%s and %d numbered variants all exist: %w", stem, ext, max, fs.ErrExist)
}

// Error is a failed Finish: Op is the step that failed ("writing",
// "syncing" or "closing"), Err its cause, and RemoveErr why removing the
// incomplete file failed too (nil: it was removed).
type Error struct {
	Op        string
	Err       error
	RemoveErr error
}

func (e *Error) Error() string { return e.Op + ": " + e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Finish writes the new file f at path with write (through a 64 KiB
// buffer), fsyncs and closes it, then fsyncs its directory (best effort:
// some filesystems refuse a directory fsync). On any failure it removes
// path and returns an *Error.
func Finish(f File, path string, write func(w io.Writer) error) error {
	return finish(f, path, write, true)
}

// finish is Finish; syncDir false leaves the directory alone, for a
// temporary file whose name is renamed away (Replace fsyncs the directory
// once, after the rename: the temporary name need never be durable).
func finish(f File, path string, write func(w io.Writer) error, syncDir bool) (err error) {
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = &Error{Op: "closing", Err: cerr}
		}
		if err != nil {
			if rerr := os.Remove(path); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
				err.(*Error).RemoveErr = rerr
			}
			return
		}
		if syncDir {
			SyncDir(filepath.Dir(path))
		}
	}()
	bw := bufio.NewWriterSize(f, 64<<10)
	if err := write(bw); err != nil {
		return &Error{Op: "writing", Err: err}
	}
	if err := bw.Flush(); err != nil {
		return &Error{Op: "writing", Err: err}
	}
	if err := f.Sync(); err != nil {
		return &Error{Op: "syncing", Err: err}
	}
	return nil
}

// Replace writes path whole or not at all: write fills a new temporary
// file "."+base+".tmp-<digits>" in path's directory (O_EXCL, as
// os.CreateTemp makes it), which is fsynced, renamed over path, and the
// directory fsynced (the rename is durable only then): two fsyncs, the
// file's and the directory's after the rename. The temporary name is never
// fsynced into the directory: a power loss before the rename leaves path
// as it was, and at most a temporary file that the caller's clean-up
// (TempPrefix) removes. On failure the
// temporary file is removed, path is as it was, and the error is the
// cause (not an *Error).
func Replace(path string, write func(w io.Writer) error) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, TempPrefix(path)+"*")
	if err != nil {
		return err
	}
	if err := finish(tmp, tmp.Name(), write, false); err != nil {
		return err.(*Error).Err // the temporary file was removed: path is as it was
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// TempPrefix is the name prefix of Replace's temporary files for path,
// for a caller that cleans up after a write that was killed.
func TempPrefix(path string) string { return "." + filepath.Base(path) + ".tmp-" }

// SyncDir fsyncs a directory, best effort: a new or renamed file's entry.
func SyncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}
