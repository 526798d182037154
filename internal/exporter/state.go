package exporter

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/offsetctl/offsetctl/internal/health"
	"github.com/offsetctl/offsetctl/internal/lag"
)

// rowState is what the page shows of one group-partition: the values of
// the last read of it that succeeded. Its topic is its run's (topicRun):
// 32 bytes a row, the bulk of the state at 500 groups x 1,000 partitions,
// held twice while a gather builds the next (bench/exporter.md).
type rowState struct {
	partition int32
	// stale: this gather's read of the partition failed; the values are
	// an earlier gather's.
	stale bool
	// timeLagStale: the offsets were read, but not the time lag (its
	// read missed the round's budget or failed, and no exact value was
	// known: the commit moved since it was measured, or it measured 0):
	// timeLagMs is an earlier gather's, marked stale like a failed
	// read's.
	timeLagStale bool
	// status is the row's health.Status (with Options.Status).
	status    uint8
	committed int64
	lag       int64
	timeLagMs int64 // -1: no time lag (never measured, or --time-lag off)
}

// topicRun says which rows are one topic's: rows[end of the run before
// : end].
type topicRun struct {
	topic string
	end   int
}

// groupState is what the page shows of one group. A gather builds the
// next state of every group it reads from the previous one: what it read
// replaces, what it failed to read is carried and marked stale. The page
// is written from it, so a failed read never shows as a missing series
// (which a sum or an alert reads as zero lag).
type groupState struct {
	members              int
	protocol, state, typ string
	// rates: the consume rate, catch-up ETA and falling-behind flag, each
	// when known (ok bits 1, 2, 4).
	consume, catchUp, behind float64
	ok                       uint8
	rows                     []rowState // sorted by topic, then partition
	runs                     []topicRun // the rows' topics, sorted; never changed once built
	// lastOK is when a gather last read the whole group (zero: never).
	lastOK time.Time
	// read is the time of the gather that read the rows not stale (its
	// now: their time lags were measured against it).
	read time.Time
	// stale: the group-level values (members, state, rates) are an
	// earlier gather's, as this one could not read the group.
	stale bool
	// status is the group's health (status.go), when judged; judgedRows
	// writes the rows' too (--status-partitions).
	status             health.Status
	judged, judgedRows bool
	// pending: the group is health.Pending (a partition with lag seen in
	// one round only, none judged worse): no group status series.
	pending bool
	// noMembers: the members are not known (--commit-source
	// offsets-topic describes no group): no members series.
	noMembers bool
}

const (
	okConsume = 1 << iota
	okCatchUp
	okBehind
)

// anyStale reports whether anything of the group shown is carried.
func (g *groupState) anyStale() bool {
	if g.stale {
		return true
	}
	for _, r := range g.rows {
		if r.stale || r.timeLagStale {
			return true
		}
	}
	return false
}

// carried is g as shown when a gather could not read the group at all:
// every value kept, every one marked stale.
func (g *groupState) carried() *groupState {
	c := *g
	c.stale = true
	c.rows = slices.Clone(g.rows)
	for i := range c.rows {
		c.rows[i].stale = true
	}
	return &c
}

// add appends the row r of topic (rows come sorted by topic, then
// partition).
func (g *groupState) add(topic string, r rowState) {
	if n := len(g.runs); n == 0 || g.runs[n-1].topic != topic {
		g.runs = append(g.runs, topicRun{topic: topic})
	}
	g.rows = append(g.rows, r)
	g.runs[len(g.runs)-1].end = len(g.rows)
}

// eachTopic calls fn with each topic of g and its rows, in order.
func (g *groupState) eachTopic(fn func(topic string, rows []rowState)) {
	start := 0
	for _, t := range g.runs {
		fn(t.topic, g.rows[start:t.end])
		start = t.end
	}
}

// row is g's row of a partition, if it has one.
func (g *groupState) row(topic string, partition int32) (rowState, bool) {
	if g == nil {
		return rowState{}, false
	}
	t, found := slices.BinarySearchFunc(g.runs, topic, func(r topicRun, topic string) int { return strings.Compare(r.topic, topic) })
	if !found {
		return rowState{}, false
	}
	start := 0
	if t > 0 {
		start = g.runs[t-1].end
	}
	rows := g.rows[start:g.runs[t].end]
	i, found := slices.BinarySearchFunc(rows, partition, func(r rowState, p int32) int { return cmp.Compare(r.partition, p) })
	if !found {
		return rowState{}, false
	}
	return rows[i], true
}

// lastTimeLag is the time lag g's row of a partition shows (ok: there is
// one), for a row whose time lag this round could not measure: the last
// value known, served stale. A missing series reads as no lag (a max()
// leaves it out, an alert on it clears), and the page must not read as
// fresh where it is not. g may be nil.
func (g *groupState) lastTimeLag(topic string, partition int32) (ms int64, ok bool) {
	if r, found := g.row(topic, partition); found && r.timeLagMs >= 0 {
		return r.timeLagMs, true
	}
	return -1, false
}

// mergeGroup is the next state of group g read this gather, given its
// previous state (nil when none), its rows written over spare when it has
// room (rows of a state no page can show any more: recycled). A group whose read failed (g.Error)
// keeps its previous state, all stale (nil when it has none: nothing
// known, nothing shown); a partition whose read failed keeps its previous
// row, stale (none when it had none). failedRows counts the partitions
// whose read failed; a group with any keeps its previous rates and
// lastOK, as a partial read is not a read of the whole group. With
// timeLag, a row read without a time lag (fillTimeLag could not measure
// it) keeps its previous row's, marked stale (timeLagStale; none when it
// had none), and the group keeps its previous lastOK: its lag series are
// this read's, so its rates are too. A group read whole gets its rates
// and ETA from progress, given g with the lag of its rows that have a
// series (groupLag's, summed here, in the one pass over its rows).
func mergeGroup(prev *groupState, g lag.GroupLag, protocol string, progress func(lag.GroupLag) *lag.Progress, now time.Time, spare []rowState, timeLag bool) (next *groupState, failedRows int, failed bool) {
	if g.Error != "" {
		if prev == nil {
			return nil, 0, true
		}
		return prev.carried(), 0, true
	}
	rows := spare[:0]
	if cap(rows) < len(g.Partitions) {
		rows = make([]rowState, 0, len(g.Partitions))
	}
	next = &groupState{members: g.Members, protocol: protocol, state: g.State, typ: g.Type, lastOK: now, read: now, rows: rows}
	var total int64
	unmeasured := false
	for i := range g.Partitions {
		p := &g.Partitions[i] // a row is 176 bytes: not copied
		if p.Error != "" {
			failedRows++
			if r, ok := prev.row(p.Topic, p.Partition); ok {
				r.stale = true
				next.add(p.Topic, r)
			}
			continue
		}
		lag, ok := rowLag(p)
		if !ok {
			continue // never committed: no series (see metrics.go)
		}
		total += lag
		r := rowState{partition: p.Partition, committed: *p.Committed, lag: lag, timeLagMs: -1}
		switch {
		case p.TimeLagMs != nil:
			r.timeLagMs = *p.TimeLagMs
		case timeLag:
			unmeasured = true
			r.timeLagMs, r.timeLagStale = prev.lastTimeLag(p.Topic, p.Partition)
		}
		next.add(p.Topic, r)
	}
	if unmeasured || failedRows > 0 {
		next.lastOK = time.Time{}
		if prev != nil {
			next.lastOK = prev.lastOK
		}
	}
	if failedRows > 0 {
		// Rates over part of the group's partitions would understate
		// its lag and its ETA: keep the last whole read's.
		if prev != nil {
			next.consume, next.catchUp, next.behind, next.ok = prev.consume, prev.catchUp, prev.behind, prev.ok
		}
		return next, failedRows, false
	}
	g.TotalLag = total
	if pr := progress(g); pr != nil {
		next.consume, next.behind, next.ok = pr.ConsumeRate, b2f(pr.FallingBehind), okConsume|okBehind
		if pr.CatchUpSeconds != nil {
			next.catchUp, next.ok = *pr.CatchUpSeconds, next.ok|okCatchUp
		}
	}
	return next, 0, false
}

// groupFamilies are the families written from the groups' state at
// scrape time (writeGroupFamily); the others are written once per gather.
var groupFamilies = map[*family]bool{famCurrentOffset: true, famLag: true, famLagSum: true, famLagSeconds: true,
	famMembers: true, famInfo: true, famConsumeRate: true, famCatchUp: true, famBehind: true,
	famCurrentOffsetSum: true, famLagStale: true, famGroupStale: true, famGroupLastOK: true,
	famGroupStatus: true, famPartitionStatus: true}

// writeGroupFamily writes group name's lines of family f.
func writeGroupFamily(pw *pageWriter, f *family, name string, g *groupState) {
	switch f {
	case famMembers:
		if !g.noMembers {
			pw.add(float64(g.members), name)
		}
	case famInfo:
		pw.add(1, name, g.protocol, g.state, g.typ)
	case famConsumeRate:
		if g.ok&okConsume != 0 {
			pw.add(g.consume, name)
		}
	case famCatchUp:
		if g.ok&okCatchUp != 0 {
			pw.add(g.catchUp, name)
		}
	case famBehind:
		if g.ok&okBehind != 0 {
			pw.add(g.behind, name)
		}
	case famGroupStale:
		pw.add(b2f(g.anyStale()), name)
	case famGroupStatus, famPartitionStatus:
		writeStatus(pw, f, name, g, g.judgedRows)
	case famGroupLastOK:
		if !g.lastOK.IsZero() {
			pw.add(float64(g.lastOK.UnixNano())/1e9, name)
		}
	case famLagSum, famCurrentOffsetSum:
		g.eachTopic(func(topic string, rows []rowState) {
			var sum int64
			for _, r := range rows {
				if f == famLagSum {
					sum += r.lag
				} else {
					sum += r.committed
				}
			}
			pw.add(float64(sum), name, topic)
		})
	default:
		writeRows(pw, f, name, g)
	}
}

// writeRows writes group name's per-partition lines of f. They are most
// of the page (a million at 500 groups x 1,000 partitions) and written at
// each scrape, so the escaped text of the labels that repeat (the cluster,
// the group, the topic of a run of rows) is made once, not per line.
func writeRows(pw *pageWriter, f *family, name string, g *groupState) {
	var head, tail []byte // `NAME{cluster="..",consumergroup="..",partition="` and `",topic=".."} `
	g.eachTopic(func(topic string, rows []rowState) {
		tail = tail[:0]
		for _, r := range rows {
			var v float64
			switch f {
			case famCurrentOffset:
				v = float64(r.committed)
			case famLag:
				v = float64(r.lag)
			case famLagSeconds:
				if r.timeLagMs < 0 {
					continue
				}
				v = float64(r.timeLagMs) / 1000
			case famLagStale:
				if !r.stale && !r.timeLagStale {
					continue
				}
				v = 1
			default:
				return
			}
			if head == nil {
				head = append(head, f.name...)
				sep := byte('{')
				if pw.cluster != "" {
					head = appendLabel(head, sep, "cluster", pw.cluster)
					sep = ','
				}
				head = appendLabel(head, sep, "consumergroup", name)
				head = append(head, `,partition="`...)
			}
			if len(tail) == 0 {
				tail = appendLabel(append(tail, '"'), ',', "topic", topic)
				tail = append(tail, '}', ' ')
			}
			pw.line(head, int64(r.partition), tail, v)
		}
	})
}

// gone reports whether the batch's read says group no longer exists (a
// describe that answered "no such group" and no commits): the one read,
// besides a complete gather that does not list it, after which a group
// leaves the page.
func gone(s *lag.Snapshot, group string) bool {
	gs, ok := s.Group(group)
	return ok && gs.Err == nil && gs.CommitErr == nil && !gs.Exists
}
