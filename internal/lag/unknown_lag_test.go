package lag

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// TestTotalLagKnown: a group's total lag is unknown only when something
// failed and no row has a lag of its own; a group of rows without a
// commit (no error) has a known total of 0.
func TestTotalLagKnown(t *testing.T) {
	seven := int64(7)
	for _, tc := range []struct {
		name string
		g    GroupLag
		want bool
	}{
		{"missing group", GroupLag{Error: "group does not exist"}, false},
		{"every row failed", GroupLag{Partitions: []PartitionLag{{Error: "not leader"}, {Error: "not leader"}}}, false},
		{"a failed row with a lag left over", GroupLag{Partitions: []PartitionLag{{Lag: &seven, Error: "not leader"}}}, false},
		{"one row failed, one known", GroupLag{Partitions: []PartitionLag{{Error: "not leader"}, {Lag: &seven}}}, true},
		{"group error, a row known", GroupLag{Error: "describing group: timeout", Partitions: []PartitionLag{{Lag: &seven}}}, true},
		{"rows without a commit", GroupLag{Partitions: []PartitionLag{{}, {}}}, true},
		{"no rows, no error", GroupLag{}, true},
	} {
		if got := tc.g.TotalLagKnown(); got != tc.want {
			t.Errorf("%s: TotalLagKnown = %v, want %v", tc.name, got, tc.want)
		}
		if got := tc.g.OptTotalLag(); (got != nil) != tc.want {
			t.Errorf("%s: OptTotalLag = %v", tc.name, got)
		}
	}
}

// TestEncodeJSON: EncodeJSON writes what encoding/json writes for the
// group's fields, compact or indented, with total_lag null only when the
// total is unknown (a known total of 0 stays 0), and MarshalJSON is its
// compact form.
func TestEncodeJSON(t *testing.T) {
	seven := int64(7)
	known0 := GroupLag{Group: `"total_lag": 0,`, Partitions: []PartitionLag{{Topic: "t"}}, Topics: []string{"t"}}
	known7 := GroupLag{Group: "g", TotalLag: 7, Partitions: []PartitionLag{{Topic: "t", Lag: &seven}}}
	unknown := GroupLag{Group: `a"total_lag":0,b`, Error: "group does not exist", Partitions: []PartitionLag{}}
	for _, g := range []GroupLag{known0, known7, unknown} {
		for _, ind := range [][2]string{{"", ""}, {"", "  "}, {"    ", "  "}} {
			got, err := g.EncodeJSON(ind[0], ind[1])
			if err != nil {
				t.Fatal(err)
			}
			var want []byte
			if ind == [2]string{"", ""} {
				want, _ = json.Marshal(groupLagFields(g))
			} else {
				want, _ = json.MarshalIndent(groupLagFields(g), ind[0], ind[1])
			}
			w := string(want)
			if !g.TotalLagKnown() {
				w = strings.Replace(strings.Replace(w, `"total_lag": 0,`, `"total_lag": null,`, 1), `"total_lag":0,`, `"total_lag":null,`, 1)
			}
			if string(got) != w {
				t.Errorf("group %q, indent %q:\n got %s\nwant %s", g.Group, ind, got, w)
			}
		}
	}
	b, err := json.Marshal(unknown)
	if err != nil || !strings.Contains(string(b), `"group":"a\"total_lag\":0,b"`) || !strings.Contains(string(b), `"total_lag":null,`) {
		t.Errorf("MarshalJSON of an unknown total: %s %v", b, err)
	}
	if b, _ := json.Marshal(known0); !strings.Contains(string(b), `"total_lag":0,`) {
		t.Errorf("MarshalJSON of a known 0: %s", b)
	}
}

// TestNoteNothingOnTopics: a group named with --topic T that has nothing
// on T gets the note, and only then: not with every group selected, no
// scope, a missing group, or one that could not be read.
func TestNoteNothingOnTopics(t *testing.T) {
	scope := Scope{Topics: map[string][]int32{"t": nil, "u": nil}}
	ok := GroupSnapshot{GroupInfo: GroupInfo{Group: "g", Exists: true}}
	for _, tc := range []struct {
		name string
		g    GroupSnapshot
		o    LagOptions
		want string
	}{
		{"named, nothing on u", ok, LagOptions{Scope: scope}, NoteNothingOnTopic + " u"},
		{"every group", ok, LagOptions{Scope: scope, AllGroups: true}, ""},
		{"no scope", ok, LagOptions{}, ""},
		{"missing", GroupSnapshot{GroupInfo: GroupInfo{Group: "g"}}, LagOptions{Scope: scope}, ""},
		{"not described", GroupSnapshot{GroupInfo: GroupInfo{Group: "g", Exists: true, Err: errTest}}, LagOptions{Scope: scope}, ""},
		{"commits not fetched", GroupSnapshot{GroupInfo: GroupInfo{Group: "g", Exists: true}, CommitErr: errTest}, LagOptions{Scope: scope}, ""},
	} {
		gl := GroupLag{Topics: []string{"t"}}
		noteNothingOnTopics(&gl, tc.g, tc.o)
		if gl.Note != tc.want {
			t.Errorf("%s: note %q, want %q", tc.name, gl.Note, tc.want)
		}
	}
}

// TestNegativeCommitRow: a negative committed offset other than -1 is a
// row without a commit, with a note naming the value; a real commit on
// the same partition wins.
func TestNegativeCommitRow(t *testing.T) {
	s := &Snapshot{Offsets: TopicOffsets{Partitions: PartitionMap[PartitionOffsets]{"t": {0: {Start: 0, End: 10}, 1: {Start: 0, End: 10}}}}}
	g := GroupSnapshot{
		GroupInfo: GroupInfo{Group: "g", Type: "classic", State: "Empty", Exists: true},
		Commits:   PartitionMap[Commit]{"t": {1: {Offset: 4}}},
		Negative:  PartitionMap[int64]{"t": {0: -5, 1: -7}},
	}
	gl := computeGroupLag(s, g, LagOptions{})
	if len(gl.Partitions) != 2 || gl.TotalLag != 6 {
		t.Fatalf("rows: %+v", gl.Partitions)
	}
	p0, p1 := gl.Partitions[0], gl.Partitions[1]
	if p0.Committed != nil || p0.Lag != nil || !strings.HasPrefix(p0.Note, "the committed offset is -5, which is not an offset") {
		t.Errorf("partition 0: %+v", p0)
	}
	if p1.Committed == nil || *p1.Committed != 4 || strings.Contains(p1.Note, "-7") {
		t.Errorf("partition 1 (committed at 4): %+v", p1)
	}
}

var errTest = errors.New("test")
