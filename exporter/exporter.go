// Package exporter serves consumer-group lag as Prometheus metrics. One
// gather loop per cluster keeps the latest lag report; a scrape only turns
// that report into constant metrics, so scrapes never reach Kafka and never
// pile up on it, and a group that disappears from the report disappears
// from the metrics at the next gather.
//
// Every number comes from admin.Gather and admin.ComputeLag, the same code
// as `offsetctl lag`, so the exporter and `lag -o json` agree.
package exporter

import (
	"context"
	"maps"
	"sync"
	"time"

	"github.com/offsetctl/offsetctl/admin"
	"github.com/offsetctl/offsetctl/cluster"
)

// Options say what a Collector gathers and how often.
type Options struct {
	// Interval between the starts of two gathers; a gather that runs
	// longer is cut at Interval so rounds never overlap.
	Interval time.Duration
	// Request selects the groups (AllGroups with an optional Match) and
	// the isolation level.
	Request admin.GatherRequest
	// TimeLag reads the age of each lagging partition's next record.
	TimeLag bool
	// RateWindow is the span of the consume/produce rates.
	RateWindow time.Duration
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// Cluster, when set, is the cluster label of every lag series (one
	// Collector per --profile cluster).
	Cluster string
}

// snapshot is what one gather produced, as the text a scrape serves;
// scrapes read it, never Kafka.
type snapshot struct {
	text samples
}

// rateViews are the rates of one batch's groups, computed by the loop
// that owns Rates.
type rateViews struct {
	consume, catchUp, behind map[string]float64 // by group
}

// Collector gathers one cluster's lag on its own schedule and implements
// prometheus.Collector over the latest result.
type Collector struct {
	cfg  cluster.Config
	opts Options
	read readTimeLag
	open func() (gatherer, error)

	// owned by the gather loop
	rates *admin.Rates
	cache timeCache

	mu       sync.Mutex
	last     *snapshot // latest successful gather; nil before the first
	lastOK   time.Time // when it finished
	lastDur  time.Duration
	lastFail bool
	errors   float64
}

// gatherer is the part of a cluster admin client a gather needs: the lag
// of the selected groups, a batch of groups at a time.
type gatherer interface {
	stream(ctx context.Context, req admin.GatherRequest, each func(context.Context, admin.LagBatch) error) error
	close()
}

type adminGatherer struct{ adm *cluster.Admin }

// stream is `lag --all-groups`' gathering (admin.StreamLag): batches of
// admin.LagBatchGroups groups, each written out and dropped before the
// next is gathered, so a gather holds one batch and the text, not the
// whole report.
func (g adminGatherer) stream(ctx context.Context, req admin.GatherRequest, each func(context.Context, admin.LagBatch) error) error {
	return admin.StreamLag(ctx, g.adm, req, admin.LagOptions{Scope: req.Scope}, admin.StreamOptions{}, each)
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
	c := &Collector{cfg: cfg, opts: opts, read: admin.FillTimeLag, rates: admin.NewRates(opts.RateWindow)}
	c.open = func() (gatherer, error) {
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
		c.record(nil, 0, err)
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

// GatherOnce runs one gather and keeps its result (or counts its failure).
func (c *Collector) GatherOnce(ctx context.Context, g gatherer) {
	start := c.opts.Now()
	ctx, cancel := context.WithTimeout(ctx, c.opts.Interval)
	defer cancel()
	snap, err := c.gather(ctx, g)
	c.record(snap, c.opts.Now().Sub(start), err)
}

func (c *Collector) gather(ctx context.Context, g gatherer) (*snapshot, error) {
	now := c.opts.Now()
	round := c.rates.Round(now)
	text := samples{cluster: c.opts.Cluster, lines: map[*family][]byte{}}
	cache := timeCache{}
	topics := map[string]bool{} // topics whose offsets are written
	err := g.stream(ctx, c.opts.Request, func(ctx context.Context, b admin.LagBatch) error {
		rep := b.Report
		if c.opts.TimeLag {
			next, err := fillTimeLag(ctx, c.read, c.cfg, &rep, c.opts.Request.Isolation, now, c.cache)
			if err != nil {
				return err
			}
			maps.Copy(cache, next)
		}
		round.Observe(rep)
		renderGroups(&text, rep, protocols(b.Snapshot), groupViews(rep, round.Progress))
		renderTopicOffsets(&text, b.Snapshot.Offsets, topics)
		return nil
	})
	// A failed gather still moves the rates by what it saw (as lag
	// --watch does); its text is dropped and the last one stays served.
	round.End(err == nil)
	if err != nil {
		return nil, err
	}
	if c.opts.TimeLag {
		c.cache = cache
	}
	renderProduceRates(&text, topics, c.rates.ProduceRate)
	renderBrokers(&text, g)
	return &snapshot{text: text}, nil
}

// protocols maps each group of s to its protocol type.
func protocols(s *admin.Snapshot) map[string]string {
	out := make(map[string]string, len(s.Groups))
	for _, gs := range s.Groups {
		p := gs.ProtocolType
		if p == "" && gs.Type == "consumer" {
			p = "consumer" // KIP-848 groups have no protocol type field
		}
		out[gs.Group] = p
	}
	return out
}

// groupViews reads the rates and ETAs of the groups in rep.
func groupViews(rep admin.LagReport, progress func(admin.GroupLag) *admin.Progress) rateViews {
	v := rateViews{consume: map[string]float64{}, catchUp: map[string]float64{}, behind: map[string]float64{}}
	for _, g := range rep.Groups {
		if g.Error != "" {
			continue
		}
		g.TotalLag = groupLag(g)
		if pr := progress(g); pr != nil {
			v.consume[g.Group] = pr.ConsumeRate
			v.behind[g.Group] = b2f(pr.FallingBehind)
			if pr.CatchUpSeconds != nil {
				v.catchUp[g.Group] = *pr.CatchUpSeconds
			}
		}
	}
	return v
}

// record keeps a successful gather, or counts a failed one and keeps the
// previous result (served with its age, never as zero lag).
func (c *Collector) record(s *snapshot, d time.Duration, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lastDur = d
	if err != nil {
		c.lastFail = true
		c.errors++
		return
	}
	c.lastFail = false
	c.last, c.lastOK = s, c.opts.Now()
}

// Healthy reports whether the latest gather succeeded.
func (c *Collector) Healthy() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.last != nil && !c.lastFail
}

// groupLag is the lag of a group's committed rows: the rows a consumer's
// position is known for (never-committed partitions have no lag series, as
// `lag` shows "-" for them).
func groupLag(g admin.GroupLag) int64 {
	var n int64
	for _, p := range g.Partitions {
		if lag, ok := rowLag(p); ok {
			n += lag
		}
	}
	return n
}

// rowLag is a row's lag when it has one to export: read without error and
// committed (admin leaves Lag nil for a never-committed partition).
func rowLag(p admin.PartitionLag) (int64, bool) {
	if p.Error != "" || p.Committed == nil || p.Lag == nil {
		return 0, false
	}
	return *p.Lag, true
}
