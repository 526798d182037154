package cli

// undo ID restores the entry's whole backup, and a backup holds rows of
// partitions the change left as they were: a restore's partition that had
// no commit and still had none, one the group copied from had no commit
// on, a share group's extra rows. The later-change check once looked at
// the entry's changes only, so a later change of such a partition was
// reverted by the undo without a word. It now checks every partition the
// restore writes.

import (
	"maps"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/offsetctl/offsetctl/internal/audit"
	"github.com/offsetctl/offsetctl/internal/testkit"
)

// TestUndoLaterOnRowLeftAsWas: a change E that left partition 2 as it was
// (its backup restores it all the same), then a later reset C of that
// partition alone. undo E, dry run or --execute, is refused (exit 2, one
// line naming C and the partition, nothing changed, nothing recorded);
// --force restores the backup over C and names it in forced_over.
func TestUndoLaterOnRowLeftAsWas(t *testing.T) {
	for _, tc := range []struct {
		name string
		at   map[int32]int64 // the group's commits before E
		// change makes E and returns its id.
		change func(t *testing.T, f *laterFixture) string
		after  map[int32]int64 // after E
	}{
		{"a restore of a snapshot that kept a partition without commit", map[int32]int64{0: 4, 1: 4}, func(t *testing.T, f *laterFixture) string {
			snap := filepath.Join(f.dir, "snap.csv")
			f.run(t, 0, "snapshot", f.group, "--out", snap)
			f.reset(t, 0, f.topic+":0,1", "17")
			r := f.run(t, 0, "reset", f.group, "--to", "file:"+snap, "--execute", "--backup", filepath.Join(f.dir, "e.csv"))
			if !strings.Contains(r.stdout, "restore: had no commit, has none") {
				t.Fatalf("the restore did not leave partition 2 alone:\n%s", r.stdout)
			}
			return recordedID(t, r)
		}, map[int32]int64{0: 4, 1: 4}},
		{"a copy from a group with no commit on a partition", map[int32]int64{0: 4, 1: 4, 2: 4}, func(t *testing.T, f *laterFixture) string {
			src := testkit.Name(t, "src")
			f.c.Commit(src, f.topic, map[int32]int64{0: 20, 1: 20})
			r := f.run(t, 0, "reset", f.group, "--topic", f.topic, "--to", "group:"+src, "--execute", "--backup", filepath.Join(f.dir, "e.csv"))
			if !strings.Contains(r.stdout, "has no commit here: left unchanged") {
				t.Fatalf("the copy did not leave partition 2 alone:\n%s", r.stdout)
			}
			return recordedID(t, r)
		}, map[int32]int64{0: 20, 1: 20, 2: 4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newLater(t, tc.at)
			e := tc.change(t, f)
			f.wantAt(t, tc.after)
			es := historyOf(t, "--audit-log", f.log)
			for _, c := range es[len(es)-1].Changes {
				if c.Partition == 2 {
					t.Fatalf("entry %s lists partition 2 among its changes: %+v", e, es[len(es)-1].Changes)
				}
			}
			c := f.reset(t, 0, f.topic+":2", "9")
			at := maps.Clone(tc.after)
			at[2] = 9
			f.wantAt(t, at)

			entries := len(historyOf(t, "--audit-log", f.log))
			for _, args := range [][]string{{"undo", e}, {"undo", e, "--execute", "--backup", filepath.Join(f.dir, "refused.csv")}} {
				r := badInput(t, f.c, "entry "+e+" (outcome applied): 1 of its 3 partition(s) were changed later, by "+c+" (reset at ", append([]string{"--audit-log", f.log}, args...)...)
				if !strings.Contains(r.stderr, "(1 of them "+e+" left as they were, but its backup restores them too: group "+f.group+" topic "+f.topic+" partition 2)") ||
					!strings.Contains(r.stderr, "restoring its backup would undo that change too; undo it first (") || !strings.Contains(r.stderr, " undo "+c+"), or add --force") {
					t.Errorf("%v:\n%s", args, r.stderr)
				}
				f.wantAt(t, at)
			}
			if es := historyOf(t, "--audit-log", f.log); len(es) != entries {
				t.Fatalf("a refused undo is bad input, not recorded: %+v", es)
			}

			r := f.run(t, 0, "undo", e, "--execute", "--force", "--backup", filepath.Join(f.dir, "forced.csv"))
			if !strings.Contains(r.stderr, "--force: restoring the backup over that change") {
				t.Errorf("undo --force:\n%s", r.stderr)
			}
			want := map[int32]int64{0: 17, 1: 17} // the restore deletes C's commit of partition 2
			if tc.at[2] != 0 {
				want = map[int32]int64{0: 4, 1: 4, 2: 4}
			}
			f.wantAt(t, want)
			es = historyOf(t, "--audit-log", f.log)
			if last := es[len(es)-1]; len(es) != entries+1 || last.UndoOf != e || last.Outcome != audit.Applied || strings.Join(last.ForcedOver, " ") != c {
				t.Fatalf("history after undo --force: %+v", es)
			}
		})
	}
}

// TestUndoShareLaterOnExtraRow: a reset of one partition of a share group
// where it had no start offset keeps the topic's other start offsets in
// its backup (the restore deletes the topic's and sets them again). A
// later reset of such an other partition is reverted by the undo: it is
// refused, naming it, and the start offsets stay; --force restores.
func TestUndoShareLaterOnExtraRow(t *testing.T) {
	c := testkit.New(t)
	f := newShareFixture(t, c)
	sh3 := c.Topic(3, nil)
	c.Produce(sh3, map[int32]int{0: 10, 1: 10, 2: 10}, time.Time{})
	c.SetShareOffsets(f.group, sh3, map[int32]int64{0: 5})
	e := recordedID(t, mustRun(t, c, 0, "reset", f.group, "--topic", sh3+":1", "--to", "earliest", "--execute", "--backup", tempBackup(t)))
	c.WaitShareOffsets(f.group, sh3, map[int32]int64{0: 5, 1: 0})
	later := recordedID(t, mustRun(t, c, 0, "reset", f.group, "--topic", sh3+":0", "--to", "7", "--execute", "--backup", tempBackup(t)))
	c.WaitShareOffsets(f.group, sh3, map[int32]int64{0: 7, 1: 0})

	entries := len(historyOf(t))
	for _, args := range [][]string{{"undo", e}, {"undo", e, "--execute", "--backup", tempBackup(t)}} {
		r := badInput(t, c, "entry "+e+" (outcome applied): 1 of its 2 partition(s) were changed later, by "+later+" (reset at ", args...)
		if !strings.Contains(r.stderr, "(1 of them "+e+" left as they were, but its backup restores them too: group "+f.group+" topic "+sh3+" partition 0)") {
			t.Errorf("%v:\n%s", args, r.stderr)
		}
		c.WaitShareOffsets(f.group, sh3, map[int32]int64{0: 7, 1: 0})
	}
	if es := historyOf(t); len(es) != entries {
		t.Fatalf("a refused undo is bad input, not recorded: %+v", es)
	}
	mustRun(t, c, 0, "undo", e, "--execute", "--force", "--backup", tempBackup(t))
	c.WaitShareOffsets(f.group, sh3, map[int32]int64{0: 5})
	if es := historyOf(t); strings.Join(es[len(es)-1].ForcedOver, " ") != later {
		t.Fatalf("history after undo --force: %+v", es[len(es)-1])
	}
}

// TestUndoMovedRowLeftAsWas: after a restore that left partition 2
// without a commit, a consumer (no audit entry) committed there. undo of
// the restore would delete that commit: it is refused as for a partition
// the change made that moved since (exit 1, naming it, nothing changed;
// with --execute the refusal is recorded), and --force restores.
func TestUndoMovedRowLeftAsWas(t *testing.T) {
	f := newLater(t, map[int32]int64{0: 4, 1: 4})
	snap := filepath.Join(f.dir, "snap.csv")
	f.run(t, 0, "snapshot", f.group, "--out", snap)
	f.reset(t, 0, f.topic+":0,1", "17")
	e := recordedID(t, f.run(t, 0, "reset", f.group, "--to", "file:"+snap, "--execute", "--backup", filepath.Join(f.dir, "e.csv")))
	f.c.Commit(f.group, f.topic, map[int32]int64{2: 9})
	at := map[int32]int64{0: 4, 1: 4, 2: 9}
	f.wantAt(t, at)
	for _, args := range [][]string{{"undo", e}, {"undo", e, "--execute", "--backup", filepath.Join(f.dir, "refused.csv")}} {
		r := f.run(t, 1, args...)
		if !strings.Contains(r.stderr, "1 partition(s) moved since entry "+e+": group "+f.group+" topic "+f.topic+" partition 2: no commit after the change, 9 now") ||
			!strings.Contains(r.stderr, "add --force to restore the backup anyway") {
			t.Errorf("%v:\n%s", args, r.stderr)
		}
		f.wantAt(t, at)
	}
	f.run(t, 0, "undo", e, "--execute", "--force", "--backup", filepath.Join(f.dir, "forced.csv"))
	f.wantAt(t, map[int32]int64{0: 17, 1: 17})
}
