package cli

import (
	"maps"
	"path/filepath"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/offsetctl/offsetctl/internal/testkit"
)

// A share group's start offsets are changed with AlterShareGroupOffsets and
// DeleteShareGroupOffsets; a top-level COORDINATOR_NOT_AVAILABLE or
// NOT_COORDINATOR answer (the broker refusing the whole request) is waited
// out under the one coordinator policy like every other coordinator
// request (issue 28), and the change is made once. kfake only: the faults
// are staged with its control functions.
func TestShareGroupChangesWaitOutCoordinator(t *testing.T) {
	c := testkit.New(t)
	if c.Fake == nil {
		t.Skip("faults are staged with kfake's control functions")
	}
	f := newShareFixture(t, c)
	fault := func(key kmsg.Key, err *kerr.Error) *kfake.FaultHandle {
		return c.Fake.Fault(kfake.Fault{Keys: []kmsg.Key{key}, Group: f.group, Err: err, TopLevel: true, Count: 2})
	}

	alter := fault(kmsg.AlterShareGroupOffsets, kerr.CoordinatorNotAvailable)
	r := mustRun(t, c, 0, "reset", f.group, "--topic", f.topic, "--to", "earliest", "--execute", "--backup", tempBackup(t), "-v")
	if hits := alter.Hits(); hits != 2 {
		t.Errorf("AlterShareGroupOffsets was refused %d times, want 2", hits)
	}
	alter.Remove()
	if got, want := c.ShareOffsets(f.group)[f.topic], map[int32]int64{0: 0, 1: 0, 2: 0}; !maps.Equal(got, want) {
		t.Fatalf("start offsets after the reset %v, want %v", got, want)
	}
	if !waitedLine.MatchString(r.stderr) {
		t.Errorf("-v does not name the wait for the coordinator:\n%s", r.stderr)
	}

	del := fault(kmsg.DeleteShareGroupOffsets, kerr.NotCoordinator)
	backup := filepath.Join(t.TempDir(), "del.csv")
	mustRun(t, c, 0, "delete-offsets", f.group, "--topic", f.topic, "--execute", "--backup", backup)
	if hits := del.Hits(); hits != 2 {
		t.Errorf("DeleteShareGroupOffsets was refused %d times, want 2", hits)
	}
	del.Remove()
	if got := c.ShareOffsets(f.group)[f.topic]; len(got) != 0 {
		t.Fatalf("start offsets after delete-offsets %v, want none", got)
	}
}
