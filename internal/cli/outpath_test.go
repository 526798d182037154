package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestOutputPathsCheckedFirst: every file a command writes (snapshot
// --out, replay --out, --digest-out and --checkpoint, semantics
// --log-dir) is checked before any request: a path that cannot be
// written (no such directory, a directory where a file goes, a file where
// a directory goes, a directory that takes no new file) is exit 2 with
// one line naming the flag, nothing on stdout and nothing created, with
// the cluster unreachable (127.0.0.1:1). snapshot --out /nonexist/h.csv
// was exit 1 ("creating backup file: ..."), after reading the cluster;
// the others were exit 1 for the cluster, or exit 2 only once it answered.
func TestOutputPathsCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "nonexist", "h.csv")
	type tc struct {
		args []string
		want string
	}
	cases := []tc{
		{[]string{"snapshot", "g", "--out", missing}, "--out " + missing + " cannot be created: no such file or directory"},
		{[]string{"snapshot", "g", "--out", filepath.Join(file, "h.csv")}, "--out " + filepath.Join(file, "h.csv") + " cannot be created: not a directory"},
		{[]string{"snapshot", "g", "--out", dir}, "--out " + dir + " already exists: a snapshot never overwrites; choose another name"},
		{[]string{"replay", "orders", "--out", missing}, "--out " + missing + " cannot be written: no such file or directory"},
		{[]string{"replay", "orders", "--out", dir}, "--out " + dir + " cannot be written: is a directory"},
		{[]string{"replay", "orders", "--digest-out", missing}, "--digest-out " + missing + " cannot be created: no such file or directory"},
		{[]string{"replay", "orders", "--produce-to", "copy", "--checkpoint", missing}, "--checkpoint " + missing + " cannot be written: no such file or directory"},
		{[]string{"replay", "orders", "--produce-to", "copy", "--checkpoint", dir}, "--checkpoint " + dir + " cannot be written: is a directory"},
		{[]string{"semantics", "--log-dir", file}, "--log-dir " + file + " cannot hold the processed logs: not a directory"},
		{[]string{"semantics", "--log-dir", filepath.Join(file, "logs")}, "--log-dir " + filepath.Join(file, "logs") + " cannot hold the processed logs: not a directory"},
	}
	// sysfs takes no new file, whatever the mode bits say (and root).
	if st, err := os.Stat("/sys/kernel"); err == nil && st.IsDir() {
		cases = append(cases,
			tc{[]string{"snapshot", "g", "--out", "/sys/kernel/h.csv"}, "--out /sys/kernel/h.csv cannot be created: permission denied"},
			tc{[]string{"replay", "orders", "--out", "/sys/kernel/r.jsonl"}, "--out /sys/kernel/r.jsonl cannot be written: permission denied"},
			tc{[]string{"semantics", "--log-dir", "/sys/kernel/logs"}, "--log-dir /sys/kernel/logs cannot hold the processed logs: permission denied"})
	}
	for _, c := range cases {
		start := time.Now()
		r := offsetctl(t, nil, append([]string{"--brokers", "127.0.0.1:1", "--timeout", "3s"}, c.args...)...)
		if r.code != 2 || r.stdout != "" || r.stderr != "offsetctl: "+c.want+"\n" || time.Since(start) > 2*time.Second {
			t.Errorf("offsetctl %s: exit %d after %s, stdout %q, stderr %q; want exit 2 at once and %q", strings.Join(c.args, " "), r.code, time.Since(start).Round(time.Millisecond), r.stdout, r.stderr, c.want)
		}
	}
	if _, err := os.Stat(filepath.Dir(missing)); !os.IsNotExist(err) {
		t.Errorf("a refused run made %s: %v", filepath.Dir(missing), err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".offsetctl-probe-*")); len(left) > 0 {
		t.Errorf("a check left %v", left)
	}
}
