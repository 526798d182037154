package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/offsetctl/offsetctl/internal/exitcode"
	"github.com/offsetctl/offsetctl/internal/safetext"
)

// commandGroups are the headings of the root help, in order, and the
// commands under each (gh's grouping of `gh --help`). A command not named
// here is listed under "Additional Commands" (completion, help, version).
var commandGroups = []struct {
	id, title string
	commands  []string
}{
	{"inspect", "Inspect:", []string{"groups", "lag", "translate"}},
	{"change", "Change offsets (dry run by default):", []string{"reset", "delete-offsets", "delete-group", "undo"}},
	{"replay", "Replay:", []string{"replay", "digest"}},
	{"record", "Record and compare:", []string{"history", "snapshot", "diff"}},
	{"serve", "Serve:", []string{"exporter"}},
	{"learn", "Learn:", []string{"demo", "playground", "semantics"}},
}

// connectionFlagNames are the global flags that say how to reach and
// authenticate to a cluster. They work on every command but are described
// once, in `offsetctl help connection`, not under every command's help.
var connectionFlagNames = []string{
	"brokers", "timeout", "client-id", "command-config", "profile",
	"tls", "tls-ca", "tls-cert", "tls-key", "tls-server-name", "tls-insecure-skip-verify",
	"sasl-mechanism", "sasl-user", "sasl-password-file", "sasl-token-file",
}

func isConnectionFlag(name string) bool {
	for _, n := range connectionFlagNames {
		if n == name {
			return true
		}
	}
	return false
}

// setupHelp groups root's commands, adds the help topics and installs the
// usage text that leaves the connection flags to their topic.
func (a *app) setupHelp(root *cobra.Command) {
	for _, g := range commandGroups {
		root.AddGroup(&cobra.Group{ID: g.id, Title: g.title})
	}
	for _, c := range root.Commands() {
		for _, g := range commandGroups {
			for _, name := range g.commands {
				if c.Name() == name {
					c.GroupID = g.id
				}
			}
		}
	}
	for _, t := range helpTopics(root) {
		root.AddCommand(t)
	}
	root.SetHelpCommand(helpCmd())
	root.SetUsageFunc(usage)
}

// helpCmd is `offsetctl help [COMMAND... | TOPIC]`: cobra's help command,
// but a word that names no command or topic is bad usage (exit 2, one
// line on stderr, the word shortened), not "Unknown help topic" and the
// whole usage on stdout with exit 0; nor is a word after a topic or a
// command without subcommands ignored (`help exit-codes extra`).
func helpCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		Long: `Help provides help for any command in the application.
Simply type offsetctl help [path to command] for full details.`,
		ValidArgsFunction: func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			cmd, err := helpTarget(c.Root(), args)
			if err != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var out []cobra.Completion
			for _, sub := range cmd.Commands() {
				if helpListed(sub) && strings.HasPrefix(sub.Name(), toComplete) {
					out = append(out, cobra.CompletionWithDesc(sub.Name(), sub.Short))
				}
			}
			return out, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			cmd, err := helpTarget(c.Root(), args)
			if err != nil {
				return err
			}
			cmd.InitDefaultHelpFlag()
			cmd.InitDefaultVersionFlag()
			return cmd.Help()
		},
	}
}

// helpTarget is the command or topic the words of `help WORD...` name,
// or the bad-usage error saying which word names nothing.
func helpTarget(root *cobra.Command, words []string) (*cobra.Command, error) {
	cmd := root
	for i, w := range words {
		sub := helpChild(cmd, w)
		if sub != nil {
			cmd = sub
			continue
		}
		switch {
		case cmd == root:
			hint := "offsetctl help lists the commands and topics"
			if near := helpSuggestion(root, w); near != "" {
				hint = "did you mean " + near + "? (" + hint + ")"
			}
			return nil, exitcode.Usagef("unknown help topic %s: %s", safetext.QuotedArg(w), hint)
		case cmd.HasAvailableSubCommands():
			var subs []string
			for _, s := range cmd.Commands() {
				if s.IsAvailableCommand() {
					subs = append(subs, s.Name())
				}
			}
			return nil, exitcode.Usagef("unknown help topic %s for %s (its commands: %s)", safetext.QuotedArg(w), subcommand(cmd), strings.Join(subs, ", "))
		}
		return nil, exitcode.Usagef("help %s takes no more arguments, got %s", subcommand(cmd), quoteArgs(words[i:]))
	}
	return cmd, nil
}

// helpChild is cmd's subcommand or help topic named (or aliased) w.
func helpChild(cmd *cobra.Command, w string) *cobra.Command {
	for _, sub := range cmd.Commands() {
		if sub.Name() == w || sub.HasAlias(w) {
			return sub
		}
	}
	return nil
}

// helpListed says whether `help` offers sub: a command, a help topic or
// help itself, not cobra's hidden completion plumbing.
func helpListed(sub *cobra.Command) bool {
	return sub.IsAvailableCommand() || sub.Annotations[HelpTopicAnnotation] != "" || sub.Name() == "help"
}

// helpSuggestion is the command or topic of root a mistyped word is most
// likely meant to be (a prefix of it, or at most two edits away), or "".
func helpSuggestion(root *cobra.Command, w string) string {
	if len(w) > 64 {
		return ""
	}
	best, bestD := "", 3
	for _, sub := range root.Commands() {
		if !helpListed(sub) {
			continue
		}
		d := editDistance(strings.ToLower(w), sub.Name())
		if len(w) >= 2 && strings.HasPrefix(sub.Name(), strings.ToLower(w)) {
			d = 0
		}
		if d < bestD {
			best, bestD = sub.Name(), d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b (bytes).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// HelpTopicAnnotation marks a help topic's command (hidden: it is read
// with `offsetctl help TOPIC`, listed by the root help, and given its own
// page by internal/tools/gendocs).
const HelpTopicAnnotation = "offsetctl/help-topic"

func helpTopics(root *cobra.Command) []*cobra.Command {
	topic := func(name, short, long string) *cobra.Command {
		return &cobra.Command{Use: name, Short: short, Long: long, Hidden: true,
			Annotations: map[string]string{HelpTopicAnnotation: "true"}}
	}
	return []*cobra.Command{
		topic("connection", "How to reach and authenticate to a cluster: the flags every command takes", connectionHelp(root.PersistentFlags())),
		topic("environment", "Every environment variable offsetctl reads", environmentHelp),
		topic("formatting", "Output formats (-o table|json|csv), the JSON shapes and what stays stable", formattingHelp),
		topic("exit-codes", "What each exit code means", exitCodesHelp),
	}
}

// usage is cobra's default usage text but for two things: the connection
// flags are left to `offsetctl help connection` (one line points there),
// and the root lists the help topics.
func usage(c *cobra.Command) error {
	w := c.OutOrStderr()
	fmt.Fprint(w, "Usage:")
	if c.Runnable() {
		fmt.Fprintf(w, "\n  %s", c.UseLine())
	}
	if c.HasAvailableSubCommands() {
		fmt.Fprintf(w, "\n  %s [command]", c.CommandPath())
	}
	if len(c.Aliases) > 0 {
		fmt.Fprintf(w, "\n\nAliases:\n  %s", c.NameAndAliases())
	}
	if c.HasExample() {
		fmt.Fprintf(w, "\n\nExamples:\n%s", c.Example)
	}
	if c.HasAvailableSubCommands() {
		writeCommands(w, c)
	}
	local, hidLocal := withoutConnection(c.LocalFlags())
	inherited, hidInherited := withoutConnection(c.InheritedFlags())
	if local.HasAvailableFlags() {
		fmt.Fprintf(w, "\n\nFlags:\n%s", strings.TrimRight(local.FlagUsages(), " \n"))
	}
	if inherited.HasAvailableFlags() {
		fmt.Fprintf(w, "\n\nGlobal Flags:\n%s", strings.TrimRight(inherited.FlagUsages(), " \n"))
	}
	if hidLocal || hidInherited {
		fmt.Fprintf(w, "\n\nConnection flags (--brokers, --profile, --command-config, --timeout, TLS, SASL):\n  offsetctl help connection")
	}
	if c == c.Root() {
		fmt.Fprintf(w, "\n\nHelp topics:")
		for _, t := range c.Commands() {
			if t.Annotations[HelpTopicAnnotation] != "" {
				fmt.Fprintf(w, "\n  %-*s  %s", nameColumn(c), t.Name(), t.Short)
			}
		}
	}
	if c.HasAvailableSubCommands() {
		fmt.Fprintf(w, "\n\nUse \"%s [command] --help\" for more information about a command.", c.CommandPath())
		if c == c.Root() {
			fmt.Fprintf(w, "\nUse \"%s help TOPIC\" to read a help topic.", c.CommandPath())
		}
	}
	fmt.Fprintln(w)
	return nil
}

// shownCommand says whether a command list shows sub.
func shownCommand(sub *cobra.Command) bool { return sub.IsAvailableCommand() || sub.Name() == "help" }

// nameColumn is the width of the name column of c's command lists: the
// longest name listed (a help topic's too, so the root's lists share one
// column), which is followed by two spaces. cobra's NamePadding is that
// width with one space after it, so the longest name ran into its
// description ("delete-offsets Delete groups' ...") and looked unaligned.
func nameColumn(c *cobra.Command) int {
	width := 0
	for _, sub := range c.Commands() {
		if shownCommand(sub) || c == c.Root() && sub.Annotations[HelpTopicAnnotation] != "" {
			width = max(width, len(sub.Name()))
		}
	}
	return width
}

// writeCommands lists c's subcommands under their groups' headings.
func writeCommands(w io.Writer, c *cobra.Command) {
	width := nameColumn(c)
	line := func(sub *cobra.Command) {
		fmt.Fprintf(w, "\n  %-*s  %s", width, sub.Name(), sub.Short)
	}
	shown := shownCommand
	if len(c.Groups()) == 0 {
		fmt.Fprint(w, "\n\nAvailable Commands:")
		for _, sub := range c.Commands() {
			if shown(sub) {
				line(sub)
			}
		}
		return
	}
	for _, g := range c.Groups() {
		fmt.Fprintf(w, "\n\n%s", g.Title)
		for _, sub := range c.Commands() {
			if sub.GroupID == g.ID && shown(sub) {
				line(sub)
			}
		}
	}
	fmt.Fprint(w, "\n\nAdditional Commands:")
	for _, sub := range c.Commands() {
		if sub.GroupID == "" && shown(sub) {
			line(sub)
		}
	}
}

// withoutConnection copies fs without the connection flags, and says
// whether it left any out.
func withoutConnection(fs *pflag.FlagSet) (*pflag.FlagSet, bool) {
	out := pflag.NewFlagSet("", pflag.ContinueOnError)
	left := false
	fs.VisitAll(func(f *pflag.Flag) {
		if isConnectionFlag(f.Name) {
			left = left || !f.Hidden
			return
		}
		out.AddFlag(f)
	})
	return out, left
}

// connectionHelp is `offsetctl help connection`: the connection flags,
// described once, with where each setting can also come from.
func connectionHelp(fs *pflag.FlagSet) string {
	conn := pflag.NewFlagSet("", pflag.ContinueOnError)
	for _, name := range connectionFlagNames {
		if f := fs.Lookup(name); f != nil {
			conn.AddFlag(f)
		}
	}
	conn.SortFlags = false
	return `Every command that talks to a cluster takes these flags (before or after the
command name). They are left out of each command's --help to keep it short.

A setting is taken from the first of: the flags below; the Java client
properties file of --command-config (as kafka-consumer-groups.sh reads it);
the profile named by --profile (in $OFFSETCTL_CONFIG, else
$XDG_CONFIG_HOME/offsetctl/config.yaml or ~/.config/offsetctl/config.yaml);
the environment ($KAFKA_BROKERS, then localhost:9092). A secret never comes
from a flag: a SASL password comes from $KAFKA_SASL_PASSWORD,
--sasl-password-file or a terminal prompt, a token from $KAFKA_SASL_TOKEN or
--sasl-token-file. See docs/security.md.

Flags:
` + strings.TrimRight(conn.FlagUsages(), " \n") + `

Examples:
  offsetctl --brokers kafka-1:9092,kafka-2:9092 groups
  offsetctl --bootstrap-server kafka-1:9092 --command-config client.properties lag orders-billing
  offsetctl --profile prod --timeout 10s lag --all-groups
  KAFKA_SASL_PASSWORD=... offsetctl --tls --sasl-mechanism scram-sha-512 --sasl-user ana groups`
}

const environmentHelp = `Every environment variable offsetctl reads. A flag, where there is one, wins.

Connection (offsetctl help connection):
  KAFKA_BROKERS                bootstrap brokers when no flag, --command-config or profile names
                               them (default localhost:9092)
  KAFKA_SASL_PASSWORD          the SASL password (never a flag); not read for a backfill's target
  KAFKA_SASL_TOKEN             the OAUTHBEARER token (else --sasl-token-file); not read for a
                               backfill's target
  AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN
                               credentials of --sasl-mechanism aws-msk-iam
  (a profile's sasl.password_env or sasl.token_env names another variable: it is read too)
  OFFSETCTL_CONFIG             the profiles file of --profile (else $XDG_CONFIG_HOME/offsetctl/
                               config.yaml, else ~/.config/offsetctl/config.yaml)
  XDG_CONFIG_HOME, HOME        where the profiles file is; HOME also expands ~ in a profile

The audit trail (docs/audit.md):
  OFFSETCTL_AUDIT_LOG          the audit log (--audit-log wins; default
                               $XDG_STATE_HOME/offsetctl/audit.jsonl, else
                               ~/.local/state/offsetctl/audit.jsonl)
  OFFSETCTL_AUDIT_ROTATE_SIZE  rotate the log once it is this large (--audit-rotate-size wins;
                               default 64MiB; 0: never)
  XDG_STATE_HOME, HOME         where the default audit log is
  USER                         the user named in each audit entry, when the system's user
                               database cannot say

Running:
  GOMEMLIMIT                   Go's soft memory limit; when unset, replay sets 64 MiB for itself
  TMPDIR                       where demo keeps its files
  NO_COLOR                     set and not empty: no colour (https://no-color.org). offsetctl
                               writes no colour today; the setting is read at start-up so any
                               colour added later obeys it`

const formattingHelp = `-o/--output chooses the format of what a command writes to stdout:

  table  for people: aligned columns; unknown values show as - (a count the audit trail cannot
         know, such as what a change of outcome unknown applied, as ?). Its layout may change in
         any release: do not parse it.
  json   for programs: one document (an object, or an array where the command says so);
         lag --watch writes one document per line per round (JSON lines, each with "time").
  csv    for spreadsheets and programs: one header row, then rows; an unknown value is an empty
         field, numbers carry no + sign. Cells hold names exactly, as backups and plan files must
         to be read back: a group, topic, member, client id or host beginning with =, +, -, @, a
         tab or a CR is NOT neutralized against formula injection, and a spreadsheet that opens
         the file as it is may run it as a formula (=HYPERLINK(...)). Import it with every column
         as text instead (docs/bad-input.md#csv-in-a-spreadsheet); -o json is never evaluated.

Only data goes to stdout. Warnings, notes, progress, the undo line and errors go to stderr, so
"offsetctl ... -o json | jq" always reads clean JSON. On a terminal, names holding control bytes
are escaped; a file or a pipe gets their exact bytes (docs/bad-input.md). All JSON (the JSON lines
of lag --watch and replay's jsonl too) writes DEL, C1 controls, format characters such as bidi
overrides (U+202E) and U+2028/9 as \u escapes, terminal or not: it decodes to the exact strings.

The JSON shapes (full field lists in docs/lag.md, docs/reset.md, docs/replay.md, docs/audit.md,
docs/semantics.md):
  lag                {"isolation","groups":[{"group","type","state","members","topics","total_lag",
                     "note","partitions":[{"topic","partition","log_start","committed","log_end",
                     "lag","member","client_id","host","note","error"}],"coordinator"}]}
                     log_start/log_end are -1 when unknown; committed and lag are null when there
                     is none; time_lag_ms only with --time-lag, assume_reset only with
                     --assume-reset; coordinator (a broker id) only when the group was described
  lag --by topic     {"isolation","groups":[{...,"topics":[{"topic","partitions","lag","max_lag",
                     "max_time_lag_ms"}]}]}
  lag --by group     {"groups":[...]} in the shape of groups
  reset              one GROUP named: its plan, an object {"group","state","executed","backup",
                     "partitions":[...]}; else (several groups, --all-groups, -r, a plan file's
                     groups) an array of such plans, for one group too
  delete-offsets     one GROUP named: its plan, an object {"group","state","members","executed",
                     "backup","partitions":[...]}; else {"groups":[...]} of such plans
  delete-group       always {"groups":[{"group","type","state","members","commits","status",
                     "error"}]}, for one group too
                     (reset and delete-*: the shape follows the command line, never the cluster)
  replay             {"topic","isolation","records","bytes","digest","digest_version",...,
                     "partitions":[...],"verification":{...}}; with --shard "shard":{"index",
                     "count","selected","partitions"}, with --digest-out "digest_file"
  digest merge       {"topic","isolation","from","until","digest_version","digest","records",
                     "shard_count","proof_unchanged","shards":[...],"partitions":[...]}
  semantics          {"events","batch",...,"results":[{"mode","group","processed","duplicates",
                     "lost",...}],"replay":{...}}
  version            {"version","revision","go","os","arch"}

What stays stable: offsetctl follows Semantic Versioning (CHANGELOG.md). Its JSON and CSV output
are its interface to programs: within a major version a JSON key or CSV column is not removed or
renamed and does not change type or meaning; new keys and columns may be added, so read JSON by
key and ignore keys you do not know. The table is not part of that promise.`

const exitCodesHelp = `Exit codes:
  0  success
  1  operational failure, including any partial failure (never 0 after one)
  2  bad usage or input; nothing on the cluster was changed
  3  replay verification failed: a group's committed offsets changed during a replay
  4  a --fail-if threshold was crossed, and nothing failed: with a failure too
     (a named group that does not exist) the exit is 1, the check not being
     whole, and the threshold line is still printed before the error line
  141  the reader of stdout went away (| head) before everything asked for was written,
       and nothing else went wrong: a failure (1), a crossed threshold (4) or a failed
       verification (3) keep their code and stderr line; a tail (lag --watch, replay
       --follow) exits as on Ctrl-C; a command that changed a cluster exits 1

A bad-input error is one line on stderr, "offsetctl: ...", naming the value it refuses
(docs/bad-input.md). Bad input (2) is also: flags a command refuses together, an empty
value for a flag, an unknown help topic, a named group that snapshot cannot find, a file
to write whose path cannot be one (it exists and must be new, no such directory, a
directory, no permission) and an audit log whose path cannot be a log (/dev/zero, a
directory, a link); each is refused before anything is changed. A disk that fails while
a file or the audit log is written (full, an I/O error) is an operational failure (1).`
