package admin

import (
	"errors"
	"strings"
	"testing"

	"github.com/offsetctl/offsetctl/internal/lag"
)

// TestPlanShareAckedWhichPartitions: only the share-partitions the change
// sends (a delete, or a commit with a target), planned without error, with
// a start offset read and a broker lag, and records past the start already
// acknowledged (log end - start - lag > 0) are warned about; the warning
// counts them all. Written for the mutants make mutate found alive in
// planShareAcked (each condition dropped or inverted, a skip turned into
// a stop).
func TestPlanShareAckedWhichPartitions(t *testing.T) {
	shareLag := func(n int64) *int64 { return &n }
	target := int64(0)
	gp := &GroupPlan{Group: "sg", Partitions: []PartitionPlan{
		{Topic: "t", Partition: 0, Action: ActCommit, Target: &target, LogEnd: 100},       // 100-10-50 = 40 acked
		{Topic: "t", Partition: 1, Action: ActDelete, LogEnd: 100},                        // 100-20-80 = 0: none
		{Topic: "t", Partition: 2, Action: ActCommit, LogEnd: 100},                        // no target: not sent
		{Topic: "t", Partition: 3, Action: ActSkip, LogEnd: 100},                          // skipped: not sent
		{Topic: "t", Partition: 4, Action: ActDelete, LogEnd: 100, Error: "out of range"}, // failed plan
		{Topic: "t", Partition: 5, Action: ActDelete, LogEnd: 100},                        // start offset unreadable
		{Topic: "t", Partition: 6, Action: ActDelete, LogEnd: 100},                        // no broker lag
		{Topic: "t", Partition: 7, Action: ActDelete, LogEnd: 100},                        // no start offset at all
		{Topic: "t", Partition: 8, Action: ActDelete, LogEnd: 30},                         // 30-0-10 = 20 acked
	}}
	g := &lag.GroupSnapshot{Commits: map[string]map[int32]lag.Commit{"t": {
		0: {Offset: 10, ShareLag: shareLag(50)},
		1: {Offset: 20, ShareLag: shareLag(80)},
		2: {Offset: 0, ShareLag: shareLag(10)},
		3: {Offset: 0, ShareLag: shareLag(10)},
		4: {Offset: 0, ShareLag: shareLag(10)},
		5: {Offset: 0, ShareLag: shareLag(10), Err: errors.New("UNKNOWN_SERVER_ERROR")},
		6: {Offset: 0},
		8: {Offset: 0, ShareLag: shareLag(10)},
	}}}
	warn := planShareAcked(gp, g)
	for _, pp := range gp.Partitions {
		want := map[int32]int64{0: 40, 8: 20}[pp.Partition]
		switch {
		case want == 0 && pp.AckedPastStart != nil:
			t.Errorf("partition %d: acked %d, want none", pp.Partition, *pp.AckedPastStart)
		case want != 0 && (pp.AckedPastStart == nil || *pp.AckedPastStart != want):
			t.Errorf("partition %d: acked %v, want %d", pp.Partition, pp.AckedPastStart, want)
		case want != 0 && !strings.Contains(pp.Note, "records after the start offset are acknowledged"):
			t.Errorf("partition %d: note %q", pp.Partition, pp.Note)
		}
	}
	if len(warn) != 1 || !strings.HasPrefix(warn[0], "group sg: 60 record(s) after the start offsets of 2 share-partitions (t/0, t/8)") {
		t.Errorf("warning %q", warn)
	}
	if w := planShareAcked(&GroupPlan{Group: "sg", Partitions: gp.Partitions[1:2]}, g); w != nil {
		t.Errorf("nothing acknowledged: warning %q, want none", w)
	}
}

// TestPlanShareUndoBackupExtra: when a plan commits a start offset where
// a share-partition had none, the backup also holds the other
// share-partitions of that topic that have one (read without error), so the
// undo, which deletes a whole topic's start offsets, sets them again. Only
// such topics: not one whose commit failed to plan, not one that had a
// start offset, not a delete. Written for the mutants make mutate found
// alive in planShareUndo.
func TestPlanShareUndoBackupExtra(t *testing.T) {
	five := int64(5)
	gp := &GroupPlan{Group: "sg", Partitions: []PartitionPlan{
		{Topic: "t", Partition: 0, Action: ActCommit},
		{Topic: "u", Partition: 0, Action: ActCommit, Error: "out of range"},
		{Topic: "v", Partition: 0, Action: ActCommit, Current: &five},
		{Topic: "w", Partition: 0, Action: ActDelete},
	}}
	g := &lag.GroupSnapshot{Commits: map[string]map[int32]lag.Commit{
		"t": {1: {Offset: 7}, 2: {Err: errors.New("UNKNOWN_SERVER_ERROR")}, 3: {Offset: 9}},
		"u": {1: {Offset: 3}},
		"v": {1: {Offset: 4}},
		"w": {1: {Offset: 6}},
	}}
	planShareUndo(gp, g)
	if len(gp.BackupExtra) != 2 || gp.BackupExtra[0] != (PlanRow{Topic: "t", Partition: 1, Offset: 7}) || gp.BackupExtra[1] != (PlanRow{Topic: "t", Partition: 3, Offset: 9}) {
		t.Errorf("backup extra %+v, want t/1 at 7 and t/3 at 9", gp.BackupExtra)
	}
	if !strings.Contains(gp.Note, "partition(s) 1, 3 of t, outside this plan") || strings.Contains(gp.Note, " of u") || strings.Contains(gp.Note, " of v") || strings.Contains(gp.Note, " of w") {
		t.Errorf("note %q", gp.Note)
	}
}
