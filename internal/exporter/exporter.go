// Package exporter serves consumer-group lag as Prometheus metrics. One
// gather loop per cluster keeps the latest page; a scrape only serves it,
// so scrapes never reach Kafka and never pile up on it.
//
// A gather is complete or it says so: a group or partition it could not
// read keeps its last values, marked stale, and the gather's success is
// 0; a group leaves the page only after a complete gather that does not
// select it, or a read that says it does not exist (docs/exporter.md). A
// group named in the request that does not exist is a group not read, at
// every gather, and says so (offsetctl_consumergroup_missing): a typo or
// a deleted group must not read as a group without lag.
//
// Every number comes from lag.Gather and lag.ComputeLag, the same code
// as `offsetctl lag`, so the exporter and `lag -o json` agree.
package exporter

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/offsetctl/offsetctl/internal/cluster"
	"github.com/offsetctl/offsetctl/internal/health"
	"github.com/offsetctl/offsetctl/internal/lag"
)

// Options say what a Collector gathers and how often.
type Options struct {
	// Interval between the starts of two gathers; a gather that runs
	// longer is cut at Interval so rounds never overlap.
	Interval time.Duration
	// Request selects the groups (AllGroups with an optional Match) and
	// the isolation level.
	Request lag.GatherRequest
	// TimeLag reads the age of each lagging partition's next record.
	TimeLag bool
	// RateWindow is the span of the consume/produce rates.
	RateWindow time.Duration
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// Cluster, when set, is the cluster label of every lag series (one
	// Collector per --profile cluster).
	Cluster string
	// Status judges each group's health from the rounds over
	// StatusWindow (status.go); StatusPartitions writes each
	// partition's too.
	Status           bool
	StatusWindow     time.Duration
	StatusPartitions bool
	// CommitSource is where the committed offsets come from: SourcePoll
	// (the default when empty) or SourceOffsetsTopic (tail.go).
	CommitSource string
	// Warn, when set, is told when gathers start failing: of the first
	// gather that is not complete after a complete one (or the first of
	// all), with its cause, and not of the failed rounds after it (a
	// broker down for an hour is one line, not 240). With WarnChanges it
	// is told again whenever the error differs from the previous
	// gather's (the offsets topic: a warm-up, then an ACL missing).
	Warn        func(err error)
	WarnChanges bool
	// Recovered, when set, is told of the first complete gather after
	// failed ones it warned of, with how many failed in a row.
	Recovered func(failed int)
	// Missing, when set, is told when a group named in Request.Groups is
	// read as not existing after it was not (its first read, or it was
	// deleted: missing true), and when it is read as existing after it
	// was missing (missing false, rounds: the gathers in a row that read
	// it missing); not every round. A gather whose only failures are
	// missing named groups is not told to Warn: these lines say it.
	Missing func(group string, missing bool, rounds int)
	// Explain explains rewinds (an offsetctl reset in the audit log): a
	// rewind it explains is OK, not REWIND. nil explains none.
	Explain health.Explainer
}

// snapshot is what one gather produced; scrapes read it, never Kafka. It
// is never changed once published. The group families are written from
// state at each scrape (WriteText): the compact state is a fraction of
// their text, and the text of one gather is not held next to the next.
type snapshot struct {
	text   samples                // the topic and broker families, written once per gather
	groups []string               // state's names, sorted
	state  map[string]*groupState // by group
	named  []namedSample          // the named groups read so far, sorted: offsetctl_consumergroup_missing
	// readers counts the scrapes writing from it (WriteText). Once it is
	// no longer the latest and has none, no scrape can read it again,
	// and a gather writes its next rows over its rows (spare).
	readers atomic.Int32
}

// Collector gathers one cluster's lag on its own schedule and implements
// prometheus.Collector over the latest result.
type Collector struct {
	cfg  cluster.Config
	opts Options
	read readTimeLag
	open func() (gatherer, error)

	// owned by the gather loop
	rates     *lag.Rates
	cache     timeCache              // time-lag positions, kept across rounds
	state     map[string]*groupState // by group: what the latest page shows
	topicOffs topicOffsets           // the topics' offsets the latest page shows
	hist      *health.Rounds         // with opts.Status: the rounds judged
	named     map[string]namedState  // the groups of opts.Request.Groups: what reads said of them
	notes     []missingNote          // this gather's changes of named, for record to tell Missing

	// scraping counts the scrapes writing the page now (WriteText); a
	// gather waits for them between batches (yieldToScrapes).
	scraping atomic.Int32

	mu        sync.Mutex
	last      *snapshot // latest page; nil before the first gather that read anything
	retired   *snapshot // the page before last, until a gather recycles its rows
	lastOK    time.Time // when the latest complete gather finished
	lastDur   time.Duration
	lastFail  bool
	lastStats gatherStats
	errors    float64
	lastErr   string // the latest gather's error, as told to Warn
	failing   int    // gathers not complete since the latest complete one
	warned    bool   // Warn was due in this run of failing gathers
}

// namedState is what the reads said of a group named in the request (a
// GROUP argument or --group, not a match of --regex or --all-groups).
type namedState struct {
	read    bool // a read answered for it: its missing series is written
	missing int  // gathers in a row whose read said it does not exist (0: it exists)
}

// namedSample is one named group's offsetctl_consumergroup_missing.
type namedSample struct {
	group   string
	missing bool
}

// missingNote is a named group starting or ending being missing.
type missingNote struct {
	group   string
	missing bool
	rounds  int // with !missing: the gathers that read it missing
}

// gatherStats counts what one gather could not read.
type gatherStats struct {
	groupErrors, partitionErrors, timeLagMissed int
	// missing: of groupErrors, the named groups read as not existing
	// (each has its own stderr line: Options.Missing).
	missing int
	yielded time.Duration // waited for scrapes
}

// readAll: every selected group that exists and every one of their
// partitions was read (their offsets). A named group whose read said it
// does not exist was read: the answer is definite, it has its own series
// (offsetctl_consumergroup_missing) and alert, and it is counted in
// groupErrors. It does not make the gather incomplete: a typo among the
// named groups made offsetctl_gather_success 0 and the snapshot age grow
// at every gather, so "gather failing" and "lag stale" alerts fired for
// groups whose lag was read fresh each round.
func (s gatherStats) readAll() bool {
	return s.groupErrors == s.missing && s.partitionErrors == 0
}

// complete: read all, and every lagging partition's time lag measured. A
// time lag not measured is served as its last value, stale, so a page
// whose gather missed one must not read complete and fresh.
func (s gatherStats) complete() bool { return s.readAll() && s.timeLagMissed == 0 }

// gatherer is the part of a cluster admin client a gather needs: the lag
// of the selected groups, a batch of groups at a time.
type gatherer interface {
	stream(ctx context.Context, req lag.GatherRequest, each func(context.Context, lag.LagBatch) error) error
	close()
}

type adminGatherer struct{ adm *cluster.Admin }

// stream is `lag --all-groups`' gathering (lag.StreamLag): batches of
// lag.LagBatchGroups groups, each written out and dropped before the
// next is gathered, so a gather holds one batch and the text, not the
// whole report.
func (g adminGatherer) stream(ctx context.Context, req lag.GatherRequest, each func(context.Context, lag.LagBatch) error) error {
	return lag.StreamLag(ctx, g.adm, req, lag.LagOptions{Scope: req.Scope}, lag.StreamOptions{}, each)
}
func (g adminGatherer) close() { g.adm.Close() }

// New returns a Collector for the cluster cfg. Call Run to start gathering.
func New(cfg cluster.Config, opts Options) *Collector {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Interval <= 0 {
		opts.Interval = 15 * time.Second
	}
	if opts.RateWindow <= 0 {
		opts.RateWindow = 4 * opts.Interval
	}
	if opts.Status && opts.StatusWindow <= 0 {
		opts.StatusWindow = 10 * time.Minute
	}
	c := &Collector{cfg: cfg, opts: opts, read: lag.FillTimeLag, rates: lag.NewRates(opts.RateWindow), hist: health.NewRounds(opts.StatusWindow),
		named: make(map[string]namedState, len(opts.Request.Groups))}
	for _, g := range opts.Request.Groups {
		c.named[g] = namedState{}
	}
	c.open = func() (gatherer, error) {
		if opts.CommitSource == SourceOffsetsTopic {
			var window time.Duration
			if opts.Status {
				window = opts.StatusWindow
			}
			return newTailGatherer(cfg, opts.Status, window, 0)
		}
		adm, err := cfg.NewAdmin()
		if err != nil {
			return nil, err
		}
		return adminGatherer{adm}, nil
	}
	return c
}

// Run gathers at once and then every Interval until ctx ends.
func (c *Collector) Run(ctx context.Context) {
	g, err := c.open()
	if err != nil {
		c.record(nil, 0, gatherStats{}, err)
		return
	}
	defer g.close()
	t := time.NewTicker(c.opts.Interval)
	defer t.Stop()
	for {
		c.GatherOnce(ctx, g)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// GatherOnce runs one gather and publishes its page (or counts its
// failure).
func (c *Collector) GatherOnce(ctx context.Context, g gatherer) {
	start := c.opts.Now()
	ctx, cancel := context.WithTimeout(ctx, c.opts.Interval)
	defer cancel()
	snap, st, err := c.gather(ctx, g)
	c.record(snap, c.opts.Now().Sub(start), st, err)
}

// gather reads every selected group, a batch at a time, into the next
// state and its page. The time lag of a batch is read within what is left
// of the round's time-lag budget, half the interval, so the search never
// takes the time the batches after it need; what it could not read is
// counted, keeps its last value marked stale, and makes the round not
// complete.
func (c *Collector) gather(ctx context.Context, g gatherer) (*snapshot, gatherStats, error) {
	gr := &gatherRound{c: c, now: c.opts.Now(), text: samples{cluster: c.opts.Cluster, lines: map[*family][]byte{}},
		topics: map[string]bool{}, next: map[string]*groupState{}, dropped: map[string]bool{}, namedRead: map[string]bool{}, offs: topicOffsets{}}
	gr.rates = c.rates.Round(gr.now)
	if c.opts.TimeLag {
		c.cache.begin()
	}
	if h, ok := g.(commitHistorian); ok {
		gr.commits = h.commitHistory
	}
	_, gr.noMembers = g.(*tailGatherer)
	gr.ider, _ = g.(topicIdentifier)
	if l, ok := g.(interface{ lostReason(string) string }); ok {
		gr.lost = l.lostReason
	}
	gr.spare = c.spare()
	var cancel context.CancelFunc
	gr.tlCtx, cancel = context.WithTimeout(ctx, c.opts.Interval/2)
	defer cancel()
	err := g.stream(ctx, c.opts.Request, gr.batch)
	// A failed gather still moves the rates by what it saw (as lag
	// --watch does).
	gr.rates.End(err == nil)
	gr.finish(err)
	renderProduceRates(&gr.text, gr.topics, c.rates.ProduceRate)
	renderBrokers(&gr.text, g)
	return &snapshot{text: gr.text, groups: slices.Sorted(maps.Keys(gr.next)), state: gr.next, named: c.namedSamples()}, gr.st, err
}

// namedSamples is the missing series of the named groups read so far.
func (c *Collector) namedSamples() []namedSample {
	var out []namedSample
	for _, g := range slices.Sorted(maps.Keys(c.named)) {
		if n := c.named[g]; n.read {
			out = append(out, namedSample{group: g, missing: n.missing > 0})
		}
	}
	return out
}

// gatherRound is one gather in progress: the next state, built from the
// collector's (read only until finish).
type gatherRound struct {
	c       *Collector
	now     time.Time
	rates   *lag.RatesRound
	tlCtx   context.Context // ends at the round's time-lag budget
	text    samples         // the topic and broker families
	topics  map[string]bool // topics whose offsets are written
	next    map[string]*groupState
	dropped map[string]bool // groups a read said no longer exist
	// namedRead is what this round's reads said of the named groups
	// they answered for: true, it does not exist.
	namedRead map[string]bool
	offs      topicOffsets
	st        gatherStats
	// commits, when the gatherer knows the real commits (the offsets
	// topic), is a group's commit history: the status is judged from it.
	commits func(group string) map[health.Key][]health.Commit
	// noMembers: the gatherer describes no group (the offsets topic), so
	// the members are unknown and kafka_consumergroup_members not written.
	noMembers bool
	ider      topicIdentifier // nil: the topics' ids are not checked
	// lost, when the gatherer knows it, is why a group's commits cannot
	// be known this round ("" when they can): the group is a failed read.
	lost  func(group string) string
	asked map[string]bool // topics whose ids this round looked up
	// spare is a page's state that no scrape reads any more, whose rows
	// the round writes its groups' rows over (spareRows): a round at 500
	// groups x 1,000 partitions wrote 16 MB of new rows, and writing
	// them to memory the runtime had just returned to the system was 12 %
	// of the offsets-topic exporter's CPU (bench/exporter_tail.md).
	spare map[string]*groupState
}

// spare is the state of the page before the latest when no scrape reads
// it (nil otherwise), taken from the collector: its rows are the next
// round's to write over. The page before the latest gets no new readers
// (WriteText takes the latest, and counts itself, under mu), so none now
// means none ever.
func (c *Collector) spare() map[string]*groupState {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := c.retired
	if r == nil || r.readers.Load() != 0 {
		return nil
	}
	c.retired = nil
	return r.state
}

// spareRows is group's spare rows (nil when none), each given once.
func (gr *gatherRound) spareRows(group string) []rowState {
	s, ok := gr.spare[group]
	if !ok || s == nil {
		return nil
	}
	rows := s.rows
	s.rows = nil
	return rows
}

// unidentified is the topics of rep whose ids the round has not looked up
// yet (each topic once a round, not once a batch); none without ider.
func (gr *gatherRound) unidentified(rep lag.LagReport) []string {
	if gr.ider == nil {
		return nil
	}
	if gr.asked == nil {
		gr.asked = map[string]bool{}
	}
	var out []string
	for _, t := range reportTopics(rep) {
		if !gr.asked[t] {
			gr.asked[t] = true
			out = append(out, t)
		}
	}
	return out
}

// batch takes one batch of groups: their time lag, rates, next state and
// topic offsets.
func (gr *gatherRound) batch(bctx context.Context, b lag.LagBatch) error {
	c, rep := gr.c, b.Report
	if c.opts.TimeLag {
		fctx, cancel := withEarlierDeadline(bctx, gr.tlCtx)
		if ts := gr.unidentified(rep); len(ts) > 0 {
			c.cache.identify(gr.ider.topicIDs(fctx, ts))
		}
		missed := fillTimeLag(fctx, c.read, c.cfg, &rep, c.opts.Request.Isolation, gr.now, &c.cache, c.state)
		cancel()
		gr.st.timeLagMissed += missed
	}
	protocol := protocols(b.Snapshot)
	for i, gl := range rep.Groups {
		// A group at a time, so that its rows are still in the cache
		// for mergeGroup (the rates of a group are its own, and the log
		// ends a round records do not depend on the order of groups).
		gr.rates.Observe(lag.LagReport{Groups: rep.Groups[i : i+1]})
		_, named := c.named[gl.Group]
		if gone(b.Snapshot, gl.Group) {
			gr.dropped[gl.Group] = true
			if named {
				// Named, so wanted: a typo, or a group deleted. Not
				// read, as a describe that failed is not: its absence
				// must not read as a group without lag.
				gr.namedRead[gl.Group] = true
				gr.st.groupErrors++
				gr.st.missing++
			}
			continue
		}
		if gr.lost != nil {
			if why := gr.lost(gl.Group); why != "" {
				gl.Error = why
			}
		}
		if named && gl.Error == "" {
			gr.namedRead[gl.Group] = false
		}
		gs, failedRows, failed := mergeGroup(c.state[gl.Group], gl, protocol[gl.Group], gr.rates.Progress, gr.now, gr.spareRows(gl.Group), c.opts.TimeLag)
		gr.st.partitionErrors += failedRows
		if failed {
			gr.st.groupErrors++
		}
		if c.opts.TimeLag && (failed || failedRows > 0) {
			c.cache.keep(c.state[gl.Group])
		}
		if gs != nil && c.opts.Status {
			var hist map[health.Key][]health.Commit
			if gr.commits != nil {
				hist = gr.commits(gl.Group)
			}
			judgeStatus(c.hist, gl, gs, gr.now, statusOptions{explain: c.opts.Explain, commits: hist, real: gr.commits != nil})
			gs.judgedRows = c.opts.StatusPartitions
		}
		if gs != nil {
			gs.noMembers = gr.noMembers
			gr.next[gl.Group] = gs
		}
	}
	renderTopicOffsets(&gr.text, b.Snapshot.Offsets, gr.topics, c.topicOffs, gr.offs)
	gr.yieldToScrapes(bctx)
	return nil
}

// yieldStep is how often a gather waiting for scrapes looks again.
const yieldStep = 5 * time.Millisecond

// yieldToScrapes waits, before the next batch is gathered, while a scrape
// is writing the page, for at most a quarter of the interval in all per
// round, so a scrape never waits for the round but a stream of scrapes (or
// a stalled scraper, until the write timeout) cannot hold a round up. A
// scrape that shared the 2 cores with a gather and the broker answering
// it took about twice as long with gathers back to back at 500 groups x
// 1,000 partitions (bench/exporter.md).
func (gr *gatherRound) yieldToScrapes(ctx context.Context) {
	for gr.c.scraping.Load() > 0 && gr.st.yielded < gr.c.opts.Interval/4 {
		select {
		case <-ctx.Done():
			return
		case <-time.After(yieldStep):
		}
		gr.st.yielded += yieldStep
	}
}

// finish makes the round's state the collector's. A gather that failed
// or was cut keeps what it did not reach (groups, stale, and the
// positions their time lags were measured at; topics; time-lag
// positions): only a complete gather may say something is gone.
func (gr *gatherRound) finish(err error) {
	c := gr.c
	if err != nil {
		for _, name := range slices.Sorted(maps.Keys(c.state)) {
			if _, read := gr.next[name]; !read && !gr.dropped[name] {
				gr.next[name] = c.state[name].carried()
				gr.st.groupErrors++
				if c.opts.TimeLag {
					c.cache.keep(c.state[name])
				}
			}
		}
	}
	if err != nil || !gr.st.readAll() {
		carryTopics(&gr.text, gr.topics, c.topicOffs, gr.offs)
	}
	gr.finishNamed(err)
	c.state, c.topicOffs = gr.next, gr.offs
	if err == nil && gr.st.readAll() {
		c.hist.Forget(func(g string) bool { _, ok := gr.next[g]; return ok })
	}
	if len(gr.dropped) > 0 {
		c.hist.Forget(func(g string) bool { return !gr.dropped[g] })
	}
	if c.opts.TimeLag && err == nil {
		c.cache.prune() // a failed gather keeps the positions it did not reach
	}
}

// finishNamed records what the round read of the named groups, and the
// changes for record to tell (Options.Missing). One missing that a failed
// or cut gather did not reach stays missing, and is counted as a group
// not reached.
func (gr *gatherRound) finishNamed(err error) {
	c := gr.c
	c.notes = c.notes[:0]
	for _, g := range slices.Sorted(maps.Keys(c.named)) {
		n := c.named[g]
		missing, read := gr.namedRead[g]
		switch {
		case !read:
			if err != nil && n.missing > 0 {
				gr.st.groupErrors++
			}
			continue
		case missing && n.missing == 0:
			c.notes = append(c.notes, missingNote{group: g, missing: true})
		case !missing && n.missing > 0:
			c.notes = append(c.notes, missingNote{group: g, rounds: n.missing})
		}
		n.read = true
		if missing {
			n.missing++
		} else {
			n.missing = 0
		}
		c.named[g] = n
	}
}

// withEarlierDeadline is ctx, ended also by other's deadline.
func withEarlierDeadline(ctx, other context.Context) (context.Context, context.CancelFunc) {
	if d, ok := other.Deadline(); ok {
		return context.WithDeadline(ctx, d)
	}
	return context.WithCancel(ctx)
}

// protocols maps each group of s to its protocol type.
func protocols(s *lag.Snapshot) map[string]string {
	out := make(map[string]string, len(s.Groups))
	for _, gs := range s.Groups {
		p := gs.ProtocolType
		switch {
		case p != "":
		case gs.Type == "consumer":
			p = "consumer" // KIP-848 groups have no protocol type field
		case gs.Type == lag.ShareType:
			// Nor have share groups in ShareGroupDescribe; ListGroups
			// (the offsets-topic source's) says share.
			p = lag.ShareType
		}
		out[gs.Group] = p
	}
	return out
}

// record publishes a gather's page (what it read fresh, what it could not
// read carried and marked stale) and counts it as failed unless it read
// everything: a partial gather is never published as complete.
func (c *Collector) record(s *snapshot, d time.Duration, st gatherStats, err error) {
	// Said after the lock is released: a stderr that blocks (a stalled
	// log pipe) must not hold the lock every scrape takes.
	warn, recovered := c.publish(s, d, st, err)
	if c.opts.Missing != nil {
		for _, n := range c.notes {
			c.opts.Missing(n.group, n.missing, n.rounds)
		}
	}
	c.notes = c.notes[:0]
	if warn != nil {
		c.opts.Warn(warn)
	}
	if recovered > 0 {
		c.opts.Recovered(recovered)
	}
}

// publish is record's work under the lock; it returns what record says on
// stderr: the cause of a failing gather to warn of (nil: nothing), or how
// many failed gathers a complete one ends (0: none).
func (c *Collector) publish(s *snapshot, d time.Duration, st gatherStats, err error) (warn error, recovered int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lastDur = d
	c.lastStats = st
	if s != nil {
		c.retired, c.last = c.last, s
	}
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	changed := msg != c.lastErr
	c.lastErr = msg
	if err != nil || !st.complete() {
		c.lastFail = true
		c.errors++
		c.failing++
		if !c.warned || c.opts.WarnChanges && changed && msg != "" {
			c.warned = true
			if c.opts.Warn != nil {
				warn = failureCause(err, st)
			}
		}
		return warn, 0
	}
	if c.failing > 0 && c.warned && c.opts.Recovered != nil {
		recovered = c.failing
	}
	c.failing = 0
	c.warned = false
	c.lastFail = false
	c.lastOK = c.opts.Now()
	return nil, recovered
}

// failureCause is why a gather is not complete: its error, or what it
// could not read.
func failureCause(err error, st gatherStats) error {
	if err != nil {
		return err
	}
	if st.readAll() {
		return fmt.Errorf("the time lag of %d group-partition(s) could not be read within the round's budget (half the interval)", st.timeLagMissed)
	}
	if st.missing > 0 {
		return fmt.Errorf("%d group(s) (%d of them named and not existing) and %d group-partition(s) could not be read", st.groupErrors, st.missing, st.partitionErrors)
	}
	return fmt.Errorf("%d group(s) and %d group-partition(s) could not be read", st.groupErrors, st.partitionErrors)
}

// Healthy reports whether the latest gather was complete.
func (c *Collector) Healthy() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return !c.lastOK.IsZero() && !c.lastFail
}

// rowLag is a row's lag when it has one to export: read without error and
// committed (admin leaves Lag nil for a never-committed partition).
func rowLag(p *lag.PartitionLag) (int64, bool) {
	if p.Error != "" || p.Committed == nil || p.Lag == nil {
		return 0, false
	}
	return *p.Lag, true
}
