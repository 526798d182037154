package health

import (
	"context"
	"time"

	"github.com/offsetctl/offsetctl/internal/lag"
)

// watchState is what a Judge with Rounds keeps between the rounds.
type watchState struct {
	tail *Tail
	// seen are the groups read (or failed) since the last EndRound.
	seen map[string]bool
	// ends are the log ends listed at the commit times of a group's
	// first read from the offsets topic (the history before the watch);
	// the rounds' own follow.
	ends map[string]map[Key][]LogEnd
}

// judgeRound judges the groups of one round of a watch. Every round's
// rows go into j.Rounds whatever the source: they are the samples of the
// sampling source, and the log end history of the offsets-topic one (and
// a fallback to sampling finds them there).
func (j *Judge) judgeRound(ctx context.Context, rep *lag.LagReport, groups []string, at time.Time) error {
	for _, g := range rep.Groups {
		if g.Error == "" {
			j.Rounds.Add(g, at)
		}
	}
	if sample, err := j.topicFirst(func() error { return j.fromTail(ctx, rep, groups, at) }); !sample {
		return err
	}
	for i := range rep.Groups {
		if g := &rep.Groups[i]; g.Error == "" {
			ApplyRounds(g, j.Rounds.Judge(*g, at, j.Explain), SourceSample)
		}
	}
	return nil
}

// see notes the groups of a round's batch, read or failed: a group whose
// read failed keeps its history (EndRound).
func (w *watchState) see(rep *lag.LagReport) {
	if w.seen == nil {
		w.seen = map[string]bool{}
	}
	for _, g := range rep.Groups {
		w.seen[g.Group] = true
	}
}

// fromTail judges the groups from the commits the watch's Tail follows.
func (j *Judge) fromTail(ctx context.Context, rep *lag.LagReport, groups []string, at time.Time) error {
	w := &j.watch
	if w.tail == nil {
		w.tail, w.ends = &Tail{Reader: j.Reader, Window: j.Window}, map[string]map[Key][]LogEnd{}
	}
	return j.fromCommits(ctx, w.tail, w.ends, rep, groups, at)
}

// fromCommits judges the groups from the commits t reads over the window
// and the log ends: those listed at the commit times on a group's first
// read (kept in first), then the rounds' (with j.Rounds).
func (j *Judge) fromCommits(ctx context.Context, t *Tail, first map[string]map[Key][]LogEnd, rep *lag.LagReport, groups []string, at time.Time) error {
	hist, err := t.Read(ctx, groups, at.Add(-j.Window))
	if err != nil {
		return err
	}
	for i := range rep.Groups {
		g := &rep.Groups[i]
		h, ok := hist[g.Group]
		if !ok || g.Error != "" {
			continue
		}
		listed, ok := first[g.Group]
		if !ok {
			if listed, err = j.logEnds(ctx, h, g.Topics); err != nil {
				return err
			}
			first[g.Group] = listed
		}
		ends := historyEnds(listed, j.Rounds.LogEnds(g.Group), at)
		Apply(g, EvaluateGroup(g.Group, FromHistory(*g, h, ends, at), j.options(at)), SourceOffsetsTopic)
	}
	return nil
}

// EndRound ends a round of a watch: when it was complete, the groups it
// did not read are forgotten (a group that comes back is new).
func (j *Judge) EndRound(complete bool) {
	w := &j.watch
	if j.Rounds == nil {
		return
	}
	if complete {
		keep := func(g string) bool { return w.seen[g] }
		j.Rounds.Forget(keep)
		if w.tail != nil {
			w.tail.Forget(keep)
		}
		for g := range w.ends {
			if !w.seen[g] {
				delete(w.ends, g)
			}
		}
	}
	w.seen = map[string]bool{}
}

// historyEnds is a group's log end history for FromHistory at round at:
// those listed at its commit times on its first read (listed), then those
// the rounds read before at (the round's own is the row's, added by
// FromHistory).
func historyEnds(listed, rounds map[Key][]LogEnd, at time.Time) map[Key][]LogEnd {
	ends := map[Key][]LogEnd{}
	for k, es := range listed {
		ends[k] = append(ends[k], es...)
	}
	for k, es := range rounds {
		for _, e := range es {
			if e.Time.Before(at) {
				ends[k] = append(ends[k], e)
			}
		}
	}
	return ends
}
