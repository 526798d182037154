package replay

import (
	"fmt"
	"strings"
	"testing"
)

// --verify-groups a,a,typo: a group named twice must not hide a mistyped
// group named after it, which would then be "proven unchanged" while the
// proof compared nothing for it.
func TestNamedWithoutCommitsRepeatBeforeTypo(t *testing.T) {
	snap := proofSnapshot{"orders": {commits: map[int32]int64{0: 5}}}
	for _, named := range [][]string{
		{"orders", "orders", "ordres"},
		{"orders", "ordres", "orders", "ordres"},
		{"ordres", "ordres", "orders"},
	} {
		got := namedWithoutCommits(snap, named)
		if strings.Join(got, ",") != "ordres" {
			t.Errorf("namedWithoutCommits(%q) = %q, want [ordres]", named, got)
		}
	}
	if got := namedWithoutCommits(snap, []string{"orders", "orders"}); got != nil {
		t.Errorf("a repeated good group: %q", got)
	}
}

// The proof table is in group then partition order, every row whole:
// before, after, status and the live-member count.
func TestCompareSnapshotsWholeRowsInOrder(t *testing.T) {
	before := proofSnapshot{
		"b": {commits: map[int32]int64{2: 7, 0: 1, 1: 4}},
		"a": {members: 1, commits: map[int32]int64{1: 3}},
	}
	after := proofSnapshot{
		"b": {commits: map[int32]int64{2: 7, 0: 2}},
		"a": {members: 2, commits: map[int32]int64{1: 5, 0: 9}},
	}
	v := compareSnapshots("t", before, after, nil, "")
	o := func(p *int64) string {
		if p == nil {
			return "-"
		}
		return fmt.Sprint(*p)
	}
	var got []string
	for _, r := range v.Rows {
		got = append(got, fmt.Sprintf("%s %s/%d %s>%s %s m%d", r.Group, r.Topic, r.Partition, o(r.Before), o(r.After), r.Status, r.Members))
	}
	want := []string{
		"a t/0 ->9 " + StatusMovedByConsumers + " m2",
		"a t/1 3>5 " + StatusMovedByConsumers + " m2",
		"b t/0 1>2 " + StatusChanged + " m0",
		"b t/1 4>- " + StatusChanged + " m0",
		"b t/2 7>7 " + StatusUnchanged + " m0",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("rows\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if v.Unchanged || len(v.Changes) != 4 || len(v.Failed()) != 2 || strings.Join(v.Groups, ",") != "a,b" || v.GroupsChecked != 2 {
		t.Fatalf("verification %+v", v)
	}
}

// One group without commits is "group X has", several are "groups X, Y have".
func TestNoCommitsErrorOneGroup(t *testing.T) {
	err := noCommitsError("t", []string{"ordres"})
	if err == nil || err.Error() != "--verify-groups: group ordres has no commits on topic t (no such group, or it never committed on t): nothing to compare" {
		t.Fatalf("error: %v", err)
	}
}

// A space is printable and written as is; of ASCII, only '"', '\\', the
// bytes below 0x20 and DEL are escaped.
func TestAppendJSONStringEscapesOnlyWhatJSONNeeds(t *testing.T) {
	for in, want := range map[string]string{
		"a b":        `"a b"`,
		" ":          `" "`,
		"!~\x7f":     `"!~\u007f"`,
		"\x1f":       `"\u001f"`,
		"q\"b\\":     `"q\"b\\"`,
		"\n\r\t\x00": `"\n\r\t\u0000"`,
	} {
		if got := string(appendJSONString(nil, in)); got != want {
			t.Errorf("appendJSONString(%q) = %s, want %s", in, got, want)
		}
	}
}

// A line missing any one of partition, offset or timestamp is not a
// replay line.
func TestParseLineNeedsEveryPosition(t *testing.T) {
	full := map[string]string{"partition": "1", "offset": "2", "timestamp": "3"}
	for missing := range full {
		var fields []string
		for k, v := range full {
			if k != missing {
				fields = append(fields, fmt.Sprintf("%q:%s", k, v))
			}
		}
		line := "{" + strings.Join(fields, ",") + `,"topic":"t"}`
		if _, err := ParseLine([]byte(line)); err == nil || !strings.Contains(err.Error(), "lacks partition, offset or timestamp") {
			t.Errorf("without %s: %v", missing, err)
		}
	}
	l, err := ParseLine([]byte(`{"topic":"t","partition":1,"offset":2,"timestamp":3}`))
	if err != nil || l.Partition != 1 || l.Offset != 2 || l.Timestamp != 3 || l.Topic != "t" {
		t.Fatalf("full line: %+v, %v", l, err)
	}
}

// Partition lists in errors: "0..N" only when they are exactly 0..N,
// otherwise listed; a gap or a list not starting at 0 is not a range.
func TestRangeOf(t *testing.T) {
	for want, ps := range map[string][]int32{
		"0": {0}, "0..2": {0, 1, 2}, "1,2": {1, 2}, "0,2": {0, 2}, "": nil, "3": {3},
	} {
		if got := rangeOf(ps); got != want {
			t.Errorf("rangeOf(%v) = %q, want %q", ps, got, want)
		}
	}
}

// Total counts the planned offsets; an empty range (bound at the start)
// adds none; any partition bounded by a time ahead (StopAtMs, even the
// epoch) or following without a bound makes the total unknown (-1); --max
// caps it.
func TestPlanTotalEdges(t *testing.T) {
	pp := func(from, bound, stopAt int64) PartitionPlan {
		return PartitionPlan{From: from, Bound: bound, StopAtMs: stopAt}
	}
	for _, c := range []struct {
		plan Plan
		want int64
	}{
		{Plan{Partitions: []PartitionPlan{pp(5, 5, -1), pp(0, 10, -1)}}, 10},
		{Plan{Partitions: []PartitionPlan{pp(0, 10, -1), pp(0, 10, 0)}}, -1},
		{Plan{Partitions: []PartitionPlan{pp(0, NoBound, -1)}}, -1},
		{Plan{Partitions: []PartitionPlan{pp(0, 10, -1)}, Max: 4}, 4},
		{Plan{Partitions: []PartitionPlan{pp(0, 10, -1)}, Max: 40}, 10},
	} {
		if got := c.plan.Total(); got != c.want {
			t.Errorf("Total(%+v) = %d, want %d", c.plan, got, c.want)
		}
	}
	if !pp(5, 5, -1).Empty() || pp(5, 6, -1).Empty() || !pp(5, 4, -1).Empty() {
		t.Error("Empty: a range is empty exactly when its bound is at or before its start")
	}
}
