package admin

import (
	"reflect"
	"testing"
)

// Table tests naming each case of switch statements whose conditions
// the mutation gate cannot see: gremlins never mutates a `case`
// expression (Go's coverage blocks start after the colon, so it reports
// them NOT COVERED and leaves them out of the score; see docs/testing.md).
// Each row is a case, and changing any case condition fails a row.

func TestChangesEachCase(t *testing.T) {
	for _, tc := range []struct {
		name    string
		pp      PartitionPlan
		changed bool
	}{
		{"delete: a commit removed", PartitionPlan{Action: ActDelete, Current: i64(5)}, true},
		{"delete where there was no commit still counts as sent", PartitionPlan{Action: ActDelete}, true},
		{"commit to a new offset", PartitionPlan{Action: ActCommit, Current: i64(5), Target: i64(7)}, true},
		{"commit to a lower offset", PartitionPlan{Action: ActCommit, Current: i64(7), Target: i64(5)}, true},
		{"commit where there was none", PartitionPlan{Action: ActCommit, Target: i64(0)}, true},
		{"commit to the same offset", PartitionPlan{Action: ActCommit, Current: i64(5), Target: i64(5)}, false},
		{"commit without a target (an error row)", PartitionPlan{Action: ActCommit, Current: i64(5)}, false},
		{"skip", PartitionPlan{Action: ActSkip, Current: i64(5), Target: i64(7)}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			changed, unchanged := GroupPlan{Partitions: []PartitionPlan{tc.pp}}.Changes()
			if (changed == 1) != tc.changed || changed+unchanged != 1 {
				t.Fatalf("Changes = %d changed, %d unchanged; want changed %v", changed, unchanged, tc.changed)
			}
		})
	}
}

func TestExportRowsEachCase(t *testing.T) {
	for _, tc := range []struct {
		name string
		pp   PartitionPlan
		want []PlanRow
	}{
		{"delete: a no-commit row", PartitionPlan{Topic: "t", Partition: 1, Action: ActDelete, Current: i64(5)},
			[]PlanRow{{Group: "g", Topic: "t", Partition: 1, NoCommit: true}}},
		{"commit: the target", PartitionPlan{Topic: "t", Partition: 2, Action: ActCommit, Current: i64(5), Target: i64(9)},
			[]PlanRow{{Group: "g", Topic: "t", Partition: 2, Offset: 9}}},
		{"commit to the same offset is exported too", PartitionPlan{Topic: "t", Partition: 3, Action: ActCommit, Current: i64(4), Target: i64(4)},
			[]PlanRow{{Group: "g", Topic: "t", Partition: 3, Offset: 4}}},
		{"commit without a target: no row", PartitionPlan{Topic: "t", Partition: 4, Action: ActCommit}, nil},
		{"skip: no row", PartitionPlan{Topic: "t", Partition: 5, Action: ActSkip, Target: i64(1)}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Plan{Groups: []GroupPlan{{Group: "g", Partitions: []PartitionPlan{tc.pp}}}}.ExportRows()
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("ExportRows = %+v, want %+v", got, tc.want)
			}
		})
	}
}
