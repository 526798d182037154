package durable

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestCreateNeverOverwrites(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "b.csv")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Create(path); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("Create over a file: %v, want ErrExist", err)
	}
	link := filepath.Join(dir, "link.csv")
	if err := os.Symlink(filepath.Join(dir, "elsewhere"), link); err != nil {
		t.Fatal(err)
	}
	if _, err := Create(link); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("Create at a dangling link: %v, want ErrExist", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "elsewhere")); !os.IsNotExist(err) {
		t.Fatalf("the link was followed: %v", err)
	}
}

func TestCreateNumbered(t *testing.T) {
	stem := filepath.Join(t.TempDir(), "b")
	var got []string
	for range 3 {
		f, path, err := CreateNumbered(stem, ".csv", 3)
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
		got = append(got, filepath.Base(path))
	}
	if want := []string{"b.csv", "b-2.csv", "b-3.csv"}; !slices.Equal(got, want) {
		t.Fatalf("names %v, want %v", got, want)
	}
	if _, _, err := CreateNumbered(stem, ".csv", 3); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("all taken: %v, want ErrExist", err)
	}
}

// failAfter fails every write after n bytes, as a full disk does.
type failAfter struct {
	*os.File
	n int
}

func (f *failAfter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		return 0, errors.New("no space left on device")
	}
	f.n -= len(p)
	return f.File.Write(p)
}

func TestFinish(t *testing.T) {
	for _, tc := range []struct {
		name     string
		room     int
		writeErr error
		wantOp   string
	}{
		{"whole", 1 << 20, nil, ""},
		{"write fails", 1 << 20, errors.New("bad row"), "writing"},
		{"disk full at flush", 10, nil, "writing"},
	} {
		path := filepath.Join(t.TempDir(), "f")
		f, err := Create(path)
		if err != nil {
			t.Fatal(err)
		}
		err = Finish(&failAfter{f, tc.room}, path, func(w io.Writer) error {
			if _, err := io.WriteString(w, "0123456789abcdef\n"); err != nil {
				return err
			}
			return tc.writeErr
		})
		_, serr := os.Stat(path)
		var de *Error
		switch {
		case tc.wantOp == "" && (err != nil || serr != nil):
			t.Errorf("%s: err %v, stat %v: want the file kept", tc.name, err, serr)
		case tc.wantOp != "" && (!errors.As(err, &de) || de.Op != tc.wantOp || !os.IsNotExist(serr)):
			t.Errorf("%s: err %v, stat %v: want %s failed and the file removed", tc.name, err, serr, tc.wantOp)
		}
	}
}

func TestReplace(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ckpt")
	for _, content := range []string{"one\n", "two\n"} {
		if err := Replace(path, func(w io.Writer) error { _, err := io.WriteString(w, content); return err }); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(path); string(b) != content {
			t.Fatalf("content %q, want %q", b, content)
		}
	}
	bad := errors.New("cut short")
	if err := Replace(path, func(w io.Writer) error { io.WriteString(w, "three"); return bad }); !errors.Is(err, bad) {
		t.Fatalf("failed write: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "two\n" {
		t.Fatalf("after a failed replace: %q, want the old content", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("%d entries: a temporary file was left", len(entries))
	}
}
