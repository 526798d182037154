package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/offsetctl/offsetctl/internal/admin"
	"github.com/offsetctl/offsetctl/internal/audit"
	"github.com/offsetctl/offsetctl/internal/exitcode"
	"github.com/offsetctl/offsetctl/internal/inputfile"
	"github.com/offsetctl/offsetctl/internal/lag"
	"github.com/offsetctl/offsetctl/internal/safetext"
	"github.com/offsetctl/offsetctl/internal/textlist"
)

// undoRestore is what undo ID restores: the entry's backup, the groups of
// it restored, and the partitions the restore writes. The changes recorded
// later are checked against those partitions, not the entry's changes: a
// restore writes every row of the backup, also those of partitions the
// change left as they were (one that had no commit and still had none, one
// the group copied from had no commit on, a share group's extra rows), and
// a later change there was reverted without a word.
type undoRestore struct {
	// path and data are the backup as read once, and checked against the
	// SHA-256 the entry records: the restoring reset is handed these
	// bytes (planData), never the file read again.
	path string
	data []byte
	// groups are the groups the restore names (--group), nil for every
	// group of the backup.
	groups []string
	// writes are the partitions the restore writes, as changes of the
	// entry: its own change of each, or, for a partition it left as it
	// was, one from the backed-up offset to itself.
	writes []audit.Change
}

// backupWait bounds the wait for a backup on a FIFO or a slow disk, as
// fileSHA256's.
const backupWait = 30 * time.Second

// loadRestore reads e's backup, checks it against the SHA-256 e recorded
// (a backup edited or replaced since is not the state before the change:
// exit 1), and works out what undo's restore writes. A backup that cannot
// be parsed is refused as the restore would refuse it (exit 2).
func loadRestore(e audit.Entry) (undoRestore, error) {
	data, err := inputfile.Read(e.Backup, inputfile.PlanLimit, backupWait)
	if err != nil {
		return undoRestore{}, fmt.Errorf("backup of entry %s: %w", e.ID, err)
	}
	sum := sha256.Sum256(data)
	if got := hex.EncodeToString(sum[:]); e.BackupSHA256 != "" && got != e.BackupSHA256 {
		// Bad input, as the same file is to reset --to file: (its end
		// record no longer matches, or it was replaced): nothing changed.
		return undoRestore{}, exitcode.Usagef("backup %s of entry %s has changed since it was written (SHA-256 %s, recorded %s): it is not the state before that change (if only its line endings or quoting changed, reset --to file: restores it, checking its end record)", safetext.Arg(e.Backup), e.ID, got, e.BackupSHA256)
	}
	pf, err := admin.ParsePlanCSV(data)
	if err != nil {
		return undoRestore{}, exitcode.Usagef("backup %s of entry %s: %v", e.Backup, e.ID, err)
	}
	r := undoRestore{path: e.Backup, data: data}
	groups := pf.GroupsIn()
	if applied := appliedGroups(e); len(applied) < len(e.Groups) {
		// A partial change is undone for the groups it changed only: the
		// others still hold their offsets (and a live one would make the
		// whole restore refused).
		r.groups, groups = applied, applied
	}
	mine := map[partKey]audit.Change{}
	for _, c := range e.Changes {
		mine[keyOf(c)] = c
	}
	for _, g := range groups {
		// The rows the restoring reset plans (no --topic: all of them).
		rows, _ := pf.ScopeRows(g, lag.Scope{})
		for _, row := range rows {
			c, ok := mine[partKey{g, row.Topic, row.Partition}]
			if !ok || c.NotWritten() {
				// Left as it was, or its change not written (refused):
				// the restore writes the backed-up offset over whatever
				// is there now, so what is there must still be that.
				var at *int64
				if !row.NoCommit {
					at = new(row.Offset)
				}
				c = audit.Change{Group: g, Topic: row.Topic, Partition: row.Partition, Before: at, After: at}
			}
			r.writes = append(r.writes, c)
		}
	}
	return r, nil
}

// asChanges is e with the partitions the restore writes as its changes:
// what e left on each, for audit.Moved.
func (r undoRestore) asChanges(e audit.Entry) audit.Entry {
	e.Changes = r.writes
	return e
}

// restoreArgs are the arguments of the reset that restores r.
func (r undoRestore) restoreArgs() []string {
	args := []string{"--to", "file:" + r.path}
	for _, g := range r.groups {
		args = append(args, "--group", g)
	}
	return args
}

// leftAsWas counts and names the partitions of later that the restore
// writes but e did not change: a later change of one is reverted by the
// restore all the same.
func (r undoRestore) leftAsWas(e audit.Entry, later audit.Laters) (int, string) {
	changed := map[partKey]bool{}
	for _, c := range e.Changes {
		if !c.NotWritten() {
			changed[keyOf(c)] = true
		}
	}
	var names []string
	for _, c := range r.writes {
		if _, ok := later.Lookup(c.Group, c.Topic, c.Partition); ok && !changed[keyOf(c)] {
			names = append(names, fmt.Sprintf("group %s topic %s partition %d", safetext.Arg(c.Group), safetext.Arg(c.Topic), c.Partition))
		}
	}
	return len(names), textlist.Short(names, 3, "; ")
}

// partKey is a partition of a group.
type partKey struct {
	group, topic string
	partition    int32
}

func keyOf(c audit.Change) partKey { return partKey{c.Group, c.Topic, c.Partition} }

// planData reads the plan file of a reset --to file:PATH. The backup an
// undo restores is the bytes the undo read and checked (undoRestore).
func (a *app) planData(path string) ([]byte, error) {
	// --to's value is trimmed (admin.ParseTarget), so a backup path
	// that ends in white space reaches here without it: the same file.
	if a.restoring != nil && (path == a.restoring.path || path == strings.TrimRightFunc(a.restoring.path, unicode.IsSpace)) {
		return a.restoring.data, nil
	}
	return inputfile.Read(path, inputfile.PlanLimit, a.timeout)
}
