package cli

import (
	"strings"
	"testing"

	"github.com/offsetctl/offsetctl/internal/admin"
	"github.com/offsetctl/offsetctl/internal/audit"
)

// A group committed but not read back as planned (topic deleted and
// recreated, a consumer committing meanwhile) is unverified, not applied:
// in the audit outcome as in its JSON, its partitions count as written but
// not applied, and the undo line keeps it (its backup restores it) and
// says so.
func TestResetUnverifiedGroup(t *testing.T) {
	ten := int64(10)
	zero := int64(0)
	part := func(p int32, err string) admin.PartitionPlan {
		return admin.PartitionPlan{Topic: "t", Partition: p, Current: &zero, Target: &ten, Action: admin.ActCommit, Error: err}
	}
	plan := &admin.Plan{Groups: []admin.GroupPlan{
		{Group: "ok", Executed: true, Outcome: admin.OutcomeApplied, Partitions: []admin.PartitionPlan{part(0, "")}},
		{Group: "gone", Executed: true, Outcome: admin.OutcomeUnverified, Partitions: []admin.PartitionPlan{part(0, ""), part(1, "verify: no commit found, planned 10")}},
		{Group: "aborted", Outcome: admin.OutcomeFailed, Error: "group aborted became active", Partitions: []admin.PartitionPlan{part(0, "")}},
	}}
	line := resetBackupLine("/b.csv", plan, []int{0, 1, 2}, "")
	if !strings.Contains(line, "undo: offsetctl reset ok gone --to file:/b.csv --execute; it also restores the 1 group(s) committed but not read back as planned (outcome unverified)") {
		t.Errorf("undo line %q", line)
	}
	res := resetAudit(plan)(&audit.Entry{})
	if res.outcome != audit.Partly || res.written != 3 || res.applied != 2 {
		t.Errorf("audit outcome %s written %d applied %d, want partly 3 2", res.outcome, res.written, res.applied)
	}
	plan.Groups = plan.Groups[:2]
	if res := resetAudit(plan)(&audit.Entry{}); res.outcome != audit.Unverified {
		t.Errorf("applied + unverified groups: audit outcome %s, want unverified", res.outcome)
	}
	line = resetBackupLine("/b.csv", plan, []int{0, 1}, "")
	if !strings.Contains(line, "undo: offsetctl reset --to file:/b.csv --execute; it also restores") {
		t.Errorf("undo line %q", line)
	}
}
