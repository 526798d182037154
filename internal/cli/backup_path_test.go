package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/offsetctl/offsetctl/internal/testkit"
)

// TestBackupPathRefusedFirst: with --execute, a --backup that cannot be
// the new backup (one that exists: a backup never overwrites; no such
// directory) is bad input for reset, delete-offsets, delete-group and
// undo: exit 2 and one line, before any request (the same line with the
// cluster unreachable), nothing changed and nothing recorded in the audit
// log. reset --backup EXISTING --execute was exit 1 ("nothing was
// committed: backup file ... already exists"), recorded as failed, found
// once the plan was made; snapshot refused the same with exit 2.
func TestBackupPathRefusedFirst(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(1, nil)
	g := testkit.Name(t, "g")
	c.Produce(topic, map[int32]int{0: 10}, time.Time{})
	c.Commit(g, topic, map[int32]int64{0: 2})
	dir := t.TempDir()
	id := recordedID(t, mustRun(t, c, 0, "reset", g, "--topic", topic, "--to", "3", "--execute", "--backup", filepath.Join(dir, "first.csv")))
	existing := filepath.Join(dir, "first.csv")
	missing := filepath.Join(dir, "nonexist", "b.csv")
	before := mustRun(t, c, 0, "history", "-o", "json").stdout

	for _, args := range [][]string{
		{"reset", g, "--topic", topic, "--to", "earliest", "--execute"},
		{"delete-offsets", g, "--topic", topic, "--execute"},
		{"delete-group", g, "--execute"},
		{"undo", id, "--execute"},
	} {
		for path, want := range map[string]string{
			existing: "offsetctl: --backup " + existing + " already exists: a backup never overwrites; choose another name\n",
			missing:  "offsetctl: --backup " + missing + " cannot be created: no such file or directory\n",
		} {
			full := append(append([]string(nil), args...), "--backup", path)
			for _, cl := range []*testkit.Cluster{c, nil} {
				run := full
				if cl == nil { // unreachable: the check comes before any request
					run = append([]string{"--brokers", "127.0.0.1:1", "--timeout", "3s"}, full...)
				}
				r := offsetctl(t, cl, run...)
				if r.code != 2 || r.stdout != "" || r.stderr != want {
					t.Errorf("offsetctl %s: exit %d, stdout %q, stderr %q; want exit 2 and %q", strings.Join(run, " "), r.code, r.stdout, r.stderr, want)
				}
			}
		}
	}
	wantCommitted(t, c, g, topic, map[int32]int64{0: 3})
	if after := mustRun(t, c, 0, "history", "-o", "json").stdout; after != before {
		t.Errorf("a refused run was recorded:\nbefore %s\nafter  %s", before, after)
	}
	if _, err := os.Stat(filepath.Dir(missing)); !os.IsNotExist(err) {
		t.Errorf("a refused run made %s", filepath.Dir(missing))
	}
	// Without --backup the default name goes to the current directory,
	// which must take a new file (sysfs takes none, even from root).
	if st, err := os.Stat("/sys/kernel"); err == nil && st.IsDir() {
		t.Chdir("/sys/kernel")
		badInput(t, c, "the backup cannot be written to the current directory (permission denied): name its file with --backup", "reset", g, "--topic", topic, "--to", "earliest", "--execute")
		wantCommitted(t, c, g, topic, map[int32]int64{0: 3})
	}
	// A dry run writes no backup: its --backup is not checked.
	mustRun(t, c, 0, "reset", g, "--topic", topic, "--to", "earliest", "--backup", existing)
}
