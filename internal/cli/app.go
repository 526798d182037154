package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/twmb/franz-go/pkg/kgo"
	"golang.org/x/term"

	"github.com/offsetctl/offsetctl/internal/audit"
	"github.com/offsetctl/offsetctl/internal/buildinfo"
	"github.com/offsetctl/offsetctl/internal/cluster"
	"github.com/offsetctl/offsetctl/internal/coordretry"
	"github.com/offsetctl/offsetctl/internal/exitcode"
	"github.com/offsetctl/offsetctl/internal/inputfile"
	"github.com/offsetctl/offsetctl/internal/iostreams"
	"github.com/offsetctl/offsetctl/internal/safetext"
	"github.com/offsetctl/offsetctl/report"
)

// app is one invocation: its streams, environment and global flags. There is
// no package-level state; tests run many apps in one process.
type app struct {
	stdout, stderr io.Writer
	stdin          io.Reader
	getenv         func(string) string
	// io holds the terminal facts, decided once before any stream is
	// wrapped (iostreams); every command asks it, never a writer.
	io  *iostreams.IOStreams
	now func() time.Time
	// sleep waits between lag --status's samples; nil is a real wait
	// (tests act on the cluster there instead).
	sleep func(ctx context.Context, d time.Duration) error

	brokers  string
	timeout  time.Duration
	output   string
	clientID string
	verbose  bool

	// Connection security (docs/security.md). Secrets never come
	// from flags: saslPasswordArg exists only to refuse --sasl-password.
	tlsOn, tlsInsecure                    bool
	tlsCA, tlsCert, tlsKey, tlsServerName string
	saslMechanism, saslUser               string
	saslPasswordFile, saslTokenFile       string
	saslPasswordArg                       string
	commandConfig, profile                string
	// tlsOff is --tls=false given; commandConfigs counts --command-config.
	tlsOff         bool
	commandConfigs int
	// conn is the resolved connection, once per invocation (a password
	// prompt must not repeat).
	conn *cluster.Config
	// noPrompt is set during shell completion: the shell owns the terminal.
	noPrompt bool

	format report.Format

	// The audit trail (audit.go): where the log is, or --no-audit. args
	// is the command line as typed (redacted before it is logged),
	// secrets the resolved connection's secrets. auditAction and undoOf
	// mark a reset run by undo.
	auditLog, auditAction, undoOf string
	noAudit                       bool
	// otherCluster is, for an undo run with --other-cluster, the cluster
	// id the undone entry records (not the connected one's).
	otherCluster string
	// auditRotate is --audit-rotate-size (else $OFFSETCTL_AUDIT_ROTATE_SIZE),
	// auditGzip --audit-gzip.
	auditRotate   string
	auditGzip     bool
	args, secrets []string
	// auditTopic is --audit-topic; trailTopic the resolved one (the flag,
	// else the profile's audit_topic).
	auditTopic, trailTopic string
	// forcedOver: an undo run with --force over the later changes of an
	// entry whose outcome is unknown names them in its entry.
	forcedOver []string
	// restoring is, for the reset an undo runs, the backup it restores
	// as the undo read and checked it (planData).
	restoring *undoRestore

	// ran is set once a command's own code starts: errors before it
	// (flags, arguments, unknown commands) are usage errors.
	ran bool
	// stamped is the release version main was built with (-ldflags -X
	// main.version), "" when none: see buildinfo.
	stamped string
}

// Option configures Run.
type Option func(*app)

// WithVersion passes the version stamped into main at build time (empty
// when none): `version` and `--version` report it, else what the build
// info records.
func WithVersion(stamped string) Option {
	return func(a *app) { a.stamped = stamped }
}

// Run executes offsetctl with args and returns the exit code.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer, opts ...Option) int {
	a := &app{stdout: stdout, stderr: stderr, stdin: os.Stdin, getenv: os.Getenv, now: time.Now}
	for _, o := range opts {
		o(a)
	}
	a.io = iostreams.System(a.stdin, a.stdout, a.stderr, a.getenv)
	return a.execute(ctx, args)
}

// Command returns offsetctl's command tree without running it, for tools
// that render its help text (internal/tools/gendocs writes docs/cli and
// docs/man from it). It writes nothing and reads no environment.
func Command(opts ...Option) *cobra.Command {
	a := &app{stdout: io.Discard, stderr: io.Discard, stdin: strings.NewReader(""),
		getenv: func(string) string { return "" }, now: time.Now}
	a.io = iostreams.Test(a.stdin, a.stdout, a.stderr)
	for _, o := range opts {
		o(a)
	}
	root := a.rootCmd()
	// cobra adds these when it executes; the reference lists them.
	root.InitDefaultHelpFlag()
	root.InitDefaultVersionFlag()
	return root
}

func (a *app) execute(ctx context.Context, args []string) int {
	// The terminal facts are read from the streams as they were handed in,
	// before the filter below hides their file descriptors (tests that
	// build an app set io themselves, or get it decided here).
	a.ios()
	// Whatever reaches stderr (errors, warnings, the undo line, progress,
	// the client log) is free of raw control bytes: messages quote names
	// where they are built, and this is the net under them.
	a.stderr = safetext.Lines(a.stderr)
	// stdout's reader going away is one rule for every command: see
	// stdout.go.
	a.stdout = outputWriter{a.stdout}
	a.args = append([]string(nil), args...)
	root := a.rootCmd()
	root.SetArgs(args)
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	root.SetIn(a.stdin)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitcode.OK
	}
	if !a.ran {
		err = unknownCommand(root, err)
	}
	code := exitcode.Code(err)
	var ee *exitcode.Error
	if !a.ran && !errors.As(err, &ee) {
		code = exitcode.Usage
	}
	if errors.As(err, &ee) && ee.Quiet {
		return code
	}
	if a.ran && stdoutClosed(err) {
		// The reader left (`| head`): quietly, as cat does.
		return exitcode.OutputClosed
	}
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		fmt.Fprintln(a.stderr, "offsetctl: interrupted")
		return exitcode.Failure
	}
	fmt.Fprintln(a.stderr, stderrLine(err))
	return code
}

// unknownCommand rewrites cobra's error for a first word that names no
// command, `unknown command "lagg" for "offsetctl"` followed by its
// suggestion on lines of their own ("\n\nDid you mean this?\n\tlag"),
// which folded onto one line ran together. The line says it as one
// sentence: `unknown command "lagg" (did you mean lag?)`, the suggestion
// being help's (a help topic is offered as `help TOPIC`). Any other error
// is returned as it is. (A subcommand's unknown word is noArgs's line.)
func unknownCommand(root *cobra.Command, err error) error {
	msg := err.Error()
	prefix, suffix := "unknown command ", fmt.Sprintf(" for %q", root.Name())
	if !strings.HasPrefix(msg, prefix) || !strings.HasSuffix(msg, suffix) {
		return err
	}
	word, uerr := strconv.Unquote(msg[len(prefix) : len(msg)-len(suffix)])
	if uerr != nil {
		return err
	}
	hint := root.Name() + " --help lists the commands"
	if near := helpSuggestion(root, word); near != "" {
		if sub := helpChild(root, near); sub != nil && sub.Annotations[HelpTopicAnnotation] != "" {
			near = "help " + near
		}
		hint = "did you mean " + near + "?"
	}
	return exitcode.Usagef("unknown command %s (%s)", safetext.QuotedArg(word), hint)
}

// stderrLine is err as the one stderr line a command ends with.
func stderrLine(err error) string {
	return "offsetctl: " + capLine(safetext.ShortenWords(safetext.ShortenQuoted(errorLine(err))))
}

// maxErrorLine bounds the error line. Parse errors name the value they
// refuse, and a value can be an argument of any size (a 130 KB group, a
// glob's worth of topics): each quoted value is cut first
// (safetext.ShortenQuoted), so the reason after it is kept; this cap is
// the last resort for a line of many values, and never echoes an
// argument whole.
const maxErrorLine = 2048

// capLine cuts s after maxErrorLine bytes (on a rune boundary) and says
// how much was left out.
func capLine(s string) string {
	if len(s) <= maxErrorLine {
		return s
	}
	cut := maxErrorLine
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("... (%d more bytes of this message cut)", len(s)-cut)
}

// errorLine writes err on one line: the errors of an errors.Join are
// separated by "; ", any other line break folds to a space.
func errorLine(err error) string {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var parts []string
		for _, e := range j.Unwrap() {
			if e != nil {
				parts = append(parts, errorLine(e))
			}
		}
		return strings.Join(parts, "; ")
	}
	return oneLine(err.Error())
}

// oneLine folds s onto one line, collapsing runs of white space. Names
// inside s are quoted where the message was built (safetext.Arg), so a
// line break folded here is the message's own, never a name's.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func (a *app) rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "offsetctl",
		Short: "Inspect and move Kafka consumer-group offsets, safely",
		Long: `offsetctl shows consumer-group lag, resets offsets with a dry run and an exact
undo, replays topics without touching any group (and proves it), and runs the
commit-semantics crash experiment. Try it with no broker: offsetctl demo.

How to reach a cluster: offsetctl help connection. Exit codes: offsetctl help
exit-codes.`,
		SilenceUsage:      true,
		SilenceErrors:     true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error { return a.preRun(cmd) },
	}
	// --version prints the same version as `offsetctl version` (cobra adds
	// the flag once Version is set; -v stays --verbose).
	root.Version = buildinfo.Read(a.stamped).Version
	root.SetVersionTemplate("offsetctl {{.Version}}\n")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return exitcode.AsUsage(unwrapEnumError(err)) })
	root.SetGlobalNormalizationFunc(brokersAlias)
	// An unknown command's suggestion is unknownCommand's, on its line.
	root.DisableSuggestions = true
	a.persistentFlags(root.PersistentFlags())

	for _, c := range a.commands() {
		root.AddCommand(c)
	}
	// cobra's completion command prints its help and exits 0 for a shell
	// it does not know: make that bad usage like any other.
	// (It captures the output stream when created.)
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	root.InitDefaultCompletionCmd()
	a.registerEnumCompletions(root)
	a.registerCompletions(root)
	a.setupHelp(root)
	for _, c := range root.Commands() {
		if c.Name() == "completion" {
			completionExamples(c)
			c.Args = cobra.NoArgs
			c.RunE = func(*cobra.Command, []string) error {
				return exitcode.Usagef("name a shell: offsetctl completion bash|zsh|fish|powershell")
			}
		}
	}
	return root
}

// preRun checks the global flags before any command runs.
func (a *app) preRun(cmd *cobra.Command) error {
	f, err := report.ParseFormat(a.output)
	if err != nil {
		return exitcode.Flag("--output", err)
	}
	a.format = f
	if a.verbose {
		// Waits on a coordinator (coordretry) go to the
		// client log too.
		cmd.SetContext(coordretry.WithLog(cmd.Context(), func(msg string) {
			stderrLogger{a.stderr}.Log(kgo.LogLevelDebug, msg)
		}))
	}
	// CSV keeps a name's bytes (it quotes only commas, quotes and
	// line breaks), so a group named with ESC or BEL reached a
	// terminal raw with -o csv; there, every cell is escaped
	// (report.TerminalCSV: a line break inside a quoted cell too,
	// which would draw a forged row), and stdout as a whole as stderr
	// is. A file or a pipe still gets the exact bytes.
	if f == report.CSV && a.ios().IsStdoutTTY() {
		a.stdout = report.TerminalCSV(safetext.Lines(a.stdout))
	}
	if a.noAudit && changed(cmd.Flags(), "audit-topic") {
		return exitcode.Usagef("--no-audit and --audit-topic contradict each other")
	}
	if changed(cmd.Flags(), "audit-topic") && strings.TrimSpace(a.auditTopic) == "" {
		return exitcode.Usagef("--audit-topic is empty: name the topic of the shared trail")
	}
	if a.timeout <= 0 {
		return exitcode.Usagef("--timeout must be positive, got %s", a.timeout)
	}
	if a.commandConfigs > 1 {
		return exitcode.Usagef("--command-config is given %d times: name one properties file (a later one replaced the earlier, whose settings were dropped)", a.commandConfigs)
	}
	a.tlsOff = changed(cmd.Flags(), "tls") && !a.tlsOn
	if changed(cmd.Flags(), "brokers") && strings.TrimSpace(a.brokers) == "" {
		return exitcode.Usagef("--brokers is empty: give host:port[,host:port...]")
	}
	if err := checkEmptyFlags(cmd); err != nil {
		return err
	}
	if err := checkFlagGroups(cmd); err != nil {
		return err
	}
	a.ran = true
	return nil
}

// persistentFlags are the flags of every command: connection (shown once,
// by offsetctl help connection), output, audit.
func (a *app) persistentFlags(pf *pflag.FlagSet) {
	pf.StringVarP(&a.brokers, "brokers", "b", "", "comma-separated bootstrap brokers, also spelt --bootstrap-server (env KAFKA_BROKERS, default "+cluster.DefaultBrokers+")")
	pf.DurationVar(&a.timeout, "timeout", 30*time.Second, "how long to wait for the cluster before failing")
	enumVar(pf, &a.output, "output", "o", "table", "output format", enum{choices: []string{string(report.Table), string(report.JSON), string(report.CSV)},
		parse: func(s string) error { _, err := report.ParseFormat(s); return err }})
	pf.StringVar(&a.clientID, "client-id", "", "client id sent to the brokers (default offsetctl)")
	pf.BoolVarP(&a.verbose, "verbose", "v", false, "log client activity (connections, requests, retries) to stderr, secrets redacted")
	pf.BoolVar(&a.tlsOn, "tls", false, "connect with TLS (implied by any other --tls-* flag)")
	pf.StringVar(&a.tlsCA, "tls-ca", "", "PEM file of CA certificates to trust instead of the system pool")
	pf.StringVar(&a.tlsCert, "tls-cert", "", "PEM client certificate for mutual TLS (with --tls-key)")
	pf.StringVar(&a.tlsKey, "tls-key", "", "PEM private key of --tls-cert (unencrypted)")
	pf.StringVar(&a.tlsServerName, "tls-server-name", "", "name to verify the broker certificates against")
	pf.BoolVar(&a.tlsInsecure, "tls-insecure-skip-verify", false, "accept any broker certificate (prints a warning every time)")
	pf.StringVar(&a.saslMechanism, "sasl-mechanism", "", "SASL: "+strings.Join(cluster.Mechanisms, ", "))
	pf.StringVar(&a.saslUser, "sasl-user", "", "SASL user; the password comes from $"+cluster.EnvPassword+", --sasl-password-file or a terminal prompt")
	pf.StringVar(&a.saslPasswordFile, "sasl-password-file", "", "file holding the SASL password (first line)")
	pf.StringVar(&a.saslTokenFile, "sasl-token-file", "", "file holding the OAUTHBEARER token (else $"+cluster.EnvToken+")")
	pf.StringVar(&a.saslPasswordArg, "sasl-password", "", "refused: a password on the command line is visible to every user")
	_ = pf.MarkHidden("sasl-password")
	pf.Var(countedString{&a.commandConfig, &a.commandConfigs}, "command-config", "Java client properties file (as for kafka-consumer-groups.sh --command-config)")
	pf.StringVar(&a.auditLog, "audit-log", "", "audit log of every change (env "+audit.EnvLog+", default $XDG_STATE_HOME/offsetctl/audit.jsonl or ~/.local/state/offsetctl/audit.jsonl)")
	pf.BoolVar(&a.noAudit, "no-audit", false, "do not record changes in the audit log")
	pf.StringVar(&a.auditRotate, "audit-rotate-size", "", "rotate the audit log once it is this large (env "+audit.EnvRotateSize+", default 64MiB; 0: never)")
	pf.BoolVar(&a.auditGzip, "audit-gzip", false, "compress rotated audit log files with gzip")
	pf.StringVar(&a.auditTopic, "audit-topic", "", "also write each audit entry to this Kafka topic, keyed by group (a shared trail; also a profile's audit_topic)")
	pf.Var((*profileList)(&a.profile), "profile", "named cluster profile from $"+cluster.EnvConfig+" or ~/.config/offsetctl/config.yaml (the exporter takes several: a,b or repeated)")
}

// completionExamples gives cobra's completion command and its shells the
// example lines every command's help has.
func completionExamples(c *cobra.Command) {
	c.Example = `  source <(offsetctl completion bash)
  offsetctl completion zsh > "${fpath[1]}/_offsetctl"`
	examples := map[string]string{
		"bash":       "  source <(offsetctl completion bash)                                # this shell\n  offsetctl completion bash > /etc/bash_completion.d/offsetctl        # every new shell",
		"zsh":        "  offsetctl completion zsh > \"${fpath[1]}/_offsetctl\"",
		"fish":       "  offsetctl completion fish > ~/.config/fish/completions/offsetctl.fish",
		"powershell": "  offsetctl completion powershell | Out-String | Invoke-Expression",
	}
	for _, sh := range c.Commands() {
		sh.Example = examples[sh.Name()]
	}
}

// commands lists every subcommand. Each lives in its own cmd_*.go file.
func (a *app) commands() []*cobra.Command {
	return []*cobra.Command{
		a.groupsCmd(),
		a.lagCmd(),
		a.translateCmd(),
		a.resetCmd(),
		a.deleteOffsetsCmd(),
		a.deleteGroupCmd(),
		a.historyCmd(),
		a.undoCmd(),
		a.snapshotCmd(),
		a.diffCmd(),
		a.replayCmd(),
		a.digestCmd(),
		a.semanticsCmd(),
		a.demoCmd(),
		a.playgroundCmd(),
		a.exporterCmd(),
		a.versionCmd(),
	}
}

// clusterConfig resolves the connection settings once per invocation:
// flags, then --command-config, then --profile, then KAFKA_BROKERS.
func (a *app) clusterConfig() (cluster.Config, error) {
	if a.conn != nil {
		return *a.conn, nil
	}
	if strings.Contains(a.profile, ",") {
		return cluster.Config{}, exitcode.Usagef("--profile: name one profile (only the exporter serves several clusters at once)")
	}
	cfg, err := a.configFor(a.profile)
	if err != nil {
		return cfg, err
	}
	a.conn = &cfg
	return cfg, nil
}

// countedString is a string flag that counts how often it is given, for
// a flag whose repetition would silently replace the earlier value.
type countedString struct {
	v *string
	n *int
}

func (c countedString) String() string {
	if c.v == nil {
		return ""
	}
	return *c.v
}
func (c countedString) Type() string { return "string" }
func (c countedString) Set(v string) error {
	*c.v = v
	*c.n++
	return nil
}

// profileList is --profile: one name, or for the exporter several, given
// as a,b or by repeating the flag (kept joined by commas).
type profileList string

func (p *profileList) String() string { return string(*p) }
func (p *profileList) Type() string   { return "string" }
func (p *profileList) Set(v string) error {
	if *p != "" {
		v = string(*p) + "," + v
	}
	*p = profileList(v)
	return nil
}

// configFor resolves the connection settings with the given profile in
// place of --profile (the exporter serves several clusters at once).
func (a *app) configFor(profile string) (cluster.Config, error) {
	if a.saslPasswordArg != "" {
		return cluster.Config{}, exitcode.Usagef("--sasl-password is not accepted: a command line is visible to every user of the machine; set %s, pass --sasl-password-file FILE, or run on a terminal to be prompted", cluster.EnvPassword)
	}
	flags, err := a.flagSettings()
	if err != nil {
		return cluster.Config{}, exitcode.AsUsage(err)
	}
	conn, err := cluster.Connect(cluster.Sources{
		Env:           cluster.Env{Getenv: a.getenv, ReadFile: a.readConfigFile, Prompt: a.passwordPrompt()},
		Flags:         flags,
		CommandConfig: a.commandConfig,
		Profile:       profile,
	})
	if err != nil {
		return cluster.Config{}, exitcode.AsUsage(err)
	}
	a.secrets, a.trailTopic = conn.Secrets, conn.AuditTopic
	for _, n := range conn.Notes {
		a.notef("%s", n)
	}
	for _, w := range conn.Warnings {
		a.warnf("%s", w)
	}
	cfg := cluster.Config{Brokers: conn.Brokers, ClientID: conn.ClientID, Timeout: a.timeout, TLS: conn.TLS, SASL: conn.SASL}
	if a.verbose {
		cfg.Logger = cluster.RedactLogger(stderrLogger{a.stderr}, conn.Secrets)
	}
	return cfg, nil
}

// readConfigFile reads a connection file (--command-config, the profiles
// file, password, token and TLS files) through inputfile: bounded, never
// a device, a pipe only until --timeout.
func (a *app) readConfigFile(path string) ([]byte, error) {
	return inputfile.Read(path, inputfile.ConfigLimit, a.timeout)
}

// flagSettings is the command line's layer of connection settings.
func (a *app) flagSettings() (cluster.Settings, error) {
	var s cluster.Settings
	if a.brokers != "" {
		if err := s.SetBrokers(a.brokers, "--brokers"); err != nil {
			return s, fmt.Errorf("--brokers: %w", err)
		}
	}
	if err := cluster.CheckClientID(a.clientID); err != nil {
		return s, fmt.Errorf("--client-id: %w", err)
	}
	s.ClientID = a.clientID
	s.AuditTopic = a.auditTopic
	t := &s.TLS
	t.CAFile, t.CertFile, t.KeyFile, t.ServerName = a.tlsCA, a.tlsCert, a.tlsKey, a.tlsServerName
	if (a.tlsCert == "") != (a.tlsKey == "") {
		return s, errors.New("--tls-cert and --tls-key go together")
	}
	if a.tlsInsecure {
		t.InsecureSkipVerify = &a.tlsInsecure
	}
	if a.tlsOn || a.tlsInsecure || t.CAFile != "" || t.CertFile != "" || t.ServerName != "" {
		if a.tlsOff {
			return s, errors.New("--tls=false contradicts the other --tls-* flags, which turn TLS on: leave one of them out")
		}
		on := true
		t.Enabled = &on
	}
	if a.tlsOff {
		off := false
		t.Enabled = &off
	}
	if a.saslMechanism != "" {
		m, err := cluster.ParseMechanism(a.saslMechanism)
		if err != nil {
			return s, fmt.Errorf("--sasl-mechanism: %w", err)
		}
		s.SASL.Mechanism = m
		s.SASL.Source = "--sasl-mechanism"
	}
	s.SASL.User, s.SASL.PasswordFile, s.SASL.TokenFile = a.saslUser, a.saslPasswordFile, a.saslTokenFile
	s.SASL.PasswordFileFrom, s.SASL.TokenFileFrom = "--sasl-password-file", "--sasl-token-file"
	return s, nil
}

// passwordPrompt reads a secret from the terminal without echo, or is nil
// when stdin is not a terminal (scripts get a clear error instead).
func (a *app) passwordPrompt() func(string) (string, error) {
	fd := a.ios().StdinFd()
	if a.noPrompt || !a.ios().IsStdinTTY() || fd < 0 {
		return nil
	}
	return func(prompt string) (string, error) {
		fmt.Fprint(a.stderr, prompt)
		b, err := term.ReadPassword(fd)
		fmt.Fprintln(a.stderr)
		return string(b), err
	}
}

// admin opens an admin client and checks the cluster answers.
func (a *app) admin(ctx context.Context) (cluster.Config, *cluster.Admin, error) {
	cfg, err := a.clusterConfig()
	if err != nil {
		return cfg, nil, err
	}
	adm, err := cfg.NewAdmin()
	if err != nil {
		return cfg, nil, err
	}
	pctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	if err := cfg.Ping(pctx, adm); err != nil {
		adm.Close()
		return cfg, nil, cfg.ExplainConnError(err)
	}
	return cfg, adm, nil
}

// warnf writes a warning line to stderr.
func (a *app) warnf(format string, args ...any) {
	fmt.Fprintf(a.stderr, "offsetctl: warning: "+format+"\n", args...)
}

// notef writes a note to stderr: a remark about how the command ran (what
// a selection left out, how a change was sent), prefixed like warnf's
// lines so a reader of a mixed stream can tell whose line it is.
func (a *app) notef(format string, args ...any) {
	fmt.Fprintf(a.stderr, "offsetctl: note: "+format+"\n", args...)
}

// infof writes an informational line to stderr: the command's own outcome
// (dry run, backup and undo, summary), which reads as the command's result.
func (a *app) infof(format string, args ...any) {
	fmt.Fprintf(a.stderr, format+"\n", args...)
}

// ios returns the invocation's terminal facts, deciding them from the
// streams on first use when Run did not (tests, and the apps a command
// runs inside itself, build an app directly).
func (a *app) ios() *iostreams.IOStreams {
	if a.io == nil {
		a.io = iostreams.System(a.stdin, a.stdout, a.stderr, a.getenv)
	}
	return a.io
}

// changed reports whether a flag was set on the command line.
func changed(fs *pflag.FlagSet, name string) bool {
	f := fs.Lookup(name)
	return f != nil && f.Changed
}
