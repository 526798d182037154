package admin

import (
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

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
			scope, _ := ParseScope([]string{topic})
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
