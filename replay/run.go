package replay

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/offsetctl/offsetctl/admin"
	"github.com/offsetctl/offsetctl/cluster"
	"github.com/offsetctl/offsetctl/internal/exitcode"
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
	Isolation admin.Isolation

	// Sink receives the records in Format; nil means none.
	Sink   io.Writer
	Format Format

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
	// --from To continues where this replay stopped.
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
	Records   int64  `json:"records"`
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
}

const defaultFetchMaxBytes = 2 << 20

// Why a replay stopped.
const (
	StoppedEnd         = "end"         // every partition reached its bound
	StoppedMax         = "max"         // --max records
	StoppedInterrupted = "interrupted" // ctx ended (Ctrl-C)
	StoppedError       = "error"
)

// Gather reads the topic's partitions, their log start and end (for iso)
// and the offsets of the given timestamps, with the admin client.
func Gather(ctx context.Context, adm *cluster.Admin, topic string, iso admin.Isolation, times []int64, now time.Time) (Gathered, error) {
	g := Gathered{Topic: topic, Partitions: map[int32]PartitionState{}, TimeOffsets: map[int64]map[int32]int64{}, At: now}
	to, err := admin.ListOffsets(ctx, adm, []string{topic}, iso)
	if err != nil {
		return g, err
	}
	if err := to.TopicErr[topic]; err != nil {
		if errors.Is(err, kerr.UnknownTopicOrPartition) || to.Partitions[topic] == nil {
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
	if opts.Topic == "" {
		return nil, exitcode.Usagef("no topic given")
	}
	if opts.Format == "" {
		opts.Format = JSONL
	}
	if opts.Follow && opts.Produce != nil && opts.Produce.TransactionalID != "" {
		return nil, exitcode.Usagef("--follow cannot be combined with --transactional-id: the transaction would never commit")
	}
	adm := opts.Admin
	if adm == nil {
		var err error
		if adm, err = cfg.NewAdmin(); err != nil {
			return nil, err
		}
		defer adm.Close()
	}

	gctx, cancel := context.WithTimeout(ctx, timeoutOf(cfg))
	started := now()
	g, err := Gather(gctx, adm, opts.Topic, opts.Isolation, TimesNeeded(opts.From, opts.Until), started)
	timedOut := gctx.Err() != nil
	cancel()
	if err != nil {
		if timedOut && ctx.Err() == nil {
			return nil, cfg.Unreachable(context.DeadlineExceeded)
		}
		return nil, err
	}
	plan, err := MakePlan(g, PlanRequest{Partitions: opts.Partitions, From: opts.From, Until: opts.Until, Max: opts.Max, Follow: opts.Follow, Now: started})
	if err != nil {
		return nil, exitcode.AsUsage(err)
	}

	allParts := make([]int32, 0, len(g.Partitions))
	for p := range g.Partitions {
		allParts = append(allParts, p)
	}
	slices.Sort(allParts)

	var before proofSnapshot
	if !opts.NoVerify {
		sctx, cancel := context.WithTimeout(ctx, timeoutOf(cfg))
		before, err = takeSnapshot(sctx, adm, opts.Topic, allParts, opts.VerifyGroups)
		cancel()
		if err != nil {
			return nil, err
		}
		// A named group without commits on the topic is bad input,
		// refused before anything is read or copied.
		if missing := namedWithoutCommits(before, opts.VerifyGroups); len(missing) > 0 {
			return nil, noCommitsError(opts.Topic, missing)
		}
	}

	var copier *backfiller
	if opts.Produce != nil {
		copier, err = newBackfiller(ctx, cfg, adm, opts.Topic, plan, *opts.Produce)
		if err != nil {
			return nil, err
		}
		defer copier.close()
	}

	res, cerr := consume(ctx, cfg, plan, opts, copier)
	res.Isolation = opts.Isolation.String()
	if copier != nil {
		bctx := ctx
		if ctx.Err() != nil {
			var c context.CancelFunc
			bctx, c = context.WithTimeout(context.Background(), timeoutOf(cfg))
			defer c()
		}
		br, berr := copier.finish(bctx, res, cerr)
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
	}

	if opts.NoVerify {
		res.Verification = Verification{Skipped: true, Unchanged: true, Changes: []Change{}, Rows: []Change{}, Groups: []string{}}
		return res, cerr
	}
	// The proof runs even after an interrupt or a failure: a fresh
	// context bounded by the timeout.
	sctx, scancel := context.WithTimeout(context.Background(), timeoutOf(cfg))
	defer scancel()
	after, err := takeSnapshot(sctx, adm, opts.Topic, allParts, opts.VerifyGroups)
	if err != nil {
		res.Verification = Verification{Error: err.Error(), Changes: []Change{}, Rows: []Change{}, Groups: []string{}}
		if cerr != nil {
			return res, cerr
		}
		return res, fmt.Errorf("the replay finished but its proof could not be taken: %w", err)
	}
	res.Verification = compareSnapshots(opts.Topic, before, after, opts.VerifyGroups)
	if failed := res.Verification.Failed(); len(failed) > 0 {
		msg := describeFailed(failed)
		if cerr != nil {
			msg += "; the replay also failed: " + cerr.Error()
		}
		return res, exitcode.Unverifiedf("verification failed: committed offsets of a group with no live member changed during the replay: %s", msg)
	}
	return res, cerr
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

// pstate is the consuming state of one partition.
type pstate struct {
	plan    PartitionPlan
	next    int64 // next offset to read: last seen offset (records and control markers) + 1
	done    bool
	records int64
	firstTs int64
	lastTs  int64
	hash    *partHash
}

// consume reads the plan's ranges with a group-less client and streams them.
func consume(ctx context.Context, cfg cluster.Config, plan Plan, opts Options, copier *backfiller) (*Result, error) {
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	res := &Result{Topic: plan.Topic, Stopped: StoppedEnd}
	payload := opts.PayloadDigest || opts.Produce != nil
	states := make(map[int32]*pstate, len(plan.Partitions))
	order := make([]int32, 0, len(plan.Partitions))
	want := map[int32]kgo.Offset{}
	for _, pp := range plan.Partitions {
		st := &pstate{plan: pp, next: pp.From, hash: newPartHash(payload)}
		states[pp.Partition] = st
		order = append(order, pp.Partition)
		if pp.Empty() && pp.StopAtMs < 0 {
			st.done = true
			continue
		}
		want[pp.Partition] = kgo.NewOffset().At(pp.From)
	}
	slices.Sort(order)

	var bw *bufio.Writer
	encode := opts.Sink != nil && opts.Format != None && opts.Sink != io.Discard
	if encode {
		bw = bufio.NewWriterSize(opts.Sink, 1<<20)
	}
	topicJSON, _ := json.Marshal(plan.Topic)

	start := now()
	total := plan.Total()
	every := opts.ProgressEvery
	if every <= 0 {
		every = 200 * time.Millisecond
	}
	var bytes int64
	lastProgress := start
	report := func(done bool) {
		if opts.Progress == nil {
			return
		}
		var n int64
		for _, st := range states {
			n += st.records
		}
		opts.Progress(Progress{Records: n, Total: total, Bytes: bytes, Elapsed: now().Sub(start), Done: done})
	}

	finish := func() (*Result, error) {
		var err error
		if bw != nil {
			if ferr := bw.Flush(); ferr != nil {
				err = fmt.Errorf("writing records: %w", ferr)
			}
		}
		elapsed := now().Sub(start)
		res.ElapsedMs = elapsed.Milliseconds()
		hashes := make(map[int32]*partHash, len(states))
		for _, p := range order {
			st := states[p]
			pr := PartitionResult{Partition: p, From: st.plan.From, To: st.next, Records: st.records, LogStart: st.plan.LogStart, LogEnd: st.plan.LogEnd, Bound: st.plan.Bound}
			if pr.Bound == NoBound {
				pr.Bound = -1
			}
			pr.Stop = res.Stopped
			if st.done {
				pr.Stop = st.plan.BoundBy // it reached its bound
			}
			if st.records > 0 {
				f, l := st.firstTs, st.lastTs
				pr.FirstTs, pr.LastTs = &f, &l
			}
			res.Partitions = append(res.Partitions, pr)
			res.Records += st.records
			hashes[p] = st.hash
		}
		res.Bytes = bytes
		if res.Stopped != StoppedEnd {
			next := map[int32]int64{}
			for _, pr := range res.Partitions {
				if pr.Bound < 0 || pr.To < pr.Bound {
					next[pr.Partition] = pr.To
				}
			}
			if len(next) > 0 {
				res.ResumeFrom = FormatResume(next)
			}
		}
		res.Digest, res.DigestVersion = combine(order, hashes, false), DigestVersion
		if payload {
			res.PayloadDigest = combine(order, hashes, true)
		}
		if secs := elapsed.Seconds(); secs > 0 {
			res.RecordsPerSec = float64(res.Records) / secs
		}
		report(true)
		return res, err
	}

	if len(want) == 0 {
		return finish()
	}

	isoOpt := kgo.FetchIsolationLevel(kgo.ReadCommitted())
	if opts.Isolation == admin.ReadUncommitted {
		isoOpt = kgo.FetchIsolationLevel(kgo.ReadUncommitted())
	}
	fetchMax := opts.FetchMaxBytes
	if fetchMax <= 0 {
		fetchMax = defaultFetchMaxBytes
	}
	// Records are recycled into the pools once encoded and hashed, unless
	// a backfill hands their bytes to the producer.
	pool := copier == nil
	copts := []kgo.Opt{
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{plan.Topic: want}),
		// Never reset silently: an OFFSET_OUT_OF_RANGE is an error.
		kgo.ConsumeResetOffset(kgo.NoResetOffset()),
		isoOpt,
		// Control markers come back as records so that the position of
		// every partition is known even when its last offsets are
		// commit or abort markers.
		kgo.KeepControlRecords(),
		kgo.FetchMaxBytes(fetchMax),
		kgo.FetchMaxPartitionBytes(fetchMax),
		kgo.FetchMaxWait(500 * time.Millisecond),
	}
	if pool {
		copts = append(copts, kgo.WithPools(&fetchPools{}))
	}
	cl, err := cfg.NewClient(copts...)
	if err != nil {
		res.Stopped = StoppedError
		r, _ := finish()
		return r, err
	}
	defer cl.Close()

	var (
		count    int64
		stopAll  bool
		loopErr  error
		open     = len(want)
		toPause  []int32
		writeErr error
	)
	markDone := func(st *pstate, byBound bool) {
		if st.done {
			return
		}
		st.done = true
		if byBound && st.plan.Bound != NoBound && st.next < st.plan.Bound {
			st.next = st.plan.Bound
		}
		open--
		toPause = append(toPause, st.plan.Partition)
	}

	// A fetch that brings nothing for the stall timeout (--timeout) is
	// checked: if the partitions' leaders answer ListOffsets, the topic
	// is just quiet (a tail, a slow broker) and the replay goes on; if
	// they do not, the cluster died or froze under the replay, which
	// then stops with the resume point instead of waiting forever (kgo
	// retries a lost broker without end).
	stall := timeoutOf(cfg)
	for open > 0 && !stopAll {
		pctx, pcancel := context.WithTimeout(ctx, stall)
		fs := cl.PollFetches(pctx)
		stalled := pctx.Err() != nil && ctx.Err() == nil
		pcancel()
		quiet := stalled && fs.NumRecords() == 0
		fs.EachError(func(_ string, _ int32, err error) {
			quiet = quiet && errors.Is(err, context.DeadlineExceeded) // a real partition error is handled below
		})
		if quiet {
			var openParts []int32
			for _, p := range order {
				if !states[p].done {
					openParts = append(openParts, p)
				}
			}
			tctx, tcancel := context.WithTimeout(ctx, stall)
			perr := probeLeaders(tctx, cl, plan.Topic, openParts)
			timedOut := tctx.Err() != nil
			tcancel()
			var pe *probeError
			if ctx.Err() == nil && errors.As(perr, &pe) {
				res.Stopped = StoppedError
				r, _ := finish()
				why := pe.Error()
				if timedOut {
					why = "no answer within " + stall.String()
				}
				who := "the cluster at " + strings.Join(cfg.Brokers, ",") + " does not answer for partition(s) " + formatParts(pe.parts)
				return r, fmt.Errorf("topic %s: no records for %s and %s (%s): replay stopped", plan.Topic, stall, who, why)
			}
			continue
		}
		if ctx.Err() != nil {
			if plan.Follow {
				res.Stopped = StoppedInterrupted
				break
			}
			res.Stopped = StoppedInterrupted
			r, _ := finish()
			return r, ctx.Err()
		}
		fs.EachError(func(t string, p int32, err error) {
			if loopErr != nil || (stalled && errors.Is(err, context.DeadlineExceeded)) {
				return
			}
			st := states[p]
			if st == nil || st.done {
				return
			}
			if errors.Is(err, kerr.OffsetOutOfRange) {
				loopErr = fmt.Errorf("topic %s partition %d: offset %d is out of range (OFFSET_OUT_OF_RANGE): records were deleted under the replay (retention or delete-records); %d records of this partition were replayed, up to offset %d",
					t, p, st.next, st.records, st.next)
				return
			}
			loopErr = fmt.Errorf("topic %s partition %d at offset %d: %w", t, p, st.next, err)
		})
		if loopErr != nil {
			res.Stopped = StoppedError
			r, _ := finish()
			return r, loopErr
		}
		fs.EachPartition(func(ftp kgo.FetchTopicPartition) {
			st := states[ftp.Partition]
			if st == nil || st.done || stopAll || writeErr != nil {
				return
			}
			bound := st.plan.Bound
			for _, r := range ftp.Records {
				if r.Offset >= bound {
					markDone(st, true)
					break
				}
				st.next = r.Offset + 1
				if r.Attrs.IsControl() {
					continue
				}
				ts := r.Timestamp.UnixMilli()
				if st.plan.StopAtMs >= 0 && ts >= st.plan.StopAtMs {
					st.next = r.Offset
					markDone(st, false)
					break
				}
				if copier != nil {
					// Copy first: a record the copier refused (an
					// earlier copy failed) is neither replayed nor
					// counted, and the partition's position stays on
					// it, so the resume point of a partition whose
					// earlier copies were all acknowledged is this
					// record, not the one after it.
					if err := copier.copy(r); err != nil {
						st.next = r.Offset
						writeErr = err
						return
					}
				}
				if st.records == 0 {
					st.firstTs = ts
				}
				st.lastTs = ts
				st.records++
				st.hash.add(r)
				n := len(r.Key) + len(r.Value)
				for i := range r.Headers {
					n += len(r.Headers[i].Key) + len(r.Headers[i].Value)
				}
				bytes += int64(n)
				if encode {
					var b []byte
					if opts.Format == Raw {
						b = appendRaw(bw.AvailableBuffer(), r)
					} else {
						b = appendJSONRecord(bw.AvailableBuffer(), topicJSON, r)
					}
					if _, err := bw.Write(b); err != nil {
						writeErr = err
						return
					}
				}
				count++
				if plan.Max > 0 && count >= plan.Max {
					res.Stopped = StoppedMax
					stopAll = true
					break
				}
			}
			if !st.done && st.next >= bound {
				markDone(st, true)
			}
			if pool {
				for _, r := range ftp.Records {
					r.Recycle()
				}
			}
		})
		if writeErr != nil {
			res.Stopped = StoppedError
			r, _ := finish()
			if copier != nil && copier.failed() {
				return r, writeErr
			}
			return r, fmt.Errorf("writing records: %w", writeErr)
		}
		if plan.Follow && bw != nil && bw.Buffered() > 0 {
			// Tailing: every fetch reaches the reader at once.
			if err := bw.Flush(); err != nil {
				res.Stopped = StoppedError
				r, _ := finish()
				return r, fmt.Errorf("writing records: %w", err)
			}
		}
		if len(toPause) > 0 {
			cl.PauseFetchPartitions(map[string][]int32{plan.Topic: toPause})
			toPause = toPause[:0]
		}
		if opts.Progress != nil {
			if t := now(); t.Sub(lastProgress) >= every {
				lastProgress = t
				report(false)
			}
		}
	}
	return finish()
}
