package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/offsetctl/offsetctl/admin"
	"github.com/offsetctl/offsetctl/cluster"
	"github.com/offsetctl/offsetctl/internal/exitcode"
	"github.com/offsetctl/offsetctl/report"
)

// minWatch keeps --watch from hammering the cluster.
const minWatch = 100 * time.Millisecond

type lagFlags struct {
	allGroups   bool
	topics      []string
	isolation   string
	timeLag     bool
	assumeReset string
	watch       time.Duration
}

// lagOpts are how a lag report is computed beyond what is gathered.
type lagOpts struct {
	timeLag bool
	assume  admin.AssumeReset
}

func (a *app) lagCmd() *cobra.Command {
	var f lagFlags
	cmd := &cobra.Command{
		Use:     "lag [GROUP...]",
		Aliases: []string{"describe"},
		Short:   "Show committed offsets against log start and log end, per partition",
		Example: `  offsetctl lag orders-billing
  offsetctl lag --all-groups -o json
  offsetctl lag g1 g2 --topic orders:0,2 --time-lag
  offsetctl lag --all-groups --watch 5s`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.allGroups == (len(args) > 0) {
				return exitcode.Usagef("%s", groupsOrAll(len(args) > 0))
			}
			for _, g := range args {
				if strings.TrimSpace(g) == "" {
					return exitcode.Usagef("empty group name")
				}
			}
			if err := checkGroupArgs(args); err != nil {
				return err
			}
			scope, err := admin.ParseScope(f.topics)
			if err != nil {
				return exitcode.Flag("--topic", err)
			}
			iso, err := admin.ParseIsolation(f.isolation)
			if err != nil {
				return exitcode.Flag("--isolation", err)
			}
			opts := lagOpts{timeLag: f.timeLag}
			if changed(cmd.Flags(), "assume-reset") {
				if opts.assume, err = admin.ParseAssumeReset(f.assumeReset); err != nil {
					return exitcode.Flag("--assume-reset", err)
				}
			}
			if changed(cmd.Flags(), "watch") && f.watch < minWatch {
				return exitcode.Usagef("--watch must be at least %s, got %s", minWatch, f.watch)
			}
			cfg, adm, err := a.admin(cmd.Context())
			if err != nil {
				return err
			}
			defer adm.Close()
			req := admin.GatherRequest{Groups: args, AllGroups: f.allGroups, Scope: scope, Isolation: iso}
			if f.watch <= 0 {
				return a.lagOnce(cmd.Context(), cfg, adm, req, opts)
			}
			return a.lagWatch(cmd.Context(), cfg, adm, req, f.watch, opts)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&f.allGroups, "all-groups", false, "every consumer group in the cluster")
	fl.StringArrayVarP(&f.topics, "topic", "t", nil, "only this topic, or TOPIC:P,P for some partitions (repeatable)")
	fl.StringVar(&f.isolation, "isolation", "uncommitted", "log end: uncommitted (high watermark) or committed (last stable offset)")
	fl.BoolVar(&f.timeLag, "time-lag", false, "also show how long ago the next unconsumed record was written")
	fl.StringVar(&f.assumeReset, "assume-reset", "", "lag of a partition with no committed offset, as if the consumer's auto.offset.reset were earliest or latest (default: unknown, shown as -)")
	fl.DurationVar(&f.watch, "watch", 0, "redraw every interval until Ctrl-C")
	return cmd
}

// gatherLag gathers and computes one lag report within the timeout.
func (a *app) gatherLag(ctx context.Context, cfg cluster.Config, adm *cluster.Admin, req admin.GatherRequest, o lagOpts) (admin.LagReport, error) {
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	req.ExtraTopics = req.Scope.TopicNames()
	snap, err := admin.Gather(ctx, adm, req)
	if err != nil {
		if ctx.Err() != nil {
			return admin.LagReport{}, cfg.Unreachable(ctx.Err())
		}
		return admin.LagReport{}, err
	}
	if err := admin.CheckScope(snap.Offsets, req.Scope); err != nil {
		return admin.LagReport{}, exitcode.AsUsage(fmt.Errorf("--topic: %w", err))
	}
	rep := admin.ComputeLagWith(snap, admin.LagOptions{Scope: req.Scope, AssumeReset: o.assume})
	if req.AllGroups && !req.Scope.Empty() {
		rep = rep.WithRows()
	}
	if o.timeLag {
		rep.TimeLag = true
		if err := admin.FillTimeLag(ctx, cfg, &rep, req.Isolation, snap.At); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

func (a *app) lagOnce(ctx context.Context, cfg cluster.Config, adm *cluster.Admin, req admin.GatherRequest, o lagOpts) error {
	rep, err := a.gatherLag(ctx, cfg, adm, req, o)
	if err != nil {
		return err
	}
	return a.renderLag(rep)
}

// renderLag prints the report and returns an error naming every failed
// group and partition (or the write error, first).
func (a *app) renderLag(rep admin.LagReport) error {
	if err := a.printLag(rep, false); err != nil {
		return err
	}
	return reportErrors(rep.Errors())
}

// printLag writes the report to stdout: the table leaves out groups that do
// not exist (the error line names them), JSON and CSV carry them with their
// error. oneLine writes JSON as a single line (one document per --watch
// round). Only write errors are returned.
func (a *app) printLag(rep admin.LagReport, oneLine bool) error {
	if oneLine && a.format == report.JSON {
		return report.WriteJSONLine(a.stdout, rep)
	}
	shown := rep
	if a.format == report.Table {
		shown.Groups = nil
		for _, g := range rep.Groups {
			if g.Error == "" || len(g.Partitions) > 0 {
				shown.Groups = append(shown.Groups, g)
			}
		}
	}
	if len(shown.Groups) > 0 || a.format != report.Table {
		if err := report.Lag(a.stdout, a.format, shown); err != nil {
			return err
		}
	}
	if len(rep.Groups) == 0 && a.format == report.Table {
		a.infof("no consumer groups found")
	}
	return nil
}

// reportErrors turns per-group/partition error lines into one error (exit
// 1): all but the last go to the returned message joined by "; ".
func reportErrors(lines []string) error {
	if len(lines) == 0 {
		return nil
	}
	if len(lines) == 1 {
		return errors.New(lines[0])
	}
	return fmt.Errorf("%d errors: %s", len(lines), strings.Join(lines, "; "))
}

func (a *app) lagWatch(ctx context.Context, cfg cluster.Config, adm *cluster.Admin, req admin.GatherRequest, every time.Duration, o lagOpts) error {
	tty := isTerminal(a.stdout) && a.format == report.Table // JSON and CSV are streams: never cleared
	rounds, failed := 0, 0
	var lastErr error
	// Ctrl-C ends a watch: exit 1 if any round failed.
	end := func() error {
		if failed > 0 {
			return fmt.Errorf("%d of %d watch round(s) failed; the last: %w", failed, rounds, lastErr)
		}
		return nil
	}
	t := time.NewTicker(every)
	defer t.Stop()
	// Rates and the catch-up ETA span the last four rounds, as the
	// exporter's do by default.
	rates := admin.NewRates(4 * every)
	for {
		rep, err := a.gatherLag(ctx, cfg, adm, req, o)
		if ctx.Err() != nil {
			return end()
		}
		rounds++
		if err == nil {
			rates.Observe(rep, a.now())
			for i := range rep.Groups {
				rep.Groups[i].Progress = rates.Progress(rep.Groups[i])
			}
		}
		if errs := rep.Errors(); err == nil && len(errs) > 0 {
			err = reportErrors(errs)
		}
		if err != nil {
			failed++
			lastErr = err
		}
		// A failed write (stdout closed) ends the watch: nobody reads it.
		var werr error
		switch {
		case tty:
			_, werr = fmt.Fprint(a.stdout, "\033[H\033[2J")
		case rounds > 1 && a.format == report.Table:
			_, werr = fmt.Fprintln(a.stdout)
		}
		at := a.now()
		if werr == nil {
			switch a.format {
			case report.Table:
				_, werr = fmt.Fprintf(a.stdout, "%s  every %s  (Ctrl-C to stop)\n", at.Format(time.RFC3339), every)
				if werr == nil && (err == nil || len(rep.Groups) > 0) {
					werr = a.printLag(rep, true)
				}
			case report.CSV:
				gerr := err
				if len(rep.Groups) > 0 {
					gerr = nil // per-group errors are in the rows
				}
				// Every round writes rows, so the header goes with the first.
				werr = report.LagWatchCSV(a.stdout, rep, at, rounds == 1, gerr)
			default:
				if len(rep.Groups) > 0 || err == nil {
					rep.Time = admin.FormatTime(at) // JSON lines say when, like the error lines
					werr = a.printLag(rep, true)
				} else {
					werr = report.WriteJSONLine(a.stdout, watchError{Time: admin.FormatTime(at), Error: err.Error()})
				}
			}
		}
		if werr != nil {
			return werr
		}
		if err != nil {
			a.warnf("%s", errorLine(err))
		}
		select {
		case <-ctx.Done():
			return end()
		case <-t.C:
		}
	}
}

// watchError is the JSON line of a --watch round that could not gather.
type watchError struct {
	Time  string `json:"time"`
	Error string `json:"error"`
}

func isTerminal(w any) bool {
	type fder interface{ Fd() uintptr }
	f, ok := w.(fder)
	return ok && term.IsTerminal(int(f.Fd()))
}

// groupsOrAll words the error when the group selection is missing or
// contradictory.
func groupsOrAll(named bool) string {
	if named {
		return "name groups or use --all-groups, not both"
	}
	return "name one or more groups, or use --all-groups"
}
