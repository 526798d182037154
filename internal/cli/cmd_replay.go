package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/offsetctl/offsetctl/internal/audit"
	"github.com/offsetctl/offsetctl/internal/cluster"
	"github.com/offsetctl/offsetctl/internal/durable"
	"github.com/offsetctl/offsetctl/internal/exitcode"
	"github.com/offsetctl/offsetctl/internal/lag"
	"github.com/offsetctl/offsetctl/internal/safetext"
	"github.com/offsetctl/offsetctl/internal/textlist"
	"github.com/offsetctl/offsetctl/replay"
	"github.com/offsetctl/offsetctl/report"
)

type replayFlags struct {
	from          string
	partitions    string
	until         string
	max           int64
	follow        bool
	isolation     string
	out           string
	format        string
	verifyGroups  []string
	noVerify      bool
	payloadDigest bool
	quiet         bool
	fetchMax      string

	produceTo       string
	targetBrokers   string
	targetConfig    string
	targetProfile   string
	partitioner     string
	transactionalID string
	txnInterval     time.Duration
	sourceHeader    bool
	checkpoint      string
	ckptInterval    time.Duration

	shard     string
	digestOut string
}

func (a *app) replayCmd() *cobra.Command {
	var f replayFlags
	cmd := &cobra.Command{
		Use:   "replay TOPIC",
		Short: "Replay part of a topic without any consumer group, with an audit digest and proof that no group's offsets moved",
		Long: `replay reads a range of TOPIC with no consumer group (no JoinGroup, no
heartbeat, no offset commit, ever), writes the records as JSON lines or raw
values, prints a summary with an audit digest (SHA-256 over the records in
partition/offset order: two replays of the same range compare by digest), and
proves that the committed offsets of every group on the topic are the same
before and after. With --produce-to it copies the records to another topic
(backfill) with an idempotent producer, and on failure says where to resume.`,
		Example: `  offsetctl replay orders --out orders.jsonl
  offsetctl replay orders --from ago:1h --format raw | grep espresso
  offsetctl replay orders --from 0=120,2=300                    # a start per partition
  offsetctl replay orders --from 0=120,2=300 --until 0=400,2=350 -o json --out /dev/null   # an exact range per partition
  offsetctl replay orders --from time:2026-11-30T06:00:00Z --until time:2026-11-30T07:00:00Z --format none   # a time range: digest and proof
  offsetctl replay orders --format raw --max 1 | head -1        # ask for what you read: exit 0 (else 141)
  offsetctl replay orders --follow --partitions 0
  offsetctl replay orders --produce-to orders-copy --source-header                      # backfill
  offsetctl replay orders --produce-to orders-copy --source-header --from 0=5120,1=4980  # resume it with the --from it printed
  offsetctl replay orders --produce-to orders-copy --transactional-id orders-copy-1      # exactly once: rerun the same command to resume
  offsetctl replay orders --produce-to orders-copy --checkpoint orders-copy.ckpt        # at least once: rerun the same command to resume`,
		Args: func(_ *cobra.Command, args []string) error {
			switch len(args) {
			case 0:
				return exitcode.Usagef("name the topic to replay: offsetctl replay TOPIC")
			case 1:
				return nil
			}
			shown := make([]string, len(args)) // cut, as every echoed argument is
			for i, s := range args {
				shown[i] = safetext.Arg(s)
			}
			return exitcode.Usagef("replay takes one topic, got %d arguments (%s): offsetctl replay TOPIC", len(args), textlist.Short(shown, 5, " "))
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runReplay(cmd, args[0], f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.from, "from", "earliest", "start: earliest, an offset N, time:T (RFC 3339, YYYY-MM-DD[THH:MM[:SS]] UTC, or Unix ms), ago:D (15m, 2h, 3d, 1d12h, PT90M), or per partition 0=120,2=300")
	fl.StringVar(&f.partitions, "partitions", "", "only these partitions, e.g. 0,2 (default: all, or those of a per-partition --from)")
	fl.StringVar(&f.until, "until", "", "stop before offset N or before the first record at or after time:T / ago:D, or per partition 0=50,1=time:T,2=end (default: the end offsets captured at start)")
	fl.Int64Var(&f.max, "max", 0, "stop after N records in total (0: no limit)")
	fl.BoolVar(&f.follow, "follow", false, "keep reading new records, also of partitions added meanwhile, until Ctrl-C (or --until)")
	fl.StringVar(&f.isolation, "isolation", "committed", "committed (read_committed: what consumers see, bounded by the last stable offset) or uncommitted")
	fl.StringVar(&f.out, "out", "", "write records to FILE, overwriting it if it exists (default stdout; the summary then goes to stdout); --format none writes no file")
	fl.StringVar(&f.format, "format", "jsonl", "record format: jsonl, raw (value and a newline) or none (digest and proof only); a backfill (--produce-to) without --out defaults to none")
	fl.StringSliceVar(&f.verifyGroups, "verify-groups", nil, "groups whose commits the proof compares (default: every group with commits on the topic; not with --no-verify)")
	fl.BoolVar(&f.noVerify, "no-verify", false, "skip the before/after proof (not with --verify-groups)")
	fl.BoolVar(&f.payloadDigest, "payload-digest", false, "also print the payload digest (no partitions or offsets), comparable between a source and its copy")
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "no progress bar")
	fl.StringVar(&f.fetchMax, "fetch-max-bytes", "2MiB", "largest fetch response (and partition share of it); with at most two fetches held at once it bounds memory")
	fl.StringVar(&f.produceTo, "produce-to", "", "backfill: copy every replayed record to this topic")
	fl.StringVar(&f.targetBrokers, "target-brokers", "", "with --produce-to: bootstrap brokers of the target cluster (default: the source cluster)")
	fl.StringVar(&f.targetConfig, "target-command-config", "", "with --produce-to: Java client properties file of the target cluster (its own brokers, TLS, SASL)")
	fl.StringVar(&f.targetProfile, "target-profile", "", "with --produce-to: named profile of the target cluster (its own brokers, TLS, SASL)")
	fl.StringVar(&f.partitioner, "partitioner", "same", "with --produce-to: same (source partition number) or key (hash of the key)")
	fl.StringVar(&f.transactionalID, "transactional-id", "", "with --produce-to: exactly once, in transactions of about --transaction-interval that also commit the source position (group offsetctl-backfill-ID); rerunning the same command continues")
	fl.DurationVar(&f.txnInterval, "transaction-interval", replay.DefaultTxnInterval, "with --transactional-id: each transaction ends at the first copy after this long and commits once its copies are acknowledged")
	fl.BoolVar(&f.sourceHeader, "source-header", false, "with --produce-to: add header offsetctl.source=topic/partition/offset to each copy")
	fl.StringVar(&f.checkpoint, "checkpoint", "", "with --produce-to, not with --transactional-id: keep the acknowledged position in FILE (fsynced); rerunning the same command resumes at least once and counts the possible duplicates")
	fl.DurationVar(&f.ckptInterval, "checkpoint-interval", replay.DefaultCheckpointInterval, "with --checkpoint: least time between two writes of the position (0: after each acknowledged batch, one write in flight)")
	fl.StringVar(&f.shard, "shard", "", "replay shard I of N (0-based, e.g. \"$JOB_COMPLETION_INDEX/3\"): only the selected partitions p with p mod N = I")
	fl.StringVar(&f.digestOut, "digest-out", "", "write the shard digest file (range, shard, per-partition digests, proof) to `FILE`, a new file, for offsetctl digest merge")
	return cmd
}

func (a *app) runReplay(cmd *cobra.Command, topic string, f replayFlags) error {
	// A name Kafka cannot hold reached the broker, which answered
	// INVALID_TOPIC_EXCEPTION (exit 1), or for a long one closed the
	// connection, read as "is SASL missing?".
	if err := lag.CheckTopicName(topic); err != nil {
		return exitcode.Usagef("topic %s: %v", safetext.Arg(topic), err)
	}
	in, err := f.parse(cmd.Flags(), a.now())
	if err != nil {
		return err
	}
	if err := f.checkFiles(in.format); err != nil {
		return err
	}
	if err := a.checkOutElsewhere(f, in.format); err != nil {
		return err
	}
	if err := a.checkAuditForChange(); err != nil {
		return err // every replay is on the record
	}
	// The shared connection path: a ping first, so an unreachable or
	// misconfigured cluster reads as in every other command.
	cfg, adm, err := a.admin(cmd.Context())
	if err != nil {
		return err
	}
	defer adm.Close()
	opts := replay.Options{Admin: adm,
		Topic: topic, Partitions: in.parts, From: in.from, Until: in.until, Max: f.max, Follow: f.follow,
		Isolation: in.iso, Format: in.format, VerifyGroups: f.verifyGroups, NoVerify: f.noVerify,
		PayloadDigest: f.payloadDigest, Now: a.now, FetchMaxBytes: int32(in.fetchMax),
		Shard: in.shard, Warnf: a.warnf,
	}
	if f.digestOut != "" {
		opts.DigestFile = &replay.DigestFileOptions{Path: f.digestOut, From: f.from, Until: f.until}
	}
	if opts.Produce, err = a.produceOptions(cfg, f); err != nil {
		return err
	}
	// Every replay is on the record (digest and proof), a backfill also
	// because it writes to a topic: the log is opened first.
	action := audit.ActReplay
	if opts.Produce != nil {
		action = audit.ActBackfill
	}
	rec, err := a.beginAudit(cmd.Context(), adm, action)
	if err != nil {
		return err
	}
	if opts.Produce != nil {
		backfillIntent(rec, topic, opts.Produce)
	}
	summary, file := a.replaySink(&opts, in.format, f.out)
	// The bar is drawn on the terminal as it was handed in (a.ios().ErrOut):
	// the filter on a.stderr would print its carriage returns as text. It
	// holds no cluster data, only counts.
	if !f.quiet && a.ios().ProgressAllowed() {
		opts.Progress = a.replayProgress()
	}
	// A soft memory limit keeps the resident set flat: the live heap of a
	// replay is a few fetches, but at a high allocation rate the collector
	// otherwise lets garbage pile up to several times that. It applies to
	// this command only (restored after) and yields to GOMEMLIMIT.
	if a.getenv("GOMEMLIMIT") == "" {
		prev := debug.SetMemoryLimit(replayMemoryLimit)
		defer debug.SetMemoryLimit(prev)
	}
	res, runErr := replay.Run(cmd.Context(), cfg, opts)
	if *file != nil {
		if err := (*file).Close(); err != nil && runErr == nil {
			runErr = fmt.Errorf("closing %s: %w", safetext.Arg(f.out), err)
		}
	}
	// The entry records what the replay did (its outcome, exit code and
	// error): its summary's print below is not part of it (docs/audit.md:
	// a report that could not be printed is not in the entry). A backfill
	// that copied every record and then found stdout closed was recorded
	// "partly", with no resume point, which reads as a copy to finish by
	// running it again.
	var printErr error
	if res != nil {
		if err := report.ReplayView(summary, a.format, res, a.verbose); err != nil && runErr == nil {
			printErr = err
		}
	}
	if errors.Is(runErr, replay.ErrOutputClosed) {
		// The reader left (`| head`): the summary says where the replay
		// stopped; no "broken pipe" line, and a status of its own, as a
		// shell gives a Unix tool ended by SIGPIPE.
		runErr = &exitcode.Error{Code: exitcode.OutputClosed, Err: runErr, Quiet: true}
	}
	if opts.Produce != nil {
		// A backfill copied records to a topic: a closed stdout
		// stays a failure (see stdout.go).
		runErr = loudAfterChange(runErr)
	}
	if err := rec.finish(runErr, replayAudit(&res)); err != nil || printErr == nil {
		return err
	}
	if opts.Produce != nil {
		return loudAfterChange(fmt.Errorf("the backfill ended as recorded, but printing its summary failed: %w", printErr))
	}
	return printErr
}

// backfillIntent names in every entry of the backfill what a rerun
// resumes from (the transactional id, the checkpoint), and has Run write
// the intent once every check has passed, right before the first
// request that can change the target (InitProducerId, the first copy;
// ProduceOptions.BeforeChange): a run killed after it is finished by
// rerunning, and a refusal (bad input, exit 2: the partitioner, the
// target topic, the checkpoint, the transactional id's job) leaves
// nothing on the record. A replay only reads, and is one entry once it
// ends.
func backfillIntent(rec *auditRec, topic string, prod *replay.ProduceOptions) {
	e := &rec.entry
	e.Topics, e.Target, e.TransactionalID = []string{topic}, prod.Topic, prod.TransactionalID
	if prod.Checkpoint != nil {
		e.Checkpoint = absPath(prod.Checkpoint.Path)
	}
	prod.BeforeChange = func() error {
		return rec.writeIntent(func(*audit.Entry) auditResult { return auditResult{} })
	}
}

// replaySink sets where a replay's records go (--out or stdout) and
// returns where its summary goes (stdout unless the records are there,
// then stderr). The --out file is opened (created, truncated) only when
// the replay starts, once everything was checked (opts.OpenSink): a
// refused run leaves it as it was. file is then the file to close.
func (a *app) replaySink(opts *replay.Options, format replay.Format, out string) (summary io.Writer, file **os.File) {
	file = new(*os.File)
	if format == replay.None {
		return a.stdout, file
	}
	if out == "" || out == "-" {
		// --format raw writes values as they are: a terminal would
		// act on their escape sequences, so there they are escaped,
		// as every other output to a terminal is (jsonl has no such
		// byte left: appendJSONString). A file or a pipe gets the
		// exact bytes.
		opts.Sink = a.stdout
		if a.ios().IsStdoutTTY() {
			opts.Sink = safetext.Lines(a.stdout)
		}
		return a.stderr, file
	}
	opts.OpenSink = func(ctx context.Context) (io.Writer, error) {
		f, err := openOut(ctx, out)
		if err != nil {
			return nil, err
		}
		*file = f
		return outFile{f, out}, nil
	}
	return a.stdout, file
}

// outFile is the --out file as the replay writes it: a failed write names
// the path cut (safetext.Arg), not whole as *fs.PathError does; the cause
// stays wrapped (errors.Is(err, syscall.EPIPE) for a FIFO whose reader
// left).
type outFile struct {
	f    *os.File
	name string
}

func (o outFile) Write(p []byte) (int, error) {
	n, err := o.f.Write(p)
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = fmt.Errorf("write --out %s: %w", safetext.Arg(o.name), pe.Err)
	}
	return n, err
}

// openOut opens --out for writing, created or truncated. The open waits
// beside ctx: opening a FIFO blocks until a reader opens it, and Ctrl-C
// (SIGTERM) must still stop the command then. Given up, the open is left
// to finish on its own, and what it opens is closed.
func openOut(ctx context.Context, path string) (*os.File, error) {
	type opened struct {
		f   *os.File
		err error
	}
	done := make(chan opened, 1)
	go func() {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
		done <- opened{f, err}
	}()
	select {
	case o := <-done:
		if o.err != nil {
			if durable.UserPath(o.err) {
				return nil, exitcode.Usagef("--out %s cannot be written: %s", safetext.Arg(path), durable.Reason(o.err))
			}
			return nil, fmt.Errorf("--out %s: %s", safetext.Arg(path), durable.Reason(o.err))
		}
		return o.f, nil
	case <-ctx.Done():
		go func() {
			if o := <-done; o.f != nil {
				o.f.Close()
			}
		}()
		return nil, fmt.Errorf("interrupted while waiting to open --out %s (a FIFO opens once a reader opens it): no record was read", safetext.Arg(path))
	}
}

// checkOutElsewhere refuses an --out that names a file replay keeps
// otherwise: the backfill checkpoint, the shard digest file or the audit
// log, which the records would overwrite.
func (a *app) checkOutElsewhere(f replayFlags, format replay.Format) error {
	if f.out == "" || f.out == "-" || format == replay.None {
		return nil
	}
	others := []struct{ what, path string }{{"the --checkpoint file", f.checkpoint}, {"the --digest-out file", f.digestOut}}
	if !a.noAudit {
		if p, err := a.auditPath(); err == nil && p != "-" {
			others = append(others, struct{ what, path string }{"the audit log", p})
		}
	}
	for _, o := range others {
		if o.path != "" && sameFile(f.out, o.path) {
			return exitcode.Usagef("--out %s is %s: the records would overwrite it; write them to another file", safetext.Arg(f.out), o.what)
		}
	}
	return nil
}

// sameFile reports whether paths a and b name one file: by device and
// inode when both exist, else by absolute path, the directory's symbolic
// links resolved (./x and x, dir/x and link-to-dir/x).
func sameFile(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	if errA == nil && errB == nil {
		return os.SameFile(sa, sb)
	}
	if errA == nil || errB == nil {
		return false // one exists, the other not
	}
	return resolvedPath(a) == resolvedPath(b)
}

// resolvedPath is path made absolute, its directory's links resolved
// when it exists.
func resolvedPath(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		return filepath.Join(dir, filepath.Base(abs))
	}
	return abs
}

// replayInput is replay's flags, checked.
type replayInput struct {
	from     replay.StartSpec
	until    replay.UntilSpec
	parts    []int32
	format   replay.Format
	iso      lag.Isolation
	fetchMax int64
	shard    *replay.Shard
}

// parse checks every flag and their combinations before anything is asked
// of a cluster: bad input is exit 2 with nothing done.
func (f replayFlags) parse(fs *pflag.FlagSet, now time.Time) (in replayInput, err error) {
	if in.from, err = replay.ParseStart(f.from, now); err != nil {
		return in, exitcode.Flag("--from", err)
	}
	if in.until, err = replay.ParseUntil(f.until, now); err != nil {
		return in, exitcode.Flag("--until", err)
	}
	if err := replay.CheckTimeOrder(in.from, in.until); err != nil {
		return in, exitcode.AsUsage(err) // before the cluster or the log is touched
	}
	if changed(fs, "partitions") && strings.TrimSpace(f.partitions) == "" {
		return in, exitcode.Usagef("--partitions is empty: name partitions (0,2) or leave the flag out for all")
	}
	if in.parts, err = replay.ParsePartitions(f.partitions); err != nil {
		return in, exitcode.Flag("--partitions", err)
	}
	if err := f.checkVerify(fs); err != nil {
		return in, err
	}
	if in.format, err = replay.ParseFormat(f.format); err != nil {
		return in, exitcode.Flag("--format", err)
	}
	if f.produceTo != "" && !changed(fs, "format") && !changed(fs, "out") {
		// A backfill's records go to its target: writing each to
		// stdout too filled the terminal, and a pipe's reader leaving
		// (| head) stopped the copy. --format or --out asks for them.
		in.format = replay.None
	}
	if in.iso, err = lag.ParseIsolation(f.isolation); err != nil {
		return in, exitcode.Flag("--isolation", err)
	}
	if f.max < 0 {
		return in, exitcode.Usagef("--max must be ≥ 0, got %d", f.max)
	}
	in.fetchMax, err = parseSize(f.fetchMax)
	if err != nil || in.fetchMax < 64<<10 || in.fetchMax > 256<<20 {
		return in, exitcode.Usagef("--fetch-max-bytes %q: want a size from 64KiB to 256MiB (e.g. 512KiB, 4MiB)", f.fetchMax)
	}
	if in.shard, err = f.parseShard(fs); err != nil {
		return in, err
	}
	return in, f.checkProduce(fs)
}

// checkFiles checks the files replay writes before the cluster is asked
// anything: the records (--out, written in place), the shard digest
// (--digest-out, a new file) and a backfill's position (--checkpoint,
// replaced at each write, with its lock beside it). A path that cannot
// be written is bad input (exit 2): --out /nonexist/r.jsonl was refused
// only once the audit log was opened, and a --checkpoint in a directory
// that takes no file once the target was checked.
func (f replayFlags) checkFiles(format replay.Format) error {
	if f.out != "" && f.out != "-" && format != replay.None {
		if err := checkOut("--out", f.out, durable.CheckWrite, "cannot be written", ""); err != nil {
			return err
		}
	}
	if f.digestOut != "" {
		if err := checkOut("--digest-out", f.digestOut, durable.CheckNew, "cannot be created", "a digest file is never overwritten"); err != nil {
			return err
		}
	}
	if f.checkpoint != "" && f.produceTo != "" {
		return checkOut("--checkpoint", f.checkpoint, durable.CheckReplace, "cannot be written", "")
	}
	return nil
}

// parseShard checks --shard and --digest-out: a shard is one share of a
// range that several runs cut the same way, so what makes runs differ
// (ago:, resolved against each run's own clock; --max, which keeps the
// records that arrive first) is refused with it.
func (f replayFlags) parseShard(fs *pflag.FlagSet) (*replay.Shard, error) {
	if changed(fs, "digest-out") && strings.TrimSpace(f.digestOut) == "" {
		return nil, exitcode.Usagef("--digest-out is empty: name the new file for the shard digest")
	}
	if !changed(fs, "shard") {
		return nil, nil
	}
	s, err := replay.ParseShard(f.shard)
	if err != nil {
		return nil, exitcode.Flag("--shard", err)
	}
	switch {
	case f.max > 0:
		return nil, exitcode.Usagef("--shard and --max exclude each other: --max keeps the records that arrive first, so shards would not add up to one run")
	case strings.Contains(f.from, "ago:") || strings.Contains(f.until, "ago:"):
		return nil, exitcode.Usagef("--shard with ago: in --from or --until: each shard would resolve it against its own clock; give time:T so every shard reads the same range")
	case f.produceTo != "":
		return nil, exitcode.Usagef("--shard with --produce-to is not supported yet: a sharded backfill needs one --transactional-id or --checkpoint per shard; use --partitions per run")
	}
	return &s, nil
}

// checkVerify checks --verify-groups and --no-verify.
func (f replayFlags) checkVerify(fs *pflag.FlagSet) error {
	if changed(fs, "verify-groups") {
		if len(f.verifyGroups) == 0 {
			return exitcode.Usagef("--verify-groups is empty: name groups, or leave the flag out for every group with commits on the topic")
		}
		for i, g := range f.verifyGroups {
			if strings.TrimSpace(g) == "" {
				return exitcode.Usagef("--verify-groups %q: item %d is empty", strings.Join(f.verifyGroups, ","), i+1)
			}
		}
	}
	if f.noVerify && len(f.verifyGroups) > 0 {
		return exitcode.Usagef("--no-verify and --verify-groups exclude each other")
	}
	return nil
}

// checkProduce checks the backfill flags: they need --produce-to, and
// the transactional id and the checkpoint exclude each other.
func (f replayFlags) checkProduce(fs *pflag.FlagSet) error {
	// An empty value is refused, not taken as the flag left out: with
	// --transactional-id "$ID" and ID unset, a backfill would otherwise
	// run neither exactly once nor resumable, and say nothing.
	for _, e := range []struct{ name, val, what string }{
		{"produce-to", f.produceTo, "name the target topic"},
		{"transactional-id", f.transactionalID, "name the id that makes the backfill exactly once and resumable"},
	} {
		if changed(fs, e.name) && strings.TrimSpace(e.val) == "" {
			return exitcode.Usagef("--%s is empty: %s (an unset shell variable?)", e.name, e.what)
		}
	}
	if f.produceTo == "" {
		for _, name := range []string{"target-brokers", "target-command-config", "target-profile", "partitioner", "transactional-id", "transaction-interval", "source-header", "checkpoint", "checkpoint-interval"} {
			if changed(fs, name) {
				return exitcode.Usagef("--%s needs --produce-to", name)
			}
		}
	}
	if f.produceTo != "" {
		if err := lag.CheckTopicName(f.produceTo); err != nil {
			// Quoted, as a flag's value is: "bad topic" unquoted
			// would read as two words.
			return exitcode.Usagef("--produce-to %s: %v", safetext.QuotedArg(f.produceTo), err)
		}
	}
	switch {
	case changed(fs, "transaction-interval") && (f.transactionalID == "" || f.txnInterval <= 0):
		return exitcode.Usagef("--transaction-interval needs --transactional-id and a positive duration")
	case f.checkpoint != "" && f.transactionalID != "":
		return exitcode.Usagef("--checkpoint and --transactional-id exclude each other: the transactional id already keeps the position, exactly once")
	case changed(fs, "checkpoint") && strings.TrimSpace(f.checkpoint) == "":
		return exitcode.Usagef("--checkpoint is empty: name the file that keeps the backfill's position")
	case changed(fs, "checkpoint-interval") && (f.checkpoint == "" || f.ckptInterval < 0):
		return exitcode.Usagef("--checkpoint-interval needs --checkpoint and a duration of 0 or more")
	}
	return nil
}

// produceOptions is the backfill's target (nil without --produce-to).
func (a *app) produceOptions(cfg cluster.Config, f replayFlags) (*replay.ProduceOptions, error) {
	if f.produceTo == "" {
		return nil, nil
	}
	po := &replay.ProduceOptions{Topic: f.produceTo, Partitioner: f.partitioner, TransactionalID: f.transactionalID, TxnInterval: f.txnInterval, SourceHeader: f.sourceHeader,
		Range: replay.JobRange{From: f.from, Until: f.until, Partitions: f.partitions}, Notef: a.infof}
	if f.targetBrokers != "" {
		b, err := cluster.ParseBrokers(f.targetBrokers)
		if err != nil {
			return nil, exitcode.AsUsage(fmt.Errorf("--target-brokers: %w", err))
		}
		po.Brokers = b
	}
	if f.targetConfig != "" || f.targetProfile != "" {
		tcfg, err := a.targetClusterConfig(cfg, po.Brokers, f)
		if err != nil {
			return nil, err
		}
		po.Target = &tcfg
	}
	po.Warnf = a.warnf
	if f.checkpoint != "" {
		po.Checkpoint = &replay.CheckpointOptions{Path: f.checkpoint, From: f.from, Until: f.until, Partitions: f.partitions,
			Interval: f.ckptInterval, Notef: a.infof}
	}
	return po, nil
}

// replayProgress draws the replay's progress bar on stderr (a terminal).
func (a *app) replayProgress() func(replay.Progress) {
	w := a.ios().ErrOut
	bar := newReplayBar(w)
	return func(p replay.Progress) {
		if p.Total >= 0 && bar.GetMax64() != p.Total {
			bar.ChangeMax64(p.Total)
		}
		_ = bar.Set64(p.Records)
		if p.Done {
			_ = bar.Finish()
			fmt.Fprintln(w)
		}
	}
}

// targetClusterConfig resolves the backfill target's own connection from
// --target-command-config and --target-profile (as --command-config and
// --profile resolve the source's, cluster.Connect), with --target-brokers
// above them and the source's brokers below (a profile may give only
// credentials). The source's default secret variables ($KAFKA_SASL_PASSWORD,
// $KAFKA_SASL_TOKEN) are not read for the target: the target's secret
// comes from its file or profile (a password file, or a variable named
// there), or a prompt.
func (a *app) targetClusterConfig(src cluster.Config, brokers []string, f replayFlags) (cluster.Config, error) {
	getenv := func(k string) string {
		switch k {
		case "KAFKA_BROKERS":
			return strings.Join(src.Brokers, ",")
		case cluster.EnvPassword, cluster.EnvToken:
			return ""
		}
		return a.getenv(k)
	}
	conn, err := cluster.Connect(cluster.Sources{
		Env:             cluster.Env{Getenv: getenv, ReadFile: a.readConfigFile, Prompt: a.passwordPrompt()},
		Flags:           cluster.Settings{Brokers: brokers},
		CommandConfig:   f.targetConfig,
		Profile:         f.targetProfile,
		FallbackBrokers: src.Brokers,
	})
	if err != nil {
		msg := strings.NewReplacer("--command-config", "--target-command-config", "--profile", "--target-profile").Replace(err.Error())
		return cluster.Config{}, exitcode.Usagef("target cluster: %s", msg)
	}
	for _, n := range conn.Notes {
		a.notef("target: %s", strings.ReplaceAll(n, "--command-config", "--target-command-config"))
	}
	for _, w := range conn.Warnings {
		a.warnf("target: %s", w)
	}
	cfg := cluster.Config{Brokers: conn.Brokers, ClientID: conn.ClientID, Timeout: a.timeout, TLS: conn.TLS, SASL: conn.SASL}
	if cfg.ClientID == "" {
		cfg.ClientID = src.ClientID
	}
	if a.verbose {
		cfg.Logger = cluster.RedactLogger(stderrLogger{a.stderr}, conn.Secrets)
	}
	return cfg, nil
}

// replayMemoryLimit is the soft memory limit of a replay.
const replayMemoryLimit = 64 << 20

// parseSize parses a byte size: a number with an optional B, KiB/KB/K,
// MiB/MB/M suffix (all binary).
func parseSize(s string) (int64, error) {
	s = strings.TrimSpace(s)
	mult := int64(1)
	lower := strings.ToLower(s)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"kib", 1 << 10}, {"mib", 1 << 20}, {"kb", 1 << 10}, {"mb", 1 << 20}, {"k", 1 << 10}, {"m", 1 << 20}, {"b", 1}} {
		if strings.HasSuffix(lower, u.suffix) {
			mult = u.mult
			s = strings.TrimSpace(s[:len(s)-len(u.suffix)])
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n > (1<<40)/mult {
		return 0, fmt.Errorf("bad size %q", s)
	}
	return n * mult, nil
}

func newReplayBar(w io.Writer) *progressbar.ProgressBar {
	return progressbar.NewOptions64(-1,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription("replay"),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString("records"),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionSetWidth(30),
		progressbar.OptionClearOnFinish(),
	)
}
