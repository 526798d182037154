package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetctl/offsetctl/internal/admin"
	"github.com/offsetctl/offsetctl/internal/audit"
	"github.com/offsetctl/offsetctl/internal/testkit"
)

// resetPlanOf runs `reset ... -o json` for one group and decodes the plan.
func resetPlanOf(t *testing.T, c *testkit.Cluster, want int, args ...string) (admin.GroupPlan, result) {
	t.Helper()
	r := mustRun(t, c, want, append([]string{"reset", "-o", "json"}, args...)...)
	var gp admin.GroupPlan
	decodeJSON(t, r, &gp)
	return gp, r
}

// committedOn is group's committed offsets on topic (partition → offset);
// empty for a group that does not exist.
func committedOn(t *testing.T, c *testkit.Cluster, group, topic string) map[int32]int64 {
	t.Helper()
	resp, err := c.Admin().FetchOffsets(testkit.Ctx(t), group)
	if errors.Is(err, kerr.GroupIDNotFound) {
		return map[int32]int64{}
	}
	if err != nil {
		t.Fatalf("fetching offsets of %s: %v", group, err)
	}
	got := map[int32]int64{}
	for p, o := range resp[topic] {
		if o.Err != nil {
			t.Fatalf("fetching offsets of %s %s/%d: %v", group, topic, p, o.Err)
		}
		if o.At >= 0 {
			got[p] = o.At
		}
	}
	return got
}

func assertCommitted(t *testing.T, c *testkit.Cluster, group, topic string, want map[int32]int64) {
	t.Helper()
	if got := committedOn(t, c, group, topic); !reflect.DeepEqual(got, want) {
		t.Fatalf("group %s committed on %s = %v, want %v", group, topic, got, want)
	}
}

// planTargets maps the plan's partitions of topic to their targets.
func planTargets(gp admin.GroupPlan, topic string) map[int32]int64 {
	out := map[int32]int64{}
	for _, pp := range gp.Partitions {
		if pp.Topic == topic && pp.Target != nil {
			out[pp.Partition] = *pp.Target
		}
	}
	return out
}

// resetFixture is a topic of three partitions with 10 records each whose
// timestamps are base+i ms, and a group committed at 4, 6 and nothing.
type resetFixture struct {
	c     *testkit.Cluster
	topic string
	base  time.Time
	dir   string
}

func newResetFixture(t *testing.T) *resetFixture {
	c := testkit.New(t)
	topic := c.Topic(3, nil)
	base := time.Now().Add(-30 * time.Minute).Truncate(time.Millisecond)
	c.Produce(topic, map[int32]int{0: 10, 1: 10, 2: 10}, base)
	return &resetFixture{c: c, topic: topic, base: base, dir: t.TempDir()}
}

func (f *resetFixture) group(t *testing.T) string {
	g := testkit.Name(t, "g")
	f.c.Commit(g, f.topic, map[int32]int64{0: 4, 1: 6})
	return g
}

func (f *resetFixture) backup(name string) string { return filepath.Join(f.dir, name) }

// Every target kind, executed, re-read from the broker.
func TestResetTargets(t *testing.T) {
	f := newResetFixture(t)
	other := testkit.Name(t, "src")
	f.c.Commit(other, f.topic, map[int32]int64{0: 9, 1: 1, 2: 3})
	plan := filepath.Join(f.dir, "plan.csv")
	if err := os.WriteFile(plan, []byte(fmt.Sprintf("%s,0,2\n%s,2,7\n", f.topic, f.topic)), 0o600); err != nil {
		t.Fatal(err)
	}
	at := f.base.Add(5 * time.Millisecond)
	tests := []struct {
		name string
		args []string
		want map[int32]int64
	}{
		{"earliest", []string{"--to", "earliest"}, map[int32]int64{0: 0, 1: 0, 2: 0}},
		{"latest", []string{"--to", "latest"}, map[int32]int64{0: 10, 1: 10, 2: 10}},
		{"current (no commit: log end)", []string{"--to", "current"}, map[int32]int64{0: 4, 1: 6, 2: 10}},
		{"offset", []string{"--to", "3"}, map[int32]int64{0: 3, 1: 3, 2: 3}},
		{"offset past the end", []string{"--to-offset", "50"}, map[int32]int64{0: 10, 1: 10, 2: 10}},
		{"shift minus", []string{"--topic", f.topic + ":0,1", "--to", "shift:-5"}, map[int32]int64{0: 0, 1: 1}},
		{"shift plus", []string{"--topic", f.topic + ":0,1", "--shift-by", "5"}, map[int32]int64{0: 9, 1: 10}},
		{"time", []string{"--to", "time:" + at.UTC().Format(time.RFC3339Nano)}, map[int32]int64{0: 5, 1: 5, 2: 5}},
		{"time as unix ms", []string{"--to", "time:" + strconv.FormatInt(at.UnixMilli(), 10)}, map[int32]int64{0: 5, 1: 5, 2: 5}},
		{"apache datetime", []string{"--to-datetime", at.UTC().Format("2006-01-02T15:04:05.000")}, map[int32]int64{0: 5, 1: 5, 2: 5}},
		{"ago, before every record", []string{"--to", "ago:2h"}, map[int32]int64{0: 0, 1: 0, 2: 0}},
		{"ago ISO, after every record", []string{"--by-duration", "PT1S"}, map[int32]int64{0: 10, 1: 10, 2: 10}},
		{"file (partition 1 not in it)", []string{"--to", "file:" + plan}, map[int32]int64{0: 2, 2: 7}},
		{"group copy", []string{"--to", "group:" + other}, map[int32]int64{0: 9, 1: 1, 2: 3}},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := f.group(t)
			args := append([]string{g}, tc.args...)
			if !strings.Contains(strings.Join(tc.args, " "), "--topic") && !strings.HasPrefix(tc.args[1], "file:") {
				args = append(args, "--topic", f.topic)
			}
			args = append(args, "--execute", "--backup", f.backup(fmt.Sprintf("b%d.csv", i)))
			gp, _ := resetPlanOf(t, f.c, 0, args...)
			if !gp.Executed || gp.Group != g || gp.Backup == "" {
				t.Errorf("plan = executed %v group %s backup %q", gp.Executed, gp.Group, gp.Backup)
			}
			if got := planTargets(gp, f.topic); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("plan targets = %v, want %v", got, tc.want)
			}
			want := tc.want
			if strings.HasPrefix(tc.name, "file") {
				want = map[int32]int64{0: 2, 1: 6, 2: 7}
			}
			assertCommitted(t, f.c, g, f.topic, want)
		})
	}
}

// A dry run prints the plan and changes nothing; --export prints Apache's
// CSV; the table has the documented columns.
func TestResetDryRun(t *testing.T) {
	f := newResetFixture(t)
	g := f.group(t)
	before := committedOn(t, f.c, g, f.topic)

	r := mustRun(t, f.c, 0, "reset", g, "--topic", f.topic, "--to", "earliest")
	if !strings.Contains(r.stderr, "dry run: nothing changed") || !strings.Contains(r.stderr, "--execute") {
		t.Errorf("stderr = %q", r.stderr)
	}
	for _, col := range []string{"GROUP", "TOPIC", "PARTITION", "LOG-START", "CURRENT", "TARGET", "DELTA", "NOTE"} {
		if !strings.Contains(r.stdout, col) {
			t.Errorf("table lacks column %s:\n%s", col, r.stdout)
		}
	}
	// Read the DELTA column: the random suffixes of the group and topic
	// names in the same rows can hold "-4" or "-6" themselves.
	if countRows(r.stdout, map[string]string{"PARTITION": "0", "DELTA": "-4"}) != 1 || countRows(r.stdout, map[string]string{"PARTITION": "1", "DELTA": "-6"}) != 1 {
		t.Errorf("table lacks the deltas -4 (partition 0) and -6 (partition 1):\n%s", r.stdout)
	}
	gp, _ := resetPlanOf(t, f.c, 0, g, "--topic", f.topic, "--to", "latest")
	if gp.Executed || gp.Backup != "" || len(gp.Partitions) != 3 {
		t.Errorf("dry-run JSON = %+v", gp)
	}
	p2 := gp.Partitions[2]
	if p2.Current != nil || p2.Target == nil || *p2.Target != 10 || p2.Delta != nil || p2.LogEnd != 10 {
		t.Errorf("partition 2 = %+v, want current null, target 10, delta null", p2)
	}
	r = mustRun(t, f.c, 0, "reset", g, "--topic", f.topic, "--to", "3", "--export")
	if want := fmt.Sprintf("%[1]q,0,3\n%[1]q,1,3\n%[1]q,2,3\n", f.topic); r.stdout != want {
		t.Errorf("--export = %q, want %q", r.stdout, want)
	}
	// -o csv is the same CSV, as --help says (it said "not with -o"
	// while -o csv was taken; -o json and table are refused).
	if csv := mustRun(t, f.c, 0, "reset", g, "--topic", f.topic, "--to", "3", "--export", "-o", "csv"); csv.stdout != r.stdout {
		t.Errorf("--export -o csv = %q, want what --export prints, %q", csv.stdout, r.stdout)
	}
	if help := mustRun(t, nil, 0, "reset", "--help").stdout; !strings.Contains(help, "-o csv is the same CSV, -o table or json is refused") {
		t.Errorf("reset --help does not say -o csv goes with --export:\n%s", help)
	}
	assertCommitted(t, f.c, g, f.topic, before)
	if entries, _ := os.ReadDir(f.dir); len(entries) != 0 {
		t.Errorf("a dry run wrote files: %v", entries)
	}
}

// --execute changes exactly the scoped partitions, and the backup restores
// exactly, including the partition that had no commit.
func TestResetExecuteScopeAndRestore(t *testing.T) {
	f := newResetFixture(t)
	g := f.group(t)
	t2 := f.c.Topic(1, nil)
	f.c.Produce(t2, map[int32]int{0: 5}, time.Time{})
	f.c.Commit(g, t2, map[int32]int64{0: 2})

	backup := f.backup("undo.csv")
	gp, r := resetPlanOf(t, f.c, 0, g, "--topic", f.topic+":1,2", "--to", "latest", "--execute", "--backup", backup)
	if !gp.Executed || gp.Backup != backup {
		t.Fatalf("plan = %+v", gp)
	}
	if !strings.Contains(r.stderr, "undo: "+printedBy(f.c)+" reset "+g+" --to file:"+backup+" --execute") {
		t.Errorf("stderr lacks the undo command: %q", r.stderr)
	}
	assertCommitted(t, f.c, g, f.topic, map[int32]int64{0: 4, 1: 10, 2: 10})
	assertCommitted(t, f.c, g, t2, map[int32]int64{0: 2})

	data, err := os.ReadFile(backup)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	// Apache's quoting (Jackson): names over 24 characters are quoted.
	q := func(s string) string {
		if len(s) > 24 {
			return `"` + s + `"`
		}
		return s
	}
	// First the cluster the backup is of (kfake's id, or the real
	// broker's).
	want := []string{"offsetctl:cluster,", q("offsetctl:backup") + "," + q(g) + ",0,", q(g) + "," + q(f.topic) + ",1,6", q("offsetctl:no-commit:"+g) + "," + q(f.topic) + ",2,0"}
	if len(lines) != 5 || !strings.HasPrefix(lines[4], "offsetctl:end,") || !strings.HasSuffix(lines[4], ",0,4") || !strings.HasPrefix(lines[0], want[0]) || !strings.HasSuffix(lines[0], ",0,1") || !strings.HasPrefix(lines[1], want[1]) || lines[2] != want[2] || lines[3] != want[3] {
		t.Fatalf("backup =\n%s\nwant lines like %q", data, want)
	}

	// Restore: the exact previous state, t/2 without a commit again.
	restoreBackup := f.backup("undo-of-undo.csv")
	mustRun(t, f.c, 0, "reset", g, "--to", "file:"+backup, "--execute", "--backup", restoreBackup)
	assertCommitted(t, f.c, g, f.topic, map[int32]int64{0: 4, 1: 6})
	assertCommitted(t, f.c, g, t2, map[int32]int64{0: 2})
	// And the restore itself can be undone.
	mustRun(t, f.c, 0, "reset", g, "--to", "file:"+restoreBackup, "--execute", "--backup", f.backup("third.csv"))
	assertCommitted(t, f.c, g, f.topic, map[int32]int64{0: 4, 1: 10, 2: 10})

	// A backup file is never overwritten: bad input (exit 2), refused
	// before any request, so nothing is committed.
	badInput(t, f.c, "offsetctl: --backup "+backup+" already exists: a backup never overwrites; choose another name", "reset", g, "--topic", f.topic, "--to", "earliest", "--execute", "--backup", backup)
	assertCommitted(t, f.c, g, f.topic, map[int32]int64{0: 4, 1: 10, 2: 10})
}

// Several groups: one backup holds them all and restores them all.
func TestResetSeveralGroups(t *testing.T) {
	f := newResetFixture(t)
	g1, g2 := f.group(t), f.group(t)
	f.c.Commit(g2, f.topic, map[int32]int64{2: 8})
	backup := f.backup("two.csv")
	r := mustRun(t, f.c, 0, "reset", "-o", "json", g1, "--group", g2, "--topic", f.topic, "--to", "earliest", "--execute", "--backup", backup)
	var plans []admin.GroupPlan
	decodeJSON(t, r, &plans)
	if len(plans) != 2 || plans[0].Group != g1 || plans[1].Group != g2 || !plans[0].Executed || !plans[1].Executed {
		t.Fatalf("plans = %+v", plans)
	}
	zero := map[int32]int64{0: 0, 1: 0, 2: 0}
	assertCommitted(t, f.c, g1, f.topic, zero)
	assertCommitted(t, f.c, g2, f.topic, zero)
	// No group named: the four-column backup names them.
	mustRun(t, f.c, 0, "reset", "--to", "file:"+backup, "--execute", "--backup", f.backup("two-undo.csv"))
	assertCommitted(t, f.c, g1, f.topic, map[int32]int64{0: 4, 1: 6})
	assertCommitted(t, f.c, g2, f.topic, map[int32]int64{0: 4, 1: 6, 2: 8})
}

func TestResetRefusesActiveGroups(t *testing.T) {
	for _, kip848 := range []bool{false, true} {
		name := "classic"
		if kip848 {
			name = "kip848"
		}
		t.Run(name, func(t *testing.T) {
			f := newResetFixture(t)
			g := f.group(t)
			// No autocommit: the group's offsets can only move if the
			// reset commits.
			f.c.Consumer(g, f.topic, kip848, kgo.DisableAutoCommit())
			r := mustRun(t, f.c, 1, "reset", g, "--topic", f.topic, "--to", "latest", "--execute", "--backup", f.backup("b.csv"))
			if !strings.Contains(r.stderr, "can only be reset if the group is inactive, but the current state is") || !strings.Contains(r.stderr, "member") {
				t.Errorf("stderr = %q", r.stderr)
			}
			if !strings.Contains(r.stderr, "nothing was committed") {
				t.Errorf("stderr = %q", r.stderr)
			}
			if _, err := os.Stat(f.backup("b.csv")); err == nil {
				t.Error("a refused reset wrote a backup")
			}
			assertCommitted(t, f.c, g, f.topic, map[int32]int64{0: 4, 1: 6})
			// The dry run shows the plan but fails the same way.
			r = mustRun(t, f.c, 1, "reset", g, "--topic", f.topic, "--to", "latest")
			if !strings.Contains(r.stdout, f.topic) || !strings.Contains(r.stderr, "inactive") {
				t.Errorf("dry run: stdout %q stderr %q", r.stdout, r.stderr)
			}
			// JSON says why, for scripts that read only stdout.
			r = mustRun(t, f.c, 1, "reset", g, "--topic", f.topic, "--to", "latest", "-o", "json")
			var gp struct {
				Executed bool
				Refused  string
			}
			decodeJSON(t, r, &gp)
			if gp.Executed || !strings.HasPrefix(gp.Refused, "group "+g+" can only be reset if the group is inactive, but the current state is") {
				t.Errorf("dry run -o json: executed %v refused %q", gp.Executed, gp.Refused)
			}
		})
	}
}

func TestResetCreatesGroup(t *testing.T) {
	f := newResetFixture(t)
	g := testkit.Name(t, "new")
	gp, _ := resetPlanOf(t, f.c, 0, g, "--topic", f.topic+":0", "--to", "7", "--execute", "--backup", f.backup("b.csv"))
	if gp.State != "Dead" || !strings.Contains(gp.Note, "does not exist") {
		t.Errorf("plan state %q note %q", gp.State, gp.Note)
	}
	assertCommitted(t, f.c, g, f.topic, map[int32]int64{0: 7})
	// Restoring the backup deletes the offset again: no commit at all.
	mustRun(t, f.c, 0, "reset", g, "--to", "file:"+f.backup("b.csv"), "--execute", "--backup", f.backup("b2.csv"))
	assertCommitted(t, f.c, g, f.topic, map[int32]int64{})
}

func TestResetUnknownTopicOrPartition(t *testing.T) {
	f := newResetFixture(t)
	g := f.group(t)
	before := committedOn(t, f.c, g, f.topic)
	missing := testkit.Name(t, "missing")
	for _, tc := range []struct{ scope, msg string }{
		{missing, "topic " + missing},
		{f.topic + ":0,7", "partition 7 does not exist in topic " + f.topic},
	} {
		r := mustRun(t, f.c, 2, "reset", g, "--topic", tc.scope, "--topic", f.topic+":1", "--to", "earliest", "--execute", "--backup", f.backup("b.csv"))
		if !strings.Contains(r.stderr, tc.msg) {
			t.Errorf("--topic %s: stderr = %q, want %q", tc.scope, r.stderr, tc.msg)
		}
	}
	plan := f.backup("bad.csv")
	if err := os.WriteFile(plan, []byte(f.topic+",0,1\n"+f.topic+",9,1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := mustRun(t, f.c, 2, "reset", g, "--to", "file:"+plan, "--execute", "--backup", f.backup("b.csv"))
	if !strings.Contains(r.stderr, "partition 9 does not exist") {
		t.Errorf("stderr = %q", r.stderr)
	}
	assertCommitted(t, f.c, g, f.topic, before)
	if _, err := os.Stat(f.backup("b.csv")); err == nil {
		t.Error("a refused reset wrote a backup")
	}
}

// TestResetTargetFormsAgree: reset without --to and reset with a bad --to
// list the same target forms; the first left out translated:ALIAS (and
// named shift:±N, group:OTHER where the second says shift:+N, group:NAME)
// from a list of its own (QA finding).
func TestResetTargetFormsAgree(t *testing.T) {
	forms := func(line, after string) string {
		i := strings.Index(line, after)
		if i < 0 {
			t.Fatalf("%q does not hold %q", line, after)
		}
		return strings.TrimSuffix(strings.TrimSuffix(line[i+len(after):], "\n"), ")")
	}
	none := badInput(t, nil, "say where to move the offsets: --to SPEC (", "--brokers", "127.0.0.1:1", "reset", "g", "--topic", "orders")
	bad := badInput(t, nil, `--to "x": want `, "--brokers", "127.0.0.1:1", "reset", "g", "--topic", "orders", "--to", "x")
	got, want := forms(none.stderr, "--to SPEC ("), forms(bad.stderr, "want ")
	if got != want || !strings.Contains(got, "translated:ALIAS") {
		t.Errorf("without --to: %s\nwith a bad --to: %s\nwant the same forms, translated:ALIAS among them", got, want)
	}
}

func TestResetUsageErrors(t *testing.T) {
	f := newResetFixture(t)
	g := f.group(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"reset", g, "--topic", f.topic}, "say where to move the offsets: --to SPEC"},                                                                                   // no target
		{[]string{"reset", g, "--topic", f.topic, "--to", "earliest", "--to-latest"}, "give exactly one target (--to or one of Apache's --to-* flags), got 2: earliest, latest"}, // two targets
		{[]string{"reset", g, "--to", "earliest"}, "name a scope: --topic TOPIC[:P,...] (repeatable) or --all-topics"},                                                           // no scope
		{[]string{"reset", g, "--topic", f.topic, "--all-topics", "--to", "earliest"}, "--topic and --all-topics contradict each other"},                                         // both scopes
		{[]string{"reset", "--topic", f.topic, "--to", "earliest"}, "name one or more groups, or use --all-groups"},                                                              // no group
		{[]string{"reset", g, "--all-groups", "--topic", f.topic, "--to", "earliest"}, "name groups or use --all-groups, not both"},                                              // both
		{[]string{"reset", g, "--topic", f.topic, "--to", "shift:x"}, `--to "shift:x": shift "x" is not a signed integer`},                                                       // bad spec
		{[]string{"reset", g, "--topic", f.topic, "--to", "file:/nonexistent/plan.csv"}, "open /nonexistent/plan.csv: no such file or directory"},                                // unreadable plan
		{[]string{"reset", g, "--topic", f.topic, "--to", "earliest", "--execute", "--dry-run"}, "--execute and --dry-run contradict each other"},
		{[]string{"reset", g, "--topic", f.topic, "--to", "group:" + g}, "group " + g + " cannot copy its own offsets"},       // copy from itself
		{[]string{"reset", g, "--topic", f.topic, "--to", "group:" + testkit.Name(t, "x")}, " (to copy from) does not exist"}, // copy from nothing
		{[]string{"delete-offsets", g}, "name the offsets to delete: --topic TOPIC[:P,...]"},
		{[]string{"delete-offsets", g, "--topic", testkit.Name(t, "missing"), "--execute"}, "does not exist (deleted?)"},
	} {
		args := tc.args
		r := offsetctl(t, f.c, args...)
		if r.code != 2 || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line holding %q", args, r.code, r.stderr, tc.want)
		}
	}
	// A group to copy from that exists but has no commit on the scope:
	// nothing to copy, which is a mistake, not a run that changes nothing.
	other := testkit.Name(t, "elsewhere")
	f.c.Commit(other, f.c.Topic(1, nil), map[int32]int64{0: 0})
	r := mustRun(t, f.c, 2, "reset", g, "--topic", f.topic, "--to", "group:"+other, "--execute", "--backup", f.backup("copy.csv"))
	if !strings.Contains(r.stderr, "group "+other+" (to copy from) has no commit on any selected partition: nothing to copy") {
		t.Errorf("stderr = %q", r.stderr)
	}
	if _, err := os.Stat(f.backup("copy.csv")); err == nil {
		t.Error("a refused copy wrote a backup")
	}
	// shift with a partition without commit names it, as Apache does.
	r = mustRun(t, f.c, 2, "reset", g, "--topic", f.topic, "--to", "shift:-1")
	if !strings.Contains(r.stderr, "partition 2") || !strings.Contains(r.stderr, "no committed offset") {
		t.Errorf("stderr = %q", r.stderr)
	}
	assertCommitted(t, f.c, g, f.topic, map[int32]int64{0: 4, 1: 6})
}

// A topic whose log start is above 0: earliest is the log start and lower
// targets are clamped to it.
func TestResetLogStartAboveZero(t *testing.T) {
	f := newResetFixture(t)
	g := f.group(t)
	f.c.DeleteRecords(f.topic, 0, 5)
	gp, _ := resetPlanOf(t, f.c, 0, g, "--topic", f.topic+":0,1", "--to", "earliest", "--execute", "--backup", f.backup("a.csv"))
	if gp.Partitions[0].LogStart != 5 {
		t.Errorf("log start = %d, want 5", gp.Partitions[0].LogStart)
	}
	assertCommitted(t, f.c, g, f.topic, map[int32]int64{0: 5, 1: 0})
	gp, _ = resetPlanOf(t, f.c, 0, g, "--topic", f.topic+":0", "--to", "2", "--execute", "--backup", f.backup("b.csv"))
	if !strings.Contains(gp.Partitions[0].Note, "clamped to log start") {
		t.Errorf("note = %q", gp.Partitions[0].Note)
	}
	assertCommitted(t, f.c, g, f.topic, map[int32]int64{0: 5, 1: 0})
}

func TestDeleteOffsets(t *testing.T) {
	f := newResetFixture(t)
	g := f.group(t)
	t2 := f.c.Topic(1, nil)
	f.c.Commit(g, t2, map[int32]int64{0: 0})

	r := mustRun(t, f.c, 0, "delete-offsets", g, "--topic", f.topic)
	if !strings.Contains(r.stdout, "would delete") || !strings.Contains(r.stderr, "dry run") {
		t.Errorf("dry run: stdout %q stderr %q", r.stdout, r.stderr)
	}
	assertCommitted(t, f.c, g, f.topic, map[int32]int64{0: 4, 1: 6})

	backup := f.backup("del.csv")
	r = mustRun(t, f.c, 0, "delete-offsets", "-o", "json", g, "--topic", f.topic, "--execute", "--backup", backup)
	var p admin.DeleteOffsetsPlan
	decodeJSON(t, r, &p)
	if !p.Executed || len(p.Partitions) != 3 || p.Partitions[0].Status != "deleted" || p.Partitions[2].Status != "no commit" {
		t.Errorf("plan = %+v", p)
	}
	assertCommitted(t, f.c, g, f.topic, map[int32]int64{})
	assertCommitted(t, f.c, g, t2, map[int32]int64{0: 0})
	mustRun(t, f.c, 0, "reset", g, "--to", "file:"+backup, "--execute", "--backup", f.backup("undo.csv"))
	assertCommitted(t, f.c, g, f.topic, map[int32]int64{0: 4, 1: 6})
}

// delete-offsets on a topic a live group consumes: the broker refuses per
// partition with GROUP_SUBSCRIBED_TO_TOPIC, explained, exit 1.
func TestDeleteOffsetsActiveSubscribedGroup(t *testing.T) {
	f := newResetFixture(t)
	g := f.group(t)
	f.c.Consumer(g, f.topic, false)
	r := mustRun(t, f.c, 1, "delete-offsets", "-o", "json", g, "--topic", f.topic+":0", "--execute", "--backup", f.backup("d.csv"))
	var p admin.DeleteOffsetsPlan
	decodeJSON(t, r, &p)
	if len(p.Partitions) != 1 || !strings.Contains(p.Partitions[0].Error, "GROUP_SUBSCRIBED_TO_TOPIC") || !strings.Contains(p.Partitions[0].Error, "live members") {
		t.Errorf("plan = %+v", p)
	}
	if !strings.Contains(r.stderr, "GROUP_SUBSCRIBED_TO_TOPIC") {
		t.Errorf("stderr = %q", r.stderr)
	}
	if _, ok := committedOn(t, f.c, g, f.topic)[0]; !ok {
		t.Error("the offset of partition 0 was deleted")
	}
}

func TestDeleteGroup(t *testing.T) {
	f := newResetFixture(t)
	g := f.group(t)
	live := f.group(t)
	f.c.Consumer(live, f.topic, false)

	r := mustRun(t, f.c, 0, "delete-group", g)
	if !strings.Contains(r.stdout, "would delete") {
		t.Errorf("dry run = %q", r.stdout)
	}
	assertCommitted(t, f.c, g, f.topic, map[int32]int64{0: 4, 1: 6})

	backup := f.backup("groups.csv")
	r = mustRun(t, f.c, 1, "delete-group", "-o", "json", g, live, "--execute", "--backup", backup)
	var out struct {
		Groups []admin.DeleteGroupRow `json:"groups"`
	}
	decodeJSON(t, r, &out)
	if len(out.Groups) != 2 || out.Groups[0].Status != "deleted" || !strings.Contains(out.Groups[1].Error, "NON_EMPTY_GROUP") {
		t.Fatalf("rows = %+v", out.Groups)
	}
	assertCommitted(t, f.c, g, f.topic, map[int32]int64{})
	if committedOn(t, f.c, live, f.topic) == nil {
		t.Error("the live group lost its offsets")
	}
	// The backup restores the deleted group's offsets.
	mustRun(t, f.c, 0, "reset", g, "--to", "file:"+backup, "--execute", "--backup", f.backup("undo.csv"))
	assertCommitted(t, f.c, g, f.topic, map[int32]int64{0: 4, 1: 6})
}

// --all-groups resets the inactive groups and skips live ones with a
// warning. It executes only on kfake: on a shared real broker it would
// touch other people's groups, so there it is a dry run.
func TestResetAllGroups(t *testing.T) {
	f := newResetFixture(t)
	idle := f.group(t)
	live := f.group(t)
	f.c.Consumer(live, f.topic, false, kgo.DisableAutoCommit())
	args := []string{"reset", "-o", "json", "--all-groups", "--topic", f.topic + ":0", "--to", "earliest"}
	if f.c.Fake != nil {
		args = append(args, "--execute", "--backup", f.backup("all.csv"))
	}
	// A live group skipped is a partial failure: exit 1, named last, in
	// the dry run (which fails as --execute would) and in --execute.
	r := mustRun(t, f.c, 1, args...)
	wantLast := "offsetctl: --execute would leave 1 group live and unchanged: " + live + "; stop their consumers first, or leave them out with --exclude"
	if f.c.Fake != nil {
		wantLast = "offsetctl: 1 group skipped as live, not reset: " + live + "; stop their consumers and run again for them"
		// The audit entry names the skipped group and reads partly.
		id := recordedID(t, r)
		var e audit.Entry
		for _, x := range historyOf(t) {
			if x.ID == id {
				e = x
			}
		}
		if e.Outcome != audit.Partly || e.ExitCode != 1 || !slices.Contains(e.Groups, live) || !slices.Contains(e.Groups, idle) || !strings.Contains(e.Error, live) {
			t.Errorf("audit entry: outcome %q, exit %d, groups %v, error %q; want partly, 1, both groups, the live one named", e.Outcome, e.ExitCode, e.Groups, e.Error)
		}
	}
	if got := lastLine(r.stderr); got != wantLast {
		t.Errorf("last stderr line:\n%s\nwant:\n%s", got, wantLast)
	}
	var plans []admin.GroupPlan
	decodeJSON(t, r, &plans)
	byName := map[string]admin.GroupPlan{}
	for _, p := range plans {
		byName[p.Group] = p
	}
	if p, ok := byName[idle]; !ok || len(p.Partitions) != 1 || p.Partitions[0].Target == nil || *p.Partitions[0].Target != 0 {
		t.Errorf("idle group plan = %+v", byName[idle])
	}
	if p, ok := byName[live]; !ok || len(p.Partitions) != 0 || !strings.Contains(p.Note, "skipped: active") {
		t.Errorf("live group plan = %+v", byName[live])
	}
	if !strings.Contains(r.stderr, "warning: skipping group "+live+": it can only be reset if the group is inactive") {
		t.Errorf("stderr = %q", r.stderr)
	}
	if f.c.Fake != nil {
		assertCommitted(t, f.c, idle, f.topic, map[int32]int64{0: 0, 1: 6})
	} else {
		assertCommitted(t, f.c, idle, f.topic, map[int32]int64{0: 4, 1: 6})
	}
	assertCommitted(t, f.c, live, f.topic, map[int32]int64{0: 4, 1: 6})
}

// TestResetSelectionAllLive: a selection whose every group with something
// to reset is live changes nothing and says so (exit 1), in the dry run and
// with --execute; the execute is recorded as refused, naming the groups. It
// once ended "nothing to reset: no partition in scope" with exit 0.
func TestResetSelectionAllLive(t *testing.T) {
	f := newResetFixture(t)
	prefix, g1, g2 := liveGroups(t, f)
	sel := []string{"reset", "-r", prefix + "-.*", "--topic", f.topic, "--to", "earliest"}
	r := mustRun(t, f.c, 1, sel...)
	want := "offsetctl: every selected group with something to reset is live: --execute would reset nothing (2 groups skipped: " + g1 + ", " + g2 + "); stop their consumers first"
	if got := lastLine(r.stderr); got != want {
		t.Errorf("dry run, last line:\n%s\nwant:\n%s", got, want)
	}
	r = mustRun(t, f.c, 1, append(sel, "--execute", "--backup", f.backup("al.csv"))...)
	want = "offsetctl: nothing was reset: every selected group with something to reset is live (2 groups skipped: " + g1 + ", " + g2 + "); stop their consumers first"
	if got := lastLine(r.stderr); got != want {
		t.Errorf("--execute, last line:\n%s\nwant:\n%s", got, want)
	}
	if strings.Contains(r.stderr, "no partition in scope") {
		t.Errorf("says there was nothing in scope:\n%s", r.stderr)
	}
	for _, g := range []string{g1, g2} {
		assertCommitted(t, f.c, g, f.topic, map[int32]int64{0: 4, 1: 6})
	}
	es := historyOf(t) // this test's log: the dry run is not recorded
	if len(es) != 1 {
		t.Fatalf("%d audit entries, want the --execute's alone", len(es))
	}
	e := es[0]
	if e.Outcome != audit.Refused || e.ExitCode != 1 || !slices.Equal(e.Groups, []string{g1, g2}) || entryCount(e.Applied) != 0 {
		t.Errorf("audit entry: outcome %q, exit %d, groups %v, applied %d; want refused, 1, [%s %s], 0", e.Outcome, e.ExitCode, e.Groups, entryCount(e.Applied), g1, g2)
	}
}

// reset -o json is an object only when exactly one GROUP is named; an
// array with --all-groups (even when one group matches), several groups
// or groups taken from a plan file (even one).
func TestResetJSONShape(t *testing.T) {
	f := newResetFixture(t)
	g1, g2 := f.group(t), f.group(t)
	plan4 := f.backup("plan4.csv")
	writeFile(t, plan4, fmt.Sprintf("%s,%s,0,1\n", g1, f.topic))
	plan3 := f.backup("plan3.csv")
	writeFile(t, plan3, f.topic+",0,1\n")
	dry := []string{"reset", "-o", "json", "--to", "earliest", "--topic", f.topic + ":0"}
	for _, tc := range []struct {
		args   []string
		object bool
		groups int
	}{
		{append(dry, g1), true, 1},
		{append(dry, g1, "--group", g1), true, 1},
		{append(dry, g1, g2), false, 2},
		{append(dry, "--all-groups"), false, -1},
		{[]string{"reset", "-o", "json", "--to", "file:" + plan4}, false, 1},
		{[]string{"reset", "-o", "json", "--to", "file:" + plan4, g1}, true, 1},
		{[]string{"reset", "-o", "json", "--to", "file:" + plan3, g2}, true, 1},
	} {
		r := mustRun(t, f.c, 0, tc.args...)
		out := strings.TrimSpace(r.stdout)
		if tc.object {
			var gp admin.GroupPlan
			if !strings.HasPrefix(out, "{") || json.Unmarshal([]byte(out), &gp) != nil || gp.Group == "" {
				t.Errorf("%v: want one object, got %s", tc.args, out)
			}
			continue
		}
		var gps []admin.GroupPlan
		if !strings.HasPrefix(out, "[") || json.Unmarshal([]byte(out), &gps) != nil || tc.groups >= 0 && len(gps) != tc.groups {
			t.Errorf("%v: want an array of %d, got %s", tc.args, tc.groups, out)
		}
	}
	if f.c.Fake != nil {
		// A fresh cluster whose only group is g1 (after deleting g2):
		// --all-groups is still an array, of one.
		mustRun(t, f.c, 0, "delete-group", g2, "--execute", "--backup", f.backup("d.csv"))
		var gps []admin.GroupPlan
		decodeJSON(t, mustRun(t, f.c, 0, append(dry, "--all-groups")...), &gps)
		if len(gps) != 1 || gps[0].Group != g1 {
			t.Errorf("--all-groups with one group = %+v", gps)
		}
	}
}

// --all-topics for a group that does not exist selects nothing: bad input
// (exit 2, one line naming the group), not a successful empty reset.
func TestResetAllTopicsOfMissingGroup(t *testing.T) {
	f := newResetFixture(t)
	missing := testkit.Name(t, "nosuch")
	t.Chdir(f.dir)
	for _, extra := range [][]string{nil, {"--execute"}} {
		r := mustRun(t, f.c, 2, append([]string{"reset", missing, "--all-topics", "--to", "earliest"}, extra...)...)
		line := strings.TrimSpace(r.stderr)
		if strings.Contains(line, "\n") || !strings.Contains(line, "group "+missing+" does not exist") || !strings.Contains(line, "--all-topics selects nothing") || !strings.Contains(line, "--topic") || r.stdout != "" {
			t.Errorf("%v: stdout %q stderr %q", extra, r.stdout, r.stderr)
		}
	}
	if names, _ := filepath.Glob(filepath.Join(f.dir, "offsetctl-backup-*")); len(names) != 0 {
		t.Errorf("backups written: %v", names)
	}
	assertCommitted(t, f.c, missing, f.topic, map[int32]int64{})
}

// A plan saved by Excel (byte order mark, CRLF, header) is applied.
func TestResetPlanFromExcel(t *testing.T) {
	f := newResetFixture(t)
	g := f.group(t)
	plan := f.backup("excel.csv")
	writeFile(t, plan, "\ufeffgroup,topic,partition,offset\r\n"+g+","+f.topic+",0,2\r\n\""+g+"\",\""+f.topic+"\",1,3\r\n")
	mustRun(t, f.c, 0, "reset", "--to", "file:"+plan, "--execute", "--backup", f.backup("b.csv"))
	assertCommitted(t, f.c, g, f.topic, map[int32]int64{0: 2, 1: 3})
}

// --all-groups --to file:F resets the cluster's groups that F has rows
// for, leaves the others alone, and names on stderr the groups of F whose
// rows are not applied (no such group, or active). Executed on kfake only,
// like TestResetAllGroups.
func TestResetAllGroupsFromFile(t *testing.T) {
	f := newResetFixture(t)
	idle, live, other := f.group(t), f.group(t), f.group(t)
	ghost := testkit.Name(t, "ghost")
	f.c.Consumer(live, f.topic, false, kgo.DisableAutoCommit())
	plan := f.backup("plan.csv")
	writeFile(t, plan, fmt.Sprintf("%s,%s,0,1\n%s,%s,0,2\n%s,%s,0,3\n", idle, f.topic, live, f.topic, ghost, f.topic))
	args := []string{"reset", "-o", "json", "--all-groups", "--to", "file:" + plan}
	if f.c.Fake != nil {
		args = append(args, "--execute", "--backup", f.backup("all.csv"))
	}
	r := mustRun(t, f.c, 1, args...) // the live group of the file was skipped
	if !strings.Contains(lastLine(r.stderr), live) {
		t.Errorf("the last line does not name the skipped live group %s:\n%s", live, r.stderr)
	}
	var plans []admin.GroupPlan
	decodeJSON(t, r, &plans)
	byName := map[string]admin.GroupPlan{}
	for _, p := range plans {
		byName[p.Group] = p
	}
	if p := byName[idle]; len(p.Partitions) != 1 || p.Partitions[0].Target == nil || *p.Partitions[0].Target != 1 {
		t.Errorf("plan of %s = %+v", idle, p)
	}
	if _, ok := byName[other]; ok {
		t.Errorf("%s has no rows in the plan but was planned", other)
	}
	if !strings.Contains(r.stderr, "were not applied") || !strings.Contains(r.stderr, ghost+" (not selected: no such consumer group") || !strings.Contains(r.stderr, live+" (skipped: active") {
		t.Errorf("stderr = %q", r.stderr)
	}
	if f.c.Fake != nil {
		assertCommitted(t, f.c, idle, f.topic, map[int32]int64{0: 1, 1: 6})
	}
	assertCommitted(t, f.c, other, f.topic, map[int32]int64{0: 4, 1: 6})
	assertCommitted(t, f.c, live, f.topic, map[int32]int64{0: 4, 1: 6})
	assertCommitted(t, f.c, ghost, f.topic, map[int32]int64{})
}

// The summary counts only partitions whose committed offset changed: a
// restore that keeps an offset, or keeps "no commit", leaves it unchanged.
func TestResetSummaryCountsChanges(t *testing.T) {
	f := newResetFixture(t)
	g := f.group(t)
	plan := f.backup("b.csv")
	writeFile(t, plan, fmt.Sprintf("\"offsetctl:backup\",%q,0,1\n%q,%q,0,4\n%q,%q,1,9\n\"offsetctl:no-commit:%s\",%q,2,0\n", g, g, f.topic, g, f.topic, g, f.topic))
	r := mustRun(t, f.c, 0, "reset", g, "--to", "file:"+plan, "--execute", "--backup", f.backup("undo.csv"))
	if !strings.Contains(r.stderr, "reset 1 group(s): 1 partition(s) changed, 2 unchanged; read back and verified") {
		t.Errorf("stderr = %q", r.stderr)
	}
	assertCommitted(t, f.c, g, f.topic, map[int32]int64{0: 4, 1: 9})
}

// The time grammar shared with replay, end to end: days (ago:1d12h),
// ISO-8601 (ago:P1D), a date alone and a date-time without seconds (UTC).
func TestResetTimeGrammar(t *testing.T) {
	f := newResetFixture(t)
	g := f.group(t)
	for _, tc := range []struct {
		spec string
		want int64
	}{
		{"ago:1d12h", 0}, {"ago:P1D", 0}, {"time:2000-01-01", 0}, {"time:2100-01-01T00:00", 10},
	} {
		gp, _ := resetPlanOf(t, f.c, 0, g, "--topic", f.topic+":0", "--to", tc.spec)
		if got := planTargets(gp, f.topic); got[0] != tc.want {
			t.Errorf("--to %s: target %v, want %d", tc.spec, got, tc.want)
		}
	}
	// Apache's alias with minutes only, a minute before the first record.
	gp, _ := resetPlanOf(t, f.c, 0, g, "--topic", f.topic+":0", "--to-datetime", f.base.Add(-time.Minute).UTC().Format("2006-01-02T15:04"))
	if got := planTargets(gp, f.topic); got[0] != 0 {
		t.Errorf("--to-datetime minute before the records: target %v, want 0", got)
	}
	mustRun(t, f.c, 2, "reset", g, "--topic", f.topic, "--to", "time:1969-12-31")
	// A duration back past 1970 is refused the same way (it planned
	// 1970: every partition to its log start), so is its Apache alias.
	const before1970 = "now minus the duration is before 1970-01-01T00:00:00Z; to start at the log start use earliest"
	badInput(t, f.c, `--to "ago:106751d": `+before1970, "reset", g, "--topic", f.topic+":1", "--to", "ago:106751d", "--execute")
	badInput(t, f.c, `--to "ago:P30000D": `+before1970, "reset", g, "--topic", f.topic, "--by-duration", "P30000D", "--execute")
	if got := f.c.Committed(g)[f.topic]; got[0] != 4 || got[1] != 6 {
		t.Errorf("after the refused resets %s holds %v, want 0:4 1:6", g, got)
	}
}

// TestReservedGroupNames: offsetctl's backup rows mark themselves with
// "offsetctl:"; a group named that way could not be restored from its
// backup, so it is refused before anything happens.
func TestReservedGroupNames(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(1, nil)
	g := "offsetctl:no-commit:" + testkit.Name(t, "g")
	for _, args := range [][]string{
		{"reset", g, "--topic", topic, "--to", "earliest", "--execute"},
		{"delete-offsets", g, "--topic", topic, "--execute"},
		{"delete-group", g, "--execute"},
	} {
		r := offsetctl(t, c, args...)
		if r.code != 2 || !strings.Contains(r.stderr, "reserved by offsetctl's backup format") {
			t.Errorf("%s: exit %d stderr %q", args[0], r.code, r.stderr)
		}
	}
	if got := c.Committed(g); len(got) != 0 {
		t.Errorf("the refused reset committed %v", got)
	}
}

func TestResetFlagConflicts(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(1, nil)
	g := testkit.Name(t, "g")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"reset", g, "--topic", topic, "--to", "earliest", "--export", "-o", "json"}, "--export prints Apache's CSV plan; it takes no -o json"},
		{[]string{"reset", g, "--topic", topic, "--to", "earliest", "--execute", "--backup", ""}, "--backup is empty: give a file path"},
		{[]string{"delete-offsets", g, "--topic", topic, "--execute", "--backup", ""}, "--backup is empty: give a file path"},
		{[]string{"delete-group", g, "--execute", "--backup", " "}, "--backup is empty: give a file path"},
	} {
		args := tc.args
		r := offsetctl(t, c, args...)
		if r.code != 2 || r.stdout != "" || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%q: exit %d stdout %q stderr %q, want 2 and one line holding %q", args, r.code, r.stdout, r.stderr, tc.want)
		}
	}
	if got := c.Committed(g); len(got) != 0 {
		t.Errorf("a refused reset committed %v", got)
	}
}

// Restoring one topic from a whole-cluster (multi-group) backup: --topic
// narrows the file's groups, and the groups without rows on that topic are
// skipped with a warning, not an error, both without a group named and
// with --all-groups.
func TestResetFilePlanNarrowedToOneTopic(t *testing.T) {
	c := testkit.New(t)
	t1, t2 := c.Topic(1, nil), c.Topic(1, nil)
	c.Produce(t1, map[int32]int{0: 10}, time.Time{})
	c.Produce(t2, map[int32]int{0: 10}, time.Time{})
	g1, g2 := testkit.Name(t, "g1"), testkit.Name(t, "g2")
	c.Commit(g1, t1, map[int32]int64{0: 9})
	c.Commit(g2, t2, map[int32]int64{0: 9})
	dir := t.TempDir()
	plan := filepath.Join(dir, "cluster-backup.csv")
	if err := os.WriteFile(plan, []byte(g1+","+t1+",0,2\n"+g2+","+t2+",0,3\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := mustRun(t, c, 0, "reset", "--to", "file:"+plan, "--topic", t1, "--execute", "--backup", filepath.Join(dir, "b1.csv"))
	if !strings.Contains(r.stderr, "group "+g2+": none of its 1 plan row(s) is inside the --topic scope: skipped") {
		t.Errorf("stderr = %q", r.stderr)
	}
	assertCommitted(t, c, g1, t1, map[int32]int64{0: 2})
	assertCommitted(t, c, g2, t2, map[int32]int64{0: 9})

	r = mustRun(t, c, 0, "reset", "--all-groups", "--to", "file:"+plan, "--topic", t2, "--execute", "--backup", filepath.Join(dir, "b2.csv"))
	if !strings.Contains(r.stderr, g1+" (skipped: no plan rows inside the --topic scope)") {
		t.Errorf("stderr = %q", r.stderr)
	}
	assertCommitted(t, c, g1, t1, map[int32]int64{0: 2})
	assertCommitted(t, c, g2, t2, map[int32]int64{0: 3})

	// A scope that keeps no row at all is bad input.
	other := c.Topic(1, nil)
	r = mustRun(t, c, 2, "reset", "--to", "file:"+plan, "--topic", other, "--execute")
	if !strings.Contains(r.stderr, "has no rows inside the --topic scope") {
		t.Errorf("stderr = %q", r.stderr)
	}
}

// TestResetBackupLineShortForFleets: after a fleet reset that changed
// only some of its groups (or whose outcome is unknown), the undo line
// points to the audit entry instead of naming every group (a 3,381-byte
// line after a Ctrl-C of 320 groups); with few groups, or every group
// applied, it stays the copy-paste reset.
func TestResetBackupLineShortForFleets(t *testing.T) {
	plan := func(n int, outcome func(i int) string) (*admin.Plan, []int) {
		p := &admin.Plan{}
		var todo []int
		for i := range n {
			p.Groups = append(p.Groups, admin.GroupPlan{Group: fmt.Sprintf("g%03d", i), Outcome: outcome(i)})
			todo = append(todo, i)
		}
		return p, todo
	}
	half := func(i int) string {
		if i%2 == 0 {
			return admin.OutcomeApplied
		}
		return ""
	}
	p, todo := plan(20, half)
	if got, want := resetBackupLine("offsetctl", "b.csv", p, todo, "ID1"), "backup of the previous offsets: b.csv (10 groups; undo: offsetctl undo ID1 --execute)"; got != want {
		t.Errorf("partly:\n%s\nwant\n%s", got, want)
	}
	p, todo = plan(20, func(int) string { return admin.OutcomeUnknown })
	if got, want := resetBackupLine("offsetctl", "b.csv", p, todo, "ID2"), "backup of the previous offsets: b.csv (20 groups; whether the change of 20 group(s) reached the cluster is unknown: check with: offsetctl history --verify ID2; undo whatever landed: offsetctl undo ID2 --execute)"; got != want {
		t.Errorf("unknown:\n%s\nwant\n%s", got, want)
	}
	// Every command in it starts as the reset's connection does.
	if got := resetBackupLine("offsetctl --profile dr", "b.csv", p, todo, "ID2"); !strings.Contains(got, "check with: offsetctl --profile dr history --verify ID2; undo whatever landed: offsetctl --profile dr undo ID2 --execute") {
		t.Errorf("unknown, through a profile: %s", got)
	}
	p, todo = plan(20, func(int) string { return admin.OutcomeApplied })
	if got := resetBackupLine("offsetctl", "b.csv", p, todo, "ID3"); got != "backup of the previous offsets: b.csv (undo: offsetctl reset --to file:b.csv --execute)" {
		t.Errorf("all applied: %s", got)
	}
	p, todo = plan(4, half)
	if got := resetBackupLine("offsetctl", "b.csv", p, todo, "ID4"); got != "backup of the previous offsets: b.csv (undo: offsetctl reset g000 g002 --to file:b.csv --execute)" {
		t.Errorf("few groups: %s", got)
	}
}

// A dry run of reset on a misspelled group planned it (CURRENT -) with
// nothing on stderr: only --execute's note, after the commit, said the
// group had not existed. The dry run and --execute warn first; a restore
// (--to file:) of a deleted group, which means to create it, does not.
func TestResetMissingGroupWarned(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(2, nil)
	c.Produce(topic, map[int32]int{0: 5, 1: 5}, time.Time{})
	missing := testkit.Name(t, "typo")
	warn := "offsetctl: warning: group " + missing + " does not exist: --execute creates it with these offsets (a typo? offsetctl groups lists the groups)\n"
	r := mustRun(t, c, 0, "reset", missing, "--topic", topic, "--to", "earliest")
	if !strings.HasPrefix(r.stderr, warn) {
		t.Errorf("dry run stderr:\n%s", r.stderr)
	}
	if got := c.Committed(missing); len(got) != 0 {
		t.Fatalf("the dry run committed: %v", got)
	}
	// A group backed up, deleted, then restored from its backup: no warning.
	group := testkit.Name(t, "g")
	c.Commit(group, topic, map[int32]int64{0: 2, 1: 3})
	dir := t.TempDir()
	backup := filepath.Join(dir, "b.csv")
	mustRun(t, c, 0, "delete-group", group, "--execute", "--backup", backup)
	r = mustRun(t, c, 0, "reset", group, "--to", "file:"+backup, "--execute", "--backup", filepath.Join(dir, "b2.csv"))
	if strings.Contains(r.stderr, "does not exist: --execute creates it") {
		t.Errorf("a restore of a deleted group warned:\n%s", r.stderr)
	}
	wantCommitted(t, c, group, topic, map[int32]int64{0: 2, 1: 3})
}

// A reset reaching its cluster through KAFKA_BROKERS printed an undo line
// without --brokers: pasted in a shell without that variable it dialled
// localhost (the backup's cluster id refused it there). The line names
// the brokers the run used.
func TestResetUndoLineNamesEnvBrokers(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(1, nil)
	c.Produce(topic, map[int32]int{0: 5}, time.Time{})
	group := testkit.Name(t, "g")
	c.Commit(group, topic, map[int32]int64{0: 1})
	backup := filepath.Join(t.TempDir(), "b.csv")
	r := mustRunEnv(t, map[string]string{"KAFKA_BROKERS": c.BrokerList()}, 0, "reset", group, "--topic", topic, "--to", "latest", "--execute", "--backup", backup)
	if !strings.Contains(r.stderr, "(undo: offsetctl --brokers "+c.BrokerList()+" ") {
		t.Errorf("undo line without the brokers:\n%s", r.stderr)
	}
}
