package health

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/offsetctl/offsetctl/internal/cluster"
	"github.com/offsetctl/offsetctl/internal/lag"
)

// Source modes of a Judge.
const (
	ModeAuto         = "auto" // the offsets topic, else sampling
	ModeOffsetsTopic = SourceOffsetsTopic
	ModeSample       = SourceSample
)

// maxLogEndTimes bounds the ListOffsets by timestamp per group: Burrow
// judges 10 commits per partition by default.
const maxLogEndTimes = 10

// Judge fills the health status into the groups of lag reports (lag
// --status). One Judge serves one command: it remembers which source
// worked, so an unreadable offsets topic is tried once.
type Judge struct {
	Admin  *cluster.Admin
	Reader TopicReader
	Mode   string
	Window time.Duration
	// Sample is the time between the two rounds of the sampling source.
	Sample    time.Duration
	Isolation lag.Isolation
	Now       func() time.Time
	// Sleep waits d or until ctx ends (tests make it instant).
	Sleep   func(ctx context.Context, d time.Duration) error
	Explain Explainer
	// Fallback is told once why the offsets topic was not used.
	Fallback func(reason error)
	// Source is told once which source judged (when Fallback was not:
	// it says so itself).
	Source func(source string)
	// Rounds, when set, makes each Judge call a round of a watch (lag
	// --watch --status, watch.go): the offsets topic is read once and
	// then followed, or the watch's own rounds are the samples.
	Rounds   *Rounds
	sampling bool
	said     bool
	// read: the offsets topic was read once (Unreadable).
	read  bool
	watch watchState
}

// Reread reads a batch's groups again (the sampling source's second
// sample): the same groups, gathered and computed as the batch was.
type Reread func(ctx context.Context, groups []string) (lag.LagBatch, error)

// Judge judges every group of b's report, read at b.Snapshot.At. The
// sampling source reads the groups again after Sample, with again, and
// judges the two reads: b becomes the later one, the moment its statuses
// are about, so that every row (committed, log end, lag, total) agrees
// with its verdict. (The rows of the first read beside a status of the
// second showed committed 15 and lag 5 beside "lag grew from 5 to 9".)
func (j *Judge) Judge(ctx context.Context, b *lag.LagBatch, again Reread) error {
	rep, at := &b.Report, b.Snapshot.At
	if j.Rounds != nil {
		j.watch.see(rep)
	}
	groups := make([]string, 0, len(rep.Groups))
	for _, g := range rep.Groups {
		if g.Error == "" {
			groups = append(groups, g.Group)
		}
	}
	if len(groups) == 0 {
		return nil
	}
	if j.Rounds != nil {
		return j.judgeRound(ctx, rep, groups, at)
	}
	if sample, err := j.topicFirst(func() error { return j.fromTopic(ctx, rep, groups, at) }); !sample {
		return err
	}
	return j.fromSamples(ctx, b, again)
}

// topicFirst judges with read (the offsets topic) unless the mode or an
// earlier fallback says to sample; sample reports that the caller is to
// sample: the mode says so, or the topic cannot be read and the mode
// allows falling back (Fallback told once, the sampling kept from then).
// The source is said once.
func (j *Judge) topicFirst(read func() error) (sample bool, err error) {
	if j.Mode != ModeSample && !j.sampling {
		err := read()
		if err == nil {
			j.read = true
			j.say(SourceOffsetsTopic)
		}
		if err == nil || j.Mode == ModeOffsetsTopic || !errors.Is(err, ErrNoAccess) {
			return false, err
		}
		j.sampling, j.said = true, true
		if j.Fallback != nil {
			j.Fallback(err)
		}
	}
	j.say(SourceSample)
	return true, nil
}

// Unreadable reports whether err ends the command at once: the offsets
// topic was asked for (ModeOffsetsTopic: no fallback), err says it cannot
// be read, and it never was: a watch's later rounds would fail alike
// until someone grants the ACL, so its first says so and ends, as lag
// --status does. Once read, a round that cannot read it is a failed round
// like any other (the watch goes on: an ACL or a broker may come back).
// False for a nil Judge.
func (j *Judge) Unreadable(err error) bool {
	return j != nil && j.Mode == ModeOffsetsTopic && !j.read && errors.Is(err, ErrNoAccess)
}

func (j *Judge) say(source string) {
	if !j.said && j.Source != nil {
		j.Source(source)
	}
	j.said = true
}

func (j *Judge) options(now time.Time) Options {
	return Options{Window: j.Window, Now: now, Explain: j.Explain}
}

// fromTopic judges the groups from one read of the offsets topic over
// the window (a Tail's first) and the log ends listed at the commit times.
func (j *Judge) fromTopic(ctx context.Context, rep *lag.LagReport, groups []string, at time.Time) error {
	return j.fromCommits(ctx, &Tail{Reader: j.Reader, Window: j.Window}, map[string]map[Key][]LogEnd{}, rep, groups, at)
}

// logEnds lists the log ends of topics at the group's sample times: the
// first offset written at or after each (record timestamps as the
// producers set them, so a producer's clock skew skews these too).
func (j *Judge) logEnds(ctx context.Context, h map[Key][]Commit, topics []string) (map[Key][]LogEnd, error) {
	out := map[Key][]LogEnd{}
	if len(topics) == 0 {
		return out, nil
	}
	for _, t := range SampleTimes(h, maxLogEndTimes) {
		listed, err := j.Admin.ListOffsetsAfterMilli(ctx, t.UnixMilli(), topics...)
		if err != nil {
			return nil, fmt.Errorf("listing log ends at %s: %w", stamp(t), err)
		}
		listed.Each(func(o kadm.ListedOffset) {
			if o.Err == nil && o.Offset >= 0 {
				k := Key{o.Topic, o.Partition}
				out[k] = append(out[k], listedEnd(o.Offset, t))
			}
		})
	}
	return out, nil
}

// listedEnd is the log end at t as ListOffsets by timestamp gives it.
func listedEnd(offset int64, t time.Time) LogEnd {
	return LogEnd{Offset: offset, Time: t, Estimated: true}
}

// fromSamples reads the groups of b again after j.Sample (all of them:
// the batch stays whole), judges each group from its rows in the two
// reads, and makes b the later read.
func (j *Judge) fromSamples(ctx context.Context, b *lag.LagBatch, again Reread) error {
	if err := j.Sleep(ctx, j.Sample); err != nil {
		return err
	}
	t0, t1 := b.Snapshot.At, j.Now()
	groups := make([]string, 0, len(b.Report.Groups))
	for _, g := range b.Report.Groups {
		groups = append(groups, g.Group)
	}
	later, err := again(ctx, groups)
	if err != nil {
		return err
	}
	first := map[string]lag.GroupLag{}
	for _, g := range b.Report.Groups {
		first[g.Group] = g
	}
	for i := range later.Report.Groups {
		g := &later.Report.Groups[i]
		g0, ok := first[g.Group]
		// A group that failed in either read is not judged: its error
		// row says why (exit 1).
		if !ok || g0.Error != "" || g.Error != "" {
			continue
		}
		// The later read's rows are the ones shown, so they are the ones
		// judged, each against what the first read had for it.
		earlier := map[Key]Sample{}
		for _, p := range g0.Partitions {
			if p.Error == "" {
				earlier[Key{p.Topic, p.Partition}] = Sample{Committed: p.Committed, LogEnd: p.LogEnd}
			}
		}
		ps, pending := FromSamples(earlier, t0, *g, t1)
		applySampled(g, RoundsStatus{GroupStatus: EvaluateGroup(g.Group, ps, sampledOptions(j.options(t1), t0, j.Sample)), Pending: pending})
	}
	later.Report.Status = b.Report.Status
	*b = later
	return nil
}

// applySampled writes a sampled judgement into g's rows: a partition
// first committed between the two samples is pending, and so is the group
// when nothing else in it is worse than OK.
func applySampled(g *lag.GroupLag, s RoundsStatus) {
	applyPending(g, s, SourceSample, sampledPendingReason, "%d partition(s) with lag first committed between the samples: one sample cannot be judged (sample again, or use --watch)")
}

// sampledPendingReason is the reason of a partition pending in a sampled
// judgement.
const sampledPendingReason = "first committed between the samples: one sample cannot be judged"

// sampledOptions widens the window to take in both samples: two samples
// are all sampling has, so a --window not longer than --sample (or a slow
// second round) must not drop the first and leave nothing to judge, which
// turned a stopped consumer with lag into OK.
// A window not longer than the sample (--window 30s --sample 30s) is the
// samples' own span: the offset that stood between them stood for the
// whole window, STOP, however long the second read took to start.
func sampledOptions(o Options, t0 time.Time, sample time.Duration) Options {
	if span := o.Now.Sub(t0); o.Window < span || o.Window <= sample {
		o.Window = span
	}
	return o
}
