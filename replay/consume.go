package replay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetctl/offsetctl/internal/cluster"
	"github.com/offsetctl/offsetctl/internal/lag"
)

// pstate is the consuming state of one partition.
type pstate struct {
	plan    PartitionPlan
	next    int64 // next offset to read: last seen offset (records and control markers) + 1
	done    bool
	records int64
	firstTs int64
	lastTs  int64
	bytes   int64 // key, value and header bytes of the records counted
	hash    *partHash

	// pend says records of this partition are encoded but not yet written
	// to the sink; sent is then its state before the first of them, what
	// a stop counts as done (sent.go). hashMark is the offset at which the
	// hasher saves the hash state in the current fetch (-1: none).
	pend     bool
	sent     sentState
	hashMark int64
}

// consumer reads a plan's ranges with a group-less client and streams
// them: to the sink, the digests and (for a backfill) the copier. One
// consume call owns one consumer.
type consumer struct {
	cfg     cluster.Config
	plan    Plan
	opts    Options
	copier  *backfiller
	now     func() time.Time
	res     *Result
	payload bool // the payload digest is computed (asked, or a backfill)

	states map[int32]*pstate
	order  []int32              // the partitions, ascending
	want   map[int32]kgo.Offset // where each open partition starts
	open   int                  // partitions not done

	// The records encoded for the sink and not yet written (sent.go);
	// sink is nil when nothing is encoded. track says a record is done
	// only once written: always but in a backfill, whose records are
	// done once their copies are acknowledged.
	sink      io.Writer
	out       []byte
	outErr    error
	track     bool
	unsent    []*pstate // the partitions with pend set
	topicJSON []byte
	pool      bool // records go back to the pools once encoded and hashed

	start, lastProgress time.Time
	bytes, count        int64
	stopAll             bool
	// halted is set once the replay's context ends (a backfill only):
	// take stops copying at the next record. A copy waits for room in
	// the producer's buffer (producerBufferBytes) at the target's pace,
	// so copying the rest of a fetch (up to --fetch-max-bytes) first
	// could keep Ctrl-C waiting for minutes on a slow target.
	halted   atomic.Bool
	toPause  []int32
	writeErr error

	cl *kgo.Client
	// hashers digest the records off the consume loop (hashFetched);
	// started with the first records.
	hashers []*hasher
	// grow finds partitions added while following (follow.go); nil
	// otherwise.
	grow *grower
}

// consume reads the plan's ranges with a group-less client and streams them.
func consume(ctx context.Context, cfg cluster.Config, plan Plan, opts Options, copier *backfiller) (*Result, error) {
	c := newConsumer(cfg, plan, opts, copier)
	if len(c.want) == 0 {
		return c.finish()
	}
	cl, err := cfg.NewClient(c.clientOpts()...)
	if err != nil {
		return c.stop(StoppedError, err)
	}
	defer cl.Close()
	c.cl, c.open = cl, len(c.want)
	c.grow = c.startGrower(ctx)
	defer c.grow.close()
	if copier != nil {
		stop := context.AfterFunc(ctx, func() { c.halted.Store(true) })
		defer stop()
	}
	return c.loop(ctx)
}

func newConsumer(cfg cluster.Config, plan Plan, opts Options, copier *backfiller) *consumer {
	c := &consumer{cfg: cfg, plan: plan, opts: opts, copier: copier, now: time.Now,
		res:     &Result{Topic: plan.Topic, Stopped: StoppedEnd},
		payload: opts.PayloadDigest || opts.Produce != nil,
		states:  make(map[int32]*pstate, len(plan.Partitions)),
		order:   make([]int32, 0, len(plan.Partitions)),
		want:    map[int32]kgo.Offset{},
		// Records are recycled into the pools once encoded and hashed,
		// unless a backfill hands their bytes to the producer.
		pool: copier == nil,
	}
	if opts.Now != nil {
		c.now = opts.Now
	}
	for _, pp := range plan.Partitions {
		st := &pstate{plan: pp, next: pp.From, hash: newPartHash(c.payload)}
		c.states[pp.Partition] = st
		c.order = append(c.order, pp.Partition)
		if pp.Empty() && pp.StopAtMs < 0 {
			st.done = true
			continue
		}
		c.want[pp.Partition] = kgo.NewOffset().At(pp.From)
	}
	slices.Sort(c.order)
	if opts.Sink != nil && opts.Format != None && opts.Sink != io.Discard {
		c.sink, c.out = opts.Sink, make([]byte, 0, outBufCap)
		c.track = copier == nil
	}
	c.topicJSON, _ = json.Marshal(plan.Topic)
	c.start = c.now()
	c.lastProgress = c.start
	return c
}

func (c *consumer) clientOpts() []kgo.Opt {
	isoOpt := kgo.FetchIsolationLevel(kgo.ReadCommitted())
	if c.opts.Isolation == lag.ReadUncommitted {
		isoOpt = kgo.FetchIsolationLevel(kgo.ReadUncommitted())
	}
	fetchMax := c.opts.FetchMaxBytes
	if fetchMax <= 0 {
		fetchMax = defaultFetchMaxBytes
	}
	copts := []kgo.Opt{
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{c.plan.Topic: c.want}),
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
		kgo.MaxConcurrentFetches(maxConcurrentFetches),
	}
	if fetchMax > kgoBrokerMaxReadBytes-(1<<20) {
		// kgo refuses a fetch larger than what it reads from a broker
		// (100 MiB by default): --fetch-max-bytes accepts up to 256 MiB.
		copts = append(copts, kgo.BrokerMaxReadBytes(fetchMax+1<<20))
	}
	if c.pool {
		copts = append(copts, kgo.WithPools(newFetchPools()))
	}
	return copts
}

// kgoBrokerMaxReadBytes is kgo's default kgo.BrokerMaxReadBytes.
const kgoBrokerMaxReadBytes = 100 << 20

// loop polls until every partition is done, --max is reached, or it
// stops with an error.
func (c *consumer) loop(ctx context.Context) (*Result, error) {
	// A fetch that brings nothing for the stall timeout (--timeout) is
	// checked (checkLeaders) instead of waiting forever.
	stall := timeoutOf(c.cfg)
	for c.open > 0 && !c.stopAll {
		if err := c.adopt(); err != nil {
			return c.stop(StoppedError, err)
		}
		pctx, pcancel := c.pollContext(ctx, stall)
		fs := c.cl.PollFetches(pctx)
		stalled := pctx.Err() != nil && ctx.Err() == nil && !woken(pctx)
		pcancel()
		if quietFetch(fs, stalled) {
			if err := c.checkLeaders(ctx, stall); err != nil {
				return c.stop(StoppedError, err)
			}
			continue
		}
		if ctx.Err() != nil {
			if c.plan.Follow {
				c.res.Stopped = StoppedInterrupted
				break
			}
			return c.stop(StoppedInterrupted, ctx.Err())
		}
		if err := c.fetchError(fs, stalled); err != nil {
			return c.stop(StoppedError, err)
		}
		fs.EachPartition(c.take)
		if why, err := c.afterFetch(); why != "" {
			return c.stop(why, err)
		}
	}
	return c.finish()
}

// quietFetch reports a poll that ended by the stall timeout with no
// records and no partition error but that timeout.
func quietFetch(fs kgo.Fetches, stalled bool) bool {
	quiet := stalled && fs.NumRecords() == 0
	fs.EachError(func(_ string, _ int32, err error) {
		quiet = quiet && errors.Is(err, context.DeadlineExceeded) // a real partition error is handled by fetchError
	})
	return quiet
}

// checkLeaders follows a quiet fetch: if the open partitions' leaders
// answer ListOffsets, the topic is just quiet (a tail, a slow broker) and
// the replay goes on (nil); if they do not, the cluster died or froze
// under the replay, which then stops with the resume point instead of
// waiting forever (kgo retries a lost broker without end).
func (c *consumer) checkLeaders(ctx context.Context, stall time.Duration) error {
	var openParts []int32
	for _, p := range c.order {
		if !c.states[p].done {
			openParts = append(openParts, p)
		}
	}
	tctx, tcancel := context.WithTimeout(ctx, stall)
	perr := c.probeUntil(tctx, openParts)
	timedOut := tctx.Err() != nil
	tcancel()
	var pe *probeError
	if ctx.Err() != nil || !errors.As(perr, &pe) {
		return nil
	}
	why := pe.Error()
	if timedOut {
		why = "no answer within " + stall.String()
	}
	who := "the cluster at " + strings.Join(c.cfg.Brokers, ",") + " does not answer for partition(s) " + formatParts(pe.parts)
	return fmt.Errorf("topic %s: no records for %s and %s (%s): replay stopped", c.plan.Topic, stall, who, why)
}

// probeUntil repeats probeLeaders until the leaders answer or ctx ends.
// A restarting broker refuses connections at once: one refused probe
// must not stop a replay that the restart lets go on. So the stall is a
// quiet fetch of --timeout and then up to --timeout of probing, and a
// restart shorter than about twice --timeout rides through (docs/replay.md).
func (c *consumer) probeUntil(ctx context.Context, parts []int32) error {
	for {
		err := probeLeaders(ctx, c.cl, c.plan.Topic, parts)
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(probeRetry):
		}
	}
}

// probeRetry is the pause between two probes of a stalled replay.
const probeRetry = 200 * time.Millisecond

// fetchError returns the first partition error of an open partition (a
// stall's deadline aside).
func (c *consumer) fetchError(fs kgo.Fetches, stalled bool) error {
	var ferr error
	fs.EachError(func(t string, p int32, err error) {
		if ferr != nil || (stalled && errors.Is(err, context.DeadlineExceeded)) {
			return
		}
		st := c.states[p]
		if st == nil || st.done {
			return
		}
		if errors.Is(err, kerr.OffsetOutOfRange) {
			ferr = fmt.Errorf("topic %s partition %d: offset %d is out of range (OFFSET_OUT_OF_RANGE): records were deleted under the replay (retention or delete-records); %d records of this partition were replayed, up to offset %d",
				t, p, st.next, st.records, st.next)
			return
		}
		ferr = fmt.Errorf("topic %s partition %d at offset %d: %w", t, p, st.next, err)
	})
	return ferr
}

// take consumes one partition's fetched records up to its bound, its
// stop time or --max; a failed copy or write stops it (writeErr). The
// records taken are then digested off the loop (hashFetched).
func (c *consumer) take(ftp kgo.FetchTopicPartition) {
	st := c.states[ftp.Partition]
	if st == nil || st.done || c.stopAll || c.writeErr != nil || c.halted.Load() {
		return
	}
	bound := st.plan.Bound
	st.hashMark = -1
	taken := 0 // ftp.Records[:taken] holds every record counted (and control markers)
	for i, r := range ftp.Records {
		if r.Offset >= bound {
			c.markDone(st, true)
			break
		}
		if c.halted.Load() {
			// Interrupted: the partition resumes at this record, not
			// copied; the loop stops at its next poll.
			st.next = r.Offset
			break
		}
		st.next = r.Offset + 1
		if r.Attrs.IsControl() {
			continue
		}
		ts := r.Timestamp.UnixMilli()
		if st.plan.StopAtMs >= 0 && ts >= st.plan.StopAtMs {
			st.next = r.Offset
			c.markDone(st, false)
			break
		}
		before := st.records
		err := c.record(st, r, ts)
		if st.records != before {
			taken = i + 1
		}
		if err != nil {
			c.writeErr = err
			c.hashFetched(st, ftp.Records, taken)
			return
		}
		if c.plan.Max > 0 && c.count >= c.plan.Max {
			c.res.Stopped = StoppedMax
			c.stopAll = true
			break
		}
	}
	if !st.done && st.next >= bound {
		c.markDone(st, true)
	}
	c.hashFetched(st, ftp.Records, taken)
}

// record copies, counts, hashes and encodes one data record.
func (c *consumer) record(st *pstate, r *kgo.Record, ts int64) error {
	if c.copier != nil {
		// Copy first: a record the copier refused (an earlier copy
		// failed) is neither replayed nor counted, and the partition's
		// position stays on it, so the resume point of a partition whose
		// earlier copies were all acknowledged is this record, not the
		// one after it.
		if err := c.copier.copy(r); err != nil {
			st.next = r.Offset
			return err
		}
	}
	if c.track && !st.pend {
		c.hold(st, r.Offset)
	}
	if st.records == 0 {
		st.firstTs = ts
	}
	st.lastTs = ts
	st.records++
	n := len(r.Key) + len(r.Value)
	for i := range r.Headers {
		n += len(r.Headers[i].Key) + len(r.Headers[i].Value)
	}
	st.bytes += int64(n)
	c.bytes += int64(n)
	if c.sink != nil {
		if c.opts.Format == Raw {
			c.out = appendRaw(c.out, r)
		} else {
			c.out = appendJSONRecord(c.out, c.topicJSON, r)
		}
		if len(c.out) >= outFlushAt {
			if err := c.flush(); err != nil {
				return err
			}
		}
	}
	c.count++
	return nil
}

func (c *consumer) markDone(st *pstate, byBound bool) {
	if st.done {
		return
	}
	st.done = true
	if byBound && st.plan.Bound != NoBound && st.next < st.plan.Bound {
		st.next = st.plan.Bound
	}
	c.open--
	c.toPause = append(c.toPause, st.plan.Partition)
}

// afterFetch reports a failed copy or write, flushes a tail, pauses the
// partitions that are done and reports progress. It returns why the replay
// stops ("" to go on) and the error to return with it: none for a tail
// whose reader left (recordsWriteError).
func (c *consumer) afterFetch() (string, error) {
	if c.writeErr != nil {
		if c.copier != nil && c.copier.failed() {
			return StoppedError, c.writeErr
		}
		return recordsWriteError(c.plan, c.copier != nil, c.writeErr)
	}
	if c.plan.Follow && len(c.out) > 0 {
		// Tailing: every fetch reaches the reader at once.
		if err := c.flush(); err != nil {
			return recordsWriteError(c.plan, c.copier != nil, err)
		}
	}
	if len(c.toPause) > 0 {
		c.cl.PauseFetchPartitions(map[string][]int32{c.plan.Topic: c.toPause})
		c.toPause = c.toPause[:0]
	}
	if c.opts.Progress != nil {
		every := c.opts.ProgressEvery
		if every <= 0 {
			every = 200 * time.Millisecond
		}
		if t := c.now(); t.Sub(c.lastProgress) >= every {
			c.lastProgress = t
			c.report(false)
		}
	}
	return "", nil
}

func (c *consumer) report(done bool) {
	if c.opts.Progress == nil {
		return
	}
	var n int64
	for _, st := range c.states {
		n += st.records
	}
	c.opts.Progress(Progress{Records: n, Total: c.plan.Total(), Bytes: c.bytes, Elapsed: c.now().Sub(c.start), Done: done})
}

// stop ends the replay early with why and err; the result still says
// what was replayed (a failed flush is then not reported over err).
func (c *consumer) stop(why string, err error) (*Result, error) {
	c.res.Stopped = why
	r, _ := c.finish()
	return r, err
}

// finish flushes the sink and fills in the result: per partition, the
// resume point, the digests and the rate.
func (c *consumer) finish() (*Result, error) {
	var err error
	if c.sink != nil {
		if ferr := c.flush(); ferr != nil {
			var stopped string
			stopped, err = recordsWriteError(c.plan, c.copier != nil, ferr)
			if c.res.Stopped == StoppedEnd || c.res.Stopped == StoppedMax {
				c.res.Stopped = stopped // the records read did not all reach the output
			}
		}
	}
	c.waitHashers()
	res := c.res
	elapsed := c.now().Sub(c.start)
	res.ElapsedMs = elapsed.Milliseconds()
	hashes := c.partitionResults()
	if res.Stopped != StoppedEnd {
		res.ResumeFrom = resumeFrom(res.Partitions)
	}
	res.Digest, res.DigestVersion = combine(c.order, hashes, false), DigestVersion
	res.sums = partitionSums(c.order, hashes)
	if c.payload {
		res.PayloadDigest = combine(c.order, hashes, true)
	}
	if secs := elapsed.Seconds(); secs > 0 {
		res.RecordsPerSec = float64(res.Records) / secs
	}
	c.report(true)
	return res, err
}

// partitionResults appends every partition's result to c.res and returns
// their hashes.
func (c *consumer) partitionResults() map[int32]*partHash {
	hashes := make(map[int32]*partHash, len(c.states))
	for _, p := range c.order {
		st := c.states[p]
		done := sentState{next: st.next, records: st.records, bytes: st.bytes, firstTs: st.firstTs, lastTs: st.lastTs}
		if st.pend {
			// Its last records never reached the sink: it stopped
			// before them, and neither counts nor digests them.
			done = st.sent
			st.hash.rewind()
		}
		pr := PartitionResult{Partition: p, From: st.plan.From, To: done.next, Records: done.records, LogStart: st.plan.LogStart, LogEnd: st.plan.LogEnd, Bound: st.plan.Bound}
		if pr.Bound == NoBound {
			pr.Bound = -1
		}
		pr.Stop = c.res.Stopped
		if st.done && !st.pend {
			pr.Stop = st.plan.BoundBy // it reached its bound
		}
		if done.records > 0 {
			f, l := done.firstTs, done.lastTs
			pr.FirstTs, pr.LastTs = &f, &l
		}
		c.res.Partitions = append(c.res.Partitions, pr)
		c.res.Records += done.records
		c.res.Bytes += done.bytes
		hashes[p] = st.hash
	}
	return hashes
}

// resumeFrom is the --from that continues a stopped replay: the
// partitions that did not reach their bound, at their next offset ("" if
// none).
func resumeFrom(prs []PartitionResult) string {
	next := map[int32]int64{}
	for _, pr := range prs {
		if pr.Bound < 0 || pr.To < pr.Bound {
			next[pr.Partition] = pr.To
		}
	}
	if len(next) == 0 {
		return ""
	}
	return FormatResume(next)
}

// hashJob is one fetch of one partition for a hasher: the data records
// (control markers excluded) of recs[:n] are added to ph, in order; then,
// when the records are pooled, every record of recs is recycled.
type hashJob struct {
	ph   *partHash
	recs []*kgo.Record
	n    int
	mark int64 // the offset before which ph saves its state (-1: none; sent.go)
}

// hasher digests records on a goroutine of its own, so that SHA-256
// (about 100-160 ns a record, most of the consume loop's own time) runs
// beside the fetching, decoding and encoding instead of on their path.
// A partition always goes to the same hasher (hasherFor), whose jobs are
// done in the order they were sent, so each partition's frames are hashed
// in offset order: the digest bytes are those of partHash.add called in
// the loop. A few hashers serve every partition: one goroutine per
// partition would be 10,000 goroutines and fetches held for a topic of
// 10,000 partitions.
type hasher struct {
	jobs    chan hashJob
	done    chan struct{}
	recycle bool
}

// hasherDepth bounds the fetches a hasher may be behind the consume loop:
// the loop then waits, so resident memory stays a few fetches (the
// records are recycled only once hashed).
const hasherDepth = 4

// maxHashers bounds the hashing goroutines (GOMAXPROCS if smaller).
const maxHashers = 4

func startHasher(recycle bool) *hasher {
	h := &hasher{jobs: make(chan hashJob, hasherDepth), done: make(chan struct{}), recycle: recycle}
	go h.run()
	return h
}

func (h *hasher) run() {
	defer close(h.done)
	for j := range h.jobs {
		for _, r := range j.recs[:j.n] {
			if !r.Attrs.IsControl() {
				if r.Offset == j.mark {
					j.ph.markHere()
				}
				j.ph.add(r)
			}
		}
		if h.recycle {
			for _, r := range j.recs {
				r.Recycle()
			}
		}
	}
}

// hasherFor returns partition p's hasher, starting the hashers first.
func (c *consumer) hasherFor(p int32) *hasher {
	if c.hashers == nil {
		n := min(runtime.GOMAXPROCS(0), maxHashers, len(c.states))
		c.hashers = make([]*hasher, max(n, 1))
		for i := range c.hashers {
			c.hashers[i] = startHasher(c.pool)
		}
	}
	return c.hashers[int(p)%len(c.hashers)]
}

// hashFetched hands a partition's fetched records to its hasher: the data
// records of recs[:n] are the ones taken (counted), in offset order. The
// records must not be touched after this: the hasher recycles them.
func (c *consumer) hashFetched(st *pstate, recs []*kgo.Record, n int) {
	if n == 0 {
		if c.pool {
			for _, r := range recs {
				r.Recycle()
			}
		}
		return
	}
	c.hasherFor(st.plan.Partition).jobs <- hashJob{ph: st.hash, recs: recs, n: n, mark: st.hashMark}
}

// waitHashers lets the hashers finish their records, so that the digests
// are complete. It may be called more than once.
func (c *consumer) waitHashers() {
	for _, h := range c.hashers {
		close(h.jobs)
		<-h.done
	}
	c.hashers = nil
}
