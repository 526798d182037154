package audit

import (
	"encoding/json"
	"strings"
	"testing"
)

func at(v int64) *int64 { return &v }

// Join: an intent with its outcome is one entry with the outcome's
// result and the partitions it names as failed; an intent alone is
// unknown with the hint; a self-contained entry stays, a version-1
// "partial" reads as partly; an outcome whose intent is gone is kept.
func TestJoin(t *testing.T) {
	plan := []Change{{Group: "g", Topic: "t", Partition: 0, Before: at(1), After: at(5)}, {Group: "g", Topic: "t", Partition: 1, Before: at(2), After: at(5)}}
	three, two := 3, 2
	log := []Entry{
		{V: 1, ID: "A", Action: ActReset, Outcome: Partial, Applied: Count(1)},
		{V: 2, ID: "B", Kind: KindIntent, Action: ActReset, Outcome: Unknown, Changes: plan, Backup: "/b.csv"},
		{V: 2, ID: "C", Kind: KindIntent, Action: ActReset, Outcome: Unknown, Changes: plan},
		{V: 2, ID: "D", Kind: KindOutcome, Intent: "B", Outcome: Partly, ExitCode: 1, Error: "boom", Applied: Count(1), Written: &three, Changed: &two,
			Changes: []Change{{Group: "g", Topic: "t", Partition: 1, Before: at(2), After: at(5), Error: "commit: refused"}}},
		{V: 2, ID: "E", Kind: KindOutcome, Intent: "GONE", Outcome: Applied},
		{V: 2, ID: "F", Action: ActReplay, Outcome: Applied},
	}
	got := Join(log)
	var ids []string
	for _, e := range got {
		ids = append(ids, e.ID+":"+e.Outcome)
	}
	if strings.Join(ids, " ") != "A:partly B:partly C:unknown E:applied F:applied" {
		t.Fatalf("joined: %s", strings.Join(ids, " "))
	}
	b := got[1]
	if b.ExitCode != 1 || b.Error != "boom" || *b.Applied != 1 || *b.Written != 3 || *b.Changed != 2 || b.Backup != "/b.csv" ||
		b.Changes[0].Error != "" || b.Changes[1].Error != "commit: refused" || len(b.Changes) != 2 {
		t.Fatalf("B joined: %+v", b)
	}
	if plan[1].Error != "" {
		t.Fatal("Join wrote into the intent's changes")
	}
	if c := got[2]; !strings.HasSuffix(c.Error, "the change may or may not have reached the cluster; check with: offsetctl history --verify C") {
		t.Fatalf("C: %q", c.Error)
	}
	// Undo takes an intent alone, never a failed change.
	if why := Undoable(Entry{ID: "C", Action: ActReset, Outcome: Unknown, Backup: "/b"}); why != "" {
		t.Fatalf("an unknown change is not undoable: %s", why)
	}
	if why := Undoable(Entry{ID: "X", Action: ActReset, Outcome: Failed, Backup: "/b"}); !strings.Contains(why, "changed nothing") {
		t.Fatalf("a failed change: %q", why)
	}
}

// TestUndoableOutcome (QA): an outcome record's id, given to undo, said
// "has no backup to restore from"; it names the change to undo instead,
// also when its intent is not in the log read (E above).
func TestUndoableOutcome(t *testing.T) {
	for _, e := range []Entry{
		{V: 2, ID: "D", Kind: KindOutcome, Intent: "B", Action: ActReset, Outcome: Applied},
		Join([]Entry{{V: 2, ID: "D", Kind: KindOutcome, Intent: "B", Outcome: Partly}})[0],
	} {
		if why, want := Undoable(e), "entry D is the outcome of change B, not a change: undo B"; why != want {
			t.Errorf("Undoable(%+v) = %q, want %q", e, why, want)
		}
	}
}

// Combine: one outcome per group to the change's.
func TestCombine(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want string
	}{
		{nil, Failed},
		{[]string{Applied}, Applied},
		{[]string{Applied, Applied}, Applied},
		{[]string{Refused, Refused}, Refused},
		{[]string{Refused, Failed}, Failed},
		{[]string{Failed, Refused}, Failed},
		{[]string{Applied, Failed}, Partly},
		{[]string{Failed, Applied}, Partly},
		{[]string{Partly}, Partly},
		{[]string{Applied, Unknown}, Unknown},
		{[]string{Unknown, Unknown}, Unknown},
		{[]string{Failed, Unknown}, Unknown},
		{[]string{Applied, Refused}, Partly},
		{[]string{Unverified}, Unverified},
		{[]string{Applied, Unverified}, Unverified},
		{[]string{Unverified, Applied}, Unverified},
		{[]string{Unverified, Failed}, Partly},
		{[]string{Unverified, Partly}, Partly},
		{[]string{Unverified, Unknown}, Unknown},
	} {
		if got := Combine(tc.in); got != tc.want {
			t.Errorf("Combine(%v) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// Verify: each partition matched against before and planned, and the
// whole: planned, before, mixed or neither. Moved of an unknown change
// leaves a partition still at its before alone.
func TestVerifyAndMovedUnknown(t *testing.T) {
	e := Entry{ID: "I", Outcome: Unknown, Changes: []Change{
		{Group: "g", Topic: "t", Partition: 0, Before: at(1), After: at(5)},
		{Group: "g", Topic: "t", Partition: 1, Before: nil, After: at(5)},
		{Group: "g", Topic: "t", Partition: 2, Before: at(7), After: at(7)},
	}}
	state := func(p0, p1 *int64) State {
		s := State{}
		s.Set("g", "t", 0, p0)
		s.Set("g", "t", 1, p1)
		s.Set("g", "t", 2, at(7))
		return s
	}
	for _, tc := range []struct {
		p0, p1 *int64
		want   string
		rows   string
		moved  int
	}{
		{at(5), at(5), MatchPlanned, "planned planned before and planned", 0},
		{at(1), nil, MatchBefore, "before before before and planned", 0},
		{at(5), nil, "mixed", "planned before before and planned", 0},
		{at(9), at(5), MatchNeither, "neither planned before and planned", 1},
	} {
		live := state(tc.p0, tc.p1)
		v := Verify(e, live)
		var rows []string
		for _, r := range v.Rows {
			rows = append(rows, r.Matches)
		}
		if v.Matches != tc.want || strings.Join(rows, " ") != tc.rows || v.ID != "I" || v.Outcome != Unknown {
			t.Errorf("Verify(%v, %v) = %s [%s], want %s [%s]", tc.p0, tc.p1, v.Matches, strings.Join(rows, " "), tc.want, tc.rows)
		}
		if n := len(Moved(e, live)); n != tc.moved {
			t.Errorf("Moved(%v, %v): %d, want %d", tc.p0, tc.p1, n, tc.moved)
		}
	}
	// An applied change whose partition is back at its before moved.
	e.Outcome = Applied
	if n := len(Moved(e, state(at(1), at(5)))); n != 1 {
		t.Errorf("Moved of an applied change back at before: %d, want 1", n)
	}
}

// An outcome of a format version this reader does not know cannot be
// read as a result (its fields may mean something else): the joined
// change carries that version, so history shows it as unknown format and
// undo refuses it, as for an intent of that version.
func TestJoinUnknownVersionOutcome(t *testing.T) {
	plan := []Change{{Group: "g", Topic: "t", Partition: 0, Before: at(1), After: at(5)}}
	got := Join([]Entry{
		{V: 2, ID: "B", Kind: KindIntent, Action: ActReset, Outcome: Unknown, Changes: plan, Backup: "/b.csv"},
		{V: 9, ID: "D", Kind: KindOutcome, Intent: "B", Outcome: Applied, Applied: Count(1)},
	})
	if len(got) != 1 || got[0].V != 9 || KnownVersion(got[0].V) {
		t.Fatalf("joined with a version-9 outcome: %+v", got)
	}
	if j := JoinPair(Entry{V: 2, ID: "B", Kind: KindIntent}, Entry{V: 2, ID: "D", Kind: KindOutcome, Intent: "B"}); j.V != 2 {
		t.Fatalf("a known outcome changed the version: %d", j.V)
	}
}

// TestJoinUnknownCounts: what a change of outcome unknown applied and
// changed is not known: Join reads it as null, also from logs whose
// intents and unknown outcomes hold 0 (offsetctl wrote 0 there). What an
// unknown outcome says was written stays; a killed run's intent has no
// count at all. A known outcome keeps its counts.
func TestJoinUnknownCounts(t *testing.T) {
	lines := `{"v":2,"id":"A","kind":"intent","action":"reset","partitions":3,"applied":0,"outcome":"unknown","changes":[]}
{"v":2,"id":"B","kind":"intent","action":"reset","partitions":3,"applied":0,"outcome":"unknown","changes":[]}
{"v":2,"id":"C","kind":"outcome","intent":"B","action":"reset","partitions":3,"applied":0,"written":3,"changed":0,"outcome":"unknown","changes":[]}
{"v":2,"id":"D","kind":"intent","action":"reset","partitions":3,"applied":0,"outcome":"unknown","changes":[]}
{"v":2,"id":"E","kind":"outcome","intent":"D","action":"reset","partitions":3,"applied":0,"written":3,"changed":0,"outcome":"applied","changes":[]}
{"v":2,"id":"F","kind":"intent","action":"backfill","partitions":0,"applied":0,"outcome":"unknown","target":"copy","changes":[]}
`
	es, err := Read(strings.NewReader(lines))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range Join(es) {
		b, _ := json.Marshal(struct {
			A, W, C *int
		}{e.Applied, e.Written, e.Changed})
		got = append(got, e.ID+" "+e.Outcome+" "+string(b))
	}
	want := []string{
		`A unknown {"A":null,"W":null,"C":null}`,
		`B unknown {"A":null,"W":3,"C":null}`,
		`D applied {"A":0,"W":3,"C":0}`,
		`F unknown {"A":null,"W":null,"C":null}`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("joined counts:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestCheckWords: a change of group offsets is checked with history
// --verify; a backfill, which moved none, by what tells how far it got:
// the rerun that resumes from its transactional id's committed position
// or its checkpoint, or else the payload digests of its two topics.
func TestCheckWords(t *testing.T) {
	for _, tc := range []struct {
		e    Entry
		want string
	}{
		{Entry{ID: "R", Action: ActReset}, "check with: offsetctl history --verify R"},
		{Entry{ID: "U", Action: ActUndo}, "check with: offsetctl history --verify U"},
		{Entry{ID: "B", Action: ActBackfill, Target: "copy", TransactionalID: "bf-1"}, "finish it by rerunning the same command: with --transactional-id bf-1 it resumes, exactly once, from the position committed with its copies"},
		{Entry{ID: "B", Action: ActBackfill, Target: "copy", Checkpoint: "/x/bf.ckpt"}, "finish it by rerunning the same command: it resumes from checkpoint /x/bf.ckpt, counting the records of copy that may be duplicates"},
		{Entry{ID: "B", Action: ActBackfill, Target: "copy", Topics: []string{"orders"}}, "it kept no resume point: compare the payload digests of copy and orders (offsetctl replay TOPIC --payload-digest --no-verify --format none, each on its cluster; docs/replay.md) before copying again, as a rerun copies every record again"},
	} {
		if got := CheckWords(tc.e); got != tc.want {
			t.Errorf("CheckWords(%s %s) = %q, want %q", tc.e.Action, tc.e.ID, got, tc.want)
		}
	}
	if got := NoOutcome(Entry{ID: "B", Action: ActBackfill, Target: "copy", Checkpoint: "/x/bf.ckpt"}); !strings.Contains(got, "its copies may or may not have reached copy; finish it by rerunning") || strings.Contains(got, "--verify") {
		t.Errorf("NoOutcome of a backfill: %q", got)
	}
}
