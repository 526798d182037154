package cli

import (
	"github.com/spf13/cobra"

	"github.com/offsetctl/offsetctl/admin"
	"github.com/offsetctl/offsetctl/internal/exitcode"
	"github.com/offsetctl/offsetctl/internal/safetext"
	"github.com/offsetctl/offsetctl/report"
)

func (a *app) groupsCmd() *cobra.Command {
	var stateFlags []string
	cmd := &cobra.Command{
		Use:   "groups",
		Short: "List consumer groups with type, state, members, topics and total lag",
		Example: `  offsetctl groups
  offsetctl groups --state Empty,Stable -o json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			states, err := admin.ParseStates(stateFlags)
			if err != nil {
				return exitcode.Flag("--state", err)
			}
			cfg, adm, err := a.admin(cmd.Context())
			if err != nil {
				return err
			}
			defer adm.Close()
			rows := []admin.GroupSummary{}
			err = a.gatherLag(cmd.Context(), cfg, adm, admin.GatherRequest{AllGroups: true}, lagOpts{}, func(rep admin.LagReport) {
				rows = append(rows, admin.Summarize(rep, states)...)
			})
			if err != nil {
				return err
			}
			if err := report.Groups(a.stdout, a.format, rows); err != nil {
				return err
			}
			var errs []string
			for _, r := range rows {
				if r.Error != "" {
					errs = append(errs, "group "+safetext.Arg(r.Group)+": "+r.Error)
				}
			}
			return reportErrors(errs)
		},
	}
	// Not a StringSlice: it reads --state '' as no filter (every group);
	// ParseStates refuses that and empty items.
	cmd.Flags().StringArrayVar(&stateFlags, "state", nil, "only groups in these `STATES`, comma-separated or repeated (e.g. Empty,Stable; case-insensitive)")
	return cmd
}
