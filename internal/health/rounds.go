package health

import (
	"fmt"
	"slices"
	"time"

	"github.com/offsetctl/offsetctl/internal/lag"
)

// Pending is the status word of a partition or group that a watcher's
// rounds cannot judge yet: a partition with lag seen in one round only
// (one sample says nothing of movement). It is not a Status: no --fail-if
// crosses on it, and the exporter writes no status series for it.
const Pending = "PENDING"

// roundObs is one round's observation of a group-partition.
type roundObs struct {
	at             time.Time
	committed, end int64
}

// Rounds is the history a watcher keeps of its own rounds (the exporter's
// --status, lag --watch --status): each group-partition's committed
// offset and log end as every round read them, over a window. They are
// samples, not commits (Partition.Sampled). The caller's loop owns it: it
// is not safe for concurrent use.
type Rounds struct {
	window time.Duration
	groups map[string]map[Key][]roundObs
}

// NewRounds is an empty history kept over window.
func NewRounds(window time.Duration) *Rounds {
	return &Rounds{window: window, groups: map[string]map[Key][]roundObs{}}
}

// RoundsStatus is a group's judgement from the rounds, and the partitions
// with lag seen in one round only (Pending).
type RoundsStatus struct {
	GroupStatus
	Pending []Key
}

// GroupPending reports whether the group's status is Pending: some
// partition is not judged yet and none judged is worse than OK (a judged
// WARN or worse stands: the group is at least that bad).
func (s RoundsStatus) GroupPending() bool {
	return len(s.Pending) > 0 && s.Status == OK
}

// Observe adds round at's rows of g to the history (Add) and judges the
// group from them (Judge).
func (r *Rounds) Observe(g lag.GroupLag, at time.Time, explain Explainer) RoundsStatus {
	r.Add(g, at)
	return r.Judge(g, at, explain)
}

// Add adds round at's rows of g to the history. A row whose read failed
// keeps its observations; a partition no longer read, or without a
// committed offset and lag, is forgotten. Observations older than the
// window go, but the newest of them stays (Judge).
func (r *Rounds) Add(g lag.GroupLag, at time.Time) {
	prev := r.groups[g.Group]
	cur := make(map[Key][]roundObs, len(g.Partitions))
	since := at.Add(-r.window)
	for _, p := range g.Partitions {
		k := Key{p.Topic, p.Partition}
		switch {
		case p.Error != "":
			if obs, ok := prev[k]; ok {
				cur[k] = obs
			}
		case p.Committed != nil && p.Lag != nil:
			obs := trim(prev[k], since)
			cur[k] = append(slices.Clip(obs), roundObs{at: at, committed: *p.Committed, end: *p.Committed + *p.Lag})
		}
	}
	r.groups[g.Group] = cur
}

// Judge judges g's rows from the rounds kept, at the last of them (at).
// A row without a committed offset is OK, NoCommit; one with lag seen in
// one round only is Pending. Two rounds are the least that can be judged,
// so a window that holds fewer (shorter than the interval, or a round
// that came late) is widened to the last two rounds, as sampling judges
// its two samples whatever the window: a stopped consumer is never OK for
// want of a second round.
func (r *Rounds) Judge(g lag.GroupLag, at time.Time, explain Explainer) RoundsStatus {
	return r.judge(g, at, explain, nil)
}

// JudgeCommits judges g's rows from the group's real commits (commits, by
// partition: the offsets topic's, not samples) against the log ends the
// rounds read. A history that does not end with the committed offset the
// round read is ended with it, at the round's time. Nothing is Pending:
// the commits are real from the first round.
func (r *Rounds) JudgeCommits(g lag.GroupLag, at time.Time, explain Explainer, commits map[Key][]Commit) RoundsStatus {
	if commits == nil {
		commits = map[Key][]Commit{}
	}
	return r.judge(g, at, explain, commits)
}

// judge is Judge (commits nil: the rounds' committed offsets are the
// samples) and JudgeCommits.
func (r *Rounds) judge(g lag.GroupLag, at time.Time, explain Explainer, commits map[Key][]Commit) RoundsStatus {
	kept := r.groups[g.Group]
	var ps []Partition
	var pending []Key
	oldest := at
	for _, p := range g.Partitions {
		k := Key{p.Topic, p.Partition}
		obs, ok := kept[k]
		switch {
		case p.Error != "":
			continue
		case p.Committed == nil || p.Lag == nil || !ok:
			ps = append(ps, Partition{Topic: p.Topic, Partition: p.Partition, Sampled: commits == nil})
			continue
		case len(obs) == 1 && *p.Lag > 0 && commits == nil:
			pending = append(pending, k)
		}
		if len(obs) > 1 && obs[len(obs)-2].at.Before(oldest) {
			oldest = obs[len(obs)-2].at
		}
		hp := roundsPartition(k, obs)
		if commits != nil {
			hp.Sampled, hp.Commits = false, realCommits(commits[k], *p.Committed, at)
		}
		ps = append(ps, hp)
	}
	o := Options{Window: r.window, Now: at, Explain: explain}
	if span := at.Sub(oldest); span > o.Window {
		o.Window = span
	}
	return RoundsStatus{GroupStatus: EvaluateGroup(g.Group, ps, o), Pending: pending}
}

// realCommits is a partition's real commit history ended with the
// committed offset a round read at at (both come from one reader at one
// moment; one that does not end so is ended with it).
func realCommits(cs []Commit, committed int64, at time.Time) []Commit {
	if n := len(cs); n == 0 || cs[n-1].Offset != committed {
		cs = append(slices.Clip(cs), Commit{Offset: committed, Time: at})
	}
	return cs
}

// trim drops the observations before since but the newest of them, and
// but the two newest moves (an offset that differs from the one before)
// with the observation before each: however old, they say how often the
// consumer moves its offset and since when it has stood. Without them a
// stopped consumer went STOP (standing longer than its moves took), then
// WARN once its moves left the window, then STOP again. At most four
// observations are kept beyond the window's.
func trim(obs []roundObs, since time.Time) []roundObs {
	i := 0
	for i+1 < len(obs) && obs[i+1].at.Before(since) {
		i++
	}
	var keep []int
	for j, moves := len(obs)-1, 0; j > 0 && moves < 2; j-- {
		if obs[j].committed == obs[j-1].committed {
			continue
		}
		moves++
		for _, k := range []int{j, j - 1} {
			if k < i && (len(keep) == 0 || keep[len(keep)-1] != k) {
				keep = append(keep, k)
			}
		}
	}
	if len(keep) == 0 {
		return obs[i:]
	}
	out := make([]roundObs, 0, len(keep)+len(obs)-i)
	for k := len(keep) - 1; k >= 0; k-- { // keep is newest first
		out = append(out, obs[keep[k]])
	}
	return append(out, obs[i:]...)
}

// roundsPartition is the evaluation input of one partition's
// observations.
func roundsPartition(k Key, obs []roundObs) Partition {
	p := Partition{Topic: k.Topic, Partition: k.Partition, Sampled: true,
		Commits: make([]Commit, len(obs)), LogEnds: make([]LogEnd, len(obs))}
	for j, o := range obs {
		p.Commits[j] = Commit{Offset: o.committed, Time: o.at}
		p.LogEnds[j] = LogEnd{Offset: o.end, Time: o.at, Paired: true, Committed: o.committed}
	}
	return p
}

// LogEnds is the log ends the rounds read of group's partitions, oldest
// first (the offsets-topic source's log end history in lag --watch);
// none from a nil Rounds.
func (r *Rounds) LogEnds(group string) map[Key][]LogEnd {
	out := map[Key][]LogEnd{}
	if r == nil {
		return out // no rounds: a single read (lag --status)
	}
	for k, obs := range r.groups[group] {
		for _, o := range obs {
			out[k] = append(out[k], LogEnd{Offset: o.end, Time: o.at, Paired: true, Committed: o.committed})
		}
	}
	return out
}

// Len is how many rounds of group's partition k are kept.
func (r *Rounds) Len(group string, k Key) int { return len(r.groups[group][k]) }

// Groups is how many groups have a history.
func (r *Rounds) Groups() int { return len(r.groups) }

// Forget drops the history of the groups keep says no to (a complete
// round that did not read them); keep nil drops every group.
func (r *Rounds) Forget(keep func(group string) bool) {
	forgetGroups(r.groups, keep)
}

// ApplyRounds writes a group's judgement from the rounds into its lag
// rows: a pending partition (and group) says Pending, honestly, rather
// than the OK one round would give.
func ApplyRounds(g *lag.GroupLag, s RoundsStatus, source string) {
	applyPending(g, s, source, pendingReason, "%d partition(s) with lag seen in one round only: judged from the next round")
}

// applyPending is Apply, then Pending on s's pending partitions (reason
// why) and on the group when nothing judged is worse than OK (groupWhy,
// formatted with their count).
func applyPending(g *lag.GroupLag, s RoundsStatus, source, why, groupWhy string) {
	Apply(g, s.GroupStatus, source)
	pending := make(map[Key]bool, len(s.Pending))
	for _, k := range s.Pending {
		pending[k] = true
	}
	for i := range g.Partitions {
		if r := &g.Partitions[i]; pending[Key{r.Topic, r.Partition}] {
			r.Status, r.StatusReason = Pending, why
		}
	}
	if s.GroupPending() {
		g.Status = Pending
		g.StatusReason = fmt.Sprintf(groupWhy, len(s.Pending))
	}
}

// pendingReason is a pending partition's reason.
const pendingReason = "seen in one round only: judged from the next round"

// forgetGroups deletes from m the groups keep says no to (keep nil: every
// group): the Forget of Rounds, TailState and Tail.
func forgetGroups[V any](m map[string]V, keep func(group string) bool) {
	for g := range m {
		if keep == nil || !keep(g) {
			delete(m, g)
		}
	}
}
