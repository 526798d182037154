package cli

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/offsetctl/offsetctl/internal/exitcode"
)

// TestHistoryVerifyWithFilters: --verify ID reads one change, the filters
// select a list; given together they are bad usage (exit 2, one line in
// offsetctl's words), not cobra's "if any flags in the group [verify
// since] are set none of the others can be" with exit 1.
func TestHistoryVerifyWithFilters(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"history", "--verify", "01M8T8W8Y1KCK5XWQG09MTTSDB", "--since", "7d"}, "offsetctl: --verify and --since contradict each other\n"},
		{[]string{"history", "--group", "g", "--verify", "01M8T8W8Y1KCK5XWQG09MTTSDB"}, "offsetctl: --verify and --group contradict each other\n"},
		{[]string{"history", "--verify", "01M8T8W8Y1KCK5XWQG09MTTSDB", "-t", "orders"}, "offsetctl: --verify and --topic contradict each other\n"},
	} {
		r := offsetctl(t, nil, c.args...)
		if r.code != exitcode.Usage || r.stderr != c.want || r.stdout != "" {
			t.Errorf("offsetctl %s: exit %d, stdout %q, stderr %q; want exit 2 and %q", strings.Join(c.args, " "), r.code, r.stdout, r.stderr, c.want)
		}
	}
}

// TestFlagGroupWords: every kind of cobra flag rule is bad usage (exit 2)
// with one line naming the flags. It also notices a cobra that keeps its
// rules under other annotation names (the words would be cobra's again).
func TestFlagGroupWords(t *testing.T) {
	newCmd := func() *cobra.Command {
		cmd := &cobra.Command{Use: "x", RunE: func(*cobra.Command, []string) error { return nil }}
		fl := cmd.Flags()
		for _, n := range []string{"cert", "key", "json", "csv", "id", "since", "name"} {
			fl.String(n, "", "")
		}
		fl.Bool("all", false, "")
		cmd.MarkFlagsRequiredTogether("cert", "key")
		cmd.MarkFlagsOneRequired("name", "all")
		cmd.MarkFlagsMutuallyExclusive("json", "csv")
		cmd.MarkFlagsMutuallyExclusive("id", "since")
		return cmd
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--all", "--cert", "c"}, "--cert and --key go together: --key is missing"},
		{[]string{"--json", "j"}, "give one of --name or --all"},
		{[]string{"--all", "--csv", "c", "--json", "j"}, "--json and --csv contradict each other"},
		{[]string{"--name", "n", "--since", "1d", "--id", "X"}, "--id and --since contradict each other"},
	}
	for _, c := range cases {
		cmd := newCmd()
		if err := cmd.ParseFlags(c.args); err != nil {
			t.Fatal(err)
		}
		err := checkFlagGroups(cmd)
		if exitcode.Code(err) != exitcode.Usage || err.Error() != c.want {
			t.Errorf("%v: %v (exit %d), want exit 2 and %q", c.args, err, exitcode.Code(err), c.want)
		}
	}
	cmd := newCmd()
	if err := cmd.MarkFlagRequired("since"); err != nil {
		t.Fatal(err)
	}
	if err := cmd.ParseFlags([]string{"--all"}); err != nil {
		t.Fatal(err)
	}
	if err := checkFlagGroups(cmd); exitcode.Code(err) != exitcode.Usage || err.Error() != "--since is required" {
		t.Errorf("a required flag left out: %v", err)
	}
	ok := newCmd()
	if err := ok.ParseFlags([]string{"--all", "--cert", "c", "--key", "k", "--json", "j"}); err != nil {
		t.Fatal(err)
	}
	if err := checkFlagGroups(ok); err != nil {
		t.Errorf("flags that keep every rule: %v", err)
	}
}

// TestFlagGroupsEveryCommand breaks every flag rule of every command of
// the real tree (two flags of a mutually exclusive group, one flag of a
// group required together): each run is exit 2 with one stderr line and
// nothing on stdout, whatever command a rule is added to later.
func TestFlagGroupsEveryCommand(t *testing.T) {
	root := (&app{stdout: io.Discard, stderr: io.Discard, stdin: strings.NewReader(""), getenv: func(string) string { return "" }, now: time.Now}).rootCmd()
	ran := 0
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		path := strings.Fields(c.CommandPath())[1:]
		check := func(names []string) {
			args := append([]string(nil), path...)
			for _, n := range names {
				args = append(args, "--"+n+"="+sampleValue(c.Flags().Lookup(n)))
			}
			r := offsetctl(t, nil, args...)
			if r.code != exitcode.Usage || r.stdout != "" || strings.Count(r.stderr, "\n") != 1 {
				t.Errorf("offsetctl %s: exit %d, stdout %q, stderr %q: want exit 2 and one line", strings.Join(args, " "), r.code, r.stdout, r.stderr)
			}
			ran++
		}
		for _, g := range flagGroups(c.Flags(), annExclusive) {
			check(g[:2])
		}
		for _, g := range flagGroups(c.Flags(), annTogether) {
			check(g[:1])
		}
	}
	walk(root)
	if ran == 0 {
		t.Fatal("no command has a flag group: is history's --verify still one?")
	}
}

// sampleValue is a value a flag of f's type parses.
func sampleValue(f *pflag.Flag) string {
	switch f.Value.Type() {
	case "bool":
		return "true"
	case "duration":
		return "1s"
	case "int", "int32", "int64", "uint", "uint32", "uint64", "float64":
		return "1"
	}
	return "x"
}
