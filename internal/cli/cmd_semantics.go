package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/offsetctl/offsetctl/internal/cluster"
	"github.com/offsetctl/offsetctl/internal/durable"
	"github.com/offsetctl/offsetctl/internal/exitcode"
	"github.com/offsetctl/offsetctl/internal/inputfile"
	"github.com/offsetctl/offsetctl/internal/semantics"
	"github.com/offsetctl/offsetctl/report"
)

// semanticsWorkerEnv marks a worker child process. offsetctl itself does
// not need it; a test binary's TestMain uses it to run the command tree
// instead of the tests (see main_test.go).
const semanticsWorkerEnv = "OFFSETCTL_SEMANTICS_WORKER"

type semanticsFlags struct {
	events, partitions, batch, crashAfter int
	modes                                 string
	workDelay, commitInterval, session    time.Duration
	keep, sequential                      bool
	logDir, topicPrefix                   string
}

func (a *app) semanticsCmd() *cobra.Command {
	var f semanticsFlags
	cmd := &cobra.Command{
		Use:   "semantics",
		Short: "Crash a consumer mid-batch under each commit strategy and count what was lost or processed twice",
		Long: `semantics creates a scratch topic of numbered events (named --topic-prefix,
"-" and 8 random hex digits; its groups are <topic>-<mode>) and, for each
commit strategy, runs a consumer as a child process that really crashes
(exits without committing or closing its client) right after processing the
--crash-after'th event, then a fresh consumer of the same group that reads
to the end. Every processed record is appended to a processed log; the table
counts processed, unique, duplicate and lost events and shows the group's
final committed offsets. A group-less replay from offset 0 closes the run
and proves no group's committed offsets moved. The scratch topic and groups
are deleted afterwards unless --keep.

Modes: at-most-once (commit the polled batch, then process it), at-least-once
(process, then commit), auto (franz-go's default auto-commit), sync
(CommitRecords after each batch), async (MarkCommitRecords per record,
CommitMarkedOffsets after each batch, background flush), and the opt-in
auto-greedy (franz-go's GreedyAutoCommit: commits what was polled, processed
or not).`,
		Example: `  offsetctl semantics
  offsetctl semantics --modes auto,auto-greedy --work-delay 100ms --commit-interval 200ms
  offsetctl semantics -o json --keep --log-dir ./logs
  offsetctl semantics --topic-prefix qa-semantics     # topic qa-semantics-<hex>, groups qa-semantics-<hex>-<mode>
  offsetctl semantics count ./logs/processed-sync.log`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o, err := f.options(cmd.Flags())
			if err != nil {
				return exitcode.AsUsage(err)
			}
			if o.LogDir != "" {
				// Before any request: a directory where no log can be
				// created failed only once the scratch topic was made.
				if err := checkOut("--log-dir", o.LogDir, durable.CheckDir, "cannot hold the processed logs", ""); err != nil {
					return err
				}
			}
			cfg, err := a.clusterConfig()
			if err != nil {
				return err
			}
			o.Launcher, err = a.semanticsLauncher(cmd.Root())
			if err != nil {
				return err
			}
			res, err := a.semanticsExperiment(cmd.Context(), cfg, o)
			if res != nil {
				if rerr := report.Semantics(a.stdout, a.format, res); rerr != nil && err == nil {
					err = rerr
				}
				if f.keep {
					a.infof("kept: topic %s, groups %s", res.Topic, groupNames(res))
				}
			}
			return err
		},
	}
	f.register(cmd.Flags())
	cmd.AddCommand(a.semanticsCountCmd(), a.semanticsWorkerCmd())
	return cmd
}

// register defines the flags of offsetctl semantics on fl. Their defaults
// are the experiment's defaults (semantics.Options{}.WithDefaults()).
func (f *semanticsFlags) register(fl *pflag.FlagSet) {
	fl.IntVar(&f.events, "events", semantics.DefaultEvents, "numbered events to produce (2 to 1000000)")
	fl.IntVar(&f.partitions, "partitions", semantics.DefaultPartitions, "partitions of the scratch topic (1 to 1000)")
	fl.IntVar(&f.batch, "batch", semantics.DefaultBatch, "records per batch (exactly; fewer only at the end of the topic); at most 100000 batches")
	fl.IntVar(&f.crashAfter, "crash-after", semantics.DefaultCrashAfter, "the first consumer of each mode crashes right after processing this many events (1 to --events - 1)")
	enumVar(fl, &f.modes, "modes", "", "all", "comma-separated modes; all = every one but auto-greedy", enum{choices: modeChoices(), list: true,
		parse: func(s string) error { _, err := semantics.ParseModes(s); return err }})
	fl.DurationVar(&f.workDelay, "work-delay", 0, "time spent processing each record before it counts as processed; at most 15m in all per run")
	fl.DurationVar(&f.commitInterval, "commit-interval", semantics.DefaultCommitInterval, "auto-commit / background flush interval of auto, auto-greedy and async (Kafka's default is 5s); at least 100ms (franz-go's floor)")
	fl.DurationVar(&f.session, "session-timeout", semantics.DefaultSessionTimeout, "group session timeout of the workers (1s to 30m, and within the brokers' group.min/max.session.timeout.ms)")
	fl.BoolVar(&f.keep, "keep", false, "keep the scratch topic, the groups and the processed logs")
	fl.StringVar(&f.logDir, "log-dir", "", "write the processed logs (processed-MODE.log) here and keep them (default: a temporary directory)")
	fl.StringVar(&f.topicPrefix, "topic-prefix", semantics.DefaultTopicPrefix, "start of the scratch topic's name (PREFIX-<8 hex>; groups are <topic>-<mode>), for clusters with a naming policy")
	fl.BoolVar(&f.sequential, "sequential", false, "run the modes one after another instead of at once")
}

// options turns the flags into the experiment's options, validated as
// typed. The flags' defaults are the experiment's defaults, so an absent
// flag needs no filling in; a typed value is never taken for "unset"
// (semantics.Options treats zero fields as defaults, for Go callers): it is
// validated as it is, and --events 0, --modes "" or --log-dir "" are
// errors, not the defaults.
func (f *semanticsFlags) options(fl *pflag.FlagSet) (semantics.Options, error) {
	modes, err := semantics.ParseModes(f.modes)
	if err != nil {
		return semantics.Options{}, exitcode.Flag("--modes", err)
	}
	if fl.Changed("log-dir") && strings.TrimSpace(f.logDir) == "" {
		return semantics.Options{}, fmt.Errorf("--log-dir must name a directory, got %q (leave the flag out for a temporary directory)", f.logDir)
	}
	if !fl.Changed("crash-after") && f.crashAfter >= f.events && f.events >= semantics.MinEvents {
		// Say that 25 is the default the user did not type.
		return semantics.Options{}, fmt.Errorf("--crash-after must be between 1 and --events - 1 (%d), got its default %d: set --crash-after too", f.events-1, f.crashAfter)
	}
	o := semantics.Options{
		Events: f.events, Partitions: f.partitions, Batch: f.batch, CrashAfter: f.crashAfter,
		Modes: modes, WorkDelay: f.workDelay, CommitInterval: f.commitInterval,
		SessionTimeout: f.session, Keep: f.keep, LogDir: f.logDir, Sequential: f.sequential,
		TopicPrefix: f.topicPrefix,
	}
	return o, o.Validate()
}

func groupNames(res *semantics.Result) string {
	names := make([]string, len(res.Results))
	for i, r := range res.Results {
		names[i] = r.Group
	}
	return strings.Join(names, ",")
}

// semanticsExperiment runs the experiment with progress on stderr; the
// demo calls it too. o.Launcher defaults to this executable with no global
// flags (enough for an embedded cluster).
func (a *app) semanticsExperiment(ctx context.Context, cfg cluster.Config, o semantics.Options) (*semantics.Result, error) {
	if o.Launcher == nil {
		l, err := a.semanticsLauncher(nil)
		if err != nil {
			return nil, err
		}
		o.Launcher = l
	}
	// The modes run at once: their progress lines and (with -v) their
	// workers' stderr share one lock.
	w := &lockedWriter{w: a.stderr}
	if o.Progress == nil {
		o.Progress = func(s string) { fmt.Fprintf(w, "semantics: %s\n", s) }
	}
	if el, ok := o.Launcher.(semantics.ExecLauncher); ok && a.verbose && el.Stderr == nil {
		el.Stderr = w
		o.Launcher = el
	}
	return semantics.Run(ctx, cfg, o)
}

// lockedWriter serializes writes from concurrent goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// semanticsLauncher re-executes this program as "semantics worker". The
// global flags that were set (connection settings: TLS, SASL files,
// profiles...) go to the child on stdin, not in its argv; --brokers,
// --client-id and --timeout travel in the worker spec; secrets from the
// environment reach it through its inherited environment.
func (a *app) semanticsLauncher(root *cobra.Command) (semantics.Launcher, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding this executable to run the semantics workers: %w", err)
	}
	var global []string
	if root != nil {
		root.PersistentFlags().VisitAll(func(fl *pflag.Flag) {
			if !fl.Changed {
				return
			}
			switch fl.Name {
			case "brokers", "output", "client-id", "timeout":
				return
			}
			if sv, ok := fl.Value.(pflag.SliceValue); ok {
				for _, v := range sv.GetSlice() {
					global = append(global, "--"+fl.Name+"="+v)
				}
				return
			}
			global = append(global, "--"+fl.Name+"="+fl.Value.String())
		})
	}
	// With -v, semanticsExperiment also copies the workers' stderr.
	return semantics.ExecLauncher{
		Path:       exe,
		Args:       []string{"semantics", "worker"},
		Env:        append(os.Environ(), semanticsWorkerEnv+"=1"),
		GlobalArgs: global,
	}, nil
}

// workerSpecKey carries the spec from the outer worker command (which read
// stdin) to the inner one (which parsed the global flags).
type workerSpecKey struct{}

func (a *app) semanticsWorkerCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "worker",
		Short:  "Internal: one consumer of the semantics experiment (spec on stdin)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if spec, ok := ctx.Value(workerSpecKey{}).(semantics.WorkerSpec); ok {
				return a.semanticsWorker(ctx, spec)
			}
			in, err := semantics.ReadWorkerInput(a.stdin)
			if err != nil {
				return exitcode.AsUsage(err)
			}
			for _, arg := range in.Args {
				if !strings.HasPrefix(arg, "--") {
					return exitcode.Usagef("worker: global argument %q is not a --flag", arg)
				}
			}
			// Parse the parent's global flags as if given on the command
			// line, so the connection settings resolve exactly as in the
			// parent, then run the worker.
			inner := &app{stdout: a.stdout, stderr: a.stderr, stdin: strings.NewReader(""), getenv: a.getenv, now: a.now}
			root := inner.rootCmd()
			root.SetArgs(append(append([]string(nil), in.Args...), "semantics", "worker"))
			root.SetOut(a.stdout)
			root.SetErr(a.stderr)
			return root.ExecuteContext(context.WithValue(ctx, workerSpecKey{}, in.Spec))
		},
	}
}

// semanticsWorker runs one worker. Its planned crash returns an error with
// semantics.CrashExitCode; main exits with it at once, without closing the
// client (that would commit and leave the group).
func (a *app) semanticsWorker(ctx context.Context, spec semantics.WorkerSpec) error {
	cfg, err := a.clusterConfig()
	if err != nil {
		return err
	}
	_, err = semantics.RunWorker(ctx, cfg, spec)
	if errors.Is(err, semantics.ErrCrash) {
		return &exitcode.Error{Code: semantics.CrashExitCode, Err: err}
	}
	return err
}

func (a *app) semanticsCountCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "count FILE...",
		Short: "Count a processed log's lines, unique partition,offset pairs and duplicates",
		Example: `  offsetctl semantics count processed-auto.log
  offsetctl semantics count logs/*.log -o json`,
		Args: atLeastOne("the processed log(s) to count"),
		RunE: func(_ *cobra.Command, files []string) error {
			// Read every file first: a malformed one prints nothing.
			counts := make([]semantics.Count, 0, len(files))
			for _, name := range files {
				c, err := countFile(name, a.timeout)
				if err != nil {
					return err
				}
				counts = append(counts, c)
			}
			return report.SemanticsCount(a.stdout, a.format, counts)
		},
	}
}

func countFile(name string, wait time.Duration) (semantics.Count, error) {
	f, err := inputfile.Open(name, inputfile.LogLimit, wait)
	if err != nil {
		return semantics.Count{}, exitcode.AsUsage(err)
	}
	defer f.Close()
	entries, err := semantics.ReadLog(f)
	if err != nil {
		var le *semantics.LineError
		if errors.As(err, &le) {
			return semantics.Count{}, exitcode.Usagef("%s:%d: %v", name, le.Line, le.Err)
		}
		return semantics.Count{}, exitcode.AsUsage(fmt.Errorf("%s: %w", name, err))
	}
	return semantics.CountEntries(name, entries), nil
}
