package admin

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/offsetctl/offsetctl/internal/testkit"
)

func TestCoordinatorBackoff(t *testing.T) {
	want := []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond, time.Second, time.Second, time.Second}
	for try, w := range want {
		if got := coordinatorBackoff(try); got != w {
			t.Errorf("backoff after %d failed tries = %s, want %s", try, got, w)
		}
	}
	if coordinatorBackoff(1000) != time.Second {
		t.Errorf("no cap on a long run of retries: %s", coordinatorBackoff(1000))
	}
	for _, err := range []error{kerr.CoordinatorNotAvailable, kerr.CoordinatorLoadInProgress, kerr.NotCoordinator, &retriedError{err: kerr.NotCoordinator}} {
		if !IsCoordinatorErr(err) {
			t.Errorf("%v is a coordinator error", err)
		}
	}
	for _, err := range []error{nil, kerr.GroupIDNotFound, kerr.GroupAuthorizationFailed, context.DeadlineExceeded} {
		if IsCoordinatorErr(err) {
			t.Errorf("%v is not a coordinator error", err)
		}
	}
}

// coordinatorFault answers the first count FindCoordinator requests for
// group (every request with -1) with COORDINATOR_NOT_AVAILABLE, as a
// fresh Apache Kafka cluster does while it creates __consumer_offsets.
func coordinatorFault(t *testing.T, c *testkit.Cluster, group string, count int) *kfake.FaultHandle {
	t.Helper()
	if testkit.Real() {
		t.Skip("injects coordinator errors with kfake")
	}
	hf := c.Fake.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.FindCoordinator}, Group: group, Err: kerr.CoordinatorNotAvailable, Count: count})
	t.Cleanup(hf.Remove)
	return hf
}

// TestFetchOffsetsRetriesCoordinator: the commits are read once the
// coordinator answers; a coordinator that never does fails at the
// context's deadline with its error, saying it was retried.
func TestFetchOffsetsRetriesCoordinator(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(2, nil)
	c.Produce(topic, map[int32]int{0: 5, 1: 5}, time.Time{})
	g := testkit.Name(t, "g")
	c.Commit(g, topic, map[int32]int64{0: 2, 1: 4})
	adm := c.Admin()

	hf := coordinatorFault(t, c, g, 4)
	resp, err := FetchOffsets(testkit.Ctx(t), adm, g)
	if err != nil {
		t.Fatal(err)
	}
	if hf.Hits() != 4 {
		t.Fatalf("%d coordinator errors answered, want 4", hf.Hits())
	}
	for p, want := range map[int32]int64{0: 2, 1: 4} {
		if o, ok := resp.Lookup(topic, p); !ok || o.Err != nil || o.At != want {
			t.Errorf("partition %d: %+v, want commit %d", p, o, want)
		}
	}
	commits := FetchCommits(testkit.Ctx(t), adm, []string{g})
	if gs := commits[g]; gs.CommitErr != nil || gs.Commits[topic][0].Offset != 2 || gs.Commits[topic][1].Offset != 4 {
		t.Errorf("FetchCommits: %+v", gs)
	}

	never := testkit.Name(t, "never")
	coordinatorFault(t, c, never, -1)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, err = FetchOffsets(ctx, adm, never)
	if !errors.Is(err, kerr.CoordinatorNotAvailable) || !strings.Contains(err.Error(), "after retrying for") {
		t.Errorf("FetchOffsets of a group whose coordinator never comes: %v", err)
	}
	ctx, cancel = context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if gs := FetchCommits(ctx, adm, []string{never})[never]; !errors.Is(gs.CommitErr, kerr.CoordinatorNotAvailable) {
		t.Errorf("FetchCommits of a group whose coordinator never comes: %+v", gs)
	}
}

// TestDescribeGroupsRetriesCoordinator: a listed classic group is
// described once its coordinator answers; one whose coordinator never
// answers carries the error instead of looking like a group without
// members.
func TestDescribeGroupsRetriesCoordinator(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(1, nil)
	g := testkit.Name(t, "g")
	c.Consumer(g, topic, false)
	adm := c.Admin()
	listed, err := ListGroups(testkit.Ctx(t), adm)
	if err != nil {
		t.Fatal(err)
	}

	hf := coordinatorFault(t, c, g, 3)
	infos, err := DescribeGroups(testkit.Ctx(t), adm, []string{g}, listed)
	if err != nil {
		t.Fatal(err)
	}
	if hf.Hits() != 3 {
		t.Fatalf("%d coordinator errors answered, want 3", hf.Hits())
	}
	if gi := infos[g]; gi.Err != nil || len(gi.Members) != 1 || gi.State != "Stable" {
		t.Errorf("described %+v, want one member, Stable, no error", gi)
	}

	hf.Remove()
	coordinatorFault(t, c, g, -1)
	// A new client: the coordinator the first one found stays cached.
	adm2 := c.Admin()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	infos, err = DescribeGroups(ctx, adm2, []string{g}, listed)
	if err != nil {
		t.Fatal(err)
	}
	if gi := infos[g]; !errors.Is(gi.Err, kerr.CoordinatorNotAvailable) {
		t.Errorf("described %+v, want COORDINATOR_NOT_AVAILABLE", gi)
	}
}
