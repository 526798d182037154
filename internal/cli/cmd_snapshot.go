package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/offsetctl/offsetctl/internal/admin"
	"github.com/offsetctl/offsetctl/internal/audit"
	"github.com/offsetctl/offsetctl/internal/durable"
	"github.com/offsetctl/offsetctl/internal/exitcode"
	"github.com/offsetctl/offsetctl/internal/inputfile"
	"github.com/offsetctl/offsetctl/internal/lag"
	"github.com/offsetctl/offsetctl/internal/safetext"
	"github.com/offsetctl/offsetctl/report"
)

func (a *app) snapshotCmd() *cobra.Command {
	var (
		gs  groupSelect
		out string
	)
	cmd := &cobra.Command{
		Use:   "snapshot GROUP... | --all-groups | -r PATTERN...  --out FILE",
		Short: "Save consumer groups' committed offsets to a file (the backup format: restorable, and Apache's --from-file reads it)",
		Long: `snapshot writes every selected group's committed offsets, with a no-commit
marker for each other partition of the topics the group commits on, in the
format of reset's backups. It is a baseline before a change, and insurance
against offsets expiring (offsets.retention.minutes). Restore with
  offsetctl reset --all-groups --to file:FILE --execute
(or name the groups instead of --all-groups); compare with offsetctl diff.
The file records the cluster's id: reset refuses to restore it on another
cluster.`,
		Example: `  offsetctl snapshot --all-groups --out before.csv
  offsetctl snapshot orders-billing orders-audit --out before.csv
  offsetctl snapshot --regex 'orders-.*' --exclude orders-test --out orders.csv`,
		RunE: func(cmd *cobra.Command, args []string) error {
			sel, err := gs.resolve(args, false)
			if err != nil {
				return err
			}
			if strings.TrimSpace(out) == "" {
				return exitcode.Usagef("say where to write the snapshot: --out FILE")
			}
			if out == "-" {
				// Not stdout: stdout carries the summary (table, JSON
				// or CSV), and a snapshot is a restore point, written
				// to a file that is fsynced, never overwritten and
				// read back by reset --to file:FILE. It made a file
				// named "-" and suggested --to file:-.
				return exitcode.Usagef("--out -: a snapshot is written to a file, not to stdout (stdout has the summary); name a file, then restore with reset --to file:FILE")
			}
			for _, g := range sel.Groups {
				if err := admin.CheckGroupName(g); err != nil {
					return exitcode.AsUsage(err)
				}
			}
			if err := checkOut("--out", out, durable.CheckNew, "cannot be created", "a snapshot never overwrites"); err != nil {
				return err
			}
			return a.runSnapshot(cmd.Context(), lag.Dedupe(sel.Groups), sel, out)
		},
	}
	fl := cmd.Flags()
	gs.flags(fl, "every consumer group (share groups are skipped with a warning; so are they with --regex)")
	fl.StringVar(&out, "out", "", "file to write (must not exist)")
	return cmd
}

func (a *app) runSnapshot(ctx context.Context, groups []string, sel selection, out string) error {
	cfg, adm, err := a.admin(ctx)
	if err != nil {
		return err
	}
	defer adm.Close()
	gctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	// Unmatched groups are never described or fetched.
	req := lag.GatherRequest{Groups: groups, AllGroups: len(groups) == 0, Match: sel.Match}
	named := len(groups) > 0
	snap, err := lag.Gather(gctx, adm, req)
	if err != nil {
		return a.planErr(cfg, gctx, err)
	}
	for _, g := range snap.SkippedShare {
		// Its restore would change it in a bulk run: named, it is saved.
		a.warnf("%s", lag.ShareSkipWarning(g, "snapshot it"))
	}
	if len(groups) == 0 {
		for _, g := range snap.Groups {
			if err := admin.CheckGroupName(g.Group); err != nil {
				a.warnf("skipping %v", err)
				continue
			}
			groups = append(groups, g.Group)
		}
		if sel.Match != nil && len(groups) == 0 {
			// As the other commands that select: a pattern that matches
			// nothing is bad input, not an empty snapshot.
			return sel.noMatch("consumer group", snap.SkippedKind, "snapshot")
		}
	}
	a.warnUnmatched(sel, snap.SkippedKind, "snapshot")
	bgs, missing, err := audit.SnapshotGroups(snap, groups)
	if err != nil {
		return fmt.Errorf("no snapshot written: %w", err)
	}
	if named && len(missing) > 0 {
		// A snapshot is a restore point: one that silently lacks a group
		// it was asked for restores less than was meant. Named groups
		// are the command line's, so a missing one is bad input, as a
		// snapshot of only missing groups was already: nothing is
		// written (it wrote the others and exited 0 with a warning).
		return exitcode.Usagef("no snapshot written: no such group: %s", shortNames(missing))
	}
	for _, g := range missing {
		// Listed, then gone before it was read (deleted meanwhile): a
		// selection saves the groups that exist.
		a.warnf("group %s does not exist: not in the snapshot", safetext.Arg(g))
	}
	if err := admin.WriteBackupFile(out, a.now(), a.backupClusterID(ctx, cfg, adm, "snapshot"), bgs); err != nil {
		return err
	}
	res := report.SnapshotResult{File: out, Groups: []report.SnapshotGroup{}}
	committed := 0
	for _, bg := range bgs {
		sg := report.SnapshotGroup{Group: bg.Group}
		for _, r := range bg.Rows {
			if r.NoCommit {
				sg.NoCommit++
			} else {
				sg.Committed++
			}
		}
		res.Groups = append(res.Groups, sg)
		committed += sg.Committed
	}
	// The file is the snapshot: it is confirmed on stderr whatever
	// became of the table on stdout (a reader that left, stdout.go).
	werr := report.Snapshot(a.stdout, a.format, res)
	if len(bgs) == 0 {
		// A restore of it would be refused as a plan with no rows.
		a.infof("snapshot of 0 groups written to %s: there is nothing to restore from it", out)
		return werr
	}
	if committed == 0 {
		// Groups that exist with no committed offset (members that never
		// committed, offsets deleted): the file holds only their markers,
		// which diff compares with, but a restore of it is refused as a
		// plan with no rows, so no restore command is printed.
		a.infof("snapshot of %d group(s) written to %s: it holds no committed offsets, so there is nothing to restore from it (%s diff %s compares the groups with it later)", len(bgs), out, a.prog(), shellQuote(out))
		return werr
	}
	a.infof("snapshot of %d group(s) written to %s (restore: %s reset --all-groups --to %s --execute)", len(bgs), out, a.prog(), shellQuote("file:"+out))
	return werr
}

func shortNames(names []string) string {
	return safetext.ArgList(names, 5)
}

func (a *app) diffCmd() *cobra.Command {
	var exitCode, allGroups bool
	var translate string
	cmd := &cobra.Command{
		Use:   "diff SNAPSHOT [SNAPSHOT] | --profile A --profile B GROUP...",
		Short: "Compare committed offsets: two snapshots, a snapshot with the cluster now, or two clusters",
		Long: `diff compares committed offsets, per group and partition, in two forms.

diff SNAPSHOT [SNAPSHOT] compares a snapshot (or any backup) with a second
snapshot, or with the live cluster when the second is left out: every
partition whose offset differs (a missing or no-commit partition counts as
no commit), and the groups that appeared or vanished. Against the cluster,
only the snapshot's groups are compared unless --all-groups (then a group
created since shows as appeared).

diff --profile A --profile B GROUP... compares the named groups' commits on
two clusters (two profiles of the profiles file), by topic and partition:
same, differs, only-a or only-b. With --translate ALIAS, B's commits are
compared with MirrorMaker 2's translation of A's (docs/translate.md).

Both exit 0 whether or not there are differences; --exit-code makes them
exit 1 when there are. A snapshot of another cluster than the other side
(its offsetctl:cluster line, the connected cluster's id) is compared too,
with a warning on stderr: its rows are two clusters' differences.`,
		Example: `  offsetctl diff before.csv
  offsetctl diff before.csv after.csv -o json
  offsetctl diff before.csv --exit-code >/dev/null || echo "offsets moved"
  offsetctl diff --profile primary --profile dr orders-app --exit-code
  offsetctl diff --profile primary --profile dr orders-app --translate primary -o json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if a.crossDiff() {
				return nil // groups: checked by runCrossDiff
			}
			switch len(args) {
			case 1, 2:
				return nil
			case 0:
				return exitcode.Usagef("name the snapshot to compare: %s", usageLine(cmd))
			}
			return exitcode.Usagef("diff takes one or two snapshots, got %d: %s: %s", len(args), quoteArgs(args), usageLine(cmd))
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := a.diffModeFlags(cmd.Flags(), len(args)); err != nil {
				return err
			}
			if a.crossDiff() {
				return a.runCrossDiff(cmd, args, translate, exitCode)
			}
			before, fromCluster, err := a.readState(args[0])
			if err != nil {
				return err
			}
			res := report.DiffResult{From: args[0], To: "live", FromCluster: fromCluster}
			var after audit.State
			if len(args) == 2 {
				res.To = args[1]
				if after, res.ToCluster, err = a.readState(args[1]); err != nil {
					return err
				}
			} else {
				if after, res.ToCluster, err = a.liveState(cmd.Context(), before, allGroups); err != nil {
					return err
				}
			}
			a.warnDiffClusters(res)
			changes := audit.Diff(before, after)
			res.Changes, res.GroupDiff = audit.Rows(changes), audit.Groups(before, after)
			werr := report.Diff(a.stdout, a.format, res)
			if n := len(changes) + len(res.Appeared) + len(res.Vanished); exitCode && n > 0 {
				return withOutput(&exitcode.Error{Code: exitcode.Failure, Err: fmt.Errorf("%d difference(s)", n)}, werr)
			}
			return werr
		},
	}
	cmd.Flags().BoolVar(&exitCode, "exit-code", false, "exit 1 when there are differences (like git diff --exit-code)")
	cmd.Flags().StringVar(&translate, "translate", "", "with --profile A --profile B: compare B's commits with MirrorMaker 2's translation of A's (A's alias in MM2)")
	cmd.Flags().BoolVar(&allGroups, "all-groups", false, "diff SNAPSHOT against the cluster: compare every consumer group, not only the snapshot's (new groups show as appeared; not in a cluster diff)")
	return cmd
}

// diffModeFlags refuses each of diff's own flags in the mode where it
// would do nothing, before anything is read: --exit-code works in every
// mode; --translate only across two clusters; --all-groups only for a
// snapshot against the cluster (a cluster diff compares the groups named,
// and ignored it).
func (a *app) diffModeFlags(fl *pflag.FlagSet, nargs int) error {
	translate, _ := fl.GetString("translate")
	switch cross := a.crossDiff(); {
	case fl.Changed("translate") && translate == "":
		return exitcode.Usagef("--translate: name A's MirrorMaker 2 alias (it is empty)")
	case cross && fl.Changed("all-groups"):
		return exitcode.Usagef("--all-groups goes with a diff of a snapshot against the cluster: a cluster diff (--profile A --profile B) compares the groups named")
	case !cross && fl.Changed("translate"):
		return exitcode.Usagef("--translate compares two clusters: give --profile A --profile B and the groups")
	case !cross && nargs == 2 && fl.Changed("all-groups"):
		return exitcode.Usagef("--all-groups is for a diff against the cluster: two snapshots are compared whole")
	}
	return nil
}

// readState reads a snapshot or backup file (four columns: a group on
// every row), and the id of the cluster it records ("" when none).
func (a *app) readState(path string) (audit.State, string, error) {
	data, err := inputfile.Read(path, inputfile.PlanLimit, a.timeout)
	if err != nil {
		return nil, "", exitcode.Usagef("reading snapshot: %v", err)
	}
	pf, err := admin.ParsePlanCSV(data)
	if err != nil {
		return nil, "", exitcode.Usagef("snapshot %s: %v", path, err)
	}
	if len(pf.Rows) == 0 && len(pf.Backups) == 0 && pf.ClusterID == "" {
		// An empty or cut file, or one of blank lines only: it would
		// compare as a snapshot of nothing and pass --exit-code. A
		// snapshot names its cluster and each of its groups (a backup
		// marker per group, even one with no commits), so a snapshot of
		// a cluster without groups is not refused.
		return nil, "", exitcode.Usagef("snapshot %s holds no group (an empty or cut file?): diff compares files that snapshot or a backup wrote", safetext.Arg(path))
	}
	if pf.Columns != 4 {
		return nil, "", exitcode.Usagef("snapshot %s has no group column (topic,partition,offset): diff needs group,topic,partition,offset rows, as snapshot writes", path)
	}
	return audit.StateOfPlan(pf), pf.ClusterID, nil
}

// warnDiffClusters says, when the two sides of a diff are of different
// clusters, that its rows compare two clusters' offsets: an operator
// reads a diff of snapshots as how one cluster's groups moved between
// them, and a snapshot compared with another cluster (pointed at the
// wrong cluster, or at another cluster's file) shows as moves what are
// two clusters' differences. It is said, not refused: diff changes
// nothing, and comparing a primary's snapshot with its DR cluster is
// something to want. JSON has both ids (from_cluster, to_cluster).
func (a *app) warnDiffClusters(res report.DiffResult) {
	if res.FromCluster == "" || res.ToCluster == "" || res.FromCluster == res.ToCluster {
		return
	}
	to := fmt.Sprintf("%s is of cluster %s", safetext.Arg(res.To), safetext.Arg(res.ToCluster))
	if res.To == "live" {
		to = fmt.Sprintf("the cluster connected now is %s", safetext.Arg(res.ToCluster))
	}
	a.warnf("%s is a snapshot of cluster %s, and %s: the rows compare two clusters' offsets, not one cluster's at two times", safetext.Arg(res.From), safetext.Arg(res.FromCluster), to)
}

// liveState is the committed offsets now of A's groups, or with all of
// every consumer group, and the id of the cluster they are of ("" when
// it does not say).
func (a *app) liveState(ctx context.Context, of audit.State, all bool) (audit.State, string, error) {
	cfg, adm, err := a.admin(ctx)
	if err != nil {
		return nil, "", err
	}
	defer adm.Close()
	id, _ := clusterIDNow(ctx, cfg, adm) // only said: the diff goes on without it
	gctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	listed, err := lag.ListGroups(gctx, adm)
	if err != nil {
		return nil, "", a.planErr(cfg, gctx, err)
	}
	exists := map[string]bool{}
	var groups []string
	for _, g := range lag.ConsumerGroupNames(listed) {
		exists[g] = true
		if all || of[g] != nil {
			groups = append(groups, g)
		}
	}
	for g := range of {
		if !exists[g] {
			groups = append(groups, g) // deleted since, or never listed: its commits say
		}
	}
	live, failed := audit.StateOfCommits(lag.FetchCommits(gctx, adm, groups))
	if len(failed) > 0 {
		var errs []error
		for g, err := range failed {
			errs = append(errs, fmt.Errorf("group %s: %w", g, err))
		}
		return nil, "", fmt.Errorf("reading the cluster's offsets: %w", errors.Join(errs...))
	}
	for g, ps := range live {
		if !exists[g] && len(ps) == 0 {
			delete(live, g) // not listed and no commits: the group is gone
		}
	}
	return live, id, nil
}
