package cli

// Group coordinators that are not there yet: on a fresh Apache Kafka
// cluster the first FindCoordinator answers COORDINATOR_NOT_AVAILABLE
// while the broker creates __consumer_offsets, and a broker loading its
// groups answers COORDINATOR_LOAD_IN_PROGRESS. kgo retries those when a
// coordinator answers them but not when FindCoordinator does, so offsetctl
// retries the groups itself until --timeout. kfake answers the first
// requests with the errors; the results are checked against the broker.
// No test asserts a duration.

import (
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/offsetctl/offsetctl/internal/lag"
	"github.com/offsetctl/offsetctl/internal/testkit"
)

// coordinatorFaults makes the first count FindCoordinator requests for
// each group answer COORDINATOR_NOT_AVAILABLE, and the first OffsetFetch
// of each COORDINATOR_LOAD_IN_PROGRESS.
func coordinatorFaults(c *testkit.Cluster, count int, groups ...string) *kfake.FaultHandle {
	var fs []kfake.Fault
	for _, g := range groups {
		fs = append(fs,
			kfake.Fault{Keys: []kmsg.Key{kmsg.FindCoordinator}, Group: g, Err: kerr.CoordinatorNotAvailable, Count: count},
			kfake.Fault{Keys: []kmsg.Key{kmsg.OffsetFetch}, Group: g, Err: kerr.CoordinatorLoadInProgress, Count: 1},
		)
	}
	return c.Fake.Fault(fs...)
}

// TestCoordinatorNotAvailableLag: lag of a classic group with commits, a
// live KIP-848 group and a group that does not exist, while their
// coordinators are not available for the first requests.
func TestCoordinatorNotAvailableLag(t *testing.T) {
	c := kfakeCluster(t)
	topic := c.Topic(3, nil)
	c.Produce(topic, map[int32]int{0: 10, 1: 10, 2: 10}, time.Time{})
	classic := testkit.Name(t, "classic")
	c.Commit(classic, topic, map[int32]int64{0: 3, 1: 5, 2: 10})
	live := testkit.Name(t, "kip848")
	c.Consumer(live, topic, true)
	missing := testkit.Name(t, "missing")

	hf := coordinatorFaults(c, 3, classic, live, missing)
	defer hf.Remove()
	r := mustRun(t, c, 1, "lag", classic, live, missing, "-o", "json", "--timeout", "30s")
	if hits := hf.Hits(); hits < 3*3 {
		t.Fatalf("only %d coordinator errors were answered, want at least 9", hits)
	}
	var rep lag.LagReport
	decodeJSON(t, r, &rep)
	for _, g := range rep.Groups {
		switch g.Group {
		case classic:
			if g.Error != "" || g.State != "Empty" {
				t.Errorf("classic group: %+v", g)
			}
		case live:
			if g.Error != "" || g.Type != "consumer" || g.Members != 1 {
				t.Errorf("live KIP-848 group: want 1 member and no error, got %+v", g)
			}
		case missing:
			if g.Error != "group does not exist" {
				t.Errorf("missing group: %+v", g)
			}
		}
	}
	if got, want := secLagOf(t, r, classic), map[int32]int64{0: 7, 1: 5, 2: 0}; len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("classic group lag %v, want %v", got, want)
	}
	// The only failure is the group that does not exist, as on a warm
	// cluster.
	if strings.Contains(r.stderr, "COORDINATOR") || !strings.Contains(r.stderr, missing+": group does not exist") {
		t.Errorf("stderr: %s", r.stderr)
	}
}

// TestCoordinatorNotAvailableReset: reset --execute of a group with
// commits and of a group that never committed (the first command on a
// fresh cluster) commit what they should; delete-offsets deletes.
func TestCoordinatorNotAvailableReset(t *testing.T) {
	c := kfakeCluster(t)
	topic := c.Topic(3, nil)
	c.Produce(topic, map[int32]int{0: 10, 1: 10, 2: 10}, time.Time{})
	c.DeleteRecords(topic, 1, 4)
	old := testkit.Name(t, "old")
	c.Commit(old, topic, map[int32]int64{0: 8, 1: 8, 2: 8})
	fresh := testkit.Name(t, "new")

	hf := coordinatorFaults(c, 3, old, fresh)
	dir := t.TempDir()
	mustRun(t, c, 0, "reset", old, fresh, "--topic", topic, "--to", "earliest", "--execute", "--backup", dir+"/backup.csv", "--timeout", "30s")
	if hits := hf.Hits(); hits < 2*3 {
		t.Fatalf("only %d coordinator errors were answered, want at least 6", hits)
	}
	hf.Remove()
	want := map[int32]int64{0: 0, 1: 4, 2: 0}
	for _, g := range []string{old, fresh} {
		if got := c.Committed(g)[topic]; len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
			t.Errorf("group %s committed %v after the reset, want %v", g, got, want)
		}
	}

	hf = coordinatorFaults(c, 3, old)
	defer hf.Remove()
	mustRun(t, c, 0, "delete-offsets", old, "--topic", topic, "--execute", "--backup", dir+"/deleted.csv", "--timeout", "30s")
	if hits := hf.Hits(); hits < 3 {
		t.Fatalf("only %d coordinator errors were answered, want at least 3", hits)
	}
	if got := c.Committed(old)[topic]; len(got) != 0 {
		t.Errorf("group %s still has commits on %s after delete-offsets: %v", old, topic, got)
	}
}

// TestCoordinatorNeverAvailable: a coordinator that never comes (e.g.
// __consumer_offsets cannot be created) fails once --timeout is spent,
// naming the error and that it was retried.
func TestCoordinatorNeverAvailable(t *testing.T) {
	c := kfakeCluster(t)
	topic := c.Topic(1, nil)
	g := testkit.Name(t, "g")
	hf := coordinatorFaults(c, -1, g)
	defer hf.Remove()
	for _, args := range [][]string{
		{"lag", g},
		{"reset", g, "--topic", topic, "--to", "earliest"},
	} {
		r := mustRun(t, c, 1, append(args, "--timeout", "2s")...)
		if !strings.Contains(r.stderr, "COORDINATOR_NOT_AVAILABLE") || !strings.Contains(r.stderr, "after retrying for") {
			t.Errorf("%s: stderr %q, want the coordinator error and that it was retried", args[0], r.stderr)
		}
	}
}

// TestCoordinatorNotAvailableSemantics: the workers' first request for
// their group meets a coordinator that is not available yet (what made
// every worker exit 1 on a fresh Apache Kafka cluster); the experiment
// still gives its exact numbers.
func TestCoordinatorNotAvailableSemantics(t *testing.T) {
	c := kfakeCluster(t)
	hf := c.Fake.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.FindCoordinator}, Err: kerr.CoordinatorNotAvailable, Count: 6})
	defer hf.Remove()
	out := runSemantics(t, c, "--modes", "at-most-once,at-least-once", "--events", "12", "--batch", "4", "--crash-after", "6")
	if hits := hf.Hits(); hits < 6 {
		t.Fatalf("only %d coordinator errors were answered, want 6", hits)
	}
	if r := out.row(t, "at-most-once"); r.Processed != 10 || r.Lost != 2 || r.Duplicates != 0 {
		t.Errorf("at-most-once: %+v", r)
	}
	if r := out.row(t, "at-least-once"); r.Processed != 14 || r.Duplicates != 2 || r.Lost != 0 {
		t.Errorf("at-least-once: %+v", r)
	}
}
