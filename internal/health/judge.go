package health

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/offsetctl/offsetctl/internal/cluster"
	"github.com/offsetctl/offsetctl/internal/lag"
	"github.com/offsetctl/offsetctl/internal/safetext"
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

// Judge judges every group of rep, read at at.
func (j *Judge) Judge(ctx context.Context, rep *lag.LagReport, at time.Time) error {
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
	return j.fromSamples(ctx, rep, groups, at)
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

// fromSamples takes the committed offsets and log ends again after
// j.Sample and judges the two rounds.
func (j *Judge) fromSamples(ctx context.Context, rep *lag.LagReport, groups []string, at time.Time) error {
	if err := j.Sleep(ctx, j.Sample); err != nil {
		return err
	}
	t1 := j.Now()
	commits := lag.FetchCommits(ctx, j.Admin, groups)
	topics := map[string]bool{}
	for _, g := range rep.Groups {
		for _, p := range g.Partitions {
			topics[p.Topic] = true
		}
	}
	names := make([]string, 0, len(topics))
	for t := range topics {
		names = append(names, t)
	}
	sort.Strings(names)
	ends, err := lag.ListOffsets(ctx, j.Admin, names, j.Isolation)
	if err != nil {
		return fmt.Errorf("sampling log ends: %w", err)
	}
	for i := range rep.Groups {
		g := &rep.Groups[i]
		gs, ok := commits[g.Group]
		if !ok || g.Error != "" {
			continue
		}
		if gs.CommitErr != nil {
			return fmt.Errorf("sampling the commits of group %s: %w", safetext.Arg(g.Group), gs.CommitErr)
		}
		later := map[Key]Sample{}
		for _, p := range g.Partitions {
			s := Sample{LogEnd: -1}
			if c, ok := gs.Commits.Lookup(p.Topic, p.Partition); ok && c.Err == nil {
				off := c.Offset
				s.Committed = &off
			}
			if o, ok, err := ends.Lookup(p.Topic, p.Partition); ok && err == nil {
				s.LogEnd = o.End
			}
			later[Key{p.Topic, p.Partition}] = s
		}
		Apply(g, EvaluateGroup(g.Group, FromSamples(*g, at, later, t1), sampledOptions(j.options(t1), at)), SourceSample)
	}
	return nil
}

// sampledOptions widens the window to take in both samples: two samples
// are all sampling has, so a --window not longer than --sample (or a slow
// second round) must not drop the first and leave nothing to judge, which
// turned a stopped consumer with lag into OK.
func sampledOptions(o Options, t0 time.Time) Options {
	if span := o.Now.Sub(t0); o.Window < span {
		o.Window = span
	}
	return o
}
