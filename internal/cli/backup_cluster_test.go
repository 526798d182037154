package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/offsetctl/offsetctl/internal/admin"
	"github.com/offsetctl/offsetctl/internal/audit"
	"github.com/offsetctl/offsetctl/internal/testkit"
	"github.com/offsetctl/offsetctl/report"
)

// firstLine is the first line of the file at path.
func firstLine(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	line, _, _ := strings.Cut(string(data), "\n")
	return line
}

// A backup written on cluster B is never restored on cluster A by hand
// (the undo of an entry was checked, `reset --to file:BACKUP` was not:
// B's backup, restored with -b A, moved A's group to B's old offsets).
// Every backup and snapshot names its cluster on its first line; the
// restore on A, dry run or --execute, the groups named or the file's,
// --to file: or Apache's --from-file, is refused with exit 2 and one line
// naming both ids, before anything is read or changed: A's group keeps
// its offsets, no backup is written and nothing is recorded. On B the
// same restore works.
func TestRestoreRefusesBackupOfAnotherCluster(t *testing.T) {
	a, b, topic, group := twoClusters(t)
	dir := t.TempDir()
	backup := filepath.Join(dir, "b.csv")
	mustRun(t, b, 0, "reset", group, "--topic", topic, "--to", "latest", "--execute", "--backup", backup)
	snap := filepath.Join(dir, "snap-b.csv")
	mustRun(t, b, 0, "snapshot", group, "--out", snap)
	dg := filepath.Join(dir, "dg-b.csv")
	other := testkit.Name(t, "other")
	b.Commit(other, topic, map[int32]int64{0: 3})
	mustRun(t, b, 0, "delete-group", other, "--execute", "--backup", dg)
	for _, f := range []string{backup, snap, dg} {
		if got := firstLine(t, f); got != "offsetctl:cluster,cluster-b,0,1" {
			t.Fatalf("%s starts with %q, want the cluster marker", filepath.Base(f), got)
		}
	}
	a.Commit(group, topic, map[int32]int64{0: 12})
	entries := len(historyOf(t))

	for _, tc := range []struct {
		file string
		args []string
	}{
		{backup, []string{"reset", group, "--to", "file:" + backup}},
		{backup, []string{"reset", group, "--to", "file:" + backup, "--execute", "--backup", filepath.Join(dir, "a1.csv")}},
		{backup, []string{"reset", "--to", "file:" + backup, "--execute", "--backup", filepath.Join(dir, "a1.csv")}},
		{backup, []string{"reset", "--group", group, "--from-file", backup, "--execute", "--backup", filepath.Join(dir, "a1.csv")}},
		{snap, []string{"reset", "--all-groups", "--to", "file:" + snap, "--execute", "--backup", filepath.Join(dir, "a1.csv")}},
		{dg, []string{"reset", "--to", "file:" + dg, "--execute", "--backup", filepath.Join(dir, "a1.csv")}},
	} {
		want := fmt.Sprintf("offsetctl: plan %s was written on cluster cluster-b, not on the cluster connected now (cluster-a): its offsets are never restored on another cluster; point --brokers or --profile at cluster cluster-b and run the command again (only if the cluster connected now is that cluster rebuilt under a new id: add --other-cluster cluster-b)\n", tc.file)
		r := badInput(t, a, "", tc.args...)
		if r.stderr != want {
			t.Errorf("%q:\n got %q\nwant %q", tc.args, r.stderr, want)
		}
	}
	wantCommitted(t, a, group, topic, map[int32]int64{0: 12})
	if _, ok := a.Committed(other)[topic]; ok {
		t.Errorf("group %s was restored on cluster-a", other)
	}
	if _, err := os.Stat(filepath.Join(dir, "a1.csv")); !os.IsNotExist(err) {
		t.Errorf("a refused restore wrote a backup: %v", err)
	}
	if n := len(historyOf(t)); n != entries {
		t.Errorf("%d entries after the refusals, want %d: a refusal before anything is read is not recorded", n, entries)
	}

	// On its own cluster: restored.
	mustRun(t, b, 0, "reset", group, "--to", "file:"+backup, "--execute", "--backup", filepath.Join(dir, "b2.csv"))
	wantCommitted(t, b, group, topic, map[int32]int64{0: 5})
	wantCommitted(t, a, group, topic, map[int32]int64{0: 12})
}

// --other-cluster ID restores a file of another cluster (that cluster
// rebuilt under a new id) only when ID is the one the file records: it
// warns, and the reset's entry records it (other_cluster_id), as undo's
// does. Where it is not needed (the file is of this cluster, records no
// cluster, or the target is no file) or empty, it is bad input. The
// restore's own backup is of the cluster it changed, so its undo needs
// no flag.
func TestRestoreOtherClusterOverride(t *testing.T) {
	a, b, topic, group := twoClusters(t)
	dir := t.TempDir()
	backup := filepath.Join(dir, "b.csv")
	mustRun(t, b, 0, "reset", group, "--topic", topic, "--to", "latest", "--execute", "--backup", backup)
	a.Commit(group, topic, map[int32]int64{0: 12})

	badInput(t, a, "offsetctl: --other-cluster cluster-x: plan "+backup+" was written on cluster cluster-b, not that one\n", "reset", group, "--to", "file:"+backup, "--other-cluster", "cluster-x")
	badInput(t, a, "offsetctl: --other-cluster is empty", "reset", group, "--to", "file:"+backup, "--other-cluster", "")
	badInput(t, a, "offsetctl: --other-cluster goes with --to file:PLAN", "reset", group, "--topic", topic, "--to", "earliest", "--other-cluster", "cluster-b")
	badInput(t, b, "offsetctl: --other-cluster: plan "+backup+" was written on the cluster connected now (cluster-b): leave the flag out\n", "reset", group, "--to", "file:"+backup, "--other-cluster", "cluster-b")
	wantCommitted(t, a, group, topic, map[int32]int64{0: 12})

	warn := "offsetctl: warning: plan " + backup + " was written on cluster cluster-b; --other-cluster: restoring it on the cluster connected now (cluster-a)\n"
	r := mustRun(t, a, 0, "reset", group, "--to", "file:"+backup, "--other-cluster", "cluster-b")
	if !strings.HasPrefix(r.stderr, warn) || !strings.Contains(r.stderr, "dry run: nothing changed") {
		t.Fatalf("dry run with --other-cluster:\n%s", r.stderr)
	}
	wantCommitted(t, a, group, topic, map[int32]int64{0: 12})
	restore := filepath.Join(dir, "a.csv")
	r = mustRun(t, a, 0, "reset", group, "--to", "file:"+backup, "--other-cluster", "cluster-b", "--execute", "--backup", restore)
	if !strings.HasPrefix(r.stderr, warn) {
		t.Errorf("no warning:\n%s", r.stderr)
	}
	wantCommitted(t, a, group, topic, map[int32]int64{0: 5})
	wantCommitted(t, b, group, topic, map[int32]int64{0: 20})
	es := historyOf(t)
	last := es[len(es)-1]
	if last.Action != audit.ActReset || last.Outcome != audit.Applied || last.ClusterID != "cluster-a" || last.OtherClusterID != "cluster-b" {
		t.Fatalf("the restore's entry: action %s outcome %s cluster %q other %q", last.Action, last.Outcome, last.ClusterID, last.OtherClusterID)
	}
	if es[0].OtherClusterID != "" {
		t.Errorf("the reset on B names another cluster: %+v", es[0])
	}
	if got := firstLine(t, restore); got != "offsetctl:cluster,cluster-a,0,1" {
		t.Fatalf("the restore's backup starts with %q, want cluster-a's marker", got)
	}
	// Its undo is of cluster A: no flag.
	mustRun(t, a, 0, "undo", last.ID, "--execute", "--backup", filepath.Join(dir, "u.csv"))
	wantCommitted(t, a, group, topic, map[int32]int64{0: 12})
}

// Files that record no cluster are restored as before, on whatever
// cluster is connected: Apache's --export (three and four columns), a
// hand-written plan, a backup of an older offsetctl. --other-cluster
// with one is bad input (there is nothing to override).
func TestRestoreFileWithoutClusterMarker(t *testing.T) {
	a, _, topic, group := twoClusters(t)
	dir := t.TempDir()
	plans := map[string]string{
		"apache3.csv": fmt.Sprintf("%s,0,7\n", topic),
		"apache4.csv": fmt.Sprintf("%s,%s,0,8\n", group, topic),
		"old.csv":     fmt.Sprintf("offsetctl:backup,%s,0,1764496800000\n%s,%s,0,9\n", group, group, topic),
	}
	for i, name := range []string{"apache3.csv", "apache4.csv", "old.csv"} {
		path := filepath.Join(dir, name)
		writeFile(t, path, plans[name])
		r := mustRun(t, a, 0, "reset", group, "--to", "file:"+path, "--execute", "--backup", filepath.Join(dir, fmt.Sprintf("r%d.csv", i)))
		if strings.Contains(r.stderr, "warning") {
			t.Errorf("%s: a warning:\n%s", name, r.stderr)
		}
		wantCommitted(t, a, group, topic, map[int32]int64{0: int64(7 + i)})
		badInput(t, a, "offsetctl: --other-cluster: plan "+path+" records no cluster id: leave the flag out\n", "reset", group, "--to", "file:"+path, "--other-cluster", "cluster-a")
	}
}

// The cluster marker is no row and no group: a restore of a backup,
// the groups taken from the file, plans exactly the backed-up group's
// partitions (the marker read as a row of group "offsetctl:cluster" on a
// topic named after the cluster id would be one more), and diff of a
// backup against its cluster shows no group appeared or vanished.
func TestRestoreClusterMarkerIsNoRow(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(3, nil)
	group := testkit.Name(t, "g")
	c.Produce(topic, map[int32]int{0: 20, 1: 20, 2: 20}, time.Time{})
	c.Commit(group, topic, map[int32]int64{0: 5, 1: 6, 2: 7})
	dir := t.TempDir()
	backup := filepath.Join(dir, "b.csv")
	mustRun(t, c, 0, "reset", group, "--topic", topic, "--to", "latest", "--execute", "--backup", backup)
	if !strings.HasPrefix(firstLine(t, backup), "offsetctl:cluster,") {
		t.Fatalf("backup without the cluster marker:\n%s", firstLine(t, backup))
	}

	r := mustRun(t, c, 0, "reset", "--to", "file:"+backup, "-o", "json")
	var plans []admin.GroupPlan
	if err := json.Unmarshal([]byte(r.stdout), &plans); err != nil {
		t.Fatalf("plan JSON: %v\n%s", err, r.stdout)
	}
	if len(plans) != 1 || plans[0].Group != group || len(plans[0].Partitions) != 3 {
		t.Fatalf("restore plan of the backup: %+v, want group %s's 3 partitions only", plans, group)
	}
	r = mustRun(t, c, 0, "reset", "--to", "file:"+backup)
	if lines := strings.Split(strings.TrimSpace(r.stdout), "\n"); len(lines) != 4 || strings.Contains(r.stdout, "offsetctl:cluster") {
		t.Fatalf("restore table: %d lines, want a header and 3 rows:\n%s", len(lines), r.stdout)
	}
	mustRun(t, c, 0, "reset", "--to", "file:"+backup, "--execute", "--backup", filepath.Join(dir, "r.csv"))
	wantCommitted(t, c, group, topic, map[int32]int64{0: 5, 1: 6, 2: 7})

	var d report.DiffResult
	decodeJSON(t, mustRun(t, c, 0, "diff", backup, "-o", "json"), &d)
	if len(d.Changes) != 0 || len(d.Appeared) != 0 || len(d.Vanished) != 0 || d.FromCluster == "" || d.FromCluster != d.ToCluster {
		t.Fatalf("diff of the backup against its cluster after the restore: %+v", d)
	}
}

// diff of two snapshots of different clusters, or of a snapshot against
// another cluster, says so (stderr, and both ids in JSON): its rows are
// two clusters' differences, not moves of one cluster's groups. It is
// not refused: diff changes nothing, and comparing a primary's snapshot
// with its DR cluster is a thing to want.
func TestDiffSnapshotsOfTwoClusters(t *testing.T) {
	a, b, topic, group := twoClusters(t)
	dir := t.TempDir()
	sa, sb := filepath.Join(dir, "a.csv"), filepath.Join(dir, "b.csv")
	mustRun(t, a, 0, "snapshot", group, "--out", sa)
	b.Commit(group, topic, map[int32]int64{0: 9})
	mustRun(t, b, 0, "snapshot", group, "--out", sb)

	r := mustRun(t, a, 0, "diff", sa, sb, "-o", "json")
	var d report.DiffResult
	decodeJSON(t, r, &d)
	if d.FromCluster != "cluster-a" || d.ToCluster != "cluster-b" || len(d.Changes) != 1 {
		t.Fatalf("diff of two clusters' snapshots: %+v", d)
	}
	if want := "offsetctl: warning: " + sa + " is a snapshot of cluster cluster-a, and " + sb + " is of cluster cluster-b: the rows compare two clusters' offsets, not one cluster's at two times\n"; r.stderr != want {
		t.Errorf("stderr %q, want %q", r.stderr, want)
	}
	r = mustRun(t, b, 0, "diff", sa, "-o", "json")
	decodeJSON(t, r, &d)
	if d.FromCluster != "cluster-a" || d.ToCluster != "cluster-b" || d.To != "live" {
		t.Fatalf("diff of A's snapshot against B: %+v", d)
	}
	if want := "offsetctl: warning: " + sa + " is a snapshot of cluster cluster-a, and the cluster connected now is cluster-b: the rows compare two clusters' offsets, not one cluster's at two times\n"; r.stderr != want {
		t.Errorf("stderr %q, want %q", r.stderr, want)
	}
	// Of one cluster: no word.
	for _, args := range [][]string{{"diff", sa}, {"diff", sa, sa}} {
		if r := mustRun(t, a, 0, args...); r.stderr != "" {
			t.Errorf("%q: stderr %q", args, r.stderr)
		}
	}
}
