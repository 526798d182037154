package exporter

import (
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/offsetctl/offsetctl/internal/health"
	"github.com/offsetctl/offsetctl/internal/lag"
)

// Health statuses (issue 23, docs/health.md): with Options.Status the
// exporter judges every group from its own rounds, the committed offset
// and log end each gather already reads (no extra request), kept over
// Options.StatusWindow. They are samples, not commits: a consumer that
// commits the same offset again looks like one that commits nothing, so
// from rounds an offset that does not move under lag is STOP, never STALL
// (health.Partition.Sampled).

var (
	famGroupStatus = &family{"kafka_consumergroup_status",
		"1 for a consumer group's current health status (OK, WARN, REWIND, STALL or STOP, its worst partition's, judged from the exporter's rounds over --status-window as Burrow does; docs/health.md), 0 for the others. Absent until --status is set.", []string{"consumergroup", "status"}}
	famPartitionStatus = &family{"kafka_consumergroup_partition_status",
		"1 for a group-partition's current health status, 0 for the others (--status-partitions).", []string{"consumergroup", "partition", "status", "topic"}}
)

// statusObs is one round's observation of a group-partition.
type statusObs struct {
	at             time.Time
	committed, end int64
}

type statusKey struct {
	topic     string
	partition int32
}

// statusHist is the observations of each group-partition within the
// status window, oldest first, by group. The gather loop owns it.
type statusHist map[string]map[statusKey][]statusObs

// statusOptions are a judgement's inputs besides the round's rows.
type statusOptions struct {
	window  time.Duration
	explain health.Explainer
	// real: the commits are the group's real ones (the offsets topic),
	// commits their history by partition; else the rounds' committed
	// offsets are samples of them (health.Partition.Sampled).
	real    bool
	commits map[health.Key][]health.Commit
}

// judgeStatus adds this round's rows of g to the history and writes the
// judgement into next (g's state this round): the group's status and each
// row's. A row whose read failed keeps its observations and its last
// status (carried, stale); a partition no longer read is forgotten.
func (h statusHist) judgeStatus(g lag.GroupLag, next *groupState, now time.Time, o statusOptions) {
	if next == nil || g.Error != "" {
		return // carried whole, status included
	}
	prev := h[g.Group]
	cur := make(map[statusKey][]statusObs, len(g.Partitions))
	var ps []health.Partition
	since := now.Add(-o.window)
	for _, p := range g.Partitions {
		k := statusKey{p.Topic, p.Partition}
		if p.Error != "" {
			if obs, ok := prev[k]; ok {
				cur[k] = obs
			}
			continue
		}
		lag, ok := rowLag(p)
		if !ok {
			continue
		}
		obs := prev[k]
		// Observations older than the window go; the newest of them is
		// kept as where the window starts from.
		i := 0
		for i+1 < len(obs) && obs[i+1].at.Before(since) {
			i++
		}
		obs = append(slices.Clip(obs[i:]), statusObs{at: now, committed: *p.Committed, end: *p.Committed + lag})
		cur[k] = obs
		ps = append(ps, statusPartition(p, obs, o))
	}
	h[g.Group] = cur
	gs := health.EvaluateGroup(g.Group, ps, health.Options{Window: o.window, Now: now, Explain: o.explain})
	next.status, next.judged = gs.Status, true
	next.eachTopic(func(topic string, rows []rowState) {
		for i := range rows {
			if rows[i].stale {
				next.status = max(next.status, health.Status(rows[i].status))
				continue
			}
			if r, ok := gs.Lookup(topic, rows[i].partition); ok {
				rows[i].status = uint8(r.Status)
			}
		}
	})
}

// statusPartition is what is judged of row p: the log ends of the rounds
// (obs), and the commits, the rounds' samples or the real ones. The real
// history ends with the committed offset the round read (both come from
// the tailer at one moment); one that does not is ended with it, at the
// round's time.
func statusPartition(p lag.PartitionLag, obs []statusObs, o statusOptions) health.Partition {
	hp := health.Partition{Topic: p.Topic, Partition: p.Partition, Sampled: !o.real, LogEnds: make([]health.LogEnd, len(obs))}
	for j, ob := range obs {
		hp.LogEnds[j] = health.LogEnd{Offset: ob.end, Time: ob.at}
	}
	if o.real {
		cs := o.commits[health.Key{Topic: p.Topic, Partition: p.Partition}]
		if n := len(cs); n == 0 || cs[n-1].Offset != *p.Committed {
			cs = append(slices.Clip(cs), health.Commit{Offset: *p.Committed, Time: obs[len(obs)-1].at})
		}
		hp.Commits = cs
		return hp
	}
	hp.Commits = make([]health.Commit, len(obs))
	for j, ob := range obs {
		hp.Commits[j] = health.Commit{Offset: ob.committed, Time: ob.at}
	}
	return hp
}

// forget drops the history of the groups not in keep (a complete gather
// that did not read them, or a read that said they are gone).
func (h statusHist) forget(keep map[string]*groupState) {
	for _, g := range slices.Collect(maps.Keys(h)) {
		if _, ok := keep[g]; !ok {
			delete(h, g)
		}
	}
}

// writeStatus writes group name's status lines of f: one series per
// status, 1 for the current one (the kube-state-metrics way, so an alert
// is `kafka_consumergroup_status{status="STOP"} == 1`).
func writeStatus(pw *pageWriter, f *family, name string, g *groupState, partitions bool) {
	if !g.judged {
		return
	}
	switch f {
	case famGroupStatus:
		for _, s := range health.Statuses() {
			pw.add(b2f(s == g.status), name, s.String())
		}
	case famPartitionStatus:
		if !partitions {
			return
		}
		g.eachTopic(func(topic string, rows []rowState) {
			for _, r := range rows {
				part := strconv.Itoa(int(r.partition))
				for _, s := range health.Statuses() {
					pw.add(b2f(uint8(s) == r.status), name, part, s.String(), topic)
				}
			}
		})
	}
}
