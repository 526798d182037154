package health

import (
	"sort"
	"time"

	"github.com/offsetctl/offsetctl/internal/lag"
)

// The sources of commits, as lag --status and its JSON name them.
const (
	SourceOffsetsTopic = "offsets-topic"
	SourceSample       = "sample"
)

// FromHistory is the evaluation input of one group of a lag report: each
// row without an error (a row without a commit has no commits: OK, "no
// commit to judge"), its commits read from the offsets topic, the log ends
// observed at the sample times, and the row's own log end at the report's
// time at.
//
// The history is read after the report, so a consumer that goes on
// committing has commits in it newer than the row's: the history is cut
// after the last commit of the row's offset, and log ends after at are
// dropped, so that the commits and log ends judged are those of one
// moment. (Appending the row's older offset after the newer commits made a
// live consumer look rewound: "went back from 24 to 22".) A row whose
// commit is not in the history: with no history (made before the window)
// it is a commit of unknown time; above the history's last (made while the
// history was read, or held back by an open transaction in the offsets
// topic) a commit at at; below it, the history is judged as read.
func FromHistory(g lag.GroupLag, hist map[Key][]Commit, ends map[Key][]LogEnd, at time.Time) []Partition {
	var out []Partition
	for _, r := range g.Partitions {
		if r.Error != "" {
			continue
		}
		if r.Committed == nil {
			out = append(out, Partition{Topic: r.Topic, Partition: r.Partition})
			continue
		}
		k := Key{r.Topic, r.Partition}
		cs := upTo(hist[k], *r.Committed)
		if len(cs) == 0 {
			cs = []Commit{{Offset: *r.Committed}}
		} else if last := cs[len(cs)-1].Offset; last < *r.Committed {
			cs = append(cs, Commit{Offset: *r.Committed, Time: at})
		}
		var es []LogEnd
		for _, e := range ends[k] {
			if !e.Time.After(at) {
				es = append(es, e)
			}
		}
		es = append(es, LogEnd{Offset: r.LogEnd, Time: at, Paired: true, Committed: *r.Committed})
		out = append(out, Partition{Topic: r.Topic, Partition: r.Partition, Commits: cs, LogEnds: es})
	}
	return out
}

// upTo is a copy of cs cut after the last commit of offset off, or all of
// cs when off is not in it.
func upTo(cs []Commit, off int64) []Commit {
	n := len(cs)
	for i := len(cs) - 1; i >= 0; i-- {
		if cs[i].Offset == off {
			n = i + 1
			break
		}
	}
	return append([]Commit(nil), cs[:n]...)
}

// Sample is a partition's committed offset (nil: none) and log end as
// read by a later round.
type Sample struct {
	Committed *int64
	LogEnd    int64
}

// FromSamples is the evaluation input of one group from two samples: the
// rows of the later report g (read at t1, the rows shown), each with what
// the earlier read (t0) had for it in earlier. A row without a commit has
// no commits (OK, "no commit to judge"). A row whose commit the earlier
// read did not have (its first commit came between the samples, or its
// log end could not be read then) has one sample, and with lag it is
// pending: one sample cannot tell a stopped consumer from a moving one.
// A partition the earlier read had and the later one does not (its
// offset deleted meanwhile) is not judged: it is not among the rows.
func FromSamples(earlier map[Key]Sample, t0 time.Time, g lag.GroupLag, t1 time.Time) (ps []Partition, pending []Key) {
	for _, r := range g.Partitions {
		if r.Error != "" {
			continue
		}
		if r.Committed == nil {
			ps = append(ps, Partition{Topic: r.Topic, Partition: r.Partition, Sampled: true})
			continue
		}
		k := Key{r.Topic, r.Partition}
		p := Partition{Topic: r.Topic, Partition: r.Partition, Sampled: true}
		if s, ok := earlier[k]; ok && s.Committed != nil && s.LogEnd >= 0 {
			p.Commits = append(p.Commits, Commit{*s.Committed, t0})
			p.LogEnds = append(p.LogEnds, LogEnd{Offset: s.LogEnd, Time: t0})
		} else if r.LogEnd > *r.Committed { // lag
			pending = append(pending, k)
		}
		p.Commits = append(p.Commits, Commit{*r.Committed, t1})
		if r.LogEnd >= 0 {
			p.LogEnds = append(p.LogEnds, LogEnd{Offset: r.LogEnd, Time: t1})
		}
		ps = append(ps, p)
	}
	return ps, pending
}

// Apply writes a group's judgement into its lag rows.
func Apply(g *lag.GroupLag, gs GroupStatus, source string) {
	g.Status, g.StatusReason, g.StatusSource = gs.Status.String(), gs.Reason, source
	for i := range g.Partitions {
		r := &g.Partitions[i]
		if ps, ok := gs.Lookup(r.Topic, r.Partition); ok {
			r.Status, r.StatusReason = ps.Status.String(), ps.Reason
		}
	}
}

// SampleTimes picks at most n of the commit times in a group's history
// (the first and last kept, the rest evenly between) to list log ends at:
// a group's commits share their request's timestamp, so a few times cover
// all its partitions. Burrow keeps 10 commits per partition.
func SampleTimes(hist map[Key][]Commit, n int) []time.Time {
	seen := map[int64]bool{}
	var all []time.Time
	for _, cs := range hist {
		for _, c := range cs {
			if ms := c.Time.UnixMilli(); !c.Time.IsZero() && !seen[ms] {
				seen[ms] = true
				all = append(all, c.Time)
			}
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].Before(all[j]) })
	if n < 2 || len(all) <= n {
		return all
	}
	out := make([]time.Time, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, all[i*(len(all)-1)/(n-1)])
	}
	return out
}
