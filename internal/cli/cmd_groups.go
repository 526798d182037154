package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/offsetctl/offsetctl/internal/exitcode"
	"github.com/offsetctl/offsetctl/internal/lag"
	"github.com/offsetctl/offsetctl/internal/safetext"
	"github.com/offsetctl/offsetctl/report"
)

func (a *app) groupsCmd() *cobra.Command {
	var (
		stateFlags []string
		sel        groupSelect
		tri        triageFlags
		status     statusFlags
	)
	cmd := &cobra.Command{
		Use:   "groups [--regex PATTERN...]",
		Short: "List consumer groups with type, state, members, topics and total lag",
		Example: `  offsetctl groups
  offsetctl groups --state Empty,Stable -o json
  offsetctl groups --regex 'orders-.*' --exclude '.*-test' --min-lag 1
  offsetctl groups --fail-if 'total-lag>1e6'   # exit 4 when a group crosses it
  offsetctl groups --status --window 10m`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if !sel.regex {
				// Arguments are --regex patterns only (a group's
				// partitions: offsetctl lag GROUP).
				if err := noArgs(cmd, args); err != nil {
					return err
				}
			}
			states, err := lag.ParseStates(stateFlags)
			if err != nil {
				return exitcode.Flag("--state", err)
			}
			s, err := sel.resolve(args, true)
			if err != nil {
				return err
			}
			t, err := tri.parse(cmd.Flags())
			if err != nil {
				return err
			}
			so, err := status.parse(cmd.Flags(), len(t.statuses) > 0)
			if err != nil {
				return err
			}
			if so != nil {
				if err := a.checkStatusAuditLog(); err != nil {
					return err
				}
			}
			cfg, adm, err := a.admin(cmd.Context())
			if err != nil {
				return err
			}
			defer adm.Close()
			rows := []lag.GroupSummary{}
			var breaches []string
			// A --regex pattern that matched no group is named, as lag
			// names it (groups lists every kind of group).
			defer a.warnUnmatched(s, nil, "groups")
			req := lag.GatherRequest{Groups: s.Groups, AllGroups: s.All, Match: s.Match, OtherProtocols: true, ShareGroups: true}
			// --min-lag is on TOTAL-LAG, the column groups shows, not on
			// a partition's lag as for lag's rows (a group of many
			// partitions each a little behind is a lot behind).
			minTotal := t.filter.MinLag
			t.filter.MinLag = nil
			err = a.gatherLag(cmd.Context(), cfg, adm, req, lagOpts{timeLag: t.needsTimeLag(), triage: t, judge: a.judge(so, cfg, adm, req.Isolation, 0)}, func(rep lag.LagReport) {
				// --state limits the thresholds and --status too:
				// they judge the groups the report shows.
				rep = lag.KeepStates(keepTotalLag(rep, minTotal), states)
				rows = append(rows, withStatus(lag.Summarize(rep, nil), rep)...)
				breaches = append(breaches, lag.Breaches(rep, t.thresholds)...)
				breaches = append(breaches, statusBreaches(rep, t.statuses)...)
			})
			if err != nil {
				a.sayThreshold(breaches) // of the groups read before it
				return err
			}
			// Written first; the outcome is what it is even if stdout's
			// reader left (stdout.go).
			werr := report.Groups(a.stdout, a.format, rows, so != nil)
			if len(rows) == 0 && a.format == report.Table && werr == nil {
				// A bare header says nothing of why: as lag's empty table.
				a.infof("%s", groupsEmptyWords(minTotal, states, t.filter))
			}
			return withOutput(a.reportOutcome(groupErrors(rows), breaches), werr)
		},
	}
	// Not a StringSlice: it reads --state '' as no filter (every group);
	// ParseStates refuses that and empty items.
	sel.flags(cmd.Flags(), "every consumer group (the default)")
	tri.flags(cmd.Flags(), false)
	status.flags(cmd.Flags(), false)
	cmd.Flags().Lookup("min-time-lag").Usage = "only partitions whose next record is at least `D` old (their time lag read from the log; groups with none are left out)"
	cmd.Flags().Lookup("min-lag").Usage = "only groups whose TOTAL-LAG is ≥ `N` (the sum of their partitions' lag; lag --min-lag is per partition)"
	cmd.Flags().StringArrayVar(&stateFlags, "state", nil, "only groups in these `STATES`, comma-separated or repeated (e.g. Empty,Stable; case-insensitive)")
	return cmd
}

// groupsEmptyWords says why groups listed no group: the filters that
// left none, or none found.
func groupsEmptyWords(minTotal *int64, states []string, filter lag.LagFilter) string {
	var why []string
	if minTotal != nil {
		why = append(why, fmt.Sprintf("a TOTAL-LAG ≥ %d", *minTotal))
	}
	if len(states) > 0 {
		why = append(why, "the state "+strings.Join(states, " or "))
	}
	if filter.MinTimeLag != nil {
		why = append(why, "a partition's time lag ≥ "+filter.MinTimeLag.String())
	}
	if len(why) == 0 {
		return "no consumer groups found"
	}
	return "no group has " + strings.Join(why, " and ")
}

// groupErrors are the error lines of the groups that could not be read.
func groupErrors(rows []lag.GroupSummary) []string {
	var errs []string
	for _, r := range rows {
		if r.Error != "" {
			errs = append(errs, "group "+safetext.Arg(r.Group)+": "+r.Error)
		}
	}
	return errs
}

// keepTotalLag keeps the groups whose TotalLag is at least min, and every
// group that could not be read, so that its error is never filtered away.
func keepTotalLag(rep lag.LagReport, min *int64) lag.LagReport {
	if min == nil {
		return rep
	}
	kept := make([]lag.GroupLag, 0, len(rep.Groups))
	for _, g := range rep.Groups {
		if g.Error != "" || g.TotalLag >= *min {
			kept = append(kept, g)
		}
	}
	rep.Groups = kept
	return rep
}

// withStatus copies each group's --status judgement from the lag report
// to its summary row.
func withStatus(rows []lag.GroupSummary, rep lag.LagReport) []lag.GroupSummary {
	byName := make(map[string]lag.GroupLag, len(rep.Groups))
	for _, g := range rep.Groups {
		byName[g.Group] = g
	}
	for i := range rows {
		g := byName[rows[i].Group]
		rows[i].Status, rows[i].StatusReason = g.Status, g.StatusReason
	}
	return rows
}
