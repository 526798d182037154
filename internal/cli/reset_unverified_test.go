package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/offsetctl/offsetctl/internal/admin"
	"github.com/offsetctl/offsetctl/internal/audit"
	"github.com/offsetctl/offsetctl/internal/testkit"
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
	line := resetBackupLine("offsetctl", "/b.csv", plan, []int{0, 1, 2}, "")
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
	line = resetBackupLine("offsetctl", "/b.csv", plan, []int{0, 1}, "")
	if !strings.Contains(line, "undo: offsetctl reset --to file:/b.csv --execute; it also restores") {
		t.Errorf("undo line %q", line)
	}
}

// End to end on kfake: a plain commit lands between the transaction's
// commit and its read-back. The JSON and the audit outcome both say
// unverified, the partition is named, exit 1, and the undo line keeps the
// group.
func TestResetUnverifiedEndToEnd(t *testing.T) {
	t.Setenv("KAFKA_BROKERS", "")
	c := testkit.New(t)
	topic, group := c.Topic(2, nil), testkit.Name(t, "unverified")
	c.Produce(topic, map[int32]int{0: 10, 1: 10}, time.Time{})
	c.Commit(group, topic, map[int32]int64{0: 3, 1: 4})
	var committed, done atomic.Bool
	c.Fake.ControlKey(int16(kmsg.EndTxn), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.Fake.KeepControl()
		if req.(*kmsg.EndTxnRequest).Commit {
			committed.Store(true)
		}
		return nil, nil, false
	})
	c.Fake.ControlKey(int16(kmsg.OffsetFetch), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.Fake.KeepControl()
		if committed.Load() && done.CompareAndSwap(false, true) {
			c.Fake.SleepControl(func() { c.Commit(group, topic, map[int32]int64{0: 9}) })
		}
		return nil, nil, false
	})
	log := filepath.Join(t.TempDir(), "audit.jsonl")
	r := mustRun(t, c, 1, "--audit-log", log, "reset", group, "--all-topics", "--to", "latest", "--execute", "-o", "json", "--backup", filepath.Join(t.TempDir(), "b.csv"))
	var gp admin.GroupPlan
	if err := json.Unmarshal([]byte(r.stdout), &gp); err != nil {
		t.Fatalf("%v: %s", err, r.stdout)
	}
	if !gp.Executed || gp.Outcome != admin.OutcomeUnverified || !strings.HasPrefix(gp.Partitions[0].Error, "verify: committed 9, planned 10") || gp.Partitions[1].Error != "" {
		t.Fatalf("JSON %s", r.stdout)
	}
	if !strings.Contains(r.stderr, "(outcome: unverified)") || !strings.Contains(r.stderr, "undo: "+printedBy(c, "--audit-log", log)+" reset "+group) || !strings.Contains(r.stderr, "it also restores the 1 group(s)") {
		t.Errorf("stderr %s", r.stderr)
	}
}
