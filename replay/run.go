package replay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/offsetctl/offsetctl/internal/cluster"
	"github.com/offsetctl/offsetctl/internal/exitcode"
	"github.com/offsetctl/offsetctl/internal/lag"
	"github.com/offsetctl/offsetctl/internal/textlist"
)

// Options is one replay.
type Options struct {
	Topic string
	// Partitions selects partitions; nil means all (or those of a
	// per-partition From).
	Partitions []int32
	// From is where each partition starts; the zero value is earliest.
	From StartSpec
	// Until bounds the replay (exclusive), for all partitions or per
	// partition; the zero value stops at the end offsets captured when
	// the replay starts.
	Until UntilSpec
	// Max stops after this many records in total (0: no limit).
	Max int64
	// Follow keeps tailing until ctx ends (then the replay ends normally).
	Follow bool
	// Isolation is ReadCommitted (what consumers see; the default of the
	// command) or ReadUncommitted.
	Isolation lag.Isolation

	// Sink receives the records in Format; nil means none.
	Sink   io.Writer
	Format Format
	// OpenSink, when set, gives the sink instead of Sink, called once
	// everything is checked (the range, the groups, the target), just
	// before the first record is read (a backfill: before its first
	// change, openSinkBeforeChange): a refused replay creates or
	// truncates no file. An error from it ends the replay before anything
	// is read.
	OpenSink func(context.Context) (io.Writer, error)

	// VerifyGroups names the groups of the proof; nil means every group
	// with commits on the topic. NoVerify skips the proof.
	VerifyGroups []string
	NoVerify     bool

	// PayloadDigest also computes the payload digest (always on when
	// producing).
	PayloadDigest bool

	// Produce, when set, copies every replayed record (backfill).
	Produce *ProduceOptions

	// Progress, when set, is called from the consuming goroutine at most
	// every ProgressEvery and once at the end.
	Progress      func(Progress)
	ProgressEvery time.Duration

	// FetchMaxBytes bounds each fetch response and each partition in it
	// (default 2 MiB): with one fetch buffered per broker it bounds
	// resident memory.
	FetchMaxBytes int32

	// Now is the clock (default time.Now).
	Now func() time.Time

	// Admin, when set, is an admin client of the source cluster already
	// opened (and checked) by the caller; Run uses it and leaves it open.
	Admin *cluster.Admin

	// Shard, when set, replays only its share of the selected
	// partitions (shard.go).
	Shard *Shard
	// DigestFile, when set, writes the shard digest file (shardfile.go).
	DigestFile *DigestFileOptions

	// Warnf, when set, receives the warnings of a replay that go on
	// (partitions added while a --shard or --digest-out run follows).
	Warnf func(format string, args ...any)

	// started is the topic's partitions when the replay started (a
	// --follow reads the ones added since: follow.go); fixedPartitions
	// keeps a --follow to them (a digest file records their count).
	started         []int32
	fixedPartitions bool
}

// Progress is a progress report.
type Progress struct {
	Records int64
	// Total is the number of offsets in the replayed ranges (an upper
	// bound of Records), -1 when following.
	Total   int64
	Bytes   int64
	Elapsed time.Duration
	Done    bool
}

// PartitionResult is what was replayed from one partition.
type PartitionResult struct {
	Partition int32 `json:"partition"`
	From      int64 `json:"from"`
	// To is the next offset after the replayed range: rerunning with
	// --from To continues where this replay stopped. With a sink, a
	// record is replayed once the write holding it went through (sent.go):
	// Records, the timestamps and the digests cover From..To only.
	To      int64 `json:"to"`
	Records int64 `json:"records"`
	// FirstTs and LastTs are the first and last record timestamps (ms),
	// null when the partition had no record.
	FirstTs  *int64 `json:"first_ts"`
	LastTs   *int64 `json:"last_ts"`
	LogStart int64  `json:"log_start"`
	LogEnd   int64  `json:"log_end"`
	// Bound is the exclusive end offset planned, -1 when following.
	Bound int64 `json:"bound"`
	// Stop says why the partition stopped at To: BoundUntil (its
	// --until), BoundEnd (the log end captured at start, or an --until
	// past it), or, when the replay ended first, the replay's Stopped.
	Stop string `json:"stop"`
}

// Result is a finished (or interrupted) replay.
type Result struct {
	Topic     string `json:"topic"`
	Isolation string `json:"isolation"`
	// Records counts the replayed records: with a sink, those written to
	// it (PartitionResult.To).
	Records int64 `json:"records"`
	// Bytes counts key, value and header bytes of the replayed records.
	Bytes int64 `json:"bytes"`
	// Digest is the audit digest (see digest.go), hex SHA-256.
	Digest string `json:"digest"`
	// DigestVersion is the construction of Digest and PayloadDigest
	// (DigestVersion in digest.go).
	DigestVersion int `json:"digest_version"`
	// PayloadDigest leaves partitions, offsets and the offsetctl.source
	// header out; "" unless asked for or backfilling.
	PayloadDigest string  `json:"payload_digest,omitempty"`
	ElapsedMs     int64   `json:"elapsed_ms"`
	RecordsPerSec float64 `json:"records_per_sec"`
	Stopped       string  `json:"stopped"`
	// ResumeFrom, when the replay stopped before its bound (max,
	// interrupt, error), is the --from value that continues it.
	ResumeFrom   string            `json:"resume_from,omitempty"`
	Partitions   []PartitionResult `json:"partitions"`
	Verification Verification      `json:"verification"`
	Backfill     *BackfillResult   `json:"backfill,omitempty"`
	// Shard says which share of the selected partitions a --shard run
	// covered; DigestFile names the shard digest file written.
	Shard      *ShardInfo `json:"shard,omitempty"`
	DigestFile string     `json:"digest_file,omitempty"`

	sums            map[int32]partSum // per-partition digest parts, for the digest file
	topicPartitions int
}

const defaultFetchMaxBytes = 2 << 20

// Why a replay stopped.
const (
	StoppedEnd         = "end"         // every partition reached its bound
	StoppedMax         = "max"         // --max records
	StoppedInterrupted = "interrupted" // ctx ended (Ctrl-C)
	StoppedError       = "error"
	// StoppedOutputClosed: the reader of the records went away (a closed
	// pipe, EPIPE), as in `offsetctl replay T --format raw | head -1`.
	StoppedOutputClosed = "output-closed"
)

// ErrOutputClosed is wrapped by the error of a replay whose reader went
// away before every record asked for was written. A --follow with no
// --until or --max asks for no last record: its reader leaving ends it
// normally, as Ctrl-C does, with no error.
var ErrOutputClosed = errors.New("the reader of the records went away before every record asked for was written")

// closedOutput reports whether a write failed because nobody reads the
// records any more: EPIPE from a pipe or socket whose reader exited (with
// SIGPIPE ignored, as main does), io.ErrClosedPipe from an io.Pipe.
func closedOutput(err error) bool {
	return errors.Is(err, syscall.EPIPE) || errors.Is(err, io.ErrClosedPipe)
}

// recordsWriteError is the outcome of a failed write of the records, and
// why the replay stopped. A closed output ends a plain replay quietly; a
// backfill's copies are a change to a cluster, so a failed write stays a
// loud error there, as any other write error does.
func recordsWriteError(plan Plan, copying bool, err error) (string, error) {
	if copying || !closedOutput(err) {
		return StoppedError, fmt.Errorf("writing records: %w", err)
	}
	if plan.Follow && plan.Max == 0 && unbounded(plan) {
		return StoppedOutputClosed, nil
	}
	return StoppedOutputClosed, fmt.Errorf("%w (%w)", ErrOutputClosed, err)
}

// unbounded reports whether no partition of the plan has an end.
func unbounded(plan Plan) bool {
	for _, pp := range plan.Partitions {
		if pp.Bound != NoBound || pp.StopAtMs >= 0 {
			return false
		}
	}
	return true
}

// Gather reads the topic's partitions, their log start and end (for iso)
// and the offsets of the given timestamps, with the admin client.
func Gather(ctx context.Context, adm *cluster.Admin, topic string, iso lag.Isolation, times []int64, now time.Time) (Gathered, error) {
	g := Gathered{Topic: topic, Partitions: map[int32]PartitionState{}, TimeOffsets: map[int64]map[int32]int64{}, At: now, Isolation: iso}
	to, err := lag.ListOffsets(ctx, adm, []string{topic}, iso)
	if err != nil {
		return g, err
	}
	if err := to.TopicErr[topic]; err != nil {
		// Only the cluster saying so means the topic does not exist; a
		// listing that a frozen broker left empty is operational (exit 1).
		if errors.Is(err, kerr.UnknownTopicOrPartition) {
			return g, exitcode.AsUsage(fmt.Errorf("topic %s does not exist", topic))
		}
		return g, err
	}
	for p, po := range to.Partitions[topic] {
		if po.Err != nil {
			return g, fmt.Errorf("topic %s partition %d: listing offsets: %w", topic, p, po.Err)
		}
		g.Partitions[p] = PartitionState{Partition: p, LogStart: po.Start, LogEnd: po.End}
	}
	for _, ms := range times {
		lo, err := adm.ListOffsetsAfterMilli(ctx, ms, topic)
		if err != nil {
			return g, fmt.Errorf("topic %s: listing offsets for time %d: %w", topic, ms, err)
		}
		m := map[int32]int64{}
		for p, o := range lo[topic] {
			if o.Err != nil {
				return g, fmt.Errorf("topic %s partition %d: listing offset for time %d: %w", topic, p, ms, o.Err)
			}
			off := o.Offset
			if ps, ok := g.Partitions[p]; ok && (off < 0 || off > ps.LogEnd) {
				off = ps.LogEnd
			}
			m[p] = off
		}
		g.TimeOffsets[ms] = m
	}
	return g, nil
}

// Run replays: gather and plan (bad input → exit-2 error, nothing read),
// snapshot the groups' commits, consume with no group, snapshot again and
// compare. The Result is returned even with an error, as far as it got. An
// unexplained commit change returns an exit-3 error.
func Run(ctx context.Context, cfg cluster.Config, opts Options) (*Result, error) {
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	if err := checkOptions(&opts); err != nil {
		return nil, err
	}
	if err := checkShard(opts.Shard); err != nil {
		return nil, err
	}
	if opts.DigestFile != nil {
		return runWithDigestFile(func(o Options) (*Result, error) { return Run(ctx, cfg, o) }, opts)
	}
	if opts.Produce != nil && opts.Produce.Checkpoint != nil {
		// Held from before the first read of either cluster (the range
		// and the target's end offsets a resume counts from) until the
		// copier's last checkpoint write (its close, deferred later, runs
		// first).
		lock, err := LockCheckpoint(opts.Produce.Checkpoint.Path)
		if err != nil {
			return nil, err
		}
		defer lock.Unlock()
	}
	adm := opts.Admin
	if adm == nil {
		var err error
		if adm, err = cfg.NewAdmin(); err != nil {
			return nil, err
		}
		defer adm.Close()
	}

	g, plan, shard, err := planRun(ctx, cfg, adm, opts, now())
	if err != nil {
		return nil, err
	}
	allParts := make([]int32, 0, len(g.Partitions))
	for p := range g.Partitions {
		allParts = append(allParts, p)
	}
	slices.Sort(allParts)
	before, err := proofBefore(ctx, cfg, adm, opts, allParts)
	if err != nil {
		return nil, err
	}

	var copier *backfiller
	if opts.Produce != nil {
		openSinkBeforeChange(ctx, &opts)
		copier, err = newBackfiller(ctx, cfg, adm, opts.Topic, plan, *opts.Produce)
		if err != nil {
			return nil, err
		}
		defer copier.close()
		if copier.txn {
			// Continue from the position the last committed
			// transaction of this transactional id recorded.
			plan = ResumePlan(plan, copier.resumed)
			copier.plan = plan
		}
		if copier.ck != nil {
			// The checkpoint's range, from its position on.
			plan = copier.plan
		}
	}

	if opts.OpenSink != nil {
		if opts.Sink, err = opts.OpenSink(ctx); err != nil {
			return nil, err
		}
	}
	opts.started = allParts
	res, cerr := consume(ctx, cfg, plan, opts, copier)
	allParts = withAdded(allParts, g, res)
	res.Isolation = opts.Isolation.String()
	res.Shard, res.topicPartitions = shard, len(g.Partitions)
	if copier != nil {
		cerr = copier.complete(ctx, cfg, res, cerr)
	}
	own := ""
	if copier != nil && copier.positionHere {
		own = PositionGroup(opts.Produce.TransactionalID)
	}
	return res, prove(cfg, adm, opts, allParts, before, res, cerr, own)
}

// openSinkBeforeChange has a backfill open its sink (OpenSink: --out,
// maybe a FIFO that waits for its reader) once every check has passed and
// right before its first change (ProduceOptions.BeforeChange: the audit
// intent, InitProducerId, the first copy), not after: an --out that does
// not open then (exit 2, or a FIFO's open ended by Ctrl-C) stops a
// backfill that has changed nothing and recorded nothing.
func openSinkBeforeChange(ctx context.Context, opts *Options) {
	if opts.OpenSink == nil {
		return
	}
	po := *opts.Produce
	open, before := opts.OpenSink, po.BeforeChange
	po.BeforeChange = func() error {
		w, err := open(ctx)
		if err != nil {
			return err
		}
		opts.Sink = w
		if before != nil {
			return before()
		}
		return nil
	}
	opts.Produce, opts.OpenSink = &po, nil
}

// planRun reads the topic's offsets (bounded by the timeout) and plans the
// range, cut to this shard's share with --shard.
func planRun(ctx context.Context, cfg cluster.Config, adm *cluster.Admin, opts Options, started time.Time) (Gathered, Plan, *ShardInfo, error) {
	gctx, cancel := context.WithTimeout(ctx, timeoutOf(cfg))
	g, err := Gather(gctx, adm, opts.Topic, opts.Isolation, TimesNeeded(opts.From, opts.Until), started)
	timedOut := gctx.Err() != nil
	cancel()
	if err != nil {
		if timedOut && ctx.Err() == nil {
			return g, Plan{}, nil, cfg.Unreachable(context.DeadlineExceeded)
		}
		return g, Plan{}, nil, err
	}
	plan, err := MakePlan(g, PlanRequest{Partitions: opts.Partitions, From: opts.From, Until: opts.Until, Max: opts.Max, Follow: opts.Follow, Now: started})
	if err != nil {
		return g, plan, nil, exitcode.AsUsage(err)
	}
	if opts.Shard == nil {
		return g, plan, nil, nil
	}
	plan, info := ShardPlan(plan, *opts.Shard)
	return g, plan, &info, nil
}

// proofBefore takes the proof's first snapshot of the groups' commits on
// the topic (none with --no-verify).
func proofBefore(ctx context.Context, cfg cluster.Config, adm *cluster.Admin, opts Options, allParts []int32) (proofSnapshot, error) {
	if opts.NoVerify {
		return proofSnapshot{}, nil
	}
	sctx, cancel := context.WithTimeout(ctx, timeoutOf(cfg))
	before, err := takeSnapshot(sctx, adm, opts.Topic, allParts, opts.VerifyGroups)
	cancel()
	if err != nil {
		return before, err
	}
	// A named group without commits on the topic is bad input,
	// refused before anything is read or copied.
	if missing := namedWithoutCommits(before, opts.VerifyGroups); len(missing) > 0 {
		return before, noCommitsError(opts.Topic, missing)
	}
	return before, nil
}

// checkOptions refuses options that cannot work together and fills the
// defaults, before any request.
func checkOptions(opts *Options) error {
	if opts.Topic == "" {
		return exitcode.Usagef("no topic given")
	}
	if opts.Format == "" {
		opts.Format = JSONL
	}
	if opts.Follow && opts.Produce != nil && opts.Produce.TransactionalID != "" {
		return exitcode.Usagef("--follow cannot be combined with --transactional-id: the transaction would never commit")
	}
	if opts.Produce != nil {
		// The isolation is part of the job a position records.
		po := *opts.Produce
		po.Range.isolation = opts.Isolation.String()
		opts.Produce = &po
	}
	return checkCheckpoint(opts)
}

// prove takes the proof's second snapshot and compares it with the
// first (unless --no-verify): it runs even after an interrupt or a failure
// (cerr, which it returns unless the proof failed), under a fresh context
// bounded by the timeout.
//
// own is the backfill's position group when it lives on this cluster
// (its moves are the backfill's own), else "".
func prove(cfg cluster.Config, adm *cluster.Admin, opts Options, allParts []int32, before proofSnapshot, res *Result, cerr error, own string) error {
	if opts.NoVerify {
		res.Verification = Verification{Skipped: true, Unchanged: true, Changes: []Change{}, Rows: []Change{}, Groups: []string{}}
		return cerr
	}
	// The proof runs even after an interrupt or a failure: a fresh
	// context bounded by the timeout.
	sctx, scancel := context.WithTimeout(context.Background(), timeoutOf(cfg))
	defer scancel()
	after, err := takeSnapshot(sctx, adm, opts.Topic, allParts, opts.VerifyGroups)
	if err != nil {
		res.Verification = Verification{Error: err.Error(), Changes: []Change{}, Rows: []Change{}, Groups: []string{}}
		if cerr != nil {
			return cerr
		}
		return fmt.Errorf("the replay finished but its proof could not be taken: %w", err)
	}
	res.Verification = compareSnapshots(opts.Topic, before, after, opts.VerifyGroups, own)
	if failed := res.Verification.Failed(); len(failed) > 0 {
		msg := describeFailed(failed)
		if cerr != nil {
			msg += "; the replay also failed: " + cerr.Error()
		}
		return exitcode.Unverifiedf("verification failed: committed offsets of a group with no live member changed during the replay: %s", msg)
	}
	return cerr
}

// complete ends the copy after the read (its last transaction or flush,
// its last checkpoint) and returns the run's error: the copy's, which
// carries the cause (copy or replay error) and the resume point, else the
// read's (cerr).
func (copier *backfiller) complete(ctx context.Context, cfg cluster.Config, res *Result, cerr error) error {
	bctx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	defer cancel(nil)
	// An interruption (Ctrl-C), before the copy ends or while it waits
	// for its last acknowledgements, does not drop the copies in flight:
	// they are waited for up to --timeout from then, so that the result
	// says where the backfill stopped. If that takes long (a slow or
	// stopped target), stderr says so, and how to quit at once (main gives
	// a second Ctrl-C its default action). Nothing is written after
	// complete returns: the timers are stopped under mu, and a callback
	// that already runs writes nothing once done is set.
	var (
		mu          sync.Mutex
		done        bool
		limit, warn *time.Timer
	)
	defer func() {
		mu.Lock()
		defer mu.Unlock()
		done = true
		if limit != nil {
			limit.Stop()
		}
		if warn != nil {
			warn.Stop()
		}
	}()
	interrupted := func() {
		mu.Lock()
		defer mu.Unlock()
		if done {
			return
		}
		t := timeoutOf(cfg)
		limit = time.AfterFunc(t, func() {
			cancel(fmt.Errorf("not acknowledged within %s of the interruption", t))
		})
		if w := copier.opts.Warnf; w != nil {
			warn = time.AfterFunc(time.Second, func() {
				mu.Lock()
				defer mu.Unlock()
				if !done {
					w("interrupted: waiting up to %s for the copies in flight to be acknowledged, so that the result says where the backfill stopped; Ctrl-C again quits at once (a rerun with --transactional-id or --checkpoint still continues where it stopped)", t)
				}
			})
		}
	}
	if ctx.Err() != nil {
		interrupted()
	} else {
		defer context.AfterFunc(ctx, interrupted)()
	}
	br, berr := copier.finish(bctx, res, cerr)
	if err := copier.finishCheckpoint(bctx, br); err != nil && berr == nil {
		berr = fmt.Errorf("the backfill copied its range, but %w: a rerun copies the records after the last checkpoint again (and counts them as possible duplicates)", err)
	}
	res.Backfill = br
	if br != nil && br.Resume != "" {
		// A backfill resumes from its acknowledged copies, which may
		// be behind what the replay read: one resume point, not two.
		res.ResumeFrom = br.Resume
	}
	if berr != nil {
		// It carries the cause (copy or replay error) and the
		// resume point.
		cerr = berr
	}
	return cerr
}

// probeLeaders asks the leaders of the given partitions for their end
// offsets: nil when every one of them answered (an error code in the answer
// is an answer), else a *probeError naming the partitions whose leaders did
// not. Partitions the replay no longer reads are left out: an unrelated
// offline partition is not a stall. Every known broker is asked for the
// topic's leaders at once, so one frozen broker cannot hide the others.
func probeLeaders(ctx context.Context, cl *kgo.Client, topic string, parts []int32) error {
	brokers := cl.DiscoveredBrokers()
	if len(brokers) == 0 {
		brokers = cl.SeedBrokers()
	}
	type answer struct {
		resp *kmsg.MetadataResponse
		err  error
	}
	answers := make(chan answer, len(brokers))
	mctx, mcancel := context.WithCancel(ctx)
	defer mcancel()
	for _, b := range brokers {
		go func() {
			req := kmsg.NewPtrMetadataRequest()
			rt := kmsg.NewMetadataRequestTopic()
			rt.Topic = kmsg.StringPtr(topic)
			req.Topics = append(req.Topics, rt)
			resp, err := req.RequestWith(mctx, b)
			answers <- answer{resp, err}
		}()
	}
	leaders := map[int32]int32{}
	var first error
	for range brokers {
		a := <-answers
		if a.err != nil {
			if first == nil {
				first = a.err
			}
			continue
		}
		for _, t := range a.resp.Topics {
			for _, p := range t.Partitions {
				if p.ErrorCode == 0 && p.Leader >= 0 {
					leaders[p.Partition] = p.Leader
				}
			}
		}
		mcancel()
		first = nil
		break
	}
	if first != nil || len(leaders) == 0 {
		if first == nil {
			first = fmt.Errorf("no leader known for topic %s", topic)
		}
		return &probeError{parts: parts, err: first}
	}
	byLeader := map[int32][]int32{}
	var failed []int32
	for _, p := range parts {
		l, ok := leaders[p]
		if !ok {
			failed = append(failed, p) // no leader: nobody can serve it
			continue
		}
		byLeader[l] = append(byLeader[l], p)
	}
	if len(failed) > 0 {
		first = fmt.Errorf("no leader for partition(s) %s", formatParts(failed))
	}
	type result struct {
		parts []int32
		err   error
	}
	results := make(chan result, len(byLeader))
	for l, ps := range byLeader {
		go func() {
			req := kmsg.NewPtrListOffsetsRequest()
			rt := kmsg.NewListOffsetsRequestTopic()
			rt.Topic = topic
			for _, p := range ps {
				rp := kmsg.NewListOffsetsRequestTopicPartition()
				rp.Partition = p
				rp.Timestamp = -1
				rt.Partitions = append(rt.Partitions, rp)
			}
			req.Topics = append(req.Topics, rt)
			_, err := req.RequestWith(ctx, cl.Broker(int(l)))
			results <- result{ps, err}
		}()
	}
	for range byLeader {
		r := <-results
		if r.err != nil {
			failed = append(failed, r.parts...)
			if first == nil {
				first = r.err
			}
		}
	}
	if len(failed) == 0 {
		return nil
	}
	slices.Sort(failed)
	return &probeError{parts: failed, err: first}
}

// probeError names the partitions whose leaders did not answer.
type probeError struct {
	parts []int32
	err   error
}

func (e *probeError) Error() string { return e.err.Error() }
func (e *probeError) Unwrap() error { return e.err }

// formatParts lists partitions as 0,2,5 (at most ten, then a count).
func formatParts(parts []int32) string {
	items := make([]string, len(parts))
	for i, p := range parts {
		items[i] = strconv.Itoa(int(p))
	}
	return textlist.Short(items, 10, ",")
}

func timeoutOf(cfg cluster.Config) time.Duration {
	if cfg.Timeout > 0 {
		return cfg.Timeout
	}
	return 30 * time.Second
}
