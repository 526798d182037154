package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetctl/offsetctl/internal/admin"
	"github.com/offsetctl/offsetctl/internal/audit"
	"github.com/offsetctl/offsetctl/internal/testkit"
)

// offsetctlAt is offsetctl with a fixed clock: every run "happens" at now.
func offsetctlAt(t *testing.T, c *testkit.Cluster, now time.Time, want int, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out, errb bytes.Buffer
	a := &app{stdout: &out, stderr: &errb, stdin: strings.NewReader(""), getenv: testEnv(t, nil), now: func() time.Time { return now }}
	code := a.execute(ctx, append([]string{"--brokers", c.BrokerList()}, args...))
	r := result{stdout: out.String(), stderr: errb.String(), code: code}
	if r.code != want {
		t.Fatalf("offsetctl %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.code, want, r.stdout, r.stderr)
	}
	return r
}

// Default backup names are the tool's choice, so they never collide: runs
// in the same millisecond (reset twice, delete-offsets then delete-group)
// each get a new file, and every file restores what it backed up. An
// explicit --backup that exists is still an error.
func TestDefaultBackupNamesNeverCollide(t *testing.T) {
	f := newResetFixture(t)
	g := f.group(t)
	t.Chdir(f.dir)
	now := time.Date(2026, 11, 30, 7, 31, 21, 123_000_000, time.UTC)
	stem := "offsetctl-backup-" + g + "-20261130T073121.123Z"

	offsetctlAt(t, f.c, now, 0, "reset", g, "--topic", f.topic, "--to", "earliest", "--execute")
	offsetctlAt(t, f.c, now, 0, "reset", g, "--topic", f.topic, "--to", "latest", "--execute")
	offsetctlAt(t, f.c, now, 0, "delete-offsets", g, "--topic", f.topic+":0", "--execute")
	r := offsetctlAt(t, f.c, now, 0, "delete-group", g, "--execute")
	if !strings.Contains(r.stderr, stem+"-4.csv") {
		t.Errorf("delete-group stderr = %q, want backup %s-4.csv", r.stderr, stem)
	}
	names, err := filepath.Glob(filepath.Join(f.dir, "offsetctl-backup-*"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range names {
		names[i] = filepath.Base(names[i])
	}
	sort.Strings(names)
	want := []string{stem + "-2.csv", stem + "-3.csv", stem + "-4.csv", stem + ".csv"}
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Fatalf("backups = %v, want %v", names, want)
	}
	assertCommitted(t, f.c, g, f.topic, map[int32]int64{})
	// Each backup holds the state before its own run.
	for _, tc := range []struct {
		file string
		want map[int32]int64
	}{
		{stem + "-4.csv", map[int32]int64{1: 10, 2: 10}},
		{stem + ".csv", map[int32]int64{0: 4, 1: 6}},
		{stem + "-2.csv", map[int32]int64{0: 0, 1: 0, 2: 0}},
	} {
		offsetctlAt(t, f.c, now, 0, "reset", g, "--to", "file:"+tc.file, "--execute")
		assertCommitted(t, f.c, g, f.topic, tc.want)
	}
	// A name the user chose is never overwritten: bad input (exit 2),
	// refused before any request, nothing changed.
	r = offsetctlAt(t, f.c, now, 2, "reset", g, "--topic", f.topic, "--to", "earliest", "--execute", "--backup", stem+".csv")
	if r.stderr != "offsetctl: --backup "+stem+".csv already exists: a backup never overwrites; choose another name\n" {
		t.Errorf("stderr = %q", r.stderr)
	}
	assertCommitted(t, f.c, g, f.topic, map[int32]int64{0: 0, 1: 0, 2: 0})
	if _, err := os.Stat(stem + "-8.csv"); err == nil {
		t.Error("an explicit --backup fell back to a numbered name")
	}
}

// A group named twice is deleted and backed up once (the second delete
// used to fail with GROUP_ID_NOT_FOUND; on Apache Kafka the backup had
// every row twice); reset plans it once.
func TestDuplicateGroupNames(t *testing.T) {
	f := newResetFixture(t)
	g := f.group(t)
	other := f.group(t)
	gp, _ := resetPlanOf(t, f.c, 0, g, g, "--group", g, "--topic", f.topic+":0", "--to", "2", "--execute", "--backup", f.backup("r.csv"))
	if gp.Group != g || len(gp.Partitions) != 1 {
		t.Fatalf("plan = %+v", gp)
	}
	assertCommitted(t, f.c, g, f.topic, map[int32]int64{0: 2, 1: 6})
	if data, _ := os.ReadFile(f.backup("r.csv")); strings.Count(string(data), "\n") != 4 {
		t.Errorf("reset backup = %q, want the cluster, a marker, one row and the end", data)
	}

	backup := f.backup("d.csv")
	r := mustRun(t, f.c, 0, "delete-group", "-o", "json", g, other, g, "--execute", "--backup", backup)
	var out struct {
		Groups []struct{ Group, Status, Error string } `json:"groups"`
	}
	decodeJSON(t, r, &out)
	if len(out.Groups) != 2 || out.Groups[0].Group != g || out.Groups[1].Group != other || out.Groups[0].Status != "deleted" || out.Groups[1].Status != "deleted" {
		t.Fatalf("rows = %+v", out.Groups)
	}
	data, err := os.ReadFile(backup)
	if err != nil {
		t.Fatal(err)
	}
	// The cluster; two groups: a marker and two commits each; the end.
	if n := strings.Count(string(data), "\n"); n != 8 {
		t.Errorf("backup has %d lines, want 8:\n%s", n, data)
	}
	assertCommitted(t, f.c, g, f.topic, map[int32]int64{})
	mustRun(t, f.c, 0, "reset", "--to", "file:"+backup, "--execute", "--backup", f.backup("undo.csv"))
	assertCommitted(t, f.c, g, f.topic, map[int32]int64{0: 2, 1: 6})
	assertCommitted(t, f.c, other, f.topic, map[int32]int64{0: 4, 1: 6})
}

// errLine is the "offsetctl: ..." error line of a run's stderr.
func errLine(t *testing.T, r result) string {
	t.Helper()
	for _, l := range strings.Split(r.stderr, "\n") {
		if strings.HasPrefix(l, "offsetctl: ") && !strings.HasPrefix(l, "offsetctl: warning") {
			return l
		}
	}
	t.Fatalf("no error line in stderr %q", r.stderr)
	return ""
}

// A delete-group or delete-offsets dry run fails (exit 1) the way
// --execute would, with the same error line: a live group
// (NON_EMPTY_GROUP, GROUP_SUBSCRIBED_TO_TOPIC) or a group that does not
// exist (no backup is written for it).
func TestDeleteDryRunFailsLikeExecute(t *testing.T) {
	f := newResetFixture(t)
	live := f.group(t)
	f.c.Consumer(live, f.topic, false, kgo.DisableAutoCommit())
	missing := testkit.Name(t, "missing")
	t.Chdir(f.dir)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"delete-group", live}, "NON_EMPTY_GROUP"},
		{[]string{"delete-group", missing}, "GROUP_ID_NOT_FOUND"},
		{[]string{"delete-offsets", missing, "--topic", f.topic}, "GROUP_ID_NOT_FOUND"},
		{[]string{"delete-offsets", live, "--topic", f.topic + ":0"}, "GROUP_SUBSCRIBED_TO_TOPIC"},
	} {
		dry := mustRun(t, f.c, 1, tc.args...)
		exec := mustRun(t, f.c, 1, append(tc.args, "--execute")...)
		if d, e := errLine(t, dry), errLine(t, exec); d != e || !strings.Contains(d, tc.want) {
			t.Errorf("%v: dry run %q, --execute %q; want the same line with %s", tc.args, d, e, tc.want)
		}
		if strings.Contains(dry.stderr, "dry run: nothing changed") {
			t.Errorf("%v: a failing dry run says %q", tc.args, dry.stderr)
		}
	}
	// Only the live group had offsets to back up: one backup per --execute
	// on it, none for the missing group.
	names, _ := filepath.Glob(filepath.Join(f.dir, "offsetctl-backup-*"))
	if len(names) != 2 {
		t.Errorf("backups = %v, want 2 (of %s)", names, live)
	}
	for _, n := range names {
		if !strings.Contains(n, live) {
			t.Errorf("backup %s written for a group that does not exist", n)
		}
	}
	assertCommitted(t, f.c, live, f.topic, map[int32]int64{0: 4, 1: 6})
	assertCommitted(t, f.c, missing, f.topic, map[int32]int64{})
}

// delete-offsets on a topic live members consume: partitions with a commit
// fail with GROUP_SUBSCRIBED_TO_TOPIC, the one without says "no commit"
// (it lost nothing), in the dry run and with --execute.
func TestDeleteOffsetsLiveNoCommit(t *testing.T) {
	f := newResetFixture(t)
	g := f.group(t)
	f.c.Consumer(g, f.topic, false, kgo.DisableAutoCommit())
	for _, extra := range [][]string{nil, {"--execute", "--backup", f.backup("d.csv")}} {
		r := mustRun(t, f.c, 1, append([]string{"delete-offsets", "-o", "json", g, "--topic", f.topic}, extra...)...)
		var p admin.DeleteOffsetsPlan
		decodeJSON(t, r, &p)
		var got []string
		for _, row := range p.Partitions {
			got = append(got, row.Status)
		}
		want := "would fail: GROUP_SUBSCRIBED_TO_TOPIC,would fail: GROUP_SUBSCRIBED_TO_TOPIC,no commit"
		if extra != nil {
			want = "failed,failed,no commit"
		}
		if strings.Join(got, ",") != want || p.Partitions[2].Error != "" {
			t.Errorf("%v: statuses %v, want %s (partitions %+v)", extra, got, want, p.Partitions)
		}
		// One item for the group, the explanation once.
		want = "offsetctl: group " + g + ": 2 partitions (" + f.topic + "/0, " + f.topic + "/1): GROUP_SUBSCRIBED_TO_TOPIC: "
		if l := errLine(t, r); !strings.HasPrefix(l, want) || strings.Count(l, "GROUP_SUBSCRIBED_TO_TOPIC") != 1 {
			t.Errorf("%v: error line %q, want it to start %q and explain once", extra, l, want)
		}
	}
	assertCommitted(t, f.c, g, f.topic, map[int32]int64{0: 4, 1: 6})
}

// hintArgs returns the arguments of the offsetctl command that the
// "backup ..." line of stderr gives as the undo/restore (shell words, with
// shellQuote's single quotes undone).
func hintArgs(t *testing.T, stderr string) []string {
	t.Helper()
	for _, l := range strings.Split(stderr, "\n") {
		if !strings.HasPrefix(l, "backup") {
			continue
		}
		_, cmd, ok := strings.Cut(l, ": offsetctl ")
		if !ok || !strings.HasSuffix(cmd, ")") {
			t.Fatalf("backup line without a command: %q", l)
		}
		cmd = strings.TrimSuffix(cmd, ")")
		var args []string
		var cur strings.Builder
		inWord, quoted := false, false
		for _, r := range cmd {
			switch {
			case r == '\'':
				quoted, inWord = !quoted, true
			case r == ' ' && !quoted:
				if inWord {
					args = append(args, cur.String())
					cur.Reset()
				}
				inWord = false
			default:
				cur.WriteRune(r)
				inWord = true
			}
		}
		if inWord {
			args = append(args, cur.String())
		}
		return args
	}
	t.Fatalf("no backup line in stderr %q", stderr)
	return nil
}

// delete-group with one group deleted, one missing and one live (exit 1):
// the backup, written before deleting, holds the live group's offsets too,
// so restoring the whole file is refused (the live group is Stable). The
// hint names only the deleted group, and running it brings its offsets
// back without touching the live group's.
func TestDeleteGroupPartialFailureUndo(t *testing.T) {
	f := newResetFixture(t)
	deleted := f.group(t)
	live := f.group(t)
	f.c.Consumer(live, f.topic, false, kgo.DisableAutoCommit())
	missing := testkit.Name(t, "nosuch")
	t.Chdir(f.dir)

	r := mustRun(t, f.c, 1, "delete-group", deleted, missing, live, "--execute", "--backup", "dg1.csv")
	assertCommitted(t, f.c, deleted, f.topic, map[int32]int64{})
	if data, _ := os.ReadFile("dg1.csv"); !strings.Contains(string(data), live) {
		t.Fatalf("backup %q lacks the live group (it is written before deleting)", data)
	}
	// What the hint used to be: refused as a whole, nothing restored.
	mustRun(t, f.c, 1, "reset", "--to", "file:dg1.csv", "--execute", "--backup", "refused.csv")
	assertCommitted(t, f.c, deleted, f.topic, map[int32]int64{})
	args := hintArgs(t, r.stderr)
	want := []string{"--brokers", f.c.BrokerList(), "reset", deleted, "--to", "file:dg1.csv", "--execute"}
	if strings.Join(args, " ") != strings.Join(want, " ") {
		t.Fatalf("restore hint %q, want %q (stderr %q)", args, want, r.stderr)
	}
	mustRun(t, nil, 0, args...) // as printed: it names its cluster
	assertCommitted(t, f.c, deleted, f.topic, map[int32]int64{0: 4, 1: 6})
	assertCommitted(t, f.c, live, f.topic, map[int32]int64{0: 4, 1: 6})

	// Everything deleted: the whole backup restores, and the hint says so.
	other := f.group(t)
	r = mustRun(t, f.c, 0, "delete-group", deleted, other, "--execute", "--backup", "dg2.csv")
	args = hintArgs(t, r.stderr)
	if want := "--brokers " + f.c.BrokerList() + " reset --to file:dg2.csv --execute"; strings.Join(args, " ") != want {
		t.Fatalf("restore hint %q, want %q", args, want)
	}
	mustRun(t, nil, 0, args...)
	assertCommitted(t, f.c, deleted, f.topic, map[int32]int64{0: 4, 1: 6})
	assertCommitted(t, f.c, other, f.topic, map[int32]int64{0: 4, 1: 6})
}

// delete-offsets of a live group on a topic it consumes and one it does
// not: the second is deleted, the first fails (GROUP_SUBSCRIBED_TO_TOPIC),
// exit 1. The undo hint names only the deleted topic, so once the consumer
// has stopped it restores that topic's offsets and leaves the consumed
// topic's offsets where the consumer left them (the whole backup would roll
// them back).
func TestDeleteOffsetsPartialFailureUndo(t *testing.T) {
	f := newResetFixture(t)
	g := f.group(t)
	old := f.c.Topic(3, nil)
	f.c.Commit(g, old, map[int32]int64{0: 0, 1: 0})
	stop := f.c.Consumer(g, f.topic, false, kgo.DisableAutoCommit())
	t.Chdir(f.dir)

	r := mustRun(t, f.c, 1, "delete-offsets", g, "--topic", f.topic, "--topic", old+":0,1,2", "--execute", "--backup", "do.csv")
	assertCommitted(t, f.c, g, old, map[int32]int64{})
	assertCommitted(t, f.c, g, f.topic, map[int32]int64{0: 4, 1: 6})
	if !strings.Contains(r.stderr, "once the group's consumers have stopped") {
		t.Errorf("stderr %q does not say the undo waits for the consumers", r.stderr)
	}
	args := hintArgs(t, r.stderr)
	want := []string{"--brokers", f.c.BrokerList(), "reset", g, "--to", "file:do.csv", "--topic", old + ":0,1", "--execute"}
	if strings.Join(args, " ") != strings.Join(want, " ") {
		t.Fatalf("undo hint %q, want %q (stderr %q)", args, want, r.stderr)
	}
	// The consumer moves on, then stops.
	stop()
	waitEmpty(t, f.c, g)
	f.c.Commit(g, f.topic, map[int32]int64{0: 9, 1: 8})

	mustRun(t, nil, 0, args...)
	assertCommitted(t, f.c, g, old, map[int32]int64{0: 0, 1: 0})
	assertCommitted(t, f.c, g, f.topic, map[int32]int64{0: 9, 1: 8})
}

// TestDeleteGroupWithAMissingOneIsPartly (QA): delete-group of a group
// that exists and one that does not deletes the first and exits 1 for
// the second; its entry said "applied" (only the groups backed up were
// counted), which hides the failure from anyone reading the trail. It is
// partly, as for a named group that was live.
func TestDeleteGroupWithAMissingOneIsPartly(t *testing.T) {
	f := newResetFixture(t)
	g := f.group(t)
	missing := testkit.Name(t, "missing")
	log := filepath.Join(f.dir, "audit.jsonl")
	r := mustRun(t, f.c, 1, "--audit-log", log, "delete-group", g, missing, "--execute", "--backup", f.backup("dg.csv"))
	if !strings.Contains(r.stderr, "(outcome: partly)") {
		t.Fatalf("stderr:\n%s", r.stderr)
	}
	assertCommitted(t, f.c, g, f.topic, map[int32]int64{})
	es := historyOf(t, "--audit-log", log)
	if len(es) != 1 || es[0].Outcome != audit.Partly || es[0].ExitCode != 1 {
		t.Fatalf("history: %+v, want one partly entry (exit 1)", es)
	}
}
