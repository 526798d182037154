package exporter

import (
	"context"
	"time"

	"github.com/offsetctl/offsetctl/internal/cluster"
	"github.com/offsetctl/offsetctl/internal/lag"
)

// timeKey names the first record at or after an offset of a partition.
type timeKey struct {
	topic     string
	partition int32
	offset    int64
}

// timeCache maps a timeKey to the record's timestamp (Unix ms). A record's
// timestamp never changes, so while a group's next offset stays put its
// time lag is now − that timestamp with no read at all: a gather reads the
// log only for positions whose next offset moved, once per round (a
// position read for one batch serves every later batch of the round: the
// groups of a fleet share positions), and none for a stuck group. It is
// one map kept across rounds: each entry says the round that last used
// it, and prune drops those the latest round did not use, so a round
// neither copies the cache nor rebuilds it.
//
// A fleet's cache holds a position per lagging partition (500,000 for 500
// groups of 1,000), looked up every round: its map is keyed by a number
// per topic, not the name, and holds an index into entries, not the
// entry, so that it has no pointer for the collector to scan, a key is
// compared without a string, and marking an entry used is a write to the
// slice, not a second map operation (bench/exporter_tail.md).
type timeCache struct {
	at      map[posKey]int32 // a position's index in entries
	entries []timeEntry
	free    []int32 // indexes of entries no position holds
	round   uint64  // the round in progress (begin)
	// topics numbers the topics of the positions; a number is never
	// given twice, so a topic dropped (unused by a round, or created
	// again) leaves its old positions unreachable until prune drops them.
	topics map[string]topicNum
	next   uint32
	last   lastTopic // the topic numbered last this round
	// ids is the topic id each topic's positions were read under: a topic
	// deleted and created again has a new id and, at the same offsets,
	// other records (identify).
	ids map[string]topicID
	// vals lends fillTimeLag the time lags of a batch's rows.
	vals []int64
	// renamed is the topics identify found created again this round:
	// their rows' earlier time lags say nothing of the records there now.
	renamed map[string]bool
}

// posKey is a timeKey with its topic numbered (timeCache.topics).
type posKey struct {
	topic     uint32
	partition int32
	offset    int64
}

// topicNum is a topic's number and the round that last used it.
type topicNum struct {
	n     uint32
	round uint64
}

// lastTopic saves a map look-up per row: a group's rows of a topic come
// one after the other.
type lastTopic struct {
	name string
	n    uint32
	ok   bool
}

// timeEntry is a cached timestamp and the round that last used it.
type timeEntry struct {
	ms    int64
	round uint64
}

// topicID is a topic's id and the round that last looked it up.
type topicID struct {
	id    [16]byte
	round uint64
}

// begin starts a round: what it uses or reads is marked with it.
func (c *timeCache) begin() {
	if c.at == nil {
		c.at, c.topics = map[posKey]int32{}, map[string]topicNum{}
	}
	c.round++
	c.last = lastTopic{}
	clear(c.renamed)
}

// key is k with its topic's number, marked used this round; ok is false
// for a topic with none when create is false.
func (c *timeCache) key(k timeKey, create bool) (posKey, bool) {
	if !c.last.ok || c.last.name != k.topic {
		t, ok := c.topics[k.topic]
		if !ok {
			if !create {
				return posKey{}, false
			}
			t = topicNum{n: c.next}
			c.next++
		}
		if !ok || t.round != c.round {
			t.round = c.round
			c.topics[k.topic] = t
		}
		c.last = lastTopic{name: k.topic, n: t.n, ok: true}
	}
	return posKey{c.last.n, k.partition, k.offset}, true
}

// get is the timestamp cached for k, marking it used this round.
func (c *timeCache) get(k timeKey) (int64, bool) {
	pk, ok := c.key(k, false)
	if !ok {
		return 0, false
	}
	i, ok := c.at[pk]
	if !ok {
		return 0, false
	}
	e := &c.entries[i]
	e.round = c.round
	return e.ms, true
}

// put caches k's timestamp, used this round.
func (c *timeCache) put(k timeKey, ms int64) {
	pk, _ := c.key(k, true)
	e := timeEntry{ms: ms, round: c.round}
	if i, ok := c.at[pk]; ok {
		c.entries[i] = e
		return
	}
	var i int32
	if n := len(c.free); n > 0 {
		i, c.free = c.free[n-1], c.free[:n-1]
		c.entries[i] = e
	} else {
		i = int32(len(c.entries))
		c.entries = append(c.entries, e)
	}
	c.at[pk] = i
}

// keep caches the positions whose records g's rows measured (g is a
// group's state on the page), for a round that carries its rows stale
// (the group or a partition not read): the page's rows of a commit that
// stayed put give the next round its time lag (pageRows), but not once
// stale, as their time was another gather's. Where the commit has still
// not moved when the group is read again, the record at it is the same,
// so its time lag is exact from the cache, with no read: a read then
// missing its budget would have served the last value, stale. A fresh
// row's time lag was measured at its gather's time (g.read) on the record
// at its commit; a stale row's position was kept by the round that first
// carried it, and is marked used. A commit that was below the log start
// when measured (the log start's record, not the commit's) is never
// looked up: that would need the commit above a log start that only
// grows. Rows with a time lag of 0 (no record then) or carried (measured
// at another commit), and topics created again, give nothing.
func (c *timeCache) keep(g *groupState) {
	if g == nil || g.read.IsZero() {
		return
	}
	g.eachTopic(func(topic string, rows []rowState) {
		if c.renamed[topic] {
			return
		}
		for _, r := range rows {
			if r.timeLagStale || r.timeLagMs <= 0 {
				continue
			}
			k := timeKey{topic, r.partition, r.committed}
			if r.stale {
				c.get(k)
				continue
			}
			c.put(k, g.read.UnixMilli()-r.timeLagMs)
		}
	})
}

// len is how many positions are cached.
func (c *timeCache) len() int { return len(c.at) }

// identify takes the current id of topics (those the lookup answered): a
// topic whose id is not the one its positions were read under was deleted
// and created again, and its positions are dropped, as its offsets now
// hold other records (a group committing the same offset again would
// otherwise keep the old record's time lag while it stays there): its
// number goes with them, and its next position gets a new one.
func (c *timeCache) identify(ids map[string][16]byte) {
	if c.ids == nil {
		c.ids = map[string]topicID{}
	}
	var gone map[uint32]bool
	for t, id := range ids {
		if old, ok := c.ids[t]; ok && old.id != id {
			if c.renamed == nil {
				c.renamed = map[string]bool{}
			}
			c.renamed[t] = true
			if n, ok := c.topics[t]; ok {
				if gone == nil {
					gone = map[uint32]bool{}
				}
				gone[n.n] = true
				delete(c.topics, t)
			}
			c.last = lastTopic{}
		}
		c.ids[t] = topicID{id: id, round: c.round}
	}
	if gone != nil {
		for k, i := range c.at {
			if gone[k.topic] {
				delete(c.at, k)
				c.free = append(c.free, i)
			}
		}
	}
}

// prune drops the positions the round did not use (after a complete
// gather only: one that failed keeps what it did not reach), so the cache
// never outgrows the page, and the topics the round did not use.
func (c *timeCache) prune() {
	for k, i := range c.at {
		if c.entries[i].round != c.round {
			delete(c.at, k)
			c.free = append(c.free, i)
		}
	}
	if len(c.at) == 0 {
		c.entries, c.free = c.entries[:0], c.free[:0]
	}
	for t, e := range c.topics {
		if e.round != c.round {
			delete(c.topics, t)
		}
	}
	c.last = lastTopic{}
	for t, e := range c.ids {
		if e.round != c.round {
			delete(c.ids, t)
		}
	}
}

// readTimeLag is lag.FillTimeLag; a variable of the collector so tests
// can count reads.
type readTimeLag func(ctx context.Context, cfg cluster.Config, rep *lag.LagReport, iso lag.Isolation, now time.Time) (missed int, err error)

// nextOffset is the offset a lagging row's group reads next: its commit, or
// the log start once the commit has expired (lag.FillTimeLag's rule).
func nextOffset(p *lag.PartitionLag) int64 {
	if p.Committed != nil && *p.Committed > p.LogStart {
		return *p.Committed
	}
	return p.LogStart
}

// fillTimeLag sets TimeLagMs on rep's committed, lagging rows: from the
// group's row on the page (prev) where its commit has not moved, else from
// cache where the next offset is known, else by one lag.FillTimeLag over
// the rows that missed, within ctx, whose positions it caches. It returns
// how many rows got no time lag: not read in time, or the read failed
// (mergeGroup keeps their last value, stale; the round goes on, and is
// not complete).
//
// A row whose commit stayed put (most of a fleet's, every round) needs no
// look-up at all: the record at its commit is the one whose timestamp the
// page's row was measured against, at that gather's time, as long as the
// commit is not below the log start (then and now: the log start only
// moves up; below it, the next offset is the log start, which moves) and
// the topic was not created again. Found by walking the page's
// rows beside the group's (both sorted), no map: the map's look-ups were
// 9 % of the offsets-topic exporter's CPU at 500 groups x 1,000
// partitions (bench/exporter_tail.md).
func fillTimeLag(ctx context.Context, read readTimeLag, cfg cluster.Config, rep *lag.LagReport, iso lag.Isolation, now time.Time, cache *timeCache, prev map[string]*groupState) (missed int) {
	miss := lag.LagReport{Isolation: rep.Isolation}
	type at struct{ g, p int }
	var back []at
	n := 0
	for _, g := range rep.Groups {
		n += len(g.Partitions)
	}
	// The rows' time lags, in an array every batch writes again: the
	// rows hold them only until the batch's next state is merged.
	if cap(cache.vals) < n {
		cache.vals = make([]int64, n)
	}
	vals := cache.vals[:n]
	v := 0
	for gi, g := range rep.Groups {
		var rows []lag.PartitionLag
		page := pageRows{g: prev[g.Group], renamed: cache.renamed}
		for pi := range g.Partitions {
			p := &g.Partitions[pi] // a row is 176 bytes: not copied
			lag, ok := rowLag(p)
			if !ok {
				continue // no lag series for these (see metrics.go)
			}
			if lag <= 0 {
				vals[v] = 0
				rep.Groups[gi].Partitions[pi].TimeLagMs = &vals[v]
				v++
				continue
			}
			if ts, ok := page.timestamp(p); ok {
				vals[v] = max(now.UnixMilli()-ts, 0)
				rep.Groups[gi].Partitions[pi].TimeLagMs = &vals[v]
				v++
				continue
			}
			if ts, ok := cache.get(timeKey{p.Topic, p.Partition, nextOffset(p)}); ok {
				vals[v] = max(now.UnixMilli()-ts, 0)
				rep.Groups[gi].Partitions[pi].TimeLagMs = &vals[v]
				v++
				continue
			}
			rows = append(rows, *p)
			back = append(back, at{gi, pi})
		}
		if len(rows) > 0 {
			miss.Groups = append(miss.Groups, lag.GroupLag{Group: g.Group, Partitions: rows})
		}
	}
	if len(back) == 0 {
		return 0
	}
	// Every row the read leaves without a time lag is missed, whatever
	// the read counted: it counts the rows cut by the deadline, not
	// those of a partition whose fetch failed, which have no time lag
	// either (their series was dropped, uncounted, on a page that read
	// complete).
	if _, err := read(ctx, cfg, &miss, iso, now); err != nil {
		return len(back)
	}
	i := 0
	for _, g := range miss.Groups {
		for j := range g.Partitions {
			p := &g.Partitions[j]
			dst := &rep.Groups[back[i].g].Partitions[back[i].p]
			i++
			dst.TimeLagMs, dst.Note = p.TimeLagMs, p.Note
			if p.TimeLagMs == nil {
				missed++
			}
			// Only a record actually found has a timestamp worth keeping;
			// 0 may also mean "only markers left", which a new record can
			// change.
			if p.TimeLagMs != nil && *p.TimeLagMs > 0 {
				cache.put(timeKey{p.Topic, p.Partition, nextOffset(p)}, now.UnixMilli()-*p.TimeLagMs)
			}
		}
	}
	return missed
}

// pageRows walks a group's rows on the page (g, nil when none) in step
// with its rows of this round, both sorted by topic, then partition.
type pageRows struct {
	g       *groupState
	renamed map[string]bool // topics created again this round
	run, i  int             // the run and row reached
	topic   string          // the topic of the rows asked last
	usable  bool            // whether that topic's page rows may be used
}

// timestamp is the timestamp of the record at p's committed offset, as
// the page's row of p measured it, when that row holds it: read (not
// stale, its time lag not carried either, its gather's time known) with a time lag above 0 (0 may mean no
// record there yet), at the same commit, not below the log start, on a
// topic not created again. p comes after the rows asked before.
func (w *pageRows) timestamp(p *lag.PartitionLag) (int64, bool) {
	g := w.g
	if g == nil || g.read.IsZero() || p.Committed == nil || *p.Committed < p.LogStart {
		return 0, false
	}
	if p.Topic != w.topic || w.topic == "" {
		w.topic = p.Topic
		for w.run < len(g.runs) && g.runs[w.run].topic < p.Topic {
			w.i = g.runs[w.run].end
			w.run++
		}
		w.usable = w.run < len(g.runs) && g.runs[w.run].topic == p.Topic && !w.renamed[p.Topic]
	}
	if !w.usable {
		return 0, false
	}
	end := g.runs[w.run].end
	for w.i < end && g.rows[w.i].partition < p.Partition {
		w.i++
	}
	if w.i == end {
		return 0, false
	}
	r := g.rows[w.i]
	if r.partition != p.Partition || r.stale || r.timeLagStale || r.timeLagMs <= 0 || r.committed != *p.Committed {
		return 0, false
	}
	return g.read.UnixMilli() - r.timeLagMs, true
}
