package replay

import (
	"slices"
	"testing"
	"time"
)

// Tests for the mutants make mutate-full found alive in replay, each
// written as the bug the mutant stands for.

// TestTimesNeededForEveryPartition: a --from time:T or --until time:T for
// every partition (no per-partition list) needs T's offsets. The bug: a
// single time for all partitions left out, so the plan has no offset for
// it.
func TestTimesNeededForEveryPartition(t *testing.T) {
	from := StartSpec{All: Start{Kind: StartTime, Time: time.UnixMilli(5)}}
	until := UntilSpec{All: Until{Set: true, IsTime: true, Time: time.UnixMilli(9)}}
	if got := TimesNeeded(from, until); !slices.Equal(got, []int64{5, 9}) {
		t.Errorf("TimesNeeded(time for all, time for all) = %v, want [5 9]", got)
	}
	if got := TimesNeeded(from, UntilSpec{}); !slices.Equal(got, []int64{5}) {
		t.Errorf("TimesNeeded(--from time for all) = %v, want [5]", got)
	}
	if got := TimesNeeded(StartSpec{}, until); !slices.Equal(got, []int64{9}) {
		t.Errorf("TimesNeeded(--until time for all) = %v, want [9]", got)
	}
}

// TestParseUntilZero: --until 0 is an offset (an empty range), not an
// error. The bug: refusing 0 along with the negative offsets.
func TestParseUntilZero(t *testing.T) {
	for _, in := range []string{"0", "3=0"} {
		got, err := ParseUntil(in, now)
		if err != nil {
			t.Fatalf("ParseUntil(%q): %v", in, err)
		}
		u, ok := got.For(3)
		if !ok || u != (Until{Set: true, Offset: 0}) {
			t.Errorf("ParseUntil(%q) = %+v, want offset 0", in, got)
		}
	}
}

// TestCompareSnapshotsBackfillGroup: the exactly-once backfill's own
// position group moves by design. Its rows are named backfill-position and
// prove nothing changed; every other group is judged as usual. The bugs:
// the position group's first commits (none before, some after) not
// recognised; a position group named that has no commits at all; the
// other groups' changes taken for backfill progress, or the position
// group's progress taken for a change.
func TestCompareSnapshotsBackfillGroup(t *testing.T) {
	before := proofSnapshot{
		"app": {commits: map[int32]int64{0: 10}},
	}
	after := proofSnapshot{
		"app": {commits: map[int32]int64{0: 10}},
		"pos": {commits: map[int32]int64{0: 40, 1: 7}},
	}
	v := compareSnapshots("orders", before, after, nil, "pos")
	if v.BackfillGroup != "pos" || !v.Unchanged || len(v.Changes) != 0 || len(v.Rows) != 3 {
		t.Fatalf("first backfill run: %+v", v)
	}
	want := map[string]string{"app/0": StatusUnchanged, "pos/0": StatusBackfillPosition, "pos/1": StatusBackfillPosition}
	for _, r := range v.Rows {
		if k := r.Group + "/" + string(rune('0'+r.Partition)); want[k] != r.Status {
			t.Errorf("%s: %s, want %s", k, r.Status, want[k])
		}
	}

	// The position group had commits before (a resumed backfill) and the
	// replay moved app's offset: app's row is the change, pos's is not.
	after["app"] = groupState{commits: map[int32]int64{0: 11}}
	before["pos"] = groupState{commits: map[int32]int64{0: 20}}
	v = compareSnapshots("orders", before, after, nil, "pos")
	if v.BackfillGroup != "pos" || v.Unchanged || len(v.Changes) != 1 || v.Changes[0].Group != "app" || v.Changes[0].Status != StatusChanged {
		t.Fatalf("resumed backfill, app moved: %+v", v)
	}

	// A position group with no commits in either snapshot is not named.
	v = compareSnapshots("orders", proofSnapshot{"app": before["app"]}, proofSnapshot{"app": before["app"]}, nil, "pos")
	if v.BackfillGroup != "" || !v.Unchanged || len(v.Rows) != 1 {
		t.Fatalf("no position commits: %+v", v)
	}
}
