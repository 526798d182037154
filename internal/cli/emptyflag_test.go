package cli

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/offsetctl/offsetctl/internal/exitcode"
	"github.com/offsetctl/offsetctl/internal/testkit"
)

// emptyFlagArgs are the arguments each command is given in
// TestEmptyFlagValuesRefused, so that only the empty flag is wrong.
var emptyFlagArgs = map[string][]string{
	"offsetctl delete-group":   {"g", "--execute"},
	"offsetctl delete-offsets": {"g", "--topic", "t", "--execute"},
	"offsetctl diff":           {"a.csv"},
	"offsetctl groups":         nil,
	"offsetctl lag":            {"g"},
	"offsetctl replay":         {"t", "--produce-to", "copy"},
	"offsetctl reset":          {"g", "--topic", "t", "--execute"},
	"offsetctl snapshot":       {"g"},
	"offsetctl translate":      {"g", "--source-alias", "a", "--offset-syncs", "--target-alias", "b"},
	"offsetctl undo":           {"01M8T8W8Y1KCK5XWQG09MTTSDB", "--execute"},
	"offsetctl exporter":       {"--web.listen-address", "127.0.0.1:0"},
}

// TestEmptyFlagValuesRefused: a string flag given an empty (or blank)
// value, when its default is empty, is bad input on every command: exit
// 2, one line, before any request (the cluster is unreachable here). An
// empty value silently meant the default: --audit-log "$LOG" with LOG
// unset wrote to the default log, --out "" wrote the records to stdout.
func TestEmptyFlagValuesRefused(t *testing.T) {
	root := (&app{stdout: io.Discard, stderr: io.Discard, stdin: strings.NewReader(""), getenv: func(string) string { return "" }, now: time.Now}).rootCmd()
	ran := 0
	check := func(path []string, name string) {
		for _, v := range []string{"", "  "} {
			args := append(append(append([]string{"--brokers", "127.0.0.1:1", "--timeout", "2s"}, path...), emptyFlagArgs["offsetctl "+strings.Join(path, " ")]...), "--"+name+"="+v)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			r := offsetctlCtx(ctx, t, nil, args...)
			cancel()
			if r.code != exitcode.Usage || r.stdout != "" || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, "--"+name) {
				t.Errorf("offsetctl %s: exit %d, stdout %q, stderr %q: want exit 2 and one line naming --%s", strings.Join(args[4:], " "), r.code, r.stdout, r.stderr, name)
			}
			ran++
		}
	}
	root.PersistentFlags().VisitAll(func(f *pflag.Flag) {
		if f.DefValue == "" && f.Value.Type() == "string" {
			check([]string{"groups"}, f.Name)
		}
	})
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		if c == root {
			return
		}
		path := strings.Fields(c.CommandPath())[1:]
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if f.DefValue == "" && f.Value.Type() == "string" {
				check(path, f.Name)
			}
		})
	}
	walk(root)
	if ran < 40 {
		t.Fatalf("checked %d empty values: are the flags still there?", ran)
	}
}

// TestAuditLogEmptyRefused: --audit-log "" (an unset variable) is bad
// input, before anything is read or changed: it fell back to the default
// log without a word, so a change was recorded where the user did not
// look for it.
func TestAuditLogEmptyRefused(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(1, nil)
	g := testkit.Name(t, "g")
	c.Produce(topic, map[int32]int{0: 10}, time.Time{})
	c.Commit(g, topic, map[int32]int64{0: 2})
	want := "offsetctl: --audit-log is empty: name the log file, or leave the flag out for the default log ($OFFSETCTL_AUDIT_LOG, else the state directory); --no-audit keeps none (an unset shell variable?)\n"
	for _, args := range [][]string{
		{"--audit-log", "", "history"},
		{"--audit-log=", "undo", "01M8T8W8Y1KCK5XWQG09MTTSDB"},
		{"--audit-log", " ", "reset", g, "--topic", topic, "--to", "latest", "--execute", "--backup", filepath.Join(t.TempDir(), "b.csv")},
	} {
		r := offsetctl(t, c, args...)
		if r.code != exitcode.Usage || r.stdout != "" || r.stderr != want {
			t.Errorf("offsetctl %q: exit %d, stdout %q, stderr %q; want exit 2 and %q", args, r.code, r.stdout, r.stderr, want)
		}
	}
	wantCommitted(t, c, g, topic, map[int32]int64{0: 2})
	if _, err := os.Stat(testAuditLog(t)); !os.IsNotExist(err) {
		t.Errorf("the default log was written: %v", err)
	}
}
