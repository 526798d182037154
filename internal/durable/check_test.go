package durable

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestCheckPaths: each check refuses what its write would refuse, with
// the cause worded and told as the user's (UserPath), and leaves nothing
// behind; a full disk or an I/O error is not the user's.
func TestCheckPaths(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "nonexist", "x.csv")
	cases := []struct {
		name  string
		check func(string) error
		path  string
		want  string // "" = no error
	}{
		{"new: free", CheckNew, filepath.Join(dir, "new.csv"), ""},
		{"new: exists", CheckNew, file, "file exists"},
		{"new: a directory there", CheckNew, dir, "file exists"},
		{"new: no such directory", CheckNew, missing, "no such file or directory"},
		{"new: a file as directory", CheckNew, filepath.Join(file, "x.csv"), "not a directory"},
		{"write: exists", CheckWrite, file, ""},
		{"write: a directory", CheckWrite, dir, "is a directory"},
		{"write: no such directory", CheckWrite, missing, "no such file or directory"},
		{"replace: exists", CheckReplace, file, ""},
		{"replace: a directory", CheckReplace, dir, "is a directory"},
		{"replace: no such directory", CheckReplace, missing, "no such file or directory"},
		{"dir: exists", CheckDir, dir, ""},
		{"dir: to be made", CheckDir, filepath.Join(dir, "a", "b", "c"), ""},
		{"dir: a file", CheckDir, file, "not a directory"},
		{"dir: under a file", CheckDir, filepath.Join(file, "logs"), "not a directory"},
	}
	for _, c := range cases {
		err := c.check(c.path)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || err.Error() != c.want || !UserPath(err)):
			t.Errorf("%s: %v (the user's: %v), want %q", c.name, err, err != nil && UserPath(err), c.want)
		}
	}
	if !errors.Is(CheckNew(file), fs.ErrExist) {
		t.Error("CheckNew of an existing file does not match fs.ErrExist")
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".offsetctl-probe-*")); len(left) > 0 {
		t.Errorf("a probe was left behind: %v", left)
	}
	if _, err := os.Stat(filepath.Join(dir, "a")); err == nil {
		t.Error("CheckDir made a directory")
	}
	// sysfs refuses new files whatever the mode bits (and root) say.
	if st, err := os.Stat("/sys/kernel"); err == nil && st.IsDir() {
		if err := CheckNew("/sys/kernel/offsetctl.csv"); err == nil || !UserPath(err) {
			t.Errorf("a directory that refuses new files: %v", err)
		}
	}
	for _, e := range []error{syscall.ENOSPC, syscall.EIO, &fs.PathError{Op: "write", Path: file, Err: syscall.ENOSPC}} {
		if UserPath(e) {
			t.Errorf("%v is counted as the user's path", e)
		}
	}
}
