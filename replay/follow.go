package replay

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Partitions added to the topic while --follow reads it.
//
// A replay assigns the partitions it found when it started
// (kgo.ConsumePartitions), and kgo never adds one to such a client: a
// --follow of a topic that grew went on reading the old partitions only,
// with no word, though it promises to read the new records until Ctrl-C.
// So while following, the replay looks for new partitions every
// growCheckEvery (a Metadata request; ListOffsets for a new one's log
// start) and reads each one it finds from its log start: it did not exist
// when the replay started, so every record in it is new. It is then a
// partition like any other: in the summary (FROM its log start), the
// resume point, the digests (ascending partition order, as always: a
// replay of the same per-partition range gives the same digest), the
// proof (its commits are compared, none before: it did not exist) and, in
// a backfill, the copy (with --partitioner same the target must have it,
// else the backfill stops with its resume point).
//
// Only a replay of the whole topic grows: one that selected partitions
// (--partitions, a per-partition --from that leaves some out, or a
// per-partition --until) did not ask for others. A --from naming every
// partition is a resume point: of the whole topic. A --shard or --digest-out run does not either, since its file
// records the partition count it started with and the shards cut the
// topic by it; it warns once instead, naming the partitions it leaves
// unread.

// growCheckEvery is how often a --follow looks for added partitions.
const growCheckEvery = 2 * time.Second

// errPartitionsAdded ends a poll early: new partitions are to be read.
var errPartitionsAdded = errors.New("partitions were added to the topic")

// grower finds the partitions added to the followed topic; the consume
// loop adopts them (adopt) between polls.
type grower struct {
	topic string
	read  bool // read them (else warn once)
	warnf func(format string, args ...any)

	mu      sync.Mutex
	known   map[int32]bool
	pending []PartitionPlan
	wake    func() // ends the poll in progress, nil between polls
	stop    context.CancelFunc
	done    chan struct{}
}

// startGrower starts looking for added partitions when the replay
// follows; nil when it does not.
func (c *consumer) startGrower(ctx context.Context) *grower {
	if !c.plan.Follow {
		return nil
	}
	o := c.opts
	if selectsPartitions(o) {
		return nil // partitions were selected: others are not asked for
	}
	g := &grower{topic: c.plan.Topic, known: map[int32]bool{}, done: make(chan struct{}), warnf: o.Warnf,
		read: o.Shard == nil && !o.fixedPartitions}
	if !g.read && g.warnf == nil {
		return nil
	}
	for _, p := range o.started {
		g.known[p] = true
	}
	gctx, cancel := context.WithCancel(ctx)
	g.stop = cancel
	go g.run(gctx, kadm.NewClient(c.cl), c.plan, c.opts.Until.All)
	return g
}

// selectsPartitions reports whether o asks for some of the topic's
// partitions only. A per-partition --from that names every partition the
// topic has does not: that is the resume point a replay prints
// ("--from 0=3,1=2,2=2"), and the replay it resumes read the whole topic,
// so a resumed --follow goes on reading partitions added to it.
func selectsPartitions(o Options) bool {
	if o.Partitions != nil || o.Until.PerPartition != nil {
		return true
	}
	if o.From.PerPartition == nil {
		return false
	}
	for _, p := range o.started {
		if _, ok := o.From.PerPartition[p]; !ok {
			return true
		}
	}
	return false
}

// close stops looking.
func (g *grower) close() {
	if g == nil {
		return
	}
	g.stop()
	<-g.done
}

func (g *grower) run(ctx context.Context, adm *kadm.Client, plan Plan, until Until) {
	defer close(g.done)
	t := time.NewTicker(growCheckEvery)
	defer t.Stop()
	warned := false
	failed := map[int32]int{} // checks in a row a partition's log start was not read
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		added := g.look(ctx, adm)
		if len(added) == 0 {
			continue
		}
		if !g.read {
			if !warned {
				g.warnf("topic %s: partition(s) %s added while following: a --shard or --digest-out replay keeps the partitions it started with, so they are not read (rerun without them to read every partition)", g.topic, formatParts(added))
				warned = true
			}
			continue
		}
		starts, err := adm.ListStartOffsets(ctx, g.topic)
		if ctx.Err() != nil {
			return
		}
		var pps []PartitionPlan
		for _, p := range added {
			o, ok := starts.Lookup(g.topic, p)
			perr := err
			switch {
			case perr == nil && ok && o.Err != nil:
				perr = o.Err
			case perr == nil && !ok:
				perr = errors.New("not listed")
			}
			if perr != nil {
				// A partition just added may have no leader yet (its
				// metadata comes before it): looked at again at the
				// next check, never a reason to end the replay. Said
				// once if it goes on.
				g.forget(p)
				if failed[p]++; failed[p] == growWarnAfter {
					g.warnf("topic %s partition %d, added while following: its log start could not be read in %d checks (%v); still trying", g.topic, p, growWarnAfter, perr)
				}
				continue
			}
			delete(failed, p)
			pps = append(pps, grownPlan(p, o.Offset, until))
		}
		if len(pps) > 0 {
			g.add(pps)
		}
	}
}

// growWarnAfter is the checks in a row a new partition's log start may
// fail to be read before it is said on stderr.
const growWarnAfter = 10

// forget makes p new again to the next look.
func (g *grower) forget(p int32) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.known, p)
}

// look returns the partitions of the topic not seen before (marked seen).
func (g *grower) look(ctx context.Context, adm *kadm.Client) []int32 {
	md, err := adm.Metadata(ctx, g.topic)
	if err != nil {
		return nil // a later look sees them; the replay's own fetches report a lost cluster
	}
	var added []int32
	g.mu.Lock()
	defer g.mu.Unlock()
	for p := range md.Topics[g.topic].Partitions {
		if !g.known[p] {
			g.known[p] = true
			added = append(added, p)
		}
	}
	slices.Sort(added)
	return added
}

// grownPlan is the range of partition p, added while following, whose
// log starts at start: from there, bounded as every partition of a
// --follow is by --until. A time end stops at the first record stamped at
// or after it (each of its records is new, whatever its stamp).
func grownPlan(p int32, start int64, until Until) PartitionPlan {
	pp := PartitionPlan{Partition: p, LogStart: start, LogEnd: start, From: start, Bound: NoBound, StopAtMs: -1}
	switch {
	case !until.Set:
	case until.IsTime:
		pp.StopAtMs, pp.BoundBy = until.Time.UnixMilli(), BoundUntil
	default:
		pp.Bound, pp.BoundBy = max(until.Offset, start), BoundUntil
	}
	return pp
}

func (g *grower) add(pps []PartitionPlan) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.pending = append(g.pending, pps...)
	if g.wake != nil {
		g.wake()
	}
}

// take returns the partitions found since the last call.
func (g *grower) take() []PartitionPlan {
	if g == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	pps := g.pending
	g.pending = nil
	return pps
}

// pollContext is the context of one poll: ended by the stall timeout, or
// early (cause errPartitionsAdded) when partitions are found meanwhile.
func (c *consumer) pollContext(ctx context.Context, stall time.Duration) (context.Context, context.CancelFunc) {
	pctx, cancel := context.WithTimeout(ctx, stall)
	g := c.grow
	if g == nil {
		return pctx, cancel
	}
	wctx, wcancel := context.WithCancelCause(pctx)
	g.mu.Lock()
	g.wake = func() { wcancel(errPartitionsAdded) }
	if len(g.pending) > 0 {
		g.wake() // found between the last adopt and this poll
	}
	g.mu.Unlock()
	return wctx, func() {
		g.mu.Lock()
		g.wake = nil
		g.mu.Unlock()
		wcancel(nil)
		cancel()
	}
}

// woken reports a poll ended early to adopt new partitions.
func woken(pctx context.Context) bool {
	return errors.Is(context.Cause(pctx), errPartitionsAdded)
}

// adopt starts reading the partitions found since the last poll: a state
// of their own, the copier's too, and the consuming client's assignment.
// When they cannot be copied, they are in the result (and the resume
// point) all the same, unread, and the replay stops.
func (c *consumer) adopt() error {
	pps := c.grow.take()
	if len(pps) == 0 {
		return nil
	}
	var err error
	if c.copier != nil {
		err = c.copier.checkAdded(pps)
	}
	add := map[int32]kgo.Offset{}
	for _, pp := range pps {
		if c.copier != nil {
			c.copier.addPartition(pp)
		}
		st := &pstate{plan: pp, next: pp.From, hash: newPartHash(c.payload)}
		c.states[pp.Partition] = st
		c.order = append(c.order, pp.Partition)
		c.plan.Partitions = append(c.plan.Partitions, pp)
		if pp.Empty() && pp.StopAtMs < 0 {
			st.done = true
			continue
		}
		add[pp.Partition] = kgo.NewOffset().At(pp.From)
		c.open++
	}
	slices.Sort(c.order)
	if err != nil {
		return err
	}
	if len(add) > 0 {
		c.cl.AddConsumePartitions(map[string]map[int32]kgo.Offset{c.plan.Topic: add})
	}
	return nil
}

// withAdded is the partitions the proof compares: those of the topic at
// the start (parts, from g) and those a --follow read that were added
// since (their commits are compared too: none before, they did not
// exist).
func withAdded(parts []int32, g Gathered, res *Result) []int32 {
	for _, pr := range res.Partitions {
		if _, ok := g.Partitions[pr.Partition]; !ok {
			parts = append(parts, pr.Partition)
		}
	}
	return parts
}
