package replay

import "testing"

func TestCompareSnapshots(t *testing.T) {
	before := proofSnapshot{
		"idle":  {commits: map[int32]int64{0: 10, 1: 20}},
		"live":  {members: 2, commits: map[int32]int64{0: 5}},
		"gone":  {commits: map[int32]int64{0: 1}},
		"quiet": {commits: map[int32]int64{2: 7}},
	}
	after := proofSnapshot{
		"idle":  {commits: map[int32]int64{0: 10, 1: 21}},
		"live":  {members: 2, commits: map[int32]int64{0: 9}},
		"quiet": {commits: map[int32]int64{2: 7}},
		"new":   {commits: map[int32]int64{0: 3}},
	}
	v := compareSnapshots("orders", before, after, nil, "")
	if v.Unchanged || v.GroupsChecked != 5 || len(v.Rows) != 6 {
		t.Fatalf("verification %+v", v)
	}
	status := map[string]string{}
	for _, r := range v.Rows {
		status[r.Group+"/"+string(rune('0'+r.Partition))] = r.Status
	}
	want := map[string]string{"gone/0": StatusChanged, "idle/0": StatusUnchanged, "idle/1": StatusChanged, "live/0": StatusMovedByConsumers, "new/0": StatusChanged, "quiet/2": StatusUnchanged}
	for k, w := range want {
		if status[k] != w {
			t.Errorf("%s: %s, want %s", k, status[k], w)
		}
	}
	if len(v.Failed()) != 3 || len(v.Changes) != 4 {
		t.Fatalf("failed %d, changes %d", len(v.Failed()), len(v.Changes))
	}
	same := compareSnapshots("orders", before, before, []string{"absent"}, "")
	if !same.Unchanged || len(same.Changes) != 0 || same.GroupsChecked != 5 {
		t.Fatalf("identical snapshots: %+v", same)
	}
}

func TestNamedWithoutCommits(t *testing.T) {
	snap := proofSnapshot{
		"a": {commits: map[int32]int64{0: 5}},
		"b": {commits: map[int32]int64{}},
	}
	got := namedWithoutCommits(snap, []string{"z", "a", "b", "z"})
	if len(got) != 2 || got[0] != "b" || got[1] != "z" {
		t.Fatalf("namedWithoutCommits = %v, want [b z]", got)
	}
	if got := namedWithoutCommits(snap, nil); got != nil {
		t.Fatalf("no named groups: %v", got)
	}
	err := noCommitsError("t", []string{"b", "z"})
	if err == nil || err.Error() != "--verify-groups: groups b, z have no commits on topic t (no such group, or it never committed on t): nothing to compare" {
		t.Fatalf("error: %v", err)
	}
}
