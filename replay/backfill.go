package replay

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/offsetctl/offsetctl/internal/cluster"
	"github.com/offsetctl/offsetctl/internal/exitcode"
	"github.com/offsetctl/offsetctl/internal/safetext"
	"github.com/offsetctl/offsetctl/internal/textlist"
)

// ProduceOptions configures a backfill: every replayed record is copied to
// Topic with an idempotent producer and acks=all, keeping key, value,
// headers and timestamp.
type ProduceOptions struct {
	Topic string
	// Brokers of the target cluster; nil means the source cluster. The
	// source's TLS and SASL settings are used with them (see Target).
	Brokers []string
	// Target, when set, is the target cluster's own connection (brokers,
	// TLS, SASL); Brokers is then ignored.
	Target *cluster.Config
	// Warnf, when set, receives a warning when Brokers names another
	// cluster than the source and the source's credentials (SASL, a TLS
	// client certificate) are sent to it because no Target was given.
	Warnf func(format string, args ...any)
	// Partitioner is "same" (the source partition number; the target
	// needs at least as many partitions) or "key" (Kafka's murmur2 hash
	// of the key, like the Java client).
	Partitioner string
	// TransactionalID makes the copy exactly once: bounded transactions
	// (TxnInterval) that also commit the source position, so a rerun of
	// the same command continues from the last committed one (see
	// backfill_txn.go).
	TransactionalID string
	// TxnInterval is about how long one transaction stays open (default
	// DefaultTxnInterval).
	TxnInterval time.Duration
	// Range is the range as typed (--from, --until, --partitions). With
	// the clusters, topics and copy settings it is the job that a
	// TransactionalID's positions record (backfill_job.go): a rerun of
	// another job under the same id is refused, not resumed from
	// positions that are not its own.
	Range JobRange
	// Notef, when set, receives the line of a TransactionalID backfill
	// that resumes: from which id, at which positions, how many records
	// its earlier runs copied.
	Notef func(format string, args ...any)
	// SourceHeader adds offsetctl.source=topic/partition/offset.
	SourceHeader bool
	// Checkpoint, when set (not with TransactionalID), writes the
	// acknowledged position to a file, so that rerunning the same
	// command resumes at least once (checkpoint.go).
	Checkpoint *CheckpointOptions
	// BeforeChange, when set, is called once every check of the
	// backfill has passed (the target, the partitioner, the checkpoint
	// or the transactional id's job) and before its first request that
	// can change the target: the transactional id's InitProducerId
	// (which aborts a transaction a killed run left open) or the first
	// copy. It is the caller's write-ahead audit intent, so that a
	// refusal (bad input, exit 2) leaves nothing on the record. An
	// error stops the backfill with nothing done.
	BeforeChange func() error
}

// The partitioners.
const (
	PartitionerSame = "same"
	PartitionerKey  = "key"
)

// BackfillPartition is the copy state of one source partition.
type BackfillPartition struct {
	Partition int32 `json:"partition"`
	From      int64 `json:"from"`
	// Copied counts records of this partition whose copy was acknowledged.
	Copied int64 `json:"copied"`
	// AckedThrough is the last source offset such that it and every
	// record before it (from From) were acknowledged; null when none.
	AckedThrough *int64 `json:"acked_through"`
	// ResumeFrom is the --from offset that continues the copy with no gap.
	ResumeFrom int64 `json:"resume_from"`
}

// BackfillResult is the outcome of a backfill.
type BackfillResult struct {
	Target        string `json:"target"`
	Partitioner   string `json:"partitioner"`
	Transactional bool   `json:"transactional"`
	// Produced counts acknowledged (and, in a transaction, committed)
	// copies. A complete backfill has Produced == replayed records.
	Produced int64  `json:"produced"`
	Complete bool   `json:"complete"`
	Error    string `json:"error,omitempty"`
	// AckedBeyondResume counts copies acknowledged after the first
	// unacknowledged record of their partition (possible with --partitioner
	// key): a resume copies them again.
	AckedBeyondResume int64 `json:"acked_beyond_resume,omitempty"`
	// Unanswered counts copies sent without an answer when the backfill
	// stopped: without a transaction they may still have been written,
	// and a resume copies them again.
	Unanswered int64               `json:"unanswered,omitempty"`
	Partitions []BackfillPartition `json:"partitions"`
	// Checkpoint is the --checkpoint outcome; nil without one.
	Checkpoint *CheckpointResult `json:"checkpoint,omitempty"`
	// Resume is the --from value that completes an incomplete copy
	// ("0=1000,2=523"); empty when complete.
	Resume string `json:"resume_from,omitempty"`
}

// inflight tracks the copies of one source partition in produce order.
type inflight struct {
	base   int64 // sequence number of queue[0]
	queue  []slot
	acked  *int64 // the last offset of the acknowledged prefix (nil: none yet), updated in place
	copied int64
	beyond int64
	failed bool
}

// targetAcks is what this run's acknowledged copies tell of one target
// partition.
type targetAcks struct {
	last int64 // the largest offset of an acknowledged copy
	n    int64 // acknowledged copies, all at or below last
}

type slot struct {
	offset int64
	done   bool
	ok     bool
}

type backfiller struct {
	// positionHere: the position group (--transactional-id) is on the
	// source cluster, the one the replay's proof reads, where its moves
	// are the backfill's own; on another cluster, a commit of a group of
	// that name on the source is someone else's change.
	positionHere bool
	// both is the source topic as the source and target clusters see
	// it, when the target is given apart (nil otherwise).
	both    *topicOnBoth
	opts    ProduceOptions
	src     string
	cl      *kgo.Client
	txn     bool
	started bool
	// abortFailed: the open transaction could not be aborted (the
	// target did not answer): a rerun's takeover aborts it, or the
	// broker at the transaction timeout.
	abortFailed bool
	// commitFailed: the last transaction's commit did not complete (its
	// answer may be lost after the commit went through).
	commitFailed bool
	plan         Plan
	mu           sync.Mutex
	parts        map[int32]*inflight
	produced     int64
	bad          atomic.Bool
	firstErr     error
	errAt        string

	// pending counts copies not yet acknowledged; acks counts the
	// acknowledged ones. The watchdog reads the clock, not the copies:
	// a clock read per record was a measurable part of a backfill.
	pending atomic.Int64
	acks    atomic.Int64
	stall   time.Duration
	stop    chan struct{}
	// batchMax bounds a record batch (see targetBatchMax).
	batchMax int32
	wg       sync.WaitGroup
	// pctx is the context of every Produce: not the replay's, whose end
	// (Ctrl-C of a --follow) must stop the consuming but not fail the
	// copies already handed to the producer; finish flushes them with a
	// bounded context. It ends at close or when the watchdog gives up.
	pctx    context.Context
	pcancel context.CancelFunc
	// targets holds, per target partition, the largest offset of an
	// acknowledged copy (a committed transaction is visible to
	// read_committed consumers once the partition's last stable offset
	// is past it) and how many copies were acknowledged there (what a
	// checkpoint subtracts to count the records others wrote below it).
	targets map[int32]*targetAcks

	// Transactional state (backfill_txn.go): when the open transaction
	// began, the positions and copy counts the last commit made
	// visible, how many transactions committed, and the positions a
	// previous run had committed (where this one resumed).
	// txnStart is when the open transaction began; copy reads the clock
	// to compare with it only every txnClockEvery copies or
	// txnClockBytes of them (txnSince and txnSinceBytes count them since
	// the last read, by recordBatchFloor), not for every record.
	txnStart        time.Time
	txnSince        int
	txnSinceBytes   int
	committed       map[int32]int64
	committedCopied map[int32]int64
	txns            int
	resumed         map[int32]int64
	// job is what the positions record (backfill_job.go); prior is
	// what the positions this run resumed from recorded.
	job   CheckpointJob
	prior resumeState

	// ck is the --checkpoint state (backfill_ckpt.go); nil without one.
	ck *checkpointer
}

func newBackfiller(ctx context.Context, cfg cluster.Config, srcAdm *cluster.Admin, src string, plan Plan, o ProduceOptions) (*backfiller, error) {
	if o.Partitioner == "" {
		o.Partitioner = PartitionerSame
	}
	if o.Partitioner != PartitionerSame && o.Partitioner != PartitionerKey {
		return nil, exitcode.Usagef("--partitioner %q: want same or key", o.Partitioner)
	}
	tcfg := cfg
	switch {
	case o.Target != nil:
		tcfg = *o.Target
	case len(o.Brokers) > 0:
		tcfg.Brokers = o.Brokers
	}
	if o.Topic == src && len(o.Brokers) == 0 && o.Target == nil {
		return nil, exitcode.Usagef("--produce-to %s is the topic being replayed: a backfill copies to another topic (or another cluster with --target-brokers)", o.Topic)
	}
	adm, err := tcfg.NewAdmin()
	if err != nil {
		return nil, err
	}
	defer adm.Close()
	actx, cancel := context.WithTimeout(ctx, timeoutOf(tcfg))
	defer cancel()
	ends, err := adm.ListEndOffsets(actx, o.Topic)
	if err != nil {
		if actx.Err() != nil {
			return nil, tcfg.Unreachable(actx.Err())
		}
		return nil, tcfg.ExplainConnError(fmt.Errorf("target topic %s: %w", o.Topic, err))
	}
	tps := ends[o.Topic]
	if bad, ok := tps[-1]; ok && bad.Err != nil || len(tps) == 0 {
		return nil, exitcode.Usagef("target topic %s does not exist: create it first (offsetctl never creates topics)", o.Topic)
	}
	// The source topic as each cluster sees it, read once: whether the
	// target is the replayed topic itself, and where a --transactional-id
	// position lives (see topicOnBoth).
	var both *topicOnBoth
	if (o.Target != nil || len(o.Brokers) > 0) && (o.Topic == src || o.TransactionalID != "") {
		tb, err := readTopicOnBoth(actx, srcAdm, adm, src)
		if err != nil {
			return nil, err
		}
		both = &tb
	}
	if o.Topic == src {
		if err := refuseSelfCopy(*both, src, tcfg); err != nil {
			return nil, err
		}
	}
	if o.Target == nil && len(o.Brokers) > 0 && o.Warnf != nil && hasCredentials(cfg) {
		warnSourceCredentials(actx, srcAdm, adm, cfg, tcfg, o.Warnf)
	}
	if o.Partitioner == PartitionerSame {
		for _, pp := range plan.Partitions {
			if _, ok := tps[pp.Partition]; !ok {
				return nil, exitcode.Usagef("--partitioner same: target topic %s has %s but source partition %d is replayed; add partitions or use --partitioner key", o.Topic, textlist.Count(len(tps), "partition"), pp.Partition)
			}
		}
	}
	// Batches no larger than the target topic accepts: kgo's default
	// (1,000,012 bytes) exceeds a topic with a smaller max.message.bytes,
	// which would reject every batch with MESSAGE_TOO_LARGE.
	batchMax := targetBatchMax(actx, adm, o.Topic)
	timeout := timeoutOf(tcfg)
	popts := producerOpts(&o, batchMax, timeout)
	cl, err := tcfg.NewClient(popts...)
	if err != nil {
		return nil, err
	}
	b := &backfiller{both: both, opts: o, src: src, cl: cl, txn: o.TransactionalID != "", plan: plan, parts: map[int32]*inflight{}, stop: make(chan struct{}), stall: timeout, batchMax: batchMax}
	b.pctx, b.pcancel = context.WithCancel(context.WithoutCancel(ctx))
	b.targets = map[int32]*targetAcks{}
	for _, pp := range plan.Partitions {
		b.parts[pp.Partition] = &inflight{}
	}
	if err := b.start(actx, srcAdm, adm, tps); err != nil {
		b.pcancel()
		cl.Close()
		return nil, err
	}
	b.wg.Add(1)
	go b.watchdog()
	return b, nil
}

// start runs the last checks (the checkpoint's, or the transactional
// id's job), then BeforeChange, and only then takes the transactional id
// over: every refusal comes before the first request that can change the
// target, and before the caller's audit intent.
func (b *backfiller) start(ctx context.Context, srcAdm, dstAdm *cluster.Admin, tps map[int32]kadm.ListedOffset) error {
	b.positionHere = b.txn
	if b.txn && b.both != nil {
		b.positionHere = b.both.sameCluster(b.src)
		if err := b.checkPositionHome(b.both.dst.Topics[b.src]); err != nil {
			return err
		}
	}
	if b.txn {
		if err := b.checkJob(ctx, srcAdm, dstAdm); err != nil {
			return err
		}
	}
	if b.opts.Checkpoint != nil && !b.txn {
		if _, err := b.openCheckpoint(ctx, srcAdm, dstAdm, b.plan, tps); err != nil {
			return err
		}
	}
	if f := b.opts.BeforeChange; f != nil {
		if err := f(); err != nil {
			return err
		}
	}
	if b.txn {
		st, err := b.takeOverAndResume(ctx)
		if err != nil {
			return err
		}
		b.prior, b.resumed = st, st.pos
		b.committed = maps.Clone(st.pos)
		b.noteResume(st)
	}
	if b.ck != nil && !b.ck.final {
		b.wg.Add(1)
		go b.checkpointLoop()
	}
	return nil
}

// topicOnBoth is the source topic's metadata as the source and the target
// cluster answer it.
type topicOnBoth struct{ src, dst kadm.Metadata }

func readTopicOnBoth(ctx context.Context, srcAdm, dstAdm *cluster.Admin, topic string) (topicOnBoth, error) {
	sm, err := srcAdm.Metadata(ctx, topic)
	if err != nil {
		return topicOnBoth{}, fmt.Errorf("source cluster: reading its cluster id: %w", err)
	}
	dm, err := dstAdm.Metadata(ctx, topic)
	if err != nil {
		return topicOnBoth{}, fmt.Errorf("target cluster: reading its cluster id: %w", err)
	}
	return topicOnBoth{sm, dm}, nil
}

// ids are the cluster id both report ("" when they differ) and the
// topic's id on each (zero where it has none).
func (t topicOnBoth) ids(topic string) (cluster string, src, dst [16]byte) {
	if t.src.Cluster == t.dst.Cluster {
		cluster = t.src.Cluster
	}
	return cluster, t.src.Topics[topic].ID, t.dst.Topics[topic].ID
}

// sameCluster says whether the two are one cluster: the same cluster id,
// and the source topic the same topic (its id) on both. Two clusters can
// report one id (kfake's default, KRaft clusters formatted with a fixed
// id).
func (t topicOnBoth) sameCluster(topic string) bool {
	var zero [16]byte
	id, sid, did := t.ids(topic)
	return id != "" && sid != zero && sid == did
}

// checkPositionHome refuses an exactly-once backfill to another cluster
// that could never commit its position. The position is the position
// group's committed offsets of the source topic's partitions, committed
// in each transaction on the target cluster (the transaction's); a
// broker refuses offsets of a topic or partition it does not have
// (UNKNOWN_TOPIC_OR_PARTITION, or UNKNOWN_TOPIC_ID). Such a backfill
// wrote its first copies, failed at its first position commit (the
// copies aborted, but seen by read_uncommitted readers), and told the
// user to rerun, which failed the same way. Refused before anything is
// sent or recorded.
func (b *backfiller) checkPositionHome(there kadm.TopicDetail) error {
	group := PositionGroup(b.opts.TransactionalID)
	instead := "keep the position in a file with --checkpoint FILE instead of --transactional-id, or create the topic there"
	if there.Err != nil || len(there.Partitions) == 0 {
		return exitcode.Usagef("--transactional-id keeps the backfill's position as group %s's committed offsets of topic %s (the source topic) on the target cluster, which has no topic %s, so the position could never be committed: %s", group, b.src, b.src, instead)
	}
	for _, pp := range b.plan.Partitions {
		if _, ok := there.Partitions[pp.Partition]; !ok {
			return exitcode.Usagef("--transactional-id keeps the backfill's position as group %s's committed offsets of topic %s (the source topic) on the target cluster, whose topic %s has %s but source partition %d is replayed, so its position could never be committed: %s", group, b.src, b.src, textlist.Count(len(there.Partitions), "partition"), pp.Partition, instead)
		}
	}
	return nil
}

// producerOpts is the backfill producer's configuration; for a
// transactional copy it also fills o's transaction defaults.
func producerOpts(o *ProduceOptions, batchMax int32, timeout time.Duration) []kgo.Opt {
	popts := []kgo.Opt{
		kgo.ProducerBatchMaxBytes(batchMax),
		kgo.DefaultProduceTopic(o.Topic),
		kgo.RequiredAcks(kgo.AllISRAcks()),
		// No RecordDeliveryTimeout: kgo measures it from the record's
		// timestamp, which a backfill keeps from the source. The
		// watchdog below bounds a stalled copy instead.
		kgo.ProduceRequestTimeout(timeout),
		kgo.ProducerLinger(5 * time.Millisecond),
		kgo.MaxBufferedBytes(producerBufferBytes),
	}
	if o.Partitioner == PartitionerSame {
		popts = append(popts, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	} else {
		popts = append(popts, kgo.RecordPartitioner(kgo.StickyKeyPartitioner(nil)))
	}
	if o.TransactionalID != "" {
		// TxnOffsetCommit pinned to v5 (topic names) for the position:
		// see commitPositions.
		vs := kversion.Stable()
		vs.SetMaxKeyVersion(int16(kmsg.TxnOffsetCommit), 5)
		popts = append(popts, kgo.TransactionalID(o.TransactionalID), kgo.TransactionTimeout(time.Minute), kgo.MaxVersions(vs))
		if o.TxnInterval <= 0 {
			o.TxnInterval = DefaultTxnInterval
		}
	}
	return popts
}

// refuseSelfCopy refuses a backfill whose target is the replayed topic
// itself, reached through other addresses (another broker of the cluster,
// localhost for 127.0.0.1): it would double the topic, and with --follow
// copy its own copies forever. Addresses cannot tell; the cluster id
// (Metadata) can, and the topic id tells two clusters apart that report
// the same cluster id (kfake's default "kfake"). Without either (very old
// brokers) the copy is refused: it cannot be shown to be another topic.
func refuseSelfCopy(both topicOnBoth, topic string, tcfg cluster.Config) error {
	if both.src.Cluster != both.dst.Cluster {
		return nil
	}
	var zero [16]byte
	_, sid, did := both.ids(topic)
	if sid != did && sid != zero && did != zero {
		return nil
	}
	id := both.src.Cluster
	if id == "" {
		id = "unknown"
	}
	return exitcode.Usagef("--produce-to %s --target-brokers %s: that is the topic being replayed, on the same cluster (cluster id %s): a backfill copies to another topic or another cluster", topic, strings.Join(tcfg.Brokers, ","), id)
}

// hasCredentials reports whether cfg authenticates: SASL or a TLS client
// certificate.
func hasCredentials(cfg cluster.Config) bool {
	if cfg.SASL != nil {
		return true
	}
	return cfg.TLS != nil && (len(cfg.TLS.Certificates) > 0 || cfg.TLS.GetClientCertificate != nil)
}

// warnSourceCredentials warns, once, when the target reached with the
// source's settings is another cluster: the source's credentials went to
// it. (The same cluster reached by another address is no news.)
func warnSourceCredentials(ctx context.Context, srcAdm, dstAdm *cluster.Admin, cfg, tcfg cluster.Config, warnf func(string, ...any)) {
	sm, serr := srcAdm.BrokerMetadata(ctx)
	dm, derr := dstAdm.BrokerMetadata(ctx)
	if serr == nil && derr == nil && sm.Cluster == dm.Cluster && sm.Cluster != "" {
		return
	}
	what := "TLS client certificate"
	if cfg.SASL != nil {
		what = "SASL " + cfg.SASL.Name() + " credentials"
	}
	warnf("--target-brokers %s is another cluster and neither --target-command-config nor --target-profile was given: the source cluster's %s are sent to it; give the target its own settings with one of them", strings.Join(tcfg.Brokers, ","), what)
}

// defaultBatchMax is kgo's default record batch bound (Kafka's classic
// max.message.bytes default).
const defaultBatchMax = 1000012

// targetBatchMax is the record batch bound for topic: its effective
// max.message.bytes when that is smaller than kgo's default. When the
// config cannot be read (no DescribeConfigs permission), the default.
func targetBatchMax(ctx context.Context, adm *cluster.Admin, topic string) int32 {
	rcs, err := adm.DescribeTopicConfigs(ctx, topic)
	if err != nil {
		return defaultBatchMax
	}
	rc, err := rcs.On(topic, nil)
	if err != nil || rc.Err != nil {
		return defaultBatchMax
	}
	for _, c := range rc.Configs {
		if c.Key != "max.message.bytes" || c.Value == nil {
			continue
		}
		n, err := strconv.ParseInt(*c.Value, 10, 32)
		if err != nil || n >= defaultBatchMax {
			return defaultBatchMax
		}
		// kgo refuses a bound under 512 bytes; a topic that small
		// rejects most records anyway, with an error naming it.
		return int32(max(n, 512))
	}
	return defaultBatchMax
}

// watchdog fails the copy when copies are pending and none has been
// acknowledged for the stall timeout (--timeout): a stopped or
// unreachable target broker ends the backfill with a resume point instead
// of retrying forever.
func (b *backfiller) watchdog() {
	defer b.wg.Done()
	tick := time.NewTicker(b.stall / 10)
	defer tick.Stop()
	seen, since := b.acks.Load(), time.Now()
	for {
		select {
		case <-b.stop:
			return
		case now := <-tick.C:
			if n := b.acks.Load(); n != seen || b.pending.Load() == 0 {
				seen, since = n, now
				continue
			}
			if now.Sub(since) < b.stall {
				continue
			}
		}
		b.fail(fmt.Errorf("no acknowledgement from the target for %s (broker down or unreachable?)", b.stall), "")
		b.pcancel() // a Produce waiting for buffer space returns
		ctx, cancel := context.WithTimeout(context.Background(), b.stall)
		_ = b.cl.AbortBufferedRecords(ctx)
		cancel()
		return
	}
}

func (b *backfiller) close() {
	b.pcancel()
	close(b.stop)
	b.wg.Wait()
	b.cl.Close()
}

func (b *backfiller) failed() bool { return b.bad.Load() }

func (b *backfiller) fail(err error, at string) {
	b.mu.Lock()
	if b.firstErr == nil {
		b.firstErr, b.errAt = err, at
	}
	b.mu.Unlock()
	b.bad.Store(true)
}

// copy produces a copy of r; it returns the first produce error once one
// has happened. The copy is produced with the backfiller's own context,
// so the end of the replay's context does not fail it.
func (b *backfiller) copy(r *kgo.Record) error {
	if b.bad.Load() {
		return b.err()
	}
	if b.txn && !b.started {
		if err := b.cl.BeginTransaction(); err != nil {
			b.fail(fmt.Errorf("beginning the transaction: %w", err), "")
			return b.err()
		}
		b.started = true
		b.txnStart, b.txnSince, b.txnSinceBytes = time.Now(), 0, 0
	} else if b.txn && b.txnDue() {
		if err := b.checkpoint(); err != nil {
			return err
		}
	}
	out := &kgo.Record{Key: r.Key, Value: r.Value, Timestamp: r.Timestamp, Partition: r.Partition, Headers: r.Headers}
	if b.opts.SourceHeader {
		hs := make([]kgo.RecordHeader, 0, len(r.Headers)+1)
		hs = append(hs, r.Headers...)
		hs = append(hs, kgo.RecordHeader{Key: SourceHeader, Value: []byte(b.src + "/" + strconv.FormatInt(int64(r.Partition), 10) + "/" + strconv.FormatInt(r.Offset, 10))})
		out.Headers = hs
	}
	p, off := r.Partition, r.Offset
	// A record that cannot fit in a batch alone is refused here, before
	// anything after it is produced: the producer would fail it on its
	// own while copying the next records of the partition, which the
	// target would then hold beyond the resume point. The size counted
	// is a lower bound of the encoded one; a record just above the limit
	// still fails in the producer (counted in AckedBeyondResume).
	n := recordBatchFloor(out)
	if n > int(b.batchMax) {
		b.fail(fmt.Errorf("a record of %d bytes is larger than the target accepts (max.message.bytes %d): %w", n, b.batchMax, kerr.MessageTooLarge),
			fmt.Sprintf("topic %s partition %d offset %d", b.src, p, off))
		return b.err()
	}
	b.txnSinceBytes += n
	b.mu.Lock()
	inf := b.parts[p]
	seq := inf.base + int64(len(inf.queue))
	inf.queue = append(inf.queue, slot{offset: off})
	b.mu.Unlock()
	b.pending.Add(1)
	b.cl.Produce(b.pctx, out, func(rec *kgo.Record, err error) { b.answer(p, seq, off, rec, err) })
	return nil
}

// answer records the producer's answer for the copy of source partition p
// at offset off (sequence seq of its partition), and tells the checkpoint
// loop, which writes a checkpoint covering it.
func (b *backfiller) answer(p int32, seq, off int64, rec *kgo.Record, err error) {
	if err == nil {
		b.acks.Add(1)
	}
	b.pending.Add(-1)
	b.mu.Lock()
	if err == nil {
		if ta := b.targets[rec.Partition]; ta == nil {
			b.targets[rec.Partition] = &targetAcks{last: rec.Offset, n: 1}
		} else {
			ta.last = max(ta.last, rec.Offset)
			ta.n++
		}
	}
	inf := b.parts[p]
	s := &inf.queue[seq-inf.base]
	s.done, s.ok = true, err == nil
	if err != nil {
		inf.failed = true
	}
	// Advance the contiguous acknowledged prefix; a failed slot stays
	// at the head for good.
	for len(inf.queue) > 0 && inf.queue[0].done && inf.queue[0].ok {
		if inf.acked == nil {
			inf.acked = new(int64) // once; updated in place after (no allocation per copy)
		}
		*inf.acked = inf.queue[0].offset
		inf.copied++
		b.produced++
		inf.queue = inf.queue[1:]
		inf.base++
	}
	b.mu.Unlock()
	if err != nil {
		b.fail(err, fmt.Sprintf("topic %s partition %d offset %d", b.src, p, off))
	}
	if b.ck != nil {
		// After the state is updated (and a failure recorded): the
		// write this triggers reads a state that includes the answer.
		b.ck.answered()
	}
}

// waitVisible polls the last stable offsets of the target partitions the
// transaction wrote to (kadm's ListCommittedOffsets is ListOffsets with
// read_committed: the LSO) until each is past the last copy, for at most
// the stall timeout (--timeout).
func (b *backfiller) waitVisible(ctx context.Context) error {
	b.mu.Lock()
	want := make(map[int32]int64, len(b.targets))
	for p, ta := range b.targets {
		want[p] = ta.last + 1
	}
	b.mu.Unlock()
	if len(want) == 0 {
		return nil
	}
	wctx, cancel := context.WithTimeout(ctx, b.stall)
	defer cancel()
	adm := kadm.NewClient(b.cl)
	// The markers usually land within a few milliseconds of EndTxn: poll
	// again after 2 ms, doubling up to 50 ms.
	wait := 2 * time.Millisecond
	var behind string
	for {
		lso, err := adm.ListCommittedOffsets(wctx, b.opts.Topic)
		if err == nil {
			behind = ""
			ps := make([]int32, 0, len(want))
			for p := range want {
				ps = append(ps, p)
			}
			slices.Sort(ps)
			for _, p := range ps {
				o, ok := lso.Lookup(b.opts.Topic, p)
				if !ok || o.Err != nil || o.Offset < want[p] {
					got := "unknown"
					if ok && o.Err == nil {
						got = strconv.FormatInt(o.Offset, 10)
					} else if ok {
						got = o.Err.Error()
					}
					behind = fmt.Sprintf("partition %d: last stable offset %s, the copies end at %d", p, got, want[p])
					break
				}
			}
			if behind == "" {
				return nil
			}
		} else if behind == "" {
			behind = "listing last stable offsets: " + err.Error()
		}
		select {
		case <-wctx.Done():
			return fmt.Errorf("read_committed consumers of %s do not see all of the copy after %s (%s; another open transaction on %s holds the last stable offset back?)", b.opts.Topic, b.stall, behind, b.opts.Topic)
		case <-time.After(wait):
		}
		wait = min(2*wait, 50*time.Millisecond)
	}
}

// recordBatchFloor is a lower bound of the size of a record batch holding
// only r: the 61-byte v2 batch header and r's key, value and headers.
func recordBatchFloor(r *kgo.Record) int {
	n := 61 + len(r.Key) + len(r.Value)
	for _, h := range r.Headers {
		n += len(h.Key) + len(h.Value)
	}
	return n
}

func (b *backfiller) err() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.firstErr == nil {
		return nil
	}
	if b.errAt != "" {
		return fmt.Errorf("copying %s to %s: %w", b.errAt, b.opts.Topic, b.firstErr)
	}
	return fmt.Errorf("copying to %s: %w", b.opts.Topic, b.firstErr)
}

// finish waits for every copy, commits or aborts the transaction, and
// reports per partition what was acknowledged and where to resume.
// positions (partition → next offset the replay reached) says where a
// fully-copied partition resumes. consumeErr is the replay's own error.
func (b *backfiller) finish(ctx context.Context, res *Result, consumeErr error) (*BackfillResult, error) {
	committed, invisible := b.settle(ctx, consumeErr)
	br, resume, incomplete := b.tally(res, consumeErr, committed)
	if !incomplete {
		br.Complete = br.Produced == res.Records
		if !br.Complete {
			incomplete = true
			for _, bp := range br.Partitions {
				resume[bp.Partition] = bp.ResumeFrom
			}
		}
	}
	if !incomplete && invisible != nil {
		// Committed: a rerun would copy everything again, so no resume
		// point; the copies become visible once the markers are written.
		br.Complete = false
		br.Error = invisible.Error()
		return br, fmt.Errorf("backfill committed but not yet visible: %w; the copies are committed (rerunning the same command copies nothing again: the source position was committed with them): they become visible to read_committed consumers once the last stable offsets pass them", invisible)
	}
	if !incomplete {
		return br, nil
	}
	br.Resume = FormatResume(resume)
	return br, b.incomplete(br, consumeErr)
}

// settle waits for the copies in flight and ends the transaction:
// committed is false when a transaction was aborted or could not end;
// invisible says why committed copies are not yet visible.
func (b *backfiller) settle(ctx context.Context, consumeErr error) (committed bool, invisible error) {
	// Wait for the copies in flight, but not forever: copies still
	// unacknowledged then count as not copied (a resume may duplicate
	// them, never skip them).
	fctx, cancel := context.WithTimeout(ctx, 2*b.stall)
	err := b.cl.Flush(fctx)
	if cause := context.Cause(fctx); err != nil && cause != nil {
		err = cause // why the wait ended (complete's: the time allowed after an interruption)
	}
	cancel()
	if err != nil {
		b.fail(fmt.Errorf("waiting for acknowledgements: %w", err), "")
	}
	committed = true
	if b.txn && b.started {
		if b.bad.Load() || consumeErr != nil {
			if err := b.cl.EndTransaction(ctx, kgo.TryAbort); err != nil {
				b.abortFailed = true
				b.fail(fmt.Errorf("aborting the transaction: %w", err), "")
			}
			committed = false
		} else if err := b.endTxn(ctx); err != nil {
			b.commitFailed = true
			committed = false
		}
	}
	// EndTransaction returns once the coordinator has the commit; the
	// markers reach the partitions after that, and until then
	// read_committed consumers see nothing of the copy. "Complete" means
	// visible: wait (bounded by --timeout) for the last stable offsets.
	if b.txn && b.started && committed && !b.bad.Load() && consumeErr == nil {
		invisible = b.waitVisible(ctx)
	}
	return committed, invisible
}

// tally is the result of every partition and, when the backfill is
// incomplete (a copy failed, the replay stopped, or the transaction did
// not commit), where each would resume.
func (b *backfiller) tally(res *Result, consumeErr error, committed bool) (*BackfillResult, map[int32]int64, bool) {
	br := &BackfillResult{Target: b.opts.Topic, Partitioner: b.opts.Partitioner, Transactional: b.txn}
	next := map[int32]int64{}
	for _, pr := range res.Partitions {
		next[pr.Partition] = pr.To
	}
	b.mu.Lock()
	resume := map[int32]int64{}
	incomplete := b.firstErr != nil || consumeErr != nil || !committed
	for _, pp := range b.plan.Partitions {
		inf := b.parts[pp.Partition]
		bp := BackfillPartition{Partition: pp.Partition, From: pp.From, ResumeFrom: next[pp.Partition]}
		if b.txn {
			// Only committed transactions count: the open one, if
			// aborted, is invisible and is copied again by the rerun.
			bp.Copied = b.committedCopied[pp.Partition]
			br.Produced += bp.Copied
			bp.ResumeFrom = pp.From
			if pos, ok := b.committed[pp.Partition]; ok && pos > pp.From {
				bp.ResumeFrom = pos
			}
			if bp.Copied > 0 {
				last := bp.ResumeFrom - 1
				bp.AckedThrough = &last
			}
		} else {
			bp.Copied = inf.copied
			if inf.acked != nil {
				// A copy: answer updates inf.acked in place.
				acked := *inf.acked
				bp.AckedThrough = &acked
			}
			br.Produced += inf.copied
			if len(inf.queue) > 0 {
				bp.ResumeFrom = inf.queue[0].offset
				for _, s := range inf.queue {
					switch {
					case s.done && s.ok:
						br.AckedBeyondResume++
					case !s.done:
						br.Unanswered++
					}
				}
			}
		}
		if incomplete {
			resume[pp.Partition] = bp.ResumeFrom
		}
		br.Partitions = append(br.Partitions, bp)
	}
	b.mu.Unlock()
	slices.SortFunc(br.Partitions, func(a, b BackfillPartition) int { return cmp.Compare(a.Partition, b.Partition) })
	return br, resume, incomplete
}

// incomplete sets br.Error and returns the error of an incomplete
// backfill: the cause, what was copied per partition, and the resume.
func (b *backfiller) incomplete(br *BackfillResult, consumeErr error) error {
	cause := b.err()
	if cause == nil {
		cause = consumeErr
		if errors.Is(cause, context.Canceled) {
			cause = errors.New("interrupted") // Ctrl-C: the replay's context ended
		}
	}
	if cause == nil {
		cause = errors.New("not every copy was acknowledged")
	}
	br.Error = cause.Error()
	var acked []string
	for _, bp := range br.Partitions {
		if bp.AckedThrough != nil {
			acked = append(acked, fmt.Sprintf("partition %d through offset %d", bp.Partition, *bp.AckedThrough))
		} else {
			acked = append(acked, fmt.Sprintf("partition %d none", bp.Partition))
		}
	}
	what := "acknowledged copies"
	resume := "resume with --from " + br.Resume
	if b.txn {
		open := "the open one was aborted"
		if b.commitFailed {
			open = "the last one's commit did not complete (if it went through after all, its copies and position are committed together)"
		}
		if b.abortFailed {
			open = "the open one could not be aborted: the next run takes the transactional id over and aborts it, or the broker does at the transaction timeout (1m); its copies never become visible"
		}
		what = fmt.Sprintf("committed copies (%d transactions committed, %s; the position is committed with them, group %s)", b.txns, open, PositionGroup(b.opts.TransactionalID))
		resume = fmt.Sprintf("resume by rerunning the same command (--from %s would be another backfill to it)", br.Resume)
	}
	if b.ck != nil {
		resume = fmt.Sprintf("resume by rerunning the same command (checkpoint %s; --from %s would be another backfill to it)", safetext.Arg(b.ck.o.Path), br.Resume)
	}
	beyond := ""
	if br.AckedBeyondResume > 0 {
		beyond = fmt.Sprintf(" (%d copies acknowledged after the first unacknowledged record of their partition are already in %s and will be copied again)", br.AckedBeyondResume, b.opts.Topic)
	}
	if br.Unanswered > 0 && !b.txn {
		beyond += fmt.Sprintf(" (%d copies were sent without an answer: they may be in %s already, and the resume would copy them again; --transactional-id makes a copy all or nothing)", br.Unanswered, b.opts.Topic)
	}
	return fmt.Errorf("backfill incomplete: %v; %s: %s; %s%s", cause, what, strings.Join(acked, ", "), resume, beyond)
}

// checkAdded checks that source partitions added while a --follow
// backfill ran (follow.go) can be copied: with --partitioner same the
// target must have each one, else the backfill stops before any record
// of them is read, with its resume point.
func (b *backfiller) checkAdded(pps []PartitionPlan) error {
	if b.opts.Partitioner != PartitionerSame {
		return nil
	}
	ctx, cancel := context.WithTimeout(b.pctx, b.stall)
	ends, err := kadm.NewClient(b.cl).ListEndOffsets(ctx, b.opts.Topic)
	cancel()
	for _, pp := range pps {
		if err != nil {
			return fmt.Errorf("source partition %d was added while following: listing the partitions of target topic %s: %w", pp.Partition, b.opts.Topic, err)
		}
		if _, ok := ends.Lookup(b.opts.Topic, pp.Partition); !ok {
			return fmt.Errorf("source partition %d was added while following, but target topic %s has %d partitions: --partitioner same copies it to partition %d; add partitions to %s (or use --partitioner key), then resume", pp.Partition, b.opts.Topic, len(ends[b.opts.Topic]), pp.Partition, b.opts.Topic)
		}
	}
	return nil
}

// addPartition copies source partition pp too (checked by checkAdded).
func (b *backfiller) addPartition(pp PartitionPlan) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.parts[pp.Partition] = &inflight{}
	b.plan.Partitions = append(b.plan.Partitions, pp)
}
