package cli

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// helpCommands walks the command tree: every command a user can ask
// --help of, except cobra's own help command.
func helpCommands(c *cobra.Command) []*cobra.Command {
	var out []*cobra.Command
	for _, sub := range c.Commands() {
		if sub.Hidden || sub.Name() == "help" {
			continue
		}
		out = append(out, sub)
		out = append(out, helpCommands(sub)...)
	}
	return out
}

// TestEveryCommandHasExamples: every command's --help shows example lines
// that run that very command (`offsetctl PATH ...`).
func TestEveryCommandHasExamples(t *testing.T) {
	a := &app{stdout: &strings.Builder{}, stderr: &strings.Builder{}, stdin: strings.NewReader(""), getenv: func(string) string { return "" }}
	root := a.rootCmd()
	cmds := helpCommands(root)
	if len(cmds) < 15 {
		t.Fatalf("only %d commands found", len(cmds))
	}
	for _, c := range cmds {
		path := strings.TrimPrefix(c.CommandPath(), "offsetctl ")
		r := mustRun(t, nil, 0, append(strings.Fields(path), "--help")...)
		ex := r.stdout[strings.Index(r.stdout, "Examples:")+1:]
		if !strings.Contains(r.stdout, "Examples:") {
			t.Errorf("offsetctl %s --help has no examples", path)
			continue
		}
		n := 0
		for _, l := range strings.Split(ex, "\n") {
			if strings.Contains(l, "offsetctl "+path) {
				n++
			}
		}
		if n == 0 {
			t.Errorf("offsetctl %s --help: no example runs `offsetctl %s`:\n%s", path, path, r.stdout)
		}
	}
}

// TestHelpCoversCommonForms: the examples a first-time user looks for are
// in the help of the command that does it.
func TestHelpCoversCommonForms(t *testing.T) {
	for _, c := range []struct {
		cmd  string
		what string
		want []string // all on one example line
	}{
		{"replay", "per-partition starts", []string{"--from 0="}},
		{"replay", "an exact range per partition", []string{"--from 0=", "--until 0="}},
		{"replay", "a time range", []string{"--from time:", "--until time:"}},
		{"replay", "a backfill", []string{"--produce-to"}},
		{"replay", "a backfill's resume", []string{"--produce-to", "--from 0="}},
		{"replay", "a pipe that reads N records", []string{"--max", "| head"}},
		{"reset", "a time target", []string{"--to ago:"}},
		{"reset", "restore from a backup", []string{"--to file:", "--execute"}},
		{"lag", "some partitions", []string{"--topic orders:"}},
		{"undo", "restore a recorded change", []string{"undo ", "--execute"}},
	} {
		r := mustRun(t, nil, 0, c.cmd, "--help")
		ex := r.stdout[strings.Index(r.stdout, "Examples:"):]
		ex = ex[:strings.Index(ex, "\nFlags:")]
		found := false
		for _, l := range strings.Split(ex, "\n") {
			all := true
			for _, w := range c.want {
				all = all && strings.Contains(l, w)
			}
			found = found || all
		}
		if !found {
			t.Errorf("%s --help: no example of %s (a line with %q):\n%s", c.cmd, c.what, c.want, ex)
		}
	}
}

// TestHelpSaysWhichFlagsGoTogether: a flag that only makes sense with
// another says so in its help line, and the command refuses it alone
// (exit 2, before any connection).
func TestHelpSaysWhichFlagsGoTogether(t *testing.T) {
	for _, c := range []struct {
		cmd     string
		flag    string
		partner string   // the help line of flag names it
		alone   []string // refused: exit 2
	}{
		{"replay", "target-brokers", "--produce-to", []string{"replay", "t", "--target-brokers", "127.0.0.1:1"}},
		{"replay", "target-command-config", "--produce-to", []string{"replay", "t", "--target-command-config", "x.properties"}},
		{"replay", "target-profile", "--produce-to", []string{"replay", "t", "--target-profile", "p"}},
		{"replay", "partitioner", "--produce-to", []string{"replay", "t", "--partitioner", "key"}},
		{"replay", "transactional-id", "--produce-to", []string{"replay", "t", "--transactional-id", "x"}},
		{"replay", "source-header", "--produce-to", []string{"replay", "t", "--source-header"}},
		{"replay", "no-verify", "--verify-groups", []string{"replay", "t", "--no-verify", "--verify-groups", "g"}},
		{"reset", "export", "-o", []string{"reset", "g", "--topic", "t", "--to", "earliest", "--export", "-o", "json"}},
		{"reset", "dry-run", "--execute", []string{"reset", "g", "--topic", "t", "--to", "earliest", "--execute", "--dry-run"}},
		{"reset", "all-topics", "--topic", []string{"reset", "g", "--topic", "t", "--all-topics", "--to", "earliest"}},
		{"exporter", "web-tls-key", "--web-tls-cert", []string{"exporter", "--web-tls-key", "k.pem"}},
		{"exporter", "exclude", "--all-groups or --regex", []string{"exporter", "g", "--exclude", "x"}},
	} {
		r := mustRun(t, nil, 0, c.cmd, "--help")
		var line string
		for _, l := range strings.Split(r.stdout, "\n") {
			if strings.Contains(l, "--"+c.flag+" ") {
				line = l
			}
		}
		if !strings.Contains(line, c.partner) {
			t.Errorf("%s --%s: help line %q does not name %s", c.cmd, c.flag, line, c.partner)
		}
		if got := offsetctl(t, nil, c.alone...); got.code != 2 {
			t.Errorf("offsetctl %s: exit %d, want 2 (stderr %q)", strings.Join(c.alone, " "), got.code, got.stderr)
		}
	}
}

// TestDiffHelpShowsBothForms: diff --help documents both of its forms in
// its usage line, its description and its examples (QA finding: the
// cluster form was only inside --translate's text).
func TestDiffHelpShowsBothForms(t *testing.T) {
	r := mustRun(t, nil, 0, "diff", "--help")
	usage := r.stdout[strings.Index(r.stdout, "Usage:"):]
	usage = usage[:strings.Index(usage, "\n\n")]
	long := r.stdout[:strings.Index(r.stdout, "Usage:")]
	ex := r.stdout[strings.Index(r.stdout, "Examples:"):]
	ex = ex[:strings.Index(ex, "\nFlags:")]
	for _, c := range []struct{ part, text, want string }{
		{"usage", usage, "offsetctl diff SNAPSHOT [SNAPSHOT]"},
		{"usage", usage, "--profile A --profile B GROUP..."},
		{"description", long, "diff SNAPSHOT [SNAPSHOT]"},
		{"description", long, "diff --profile A --profile B GROUP..."},
		{"examples", ex, "offsetctl diff before.csv"},
		{"examples", ex, "offsetctl diff --profile primary --profile dr "},
	} {
		if !strings.Contains(c.text, c.want) {
			t.Errorf("diff --help: the %s does not hold %q:\n%s", c.part, c.want, c.text)
		}
	}
}
