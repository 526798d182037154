package lag

import (
	"math"
	"time"
)

// Rates and the catch-up ETA, shared by `lag --watch` and the exporter.
//
// A rate is records per second over a sliding window. Kafka gives no
// counters for it, only positions: a group's committed offsets and a
// partition's log end. Between two gathers each position moves by a delta;
// the deltas of a group's partitions are added into one ever-growing total
// per group ("consumed") and per topic ("produced"). A negative delta (a
// reset backwards, a recreated topic, a partition that left the group) adds
// nothing, so totals never go down and a reset does not read as a burst of
// negative consumption. The rate is (total now − total at the oldest sample
// inside the window) / (time between them).
//
// Per partition only the previous position is kept; per group and per
// topic a short ring of (time, total) samples. Memory is one int64 per row
// plus a few samples per group, whatever the window.
//
// The catch-up ETA of a group with lag L > 0, consuming at C records/s
// while its partitions grow at P records/s, is L / (C − P) when C > P: lag
// shrinks by C − P each second. When C ≤ P the group is not catching up:
// no ETA, and falling_behind reads 1. A group without lag has ETA 0.

// maxSamples bounds the ring of samples kept per group and per topic.
const maxSamples = 64

type sample struct {
	at    time.Time
	total float64
}

// series is one growing total and its recent samples, oldest first.
type series struct {
	total   float64
	samples []sample
}

func (s *series) add(at time.Time, delta int64, window time.Duration) {
	if delta > 0 {
		s.total += float64(delta)
	}
	s.samples = append(s.samples, sample{at, s.total})
	// Keep one sample at or before the window's start, so the rate always
	// spans the whole window once enough history exists.
	for len(s.samples) > 2 && (at.Sub(s.samples[1].at) >= window || len(s.samples) > maxSamples) {
		s.samples = s.samples[1:]
	}
}

// rate is records/s over the window; ok is false before two samples.
func (s *series) rate() (float64, bool) {
	if s == nil || len(s.samples) < 2 {
		return 0, false
	}
	first, last := s.samples[0], s.samples[len(s.samples)-1]
	dt := last.at.Sub(first.at).Seconds()
	if dt <= 0 {
		return 0, false
	}
	return (last.total - first.total) / dt, true
}

// Rates tracks consume and produce rates across gathers. It is not safe
// for concurrent use: the gather loop owns it.
type Rates struct {
	window time.Duration
	// committed[group][tp] and logEnd[tp] are the previous
	// gather's positions.
	committed map[string]positions
	logEnd    positions
	consumed  map[string]*series // per group
	produced  map[string]*series // per group: growth of its partitions
	topicProd map[string]*series // per topic
	// spare is the positions of the round before the last, which nothing
	// holds any more (a group carried into the last round is left out):
	// the next round writes its positions over them. A new array per
	// group and round was 4 MB a round at 500 groups x 1,000 partitions.
	spare map[string]positions
}

// NewRates returns a tracker whose rates span window.
func NewRates(window time.Duration) *Rates {
	return &Rates{
		window:    window,
		committed: map[string]positions{},
		logEnd:    positions{},
		consumed:  map[string]*series{},
		produced:  map[string]*series{},
		topicProd: map[string]*series{},
	}
}

// Observe records one gather's report taken at at. Groups and topics that
// are no longer in the report are forgotten.
func (r *Rates) Observe(rep LagReport, at time.Time) {
	rr := r.Round(at)
	rr.Observe(rep)
	rr.End(true)
}

// RatesRound is one gather observed batch by batch: lag --watch streams a
// round a batch of groups at a time and shows each batch's Progress before
// the next is gathered. End makes the round the tracker's state.
type RatesRound struct {
	r          *Rates
	at         time.Time
	ends       positions
	endsSeen   map[string]int // how many of ends' positions are set, per topic
	topicDelta map[string]int64
	committed  map[string]positions
	consumed   map[string]*series
	produced   map[string]*series
	spare      map[string]positions // the tracker's spare, taken
	carried    map[string]bool      // groups whose positions are the last round's own
}

// Round starts observing a gather taken at at.
func (r *Rates) Round(at time.Time) *RatesRound {
	rr := &RatesRound{r: r, at: at, ends: positions{}, endsSeen: map[string]int{}, topicDelta: map[string]int64{},
		committed: map[string]positions{}, consumed: map[string]*series{}, produced: map[string]*series{},
		spare: r.spare, carried: map[string]bool{}}
	r.spare = nil
	return rr
}

// Observe records one batch of the round (each group once per round;
// a batch may be a single group). The rows of a topic come together (a
// report's are sorted), so each run of them looks its topic up once, not
// each row; a group's rows are read twice in a row (log ends, then
// commits), while they are in the cache.
func (rr *RatesRound) Observe(rep LagReport) {
	r := rr.r
	for _, g := range rep.Groups {
		rr.observeEnds(g.Partitions)
		if g.Error != "" {
			// Keep what is known of a group that could not be read this
			// round rather than restarting its rates.
			rr.carry(g.Group)
			continue
		}
		prevC, spare := r.committed[g.Group], rr.spare[g.Group]
		cur := positions{}
		var dc, dp int64
		var run topicRun
		for i := range g.Partitions {
			p := &g.Partitions[i] // a row is 176 bytes: not copied
			if p.Error != "" || p.Committed == nil || p.Partition < 0 {
				continue
			}
			if !run.on(p.Topic) {
				run.end(cur)
				run = topicRun{topic: p.Topic, started: true, cur: cur[p.Topic], prev: prevC[p.Topic], ends: r.logEnd[p.Topic]}
				if run.cur == nil {
					run.cur = reuse(spare, p.Topic, len(run.prev))
				}
			}
			c := *p.Committed
			run.cur = setAt(run.cur, p.Partition, c)
			if prev, ok := at(run.prev, p.Partition); ok {
				dc += max(c-prev, 0)
			}
			if prev, ok := at(run.ends, p.Partition); ok {
				dp += max(p.LogEnd-prev, 0) // 0 for an unknown end (-1): the ends kept are >= 0
			}
		}
		run.end(cur)
		rr.committed[g.Group] = cur
		rr.consumed[g.Group] = orNew(r.consumed[g.Group])
		rr.consumed[g.Group].add(rr.at, dc, r.window)
		rr.produced[g.Group] = orNew(r.produced[g.Group])
		rr.produced[g.Group].add(rr.at, dp, r.window)
	}
}

// observeEnds records the log ends of a group's rows not seen yet this
// round, and how much each topic grew since the last round. A group whose
// rows are one topic's partitions that all have their end already (the
// groups after the first on a topic) is not read row by row: 500 groups
// on one topic of 1,000 partitions were 499,000 rows looked at for
// nothing each round.
func (rr *RatesRound) observeEnds(rows []PartitionLag) {
	if rr.seenAll(rows) {
		return
	}
	var run topicRun
	var delta int64
	seen := 0
	flush := func() {
		if run.started {
			rr.ends[run.topic] = run.cur
			rr.topicDelta[run.topic] += delta
			rr.endsSeen[run.topic] += seen
		}
	}
	for i := range rows {
		p := &rows[i]
		if p.Error != "" || p.LogEnd < 0 || p.Partition < 0 {
			continue
		}
		if !run.on(p.Topic) {
			flush()
			run, delta, seen = topicRun{topic: p.Topic, started: true, cur: rr.ends[p.Topic], prev: rr.r.logEnd[p.Topic]}, 0, 0
			run.cur = sized(run.cur, len(run.prev))
		}
		if _, ok := at(run.cur, p.Partition); ok {
			continue
		}
		run.cur = setAt(run.cur, p.Partition, p.LogEnd)
		seen++
		if prev, ok := at(run.prev, p.Partition); ok { // a partition seen for the first time adds nothing
			delta += max(p.LogEnd-prev, 0)
		}
	}
	flush()
}

// seenAll reports whether rows (sorted) are of one topic whose every
// position up to their last partition has its end this round.
func (rr *RatesRound) seenAll(rows []PartitionLag) bool {
	n := len(rows)
	if n == 0 || rows[0].Topic != rows[n-1].Topic || rows[0].Partition < 0 {
		return false
	}
	ends := rr.ends[rows[0].Topic]
	return int(rows[n-1].Partition) < len(ends) && rr.endsSeen[rows[0].Topic] == len(ends)
}

// topicRun is a run of one topic's rows: the positions being written
// (cur) and those of the previous round (prev, ends), looked up once.
type topicRun struct {
	topic           string
	started         bool
	cur, prev, ends []int64
}

func (t *topicRun) on(topic string) bool { return t.started && t.topic == topic }

// end stores the run's positions in ps.
func (t *topicRun) end(ps positions) {
	if t.started {
		ps[t.topic] = t.cur
	}
}

// carry keeps a group's state from the previous round.
func (rr *RatesRound) carry(group string) {
	r := rr.r
	if prev, ok := r.committed[group]; ok {
		rr.committed[group], rr.consumed[group], rr.produced[group] = prev, r.consumed[group], r.produced[group]
		rr.carried[group] = true
	}
}

// Progress is g's progress as of this round, nil before two gathers of it.
func (rr *RatesRound) Progress(g GroupLag) *Progress {
	return progress(rr.consumed[g.Group], rr.produced[g.Group], g.TotalLag)
}

// End makes the round the tracker's state. A complete round forgets the
// groups and topics it did not see; an incomplete one (a later batch
// failed) keeps them as they were, so the next round's deltas start from
// the last positions seen.
func (rr *RatesRound) End(complete bool) {
	r := rr.r
	if !complete {
		for g := range r.committed {
			if _, seen := rr.committed[g]; !seen {
				rr.carry(g)
			}
		}
		for t, ends := range r.logEnd {
			for p, v := range ends {
				if _, seen := rr.ends.get(t, int32(p)); !seen && v != noPosition {
					rr.ends.set(t, int32(p), v)
				}
			}
		}
	}
	topicProd := map[string]*series{}
	for t, d := range rr.topicDelta {
		topicProd[t] = orNew(r.topicProd[t])
		topicProd[t].add(rr.at, d, r.window)
	}
	if !complete {
		for t, s := range r.topicProd {
			if _, seen := topicProd[t]; !seen {
				topicProd[t] = s
			}
		}
	}
	spare := r.committed
	for g := range rr.carried {
		delete(spare, g) // the round holds them still
	}
	r.committed, r.logEnd, r.consumed, r.produced, r.topicProd = rr.committed, rr.ends, rr.consumed, rr.produced, topicProd
	r.spare = spare
}

// positions are one group's committed offsets: per topic, a slice indexed
// by partition (noPosition where the group has none). A map entry per
// partition cost about 40 bytes, held twice while a round replaces the
// last: 40 MB of the exporter's 75 MB peak of rates at 500 groups x 1,000
// partitions (bench/exporter.md); this is 8 bytes a partition.
type positions map[string][]int64

// noPosition marks a partition without a committed offset (Kafka's
// offsets are never negative, its "none" is -1).
const noPosition = math.MinInt64

func (ps positions) set(topic string, partition int32, offset int64) {
	if partition < 0 {
		return // not a partition Kafka names; nothing to keep
	}
	ps[topic] = setAt(ps[topic], partition, offset)
}

func (ps positions) get(topic string, partition int32) (int64, bool) {
	return at(ps[topic], partition)
}

// setAt is s with s[partition] = offset, grown with noPosition as needed
// (partition >= 0).
func setAt(s []int64, partition int32, offset int64) []int64 {
	for len(s) <= int(partition) {
		s = append(s, noPosition)
	}
	s[partition] = offset
	return s
}

// reuse is spare's positions of topic emptied, with room for n; a new
// slice when it has none that large. A group's topic takes it once a
// round: its positions then live in the round's map (cur).
func reuse(spare positions, topic string, n int) []int64 {
	if s := spare[topic]; cap(s) >= n {
		return s[:0]
	}
	return make([]int64, 0, n)
}

// sized is s, or when s is nil (a topic's first row this round) an empty
// slice with room for n positions (the last round's partitions), so that
// setAt does not grow it a partition at a time.
func sized(s []int64, n int) []int64 {
	if s == nil {
		return make([]int64, 0, n)
	}
	return s
}

// at is s[partition], when s has a position there.
func at(s []int64, partition int32) (int64, bool) {
	if partition < 0 || int(partition) >= len(s) || s[partition] == noPosition {
		return 0, false
	}
	return s[partition], true
}

func orNew(s *series) *series {
	if s == nil {
		return &series{}
	}
	return s
}

// ConsumeRate is the group's commits, records/s.
func (r *Rates) ConsumeRate(group string) (float64, bool) { return r.consumed[group].rate() }

// ProduceRate is the growth of a topic's log ends, records/s.
func (r *Rates) ProduceRate(topic string) (float64, bool) { return r.topicProd[topic].rate() }

// GroupProduceRate is the growth of the log ends of the partitions a group
// has commits on, records/s.
func (r *Rates) GroupProduceRate(group string) (float64, bool) { return r.produced[group].rate() }

// CatchUp is a group's ETA to zero lag. known is false until both rates
// exist; behind is true when the group has lag and does not gain on it
// (then seconds is meaningless).
func (r *Rates) CatchUp(group string, lag int64) (seconds float64, behind, known bool) {
	c, okC := r.ConsumeRate(group)
	p, okP := r.GroupProduceRate(group)
	return CatchUp(lag, c, p, okC && okP)
}

// CatchUp is the ETA formula (see the package comment): lag / (consume −
// produce) when the group gains, 0 without lag.
func CatchUp(lag int64, consume, produce float64, known bool) (seconds float64, behind, ok bool) {
	switch {
	case lag <= 0:
		return 0, false, true
	case !known:
		return 0, false, false
	case consume > produce:
		return float64(lag) / (consume - produce), false, true
	default:
		return 0, true, true
	}
}

// Progress is a group's movement across gathers: what `lag --watch` shows
// from its second round on, and what the exporter exports.
type Progress struct {
	// ConsumeRate is the records/s the group commits past.
	ConsumeRate float64 `json:"consume_rate"`
	// ProduceRate is the records/s its committed partitions grow.
	ProduceRate float64 `json:"produce_rate"`
	// CatchUpSeconds is the ETA to zero lag; nil when the group does not
	// gain on its lag (FallingBehind).
	CatchUpSeconds *float64 `json:"catchup_seconds"`
	FallingBehind  bool     `json:"falling_behind"`
}

// Progress is g's progress, nil before two gathers of it.
func (r *Rates) Progress(g GroupLag) *Progress {
	return progress(r.consumed[g.Group], r.produced[g.Group], g.TotalLag)
}

func progress(consumed, produced *series, lag int64) *Progress {
	c, okC := consumed.rate()
	p, okP := produced.rate()
	if !okC || !okP {
		return nil
	}
	secs, behind, _ := CatchUp(lag, c, p, true)
	pr := &Progress{ConsumeRate: c, ProduceRate: p, FallingBehind: behind}
	if !behind {
		pr.CatchUpSeconds = &secs
	}
	return pr
}
