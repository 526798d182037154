package admin

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/offsetctl/offsetctl/internal/exitcode"
)

// fullDisk accepts room bytes, then fails every write with ENOSPC, as a
// file on a full filesystem does.
type fullDisk struct {
	f    *os.File
	room int
}

func (d *fullDisk) Write(p []byte) (int, error) {
	if len(p) > d.room {
		n, _ := d.f.Write(p[:d.room])
		d.room = 0
		return n, &os.PathError{Op: "write", Path: d.f.Name(), Err: syscall.ENOSPC}
	}
	d.room -= len(p)
	return d.f.Write(p)
}
func (d *fullDisk) Sync() error  { return d.f.Sync() }
func (d *fullDisk) Close() error { return d.f.Close() }

// TestWriteBackupRemovedOnWriteFailure: a backup whose write fails part
// way (a full disk) is removed, not left truncated to pass for a real one.
func TestWriteBackupRemovedOnWriteFailure(t *testing.T) {
	var rows []PlanRow
	for p := int32(0); p < 20_000; p++ { // ~1 MB: past bufio's 64 KiB
		rows = append(rows, PlanRow{Topic: "orders", Partition: p, Offset: int64(p)})
	}
	groups := []BackupGroup{{Group: "billing", Rows: rows}}
	for _, room := range []int{0, 100, 70_000} {
		path := filepath.Join(t.TempDir(), "backup.csv")
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		err = writeBackup(&fullDisk{f: f, room: room}, path, time.UnixMilli(1), "cluster-a", groups)
		if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "removed") || exitcode.Code(err) != exitcode.Failure {
			t.Fatalf("room %d: err = %v (exit %d), want ENOSPC, exit 1 and the file removed", room, err, exitcode.Code(err))
		}
		if _, serr := os.Stat(path); !os.IsNotExist(serr) {
			t.Fatalf("room %d: the truncated backup is still there (%v)", room, serr)
		}
	}
	// The same write with room enough is kept, whole.
	path := filepath.Join(t.TempDir(), "backup.csv")
	if err := WriteBackupFile(path, time.UnixMilli(1), "cluster-a", groups); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	// The cluster, the group's backup marker, its 20,000 rows and the
	// end record.
	if err != nil || strings.Count(string(data), "\n") != 20_003 || !strings.HasPrefix(string(data), "offsetctl:cluster,cluster-a,0,1\n") || !strings.HasSuffix(string(data), ",0,20002\n") || !strings.Contains(string(data), "\noffsetctl:end,") {
		t.Fatalf("backup: %d lines, %v", strings.Count(string(data), "\n"), err)
	}
}

// TestWriteBackupFilePathIsBadInput: a backup path that cannot be created
// for what it is (one there already, no such directory, a file where a
// directory goes) is bad input, exit 2, as the commands' own check before
// any request says; it was exit 1 ("creating backup file: ..."), as a
// full disk is.
func TestWriteBackupFilePathIsBadInput(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	groups := []BackupGroup{{Group: "billing", Rows: []PlanRow{{Topic: "orders", Partition: 0, Offset: 1}}}}
	for path, want := range map[string]string{
		file:                                    "backup file " + file + " already exists: choose another with --backup",
		filepath.Join(dir, "nonexist", "b.csv"): "backup file " + filepath.Join(dir, "nonexist", "b.csv") + " cannot be created: no such file or directory",
		filepath.Join(file, "b.csv"):            "backup file " + filepath.Join(file, "b.csv") + " cannot be created: not a directory",
		dir:                                     "backup file " + dir + " already exists: choose another with --backup",
	} {
		err := WriteBackupFile(path, time.UnixMilli(1), "", groups)
		if exitcode.Code(err) != exitcode.Usage || err.Error() != want {
			t.Errorf("%s: %v (exit %d), want exit 2 and %q", path, err, exitcode.Code(err), want)
		}
	}
	if _, err := WriteNewBackupFile(filepath.Join(dir, "nonexist", "b"), time.UnixMilli(1), "", groups); exitcode.Code(err) != exitcode.Usage {
		t.Errorf("a default name in a missing directory: %v (exit %d), want exit 2", err, exitcode.Code(err))
	}
}
