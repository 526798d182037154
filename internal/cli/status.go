package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/offsetctl/offsetctl/internal/cluster"
	"github.com/offsetctl/offsetctl/internal/exitcode"
	"github.com/offsetctl/offsetctl/internal/health"
	"github.com/offsetctl/offsetctl/internal/lag"
	"github.com/offsetctl/offsetctl/internal/safetext"
)

// statusFlags are lag's and groups' --status and its window and source.
type statusFlags struct {
	on     bool
	window time.Duration
	sample time.Duration
	source string
}

// flags defines them; watch says the command has --watch (lag; not
// groups), which the texts of --window and --sample then speak of.
func (f *statusFlags) flags(fl *pflag.FlagSet, watch bool) {
	window := "with --status: how far back the commits are judged (sampling judges its two samples whatever this is)"
	sample := "with --status, when the offsets topic cannot be read: the time between the two samples of the committed offsets"
	if watch {
		window = strings.TrimSuffix(window, ")") + "; with --watch at least 2 × --watch, the rounds in it judged)"
		sample += " (not with --watch: its rounds are the samples)"
	}
	fl.BoolVar(&f.on, "status", false, "judge each partition and group from its commits over --window, as Burrow does: OK, WARN, REWIND, STALL or STOP (docs/health.md)")
	fl.DurationVar(&f.window, "window", 10*time.Minute, window)
	fl.DurationVar(&f.sample, "sample", 30*time.Second, sample)
	fl.StringVar(&f.source, "status-source", health.ModeAuto, "with --status: where commits come from: auto (the offsets topic, else sampling), offsets-topic or sample")
}

// statusOpts is the checked form of statusFlags; nil when --status is off.
type statusOpts struct {
	window, sample time.Duration
	mode           string
}

func (f statusFlags) parse(fl *pflag.FlagSet, implied bool) (*statusOpts, error) {
	if !f.on && !implied {
		for _, n := range []string{"window", "sample", "status-source"} {
			if changed(fl, n) {
				return nil, exitcode.Usagef("--%s goes with --status", n)
			}
		}
		return nil, nil
	}
	switch {
	case f.window <= 0:
		return nil, exitcode.Usagef("--window must be positive, got %s", f.window)
	case f.sample <= 0:
		return nil, exitcode.Usagef("--sample must be positive, got %s", f.sample)
	}
	switch f.source {
	case health.ModeAuto, health.ModeOffsetsTopic, health.ModeSample:
	default:
		return nil, exitcode.Usagef("--status-source %s: want auto, offsets-topic or sample", safetext.Arg(f.source))
	}
	return &statusOpts{window: f.window, sample: f.sample, mode: f.source}, nil
}

// judge makes the command's health.Judge: it says on stderr, once, which
// source judges, or why the offsets topic could not be read and sampling
// is used instead. With --watch (every > 0) each round is judged from the
// offsets topic, read once and then followed, or from the rounds the
// watch keeps over the window (watchJudge).
func (a *app) judge(o *statusOpts, cfg cluster.Config, adm *cluster.Admin, iso lag.Isolation, every time.Duration) *health.Judge {
	if o == nil {
		return nil
	}
	sleep := a.sleep
	if sleep == nil {
		sleep = sleepCtx
	}
	j := &health.Judge{
		Explain:   a.liveAuditExplainer("status").For(lazyClusterID(cfg.Timeout, clusterIDOf(adm))),
		Admin:     adm,
		Reader:    health.TopicReader{Admin: adm.Client, NewClient: cfg.NewClient},
		Mode:      o.mode,
		Window:    o.window,
		Sample:    o.sample,
		Isolation: iso,
		Now:       a.now,
		Sleep:     sleep,
		Source: func(source string) {
			if source == health.SourceOffsetsTopic {
				a.notef("status: commits read from %s over the last %s (status_source: %s)", health.OffsetsTopic, o.window, source)
				return
			}
			a.notef("status: the committed offsets sampled twice, %s apart (status_source: %s)", o.sample, source)
		},
		Fallback: func(err error) {
			a.notef("status: %s; sampling the committed offsets twice, %s apart, instead (status_source: sample)", safetext.Text(err.Error()), o.sample)
		},
	}
	if every > 0 {
		a.watchJudge(j, o, every)
	}
	return j
}

// watchJudge makes j judge the rounds of lag --watch: no sampling wait
// (the rounds are the samples), and its own words on stderr.
func (a *app) watchJudge(j *health.Judge, o *statusOpts, every time.Duration) {
	j.Rounds, j.Sample = health.NewRounds(o.window), 0
	sampled := fmt.Sprintf("the committed offsets of every round (every %s) sampled over the last %s; a partition with lag is %s until its second round", every, o.window, health.Pending)
	j.Source = func(source string) {
		if source == health.SourceOffsetsTopic {
			a.notef("status: commits read from %s over the last %s, then each round's new ones (status_source: %s)", health.OffsetsTopic, o.window, source)
			return
		}
		a.notef("status: %s (status_source: %s)", sampled, source)
	}
	j.Fallback = func(err error) {
		a.notef("status: %s; sampling instead: %s (status_source: sample)", safetext.Text(err.Error()), sampled)
	}
}

// judgeBatch judges one batch, bounded by the timeout plus the sampling
// wait (a batch's own deadline is for its gather only); the sampling
// source makes b its second read, with again.
func judgeBatch(ctx context.Context, j *health.Judge, cfg cluster.Config, b *lag.LagBatch, again health.Reread) error {
	if j == nil {
		return nil
	}
	b.Report.Status = true
	limit := cfg.Timeout
	if limit > 0 {
		limit += j.Sample
	}
	jctx, cancel := batchTimeout(ctx, limit)
	defer cancel()
	return unreadableHint(j.Judge(jctx, b, again))
}

// unreadableHint says what to do about an offsets topic that cannot be
// read: only --status-source offsets-topic lets that error out (auto
// falls back to sampling).
func unreadableHint(err error) error {
	if errors.Is(err, health.ErrNoAccess) {
		return fmt.Errorf("--status-source offsets-topic: %w: %s, or use --status-source sample", err, health.AccessHint(err))
	}
	return err
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// parseStatusThreshold reads --fail-if status>=S (also status>S, and
// status=S for exactly S); ok false when expr is not about status.
func parseStatusThreshold(expr string) (th statusThreshold, ok bool, err error) {
	e := strings.TrimSpace(expr)
	if len(e) < len("status") || !strings.EqualFold(e[:len("status")], "status") {
		return th, false, nil
	}
	rest := e[len("status"):]
	for _, op := range []string{">=", ">", "="} {
		if v, ok := strings.CutPrefix(strings.TrimSpace(rest), op); ok {
			s, err := health.ParseStatus(v)
			if err != nil {
				if strings.Contains(v, ",") {
					return th, true, fmt.Errorf("%s: one threshold per --fail-if (repeat the flag): %w", safetext.Arg(e), err)
				}
				return th, true, fmt.Errorf("%s: %w", safetext.Arg(e), err)
			}
			return statusThreshold{op: op, at: s}, true, nil
		}
	}
	return th, true, fmt.Errorf("status threshold: want status>=S, status>S or status=S")
}

// statusThreshold is a --fail-if on the group status.
type statusThreshold struct {
	op string
	at health.Status
}

func (t statusThreshold) crossed(s health.Status) bool {
	switch t.op {
	case ">=":
		return s >= t.at
	case ">":
		return s > t.at
	}
	return s == t.at
}

// statusBreaches names the groups of rep whose status crosses a threshold.
func statusBreaches(rep lag.LagReport, ths []statusThreshold) []string {
	var out []string
	for _, g := range rep.Groups {
		s, err := health.ParseStatus(g.Status)
		if g.Status == "" || err != nil {
			continue
		}
		for _, t := range ths {
			if t.crossed(s) {
				out = append(out, fmt.Sprintf("group %s status %s (%s)", safetext.Arg(g.Group), g.Status, safetext.Text(g.StatusReason)))
				break
			}
		}
	}
	return out
}
