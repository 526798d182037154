package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/offsetctl/offsetctl/internal/testkit"
)

// TestResetMatchesApache runs, for each scenario of Apache's own
// ResetConsumerGroupOffsetTest, Apache's ConsumerGroupCommand
// --reset-offsets --execute on one fresh group and offsetctl reset
// --execute on an identical fresh group, and compares the committed offsets
// of both. Real broker only (Apache's tool needs a JVM and a real cluster).
func TestResetMatchesApache(t *testing.T) {
	if !testkit.Real() || os.Getenv("OFFSETCTL_KAFKA_SCRIPT") == "" {
		t.Skip("needs KAFKA_BROKERS and OFFSETCTL_KAFKA_SCRIPT (Apache's tool)")
	}
	c := testkit.New(t)
	dir := t.TempDir()
	tA := c.Topic(2, nil)
	tB := c.Topic(1, nil)
	base := time.Now().Add(-30 * time.Minute).Truncate(time.Millisecond)
	c.Produce(tA, map[int32]int{0: 100, 1: 100}, base)
	c.Produce(tB, map[int32]int{0: 100}, base)

	type commits map[string]map[int32]int64
	full := commits{tA: {0: 50, 1: 60}, tB: {0: 20}}
	at40 := base.Add(40 * time.Millisecond).UTC()

	plan := filepath.Join(dir, "plan.csv")
	if err := os.WriteFile(plan, []byte(fmt.Sprintf("%[1]s,0,5\n%[1]s,1,700\n", tA)), 0o600); err != nil {
		t.Fatal(err)
	}
	scenarios := []struct {
		name    string
		commits commits
		apache  []string // after --group G
		ours    []string // after GROUP
	}{
		{"to-earliest", full, []string{"--all-topics", "--to-earliest"}, []string{"--all-topics", "--to", "earliest"}},
		{"to-latest", full, []string{"--all-topics", "--to-latest"}, []string{"--all-topics", "--to", "latest"}},
		{"to-current (a partition without commit)", commits{tA: {0: 50}}, []string{"--topic", tA, "--to-current"}, []string{"--topic", tA, "--to", "current"}},
		{"to-offset", full, []string{"--all-topics", "--to-offset", "30"}, []string{"--all-topics", "--to", "30"}},
		{"shift plus", full, []string{"--all-topics", "--shift-by", "10"}, []string{"--all-topics", "--to", "shift:+10"}},
		{"shift minus", full, []string{"--all-topics", "--shift-by", "-10"}, []string{"--all-topics", "--to", "shift:-10"}},
		{"shift past the end", full, []string{"--all-topics", "--shift-by", "1000"}, []string{"--all-topics", "--to", "shift:+1000"}},
		{"shift past the start", full, []string{"--all-topics", "--shift-by", "-1000"}, []string{"--all-topics", "--to", "shift:-1000"}},
		{"to-datetime", full, []string{"--all-topics", "--to-datetime", at40.Format("2006-01-02T15:04:05.000")}, []string{"--all-topics", "--to", "time:" + at40.Format(time.RFC3339Nano)}},
		{"by-duration", full, []string{"--all-topics", "--by-duration", "PT1H"}, []string{"--all-topics", "--to", "ago:1h"}},
		{"by-duration, no newer records", full, []string{"--all-topics", "--by-duration", "PT1M"}, []string{"--all-topics", "--to", "ago:PT1M"}},
		{"from-file", full, []string{"--from-file", plan}, []string{"--to", "file:" + plan}},
		{"one topic", full, []string{"--topic", tA, "--to-earliest"}, []string{"--topic", tA, "--to", "earliest"}},
		{"one partition", full, []string{"--topic", tA + ":1", "--to-earliest"}, []string{"--topic", tA + ":1", "--to", "earliest"}},
		{"several topics", full, []string{"--topic", tA, "--topic", tB, "--to-earliest"}, []string{"--topic", tA, "--topic", tB, "--to", "earliest"}},
	}
	pair := func(t *testing.T, cm commits) (string, string) {
		g1, g2 := testkit.Name(t, "apache"), testkit.Name(t, "ours")
		for _, g := range []string{g1, g2} {
			for topic, offs := range cm {
				c.Commit(g, topic, offs)
			}
		}
		return g1, g2
	}
	for i, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			g1, g2 := pair(t, sc.commits)
			c.ApacheTool(append(append([]string{"--reset-offsets", "--group", g1}, sc.apache...), "--execute")...)
			mustRun(t, c, 0, append(append([]string{"reset", g2}, sc.ours...), "--execute", "--backup", filepath.Join(dir, fmt.Sprintf("b%d.csv", i)))...)
			if a, o := c.Committed(g1), c.Committed(g2); !reflect.DeepEqual(a, o) {
				t.Errorf("committed offsets differ\nApache:    %v\noffsetctl: %v", a, o)
			}
		})
	}

	// Export then import, each tool with its own file; the exports
	// are the same lines too.
	t.Run("export then import", func(t *testing.T) {
		g1, g2 := pair(t, full)
		apacheCSV := c.ApacheTool("--reset-offsets", "--group", g1, "--all-topics", "--to-offset", "2", "--export")
		ours := mustRun(t, c, 0, "reset", g2, "--all-topics", "--to", "2", "--export").stdout
		if a, o := csvLines(apacheCSV), csvLines(ours); !reflect.DeepEqual(a, o) {
			t.Errorf("exports differ\nApache:    %q\noffsetctl: %q", a, o)
		}
		fa, fo := filepath.Join(dir, "apache-export.csv"), filepath.Join(dir, "ours-export.csv")
		writeFile(t, fa, apacheCSV)
		writeFile(t, fo, ours)
		// Each tool imports the other's export.
		c.ApacheTool("--reset-offsets", "--group", g1, "--from-file", fo, "--execute")
		mustRun(t, c, 0, "reset", g2, "--to", "file:"+fa, "--execute", "--backup", filepath.Join(dir, "export.csv"))
		want := map[string]map[int32]int64{tA: {0: 2, 1: 2}, tB: {0: 2}}
		if a, o := c.Committed(g1), c.Committed(g2); !reflect.DeepEqual(a, want) || !reflect.DeepEqual(o, want) {
			t.Errorf("after import\nApache:    %v\noffsetctl: %v\nwant       %v", a, o, want)
		}
	})

	// Apache's --from-file reads an offsetctl backup: the committed
	// offsets come back; only offsetctl also restores "no commit".
	t.Run("apache restores an offsetctl backup", func(t *testing.T) {
		cm := commits{tA: {0: 50}, tB: {0: 20}}
		g1, g2 := pair(t, cm)
		b1, b2 := filepath.Join(dir, "backup-g1.csv"), filepath.Join(dir, "backup-g2.csv")
		mustRun(t, c, 0, "reset", g1, "--topic", tA, "--topic", tB, "--to", "latest", "--execute", "--backup", b1)
		mustRun(t, c, 0, "reset", g2, "--topic", tA, "--topic", tB, "--to", "latest", "--execute", "--backup", b2)
		c.ApacheTool("--reset-offsets", "--group", g1, "--from-file", b1, "--execute")
		mustRun(t, c, 0, "reset", g2, "--to", "file:"+b2, "--execute", "--backup", filepath.Join(dir, "backup-g2-undo.csv"))
		if got := c.Committed(g2); !reflect.DeepEqual(got, map[string]map[int32]int64(cm)) {
			t.Errorf("offsetctl restore = %v, want %v", got, cm)
		}
		// Apache restores every committed offset; tA/1 had none and
		// Apache cannot delete it, so it stays at the log end.
		want := map[string]map[int32]int64{tA: {0: 50, 1: 100}, tB: {0: 20}}
		if got := c.Committed(g1); !reflect.DeepEqual(got, want) {
			t.Errorf("Apache restore = %v, want %v", got, want)
		}
	})
}

func csvLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	sort.Strings(out)
	return out
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}
