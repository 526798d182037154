package semantics

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/offsetctl/offsetctl/internal/cluster"
	"github.com/offsetctl/offsetctl/internal/coordretry"
	"github.com/offsetctl/offsetctl/internal/lag"
)

// ErrCrash is returned by RunWorker when it stops on purpose after
// CrashAfter events, with its client still open and nothing committed.
// The process must then exit at once (CrashExitCode) without closing the
// client: closing would commit (auto-commit) and leave the group.
var ErrCrash = errors.New("crashing on purpose")

// CrashExitCode is the exit code of a worker process that crashed on
// purpose. Anything else but 0 is a failure of the experiment.
const CrashExitCode = 42

// WorkerSpec is what one worker process does. It travels to the child on
// stdin as JSON (never in argv).
type WorkerSpec struct {
	Brokers  []string      `json:"brokers"`
	ClientID string        `json:"client_id"`
	Timeout  time.Duration `json:"timeout"`

	Topic      string `json:"topic"`
	Partitions int    `json:"partitions"`
	Group      string `json:"group"`
	// InstanceID makes the worker a static member (KIP-345): the restarted
	// worker replaces the crashed one at once instead of waiting for its
	// session to time out.
	InstanceID     string        `json:"instance_id"`
	Mode           Mode          `json:"mode"`
	Batch          int           `json:"batch"`
	CrashAfter     int           `json:"crash_after"` // 0: run to the end
	WorkDelay      time.Duration `json:"work_delay"`
	CommitInterval time.Duration `json:"commit_interval"`
	SessionTimeout time.Duration `json:"session_timeout"`
	// Log is the processed log the worker appends to.
	Log string `json:"log"`
}

// Validate checks a spec received by a worker.
func (s WorkerSpec) Validate() error {
	switch {
	case len(s.Brokers) == 0:
		return errors.New("worker: no brokers")
	case s.Topic == "" || s.Group == "" || s.Log == "":
		return errors.New("worker: topic, group and log are required")
	case !s.Mode.Valid():
		return fmt.Errorf("worker: unknown mode %q", s.Mode)
	case s.Batch < 1 || s.Partitions < 1 || s.CrashAfter < 0 || s.WorkDelay < 0:
		return errors.New("worker: bad batch, partitions, crash-after or work delay")
	case s.CommitInterval <= 0 || s.SessionTimeout <= 0:
		return errors.New("worker: bad commit interval or session timeout")
	}
	return nil
}

// Config returns cfg with the spec's brokers, client id and timeout.
func (s WorkerSpec) Config(cfg cluster.Config) cluster.Config {
	cfg.Brokers = append([]string(nil), s.Brokers...)
	if s.ClientID != "" {
		cfg.ClientID = s.ClientID
	}
	if s.Timeout > 0 {
		cfg.Timeout = s.Timeout
	}
	return cfg
}

// workerFetchMaxWait bounds a worker's long poll.
const workerFetchMaxWait = 100 * time.Millisecond

// groupOpts are the consumer options of a mode.
func groupOpts(s WorkerSpec) []kgo.Opt {
	opts := []kgo.Opt{
		kgo.ConsumerGroup(s.Group),
		kgo.ConsumeTopics(s.Topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.SessionTimeout(s.SessionTimeout),
		kgo.HeartbeatInterval(max(s.SessionTimeout/10, 100*time.Millisecond)),
		// When the cursor moves to the next partition, a fetch of the
		// finished one may be long-polling on the broker; it holds the
		// resumed partition back until it returns (5s by default on
		// Apache Kafka; kfake answers at once).
		kgo.FetchMaxWait(workerFetchMaxWait),
	}
	if s.InstanceID != "" {
		opts = append(opts, kgo.InstanceID(s.InstanceID))
	}
	switch s.Mode {
	case AtMostOnce, AtLeastOnce, Sync:
		opts = append(opts, kgo.DisableAutoCommit())
	case Auto:
		opts = append(opts, kgo.AutoCommitInterval(s.CommitInterval))
	case AutoGreedy:
		opts = append(opts, kgo.AutoCommitInterval(s.CommitInterval), kgo.GreedyAutoCommit())
	case Async:
		opts = append(opts, kgo.AutoCommitMarks(), kgo.AutoCommitInterval(s.CommitInterval))
	}
	return opts
}

// startPositions reads the topic's end offsets and the group's committed
// offsets: where this worker starts (the committed offset, else 0, as the
// consumer's reset offset is the start) and where it stops.
func startPositions(ctx context.Context, cfg cluster.Config, s WorkerSpec) (start, end []int64, err error) {
	adm, err := cfg.NewAdmin()
	if err != nil {
		return nil, nil, err
	}
	defer adm.Close()
	ends, err := adm.ListEndOffsets(ctx, s.Topic)
	if err != nil {
		return nil, nil, fmt.Errorf("listing end offsets of %s: %w", s.Topic, err)
	}
	start = make([]int64, s.Partitions)
	end = make([]int64, s.Partitions)
	for p := range end {
		o, ok := ends.Lookup(s.Topic, int32(p))
		if !ok || o.Err != nil {
			return nil, nil, fmt.Errorf("listing end offset of %s partition %d: %v", s.Topic, p, o.Err)
		}
		end[p] = o.Offset
	}
	// On a fresh cluster the group coordinator may not exist yet
	// (__consumer_offsets is created on first use): wait for it.
	committed, err := lag.FetchOffsets(ctx, adm, s.Group)
	if err != nil && !errors.Is(err, kerr.GroupIDNotFound) {
		return nil, nil, fmt.Errorf("fetching committed offsets of group %s: %w", s.Group, err)
	}
	for p := range start {
		if o, ok := committed.Lookup(s.Topic, int32(p)); ok && o.Err == nil && o.At >= 0 {
			start[p] = o.At
		}
	}
	return start, end, nil
}

// cursor walks the partitions in order: only the first partition not yet
// at its end is unpaused, so records arrive in event order and every
// batch is the same whatever the fetch timing.
type cursor struct {
	topic string
	pos   []int64
	end   []int64
	cur   int // the partition being consumed; len(pos) when done
}

func newCursor(topic string, start, end []int64) *cursor {
	c := &cursor{topic: topic, pos: append([]int64(nil), start...), end: end}
	c.cur = c.next(0)
	return c
}

func (c *cursor) next(from int) int {
	for p := from; p < len(c.pos); p++ {
		if c.pos[p] < c.end[p] {
			return p
		}
	}
	return len(c.pos)
}

func (c *cursor) remaining() int64 {
	var n int64
	for p := range c.pos {
		if d := c.end[p] - c.pos[p]; d > 0 {
			n += d
		}
	}
	return n
}

// pauseOthers pauses every partition but the current one.
func (c *cursor) pauseOthers(cl *kgo.Client) {
	var paused []int32
	for p := range c.pos {
		if p != c.cur {
			paused = append(paused, int32(p))
		}
	}
	if len(paused) > 0 {
		cl.PauseFetchPartitions(map[string][]int32{c.topic: paused})
	}
	if c.cur < len(c.pos) {
		cl.ResumeFetchPartitions(map[string][]int32{c.topic: {int32(c.cur)}})
	}
}

// advance records r as polled and moves to the next partition when the
// current one is done.
func (c *cursor) advance(cl *kgo.Client, r *kgo.Record) {
	if int(r.Partition) < len(c.pos) && r.Offset+1 > c.pos[r.Partition] {
		c.pos[r.Partition] = r.Offset + 1
	}
	if n := c.next(c.cur); n != c.cur {
		c.cur = n
		c.pauseOthers(cl)
	}
}

// WorkerResult is what a worker that ran to the end did.
type WorkerResult struct {
	Processed int
}

// RunWorker consumes s.Topic in group s.Group with the commit strategy of
// s.Mode in batches of exactly s.Batch records (fewer only at the end of
// the topic), appending every processed record to s.Log before the next.
// With CrashAfter > 0 it returns ErrCrash right after that many records,
// leaving its client open; the caller must exit the process at once.
func RunWorker(ctx context.Context, cfg cluster.Config, s WorkerSpec) (WorkerResult, error) {
	var res WorkerResult
	if err := s.Validate(); err != nil {
		return res, err
	}
	cfg = s.Config(cfg)
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	sctx, cancel := context.WithTimeout(ctx, timeout)
	start, end, err := startPositions(sctx, cfg, s)
	cancel()
	if err != nil {
		return res, err
	}
	f, err := os.OpenFile(s.Log, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return res, fmt.Errorf("opening processed log: %w", err)
	}
	cur := newCursor(s.Topic, start, end)
	if cur.remaining() == 0 {
		return res, f.Close()
	}
	cl, err := cfg.NewClient(groupOpts(s)...)
	if err != nil {
		f.Close()
		return res, err
	}
	cur.pauseOthers(cl)

	w := &worker{cl: cl, f: f, s: s, cur: cur, timeout: timeout}
	err = w.run(ctx)
	if errors.Is(err, ErrCrash) {
		// No Close, no commit: the process exits next.
		return WorkerResult{Processed: w.processed}, err
	}
	if err == nil {
		err = w.finish(ctx)
	}
	cl.Close()
	if cerr := f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("closing processed log: %w", cerr)
	}
	return WorkerResult{Processed: w.processed}, err
}

type worker struct {
	cl        *kgo.Client
	f         *os.File
	s         WorkerSpec
	cur       *cursor
	timeout   time.Duration
	processed int
}

func (w *worker) run(ctx context.Context) error {
	for {
		left := w.cur.remaining()
		if left == 0 {
			return nil
		}
		batch, err := w.poll(ctx, int(min(int64(w.s.Batch), left)))
		if err != nil {
			return err
		}
		if err := w.handle(ctx, batch); err != nil {
			return err
		}
	}
}

// poll returns exactly n records (PollRecords returns at most what is
// buffered, so it is called until n are in hand).
func (w *worker) poll(ctx context.Context, n int) ([]*kgo.Record, error) {
	batch := make([]*kgo.Record, 0, n)
	for len(batch) < n {
		pctx, cancel := context.WithTimeout(ctx, w.timeout)
		fs := w.cl.PollRecords(pctx, n-len(batch))
		cancel()
		var ferr error
		fs.EachError(func(t string, p int32, err error) {
			if ferr == nil {
				ferr = fmt.Errorf("consuming %s partition %d: %w", t, p, err)
			}
		})
		if ferr != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if errors.Is(ferr, context.DeadlineExceeded) {
				return nil, fmt.Errorf("group %s: no record from %s partition %d within %s (%d of %d in hand)", w.s.Group, w.s.Topic, w.cur.cur, w.timeout, len(batch), n)
			}
			return nil, ferr
		}
		fs.EachRecord(func(r *kgo.Record) {
			batch = append(batch, r)
			w.cur.advance(w.cl, r)
		})
	}
	return batch, nil
}

func (w *worker) handle(ctx context.Context, batch []*kgo.Record) error {
	switch w.s.Mode {
	case AtMostOnce:
		if err := commitBatch(ctx, w.cl, w.s.Group, batch); err != nil {
			return err
		}
		return w.processAll(ctx, batch, nil)
	case AtLeastOnce:
		if err := w.processAll(ctx, batch, nil); err != nil {
			return err
		}
		return commitBatch(ctx, w.cl, w.s.Group, batch)
	case Sync:
		if err := w.processAll(ctx, batch, nil); err != nil {
			return err
		}
		if err := w.cl.CommitRecords(ctx, batch...); err != nil {
			return fmt.Errorf("group %s: CommitRecords: %w", w.s.Group, err)
		}
		return nil
	case Async:
		if err := w.processAll(ctx, batch, func(r *kgo.Record) { w.cl.MarkCommitRecords(r) }); err != nil {
			return err
		}
		if err := w.cl.CommitMarkedOffsets(ctx); err != nil {
			return fmt.Errorf("group %s: CommitMarkedOffsets: %w", w.s.Group, err)
		}
		return nil
	default: // Auto, AutoGreedy: the background commit does it all
		return w.processAll(ctx, batch, nil)
	}
}

// finish is the final commit of a worker that reached the end, what a
// graceful shutdown does (for auto-commit, the commit kgo makes on close).
func (w *worker) finish(ctx context.Context) error {
	var err error
	switch w.s.Mode {
	case Auto, AutoGreedy:
		err = w.cl.CommitUncommittedOffsets(ctx)
	case Async:
		err = w.cl.CommitMarkedOffsets(ctx)
	}
	if err != nil {
		return fmt.Errorf("group %s: final commit: %w", w.s.Group, err)
	}
	return nil
}

// processAll processes the records in order: work, append the log line,
// then after (mark), and crash right after the CrashAfter-th record.
func (w *worker) processAll(ctx context.Context, batch []*kgo.Record, after func(*kgo.Record)) error {
	for _, r := range batch {
		if w.s.WorkDelay > 0 {
			t := time.NewTimer(w.s.WorkDelay)
			select {
			case <-ctx.Done():
				t.Stop()
				return ctx.Err()
			case <-t.C:
			}
		}
		// One unbuffered write per record: the line is with the OS
		// before the next record starts, so it survives the crash.
		if _, err := w.f.Write(FormatEntry(r.Partition, r.Offset, r.Key, r.Value)); err != nil {
			return fmt.Errorf("writing processed log: %w", err)
		}
		w.processed++
		if after != nil {
			after(r)
		}
		if w.s.CrashAfter > 0 && w.processed == w.s.CrashAfter {
			return ErrCrash
		}
	}
	return nil
}

// commitBatch commits, synchronously, the offsets after the batch's last
// record of each partition, retrying while the group's coordinator is not
// available (coordretry): a commit refused with a coordinator error was
// not applied, and committing the same absolute offsets again cannot move
// the group anywhere else, so the experiment's counts are unchanged.
func commitBatch(ctx context.Context, cl *kgo.Client, group string, batch []*kgo.Record) error {
	offsets := lag.PartitionMap[kgo.EpochOffset]{}
	for _, r := range batch {
		eo := kgo.EpochOffset{Epoch: r.LeaderEpoch, Offset: r.Offset + 1}
		if at, ok := offsets.Lookup(r.Topic, r.Partition); !ok || at.Less(eo) {
			offsets.Set(r.Topic, r.Partition, eo)
		}
	}
	rerr := coordretry.Do(ctx, coordretry.Group(group), func() error {
		var rerr error
		cl.CommitOffsetsSync(ctx, offsets, func(_ *kgo.Client, _ *kmsg.OffsetCommitRequest, resp *kmsg.OffsetCommitResponse, err error) {
			if err != nil {
				rerr = err
				return
			}
			for _, t := range resp.Topics {
				for _, p := range t.Partitions {
					if err := kerr.ErrorForCode(p.ErrorCode); err != nil && rerr == nil {
						rerr = fmt.Errorf("%s partition %d: %w", t.Topic, p.Partition, err)
					}
				}
			}
		})
		return rerr
	})
	if rerr != nil {
		return fmt.Errorf("committing batch: %w", rerr)
	}
	return nil
}
