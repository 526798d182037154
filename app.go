package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/offsetctl/offsetctl/cluster"
	"github.com/offsetctl/offsetctl/internal/exitcode"
	"github.com/offsetctl/offsetctl/report"
)

// app is one invocation: its streams, environment and global flags. There is
// no package-level state; tests run many apps in one process.
type app struct {
	stdout, stderr io.Writer
	stdin          io.Reader
	getenv         func(string) string
	now            func() time.Time

	brokers  string
	timeout  time.Duration
	output   string
	clientID string
	verbose  bool

	format report.Format
	// ran is set once a command's own code starts: errors before it
	// (flags, arguments, unknown commands) are usage errors.
	ran bool
}

// run executes offsetctl with args and returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	a := &app{stdout: stdout, stderr: stderr, stdin: os.Stdin, getenv: os.Getenv, now: time.Now}
	return a.execute(ctx, args)
}

func (a *app) execute(ctx context.Context, args []string) int {
	root := a.rootCmd()
	root.SetArgs(args)
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	root.SetIn(a.stdin)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitcode.OK
	}
	code := exitcode.Code(err)
	var ee *exitcode.Error
	if !a.ran && !errors.As(err, &ee) {
		code = exitcode.Usage
	}
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		fmt.Fprintln(a.stderr, "offsetctl: interrupted")
		return exitcode.Failure
	}
	fmt.Fprintln(a.stderr, "offsetctl: "+oneLine(err.Error()))
	return code
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " ")
}

func (a *app) rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "offsetctl",
		Short: "Inspect and move Kafka consumer-group offsets, safely",
		Long: `offsetctl shows consumer-group lag, resets offsets with a dry run and an exact
undo, replays topics without touching any group (and proves it), and runs the
commit-semantics crash experiment. Try it with no broker: offsetctl demo.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			f, err := report.ParseFormat(a.output)
			if err != nil {
				return exitcode.AsUsage(err)
			}
			a.format = f
			if a.timeout <= 0 {
				return exitcode.Usagef("--timeout must be positive, got %s", a.timeout)
			}
			a.ran = true
			return nil
		},
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return exitcode.AsUsage(err) })
	pf := root.PersistentFlags()
	pf.StringVarP(&a.brokers, "brokers", "b", "", "comma-separated bootstrap brokers (env KAFKA_BROKERS, default "+cluster.DefaultBrokers+")")
	pf.DurationVar(&a.timeout, "timeout", 30*time.Second, "how long to wait for the cluster before failing")
	pf.StringVarP(&a.output, "output", "o", "table", "output format: table, json or csv")
	pf.StringVar(&a.clientID, "client-id", "offsetctl", "client id sent to the brokers")
	pf.BoolVarP(&a.verbose, "verbose", "v", false, "log client activity to stderr")

	for _, c := range a.commands() {
		root.AddCommand(c)
	}
	return root
}

// commands lists every subcommand. Each lives in its own cmd_*.go file.
func (a *app) commands() []*cobra.Command {
	return []*cobra.Command{
		a.groupsCmd(),
		a.lagCmd(),
		a.replayCmd(),
		a.demoCmd(),
		a.playgroundCmd(),
		a.versionCmd(),
	}
}

// clusterConfig resolves the connection settings: flags, then env.
func (a *app) clusterConfig() (cluster.Config, error) {
	b := a.brokers
	if b == "" {
		b = a.getenv("KAFKA_BROKERS")
	}
	if b == "" {
		b = cluster.DefaultBrokers
	}
	brokers, err := cluster.ParseBrokers(b)
	if err != nil {
		return cluster.Config{}, exitcode.AsUsage(fmt.Errorf("--brokers: %w", err))
	}
	cfg := cluster.Config{Brokers: brokers, ClientID: a.clientID, Timeout: a.timeout}
	if a.verbose {
		cfg.Logger = stderrLogger{a.stderr}
	}
	return cfg, nil
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
		return cfg, nil, err
	}
	return cfg, adm, nil
}

// warnf writes a warning line to stderr.
func (a *app) warnf(format string, args ...any) {
	fmt.Fprintf(a.stderr, "offsetctl: warning: "+format+"\n", args...)
}

// infof writes an informational line to stderr.
func (a *app) infof(format string, args ...any) {
	fmt.Fprintf(a.stderr, format+"\n", args...)
}

// changed reports whether a flag was set on the command line.
func changed(fs *pflag.FlagSet, name string) bool {
	f := fs.Lookup(name)
	return f != nil && f.Changed
}
