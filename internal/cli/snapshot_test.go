package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/offsetctl/offsetctl/internal/testkit"
	"github.com/offsetctl/offsetctl/report"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// diffOf runs `diff ARGS -o json` and keeps the rows and group changes of
// the named groups (a real cluster holds other tests' groups too).
func diffOf(t *testing.T, c *testkit.Cluster, groups []string, args ...string) (rows []string, appeared, vanished []string) {
	t.Helper()
	var d report.DiffResult
	decodeJSON(t, mustRun(t, c, 0, append([]string{"diff", "-o", "json"}, args...)...), &d)
	mine := map[string]bool{}
	for _, g := range groups {
		mine[g] = true
	}
	for _, r := range d.Changes {
		if mine[r.Group] {
			rows = append(rows, fmt.Sprintf("%s %s/%d %s→%s Δ%s", r.Group, r.Topic, r.Partition, offsetWord(r.Before), offsetWord(r.After), offsetWord(r.Delta)))
		}
	}
	for _, g := range d.Appeared {
		if mine[g] {
			appeared = append(appeared, g)
		}
	}
	for _, g := range d.Vanished {
		if mine[g] {
			vanished = append(vanished, g)
		}
	}
	return rows, appeared, vanished
}

// TestSnapshotDiffRestore: snapshot two groups, change them (a reset that
// also commits a never-committed partition, a deleted group, a new group),
// diff shows each change, and restoring the snapshot brings back exactly
// the snapshot: the diff against the cluster is then empty.
func TestSnapshotDiffRestore(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(3, nil)
	g1, g2, g3 := testkit.Name(t, "g1"), testkit.Name(t, "g2"), testkit.Name(t, "g3")
	c.Produce(topic, map[int32]int{0: 20, 1: 20, 2: 20}, time.Time{})
	c.Commit(g1, topic, map[int32]int64{0: 3, 1: 5})
	c.Commit(g2, topic, map[int32]int64{0: 1})
	dir := t.TempDir()
	snap := filepath.Join(dir, "snap.csv")
	var sr report.SnapshotResult
	decodeJSON(t, mustRun(t, c, 0, "snapshot", g1, g2, "--out", snap, "-o", "json"), &sr)
	if sr.File != snap || len(sr.Groups) != 2 || sr.Groups[0].Committed != 2 || sr.Groups[0].NoCommit != 1 || sr.Groups[1].Committed != 1 || sr.Groups[1].NoCommit != 2 {
		t.Fatalf("snapshot summary %+v", sr)
	}
	st, id, err := (&app{timeout: time.Minute}).readState(snap)
	if err != nil {
		t.Fatal(err)
	}
	if _, marker := st["offsetctl:cluster"]; id == "" || marker {
		t.Fatalf("snapshot of cluster %q: its state has the marker as a group: %v", id, marker)
	}
	if got := showState(st[g1][topic]) + " " + showState(st[g2][topic]); got != "0=3,1=5,2=none 0=1,1=none,2=none" {
		t.Fatalf("snapshot state %s", got)
	}
	badInput(t, c, "--out "+snap+" already exists: a snapshot never overwrites", "snapshot", g1, "--out", snap) // never overwrites
	mine := []string{g1, g2, g3}
	if rows, ap, va := diffOf(t, c, mine, snap); rows != nil || ap != nil || va != nil {
		t.Fatalf("diff right after the snapshot: %v %v %v", rows, ap, va)
	}

	mustRun(t, c, 0, "reset", g1, "--topic", topic, "--to", "latest", "--execute", "--backup", filepath.Join(dir, "r.csv"))
	mustRun(t, c, 0, "delete-group", g2, "--execute", "--backup", filepath.Join(dir, "d.csv"))
	c.Commit(g3, topic, map[int32]int64{1: 7})
	rows, ap, va := diffOf(t, c, mine, snap, "--all-groups")
	want := []string{
		g1 + " " + topic + "/0 3→20 Δ17", g1 + " " + topic + "/1 5→20 Δ15", g1 + " " + topic + "/2 no commit→20 Δno commit",
		g2 + " " + topic + "/0 1→no commit Δno commit", g3 + " " + topic + "/1 no commit→7 Δno commit",
	}
	if !reflect.DeepEqual(rows, want) || !reflect.DeepEqual(ap, []string{g3}) || !reflect.DeepEqual(va, []string{g2}) {
		t.Fatalf("diff after changes:\n%v\nwant %v\nappeared %v vanished %v", rows, want, ap, va)
	}
	// Without --all-groups only the snapshot's groups are compared.
	rows, ap, va = diffOf(t, c, mine, snap)
	if !reflect.DeepEqual(rows, want[:4]) || ap != nil || !reflect.DeepEqual(va, []string{g2}) {
		t.Fatalf("diff of the snapshot's groups:\n%v\nappeared %v vanished %v", rows, ap, va)
	}
	badInput(t, c, "--all-groups is for a diff against the cluster", "diff", snap, snap, "--all-groups")
	// Snapshot against snapshot, and --exit-code.
	snap2 := filepath.Join(dir, "snap2.csv")
	mustRun(t, c, 0, "snapshot", g1, g3, "--out", snap2)
	rows, ap, va = diffOf(t, c, mine, snap, snap2)
	if len(rows) != 5 || !reflect.DeepEqual(ap, []string{g3}) || !reflect.DeepEqual(va, []string{g2}) {
		t.Fatalf("snapshot diff: %v %v %v", rows, ap, va)
	}
	mustRun(t, c, 1, "diff", snap, snap2, "--exit-code")
	mustRun(t, c, 0, "diff", snap, snap, "--exit-code")
	r := mustRun(t, c, 0, "diff", snap, snap2, "-o", "csv")
	if !strings.HasPrefix(r.stdout, "GROUP,TOPIC,PARTITION,BEFORE,AFTER,DELTA,STATUS\n") || !strings.Contains(r.stdout, g1+","+topic+",2,,20,,changed\n") || !strings.Contains(r.stdout, g3+",,,,,,group appeared\n") {
		t.Fatalf("diff csv:\n%s", r.stdout)
	}

	// Restore: every group of the snapshot back as it was (on kfake the
	// cluster is this test's own, so --all-groups as documented).
	restore := []string{"reset", g1, g2}
	if !testkit.Real() {
		restore = []string{"reset", "--all-groups"}
	}
	mustRun(t, c, 0, append(restore, "--to", "file:"+snap, "--execute", "--backup", filepath.Join(dir, "restore.csv"))...)
	wantCommitted(t, c, g1, topic, map[int32]int64{0: 3, 1: 5})
	wantCommitted(t, c, g2, topic, map[int32]int64{0: 1})
	rows, _, va = diffOf(t, c, mine, snap)
	if rows != nil && !(len(rows) == 1 && strings.HasPrefix(rows[0], g3+" ")) || va != nil {
		t.Fatalf("diff after the restore: %v vanished %v", rows, va)
	}
	// Bad input: a three-column plan, a missing file, no --out.
	plan3 := filepath.Join(dir, "plan3.csv")
	writeFile(t, plan3, topic+",0,1\n")
	badInput(t, c, "snapshot "+plan3+" has no group column", "diff", plan3)
	badInput(t, c, "missing.csv: no such file or directory", "diff", filepath.Join(dir, "missing.csv"))
	badInput(t, c, "say where to write the snapshot: --out FILE", "snapshot", g1)
	badInput(t, c, "--regex and --all-groups: use one", "snapshot", "--all-groups", "--regex", "x", "--out", filepath.Join(dir, "x.csv"))
}

// TestSnapshotRegexAndApache: --regex selects groups by name; Apache's
// kafka-consumer-groups --from-file restores the committed offsets of a
// snapshot.
func TestSnapshotRegexAndApache(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(2, nil)
	g1, g2 := testkit.Name(t, "regexsel"), testkit.Name(t, "other")
	c.Produce(topic, map[int32]int{0: 10, 1: 10}, time.Time{})
	c.Commit(g1, topic, map[int32]int64{0: 4, 1: 6})
	c.Commit(g2, topic, map[int32]int64{0: 2})
	dir := t.TempDir()
	snap := filepath.Join(dir, "snap.csv")
	var sr report.SnapshotResult
	decodeJSON(t, mustRun(t, c, 0, "snapshot", "--regex", "^"+g1+"$", "--out", snap, "-o", "json"), &sr)
	if len(sr.Groups) != 1 || sr.Groups[0].Group != g1 {
		t.Fatalf("snapshot --regex: %+v", sr)
	}
	mustRun(t, c, 0, "reset", g1, "--topic", topic, "--to", "latest", "--execute", "--backup", filepath.Join(dir, "r.csv"))
	c.ApacheTool("--reset-offsets", "--group", g1, "--from-file", snap, "--execute")
	wantCommitted(t, c, g1, topic, map[int32]int64{0: 4, 1: 6})
}

// showState writes partition → offset as "0=3,1=none" in partition order.
func showState(ps map[int32]*int64) string {
	var out []string
	for p := int32(0); len(out) < len(ps); p++ {
		if v, ok := ps[p]; ok {
			w := "none"
			if v != nil {
				w = fmt.Sprint(*v)
			}
			out = append(out, fmt.Sprintf("%d=%s", p, w))
		}
	}
	return strings.Join(out, ",")
}

// TestSnapshotOutDashRefused: --out - is refused before any request and
// creates no file named "-" (it did, and then suggested --to file:-).
func TestSnapshotOutDashRefused(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(1, nil)
	g := testkit.Name(t, "g")
	c.Commit(g, topic, map[int32]int64{0: 0})
	dir := t.TempDir()
	t.Chdir(dir)
	for _, args := range [][]string{{"snapshot", "--all-groups", "--out", "-"}, {"snapshot", g, "--out", "-", "-o", "json"}} {
		r := offsetctl(t, c, args...)
		want := "offsetctl: --out -: a snapshot is written to a file, not to stdout (stdout has the summary); name a file, then restore with reset --to file:FILE\n"
		if r.code != 2 || r.stderr != want || r.stdout != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2, %q", args, r.code, r.stdout, r.stderr, want)
		}
		if _, err := os.Lstat(filepath.Join(dir, "-")); err == nil {
			t.Errorf("%q created a file named -", args)
		}
	}
}

// TestSnapshotNamedGroupMissing: a named group that does not exist is
// bad input even among groups that do: exit 2, one line naming it, and no
// file. It wrote the other groups, warned and exited 0, although a
// snapshot of only missing groups was exit 2 already.
func TestSnapshotNamedGroupMissing(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(1, nil)
	g := testkit.Name(t, "g")
	nosuch := testkit.Name(t, "nosuch")
	c.Commit(g, topic, map[int32]int64{0: 0})
	dir := t.TempDir()
	for i, args := range [][]string{{g, nosuch}, {nosuch, g}, {nosuch}} {
		out := filepath.Join(dir, fmt.Sprintf("s%d.csv", i))
		r := offsetctl(t, c, append(append([]string{"snapshot"}, args...), "--out", out)...)
		want := "offsetctl: no snapshot written: no such group: " + nosuch + "\n"
		if r.code != 2 || r.stderr != want || r.stdout != "" {
			t.Errorf("snapshot %v: exit %d, stdout %q, stderr %q; want exit 2, %q", args, r.code, r.stdout, r.stderr, want)
		}
		if _, err := os.Lstat(out); err == nil {
			t.Errorf("snapshot %v left a file", args)
		}
	}
	mustRun(t, c, 0, "snapshot", g, "--out", filepath.Join(dir, "ok.csv"))
}

// TestSnapshotNoCommittedOffsets (QA): a snapshot of a group that exists
// but has committed no offset (its consumer never committed) printed a
// restore command that is then refused (exit 2, "plan F has no rows"). It
// now says the file holds no committed offsets and prints no restore; the
// file keeps the group's marker, so diff still compares it with the
// cluster and sees the commit made since.
func TestSnapshotNoCommittedOffsets(t *testing.T) {
	c := testkit.New(t)
	topic, group := c.Topic(2, nil), testkit.Name(t, "brandnew")
	c.Consumer(group, topic, false, kgo.DisableAutoCommit())() // joins, commits nothing, leaves
	out := filepath.Join(t.TempDir(), "bn.csv")
	r := mustRun(t, c, 0, "snapshot", group, "--out", out)
	want := "snapshot of 1 group(s) written to " + out + ": it holds no committed offsets, so there is nothing to restore from it (" + printedBy(c) + " diff " + out + " compares the groups with it later)\n"
	if r.stderr != want {
		t.Errorf("snapshot stderr %q\nwant %q", r.stderr, want)
	}
	if data, err := os.ReadFile(out); err != nil || !regexp.MustCompile(`(?m)^offsetctl:backup,"?`+regexp.QuoteMeta(group)+`"?,`).Match(data) {
		t.Fatalf("snapshot file (%v):\n%s\nwant the group's marker", err, data)
	}
	mustRun(t, c, 0, "diff", out, "--exit-code")
	c.Commit(group, topic, map[int32]int64{1: 3})
	if r := mustRun(t, c, 1, "diff", out, "--exit-code", "-o", "csv"); !strings.Contains(r.stdout, group+","+topic+",1,,3,") {
		t.Errorf("diff after a commit: %q, want the partition that gained a commit", r.stdout)
	}
}

// TestSnapshotEmptyFiles: a file without a group (empty, blank lines, cut
// before its first marker) is no snapshot: diff refuses it with exit 2,
// where it compared it as a snapshot of nothing and passed --exit-code. A
// snapshot of a cluster without groups names its cluster, so diff takes
// it, and snapshot prints no restore command that would be refused.
func TestSnapshotEmptyFiles(t *testing.T) {
	c := testkit.New(t, kfake.ClusterID("empty-snap"))
	dir := t.TempDir()
	for name, data := range map[string]string{"empty.csv": "", "blank.csv": "\n\n", "cut.csv": "offsetctl:clus"} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{{"diff", path, "--exit-code"}, {"diff", path, path}} {
			r := offsetctl(t, c, args...)
			if r.code != 2 || r.stdout != "" || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, "holds no group") && !strings.Contains(r.stderr, "snapshot "+path+": ") {
				t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2 and one line", args, r.code, r.stdout, r.stderr)
			}
		}
	}
	if testkit.Real() {
		return // a real cluster has other tests' groups
	}
	out := filepath.Join(dir, "none.csv")
	r := mustRun(t, c, 0, "snapshot", "--all-groups", "--out", out)
	if !strings.Contains(r.stderr, "snapshot of 0 groups written to "+out+": there is nothing to restore from it") || strings.Contains(r.stderr, "reset ") {
		t.Errorf("snapshot of no group: stderr %q", r.stderr)
	}
	// Nothing then, nothing now: no difference (exit 0, no row).
	if r := mustRun(t, c, 0, "diff", out, "--exit-code", "-o", "csv"); strings.Count(r.stdout, "\n") > 1 {
		t.Errorf("diff of the empty snapshot: rows %q", r.stdout)
	}
}
