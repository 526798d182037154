package cli

import (
	"slices"
	"strings"
	"testing"

	"github.com/offsetctl/offsetctl/internal/testkit"
)

// TestEnumFlagsComplete: each enum flag's choices complete through cobra's
// __complete command (what the bash script calls), filtered by the typed
// prefix; a prefix choice (--to shift:) gets no space after it, and a list
// flag completes its last item.
func TestEnumFlagsComplete(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
		dir  string
	}{
		{[]string{"lag", "g", "--by", ""}, []string{"partition", "topic", "group"}, ":4"},
		{[]string{"lag", "g", "--by", "t"}, []string{"topic"}, ":4"},
		{[]string{"lag", "g", "--assume-reset", ""}, []string{"earliest", "latest"}, ":4"},
		{[]string{"lag", "g", "-o", ""}, []string{"table", "json", "csv"}, ":4"},
		{[]string{"-o", "j"}, []string{"json"}, ":4"},
		{[]string{"replay", "t", "--output", "c"}, []string{"csv"}, ":4"},
		{[]string{"semantics", "--modes", "at-"}, []string{"at-least-once", "at-most-once"}, ":4"},
		{[]string{"semantics", "--modes", "sync,as"}, []string{"sync,async"}, ":4"},
		{[]string{"semantics", "--modes", "sync,"}, []string{"sync,all", "sync,async", "sync,at-least-once", "sync,at-most-once", "sync,auto", "sync,auto-greedy"}, ":4"},
		{[]string{"reset", "g", "--to", "sh"}, []string{"shift:"}, ":6"},
		{[]string{"reset", "g", "--to", "l"}, []string{"latest"}, ":4"},
		{[]string{"reset", "g", "--to", ""}, []string{"ago:", "current", "earliest", "file:", "group:", "latest", "shift:", "time:", "translated:"}, ":6"},
	} {
		words, dir := complete(t, c.args...)
		if !slices.Equal(words, c.want) || dir != c.dir {
			t.Errorf("%v<TAB> = %v %s, want %v %s", c.args, words, dir, c.want, c.dir)
		}
	}
}

// TestEnumFlagsListChoicesInHelp: --help lists each enum flag's choices.
func TestEnumFlagsListChoicesInHelp(t *testing.T) {
	for _, c := range []struct{ cmd, want string }{
		{"lag", "--by string roll rows up {partition|topic|group}"},
		{"lag", "{earliest|latest}"},
		{"lag", "{table|json|csv}"},
		{"semantics", "{at-most-once|at-least-once|auto|auto-greedy|sync|async|all}"},
		{"reset", "{earliest|latest|current|shift:±N|time:T|ago:D|file:PLAN.csv|group:OTHER|translated:ALIAS}"},
	} {
		// Blanks folded: the column's width is the longest flag's.
		out := strings.Join(strings.Fields(mustRun(t, nil, 0, c.cmd, "--help").stdout), " ")
		if !strings.Contains(out, c.want) {
			t.Errorf("%s --help lacks %q", c.cmd, c.want)
		}
	}
}

// TestEnumFlagsRefuseAsBefore: a value outside the choices is refused as
// the flag is parsed, with the line the package's parser always gave
// (exit 2), before anything connects.
func TestEnumFlagsRefuseAsBefore(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"lag", "g", "--by", "host"}, `offsetctl: --by: want partition, topic or group`},
		{[]string{"lag", "g", "--assume-reset", "none"}, `offsetctl: --assume-reset: want earliest or latest`},
		{[]string{"lag", "g", "-o", "yaml"}, `offsetctl: --output: want table, json or csv`},
		// The value is never echoed (it may be a pasted secret, or
		// carry terminal escapes): as --commit-source.
		{[]string{"lag", "g", "--isolation", "x\x1b[2Jsecret=hunter2"}, `offsetctl: --isolation: want uncommitted or committed`},
		{[]string{"lag", "g", "--by", "x\x1b[2Jsecret=hunter2"}, `offsetctl: --by: want partition, topic or group`},
		{[]string{"lag", "g", "-o", "x\x1b[2Jsecret=hunter2"}, `offsetctl: --output: want table, json or csv`},
		{[]string{"replay", "t", "--format", "x\x1b[2Jsecret=hunter2"}, `offsetctl: --format: want jsonl, raw or none`},
		{[]string{"semantics", "--modes", "sync,sync"}, `offsetctl: --modes sync given twice`},
	} {
		r := offsetctl(t, nil, append([]string{"--brokers", "127.0.0.1:1"}, c.args...)...)
		if r.code != 2 || strings.TrimSpace(r.stderr) != c.want {
			t.Errorf("%v: exit %d, stderr %q; want 2, %q", c.args, r.code, r.stderr, c.want)
		}
	}
	// A good value is kept: case and spaces as the parsers allow.
	r := offsetctl(t, nil, "lag", "g", "--by", " Topic ", "--help")
	if r.code != 0 {
		t.Errorf("--by ' Topic ': exit %d %s", r.code, r.stderr)
	}
}

// A value pflag cannot parse (a duration, a number) is named by its flag
// and kind, on one short line, never echoed (QA: a 5,000-character
// --window came back twice, 2,102 bytes of stderr).
func TestFlagValueNotEchoed(t *testing.T) {
	c := testkit.New(t)
	long := "1s\x1b[2K" + strings.Repeat("secret", 800)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"lag", "g", "--watch", long}, "offsetctl: --watch: want a duration: a number and a unit (500ms, 30s, 5m, 1h)\n"},
		{[]string{"lag", "g", "--status", "--window", long}, "offsetctl: --window: want a duration: a number and a unit (500ms, 30s, 5m, 1h)\n"},
		{[]string{"semantics", "--events", "ten" + long}, "offsetctl: --events: want a whole number\n"},
		{[]string{"semantics", "--events", "99999999999999999999999"}, "offsetctl: --events: out of range: want a whole number\n"},
	} {
		r := mustRun(t, c, 2, tc.args...)
		if r.stdout != "" || r.stderr != tc.want {
			t.Errorf("%.40q: stdout %q, stderr %q, want %q", tc.args, r.stdout, r.stderr, tc.want)
		}
	}
}

// TestSwitchGivenValue: a switch given a value (--regex='orders-.*') said
// `--regex: want true or false`, as if the switch took a boolean; the
// patterns are arguments (QA finding). The line says the flag is a switch
// and where its values go, without echoing the value; exit 2 before
// anything connects. -r/--regex is the selection of every command that
// has it (lag, exporter, reset, delete-*).
func TestSwitchGivenValue(t *testing.T) {
	const regex = "offsetctl: --regex is a switch: give the patterns as arguments (--regex PATTERN...)\n"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"lag", "--regex=orders-.*"}, regex},
		{[]string{"lag", "-r=orders-.*"}, regex},
		{[]string{"exporter", "--regex=x\x1b[2Jsecret=hunter2"}, regex},
		{[]string{"reset", "--regex=old-.*", "--topic", "t", "--to", "earliest"}, regex},
		{[]string{"delete-offsets", "--regex=old-.*", "--topic", "t"}, regex},
		{[]string{"delete-group", "-r=old-.*"}, regex},
		{[]string{"reset", "g", "--topic", "t", "--to", "earliest", "--execute=secret"}, "offsetctl: --execute is a switch: give it alone (--execute), or --execute=true or --execute=false\n"},
		{[]string{"lag", "g", "--time-lag=5m"}, "offsetctl: --time-lag is a switch: give it alone (--time-lag), or --time-lag=true or --time-lag=false\n"},
	} {
		r := mustRun(t, nil, 2, append([]string{"--brokers", "127.0.0.1:1"}, tc.args...)...)
		if r.stdout != "" || r.stderr != tc.want {
			t.Errorf("%q: stdout %q, stderr %q, want %q", tc.args, r.stdout, r.stderr, tc.want)
		}
	}
	// true and false are still a switch's values.
	if r := offsetctl(t, nil, "lag", "--regex=true", "x", "--help"); r.code != 0 {
		t.Errorf("--regex=true: exit %d %s", r.code, r.stderr)
	}
}
