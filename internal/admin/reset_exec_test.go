package admin

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetctl/offsetctl/internal/lag"
	"github.com/offsetctl/offsetctl/internal/testkit"
)

// A consumer that joins between the guard's check and the commit makes the
// broker answer UNKNOWN_MEMBER_ID per partition: ExecuteReset reports it as
// that, in words, and commits nothing. The race is staged by planning while
// the group is empty and executing after a consumer joined.
func TestExecuteResetConsumerJoinedAfterCheck(t *testing.T) {
	for _, kip848 := range []bool{false, true} {
		name := "classic"
		if kip848 {
			name = "kip848"
		}
		t.Run(name, func(t *testing.T) {
			c := testkit.New(t)
			topic := c.Topic(2, nil)
			c.Produce(topic, map[int32]int{0: 10, 1: 10}, time.Time{})
			g := testkit.Name(t, "g")
			c.Commit(g, topic, map[int32]int64{0: 3, 1: 4})
			adm := c.Admin()
			ctx := testkit.Ctx(t)
			scope, _ := lag.ParseScope([]string{topic})
			in, err := GatherReset(ctx, adm, ResetRequest{Groups: []string{g}, Target: Target{Kind: ToLatest}, Scope: scope})
			if err != nil {
				t.Fatal(err)
			}
			plan, err := PlanReset(in)
			if err != nil {
				t.Fatal(err)
			}
			if len(plan.Refusals()) != 0 || len(plan.Groups[0].Partitions) != 2 {
				t.Fatalf("plan = %+v", plan)
			}
			c.Consumer(g, topic, kip848, kgo.DisableAutoCommit())
			gp := plan.Groups[0]
			if err := ExecuteReset(ctx, adm, &gp); err != nil {
				t.Fatalf("ExecuteReset: %v", err)
			}
			for _, pp := range gp.Partitions {
				if !strings.Contains(pp.Error, "UNKNOWN_MEMBER_ID: a consumer joined the group after the check") {
					t.Errorf("partition %d error = %q, want UNKNOWN_MEMBER_ID explained", pp.Partition, pp.Error)
				}
			}
			if errs := (Plan{Groups: []GroupPlan{gp}}).Errors(); len(errs) != 2 || !strings.Contains(errs[0], "group "+g+" topic "+topic+" partition 0") {
				t.Errorf("errors = %q, want one per partition naming it", errs)
			}
			got := c.Committed(g)[topic]
			if got[0] != 3 || got[1] != 4 {
				t.Errorf("committed = %v, want unchanged {0:3 1:4}", got)
			}
		})
	}
}

func TestSplitCommits(t *testing.T) {
	group := strings.Repeat("g", 38)
	os := kadm.Offsets{}
	for i := 0; i < 10; i++ {
		topic := fmt.Sprintf("%s-%02d", strings.Repeat("t", 42), i)
		for p := int32(0); p < 1000; p++ {
			os.AddOffset(topic, p, int64(p), -1)
		}
	}
	batches := splitCommits(group, os, commitBatchBytes)
	// 10,000 records of ~155 estimated bytes: two batches under 960 kB.
	if len(batches) != 2 {
		t.Fatalf("%d batches, want 2", len(batches))
	}
	seen := map[string]bool{}
	for _, b := range batches {
		if n := batchBytes(group, b); n > commitBatchBytes {
			t.Errorf("batch of %d estimated bytes over the limit", n)
		}
		b.Each(func(o kadm.Offset) {
			k := fmt.Sprintf("%s/%d", o.Topic, o.Partition)
			if seen[k] || o.At != int64(o.Partition) {
				t.Errorf("offset %s duplicated or changed: %+v", k, o)
			}
			seen[k] = true
		})
	}
	if len(seen) != 10000 {
		t.Errorf("%d offsets after splitting, want 10000", len(seen))
	}
	small := kadm.Offsets{}
	small.AddOffset("t", 0, 1, -1)
	if b := splitCommits("g", small, commitBatchBytes); len(b) != 1 || batchLen(b[0]) != 1 {
		t.Errorf("one offset: %v", b)
	}
	if b := splitCommits("g", kadm.Offsets{}, commitBatchBytes); len(b) != 0 {
		t.Errorf("no offsets: %v", b)
	}
	// A limit below one record still makes progress: one offset per batch.
	if b := splitCommits(group, os, 1); len(b) != 10000 {
		t.Errorf("limit 1: %d batches", len(b))
	}
}

// A delete larger than the batch limit is split into several
// OffsetDeletes (here one partition each) and every offset is gone.
func TestExecuteDeleteOffsetsInBatches(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(3, nil)
	c.Produce(topic, map[int32]int{0: 5, 1: 5, 2: 5}, time.Time{})
	g := testkit.Name(t, "g")
	c.Commit(g, topic, map[int32]int64{0: 1, 1: 2, 2: 3})
	adm := c.Admin()
	ctx := testkit.Ctx(t)
	scope, _ := lag.ParseScope([]string{topic})
	snap, err := lag.Gather(ctx, adm, lag.GatherRequest{Groups: []string{g}, Scope: scope, ExtraTopics: scope.TopicNames()})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := PlanDeleteOffsets(snap, g, scope)
	if err != nil {
		t.Fatal(err)
	}
	if err := executeDeleteOffsets(ctx, adm, &plan, 1); err != nil {
		t.Fatal(err)
	}
	if plan.DeleteRequests != 3 || !plan.Executed {
		t.Errorf("%d requests (executed %v), want 3", plan.DeleteRequests, plan.Executed)
	}
	for _, r := range plan.Partitions {
		if r.Status != "deleted" || r.Error != "" {
			t.Errorf("partition %d: %s %s", r.Partition, r.Status, r.Error)
		}
	}
	if got := c.Committed(g)[topic]; len(got) != 0 {
		t.Errorf("committed after the delete = %v", got)
	}
}

// commitSplit keeps every answer under the key it came in: kadm's answer
// to a partition not asked for holds the zero Offset (topic "", partition
// 0), which merged by its Offset collapsed every such answer into one.
func TestCommitSplitKeepsAnswerKeys(t *testing.T) {
	os := kadm.Offsets{}
	os.AddOffset("t", 0, 5, -1)
	os.AddOffset("t", 1, 5, -1)
	out, n, err := commitSplit("g", os, func(batch kadm.Offsets) (kadm.OffsetResponses, error) {
		return kadm.OffsetResponses{
			"t": {0: {Offset: kadm.Offset{Topic: "t", Partition: 0, At: 5}}, 7: {Err: kerr.UnknownTopicOrPartition}},
			"":  {1: {}, 2: {}},
		}, nil
	})
	if err != nil || n != 1 {
		t.Fatalf("n %d err %v", n, err)
	}
	if len(out["t"]) != 2 || len(out[""]) != 2 {
		t.Errorf("answers %v, want t/0 t/7 and two under no topic", out)
	}
	if _, ok := out.Lookup("t", 7); !ok {
		t.Errorf("t/7 lost: %v", out)
	}
}

// markApplied, after split commits failed part way: a partition of an
// answered batch the answer did not name (kadm's own error) is not known
// to be applied, and its error says so; refused ones and those never sent
// are not applied, the unanswered batch's maybe.
func TestMarkApplied(t *testing.T) {
	ten := int64(10)
	gp := &GroupPlan{Partitions: []PartitionPlan{
		{Topic: "t", Partition: 0, Target: &ten},
		{Topic: "t", Partition: 1, Target: &ten},
		{Topic: "t", Partition: 2, Target: &ten},
		{Topic: "t", Partition: 3, Target: &ten},
		{Topic: "t", Partition: 4, Target: &ten},
		{Topic: "t", Partition: 5, Action: ActDelete},
		{Topic: "t", Partition: 6, Action: ActSkip},
	}}
	resp := kadm.OffsetResponses{"t": {
		0: {Offset: kadm.Offset{Topic: "t", Partition: 0}},
		1: {Offset: kadm.Offset{Topic: "t", Partition: 1}, Err: kerr.UnknownMemberID},
		2: {Offset: kadm.Offset{Topic: "t", Partition: 2}, Err: errors.New("partition missing in commit response")},
	}}
	maybe := kadm.Offsets{}
	maybe.AddOffset("t", 3, 10, -1)
	applied, notNamedN := markApplied(gp, resp, maybe)
	if applied != 1 || notNamedN != 1 {
		t.Errorf("applied %d, not named %d, want 1 1", applied, notNamedN)
	}
	want := []struct{ applied, note, err string }{
		{"true", "applied", ""},
		{"false", "NOT applied", ""},
		{"nil", "NO ANSWER: maybe applied", "commit: the broker's answer did not name it: not known to be committed"},
		{"nil", "NO ANSWER: maybe applied", ""},
		{"false", "NOT applied", ""},
		{"false", "NOT applied", ""},
		{"nil", "", ""},
	}
	for i, pp := range gp.Partitions {
		if got := appliedWord(pp.Applied); got != want[i].applied || pp.Note != want[i].note || pp.Error != want[i].err {
			t.Errorf("partition %d: applied %s note %q error %q, want %+v", i, got, pp.Note, pp.Error, want[i])
		}
	}
}
