package cli

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestRootHelpGrouped: the root help lists every command under one of the
// six headings (cobra groups), the rest (completion, help, version) under
// "Additional Commands", and the help topics.
func TestRootHelpGrouped(t *testing.T) {
	out := mustRun(t, nil, 0, "--help").stdout
	section := func(title string) string {
		i := strings.Index(out, "\n"+title+"\n")
		if i < 0 {
			t.Fatalf("--help has no %q heading:\n%s", title, out)
		}
		rest := out[i+len(title)+2:]
		if j := strings.Index(rest, "\n\n"); j >= 0 {
			rest = rest[:j]
		}
		return rest
	}
	listed := func(title string) []string {
		var names []string
		for _, l := range strings.Split(section(title), "\n") {
			if f := strings.Fields(l); len(f) > 0 {
				names = append(names, f[0])
			}
		}
		return names
	}
	var all []string
	for _, g := range commandGroups {
		got := listed(g.title)
		want := slices.Clone(g.commands)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s lists %v, want %v", g.title, got, want)
		}
		all = append(all, got...)
	}
	if got := listed("Additional Commands:"); !slices.Equal(got, []string{"completion", "help", "version"}) {
		t.Errorf("Additional Commands: %v", got)
	}
	if got := listed("Help topics:"); !slices.Equal(got, []string{"connection", "environment", "exit-codes", "formatting"}) {
		t.Errorf("Help topics: %v", got)
	}
	// Every command a user can run is under a heading.
	a := &app{stdout: &strings.Builder{}, stderr: &strings.Builder{}, stdin: strings.NewReader(""), getenv: func(string) string { return "" }}
	for _, c := range a.rootCmd().Commands() {
		if !c.Hidden && !slices.Contains(all, c.Name()) && !slices.Contains([]string{"completion", "help", "version"}, c.Name()) {
			t.Errorf("command %s is in no group", c.Name())
		}
	}
}

// TestConnectionFlagsShownOnce: a command's --help leaves the connection
// flags out and points at `offsetctl help connection`, which describes
// each; the flags still work on the command (and keep their error lines).
func TestConnectionFlagsShownOnce(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"lag", "--help"}, {"reset", "--help"}, {"replay", "--help"}, {"semantics", "count", "--help"}} {
		out := mustRun(t, nil, 0, args...).stdout
		for _, name := range connectionFlagNames {
			if strings.Contains(out, "--"+name+" ") {
				t.Errorf("%v lists --%s", args, name)
			}
		}
		if !strings.Contains(out, "offsetctl help connection") || !strings.Contains(out, "--output") {
			t.Errorf("%v: no pointer to help connection, or -o missing:\n%s", args, out)
		}
	}
	out := mustRun(t, nil, 0, "help", "connection").stdout
	for _, name := range connectionFlagNames {
		if !strings.Contains(out, "--"+name+" ") {
			t.Errorf("help connection does not describe --%s", name)
		}
	}
	if strings.Contains(out, "--sasl-password ") || strings.Contains(out, "--audit-log") {
		t.Errorf("help connection lists a hidden or non-connection flag:\n%s", out)
	}
	// Still a flag of every command: its own bad-input line, exit 2.
	r := offsetctl(t, nil, "lag", "g", "--timeout", "0s")
	if r.code != 2 || !strings.Contains(r.stderr, "--timeout must be positive") {
		t.Errorf("lag --timeout 0s: exit %d, %q", r.code, r.stderr)
	}
}

// envRead finds the environment variables the code reads: getenv("X"),
// Getenv("X") and Env... = "X" constants, in every non-test Go file of
// the module but the developer tools (internal/tools, scripts/) and the
// test kit.
var envRead = regexp.MustCompile(`(?:[gG]etenv|LookupEnv)\("([A-Z_][A-Z0-9_]*)"\)|\w*Env\w*\s*=\s*"([A-Z_][A-Z0-9_]*)"`)

// TestHelpEnvironmentListsEveryVariable: `offsetctl help environment`
// names every variable the code reads, so a new one cannot go unlisted.
func TestHelpEnvironmentListsEveryVariable(t *testing.T) {
	out := mustRun(t, nil, 0, "help", "environment").stdout
	found := map[string]bool{}
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() && (strings.HasPrefix(rel, ".") && rel != "." || rel == "internal/tools" || rel == "internal/testkit" || rel == "scripts") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, m := range envRead.FindAllStringSubmatch(string(b), -1) {
			found[m[1]+m[2]] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Set for a worker child process, read only by the test binary's
	// TestMain (cmd_semantics.go): offsetctl never reads it.
	delete(found, semanticsWorkerEnv)
	for _, v := range []string{"KAFKA_BROKERS", "OFFSETCTL_AUDIT_LOG", "GOMEMLIMIT", "NO_COLOR", "HOME", "TMPDIR"} {
		if !found[v] {
			t.Errorf("the source scan missed %s: is the pattern still right?", v)
		}
	}
	for v := range found {
		if !regexp.MustCompile(`\b` + v + `\b`).MatchString(out) {
			t.Errorf("help environment does not name %s, which the code reads", v)
		}
	}
}

// TestHelpFormatting: the formatting topic names the three formats, the
// commands' JSON shapes and the stability promise.
func TestHelpFormatting(t *testing.T) {
	out := mustRun(t, nil, 0, "help", "formatting").stdout
	for _, want := range []string{"table", "json", "csv", `"partitions"`, "Semantic Versioning", "reset and delete-*", "replay", "not part of that promise"} {
		if !strings.Contains(out, want) {
			t.Errorf("help formatting lacks %q", want)
		}
	}
}

// TestHelpFormattingChangeShapes: help formatting said reset and delete-*
// print "an object when exactly one group is named, else an array", but
// delete-group prints {"groups":[...]} always and delete-offsets of
// several groups {"groups":[...]} (QA finding). Each command's real JSON
// is decoded here, next to the words of the topic that describe it.
func TestHelpFormattingChangeShapes(t *testing.T) {
	help := oneLine(mustRun(t, nil, 0, "help", "formatting").stdout)
	f := newResetFixture(t)
	g1, g2 := f.group(t), f.group(t)
	for _, tc := range []struct {
		args  []string
		shape string // how the JSON begins: an array, or an object and its first key
		help  string
	}{
		{[]string{"reset", g1, "--topic", f.topic, "--to", "earliest"}, `{"group"`, `reset one GROUP named: its plan, an object {"group",`},
		{[]string{"reset", g1, g2, "--topic", f.topic, "--to", "earliest"}, `[`, `else (several groups, --all-groups, -r, a plan file's groups) an array of such plans, for one group too`},
		{[]string{"reset", "-r", g1, "--topic", f.topic, "--to", "earliest"}, `[{"group"`, `an array of such plans, for one group too`},
		{[]string{"delete-offsets", g1, "--topic", f.topic + ":0"}, `{"group"`, `delete-offsets one GROUP named: its plan, an object {"group",`},
		{[]string{"delete-offsets", g1, g2, "--topic", f.topic + ":0"}, `{"groups"`, `else {"groups":[...]} of such plans`},
		{[]string{"delete-offsets", "-r", g1, "--topic", f.topic + ":0"}, `{"groups":[{"group"`, `else {"groups":[...]} of such plans`},
		{[]string{"delete-group", g1}, `{"groups"`, `delete-group always {"groups":[{"group",`},
		{[]string{"delete-group", g1, g2}, `{"groups"`, `delete-group always {"groups":`},
	} {
		r := mustRun(t, f.c, 0, append(tc.args, "-o", "json")...)
		got := strings.Join(strings.Fields(r.stdout), "")
		if !strings.HasPrefix(got, tc.shape) {
			t.Errorf("%v -o json = %.60s..., want it to begin %s", tc.args, got, tc.shape)
		}
		if !strings.Contains(help, tc.help) {
			t.Errorf("help formatting does not say %q (for %v)", tc.help, tc.args)
		}
	}
}

// allCommands is every command of the tree, hidden ones too.
func allCommands(c *cobra.Command) []*cobra.Command {
	out := []*cobra.Command{c}
	for _, sub := range c.Commands() {
		out = append(out, allCommands(sub)...)
	}
	return out
}

// placeholder is what --help may show after a flag's name: pflag's name
// for the value's type, or a name in capitals (N, FILE, EXPR, TOPIC:P).
var placeholder = regexp.MustCompile(`^(|string|strings|stringArray|int|int32|int64|uint|float64|duration|[A-Z][A-Z0-9_]*([:.=,/|-][A-Z0-9_]+)*)$`)

// TestFlagPlaceholders: pflag takes the first `backquoted` words of a
// flag's text as the name of its value in --help, so a backquote meant as
// a code span names the value by it: replay --help showed `--digest-out
// offsetctl digest merge` (QA finding). Every flag of every command,
// hidden ones and persistent ones too, shows a plausible placeholder.
func TestFlagPlaceholders(t *testing.T) {
	a := &app{stdout: &strings.Builder{}, stderr: &strings.Builder{}, stdin: strings.NewReader(""), getenv: func(string) string { return "" }}
	n := 0
	for _, c := range allCommands(a.rootCmd()) {
		for _, fs := range []*pflag.FlagSet{c.LocalFlags(), c.PersistentFlags()} {
			fs.VisitAll(func(f *pflag.Flag) {
				n++
				if name, _ := pflag.UnquoteUsage(f); !placeholder.MatchString(name) {
					t.Errorf("%s --%s: --help shows its value as %q (a backquote in its text?): %q", c.CommandPath(), f.Name, name, f.Usage)
				}
			})
		}
	}
	if n < 150 {
		t.Errorf("checked %d flags: is the walk still reaching every command?", n)
	}
}

// otherTools are commands of other programs that help text quotes with
// their own flags.
var otherTools = map[string]bool{"brew": true, "git": true, "kafka-consumer-groups": true, "kafka-consumer-groups.sh": true}

// flagMention is a --flag in help text.
var flagMention = regexp.MustCompile(`--[a-z][a-z0-9.-]*[a-z0-9]`)

// qualified reports whether the flag mention at i in text is another
// command's: the word it follows, past other flags, their values and
// placeholders in capitals (`reset GROUP --all-groups --to file:F
// --execute`), names a command of the tree or another tool.
func qualified(text string, i int, commands map[string]bool) bool {
	words := strings.Fields(text[:i])
	for j := len(words) - 1; j >= 0; j-- {
		w := strings.Trim(words[j], "`'\"()$[]")
		switch {
		case strings.HasPrefix(w, "-"):
			continue // another flag
		case j > 0 && strings.HasPrefix(strings.Trim(words[j-1], "`'\"("), "--") && !strings.ContainsAny(words[j][len(words[j])-1:], ",;:.)"):
			j-- // a flag's value, then the flag
			continue
		case w != "" && strings.ToUpper(w) == w:
			continue // a placeholder: GROUP, I/N
		}
		return commands[w] || otherTools[w]
	}
	return false
}

// TestHelpMentionsOwnFlags: every --flag a command's help names (its
// description, examples and flag texts) is a flag of that command, or is
// qualified by another command's name (`lag --min-lag`, `offsetctl reset
// --to`): groups --help said "with --watch" in --sample and --window's
// text, and "implies --time-lag", flags groups does not have (QA finding).
// Help topics (help exit-codes, ...) are about every command: left out.
func TestHelpMentionsOwnFlags(t *testing.T) {
	a := &app{stdout: &strings.Builder{}, stderr: &strings.Builder{}, stdin: strings.NewReader(""), getenv: func(string) string { return "" }}
	all := allCommands(a.rootCmd())
	commands := map[string]bool{"offsetctl": true}
	for _, c := range all {
		commands[c.Name()] = true
	}
	n := 0
	for _, c := range all {
		if c.Annotations[HelpTopicAnnotation] != "" {
			continue
		}
		c.InitDefaultHelpFlag()
		texts := []string{c.Long, c.Example}
		c.LocalFlags().VisitAll(func(f *pflag.Flag) { texts = append(texts, f.Usage) })
		for _, text := range texts {
			for _, m := range flagMention.FindAllStringIndex(text, -1) {
				n++
				name := text[m[0]+2 : m[1]]
				if c.Flags().Lookup(name) != nil || c.InheritedFlags().Lookup(name) != nil || qualified(text, m[0], commands) {
					continue
				}
				t.Errorf("%s --help names --%s, which it does not have (name the command it is of): %q", c.CommandPath(), name, text)
			}
		}
	}
	if n < 100 {
		t.Errorf("checked %d mentions: is the walk still reaching every command?", n)
	}
}

// TestHelpUnknownTopic: a word that names no command or topic, or one
// after a topic or a command without subcommands, is bad usage: exit 2,
// one line on stderr with the word quoted and shortened, nothing on
// stdout. It was exit 0 with "Unknown help topic" and the whole usage on
// stdout, a 5,000-byte word echoed whole, and `help exit-codes extra`
// printed the topic as if "extra" were not there.
func TestHelpUnknownTopic(t *testing.T) {
	long := strings.Repeat("a", 5000)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"help", "nosuch"}, `offsetctl: unknown help topic "nosuch": offsetctl help lists the commands and topics` + "\n"},
		{[]string{"help", "exit-code"}, `offsetctl: unknown help topic "exit-code": did you mean exit-codes? (offsetctl help lists the commands and topics)` + "\n"},
		{[]string{"help", long}, `offsetctl: unknown help topic "` + long[:256] + `"... (5000 bytes): offsetctl help lists the commands and topics` + "\n"},
		{[]string{"help", "evil\x1b[2J"}, `offsetctl: unknown help topic "evil\x1b[2J": offsetctl help lists the commands and topics` + "\n"},
		{[]string{"help", "exit-codes", "extra"}, `offsetctl: help exit-codes takes no more arguments, got "extra"` + "\n"},
		{[]string{"help", "lag", "extra", "more"}, `offsetctl: help lag takes no more arguments, got "extra" "more"` + "\n"},
		{[]string{"help", "digest", "nosuch"}, `offsetctl: unknown help topic "nosuch" for digest (its commands: merge)` + "\n"},
	}
	for _, c := range cases {
		r := offsetctl(t, nil, c.args...)
		if r.code != 2 || r.stdout != "" || r.stderr != c.want {
			t.Errorf("offsetctl %.60q: exit %d, stdout %.200q, stderr %.400q; want exit 2 and %.400q", c.args, r.code, r.stdout, r.stderr, c.want)
		}
	}
	// What names a command or topic is still help, on stdout.
	for _, args := range [][]string{{"help"}, {"help", "exit-codes"}, {"help", "digest", "merge"}, {"help", "completion", "bash"}, {"help", "help"}} {
		if r := mustRun(t, nil, 0, args...); r.stdout == "" || r.stderr != "" {
			t.Errorf("offsetctl %v: stdout %.80q, stderr %q", args, r.stdout, r.stderr)
		}
	}
}

// TestUnknownCommand: a first word that names no command is one line that
// reads as a sentence, exit 2. cobra's suggestion ("\n\nDid you mean
// this?\n\tlag") folded onto the line ran together: `unknown command
// "lagg" for "offsetctl" Did you mean this? lag` (QA finding).
func TestUnknownCommand(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"lagg"}, `unknown command "lagg" (did you mean lag?)`},
		{[]string{"rest", "g"}, `unknown command "rest" (did you mean reset?)`},
		{[]string{"--no-audit", "delete-offset", "g"}, `unknown command "delete-offset" (did you mean delete-offsets?)`},
		{[]string{"formating"}, `unknown command "formating" (did you mean help formatting?)`},
		{[]string{"xyzzy"}, `unknown command "xyzzy" (offsetctl --help lists the commands)`},
		{[]string{"x\x1b[2J"}, `unknown command "x\x1b[2J" (`},
	} {
		r := badInput(t, nil, tc.want, tc.args...)
		if !strings.HasPrefix(r.stderr, "offsetctl: "+tc.want) {
			t.Errorf("%q: stderr %q, want it to begin offsetctl: %s", tc.args, r.stderr, tc.want)
		}
	}
}

// TestHelpTextWrapped: the prose of every command's help and every help
// topic is filled: no line over 100 columns, and no line ending short of
// where the next line's first word would still fit within 64. QA found
// "failed gather" alone on a line in exporter --help, "the environment
// ($KAFKA_BROKERS, then" cut mid-sentence in help connection, and a
// 105-column line in reset --help.
func TestHelpTextWrapped(t *testing.T) {
	const maxLine, minFill = 100, 64
	for _, c := range allCommands(Command()) {
		if strings.HasPrefix(c.CommandPath(), "offsetctl completion ") {
			continue // cobra's words
		}
		lines := strings.Split(c.Long, "\n")
		for i, l := range lines {
			width := len([]rune(l))
			if width > maxLine && !strings.HasPrefix(strings.TrimSpace(l), "-") { // a flag's line is pflag's, as in every Flags list
				t.Errorf("%s --help: line of %d columns: %q", c.CommandPath(), width, l)
			}
			if i+1 == len(lines) || l == "" || strings.HasPrefix(l, " ") || strings.HasPrefix(lines[i+1], " ") {
				continue
			}
			if next := strings.Fields(lines[i+1]); len(next) > 0 && width+1+len([]rune(next[0])) <= minFill {
				t.Errorf("%s --help: line ends early (%q would fit): %q", c.CommandPath(), next[0], l)
			}
		}
	}
}

// TestRootHelpAligned: the root help's command and topic lists share one
// description column, with two spaces at least after the longest name.
// cobra's padding is the longest name's width and one space, so
// "delete-offsets Delete groups' ..." read as run together (QA finding).
func TestRootHelpAligned(t *testing.T) {
	out := mustRun(t, nil, 0, "--help").stdout
	column := -1
	n := 0
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if !strings.HasPrefix(l, "  ") || strings.HasPrefix(l, "   ") || len(f) < 2 || strings.HasPrefix(f[0], "-") || f[0] == "offsetctl" {
			continue // not a command or topic line
		}
		n++
		desc := strings.Index(l[2+len(f[0]):], f[1]) + 2 + len(f[0])
		if desc-2-len(f[0]) < 2 {
			t.Errorf("one space after %s: %q", f[0], l)
		}
		if column < 0 {
			column = desc
		} else if desc != column {
			t.Errorf("%s's description begins at column %d, the first's at %d", f[0], desc, column)
		}
	}
	if n < 20 {
		t.Fatalf("found %d command and topic lines in --help:\n%s", n, out)
	}
}
