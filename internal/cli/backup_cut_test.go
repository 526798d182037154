package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/offsetctl/offsetctl/internal/testkit"
)

// A backup or snapshot cut short, or with a row taken out, restored some
// of its partitions and left the others where they were, exit 0 and not
// a word: "keeps a backup that restores exactly" held only for files
// nobody copied. Both now end with a record counting the records before
// it. Cut after any line, or edited, the file is refused by reset --to
// file: (dry run or --execute) and by diff: exit 2, one line, the group's
// offsets untouched, no backup written, nothing recorded. The whole file
// still restores exactly.
func TestBackupCutShortRefused(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(4, nil)
	c.Produce(topic, map[int32]int{0: 10, 1: 10, 2: 10, 3: 10}, time.Time{})
	group := testkit.Name(t, "g")
	before := map[int32]int64{0: 1, 1: 2, 2: 3}
	c.Commit(group, topic, before)
	dir := t.TempDir()
	backup := filepath.Join(dir, "b.csv")
	mustRun(t, c, 0, "reset", group, "--topic", topic, "--to", "latest", "--execute", "--backup", backup)
	snap := filepath.Join(dir, "snap.csv")
	mustRun(t, c, 0, "snapshot", group, "--out", snap)
	after := map[int32]int64{0: 10, 1: 10, 2: 10, 3: 10}
	wantCommitted(t, c, group, topic, after)
	entries := len(historyOf(t))

	data, err := os.ReadFile(backup)
	if err != nil {
		t.Fatal(err)
	}
	// cluster, backup marker, 3 rows, 1 no-commit row, end record.
	lines := strings.SplitAfter(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 7 || !strings.HasPrefix(lines[6], "offsetctl:end,") || !strings.HasSuffix(lines[6], ",0,6") {
		t.Fatalf("backup:\n%s", data)
	}
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var cuts []string
	for k := 1; k < len(lines); k++ {
		cuts = append(cuts, write("cut"+string(rune('0'+k))+".csv", strings.Join(lines[:k], "")))
	}
	edited := write("edited.csv", strings.Replace(string(data), lines[3], "", 1))
	// Same count, another offset: caught by the end record's digest.
	row := strings.TrimSuffix(lines[2], "\n")
	sameCount := write("samecount.csv", strings.Replace(string(data), lines[2], row[:strings.LastIndex(row, ",")]+",0\n", 1))
	for _, f := range append(cuts, edited, sameCount) {
		want := "the file was cut short"
		switch f {
		case edited:
			want = "counts 6 records before it, but the file has 5: it was cut or edited"
		case sameCount:
			want = "the backup's records differ from what its offsetctl:end record says was written: it was edited"
		}
		badInput(t, c, want, "reset", group, "--to", "file:"+f)
		badInput(t, c, want, "reset", "--to", "file:"+f, "--execute", "--backup", filepath.Join(dir, "x.csv"))
		badInput(t, c, want, "diff", f, snap)
	}
	wantCommitted(t, c, group, topic, after)
	if _, err := os.Stat(filepath.Join(dir, "x.csv")); !os.IsNotExist(err) {
		t.Errorf("a refused restore wrote a backup: %v", err)
	}
	if n := len(historyOf(t)); n != entries {
		t.Errorf("refused restores were recorded: %d entries, were %d", n, entries)
	}
	// The snapshot cut after its cluster line read as a snapshot of no
	// group (diff: nothing to compare, exit 0 with --exit-code).
	sdata, err := os.ReadFile(snap)
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(sdata), "\n")
	badInput(t, c, "the file was cut short", "diff", write("snapcut.csv", first+"\n"), snap, "--exit-code")

	// undo of the reset whose backup was cut: refused the same way (its
	// recorded SHA-256), exit 2, nothing changed.
	id := ""
	for _, e := range historyOf(t) {
		if e.Backup == backup {
			id = e.ID
		}
	}
	if id == "" {
		t.Fatalf("no entry records backup %s", backup)
	}
	if err := os.WriteFile(backup, []byte(strings.Join(lines[:4], "")), 0o600); err != nil {
		t.Fatal(err)
	}
	badInput(t, c, "has changed since it was written", "undo", id, "--execute", "--backup", filepath.Join(dir, "u.csv"))
	wantCommitted(t, c, group, topic, after)
	if err := os.WriteFile(backup, data, 0o600); err != nil {
		t.Fatal(err)
	}
	// Edited on purpose, as the error says to: without its end line and
	// with its first line ending in ,0,0, it restores as edited.
	mine := strings.Replace(strings.Join(lines[:6], ""), ",0,1\n", ",0,0\n", 1)
	mine = strings.Replace(mine, lines[2], row[:strings.LastIndex(row, ",")]+",0\n", 1)
	mustRun(t, c, 0, "reset", "--to", "file:"+write("mine.csv", mine), "--execute", "--backup", filepath.Join(dir, "m.csv"))
	if got := c.Committed(group)[topic][0]; got != 0 {
		t.Fatalf("the edited backup's offset for partition 0: %d, want 0", got)
	}

	// The whole backup restores exactly: the three commits back, the
	// partition without one has none again.
	mustRun(t, c, 0, "reset", "--to", "file:"+backup, "--execute", "--backup", filepath.Join(dir, "r.csv"))
	wantCommitted(t, c, group, topic, before)
}

// A cluster that is not Apache Kafka (kfake, the playground) takes topic
// names outside Kafka's [a-zA-Z0-9._-]. A reset of --all-topics backed
// such a topic up, and then undo, reset --to file: and diff refused the
// backup ("topic name has illegal character"): a change whose backup could
// not restore it. A backup with its end record is read with the names the
// cluster gave; a hand-written plan keeps Kafka's rules.
func TestBackupOfNonKafkaTopicNameRestores(t *testing.T) {
	if testkit.Real() {
		t.Skip("Apache Kafka refuses such topic names")
	}
	c := testkit.New(t)
	topic := testkit.Name(t, "uni-ñ-日本")
	c.CreateTopic(topic, 2, nil)
	c.Produce(topic, map[int32]int{0: 10, 1: 10}, time.Time{})
	group := testkit.Name(t, "g")
	before := map[int32]int64{0: 3, 1: 4}
	c.Commit(group, topic, before)
	dir := t.TempDir()
	snap := filepath.Join(dir, "snap.csv")
	mustRun(t, c, 0, "snapshot", group, "--out", snap)
	mustRun(t, c, 0, "reset", group, "--all-topics", "--to", "latest", "--execute", "--backup", filepath.Join(dir, "b.csv"))
	wantCommitted(t, c, group, topic, map[int32]int64{0: 10, 1: 10})
	r := mustRun(t, c, 0, "diff", snap, "-o", "json")
	if !strings.Contains(r.stdout, `"delta": 7`) || !strings.Contains(r.stdout, `"delta": 6`) {
		t.Fatalf("diff of the snapshot with the cluster:\n%s", r.stdout)
	}
	id := historyOf(t)[len(historyOf(t))-1].ID
	mustRun(t, c, 0, "undo", id, "--execute", "--backup", filepath.Join(dir, "b1.csv"))
	wantCommitted(t, c, group, topic, before)
	mustRun(t, c, 0, "reset", group, "--to", "file:"+snap, "--execute", "--backup", filepath.Join(dir, "b2.csv"))
	wantCommitted(t, c, group, topic, before)

	// A hand-written plan still gets Kafka's rules, before any request.
	plan := filepath.Join(dir, "plan.csv")
	if err := os.WriteFile(plan, []byte(group+","+topic+",0,5\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	badInput(t, c, "illegal character", "reset", group, "--to", "file:"+plan, "--execute", "--backup", filepath.Join(dir, "b3.csv"))
	wantCommitted(t, c, group, topic, before)
}
