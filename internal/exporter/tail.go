package exporter

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetctl/offsetctl/internal/cluster"
	"github.com/offsetctl/offsetctl/internal/health"
	"github.com/offsetctl/offsetctl/internal/lag"
)

// The commit sources of Options.CommitSource.
const (
	// SourcePoll asks each round for every group's committed offsets
	// (OffsetFetch, DescribeGroups per coordinator): the cost of a round
	// grows with groups x partitions.
	SourcePoll = "poll"
	// SourceOffsetsTopic learns the commits by tailing __consumer_offsets
	// (health.Tailer): a round asks only ListGroups and the log offsets,
	// and the tailing costs what the commit rate does.
	SourceOffsetsTopic = "offsets-topic"
)

// tailGatherer is the gatherer of SourceOffsetsTopic: the committed
// offsets are the tailer's, kept since it started (its warm-up reads the
// whole topic once); a round lists the groups and the log offsets only.
type tailGatherer struct {
	adm     *cluster.Admin
	tailer  tailSource
	status  bool // keep each round's commit histories (Options.Status)
	start   sync.Once
	stop    context.CancelFunc
	done    chan struct{}
	history map[string]map[health.Key][]health.Commit // this round's, by group (with status)
	// rows are the last round's commit rows by group, whose arrays the
	// next round fills again (the round holds them only while it runs).
	rows map[string][]lag.CommitRow
	// lost is this round's groups whose partition of the offsets topic
	// lost records (health.TailState.Lost): why, by group.
	lost map[string]string
	// lostAt is one of those partitions and its log start, for the
	// round's error.
	lostAt struct {
		partition int32
		start     int64
	}
}

// tailSource is what tailGatherer needs of a health.Tailer (tests and
// benchmarks hand it a prepared state).
type tailSource interface {
	Run(ctx context.Context)
	Ready() <-chan struct{}
	Status() (warm bool, left int, err error)
	View(fn func(*health.TailState))
}

// newTailGatherer connects for the tailer; window is the commit history
// kept per partition (the status window, 0 without --status).
func newTailGatherer(cfg cluster.Config, status bool, window, idle time.Duration) (*tailGatherer, error) {
	adm, err := cfg.NewAdmin()
	if err != nil {
		return nil, err
	}
	r := health.TopicReader{Admin: adm.Client, Idle: idle, NewClient: func(opts ...kgo.Opt) (*kgo.Client, error) { return cfg.NewClient(opts...) }}
	return &tailGatherer{adm: adm, status: status, tailer: health.NewTailer(r, health.TailOptions{Window: window}), done: make(chan struct{})}, nil
}

// stream waits (within the round) for the tailer's warm-up, then gathers
// from its state: a round before the warm-up is done fails, saying so.
func (g *tailGatherer) stream(ctx context.Context, req lag.GatherRequest, each func(context.Context, lag.LagBatch) error) error {
	g.start.Do(func() {
		tctx, cancel := context.WithCancel(context.Background())
		g.stop = cancel
		go func() { defer close(g.done); g.tailer.Run(tctx) }()
	})
	if warm, _, _ := g.tailer.Status(); !warm {
		select {
		case <-g.tailer.Ready():
		case <-ctx.Done():
		}
	}
	warm, left, err := g.tailer.Status()
	if !warm {
		if errors.Is(err, health.ErrNoAccess) {
			return fmt.Errorf("--commit-source offsets-topic: %w: %s, or use --commit-source poll", err, health.AccessHint(err))
		}
		if err != nil {
			return err
		}
		return health.NotWarm(left)
	}
	err = lag.StreamLagFromCommits(ctx, g.adm, req, lag.LagOptions{Scope: req.Scope}, g.commits, each)
	if err == nil && len(g.lost) > 0 {
		// Their previous values stay on the page, stale (lostReason), and
		// the round is failed: an alert on the gather sees it.
		err = fmt.Errorf("--commit-source offsets-topic: the commits of %d group(s) cannot be known from %s: "+
			"partition %d starts at offset %d, not 0 (its cleanup.policy deletes records), and the commits before it are gone; "+
			"use --commit-source poll", len(g.lost), health.OffsetsTopic, g.lostAt.partition, g.lostAt.start)
	}
	return err
}

// lostReason is why group's commits cannot be known this round ("" when
// they can): its partition of the offsets topic lost records.
func (g *tailGatherer) lostReason(group string) string { return g.lost[group] }

// commits is the committed offsets of groups from the tailer's state (and
// their histories, with status), read at one moment: rows, not a map per
// group (most of a round at 500 groups x 1,000 partitions).
func (g *tailGatherer) commits(groups []string) map[string][]lag.CommitRow {
	out := make(map[string][]lag.CommitRow, len(groups))
	if g.status {
		g.history = make(map[string]map[health.Key][]health.Commit, len(groups))
	}
	g.lost = nil
	g.tailer.View(func(s *health.TailState) {
		for _, name := range groups {
			if p, start, lost := s.Lost(name); lost {
				if g.lost == nil {
					g.lost = map[string]string{}
					g.lostAt.partition, g.lostAt.start = p, start
				}
				g.lost[name] = fmt.Sprintf("its commits cannot be known: %s partition %d starts at offset %d, the commits before it are gone", health.OffsetsTopic, p, start)
			}
			if rows, ok := s.AppendCommits(name, g.rows[name][:0]); ok {
				out[name] = rows
				if g.status {
					g.history[name] = s.History(name)
				}
			}
		}
	})
	g.rows = out
	return out
}

// commitHistory is group's commits read with this round's offsets.
func (g *tailGatherer) commitHistory(group string) map[health.Key][]health.Commit {
	return g.history[group]
}

func (g *tailGatherer) close() {
	if g.stop != nil {
		g.stop()
		<-g.done
	}
	g.adm.Close()
}

func (g *tailGatherer) brokers() int { return len(g.adm.Kgo.DiscoveredBrokers()) }

// commitHistorian is a gatherer that knows the groups' real commits (not
// samples of them): the status is judged from those.
type commitHistorian interface {
	commitHistory(group string) map[health.Key][]health.Commit
}
