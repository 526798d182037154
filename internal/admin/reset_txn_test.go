package admin

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/offsetctl/offsetctl/internal/lag"
	"github.com/offsetctl/offsetctl/internal/testkit"
)

// kfakeOnly is a fresh kfake cluster whatever KAFKA_BROKERS says: these
// tests stage races with kfake's control functions.
func kfakeOnly(t *testing.T) *testkit.Cluster {
	t.Helper()
	t.Setenv("KAFKA_BROKERS", "")
	return testkit.New(t)
}

// planLatest plans a reset of group on topic to latest.
// txnFixture is the transactional-reset tests' kfake cluster: a topic of
// two partitions with 10 records each, a group committed at 3 and 4, and
// its plan to latest (10 and 10).
func txnFixture(t *testing.T) (c *testkit.Cluster, topic, g string, gp GroupPlan) {
	t.Helper()
	c = kfakeOnly(t)
	topic = c.Topic(2, nil)
	c.Produce(topic, map[int32]int{0: 10, 1: 10}, time.Time{})
	g = testkit.Name(t, "g")
	c.Commit(g, topic, map[int32]int64{0: 3, 1: 4})
	return c, topic, g, planLatest(t, c, g, topic)
}

func planLatest(t *testing.T, c *testkit.Cluster, group, topic string) GroupPlan {
	t.Helper()
	scope, _ := lag.ParseScope([]string{topic})
	// Not testkit.Ctx's 60s: thousands of partitions on a loaded 2-core
	// machine (the whole suite in parallel) have taken longer.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	in, err := GatherReset(ctx, c.Admin(), ResetRequest{Groups: []string{group}, Target: Target{Kind: ToLatest}, Scope: scope})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := PlanReset(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Refusals()) != 0 || len(plan.Errors()) != 0 {
		t.Fatalf("plan refused or failed: %v %v", plan.Refusals(), plan.Errors())
	}
	return plan.Groups[0]
}

func txnOpts(group string) TxnOptions {
	return TxnOptions{ID: TxnID(DefaultTxnIDPrefix, group), Timeout: time.Minute, Resolve: 10 * time.Second}
}

// sum adds a group's committed offsets on topic (all-old and all-new sums
// differ, so a sum tells both apart together with a count).
func committedOn(c *testkit.Cluster, group, topic string) map[int32]int64 {
	return c.Committed(group)[topic]
}

// A plan far over the coordinator's 1 MiB batch goes out as several
// TxnOffsetCommits in one transaction. With EndTxn held at the broker,
// OffsetFetch still returns the old offsets for every partition; after
// it, every partition holds the new one.
func TestExecuteResetTxnOverBatchLimitAllAtOnce(t *testing.T) {
	c := kfakeOnly(t)
	const parts = 6000
	topic := strings.Repeat("x", 180) + testkit.Name(t, "t")
	c.CreateTopic(topic, parts, nil)
	end := map[int32]int{}
	old := map[int32]int64{}
	for p := int32(0); p < parts; p++ {
		end[p] = 2
		old[p] = 1
	}
	c.Produce(topic, end, time.Time{})
	g := testkit.Name(t, "g")
	c.Commit(g, topic, old)
	gp := planLatest(t, c, g, topic)

	var seenDuring map[int32]int64
	var commits atomic.Int32
	c.Fake.ControlKey(int16(kmsg.EndTxn), func(req kmsg.Request) (kmsg.Response, error, bool) {
		if !req.(*kmsg.EndTxnRequest).Commit {
			c.Fake.KeepControl()
			return nil, nil, false
		}
		commits.Add(1)
		c.Fake.SleepControl(func() { seenDuring = committedOn(c, g, topic) })
		return nil, nil, false
	})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := ExecuteResetTxn(ctx, c.Admin(), &gp, txnOpts(g)); err != nil {
		t.Fatalf("ExecuteResetTxn: %v", err)
	}
	if gp.CommitRequests < 2 {
		t.Errorf("%d TxnOffsetCommit requests, want several (the plan is over 1 MiB)", gp.CommitRequests)
	}
	if commits.Load() != 1 {
		t.Fatalf("%d EndTxn(commit), want 1", commits.Load())
	}
	if fmt.Sprint(seenDuring) != fmt.Sprint(old) {
		t.Fatalf("before EndTxn, %d partitions were visible, some not old", len(seenDuring))
	}
	got := committedOn(c, g, topic)
	for p := int32(0); p < parts; p++ {
		if got[p] != 2 {
			t.Fatalf("partition %d committed %d after EndTxn, want 2", p, got[p])
		}
	}
	if errs := (Plan{Groups: []GroupPlan{gp}}).Errors(); len(errs) != 0 {
		t.Fatalf("errors: %v", errs[:1])
	}
}

// A consumer joining after the plan (the broker accepts a transactional
// commit for a live group) is caught by the describe right before EndTxn:
// the transaction is aborted and nothing changes. The last TxnOffsetCommit
// is held until the consumer has joined.
func TestExecuteResetTxnConsumerJoinedAborts(t *testing.T) {
	for _, kip848 := range []bool{false, true} {
		t.Run(map[bool]string{false: "classic", true: "kip848"}[kip848], func(t *testing.T) {
			c, topic, g, gp := txnFixture(t)
			var ends []bool
			c.Fake.ControlKey(int16(kmsg.EndTxn), func(req kmsg.Request) (kmsg.Response, error, bool) {
				c.Fake.KeepControl()
				ends = append(ends, req.(*kmsg.EndTxnRequest).Commit)
				return nil, nil, false
			})
			var held atomic.Bool
			c.Fake.ControlKey(int16(kmsg.TxnOffsetCommit), func(kmsg.Request) (kmsg.Response, error, bool) {
				if !held.CompareAndSwap(false, true) {
					c.Fake.KeepControl()
					return nil, nil, false
				}
				c.Fake.SleepControl(func() { c.Consumer(g, topic, kip848, kgo.DisableAutoCommit()) })
				return nil, nil, false
			})
			err := ExecuteResetTxn(testkit.Ctx(t), c.Admin(), &gp, txnOpts(g))
			if err == nil || !strings.Contains(err.Error(), "became active after the check, so the transaction was aborted: nothing changed for this group") {
				t.Fatalf("err = %v, want the abort explained", err)
			}
			if n := strings.Count(err.Error(), "stop its consumers"); n != 1 {
				t.Fatalf("err = %v: says \"stop its consumers\" %d times, want once", err, n)
			}
			if fmt.Sprint(ends) != "[false]" {
				t.Fatalf("EndTxn commit flags = %v, want one abort", ends)
			}
			if got := committedOn(c, g, topic); got[0] != 3 || got[1] != 4 {
				t.Fatalf("committed = %v, want unchanged", got)
			}
			if gp.Executed {
				t.Fatal("group marked executed although nothing changed")
			}
			if gp.NotApplied() != "not applied: group became active" {
				t.Fatalf("NotApplied() = %q", gp.NotApplied())
			}
		})
	}
}

// A second run taking the same transactional id while the first holds an
// open transaction fences it: the first's EndTxn fails, its staged offsets
// are discarded, and it says so.
func TestExecuteResetTxnFenced(t *testing.T) {
	c := kfakeOnly(t)
	topic := c.Topic(3, nil)
	c.Produce(topic, map[int32]int{0: 10, 1: 10, 2: 10}, time.Time{})
	g := testkit.Name(t, "g")
	c.Commit(g, topic, map[int32]int64{0: 1, 1: 2, 2: 3})
	gp := planLatest(t, c, g, topic)
	var held atomic.Bool
	var fenceErr error
	c.Fake.ControlKey(int16(kmsg.EndTxn), func(kmsg.Request) (kmsg.Response, error, bool) {
		if !held.CompareAndSwap(false, true) {
			c.Fake.KeepControl()
			return nil, nil, false
		}
		c.Fake.SleepControl(func() {
			_, fenceErr = initTxn(testkit.Ctx(t), c.Admin().Kgo, g, txnOpts(g))
		})
		return nil, nil, false
	})
	err := ExecuteResetTxn(testkit.Ctx(t), c.Admin(), &gp, txnOpts(g))
	if fenceErr != nil {
		t.Fatalf("the second InitProducerId failed: %v", fenceErr)
	}
	if err == nil || !strings.Contains(err.Error(), "another offsetctl took over transactional id") || !strings.Contains(err.Error(), "nothing changed for this group") {
		t.Fatalf("err = %v, want fenced", err)
	}
	if got := committedOn(c, g, topic); fmt.Sprint(got) != "map[0:1 1:2 2:3]" {
		t.Fatalf("committed = %v, want unchanged", got)
	}
}

// A commit made between the plan and the execution is a lost update in
// waiting: ExecuteResetTxn refuses with ChangedError and changes nothing.
func TestExecuteResetTxnChangedSincePlan(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(3, nil)
	c.Produce(topic, map[int32]int{0: 10, 1: 10, 2: 10}, time.Time{})
	g := testkit.Name(t, "g")
	c.Commit(g, topic, map[int32]int64{0: 1, 1: 2, 2: 3})
	gp := planLatest(t, c, g, topic)
	c.Commit(g, topic, map[int32]int64{1: 5, 2: 6})
	err := ExecuteResetTxn(testkit.Ctx(t), c.Admin(), &gp, txnOpts(g))
	var ce *ChangedError
	if !errors.As(err, &ce) || ce.N != 2 {
		t.Fatalf("err = %v, want ChangedError of 2 partitions", err)
	}
	want := fmt.Sprintf("group %s changed since the plan (2 partitions): run again to plan from the current offsets", g)
	if err.Error() != want || gp.Error != want {
		t.Fatalf("err = %q, gp.Error = %q, want %q", err, gp.Error, want)
	}
	if got := committedOn(c, g, topic); fmt.Sprint(got) != "map[0:1 1:5 2:6]" {
		t.Fatalf("committed = %v, want the other run's offsets untouched", got)
	}
}

// The answer to EndTxn is lost (the caller's deadline passes while the
// broker holds it). If the broker then commits, the resolution takes the id
// over, reads back and reports the commit; if the EndTxn never arrives, it
// reports the abort and the old offsets.
func TestExecuteResetTxnLostEndTxnAnswer(t *testing.T) {
	for _, arrives := range []bool{true, false} {
		t.Run(map[bool]string{true: "committed", false: "aborted"}[arrives], func(t *testing.T) {
			c, topic, g, gp := txnFixture(t)
			ctx, cancel := context.WithTimeout(testkit.Ctx(t), 3*time.Second)
			defer cancel()
			var held atomic.Bool
			c.Fake.ControlKey(int16(kmsg.EndTxn), func(req kmsg.Request) (kmsg.Response, error, bool) {
				if !req.(*kmsg.EndTxnRequest).Commit || !held.CompareAndSwap(false, true) {
					c.Fake.KeepControl()
					return nil, nil, false
				}
				c.Fake.SleepControl(func() { <-ctx.Done() })
				if !arrives {
					return nil, errors.New("dropped"), true
				}
				return nil, nil, false
			})
			err := ExecuteResetTxn(ctx, c.Admin(), &gp, txnOpts(g))
			got := committedOn(c, g, topic)
			if arrives {
				if err != nil || !strings.Contains(gp.Note, "read back: the transaction was committed") {
					t.Fatalf("err = %v, note = %q, want the commit found", err, gp.Note)
				}
				if got[0] != 10 || got[1] != 10 {
					t.Fatalf("committed = %v, want new", got)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), "the transaction was aborted, the group is entirely at its old offsets") {
				t.Fatalf("err = %v, want the abort found", err)
			}
			if got[0] != 3 || got[1] != 4 {
				t.Fatalf("committed = %v, want old", got)
			}
		})
	}
}

// The broker stops answering right after it answered EndTxn (commit): the
// read-back cannot confirm, but the commit is decided, and the error says
// the group is at its new offsets (never a bare deadline). The read-back
// gets the resolution's window of its own although the caller's deadline
// has passed by then.
func TestExecuteResetTxnReadBackFrozenAfterCommit(t *testing.T) {
	c, topic, g, gp := txnFixture(t)
	ctx, cancel := context.WithTimeout(testkit.Ctx(t), 3*time.Second)
	defer cancel()
	release := make(chan struct{})
	defer close(release)
	var fetches atomic.Int32
	c.Fake.ControlKey(int16(kmsg.OffsetFetch), func(req kmsg.Request) (kmsg.Response, error, bool) {
		r := req.(*kmsg.OffsetFetchRequest)
		// The first require_stable fetch is the re-read before staging;
		// the second is the read-back: held until the test ends.
		if !r.RequireStable || fetches.Add(1) != 2 {
			c.Fake.KeepControl()
			return nil, nil, false
		}
		c.Fake.SleepControl(func() { <-release })
		return nil, errors.New("dropped"), true
	})
	o := txnOpts(g)
	o.Resolve = 2 * time.Second
	start := time.Now()
	err := ExecuteResetTxn(ctx, c.Admin(), &gp, o)
	if err == nil || !strings.Contains(err.Error(), "the transaction was committed (the coordinator acknowledged the commit), so the group is entirely at its new offsets") ||
		!strings.Contains(err.Error(), "check with: offsetctl lag "+g) {
		t.Fatalf("err = %v, want the commit named", err)
	}
	if d := time.Since(start); d > 3*time.Second+o.Resolve+2*time.Second {
		t.Fatalf("took %s: the read-back window is not bounded", d)
	}
	if got := committedOn(c, g, topic); got[0] != 10 || got[1] != 10 {
		t.Fatalf("committed = %v, want new", got)
	}
}

// The EndTxn answer is lost and the cluster does not answer the takeover
// within the resolution window either: the run says plainly that it could
// not tell, that the group is all old or all new, and what to run to see
// which.
func TestExecuteResetTxnLostEndTxnUndetermined(t *testing.T) {
	c, topic, g, gp := txnFixture(t)
	ctx, cancel := context.WithTimeout(testkit.Ctx(t), 3*time.Second)
	defer cancel()
	release := make(chan struct{})
	var inits atomic.Int32
	c.Fake.ControlKey(int16(kmsg.EndTxn), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.Fake.SleepControl(func() { <-ctx.Done() })
		return nil, errors.New("dropped"), true
	})
	c.Fake.ControlKey(int16(kmsg.InitProducerID), func(req kmsg.Request) (kmsg.Response, error, bool) {
		// The first takes the id; the second is the resolution's.
		if inits.Add(1) != 2 {
			c.Fake.KeepControl()
			return nil, nil, false
		}
		c.Fake.SleepControl(func() { <-release })
		return nil, errors.New("dropped"), true
	})
	o := txnOpts(g)
	o.Resolve = 2 * time.Second
	err := ExecuteResetTxn(ctx, c.Admin(), &gp, o)
	close(release)
	want := "offsetctl could not tell whether the transaction was committed: the group is either all at its old or all at its new offsets, never mixed; run `offsetctl lag " + g + "` to see which"
	if err == nil || !strings.Contains(err.Error(), want) || gp.Error != err.Error() {
		t.Fatalf("err = %v, want %q", err, want)
	}
	if got := committedOn(c, g, topic); got[0] != 3 || got[1] != 4 {
		t.Fatalf("committed = %v, want old (the commit never reached the coordinator)", got)
	}
}

// The broker stops answering at the re-read before staging: the run ends
// on the deadline and says that nothing changed (nothing was staged).
func TestExecuteResetTxnFrozenBeforeStaging(t *testing.T) {
	c, topic, g, gp := txnFixture(t)
	ctx, cancel := context.WithTimeout(testkit.Ctx(t), 2*time.Second)
	defer cancel()
	var held atomic.Bool
	c.Fake.ControlKey(int16(kmsg.OffsetFetch), func(req kmsg.Request) (kmsg.Response, error, bool) {
		if !req.(*kmsg.OffsetFetchRequest).RequireStable || !held.CompareAndSwap(false, true) {
			c.Fake.KeepControl()
			return nil, nil, false
		}
		c.Fake.SleepControl(func() { <-ctx.Done() })
		return nil, errors.New("dropped"), true
	})
	err := ExecuteResetTxn(ctx, c.Admin(), &gp, txnOpts(g))
	if err == nil || !strings.Contains(err.Error(), "re-reading the committed offsets before committing") || !strings.HasSuffix(err.Error(), "nothing was staged: nothing changed for this group") {
		t.Fatalf("err = %v, want the deadline and that nothing changed", err)
	}
	if got := committedOn(c, g, topic); got[0] != 3 || got[1] != 4 {
		t.Fatalf("committed = %v, want old", got)
	}
}

// takenOver, on kfake and on Apache Kafka 4.4: after this run's
// EndTxn(commit), and after the commit has completed, the id is still this
// run's (EndTxn v5 bumps the epoch and says to which: that is not a
// takeover); once another run's InitProducerId has taken the id, it is
// taken over.
func TestTakenOverAfterCommit(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(1, nil)
	c.Produce(topic, map[int32]int{0: 5}, time.Time{})
	g := testkit.Name(t, "g")
	adm := c.Admin()
	ctx := testkit.Ctx(t)
	tx, err := initTxn(ctx, adm.Kgo, g, txnOpts(g))
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.addOffsets(ctx, g); err != nil {
		t.Fatal(err)
	}
	os := kadm.Offsets{}
	os.Add(kadm.Offset{Topic: topic, Partition: 0, At: 3, LeaderEpoch: -1})
	ids, err := topicIDs(ctx, adm, os)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := tx.commitBatch(ctx, g, os, ids)
	if err == nil {
		err = resp.Error()
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.end(ctx, true); err != nil {
		t.Fatal(err)
	}
	if over, err := takenOver(ctx, adm, tx); over || err != nil {
		t.Fatalf("taken over right after its own commit (%v)", err)
	}
	// The read-back may come after the markers: the epoch must not move
	// when the commit completes (Apache Kafka: CompleteCommit; kfake
	// goes straight back to Empty).
	deadline := time.Now().Add(30 * time.Second)
	for {
		d, err := adm.DescribeTransactions(ctx, tx.id)
		if err == nil && d[tx.id].Err == nil && (d[tx.id].State == "CompleteCommit" || d[tx.id].State == "Empty") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the commit did not complete within 30s: %+v %v", d, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if over, err := takenOver(ctx, adm, tx); over || err != nil {
		t.Fatalf("taken over once its own commit completed (%v)", err)
	}
	if got := committedOn(c, g, topic); got[0] != 3 {
		t.Fatalf("committed = %v, want 3", got)
	}
	if _, err := initTxn(ctx, adm.Kgo, g, txnOpts(g)); err != nil {
		t.Fatal(err)
	}
	if over, err := takenOver(ctx, adm, tx); !over || err != nil {
		t.Fatalf("not taken over after another run's InitProducerId (%v)", err)
	}
}

// A plain commit from outside (a consumer, another tool: no takeover of
// the transactional id) lands between EndTxn and the read-back: the
// read-back still flags every partition it changed.
func TestExecuteResetTxnReadBackOtherWriter(t *testing.T) {
	c, topic, g, gp := txnFixture(t)
	var fetches atomic.Int32
	c.Fake.ControlKey(int16(kmsg.OffsetFetch), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.Fake.KeepControl()
		// The second require_stable fetch is the read-back.
		if req.(*kmsg.OffsetFetchRequest).RequireStable && fetches.Add(1) == 2 {
			c.Fake.SleepControl(func() { c.Commit(g, topic, map[int32]int64{0: 9}) })
		}
		return nil, nil, false
	})
	// A resolve window shorter than markerWait: the read-back waits half
	// of it for the offsets to turn into the plan's, and its last fetch
	// still answers within it (it failed on the deadline when the wait
	// took the whole window).
	o := txnOpts(g)
	o.Resolve = 4 * time.Second
	start := time.Now()
	if err := ExecuteResetTxn(testkit.Ctx(t), c.Admin(), &gp, o); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > o.Resolve*3/4 {
		t.Errorf("took %v: the read-back waited more than half the resolve window %v", d, o.Resolve)
	}
	var errs []string
	for _, pp := range gp.Partitions {
		errs = append(errs, fmt.Sprintf("%d:%s", pp.Partition, pp.Error))
	}
	if got := strings.Join(errs, ","); got != "0:verify: committed 9, planned 10 (did a consumer commit meanwhile?),1:" || gp.Note != "" {
		t.Fatalf("partition errors %q, note %q: want partition 0's mismatch flagged, no note", got, gp.Note)
	}
	// Committed, but not read back as planned: not applied.
	if !gp.Executed || gp.Outcome != OutcomeUnverified {
		t.Fatalf("executed %v, outcome %q: want executed, %q", gp.Executed, gp.Outcome, OutcomeUnverified)
	}
}

// verifiedOutcome: only an applied group with a "verify: " partition error
// becomes unverified; a refused commit, a partly or failed group keep
// their outcome.
func TestVerifiedOutcome(t *testing.T) {
	for _, tc := range []struct {
		outcome string
		errs    []string
		want    string
	}{
		{OutcomeApplied, []string{"", ""}, OutcomeApplied},
		{OutcomeApplied, []string{"", "verify: no commit found, planned 0"}, OutcomeUnverified},
		{OutcomeApplied, []string{"verify: committed 9, planned 10 (did a consumer commit meanwhile?)"}, OutcomeUnverified},
		{OutcomeApplied, []string{"commit: NOT_COORDINATOR"}, OutcomeApplied},
		{OutcomePartly, []string{"commit: x", "verify: no commit found, planned 0"}, OutcomePartly},
		{OutcomeFailed, []string{"verify: no commit found, planned 0"}, OutcomeFailed},
		{OutcomeUnknown, []string{"verify: no commit found, planned 0"}, OutcomeUnknown},
	} {
		gp := GroupPlan{Outcome: tc.outcome}
		for _, e := range tc.errs {
			gp.Partitions = append(gp.Partitions, PartitionPlan{Error: e})
		}
		if got := verifiedOutcome(&gp); got != tc.want {
			t.Errorf("verifiedOutcome(%s, %q) = %s, want %s", tc.outcome, tc.errs, got, tc.want)
		}
	}
}

// TestTopicIDsFromCache: the ids of the transaction's topics are the
// cluster's, a topic the cluster does not have is left out (its commit
// is then refused by the broker, and the transaction aborted), and once
// the gather has looked the topics up no Metadata request is sent again,
// even after the client's MetadataMinAge (250 ms): it was a request of
// every partition, 260 KB for 10,000.
func TestTopicIDsFromCache(t *testing.T) {
	c := kfakeOnly(t)
	a, b := c.Topic(3, nil), c.Topic(2, nil)
	adm := c.Admin()
	ctx := testkit.Ctx(t)
	want, err := adm.ListTopics(ctx, a, b)
	if err != nil {
		t.Fatal(err)
	}
	os := kadm.Offsets{}
	os.Add(kadm.Offset{Topic: a, Partition: 2, At: 1})
	os.Add(kadm.Offset{Topic: b, Partition: 0, At: 1})
	var metadata atomic.Int32
	c.Fake.ControlKey(int16(kmsg.Metadata), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.Fake.KeepControl()
		metadata.Add(1)
		return nil, nil, false
	})
	time.Sleep(300 * time.Millisecond)
	ids, err := topicIDs(ctx, adm, os)
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != 2 || ids[a] != want[a].ID || ids[b] != want[b].ID || ids[a] == ([16]byte{}) {
		t.Fatalf("ids %v, want %s=%v %s=%v", ids, a, want[a].ID, b, want[b].ID)
	}
	if n := metadata.Load(); n != 0 {
		t.Fatalf("%d Metadata requests for topics the client had looked up, want 0", n)
	}
	os.Add(kadm.Offset{Topic: "no-such-topic", Partition: 0, At: 1})
	ids, err = topicIDs(ctx, adm, os)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := ids["no-such-topic"]; ok || len(ids) != 2 || metadata.Load() == 0 {
		t.Fatalf("with an unknown topic: ids %v after %d Metadata requests, want the two known and a request", ids, metadata.Load())
	}
}

// TestLiveNowWhateverThePlannedType: the live check right before EndTxn
// describes the group as the type the plan saw, and a group that has
// another type by then (a KIP-848 consumer joined an empty classic
// group, or the other way round), or none, is still found live through
// the listing: the check is never weaker than listing every group. On
// kfake and, with KAFKA_BROKERS, on Apache Kafka.
func TestLiveNowWhateverThePlannedType(t *testing.T) {
	for _, tc := range []struct {
		name      string
		kip848    bool
		planned   string
		fast      bool // describeAsPlanned answers on its own
		either    bool // fast or not: kfake describes a KIP-848 group with DescribeGroups (Stable, no members), Apache answers GROUP_ID_NOT_FOUND
		wantLive  bool
		noMembers bool
	}{
		{name: "classic live, planned classic", planned: "classic", fast: true, wantLive: true},
		{name: "classic live, planned consumer", planned: "consumer", wantLive: true},
		{name: "classic live, planned unknown", planned: "", wantLive: true},
		{name: "848 live, planned consumer", kip848: true, planned: "consumer", fast: true, wantLive: true},
		{name: "848 live, planned classic", kip848: true, planned: "classic", either: true, wantLive: true},
		{name: "classic empty, planned classic", planned: "classic", fast: true, noMembers: true},
		{name: "no such group, planned classic", planned: "classic", noMembers: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := testkit.New(t)
			topic := c.Topic(2, nil)
			c.Produce(topic, map[int32]int{0: 3, 1: 3}, time.Time{})
			g := testkit.Name(t, "g")
			adm := c.Admin()
			ctx := testkit.Ctx(t)
			switch {
			case !tc.noMembers:
				c.Consumer(g, topic, tc.kip848)
			case tc.fast:
				c.Commit(g, topic, map[int32]int64{0: 1, 1: 1})
			}
			gi, fast := describeAsPlanned(ctx, adm, g, tc.planned)
			t.Logf("described as %q: %+v", tc.planned, gi)
			if fast != tc.fast && !tc.either {
				t.Errorf("describeAsPlanned answered on its own: %v, want %v", fast, tc.fast)
			}
			live, err := liveNow(ctx, adm, g, tc.planned)
			if err != nil {
				t.Fatal(err)
			}
			if (live != "") != tc.wantLive {
				t.Fatalf("live reason %q, want live %v", live, tc.wantLive)
			}
		})
	}
}

// The check command an error prints starts as the change's command line
// did (its connection flags), and holds the group as one shell word that
// cannot be read as a flag.
func TestLagCommand(t *testing.T) {
	for _, c := range []struct{ prog, group, want string }{
		{"", "orders", "offsetctl lag orders"},
		{"offsetctl --profile dr", "orders", "offsetctl --profile dr lag orders"},
		{"offsetctl", "-billing", "offsetctl lag --group=-billing"},
		{"offsetctl", "bill ing$(x)", `offsetctl lag 'bill ing$(x)'`},
		{"offsetctl", "evil\x1b[2K", `offsetctl lag $'evil\x1b[2K'`},
	} {
		if got := (TxnOptions{Prog: c.prog}).lagCommand(c.group); got != c.want {
			t.Errorf("%q %q: %s, want %s", c.prog, c.group, got, c.want)
		}
	}
}
