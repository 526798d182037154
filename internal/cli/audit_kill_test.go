package cli

// The write-ahead trail across kill -9 (issue 21): a child offsetctl
// killed at every request kind of a reset --execute of 10,000 partitions.
// Every run whose change reached the broker has an entry (its intent, read
// as unknown, or its outcome), and undo of that entry restores the group
// exactly.

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/offsetctl/offsetctl/internal/admin"
	"github.com/offsetctl/offsetctl/internal/audit"
	"github.com/offsetctl/offsetctl/internal/testkit"
)

// killSweep is one group reset again and again from old (1) to 2 by a
// child killed at a point, with one audit log.
type killSweep struct {
	c     *testkit.Cluster
	bg    bigGroup
	group string
	log   string
	dir   string
	runs  int
	seen  map[string]bool
	// reached counts the points the child reached; changed those where
	// the change reached the broker.
	reached, changed int
}

func (s *killSweep) args() []string {
	s.runs++
	return append(append([]string{"--audit-log", s.log, "reset", s.group, "--to", "2", "--execute",
		"--backup", filepath.Join(s.dir, fmt.Sprintf("b%d.csv", s.runs))}, s.bg.scope()...), "--timeout", "40s")
}

// entries returns the joined entries of the log not seen before, and
// marks them seen.
func (s *killSweep) entries(t *testing.T) []audit.Entry {
	t.Helper()
	raw, err := audit.ReadFile(s.log)
	if err != nil {
		t.Fatal(err)
	}
	var out []audit.Entry
	for _, e := range audit.Join(raw) {
		if !s.seen[e.ID] {
			s.seen[e.ID] = true
			out = append(out, e)
		}
	}
	return out
}

// after checks the state a killed run left. It first takes the
// transactional id over, as the next run would: that aborts the dead
// run's open transaction, or waits until its commit has completed, so the
// group's offsets are final. The group is all old or all new (want, when
// known). New means the change reached the broker: the run must have an
// entry, applied or unknown, and undo of it must bring every partition
// back to old. Old: an entry, if any, is not applied, and --verify of an
// unknown one says so.
func (s *killSweep) after(t *testing.T, name, want string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	adm := s.c.Admin()
	defer adm.Close()
	if err := admin.CheckTxnAllowed(ctx, adm, s.group, admin.TxnOptions{ID: admin.TxnID(admin.DefaultTxnIDPrefix, s.group), Timeout: time.Minute}); err != nil {
		t.Fatalf("%s: taking the id over: %v", name, err)
	}
	st := s.bg.state(t, s.c, s.group, 2)
	if st != "old" && st != "new" || want != "" && st != want {
		t.Fatalf("%s: group %s after the kill: %s, want %s", name, s.group, st, map[bool]string{true: "old or new", false: want}[want == ""])
	}
	es := s.entries(t)
	if len(es) > 1 || len(es) == 1 && (es[0].Action != audit.ActReset || es[0].Groups[0] != s.group) {
		t.Fatalf("%s: new entries: %+v", name, es)
	}
	switch {
	case st == "new":
		s.changed++
		if len(es) == 0 {
			t.Fatalf("%s: the change reached the broker and the run left no audit entry", name)
		}
		e := es[0]
		if e.Outcome != audit.Applied && e.Outcome != audit.Unknown {
			t.Fatalf("%s: the group moved but its entry says %s", name, e.Outcome)
		}
		mustRun(t, s.c, 0, "--audit-log", s.log, "undo", e.ID, "--execute", "--backup", filepath.Join(s.dir, fmt.Sprintf("u%d.csv", s.runs)), "--timeout", "20s")
		if st := s.bg.state(t, s.c, s.group, 2); st != "old" {
			t.Fatalf("%s: undo %s (%s) left %s", name, e.ID, e.Outcome, st)
		}
		s.entries(t) // the undo's
		t.Logf("%s: new, entry %s %s, undone", name, e.ID, e.Outcome)
	case len(es) == 1 && es[0].Outcome == audit.Applied:
		t.Fatalf("%s: the group is old but its entry says applied", name)
	case len(es) == 1 && es[0].Outcome == audit.Unknown:
		v := mustRun(t, s.c, 0, "--audit-log", s.log, "history", "--verify", es[0].ID)
		if !strings.Contains(v.stderr, "it is not applied") {
			t.Fatalf("%s: --verify of an unknown change that did not land:\n%s", name, v.stderr)
		}
		t.Logf("%s: old, entry %s unknown, --verify says not applied", name, es[0].ID)
	default:
		t.Logf("%s: old, %d entries", name, len(es))
	}
}

// auditKillSweep (TestResetTxnKillNine/audit, on its topics: creating
// 10,000 partitions again would cost Apache Kafka minutes): kill -9 at
// every request kind of a reset of 10,000 partitions (10 topics of 1,000
// with names over 120 characters, several TxnOffsetCommits). On Apache
// Kafka each point is a request written or answered in the child's
// --verbose log (27 points); on kfake a request held by kfake, dropped or
// processed (18 points, each outcome known exactly).
func auditKillSweep(t *testing.T, c *testkit.Cluster, bg bigGroup) {
	s := &killSweep{c: c, bg: bg, group: testkit.Name(t, "g"), dir: t.TempDir(), seen: map[string]bool{}}
	s.log = filepath.Join(s.dir, "audit.jsonl")
	s.bg.commitOld(t, c, s.group)
	start := time.Now()
	if c.Fake == nil {
		s.sweepLog(t)
	} else {
		s.sweepFake(t)
	}
	t.Logf("%d kill points reached, %d of them after the change reached the broker (each undone from its entry), in %s", s.reached, s.changed, time.Since(start).Round(time.Second))
}

// sweepLog kills the child at 27 points of its --verbose log (Apache
// Kafka): every request kind a reset sends, as written and as answered.
func (s *killSweep) sweepLog(t *testing.T) {
	const (
		staged = "read AddOffsetsToTxn"
		tc     = "read TxnOffsetCommit"
		init2  = "read InitProducerID"
	)
	points := [][]string{
		{"wrote DescribeGroups"}, {"read DescribeGroups"},
		{"wrote OffsetFetch"}, {"read OffsetFetch"},
		{"wrote ListOffsets"}, {"read ListOffsets"},
		{"wrote InitProducerID"}, {"read InitProducerID"},
		{init2, "wrote InitProducerID"}, {init2, "read InitProducerID"},
		{init2, init2, "wrote OffsetFetch"}, {init2, init2, "read OffsetFetch"},
		{"wrote AddOffsetsToTxn"}, {staged},
		{"wrote TxnOffsetCommit"}, {tc},
		{tc, "wrote TxnOffsetCommit"}, {tc, tc},
		{tc, tc, "wrote TxnOffsetCommit"}, {tc, tc, tc},
		{staged, tc, "wrote DescribeGroups"}, {staged, tc, "read DescribeGroups"},
		{"wrote EndTxn"}, {"read EndTxn"},
		{"read EndTxn", "wrote OffsetFetch"}, {"read EndTxn", "read OffsetFetch"},
		{"read EndTxn", "read OffsetFetch", "read OffsetFetch"},
	}
	for _, steps := range points {
		err, reached, _ := childAtLog(t, s.c, s.args(), steps, func(cmd *exec.Cmd) { _ = cmd.Process.Kill() })
		name := strings.Join(steps, " > ")
		if !reached {
			// A request the run did not send this time (it ended first,
			// its change made and recorded): after takes its entry and
			// undoes it, as for a run killed after its change.
			t.Logf("%s: not reached (%v)", name, err)
			s.after(t, name, "")
			continue
		}
		s.reached++
		s.after(t, name, "")
	}
	if s.reached < len(points)-1 {
		t.Fatalf("only %d of %d kill points reached", s.reached, len(points))
	}
}

// sweepFake kills the child when kfake gets the nth request of a kind
// for the group, which it then drops or processes.
func (s *killSweep) sweepFake(t *testing.T) {
	var points []killPoint
	for _, p := range []struct {
		name   string
		key    kmsg.Key
		nth    int
		stable bool
		want   string // if processed
		// dropNew: dropped, the group is new too (after EndTxn)
		dropNew bool
	}{
		{"gather DescribeGroups", kmsg.DescribeGroups, 1, false, "old", false},
		{"gather ListOffsets", kmsg.ListOffsets, 1, false, "old", false},
		{"check InitProducerId", kmsg.InitProducerID, 1, false, "old", false},
		{"InitProducerId", kmsg.InitProducerID, 2, false, "old", false},
		{"re-read before staging", kmsg.OffsetFetch, 1, true, "old", false},
		{"AddOffsetsToTxn", kmsg.AddOffsetsToTxn, 1, false, "old", false},
		{"TxnOffsetCommit 2", kmsg.TxnOffsetCommit, 2, false, "old", false},
		{"EndTxn", kmsg.EndTxn, 1, false, "new", false},
		{"read-back", kmsg.OffsetFetch, 2, true, "new", true},
	} {
		for _, process := range []bool{false, true} {
			want := "old"
			if process || p.dropNew {
				want = p.want
			}
			points = append(points, killPoint{name: fmt.Sprintf("%s %s", p.name, map[bool]string{true: "processed", false: "dropped"}[process]),
				key: p.key, nth: p.nth, stable: p.stable, process: process, want: want})
		}
	}
	for _, pt := range points {
		var seen atomic.Int32
		var hit, over atomic.Bool
		var cmd *exec.Cmd
		var mu sync.Mutex
		s.c.Fake.ControlKey(int16(pt.key), func(req kmsg.Request) (kmsg.Response, error, bool) {
			g, ok := requestGroup(req)
			if over.Load() || !ok || (g != "" && g != s.group) || (pt.key == kmsg.OffsetFetch && pt.stable != ok) {
				if !over.Load() {
					s.c.Fake.KeepControl()
				}
				return nil, nil, false
			}
			if int(seen.Add(1)) < pt.nth {
				s.c.Fake.KeepControl()
				return nil, nil, false
			}
			hit.Store(true)
			over.Store(true)
			mu.Lock()
			_ = cmd.Process.Kill()
			mu.Unlock()
			if pt.process {
				return nil, nil, false
			}
			return nil, fmt.Errorf("killed"), true
		})
		mu.Lock()
		var done <-chan error
		cmd, _, done = child(t, s.c, s.args()...)
		mu.Unlock()
		err := <-done
		over.Store(true)
		if !hit.Load() {
			t.Fatalf("%s: the child never reached it: %v", pt.name, err)
		}
		s.reached++
		s.after(t, pt.name, pt.want)
	}
}
