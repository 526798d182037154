package audit

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// LaterChanges: each partition of an entry gets the earliest change
// recorded after it (by id) that may have written the partition, with
// what that change found there; earlier entries, refused and failed
// changes, replays, other groups and partitions a later change did not
// write are passed over; a later change whose record cannot be read
// touches the entry's partitions of the groups it names, unread.
func TestLaterChanges(t *testing.T) {
	ch := func(p int32, before, after int64, errs ...string) Change {
		c := Change{Group: "g", Topic: "t", Partition: p, Before: at(before), After: at(after)}
		if len(errs) > 0 {
			c.Error = errs[0]
		}
		return c
	}
	u := Entry{V: 2, ID: "M", Action: ActReset, Outcome: Unknown, Groups: []string{"g"}, ClusterID: "c1",
		Changes: []Change{ch(0, 4, 17), ch(1, 4, 17), ch(2, 4, 17), ch(3, 5, 5)}}
	entry := func(id, action, outcome string, cs ...Change) Entry {
		return Entry{V: 2, ID: id, Kind: KindIntent, Action: action, Outcome: outcome, Groups: []string{"g"}, ClusterID: "c1", Changes: cs}
	}
	onCluster := func(id string, e Entry) Entry {
		e.ClusterID = id
		return e
	}
	for _, tc := range []struct {
		name    string
		entries []Entry
		want    string // partition:id:matches, sorted
	}{
		{"nothing later", []Entry{u}, ""},
		{"an earlier change", []Entry{entry("A", ActReset, Applied, ch(0, 1, 4)), u}, ""},
		{"a later reset that found U's before", []Entry{u, entry("N", ActReset, Applied, ch(0, 4, 17), ch(1, 4, 17), ch(2, 4, 17))},
			"0:N:before 1:N:before 2:N:before"},
		{"the earliest of two wins, in any order", []Entry{u, entry("P", ActReset, Applied, ch(0, 9, 1)), entry("N", ActDeleteOffsets, Unknown, ch(0, 17, 17))},
			"0:N:planned"},
		{"part of the partitions", []Entry{u, entry("N", ActUndo, Partly, ch(1, 3, 4))}, "1:N:neither"},
		{"a partition whose planned was its before", []Entry{u, entry("N", ActDeleteGroup, Applied, ch(3, 5, 5))}, "3:N:before and planned"},
		{"refused and failed changed nothing", []Entry{u, entry("N", ActReset, Refused, ch(0, 4, 1)), entry("O", ActReset, Failed, ch(0, 4, 1))}, ""},
		{"a replay moves no offset", []Entry{u, {V: 2, ID: "N", Action: ActReplay, Outcome: Applied, Groups: []string{"g"}, Changes: []Change{ch(0, 4, 4)}}}, ""},
		{"a partition the later change did not write", []Entry{u, entry("N", ActReset, Partly, ch(0, 4, 1, "commit: refused"), ch(1, 17, 1, "verify: now 9"))}, "1:N:planned"},
		{"another group", []Entry{u, {V: 2, ID: "N", Action: ActReset, Outcome: Applied, Groups: []string{"h"}, Changes: []Change{{Group: "h", Topic: "t", Partition: 0, Before: at(4)}}}}, ""},
		{"an outcome without its intent", []Entry{u, {V: 2, ID: "N", Kind: KindOutcome, Intent: "L", Action: ActReset, Outcome: Applied, Groups: []string{"g"}, Changes: []Change{ch(0, 4, 4)}}}, ""},
		{"a format this reader does not know", []Entry{u, {V: 3, ID: "N", Action: "rewind", Outcome: "done", Groups: []string{"g"}}},
			"0:N:not readable 1:N:not readable 2:N:not readable 3:N:not readable"},
		{"another cluster's change of the same names", []Entry{u, onCluster("c2", entry("N", ActReset, Applied, ch(0, 4, 17)))}, ""},
		{"another cluster's, then this one's", []Entry{u, onCluster("c2", entry("N", ActReset, Applied, ch(0, 4, 17))), entry("P", ActReset, Applied, ch(0, 17, 1))}, "0:P:planned"},
		{"a change that records no cluster id counts", []Entry{u, onCluster("", entry("N", ActReset, Applied, ch(0, 4, 17)))}, "0:N:before"},
		{"changes in a file not read", []Entry{u, {V: 2, ID: "N", Action: ActReset, Outcome: Applied, Groups: []string{"g"}, ChangesFile: "audit-changes-N.csv"}},
			"0:N:not readable 1:N:not readable 2:N:not readable 3:N:not readable"},
	} {
		l := LaterChanges(u, tc.entries)
		var got []string
		for p := int32(0); p < 4; p++ {
			if v, ok := l.Lookup("g", "t", p); ok {
				got = append(got, fmt.Sprintf("%d:%s:%s", p, v.ID, v.Matches))
			}
		}
		sort.Strings(got)
		if strings.Join(got, " ") != tc.want || l.Len() != len(got) {
			t.Errorf("%s: %q, want %q", tc.name, strings.Join(got, " "), tc.want)
		}
	}
	// A change that records no cluster id, or of an entry that records
	// none, may be another cluster's: what it found is no evidence.
	for _, tc := range []struct{ entry, later string }{{"c1", ""}, {"", "c1"}, {"", ""}, {"c1", "c1"}} {
		l := LaterChanges(onCluster(tc.entry, u), []Entry{onCluster(tc.later, entry("N", ActReset, Applied, ch(0, 4, 17)))})
		if v, ok := l.Lookup("g", "t", 0); !ok || v.ClusterUnknown != (tc.entry == "" || tc.later == "") {
			t.Errorf("entry of cluster %q, later change of %q: %+v (found %v)", tc.entry, tc.later, v, ok)
		}
	}
	// What the later change found, and the changes each once in id order.
	l := LaterChanges(u, []Entry{u, entry("P", ActReset, Applied, ch(2, 17, 1)), entry("N", ActReset, Unknown, ch(0, 17, 20), ch(1, 4, 20))})
	if v, _ := l.Lookup("g", "t", 0); *v.Found != 17 || v.Outcome != Unknown || v.Action != ActReset {
		t.Errorf("partition 0: %+v", v)
	}
	var ids []string
	for _, c := range l.Changes() {
		ids = append(ids, c.ID)
	}
	if strings.Join(ids, " ") != "N P" {
		t.Errorf("changes: %v", ids)
	}
	v := VerifyLater(u, State{"g": {"t": {0: at(20), 1: at(20), 2: at(1), 3: at(5)}}}, l)
	if v.Rows[0].Matches != MatchNeither || v.Rows[0].Later == nil || v.Rows[0].Later.Matches != MatchPlanned || v.Rows[3].Later != nil || v.Rows[3].Matches != MatchBoth {
		t.Errorf("verification: %+v", v.Rows)
	}
}

// Laters.Changes names every later change of the partitions, not only
// the earliest of each: a restore of the entry's backup reverts each (an
// undo of it, then the same reset again, once named the undo alone).
// In keeps the partitions of the groups named.
func TestLatersEvery(t *testing.T) {
	ch := func(g string, p int32) Change {
		return Change{Group: g, Topic: "t", Partition: p, Before: at(1), After: at(2)}
	}
	entry := func(id string, cs ...Change) Entry {
		return Entry{V: 2, ID: id, Action: ActReset, Outcome: Applied, Groups: []string{"g", "h"}, Changes: cs}
	}
	e := entry("M", ch("g", 0), ch("g", 1), ch("h", 0))
	l := LaterChanges(e, []Entry{e, entry("Q", ch("g", 0)), entry("N", ch("g", 0)), entry("P", ch("h", 0))})
	ids := func(l Laters) string {
		var out []string
		for _, c := range l.Changes() {
			out = append(out, c.ID)
		}
		return strings.Join(out, " ")
	}
	if v, _ := l.Lookup("g", "t", 0); v.ID != "N" || ids(l) != "N P Q" || l.Len() != 2 {
		t.Errorf("earliest %s, changes %q, %d partitions", v.ID, ids(l), l.Len())
	}
	if g := l.In([]string{"g"}); ids(g) != "N Q" || g.Len() != 1 {
		t.Errorf("in g: changes %q, %d partitions", ids(g), g.Len())
	}
	if n := l.In(nil); n.Len() != 0 || ids(n) != "" {
		t.Errorf("in no group: %q", ids(n))
	}
}

// Laters.Standing drops a later change that a later undo restored
// completely, and that undo; an undo undone in turn brings the change it
// undid back; a partly undo, or an undo of the entry itself, stays.
func TestLatersStanding(t *testing.T) {
	ch := Change{Group: "g", Topic: "t", Partition: 0, Before: at(1), After: at(2)}
	e := Entry{V: 2, ID: "M", Action: ActReset, Outcome: Applied, Groups: []string{"g"}, Changes: []Change{ch}}
	change := func(id string) Entry { x := e; x.ID = id; return x }
	undo := func(id, of, outcome string) Entry {
		return Entry{V: 2, ID: id, Action: ActUndo, UndoOf: of, Outcome: outcome, Groups: []string{"g"}, Changes: []Change{ch}}
	}
	for _, tc := range []struct {
		name    string
		entries []Entry
		want    string
	}{
		{"a later change", []Entry{change("N")}, "N"},
		{"undone", []Entry{change("N"), undo("O", "N", Applied)}, ""},
		{"undone, unverified", []Entry{change("N"), undo("O", "N", Unverified)}, ""},
		{"undone in part", []Entry{change("N"), undo("O", "N", Partly)}, "N O"},
		{"undone, its undo undone", []Entry{change("N"), undo("O", "N", Applied), undo("P", "O", Applied)}, "N"},
		{"undone, another change after", []Entry{change("N"), undo("O", "N", Applied), change("Q")}, "Q"},
		{"the entry's own undo", []Entry{undo("N", "M", Applied)}, "N"},
		{"the entry's own undo, undone (done again)", []Entry{undo("N", "M", Applied), undo("O", "N", Applied)}, ""},
		{"an undo of a change before the entry", []Entry{undo("N", "A", Applied)}, "N"},
	} {
		l := LaterChanges(e, append([]Entry{e}, tc.entries...)).Standing()
		var ids []string
		for _, c := range l.Changes() {
			ids = append(ids, c.ID)
		}
		if got := strings.Join(ids, " "); got != tc.want || (l.Len() > 0) != (got != "") {
			t.Errorf("%s: %q (%d partitions), want %q", tc.name, got, l.Len(), tc.want)
		}
	}
}

// FilesAfter reads no rotated file whose ids all sort at or before the
// id: the changes recorded after an entry are not in it.
func TestFilesAfter(t *testing.T) {
	id := func(c string) string { return strings.Repeat(c, 26) }
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	for _, name := range []string{"audit-" + id("A") + ".jsonl", "audit-" + id("K") + ".jsonl.gz", "audit-" + id("Q") + ".jsonl", "audit.jsonl"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// The third file holds an outcome of an intent in the first (min H).
	index := fmt.Sprintf(`{"file":"audit-%[1]s.jsonl","first_id":"%[1]s","min_id":"%[1]s","max_id":"%[2]s"}
{"file":"audit-%[3]s.jsonl","first_id":"%[3]s","min_id":"%[3]s","max_id":"%[4]s"}
{"file":"audit-%[5]s.jsonl","first_id":"%[5]s","min_id":"%[6]s","max_id":"%[7]s"}
`, id("A"), id("J"), id("K"), id("M"), id("Q"), id("H"), id("T"))
	if err := os.WriteFile(path+".index", []byte(index), 0o600); err != nil {
		t.Fatal(err)
	}
	for after, want := range map[string]string{
		"B": "A K Q log",
		"J": "K Q log",
		"M": "Q log",
		"Z": "log",
	} {
		files, err := FilesAfter(path, id(after))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range files {
			b := filepath.Base(f)
			if b == "audit.jsonl" {
				got = append(got, "log")
			} else {
				got = append(got, b[len("audit-"):len("audit-")+1])
			}
		}
		if strings.Join(got, " ") != want {
			t.Errorf("after %s: %v, want %s", after, got, want)
		}
	}
}

// A walk for the changes after an entry decodes only the lines naming
// one of its groups (as JSON writes the name: a quote in it escaped), and
// skips none that does.
func TestWalkNeedles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	var log []byte
	for _, e := range []Entry{
		{ID: "A1", Action: ActReset, Groups: []string{"g"}, Changes: []Change{{Group: "g"}}},
		{ID: "A2", Action: ActReset, Groups: []string{"h"}, Changes: []Change{{Group: "h"}}},
		{ID: "A3", Action: ActReset, Groups: []string{`a"b<`}},
		{ID: "A4", Action: ActReset, Kind: KindOutcome, Intent: "A1", Groups: []string{"g"}},
		{ID: "A5", Action: ActReset, Groups: []string{"gg"}},
	} {
		b, err := Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		log = append(log, b...)
	}
	if err := os.WriteFile(path, log, 0o600); err != nil {
		t.Fatal(err)
	}
	var got []string
	_, err := Walk(path, ReadOptions{After: "A0", Needles: NameNeedles([]string{"g", `a"b<`})}, func(e *Entry, _ []byte) error {
		got = append(got, e.ID)
		return nil
	})
	if err != nil || strings.Join(got, " ") != "A1 A3 A4" {
		t.Fatalf("walk: %v, %v", got, err)
	}
}
