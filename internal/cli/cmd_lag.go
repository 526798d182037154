package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/offsetctl/offsetctl/internal/admin"
	"github.com/offsetctl/offsetctl/internal/change"
	"github.com/offsetctl/offsetctl/internal/cluster"
	"github.com/offsetctl/offsetctl/internal/exitcode"
	"github.com/offsetctl/offsetctl/internal/health"
	"github.com/offsetctl/offsetctl/internal/lag"
	"github.com/offsetctl/offsetctl/internal/safetext"
	"github.com/offsetctl/offsetctl/internal/textlist"
	"github.com/offsetctl/offsetctl/report"
)

// minWatch keeps --watch from hammering the cluster.
const minWatch = 100 * time.Millisecond

type lagFlags struct {
	sel         groupSelect
	tri         triageFlags
	topics      []string
	isolation   string
	timeLag     bool
	assumeReset string
	watch       time.Duration
	members     bool
	state       bool
	status      statusFlags
}

// lagOpts are how a lag report is computed beyond what is gathered.
type lagOpts struct {
	timeLag bool
	assume  lag.AssumeReset
	triage
	view lagView
	// judge, when set, judges every batch (lag --status).
	judge *health.Judge
}

// lagView is what lag prints: partition rows (default), or Apache's
// --members and --state views.
type lagView int

const (
	viewRows lagView = iota
	viewMembers
	viewState
)

func (a *app) lagCmd() *cobra.Command {
	var f lagFlags
	cmd := &cobra.Command{
		Use:     "lag [GROUP... | --all-groups | --regex PATTERN...]",
		Aliases: []string{"describe"},
		Short:   "Show committed offsets against log start and log end, per partition",
		Example: `  offsetctl lag orders-billing
  offsetctl lag --all-groups -o json
  offsetctl lag g1 g2 --topic orders:0,2 --time-lag
  offsetctl lag --all-groups --watch 5s
  offsetctl describe --group orders-billing
  offsetctl lag --regex 'orders-.*' --exclude '.*-test' --min-lag 1000 --by topic
  offsetctl lag --all-groups --fail-if 'lag>10000' --fail-if 'time-lag>5m'   # exit 4 when crossed
  offsetctl lag orders-billing --status --window 10m
  offsetctl lag --all-groups --fail-if 'status>=STOP'   # exit 4 on a stopped group
  offsetctl lag orders-billing --watch 15s --status --window 5m`,
		RunE: func(cmd *cobra.Command, args []string) error {
			// A malformed --fail-if is named before a missing group:
			// docs/lag.md promises it first, and fixing the groups
			// would only lead to it.
			tri, err := f.tri.parse(cmd.Flags())
			if err != nil {
				return err
			}
			sel, err := f.sel.resolve(args, false)
			if err != nil {
				return err
			}
			scope, err := lag.ParseScope(f.topics)
			if err != nil {
				return exitcode.Flag("--topic", err)
			}
			iso, err := lag.ParseIsolation(f.isolation)
			if err != nil {
				return exitcode.Flag("--isolation", err)
			}
			if f.timeLag && tri.by == lag.ByGroup {
				// A group's row is its total lag: it has no time lag
				// column to show, and one silently left out reads as if
				// the flag were honoured.
				return exitcode.Usagef("--time-lag shows per partition or, with --by topic, per topic (MAX-TIME-LAG): not with --by group")
			}
			opts := lagOpts{timeLag: f.timeLag || tri.needsTimeLag(), triage: tri}
			switch {
			case f.members && f.state:
				return exitcode.Usagef("--members and --state are two views: use one")
			case (f.members || f.state) && (tri.by != lag.ByPartition || f.watch > 0):
				return exitcode.Usagef("--members and --state go with neither --by nor --watch")
			case f.members:
				opts.view = viewMembers
			case f.state:
				opts.view = viewState
			}
			if changed(cmd.Flags(), "assume-reset") {
				if opts.assume, err = lag.ParseAssumeReset(f.assumeReset); err != nil {
					return exitcode.Flag("--assume-reset", err)
				}
			}
			if f.watch > 0 && tri.by != lag.ByPartition && a.format == report.CSV {
				return exitcode.Usagef("--by %s with --watch: use -o json or table (a roll-up CSV has no TIME column)", tri.by)
			}
			if changed(cmd.Flags(), "watch") && f.watch < minWatch {
				return exitcode.Usagef("--watch must be at least %s, got %s", minWatch, f.watch)
			}
			status, err := f.status.parse(cmd.Flags(), len(tri.statuses) > 0)
			if err != nil {
				return err
			}
			if status != nil {
				if err := a.checkStatusAuditLog(); err != nil {
					return err
				}
			}
			if status != nil && (opts.view != viewRows || tri.by != lag.ByPartition) {
				return exitcode.Usagef("--status goes with the partition rows: not with --members, --state or --by")
			}
			if status != nil && f.watch > 0 {
				if changed(cmd.Flags(), "sample") {
					return exitcode.Usagef("--sample goes with --status without --watch: a watch samples the committed offsets every round")
				}
				if status.window < 2*f.watch { // as exporter --status-window
					return exitcode.Usagef("--window must span at least two rounds (2 × --watch = %s), got %s", 2*f.watch, status.window)
				}
			}
			cfg, adm, err := a.admin(cmd.Context())
			if err != nil {
				return err
			}
			defer adm.Close()
			opts.judge = a.judge(status, cfg, adm, iso, f.watch)
			req := lag.GatherRequest{Groups: sel.Groups, AllGroups: sel.All, Match: sel.Match, OtherProtocols: true, ShareGroups: true, Scope: scope, Isolation: iso}
			// A --regex pattern that matched no group is named once the
			// groups were listed (at the end: lag streams its output).
			defer a.warnUnmatched(sel, nil, "lag") // lag skips no kind of group
			if f.watch <= 0 {
				return a.lagOnce(cmd.Context(), cfg, adm, req, opts)
			}
			return a.lagWatch(cmd.Context(), cfg, adm, req, f.watch, opts)
		},
	}
	fl := cmd.Flags()
	f.sel.flags(fl, "every consumer group in the cluster")
	f.tri.flags(fl, true)
	fl.StringArrayVarP(&f.topics, "topic", "t", nil, "only this topic, or TOPIC:P,P for some partitions (repeatable)")
	fl.StringVar(&f.isolation, "isolation", "uncommitted", "log end: uncommitted (high watermark) or committed (last stable offset)")
	fl.BoolVar(&f.timeLag, "time-lag", false, "also show how long ago the next unconsumed record was written")
	enumVar(fl, &f.assumeReset, "assume-reset", "", "", "lag of a partition with no committed offset, unknown (-) unless set: as if the consumer's auto.offset.reset were",
		enum{choices: []string{string(lag.AssumeEarliest), string(lag.AssumeLatest)}, parse: func(s string) error { _, err := lag.ParseAssumeReset(s); return err }})
	fl.DurationVar(&f.watch, "watch", 0, "redraw every interval until Ctrl-C")
	fl.BoolVar(&f.members, "members", false, "one row per member: member id, instance id, client id, host and partition count (idle members too)")
	fl.BoolVar(&f.state, "state", false, "one row per group: type, coordinator, assignor, state and members")
	f.status.flags(fl, true)
	return cmd
}

// streamLag gathers and computes the lag report a batch of groups at a
// time (lag.StreamLag), each batch within the timeout, and hands each
// batch's finished report (scope checked, filtered, time lag filled) to
// emit. The timeout bounds the cluster's answers, not how fast stdout is
// read. An error from emit (a write) is returned as it is. The time-lag
// reads of every batch share one deadline, the timeout from the start:
// a batch reached after it gets no time lag (counted on stderr) rather
// than a timeout of its own, so `lag --time-lag --timeout D` ends within D
// plus the gathering of the batches left.
func (a *app) streamLag(ctx context.Context, cfg cluster.Config, adm *cluster.Admin, req lag.GatherRequest, o lagOpts, emit func(lag.LagReport) error) error {
	req.ExtraTopics = req.Scope.TopicNames()
	checked := false
	var emitErr error
	tlCtx, tlCancel := batchTimeout(ctx, cfg.Timeout)
	defer tlCancel()
	missed, future := 0, 0
	lo := lag.LagOptions{Scope: req.Scope, AssumeReset: o.assume, AllGroups: req.AllGroups}
	err := lag.StreamLag(ctx, adm, req, lo, lag.StreamOptions{Timeout: cfg.Timeout}, func(bctx context.Context, b lag.LagBatch) error {
		if !checked {
			if err := lag.CheckScope(b.Snapshot.Offsets, req.Scope); err != nil {
				if exitcode.Code(err) != exitcode.Usage {
					// A listing a broker did not answer: exit 1.
					return fmt.Errorf("--topic %w", err)
				}
				return exitcode.Flag("--topic", err)
			}
			checked = true
		}
		// Judged before --min-lag: a group's status is over all its rows.
		// Sampling reads the batch again and makes b that read.
		again := func(ctx context.Context, groups []string) (lag.LagBatch, error) {
			return lag.GatherBatch(ctx, adm, req, groups, lo)
		}
		if err := judgeBatch(ctx, o.judge, cfg, &b, again); err != nil {
			return err
		}
		rep := b.Report
		if req.AllGroups && !req.Scope.Empty() {
			rep = rep.WithRows()
		}
		// --min-lag first, so time lag is read only for the rows shown.
		rep = lag.LagFilter{MinLag: o.filter.MinLag}.Apply(rep)
		if o.timeLag {
			rep.TimeLag = true
			fctx, cancel := withEarlierDeadline(bctx, tlCtx)
			n, err := lag.FillTimeLag(fctx, cfg, &rep, req.Isolation, b.Snapshot.At)
			cancel()
			if err != nil {
				return err
			}
			missed += n
			future += lag.FutureStamped(rep)
		}
		emitErr = emit(o.filter.Apply(rep))
		return emitErr
	})
	if missed > 0 {
		a.warnf("time lag not read within --timeout for %d partition row(s): shown without it", missed)
	}
	if future > 0 {
		a.warnf("time lag unknown for %s: the next record is stamped more than a minute in the future (a producer's clock?), so how long the records behind it waited cannot be told; see NOTE (no time-lag threshold counts them)", textlist.Count(future, "partition row"))
	}
	if err != nil && emitErr == nil && (errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)) {
		return cfg.Unreachable(err)
	}
	return err
}

// batchTimeout is ctx bounded by timeout when it is set.
func batchTimeout(ctx context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	if timeout <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, timeout)
}

// withEarlierDeadline is ctx, ended also by other's deadline.
func withEarlierDeadline(ctx, other context.Context) (context.Context, context.CancelFunc) {
	if d, ok := other.Deadline(); ok {
		return context.WithDeadline(ctx, d)
	}
	return context.WithCancel(ctx)
}

// gatherLag gathers one whole lag report (the groups command keeps only
// summaries of it; see streamLag for the rows).
func (a *app) gatherLag(ctx context.Context, cfg cluster.Config, adm *cluster.Admin, req lag.GatherRequest, o lagOpts, each func(lag.LagReport)) error {
	return a.streamLag(ctx, cfg, adm, req, o, func(rep lag.LagReport) error {
		each(rep)
		return nil
	})
}

func (a *app) lagOnce(ctx context.Context, cfg cluster.Config, adm *cluster.Admin, req lag.GatherRequest, o lagOpts) error {
	out := a.newLagOutput(lagMeta(req, o, ""), report.LagStreamOptions{}, o.triage)
	out.view = o.view
	if err := a.streamLag(ctx, cfg, adm, req, o, out.add); err != nil {
		// Groups already written stay a complete document (JSON
		// closed); the exit code says the report is not whole.
		if out.groups > 0 {
			_ = out.close()
		}
		a.sayThreshold(out.breaches)
		return withOutput(err, out.closed)
	}
	if err := out.close(); err != nil && !stdoutClosed(err) {
		return err
	}
	return withOutput(a.reportOutcome(out.errs, out.breaches), out.closed)
}

// lagMeta is what a lag report says besides its groups.
func lagMeta(req lag.GatherRequest, o lagOpts, at string) lag.LagReport {
	return lag.LagReport{Time: at, Isolation: req.Isolation.String(), AssumeReset: string(o.assume), TimeLag: o.timeLag, Status: o.judge != nil}
}

// lagOutput writes a lag report to stdout group by group as the batches
// come: the table leaves out groups that do not exist (the error line
// names them), JSON and CSV carry them with their error. It keeps the
// report's error lines, not its rows.
type lagOutput struct {
	a        *app
	s        *report.LagStream
	groups   int // groups gathered, shown or not
	errs     []string
	tri      triage
	breaches []string
	// roll-ups (--by topic|group) are one row per group or group-topic:
	// kept and written at close, in the order gathered.
	meta    lag.LagReport
	opt     report.LagStreamOptions
	byTopic []lag.GroupTopics
	byGroup []lag.GroupSummary
	view    lagView
	members []lag.MemberRow
	// idle are the groups read whole that have no member (--members):
	// said on stderr, as Apache's tool says it, not a bare header alone.
	idle   []string
	states []lag.GroupState
	// closed is the write that found stdout's reader gone: nothing more
	// is written, but every batch is still gathered and checked, so the
	// outcome (a missing group, a crossed threshold) does not depend on
	// how much of the report the pipe held (stdout.go).
	closed error
	// filtered counts the groups --min-lag or --min-time-lag left out,
	// the first of them named: an empty table says so, not that no group
	// was found.
	filtered      int
	firstFiltered string
}

// wrote keeps a write's error when it is stdout's reader leaving, and
// returns any other (which ends the report).
func (o *lagOutput) wrote(err error) error {
	if err != nil && stdoutClosed(err) {
		if o.closed == nil {
			o.closed = err
		}
		return nil
	}
	return err
}

func (a *app) newLagOutput(meta lag.LagReport, opt report.LagStreamOptions, tri triage) *lagOutput {
	return &lagOutput{a: a, s: report.NewLagStream(a.stdout, a.format, meta, opt), tri: tri, meta: meta, opt: opt}
}

// add writes one batch; only write errors are returned, and not the
// reader leaving (kept in closed).
func (o *lagOutput) add(rep lag.LagReport) error {
	if len(rep.FilteredOut) > 0 && o.filtered == 0 {
		o.firstFiltered = rep.FilteredOut[0]
	}
	o.filtered += len(rep.FilteredOut)
	o.errs = append(o.errs, rep.Errors()...)
	o.breaches = append(o.breaches, lag.Breaches(rep, o.tri.thresholds)...)
	o.breaches = append(o.breaches, statusBreaches(rep, o.tri.statuses)...)
	switch o.view {
	case viewMembers:
		o.groups += len(rep.Groups)
		o.members = append(o.members, lag.Members(rep)...)
		for _, g := range rep.Groups {
			if g.Error == "" && len(g.MemberList) == 0 {
				o.idle = append(o.idle, g.Group)
			}
		}
		return nil
	case viewState:
		o.groups += len(rep.Groups)
		o.states = append(o.states, lag.States(rep)...)
		return nil
	}
	switch o.tri.by {
	case lag.ByTopic:
		o.groups += len(rep.Groups)
		o.byTopic = append(o.byTopic, lag.ByTopics(rep).Groups...)
		return nil
	case lag.ByGroup:
		o.groups += len(rep.Groups)
		o.byGroup = append(o.byGroup, lag.Summarize(rep, nil)...)
		return nil
	}
	for _, g := range rep.Groups {
		o.groups++
		if o.a.format == report.Table && g.Error != "" && len(g.Partitions) == 0 {
			continue
		}
		if o.closed != nil {
			continue
		}
		if err := o.wrote(o.s.Group(g)); err != nil {
			return err
		}
	}
	return nil
}

// close ends the document; an empty table says so on stderr instead. It
// returns the write error, closed's too.
func (o *lagOutput) close() error {
	if o.closed != nil {
		return o.closed
	}
	if err := o.closeRollUp(); err != nil {
		_ = o.wrote(err)
		return err
	}
	if o.groups == 0 && o.a.format == report.Table {
		o.a.infof("%s", o.emptyWords())
	}
	return nil
}

// emptyWords says why the table is empty: no group was found, or the
// groups found had no row the filter keeps.
func (o *lagOutput) emptyWords() string {
	switch {
	case o.filtered == 1:
		return fmt.Sprintf("no partition of group %s has %s", safetext.Arg(o.firstFiltered), o.tri.filter)
	case o.filtered > 1:
		return fmt.Sprintf("no partition with %s in %d group(s)", o.tri.filter, o.filtered)
	}
	return "no consumer groups found"
}

func (a *app) lagWatch(ctx context.Context, cfg cluster.Config, adm *cluster.Admin, req lag.GatherRequest, every time.Duration, o lagOpts) error {
	rounds, failed, crossed := 0, 0, 0
	var lastErr error
	var lastBreaches []string
	// Ctrl-C ends a watch: exit 1 if any round failed, else 4 if any round
	// crossed a --fail-if threshold. So does stdout's reader leaving (`|
	// head`): a watch asks for no last round, as replay --follow asks for
	// no last record (stdout.go).
	end := func() error {
		if failed > 0 {
			return fmt.Errorf("%d of %d watch round(s) failed; the last: %w", failed, rounds, lastErr)
		}
		if crossed > 0 {
			return thresholdError(lastBreaches)
		}
		return nil
	}
	t := time.NewTicker(every)
	defer t.Stop()
	// Rates and the catch-up ETA span the last four rounds, as the
	// exporter's do by default.
	w := watchRound{a: a, cfg: cfg, adm: adm, req: req, o: o, every: every, rates: lag.NewRates(4 * every),
		tty: a.ios().IsStdoutTTY() && a.format == report.Table} // JSON and CSV are streams: never cleared
	for {
		err, breaches, werr := w.run(ctx, rounds+1)
		if ctx.Err() != nil {
			return end()
		}
		// --status-source offsets-topic that cannot be read: every round
		// would fail alike; said once and ended, as lag --status does.
		if o.judge.Unreadable(err) {
			return err
		}
		// A failed write ends the watch: nobody reads it. The reader
		// leaving ends it as Ctrl-C does, with this round counted (it was
		// gathered whole); any other write error is a failure.
		if werr != nil && !stdoutClosed(werr) {
			return werr
		}
		rounds++
		if err != nil {
			failed++
			lastErr = err
			a.warnf("%s", errorLine(err))
		}
		if len(breaches) > 0 {
			crossed++
			lastBreaches = breaches
			a.warnf("%s", errorLine(thresholdError(breaches)))
		}
		if werr != nil {
			return end()
		}
		select {
		case <-ctx.Done():
			return end()
		case <-t.C:
		}
	}
}

// watchRound is one round of lag --watch.
type watchRound struct {
	a     *app
	cfg   cluster.Config
	adm   *cluster.Admin
	req   lag.GatherRequest
	o     lagOpts
	every time.Duration
	rates *lag.Rates
	tty   bool
}

// run gathers and writes round n as its batches come. It returns the
// round's error (the gather's, or the report's error lines) and, apart,
// a write error. A round whose reader left is still gathered whole, for
// its outcome. A round that failed before any group was written is one
// error line (JSON), one error row (CSV) or the round header (table).
func (w watchRound) run(ctx context.Context, n int) (roundErr error, breaches []string, writeErr error) {
	a := w.a
	at := a.now()
	stamp := admin.FormatTime(at)
	meta, opt := lagMeta(w.req, w.o, ""), report.LagStreamOptions{}
	switch a.format {
	case report.JSON:
		meta.Time, opt.OneLine = stamp, true // JSON lines say when, like the error lines
	case report.CSV:
		// Every round writes rows, so the header goes with the first.
		opt.CSVTime, opt.CSVNoHeader = stamp, n > 1
	}
	out := a.newLagOutput(meta, opt, w.o.triage)
	rr := w.rates.Round(at)
	started := false
	start := func() error { // the table's round header, with the first batch
		if started || a.format != report.Table {
			return nil
		}
		started = true
		var err error
		switch {
		case w.tty:
			_, err = fmt.Fprint(a.stdout, "\033[H\033[2J")
		case n > 1:
			_, err = fmt.Fprintln(a.stdout)
		}
		if err == nil {
			_, err = fmt.Fprintf(a.stdout, "%s  every %s  (Ctrl-C to stop)\n", at.Format(time.RFC3339), w.every)
		}
		return err
	}
	err := a.streamLag(ctx, w.cfg, w.adm, w.req, w.o, func(rep lag.LagReport) error {
		rr.Observe(rep)
		for i := range rep.Groups {
			rep.Groups[i].Progress = rr.Progress(rep.Groups[i])
		}
		if out.closed == nil {
			writeErr = out.wrote(start())
		}
		if writeErr == nil {
			writeErr = out.add(rep)
		}
		return writeErr
	})
	rr.End(err == nil)
	if w.o.judge != nil {
		w.o.judge.EndRound(err == nil)
	}
	switch {
	case writeErr != nil:
		return err, nil, writeErr
	case out.closed != nil && err != nil:
		return err, nil, out.closed
	case err == nil:
		return change.ReportErrors(out.errs), out.breaches, out.close()
	case out.groups > 0:
		return err, nil, out.close() // what was written stays a complete document
	case w.o.judge.Unreadable(err):
		return err, nil, nil // the watch ends on it (lagWatch): no round to show
	case a.format == report.CSV:
		return err, nil, report.LagWatchCSV(a.stdout, meta, at, n == 1, err)
	case a.format == report.JSON:
		return err, nil, report.WriteJSONLine(a.stdout, watchError{Time: stamp, Error: err.Error()})
	}
	return err, nil, start()
}

// watchError is the JSON line of a --watch round that could not gather.
type watchError struct {
	Time  string `json:"time"`
	Error string `json:"error"`
}

// groupsOrAll words the error when the group selection is missing or
// contradictory.
func groupsOrAll(named bool) string {
	if named {
		return "name groups or use --all-groups, not both"
	}
	return "name one or more groups, or use --all-groups"
}

// closeRollUp writes a --by topic|group report, or ends the streamed one.
func (o *lagOutput) closeRollUp() error {
	w, f := o.a.stdout, o.a.format
	switch o.view {
	case viewMembers:
		if o.members == nil {
			o.members = []lag.MemberRow{} // JSON [], not null
		}
		if err := report.GroupMembers(w, f, o.members); err != nil {
			return err
		}
		for _, g := range o.idle {
			o.a.notef("group %s has no active members", safetext.Arg(g))
		}
		return nil
	case viewState:
		if o.states == nil {
			o.states = []lag.GroupState{}
		}
		return report.GroupStates(w, f, o.states)
	}
	switch o.tri.by {
	case lag.ByTopic:
		r := lag.TopicReport{Time: o.meta.Time, Isolation: o.meta.Isolation, TimeLag: o.meta.TimeLag, Groups: o.byTopic}
		if r.Groups == nil {
			r.Groups = []lag.GroupTopics{}
		}
		if o.opt.OneLine && f == report.JSON {
			return report.WriteJSONLine(w, r)
		}
		return report.LagByTopic(w, f, r)
	case lag.ByGroup:
		r := lag.GroupsReport{Time: o.meta.Time, Groups: o.byGroup}
		if r.Groups == nil {
			r.Groups = []lag.GroupSummary{}
		}
		if o.opt.OneLine && f == report.JSON {
			return report.WriteJSONLine(w, r)
		}
		return report.Groups(w, f, r.Groups, false)
	}
	return o.s.Close()
}
