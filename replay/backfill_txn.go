package replay

import (
	"context"
	"fmt"
	"maps"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/offsetctl/offsetctl/internal/coordretry"
)

// An exactly-once backfill (--transactional-id) commits its copies in
// bounded transactions of about TxnInterval each (Kafka Streams commits
// every 100 ms to 30 s under exactly-once; a second keeps a transaction
// far below transaction.max.timeout.ms and lets read_committed readers of
// the target see progress). Each transaction also commits the source
// position reached, as the committed offsets of the position group (see
// PositionGroup) on the source topic's partitions, with TxnOffsetCommit:
// the copies and the position become visible together or not at all. A
// rerun of the same command takes the transactional id over (which aborts
// a transaction a killed run left open), reads the position group and
// starts each partition there: every source record lands in the target
// exactly once for read_committed readers. Each position is committed
// with the job it belongs to, and a run of another job under the same id
// is refused (backfill_job.go).

// DefaultTxnInterval is how long one backfill transaction stays open.
const DefaultTxnInterval = time.Second

// The interval is checked as copies are made, so it holds only if copies
// cannot run far ahead of the target: the producer holds at most
// producerBufferBytes unanswered (copy blocks beyond that), and a
// transaction ends about an interval plus the time the target takes to
// answer that much after it began. A bound on a transaction's size was
// used before (16 MiB): at 100 MB/s it ended five transactions a second,
// each a pause for the drain and the commit, +28 % on a backfill
// (bench/backfill_ckpt.md).

// PositionGroup is the group whose committed offsets on the source topic
// hold the position of the backfill with transactional id id. It lives on
// the target cluster (the transaction's coordinators are there).
func PositionGroup(id string) string { return "offsetctl-backfill-" + id }

// takeOverAndResume initializes the transactional producer (InitProducerId
// aborts what a previous run left open, or waits for its commit to
// complete) and reads the position group's committed offsets on the
// source topic, stable, checking again that they are this job's
// (checkJob read them before the takeover): where each partition resumes.
func (b *backfiller) takeOverAndResume(ctx context.Context) (resumeState, error) {
	// InitProducerId (kgo's, on first use) is safe to retry: taking the id
	// over again only fences this run's own earlier attempt, which had
	// nothing open. kgo keeps a failed load's error and tries again on the
	// next call.
	err := coordretry.Do(ctx, coordretry.Txn(b.opts.TransactionalID), func() error {
		_, _, err := b.cl.ProducerID(ctx)
		return err
	})
	if err != nil {
		return resumeState{}, fmt.Errorf("taking transactional id %q: %w", b.opts.TransactionalID, err)
	}
	// require_stable: pending positions of another transaction would
	// otherwise be hidden, not waited for.
	fetched, err := fetchPositions(ctx, kadm.NewClient(b.cl), PositionGroup(b.opts.TransactionalID), true)
	if err != nil {
		return resumeState{}, err
	}
	return b.judgePositions(fetched)
}

// ResumePlan starts each partition that has a position there (a position
// beyond the bound leaves the partition empty). The position is where the
// copy stands, whatever the start resolves to now: --from ago:1h resolves
// later on a rerun, and starting there would skip the records between.
// (A position below the log start now is an OFFSET_OUT_OF_RANGE when
// read: records were deleted before they were copied.)
func ResumePlan(p Plan, positions map[int32]int64) Plan {
	out := p
	out.Partitions = append([]PartitionPlan(nil), p.Partitions...)
	for i := range out.Partitions {
		pp := &out.Partitions[i]
		if pos, ok := positions[pp.Partition]; ok {
			pp.From = pos
			if pp.Bound != NoBound && pp.From > pp.Bound {
				pp.From = pp.Bound
			}
		}
	}
	return out
}

// positions returns the position of every partition that has one: the
// next source offset after its contiguous acknowledged prefix, else the
// one it resumed from; and the metadata to commit with each: the job and
// the records of the partition copied by this run and the earlier ones
// (backfill_job.go). Every commit writes them all, so positions an older
// offsetctl wrote without a job get it with the first commit.
func (b *backfiller) positions() (map[int32]int64, map[int32]string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	out, meta := maps.Clone(b.prior.pos), map[int32]string{}
	if out == nil {
		out = map[int32]int64{}
	}
	for p, inf := range b.parts {
		if inf.acked != nil {
			out[p] = *inf.acked + 1
		}
	}
	for p := range out {
		var copied *int64
		if !b.prior.unknown[p] {
			n := b.prior.copied[p]
			if inf := b.parts[p]; inf != nil {
				n = addSat(n, inf.copied)
			}
			copied = &n
		}
		meta[p] = encodePosition(b.job, copied)
	}
	return out, meta
}

// commitPositions adds the position group to the open transaction and
// stages the positions (TxnOffsetCommit, generation -1: no member). The
// client pins TxnOffsetCommit to v5, which names topics: v6 (Kafka 4.4)
// names them by id only, and the source topic need not exist on the
// target cluster.
func (b *backfiller) commitPositions(ctx context.Context, pos map[int32]int64, meta map[int32]string) error {
	id, epoch, err := b.cl.ProducerID(ctx)
	if err != nil {
		return err
	}
	group := PositionGroup(b.opts.TransactionalID)
	add := kmsg.NewPtrAddOffsetsToTxnRequest()
	add.TransactionalID, add.ProducerID, add.ProducerEpoch, add.Group = b.opts.TransactionalID, id, epoch, group
	// Adding a group the transaction already has changes nothing: safe
	// to retry.
	err = coordretry.Do(ctx, coordretry.Txn(b.opts.TransactionalID), func() error {
		aresp, err := add.RequestWith(ctx, b.cl)
		if err == nil {
			err = kerr.ErrorForCode(aresp.ErrorCode)
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("adding the position group to the transaction: %w", err)
	}
	req := kmsg.NewPtrTxnOffsetCommitRequest()
	req.TransactionalID, req.Group, req.ProducerID, req.ProducerEpoch = b.opts.TransactionalID, group, id, epoch
	req.Generation = -1
	rt := kmsg.NewTxnOffsetCommitRequestTopic()
	rt.Topic = b.src
	for p, off := range pos {
		rp := kmsg.NewTxnOffsetCommitRequestTopicPartition()
		rp.Partition, rp.Offset = p, off
		rp.Metadata = kmsg.StringPtr(meta[p])
		rt.Partitions = append(rt.Partitions, rp)
	}
	req.Topics = append(req.Topics, rt)
	// Staging the same position again in the same open transaction only
	// overwrites it with itself (nothing is visible before EndTxn): safe
	// to retry. The EndTxn itself is kgo's (EndTransaction), whose lost
	// answer finish resolves, never a resend from here.
	var resp *kmsg.TxnOffsetCommitResponse
	err = coordretry.Do(ctx, coordretry.Group(group), func() (err error) {
		resp, err = req.RequestWith(ctx, b.cl)
		if err == nil {
			err = positionErr(resp)
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("committing the backfill position: %w", err)
	}
	return nil
}

// positionErr is the first partition error of a position commit.
func positionErr(resp *kmsg.TxnOffsetCommitResponse) error {
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
				return fmt.Errorf("partition %d: %w", p.Partition, err)
			}
		}
	}
	return nil
}

// checkpoint ends the current transaction once it has been open for the
// interval: it waits for every copy's acknowledgement, stages the
// position they reach, commits, and begins the next transaction. A
// failure fails the backfill (the transaction is then aborted by finish).
func (b *backfiller) checkpoint() error {
	ctx, cancel := context.WithTimeout(b.pctx, 2*b.stall)
	defer cancel()
	if err := b.cl.Flush(ctx); err != nil {
		b.fail(fmt.Errorf("waiting for acknowledgements: %w", err), "")
		return b.err()
	}
	if b.bad.Load() {
		return b.err()
	}
	if err := b.endTxn(ctx); err != nil {
		return err
	}
	if err := b.cl.BeginTransaction(); err != nil {
		b.fail(fmt.Errorf("beginning the next transaction: %w", err), "")
		return b.err()
	}
	b.txnStart, b.txnSince, b.txnSinceBytes = time.Now(), 0, 0
	return nil
}

// txnClockEvery is how many copies pass between two reads of the clock
// for the transaction interval. A timer setting a flag was tried: with
// both cores busy it fired up to ~10 ms late, so 2 ms transactions grew
// several-fold; a clock read per record cost a measurable share of a
// backfill.
const txnClockEvery = 64

// txnClockBytes: the clock is also read once the copies since the last
// read hold this many bytes, so that large records (64 of 1 MB take a
// slow target seconds) do not stretch the interval.
const txnClockBytes = 1 << 20

// producerBufferBytes bounds what the backfill's producer holds
// unanswered. kgo's own bound is 50,000 records whatever their size: 50 GB
// of 1 MB records from a source read faster than the target takes them.
// Copies beyond it wait, which also keeps a transaction to its interval
// (see DefaultTxnInterval). A copy is at most one target batch
// (targetBatchMax, at most 1,000,012 bytes), so it always fits. 8 MiB cost
// nothing measurable on a local broker at ~85 MB/s (bench/backfill_ckpt.md).
const producerBufferBytes = 8 << 20

// txnDue reports, every txnClockEvery copies or txnClockBytes of them,
// whether the open transaction has been open for the interval.
func (b *backfiller) txnDue() bool {
	if b.txnSince++; b.txnSince < txnClockEvery && b.txnSinceBytes < txnClockBytes {
		return false
	}
	b.txnSince, b.txnSinceBytes = 0, 0
	return time.Since(b.txnStart) >= b.opts.TxnInterval
}

// endTxn stages the position and commits the open transaction, recording
// what it committed.
func (b *backfiller) endTxn(ctx context.Context) error {
	pos, meta := b.positions()
	if err := b.commitPositions(ctx, pos, meta); err != nil {
		b.fail(err, "")
		return b.err()
	}
	if err := b.cl.EndTransaction(ctx, kgo.TryCommit); err != nil {
		b.fail(fmt.Errorf("committing a transaction: %w", err), "")
		return b.err()
	}
	b.mu.Lock()
	b.committed = pos
	b.committedCopied = make(map[int32]int64, len(b.parts))
	for p, inf := range b.parts {
		b.committedCopied[p] = inf.copied
	}
	b.txns++
	b.mu.Unlock()
	return nil
}
