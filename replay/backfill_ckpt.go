package replay

import (
	"context"
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/offsetctl/offsetctl/internal/cluster"
	"github.com/offsetctl/offsetctl/internal/durable"
	"github.com/offsetctl/offsetctl/internal/exitcode"
	"github.com/offsetctl/offsetctl/internal/safetext"
)

// checkpointer is the --checkpoint state of a backfill (checkpoint.go has
// the format and what each field promises).
type checkpointer struct {
	o   CheckpointOptions
	job CheckpointJob
	// ranges is the range the first run resolved, per source partition.
	ranges map[int32]CheckpointRange
	// baseEnds are the target's end offsets when this run started: every
	// record past them was written by this run or another writer.
	baseEnds map[int32]int64

	mu    sync.Mutex // serializes writes
	final bool       // the last write is done: the loop writes no more
	last  string     // the state last written (a write is skipped if equal)
	res   CheckpointResult

	// kick holds at most one pending "an answer arrived" signal: every
	// produce answer sends one without blocking, so the answers that
	// arrive while a write is in flight leave one signal, and the next
	// write (which reads the state afresh) covers them all.
	kick chan struct{}
	// write replaces the file (WriteCheckpoint); now and pause pace the
	// writes under --checkpoint-interval. Tests inject them.
	write func(path string, c Checkpoint) error
	now   func() time.Time
	pause func(d time.Duration, stop <-chan struct{}) bool
}

// newCheckpointer is a checkpointer writing with WriteCheckpoint on the
// wall clock.
func newCheckpointer(o CheckpointOptions, job CheckpointJob) *checkpointer {
	return &checkpointer{o: o, job: job, ranges: map[int32]CheckpointRange{}, baseEnds: map[int32]int64{},
		kick: make(chan struct{}, 1), write: WriteCheckpoint, now: time.Now, pause: pause}
}

// pause waits d, or until stop is closed (then it returns false).
func pause(d time.Duration, stop <-chan struct{}) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-stop:
		return false
	case <-t.C:
		return true
	}
}

// answered tells the checkpoint loop that a copy was answered (the copy
// state already records it). It never blocks the producer's callback.
func (ck *checkpointer) answered() {
	select {
	case ck.kick <- struct{}{}:
	default: // a write is already due: it will cover this answer
	}
}

// jobOf is what this backfill's checkpoint (or, with a transactional id,
// its position: backfill_job.go) belongs to: both clusters' ids and the
// topics' ids (a topic deleted and created again under its name has other
// offsets), with the range as typed (r) and the flag that keeps it (what,
// for the errors).
func jobOf(ctx context.Context, srcAdm, dstAdm *cluster.Admin, src string, o ProduceOptions, r JobRange, what string) (CheckpointJob, error) {
	sm, err := srcAdm.Metadata(ctx, src)
	if err != nil {
		return CheckpointJob{}, fmt.Errorf("%s: reading the source topic's id: %w", what, err)
	}
	dm, err := dstAdm.Metadata(ctx, o.Topic)
	if err != nil {
		return CheckpointJob{}, fmt.Errorf("%s: reading the target topic's id: %w", what, err)
	}
	return CheckpointJob{
		SourceCluster: sm.Cluster, SourceTopic: src, SourceTopicID: sm.Topics[src].ID.String(),
		From: r.From, Until: r.Until, Partitions: r.Partitions, Isolation: r.isolation,
		TargetCluster: dm.Cluster, TargetTopic: o.Topic, TargetTopicID: dm.Topics[o.Topic].ID.String(),
		Partitioner: o.Partitioner, SourceHeader: o.SourceHeader,
	}, nil
}

// openCheckpoint reads the checkpoint (refusing one of another job),
// returns the plan to run (the file's range, from its positions on), and
// writes the starting checkpoint before anything is copied: a run killed
// before its first periodic write must still leave the target's end
// offsets of its start, or the next resume would miss its copies.
func (b *backfiller) openCheckpoint(ctx context.Context, srcAdm, dstAdm *cluster.Admin, plan Plan, ends map[int32]kadm.ListedOffset) (Plan, error) {
	o := *b.opts.Checkpoint
	c := b.opts.Checkpoint
	job, err := jobOf(ctx, srcAdm, dstAdm, b.src, b.opts, JobRange{From: c.From, Until: c.Until, Partitions: c.Partitions, isolation: c.isolation}, "--checkpoint")
	if err != nil {
		return plan, err
	}
	shown := safetext.Arg(o.Path)
	old, err := ReadCheckpoint(o.Path, time.Second)
	if err != nil {
		return plan, exitcode.Usagef("--checkpoint %s: %v; nothing was copied", shown, err)
	}
	ck := newCheckpointer(o, job)
	ck.res.Path = o.Path
	for p, e := range ends {
		ck.baseEnds[p] = e.Offset
	}
	b.ck = ck
	if old == nil {
		for _, pp := range plan.Partitions {
			ck.ranges[pp.Partition] = CheckpointRange{Partition: pp.Partition, From: pp.From, Bound: max(pp.Bound, pp.From), Next: pp.From}
		}
	} else if plan, err = ck.resume(old, plan, shown); err != nil {
		return plan, err
	}
	b.plan = plan
	if ck.res.AlreadyComplete {
		ck.final = true // nothing to do, not even a write
		return plan, nil
	}
	return plan, b.writeStart(shown)
}

// writeStart writes the starting checkpoint, before anything is copied.
// A path that cannot be written (no permission, no such directory) is bad
// input, exit 2; a disk that fails (ENOSPC, EIO) is an operational
// failure, exit 1, as at every later write. It was exit 2 for both.
func (b *backfiller) writeStart(shown string) error {
	err := b.writeCheckpoint(false, false)
	switch {
	case err == nil:
		return nil
	case durable.UserPath(err):
		return exitcode.Usagef("--checkpoint %s: %v; nothing was copied", shown, err)
	}
	return fmt.Errorf("--checkpoint %s: %w; nothing was copied", shown, err)
}

// resume checks that old belongs to this job and returns the plan of its
// range from its positions on, counting the possible duplicates.
func (ck *checkpointer) resume(old *Checkpoint, plan Plan, shown string) (Plan, error) {
	if what := old.Job.Differs(ck.job); what != "" {
		return plan, exitcode.Usagef("--checkpoint %s belongs to another backfill (%s differs): rerun the command that wrote it, or use another file; nothing was copied", shown, what)
	}
	cur := map[int32]PartitionPlan{}
	for _, pp := range plan.Partitions {
		cur[pp.Partition] = pp
	}
	out := plan
	out.Partitions = nil
	pos := map[int32]int64{}
	for _, r := range old.Ranges {
		pp, ok := cur[r.Partition]
		if !ok {
			return plan, exitcode.Usagef("--checkpoint %s: partition %d of its range is not in the source topic now; nothing was copied", shown, r.Partition)
		}
		if r.Next < r.Bound && r.Next < pp.LogStart {
			// Retention or DeleteRecords removed records the copy
			// still needs: resuming would leave a gap in the target.
			return plan, exitcode.Usagef("--checkpoint %s: partition %d resumes at offset %d but the source log now starts at %d (records deleted since): the copy would have a gap; nothing was copied", shown, r.Partition, r.Next, pp.LogStart)
		}
		if r.Bound > pp.LogEnd {
			// The first run took the bound from the log end (or a
			// lower --until), and a log end never moves back: a bound
			// past it is not this topic's checkpoint (or the log was
			// truncated), and the replay would wait for it forever.
			return plan, exitcode.Usagef("--checkpoint %s: partition %d's range ends at offset %d but the source log ends at %d now: not a checkpoint of this topic's log; nothing was copied", shown, r.Partition, r.Bound, pp.LogEnd)
		}
		pp.From, pp.Bound = r.From, r.Bound
		out.Partitions = append(out.Partitions, pp)
		pos[r.Partition] = r.Next
		ck.ranges[r.Partition] = r
	}
	out = ResumePlan(out, pos)
	ck.res.Resumed = true
	if old.Complete {
		ck.res.AlreadyComplete, ck.res.Complete = true, true
		ck.note("backfill already complete according to checkpoint %s (written %s): nothing to copy", shown, old.Written.Format(time.RFC3339))
		return out, nil
	}
	dups := addSat(old.AckedBeyond, old.OthersBelow)
	for _, e := range old.TargetEnds {
		if now, ok := ck.baseEnds[e.Partition]; ok && now > e.Offset {
			dups = addSat(dups, now-e.Offset)
		}
	}
	ck.res.PossibleDuplicates = dups
	ck.note("resuming the backfill from checkpoint %s (written %s): %d record(s) already in %s may be duplicates (copied after that checkpoint, copied again now; records other writers added to %s since count too)",
		shown, old.Written.Format(time.RFC3339), dups, ck.job.TargetTopic, ck.job.TargetTopic)
	return out, nil
}

func (ck *checkpointer) note(format string, args ...any) {
	if ck.o.Notef != nil {
		ck.o.Notef(format, args...)
	}
}

// checkpointState is the checkpoint of what is acknowledged now.
func (b *backfiller) checkpointState(complete bool) Checkpoint {
	ck := b.ck
	c := Checkpoint{Job: ck.job, Written: time.Now().UTC(), Complete: complete}
	ends := maps.Clone(ck.baseEnds)
	b.mu.Lock()
	for _, pp := range b.plan.Partitions {
		r := ck.ranges[pp.Partition]
		r.Next = min(max(pp.From, r.From), r.Bound)
		if inf := b.parts[pp.Partition]; !complete && inf != nil {
			if inf.acked != nil {
				r.Next = *inf.acked + 1
			}
			// Copies past the acknowledged prefix (acknowledged out of
			// order, or failed with an unknown outcome) lie below the
			// target ends recorded here: counted as they are.
			for _, s := range inf.queue {
				if s.done {
					c.AckedBeyond++
				}
			}
		}
		if complete {
			r.Next = r.Bound
		}
		c.Ranges = append(c.Ranges, r)
	}
	// Per target partition the producer's acknowledgements come in
	// offset order (idempotent, one partition's batches in sequence), so
	// every copy not yet acknowledged lands past the last one that was.
	// Between the end at the start and the last acknowledged copy lie
	// this run's acknowledged copies and others' records: an earlier
	// run's copies written late (the broker still held them when this
	// run listed the target's ends), or another writer's. A resume
	// counts those as it counts what lies past the ends recorded here.
	for p, ta := range b.targets {
		c.OthersBelow += others(ta.last+1, ck.baseEnds[p], ta)
		ends[p] = max(ends[p], ta.last+1)
	}
	b.mu.Unlock()
	for p, e := range ends {
		c.TargetEnds = append(c.TargetEnds, TargetEnd{Partition: p, Offset: e})
	}
	return c
}

// others is how many records of a target partition between its end at
// the run's start (base) and end are not the run's acknowledged copies
// (ta, nil for none), all of them at or past base and below end.
func others(end, base int64, ta *targetAcks) int64 {
	n := end - base
	if ta != nil {
		n -= ta.n
	}
	return max(n, 0)
}

// writeCheckpoint writes the current state unless it equals the last one
// written; final makes it the run's last write.
func (b *backfiller) writeCheckpoint(final, complete bool) error {
	ck := b.ck
	ck.mu.Lock()
	defer ck.mu.Unlock()
	if ck.final {
		return nil
	}
	ck.final = final
	c := b.checkpointState(complete)
	key := fmt.Sprint(c.Complete, c.Ranges, c.TargetEnds, c.AckedBeyond, c.OthersBelow)
	if key == ck.last {
		return nil
	}
	if err := ck.write(ck.o.Path, c); err != nil {
		return fmt.Errorf("writing checkpoint %s: %w", safetext.Arg(ck.o.Path), err)
	}
	ck.last = key
	ck.res.Writes++
	ck.res.Complete = complete
	return nil
}

// checkpointLoop writes the acknowledged position after every produce
// answer until the backfill closes: each answer signals (answered), and
// the write that follows reads the state then, so it covers that answer
// and every one before it. One write is in flight at a time (temporary
// file, fsync, rename, directory fsync); the answers that arrive during
// it are covered by the next one, so a kill -9 loses at most the copies
// acknowledged during one write. With --checkpoint-interval D, writes
// start at least D apart (an answer then waits up to D for its write).
// A failed write fails the backfill: copying on without a checkpoint
// would only grow what a resume duplicates.
func (b *backfiller) checkpointLoop() {
	defer b.wg.Done()
	ck := b.ck
	var last time.Time
	for {
		select {
		case <-b.stop:
			return
		case <-ck.kick:
		}
		if ck.o.Interval > 0 && !last.IsZero() {
			if !ck.pause(ck.o.Interval-ck.now().Sub(last), b.stop) {
				return
			}
		}
		last = ck.now()
		if err := b.writeCheckpoint(false, false); err != nil {
			b.fail(err, "")
			return
		}
	}
}

// finishCheckpoint writes the last checkpoint of the run (complete when
// br is) and puts the checkpoint's outcome in br.
func (b *backfiller) finishCheckpoint(ctx context.Context, br *BackfillResult) error {
	if b.ck == nil || br == nil {
		return nil
	}
	if br.Complete && !b.ck.final {
		// The last run: no resume will count what others wrote to the
		// target while it copied, so it counts them itself.
		if more := b.othersWhileCopying(ctx); more > 0 {
			b.ck.mu.Lock()
			b.ck.res.PossibleDuplicates = addSat(b.ck.res.PossibleDuplicates, more)
			all := b.ck.res.PossibleDuplicates
			b.ck.mu.Unlock()
			b.ck.note("%d more record(s) in %s may be duplicates: written there while this run copied, by an earlier run's copies still in flight when it stopped, or by another writer; %d possible duplicate(s) in all",
				more, b.ck.job.TargetTopic, all)
		}
	}
	err := b.writeCheckpoint(true, br.Complete)
	res := b.ck.res
	br.Checkpoint = &res
	return err
}

// othersWhileCopying counts the records of the target that lie past its
// end offsets at this run's start and are not the run's copies, from its
// end offsets now (every copy is acknowledged). Where they cannot be read
// it counts those below the last acknowledged copy, as a checkpoint does.
func (b *backfiller) othersWhileCopying(ctx context.Context) int64 {
	ck := b.ck
	ctx, cancel := context.WithTimeout(ctx, b.stall)
	defer cancel()
	listed, err := kadm.NewClient(b.cl).ListEndOffsets(ctx, ck.job.TargetTopic)
	b.mu.Lock()
	defer b.mu.Unlock()
	var n int64
	seen := map[int32]bool{}
	if err == nil {
		listed.Each(func(l kadm.ListedOffset) {
			if l.Err == nil && l.Topic == ck.job.TargetTopic {
				seen[l.Partition] = true
				n = addSat(n, others(l.Offset, ck.baseEnds[l.Partition], b.targets[l.Partition]))
			}
		})
	}
	for p, ta := range b.targets {
		if !seen[p] {
			n = addSat(n, others(ta.last+1, ck.baseEnds[p], ta))
		}
	}
	return n
}

// checkCheckpoint refuses what a checkpoint cannot record, and gives the
// checkpoint the replay's isolation (part of its job).
func checkCheckpoint(opts *Options) error {
	if opts.Produce == nil || opts.Produce.Checkpoint == nil {
		return nil
	}
	switch {
	case opts.Produce.TransactionalID != "":
		return exitcode.Usagef("--checkpoint and --transactional-id exclude each other: the transactional id already keeps the position, exactly once")
	case opts.Follow:
		return exitcode.Usagef("--checkpoint cannot be combined with --follow: a checkpoint records a range with an end; bound it with --until")
	case opts.Max > 0:
		return exitcode.Usagef("--checkpoint cannot be combined with --max: bound the range with --until instead")
	}
	po := *opts.Produce
	c := *po.Checkpoint
	c.isolation = opts.Isolation.String()
	po.Checkpoint = &c
	opts.Produce = &po
	return nil
}
