package cli

// Many groups changed at once (issue 27): reset --execute runs the groups'
// transactions concurrently (--parallel-groups) with the guarantees of one
// group each: a group that turns live is refused alone and named while the
// others change, kill -9 mid-run leaves every group either before or
// planned, and concurrent runs lose no update. On kfake, and on Apache
// Kafka with KAFKA_BROKERS.

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/offsetctl/offsetctl/internal/admin"
	"github.com/offsetctl/offsetctl/internal/audit"
	"github.com/offsetctl/offsetctl/internal/testkit"
)

// fleet is n groups, each committed at offset 1 on every partition of one
// topic whose partitions hold 5 records.
type fleet struct {
	topic  string
	prefix string
	groups []string
	parts  int32
}

func newFleet(t *testing.T, c *testkit.Cluster, n int, parts int32) fleet {
	t.Helper()
	f := fleet{topic: c.Topic(parts, nil), prefix: testkit.Name(t, "fl"), parts: parts}
	per := map[int32]int{}
	at := map[int32]int64{}
	for p := int32(0); p < parts; p++ {
		per[p], at[p] = 5, 1
	}
	c.Produce(f.topic, per, time.Time{})
	for i := 0; i < n; i++ {
		g := fmt.Sprintf("%s-%02d", f.prefix, i)
		f.groups = append(f.groups, g)
		c.Commit(g, f.topic, at)
	}
	return f
}

// at says whether group's every partition is at v, or how it is mixed.
func (f fleet) at(t *testing.T, c *testkit.Cluster, group string, v int64) (bool, string) {
	t.Helper()
	got := c.Committed(group)[f.topic]
	n := 0
	for p := int32(0); p < f.parts; p++ {
		if o, ok := got[p]; ok && o == v {
			n++
		}
	}
	return n == int(f.parts), fmt.Sprintf("%d of %d partitions at %d (%v)", n, f.parts, v, got)
}

// allOldOrNew fails unless group is entirely at old or entirely at new.
func (f fleet) allOldOrNew(t *testing.T, c *testkit.Cluster, group string, old, new int64) string {
	t.Helper()
	if ok, _ := f.at(t, c, group, old); ok {
		return "old"
	}
	if ok, _ := f.at(t, c, group, new); ok {
		return "new"
	}
	_, says := f.at(t, c, group, new)
	t.Fatalf("group %s is mixed: %s", group, says)
	return ""
}

// TestResetFleetLiveGroupRefusedAlone: 12 groups reset at once, 4 in
// flight; one of them gets a consumer while its transaction is open. Its
// check before EndTxn aborts its transaction alone: it is named on
// stderr and in the JSON, it keeps its offsets, and the 11 others are
// changed and verified (exit 1: a partial failure). On Apache Kafka, where
// the request cannot be held, the consumer joins before the run: the
// --regex selection skips that group, names it, and changes the others
// (exit 1 too: that group was not reset).
func TestResetFleetLiveGroupRefusedAlone(t *testing.T) {
	c := testkit.New(t)
	f := newFleet(t, c, 12, 4)
	live := f.groups[5]
	if c.Fake == nil {
		stop := c.Consumer(live, f.topic, false, kgo.DisableAutoCommit())
		defer stop()
		r := mustRun(t, c, 1, "reset", "-r", f.prefix+"-.*", "--all-topics", "--to", "latest", "--execute", "--parallel-groups", "4", "--backup", filepath.Join(t.TempDir(), "b.csv"))
		if !strings.Contains(lastLine(r.stderr), "1 group skipped as live, not reset: "+live) {
			t.Fatalf("the live group %s is not named last:\n%s", live, r.stderr)
		}
		for _, g := range f.groups {
			if g == live {
				continue
			}
			if ok, says := f.at(t, c, g, 5); !ok {
				t.Fatalf("group %s: %s", g, says)
			}
		}
		return
	}
	var held atomic.Bool
	var stopConsumer func()
	joined := make(chan struct{})
	c.Fake.ControlKey(int16(kmsg.TxnOffsetCommit), func(req kmsg.Request) (kmsg.Response, error, bool) {
		if req.(*kmsg.TxnOffsetCommitRequest).Group != live || !held.CompareAndSwap(false, true) {
			c.Fake.KeepControl()
			return nil, nil, false
		}
		// Hold the live group's staging until a consumer has joined it;
		// the other groups' requests are served meanwhile.
		c.Fake.SleepControl(func() {
			defer close(joined)
			stopConsumer = c.Consumer(live, f.topic, false, kgo.DisableAutoCommit())
		})
		return nil, nil, false
	})
	args := append([]string{"reset"}, f.groups...)
	r := mustRun(t, c, 1, append(args, "--all-topics", "--to", "latest", "--execute", "--parallel-groups", "4", "-o", "json", "--backup", filepath.Join(t.TempDir(), "b.csv"), "--timeout", "30s")...)
	<-joined
	defer stopConsumer()
	if !held.Load() {
		t.Fatal("the live group's TxnOffsetCommit never reached the broker")
	}
	if !strings.Contains(r.stderr, "group "+live+" ") || !strings.Contains(r.stderr, "became active") {
		t.Fatalf("stderr does not name the live group %s as refused:\n%s", live, r.stderr)
	}
	var plans []admin.GroupPlan
	if err := json.Unmarshal([]byte(r.stdout), &plans); err != nil {
		t.Fatalf("JSON: %v\n%s", err, r.stdout)
	}
	if len(plans) != len(f.groups) {
		t.Fatalf("%d groups in the JSON, want %d", len(plans), len(f.groups))
	}
	for i, gp := range plans {
		// Reported in plan order, whatever order they finished in.
		if gp.Group != f.groups[i] {
			t.Fatalf("JSON group %d is %s, want %s (plan order)", i, gp.Group, f.groups[i])
		}
		want, wantOut := int64(5), admin.OutcomeApplied
		if gp.Group == live {
			want, wantOut = 1, admin.OutcomeFailed
			if !strings.Contains(gp.Error, "became active") {
				t.Errorf("live group's error: %q", gp.Error)
			}
		} else if gp.Error != "" {
			t.Errorf("group %s failed too: %s", gp.Group, gp.Error)
		}
		if gp.Outcome != wantOut {
			t.Errorf("group %s outcome %q, want %q", gp.Group, gp.Outcome, wantOut)
		}
		if ok, says := f.at(t, c, gp.Group, want); !ok {
			t.Errorf("group %s: %s", gp.Group, says)
		}
	}
}

// TestResetFleetKillNine: a child offsetctl resetting 10 groups, 4 in
// flight, is killed with SIGKILL right after it has sent its nth EndTxn
// (n = 1, 4, 8; read from its --verbose log, so it works on both
// clusters). Once each transactional id is taken over (as the next run
// would: that completes a decided commit or aborts an open transaction),
// every group is entirely before or entirely planned (how many of each is
// logged: whether the nth EndTxn landed is a race); the run's audit intent
// reads unknown and names every group, and undo of it puts every group
// back; and the next run over the same groups, with a --timeout below the
// dead run's transaction timeout, changes every one of them at once.
func TestResetFleetKillNine(t *testing.T) {
	c := testkit.New(t)
	for _, n := range []int{1, 4, 8} {
		t.Run(fmt.Sprintf("after EndTxn %d", n), func(t *testing.T) {
			f := newFleet(t, c, 10, 3)
			log := filepath.Join(t.TempDir(), "audit.jsonl")
			args := []string{"--audit-log", log, "reset", "-r", f.prefix + "-.*", "--all-topics", "--to", "latest", "--execute", "--parallel-groups", "4", "--backup", filepath.Join(t.TempDir(), "b.csv"), "--timeout", "40s"}
			steps := make([]string, n)
			for i := range steps {
				steps[i] = "wrote EndTxn"
			}
			// The child freezes right after the line the kill is for:
			// without that, at n=8 of 10 groups it sometimes finished
			// the run before the signal landed.
			stall := fmt.Sprintf("%s=%d|[DEBUG] wrote EndTxn ", stallEnv, n)
			err, reached, stderr, _ := childAtLogOut(t, c, args, steps, func(cmd *exec.Cmd) { _ = cmd.Process.Kill() }, stall)
			if !reached {
				t.Fatalf("the child never sent EndTxn %d: %v\n%s", n, err, stderr)
			}
			settle(t, c, f.groups)
			counts := map[string]int{}
			for _, g := range f.groups {
				counts[f.allOldOrNew(t, c, g, 1, 5)]++
			}
			t.Logf("killed after EndTxn %d: %d groups before, %d planned", n, counts["old"], counts["new"])
			// The run's intent, written before its first group started,
			// is on the record without an outcome: unknown, naming every
			// group, and undo of it puts every group back before.
			es := historyOf(t, "--audit-log", log)
			if len(es) != 1 || es[0].Outcome != audit.Unknown || len(es[0].Groups) != len(f.groups) {
				t.Fatalf("audit after the kill: %+v", es)
			}
			mustRun(t, c, 0, "--audit-log", log, "undo", es[0].ID, "--execute", "--backup", filepath.Join(t.TempDir(), "u.csv"), "--timeout", "20s")
			for _, g := range f.groups {
				if ok, says := f.at(t, c, g, 1); !ok {
					t.Fatalf("after undo %s, group %s: %s", es[0].ID, g, says)
				}
			}
			mustRun(t, c, 0, "reset", "-r", f.prefix+"-.*", "--all-topics", "--to", "earliest", "--execute", "--backup", filepath.Join(t.TempDir(), "next.csv"), "--timeout", "20s")
			for _, g := range f.groups {
				if ok, says := f.at(t, c, g, 0); !ok {
					t.Fatalf("after the next run, group %s: %s", g, says)
				}
			}
		})
	}
}

// TestResetFleetConcurrentRunsLoseNoUpdate: three runs over the same 8
// groups at once, each moving every offset by +1 from what it planned
// with. A run that commits over another's change would lose an update;
// fencing and the re-read before staging refuse it instead. So each
// group's final offset is its first one plus the number of runs that
// report it applied, and every run's failures are ChangedError or fenced
// transactions, never a mixed group.
func TestResetFleetConcurrentRunsLoseNoUpdate(t *testing.T) {
	c := testkit.New(t)
	f := newFleet(t, c, 8, 3)
	const runs = 3
	outs := make([]result, runs)
	var wg sync.WaitGroup
	for i := 0; i < runs; i++ {
		wg.Go(func() {
			outs[i] = offsetctl(t, c, "reset", "-r", f.prefix+"-.*", "--all-topics", "--to", "shift:+1", "--execute", "--parallel-groups", "4", "-o", "json", "--backup", filepath.Join(t.TempDir(), fmt.Sprintf("b%d.csv", i)), "--timeout", "40s")
		})
	}
	wg.Wait()
	applied := map[string]int{}
	for i, r := range outs {
		if r.code != 0 && r.code != 1 {
			t.Fatalf("run %d: exit %d\n%s", i, r.code, r.stderr)
		}
		var plans []admin.GroupPlan
		if err := json.Unmarshal([]byte(r.stdout), &plans); err != nil {
			t.Fatalf("run %d JSON: %v\n%s\n%s", i, err, r.stdout, r.stderr)
		}
		for _, gp := range plans {
			switch {
			case gp.Outcome == admin.OutcomeApplied && gp.Error == "":
				applied[gp.Group]++
			case strings.Contains(gp.Error, "changed since the plan") || strings.Contains(gp.Error, "nothing changed for this group"):
			default:
				t.Errorf("run %d group %s: outcome %q error %q", i, gp.Group, gp.Outcome, gp.Error)
			}
		}
	}
	total := 0
	for _, g := range f.groups {
		want := int64(1 + applied[g])
		if ok, says := f.at(t, c, g, want); !ok {
			t.Errorf("group %s: %d run(s) applied it, so want every partition at %d: %s (an update was lost)", g, applied[g], want, says)
		}
		total += applied[g]
	}
	if total < len(f.groups) {
		t.Errorf("only %d group changes applied over %d runs: every group should have been changed by at least one", total, runs)
	}
	t.Logf("%d group changes applied by %d concurrent runs over %d groups", total, runs, len(f.groups))
}

// settle takes each group's transactional id over, as the next run would,
// so that a killed run's transactions are completed or aborted and the
// committed offsets are final.
func settle(t *testing.T, c *testkit.Cluster, groups []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	adm := c.Admin()
	defer adm.Close()
	for _, g := range groups {
		if err := admin.CheckTxnAllowed(ctx, adm, g, admin.TxnOptions{ID: admin.TxnID(admin.DefaultTxnIDPrefix, g), Timeout: time.Minute}); err != nil {
			t.Fatalf("taking the id of %s over: %v", g, err)
		}
	}
}
