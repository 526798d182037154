package admin

import (
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/offsetctl/offsetctl/internal/exitcode"
	"github.com/offsetctl/offsetctl/internal/lag"
)

func TestShareLiveReason(t *testing.T) {
	if r := liveReason(lag.GroupInfo{Group: "s", Type: lag.ShareType, State: "Empty"}); r != "" {
		t.Errorf("empty share group: %q, want resettable", r)
	}
	r := LiveGroupReason(lag.GroupInfo{Group: "s", Type: lag.ShareType, State: "Stable", Members: []lag.Member{{ID: "a"}, {ID: "b"}}})
	if r != "group s is a share group with 2 members (state Stable): its start offsets can only be changed while it has none; stop its share consumers first" {
		t.Errorf("live share group: %q", r)
	}
}

// shareSnapshot: share group "s" with start offsets on t/0 and t/1 of a
// topic t (log 0..10, 3 partitions) and none on t/2.
func shareSnapshot() *lag.Snapshot {
	return &lag.Snapshot{
		Offsets: lag.TopicOffsets{Partitions: map[string]map[int32]lag.PartitionOffsets{"t": {0: {Start: 0, End: 10}, 1: {Start: 0, End: 10}, 2: {Start: 0, End: 10}}}},
		Groups: []lag.GroupSnapshot{{
			GroupInfo: lag.GroupInfo{Group: "s", Type: lag.ShareType, State: "Empty", Exists: true},
			Commits:   lag.PartitionMap[lag.Commit]{"t": {0: {Offset: 2}, 1: {Offset: 5}}},
		}, {
			GroupInfo: lag.GroupInfo{Group: "other", Type: "classic", State: "Empty", Exists: true},
			Commits:   lag.PartitionMap[lag.Commit]{"t": {0: {Offset: 1}}},
		}},
	}
}

func TestPlanResetShare(t *testing.T) {
	for _, tc := range []struct {
		spec    string
		scope   []string
		file    *PlanFile
		targets map[int32]int64 // nil: no target
		deletes []int32
		errRow  string // a row error containing this
		usage   string // PlanReset's exit-2 error containing this
	}{
		{spec: "earliest", scope: []string{"t"}, targets: map[int32]int64{0: 0, 1: 0, 2: 0}},
		{spec: "latest", scope: []string{"t:1"}, targets: map[int32]int64{1: 10}},
		{spec: "current", scope: []string{"t"}, targets: map[int32]int64{0: 2, 1: 5, 2: 10}},
		{spec: "7", scope: []string{"t"}, targets: map[int32]int64{0: 7, 1: 7, 2: 7}},
		{spec: "shift:+1", scope: []string{"t"}, usage: "not supported for share groups"},
		{spec: "group:other", scope: []string{"t"}, usage: "not supported for share groups"},
		// A restore to "no start offset" of t/0 alone would delete t/1's
		// too (DeleteShareGroupOffsets is per topic): refused.
		{spec: "file:p.csv", file: &PlanFile{Columns: 4, Rows: []PlanRow{{Group: "s", Topic: "t", Partition: 0, NoCommit: true}}, Backups: map[string]int64{"s": 1}}, errRow: "a whole topic at a time"},
		// The whole topic: t/0 and t/1 deleted, t/2 set again after.
		{spec: "file:p.csv", file: &PlanFile{Columns: 4, Rows: []PlanRow{{Group: "s", Topic: "t", Partition: 0, NoCommit: true}, {Group: "s", Topic: "t", Partition: 1, NoCommit: true}, {Group: "s", Topic: "t", Partition: 2, Offset: 4}}, Backups: map[string]int64{"s": 1}}, targets: map[int32]int64{2: 4}, deletes: []int32{0, 1}},
	} {
		target, err := ParseTarget(tc.spec, time.Unix(0, 0))
		if err != nil {
			t.Fatal(err)
		}
		scope := lag.Scope{}
		if tc.scope != nil {
			scope = resetScope(t, tc.scope...)
		}
		plan, err := PlanReset(ResetInput{Snapshot: shareSnapshot(), Groups: []string{"s"}, Target: target, Scope: scope, File: tc.file})
		if tc.usage != "" {
			if err == nil || exitcode.Code(err) != exitcode.Usage || !strings.Contains(err.Error(), tc.usage) {
				t.Errorf("%s: err %v, want exit 2 with %q", tc.spec, err, tc.usage)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.spec, err)
		}
		gp := plan.Groups[0]
		if gp.GroupType != lag.ShareType || gp.Atomic == nil || *gp.Atomic || !strings.Contains(gp.Note, "AlterShareGroupOffsets") {
			t.Errorf("%s: plan %+v, want group_type share, atomic false and the note", tc.spec, gp)
		}
		gotT, gotD, gotErr := map[int32]int64{}, []int32{}, ""
		for _, pp := range gp.Partitions {
			switch {
			case pp.Error != "":
				gotErr = pp.Error
			case pp.Action == ActDelete:
				gotD = append(gotD, pp.Partition)
			case pp.Target != nil:
				gotT[pp.Partition] = *pp.Target
			}
		}
		if tc.errRow != "" {
			if !strings.Contains(gotErr, tc.errRow) {
				t.Errorf("%s: row error %q, want %q", tc.spec, gotErr, tc.errRow)
			}
			continue
		}
		if gotErr != "" || !maps.Equal(gotT, tc.targets) || !slices.Equal(gotD, append([]int32{}, tc.deletes...)) {
			t.Errorf("%s: targets %v deletes %v err %q, want %v and %v", tc.spec, gotT, gotD, gotErr, tc.targets, tc.deletes)
		}
	}
}

// A share group's backup says so, and a restore of it when the cluster no
// longer knows the group sets start offsets again (a share group), never
// consumer offsets.
func TestShareBackupMarker(t *testing.T) {
	var b strings.Builder
	if err := WriteBackupCSV(&b, time.UnixMilli(1000), "", []BackupGroup{{Group: "s", Share: true, Rows: []PlanRow{{Group: "s", Topic: "t", Partition: 0, Offset: 2}}}, {Group: "c", Rows: []PlanRow{{Group: "c", Topic: "t", Partition: 0, Offset: 3}}}}); err != nil {
		t.Fatal(err)
	}
	pf, err := ParsePlanCSV([]byte(b.String()))
	if err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	if !pf.Share["s"] || pf.Share["c"] || len(pf.Rows) != 2 {
		t.Fatalf("parsed %+v from\n%s\nwant s marked share, c not, 2 rows", pf, b.String())
	}
	snap := &lag.Snapshot{Groups: []lag.GroupSnapshot{{GroupInfo: lag.GroupInfo{Group: "s", Type: "classic", State: "Dead"}}, {GroupInfo: lag.GroupInfo{Group: "c", Type: "classic", State: "Dead"}}}}
	markShareBackups(snap, &pf)
	if !snap.Groups[0].IsShare() || snap.Groups[1].IsShare() {
		t.Errorf("marked %+v, want s a share group and c not", snap.Groups)
	}
}

// A share-partition the broker lists without a start offset is a row with
// none (Apache shows "-"), and --all-topics resets it too.
func TestShareNoStartRows(t *testing.T) {
	snap := shareSnapshot()
	snap.Groups[0].NoStart = []lag.TP{{Topic: "t", Partition: 2}}
	rep := lag.ComputeLag(snap, lag.Scope{})
	var g lag.GroupLag
	for _, gl := range rep.Groups {
		if gl.Group == "s" {
			g = gl
		}
	}
	if len(g.Partitions) != 3 || g.Partitions[2].Committed != nil || g.Partitions[2].Lag != nil || g.Partitions[2].Note != lag.NoteShareNoStart || g.TotalLag != 13 {
		t.Errorf("lag rows %+v total %d: want t/2 with no start offset, no lag and the note; total 8+5", g.Partitions, g.TotalLag)
	}
	target, _ := ParseTarget("earliest", time.Unix(0, 0))
	plan, err := PlanReset(ResetInput{Snapshot: snap, Groups: []string{"s"}, Target: target, AllTopics: true})
	if err != nil || len(plan.Groups[0].Partitions) != 3 || plan.Groups[0].Partitions[2].Current != nil || *plan.Groups[0].Partitions[2].Target != 0 {
		t.Errorf("--all-topics plan %+v err %v: want t/0..2, t/2 from no start offset to 0", plan.Groups, err)
	}
}

// A share group's notes never end in a separator: the group note of an
// Empty share group (no state note) and a share-partition row whose only
// note is "past the log end" (QA saw "...past the log end; ", which the
// table then printed quoted for its trailing space).
func TestShareNotesNotDangling(t *testing.T) {
	snap := shareSnapshot()
	snap.Groups[0].State = "Stable" // no state note: the share note alone
	snap.Groups[0].Commits["t"][0] = lag.Commit{Offset: 15, ShareLag: new(int64(0))}
	snap.Groups[0].Commits["t"][1] = lag.Commit{Offset: 5, ShareLag: new(int64(5))}
	rep := lag.ComputeLag(snap, lag.Scope{})
	for _, g := range rep.Groups {
		if g.Group != "s" {
			continue
		}
		if !strings.HasPrefix(g.Note, lag.NoteShareGroup) || strings.HasSuffix(g.Note, " ") || strings.HasSuffix(g.Note, ";") {
			t.Errorf("group note %q: want the share-group note and no dangling separator", g.Note)
		}
		for _, p := range g.Partitions {
			if strings.HasSuffix(p.Note, " ") || strings.HasSuffix(p.Note, ";") || strings.HasPrefix(p.Note, ";") {
				t.Errorf("partition %d note %q has a dangling separator", p.Partition, p.Note)
			}
		}
		if n := g.Partitions[0].Note; n != "committed offset is 5 past the log end" {
			t.Errorf("partition 0 note %q", n)
		}
	}
}

// PlanReset lists each share group a selection skipped as a skipped plan
// without rows, with a warning (lag.SkippedShareGroups names them).
func TestPlanResetSkippedShareGroups(t *testing.T) {
	snap := resetSnapshot()
	snap.SkippedShare = []string{"s1"}
	plan, err := PlanReset(ResetInput{Snapshot: snap, Groups: []string{"g"}, AllGroups: true, Target: Target{Kind: ToEarliest}, Scope: resetScope(t, "t")})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Groups) != 2 || plan.Groups[1].Group != "s1" || plan.Groups[1].GroupType != lag.ShareType || len(plan.Groups[1].Partitions) != 0 ||
		plan.Groups[1].Note != "skipped: share group: --all-groups and --regex select consumer groups only; name it to reset it" {
		t.Fatalf("plan groups %+v, want g planned and s1 skipped without rows", plan.Groups)
	}
	if want := []string{"skipping share group s1 (KIP-932): --all-groups and --regex select consumer groups only; name it to reset it"}; !reflect.DeepEqual(plan.Warnings, want) {
		t.Errorf("warnings %q, want %q", plan.Warnings, want)
	}

	// --all-groups with a group,topic,partition,offset plan file: a share
	// group the file has rows for was asked for and is listed as skipped;
	// one the file does not name is not mentioned at all.
	pf, err := ParsePlanCSV([]byte("g,t,0,12\ns1,t,0,11\n"))
	if err != nil {
		t.Fatal(err)
	}
	snap = resetSnapshot()
	snap.SkippedShare = []string{"s0", "s1", "s2"} // s0 before s1: one not named does not end the list
	plan, err = PlanReset(ResetInput{Snapshot: snap, Groups: []string{"g", "src"}, AllGroups: true, Target: Target{Kind: ToFile, Path: "p.csv"}, File: &pf})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Groups) != 2 || plan.Groups[0].Group != "g" || plan.Groups[1].Group != "s1" || plan.Groups[1].GroupType != lag.ShareType || len(plan.Groups[1].Partitions) != 0 {
		t.Errorf("file plan groups %+v, want g planned and only s1 (named by the file) skipped", plan.Groups)
	}
	for _, w := range plan.Warnings {
		if strings.Contains(w, "s2") || strings.Contains(w, "s0") {
			t.Errorf("warning about a share group the plan file does not name: %q", w)
		}
	}
}
