package replay

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/offsetctl/offsetctl/internal/exitcode"
)

// TestDigestOutCheckedFirst: a --digest-out that cannot be created is
// refused (exit 2, one line) before the replay runs, like an existing one
// (QA finding 5), and the probe leaves no file behind.
func TestDigestOutCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	regular := filepath.Join(dir, "plain")
	if err := os.WriteFile(regular, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path, err string
	}{
		{"no such directory", filepath.Join(dir, "nonexistent", "x.json"), "cannot be created: no such file or directory"},
		{"parent is a file", filepath.Join(regular, "x.json"), "cannot be created: not a directory"},
		{"existing file", regular, "already exists: a digest file is never overwritten"},
		{"a directory", dir, "already exists"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ran := false
			run := func(Options) (*Result, error) { ran = true; return nil, errors.New("ran") }
			res, err := runWithDigestFile(run, Options{DigestFile: &DigestFileOptions{Path: tc.path}})
			if ran || res != nil || exitcode.Code(err) != 2 || !strings.Contains(err.Error(), tc.err) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("ran %v, %v (exit %d); want exit 2 holding %q before the run", ran, err, exitcode.Code(err), tc.err)
			}
		})
	}
	if os.Geteuid() != 0 { // root writes anywhere
		ro := filepath.Join(dir, "ro")
		if err := os.Mkdir(ro, 0o555); err != nil {
			t.Fatal(err)
		}
		ran := false
		_, err := runWithDigestFile(func(Options) (*Result, error) { ran = true; return nil, nil }, Options{DigestFile: &DigestFileOptions{Path: filepath.Join(ro, "x.json")}})
		if ran || exitcode.Code(err) != 2 || !strings.Contains(err.Error(), "permission denied") {
			t.Fatalf("read-only directory: ran %v, %v", ran, err)
		}
	}
	// A writable path: the probe leaves nothing, the run happens.
	ok := filepath.Join(dir, "ok.json")
	ran := false
	_, err := runWithDigestFile(func(Options) (*Result, error) {
		ran = true
		if _, err := os.Lstat(ok); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the probe left %s behind: %v", ok, err)
		}
		return nil, errors.New("stop here")
	}, Options{DigestFile: &DigestFileOptions{Path: ok}})
	if !ran || err == nil || err.Error() != "stop here" {
		t.Fatalf("writable path: ran %v, %v", ran, err)
	}
}
