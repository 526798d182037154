package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/offsetctl/offsetctl/internal/admin"
	"github.com/offsetctl/offsetctl/internal/audit"
	"github.com/offsetctl/offsetctl/internal/change"
	"github.com/offsetctl/offsetctl/internal/cluster"
	"github.com/offsetctl/offsetctl/internal/exitcode"
	"github.com/offsetctl/offsetctl/internal/lag"
	"github.com/offsetctl/offsetctl/internal/safetext"
	"github.com/offsetctl/offsetctl/report"
)

// deleteOffsetsFlags are delete-offsets' flags.
type deleteOffsetsFlags struct {
	topics  []string
	execute bool
	backup  string
	sel     groupSelect
}

func (a *app) deleteOffsetsCmd() *cobra.Command {
	var f deleteOffsetsFlags
	cmd := &cobra.Command{
		Use:   "delete-offsets GROUP... | --all-groups | -r PATTERN... --topic T[:P,...]",
		Short: "Delete groups' committed offsets for some topics (dry run by default; --execute writes a backup first)",
		Example: `  offsetctl delete-offsets orders-billing --topic orders-old
  offsetctl delete-offsets orders-billing --topic orders:0,1 --execute
  offsetctl delete-offsets -r 'billing-.*' --exclude billing-audit --topic orders-old --execute`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runDeleteOffsets(cmd, args, f)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVarP(&f.topics, "topic", "t", nil, "TOPIC (every partition) or TOPIC:P,P (repeatable, required)")
	f.sel.flags(fl, "every consumer group with offsets on the topics (groups consuming them, and share groups, are skipped with a warning, and a live one makes the run exit 1; so with --regex)")
	fl.BoolVar(&f.execute, "execute", false, "delete (default: dry run)")
	fl.StringVar(&f.backup, "backup", "", "backup file written before deleting (default offsetctl-backup-GROUP-UTCTIME.csv)")
	return cmd
}

func (a *app) runDeleteOffsets(cmd *cobra.Command, args []string, f deleteOffsetsFlags) (err error) {
	sel, err := f.sel.resolve(args, false)
	if err != nil {
		return err
	}
	// A group named twice is planned (and backed up) once.
	sel.Groups = lag.Dedupe(sel.Groups)
	for _, g := range sel.Groups {
		if err := admin.CheckGroupName(g); err != nil {
			return exitcode.AsUsage(err)
		}
	}
	if err := a.checkChangeFiles(cmd); err != nil {
		return err
	}
	if len(f.topics) == 0 {
		return exitcode.Usagef("name the offsets to delete: --topic TOPIC[:P,...] (repeatable)")
	}
	scope, err := lag.ParseScope(f.topics)
	if err != nil {
		return exitcode.Flag("--topic", err)
	}
	cfg, adm, err := a.admin(cmd.Context())
	if err != nil {
		return err
	}
	defer adm.Close()
	gctx, cancel := context.WithTimeout(cmd.Context(), cfg.Timeout)
	snap, err := lag.Gather(gctx, adm, lag.GatherRequest{Groups: sel.Groups, AllGroups: sel.All, Match: sel.Match, Scope: scope, ExtraTopics: scope.TopicNames()})
	cancel()
	if err != nil {
		return a.planErr(cfg, gctx, err)
	}
	plans, skipped, live, err := a.planDeleteOffsets(snap, sel, scope)
	if err != nil {
		return err
	}
	a.warnUnmatched(sel, snap.SkippedKind, "delete-offsets")
	// One named group keeps the one-plan report; a selection (a pattern,
	// --all-groups or several names) always reports {"groups": [...]}.
	render := func() error {
		if len(sel.Groups) == 1 && !sel.All {
			return report.DeleteOffsets(a.stdout, a.format, plans[0])
		}
		// The groups a selection skipped are listed too, as reset lists
		// them: "skipped" says why, and nothing was done to them.
		return report.DeleteOffsetsGroups(a.stdout, a.format, append(slices.Clip(plans), skipped...))
	}
	// A plan that cannot be applied is a failure even when stdout's
	// reader left before its table was written (stdout.go).
	if errs := deleteOffsetsErrors(plans, false); len(errs) > 0 {
		return withOutput(fmt.Errorf("nothing was deleted: %w", change.ReportErrors(errs)), render())
	}
	if !f.execute {
		werr := render()
		// Fail the way --execute would (as reset's dry run does).
		if wf := deleteOffsetsErrors(plans, true); len(wf) > 0 {
			return withOutput(change.ReportErrors(wf), werr)
		}
		if len(live) > 0 {
			if werr == nil {
				a.infof("dry run: nothing changed. Add --execute to delete these offsets.")
			}
			return withOutput(&skippedLiveError{op: deleteOffsetsOp, groups: live, dryRun: true, none: len(plans) == 0}, werr)
		}
		if werr != nil {
			return werr
		}
		a.infof("dry run: nothing changed. Add --execute to delete these offsets.")
		return nil
	}
	if len(plans) == 0 {
		// Every selected group with offsets there is live: nothing is
		// sent, and the refusal is recorded, naming them, whatever
		// happens to stdout.
		werr := render()
		return withOutput(a.recordSkippedLive(cmd.Context(), adm, audit.ActDeleteOffsets, withSkippedLiveOp(deleteOffsetsOp, nil, live, true), live), werr)
	}
	return a.executeDeleteOffsets(cmd.Context(), cfg, adm, plans, live, f.backup, render)
}

// planDeleteOffsets plans each selected group. A selection (pattern or
// --all-groups) keeps only the groups with a commit in scope, and skips
// and lists those whose live members consume a scoped topic: the broker
// refuses those (GROUP_SUBSCRIBED_TO_TOPIC), and a selection never
// applies half. Named groups are planned as they are, refusals included.
//
// live names the groups skipped for their live members: the command
// fails for them (skippedLiveError).
func (a *app) planDeleteOffsets(snap *lag.Snapshot, sel selection, scope lag.Scope) (plans, skipped []admin.DeleteOffsetsPlan, live []string, err error) {
	names := sel.Groups
	if sel.All {
		names = nil
		for _, g := range snap.Groups {
			names = append(names, g.Group)
		}
	}
	empty := 0
	for _, g := range names {
		if err := admin.CheckGroupName(g); err != nil && sel.All {
			// Its offsets could not be backed up: a selection skips it,
			// as reset --all-groups does (named, it is bad input), and
			// lists it, as every group it skips.
			a.warnf("skipping %v", err)
			skipped = append(skipped, admin.DeleteOffsetsPlan{Group: g, Skipped: admin.UnbackableReason(g), Partitions: []admin.DeleteOffsetsRow{}})
			continue
		}
		plan, err := admin.PlanDeleteOffsets(snap, g, scope)
		if err != nil {
			return nil, nil, nil, exitcode.AsUsage(err)
		}
		if sel.All && plan.Error == "" {
			if !plan.HasCommits() {
				empty++
				continue
			}
			if len(plan.WouldFail()) > 0 {
				a.warnf("skipping: group %s has live members consuming these topics (stop them first)", safetext.Arg(g))
				skipped = append(skipped, plan.Skip("live members consume these topics"))
				live = append(live, g)
				continue
			}
		}
		plans = append(plans, plan)
	}
	for _, g := range snap.SkippedShare {
		const action = "delete its start offsets"
		a.warnf("%s", lag.ShareSkipWarning(g, action))
		skipped = append(skipped, admin.DeleteOffsetsPlan{Group: g, GroupType: lag.ShareType, Skipped: "share group: " + lag.ShareSkipped(action), Partitions: []admin.DeleteOffsetsRow{}})
	}
	if len(plans) == 0 && len(live) == 0 {
		// The one line of exit 2 says it all: no note before it.
		return nil, nil, nil, sel.noMatch("consumer group with offsets on these topics", snap.SkippedKind, "delete-offsets")
	}
	if sel.All && empty > 0 {
		a.notef("%d selected group(s) have no committed offsets on these topics", empty)
	}
	return plans, skipped, live, nil
}

// deleteOffsetsErrors lists every plan's errors, or with planned the
// failures --execute is expected to meet.
func deleteOffsetsErrors(plans []admin.DeleteOffsetsPlan, planned bool) []string {
	var out []string
	for _, p := range plans {
		if planned {
			out = append(out, p.WouldFail()...)
		} else {
			out = append(out, p.Errors()...)
		}
	}
	return out
}

// executeDeleteOffsets hands the validated plans to the change engine
// (change.DeleteOffsets), which decides the order of the side effects;
// this supplies the backup file, the audit record and the printing.
func (a *app) executeDeleteOffsets(ctx context.Context, cfg cluster.Config, adm *cluster.Admin, plans []admin.DeleteOffsetsPlan, live []string, path string, render func() error) (err error) {
	rec, err := a.beginAudit(ctx, adm, audit.ActDeleteOffsets)
	if err != nil {
		return err
	}
	defer func() { err = rec.finish(err, deleteOffsetsAudit(plans, live)) }()
	eng := &change.DeleteOffsets{
		Plans: plans, Admin: adm, Timeout: cfg.Timeout,
		WriteBackup: func(groups []admin.BackupGroup) (string, error) {
			return writeBackup(path, a.now(), a.backupClusterID(ctx, cfg, adm, "backup"), groups)
		},
		Intent: func() error { return rec.writeIntent(deleteOffsetsAudit(plans, live)) },
		// The live groups the selection skipped are part of the outcome.
		Outcome: func(err error) error {
			return rec.finish(withSkippedLiveOp(deleteOffsetsOp, err, live, false), deleteOffsetsAudit(plans, live))
		},
		Report: func(err error) error { return a.reportDeleteOffsets(plans, render, err) },
	}
	return loudAfterChange(eng.Execute(ctx))
}

// reportDeleteOffsets prints the plans (stdout), the backup and undo
// lines (stderr), and returns the delete's error err, with a failure to
// print the plans.
func (a *app) reportDeleteOffsets(plans []admin.DeleteOffsetsPlan, render func() error, err error) error {
	// What was done goes to stderr whatever happens to
	// stdout: a closed pipe must not hide the undo line.
	rerr := render()
	for _, p := range plans {
		if p.DeleteRequests > 1 {
			a.notef("group %s: the delete exceeded the group coordinator's batch limit (1 MiB by default), so it was sent as %d OffsetDelete requests, each atomic", safetext.Arg(p.Group), p.DeleteRequests)
		}
	}
	for _, line := range deleteOffsetsBackupLines(a.prog(), plans) {
		a.infof("%s", line)
	}
	if rerr != nil {
		return errors.Join(err, rerr)
	}
	return err
}

func (a *app) deleteGroupCmd() *cobra.Command {
	var (
		execute bool
		backup  string
		gs      groupSelect
	)
	cmd := &cobra.Command{
		Use:   "delete-group GROUP... | --all-groups | -r PATTERN...",
		Short: "Delete consumer groups and all their offsets (dry run by default; --execute writes a backup first)",
		Example: `  offsetctl delete-group old-billing
  offsetctl delete-group old-billing old-audit --execute
  offsetctl delete-group -r 'old-.*' --exclude old-audit --execute`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runDeleteGroup(cmd, args, gs, execute, backup)
		},
	}
	fl := cmd.Flags()
	gs.flags(fl, "every consumer group (live groups and share groups are skipped with a warning, and a live consumer group makes the run exit 1; so with --regex)")
	fl.BoolVar(&execute, "execute", false, "delete (default: dry run)")
	fl.StringVar(&backup, "backup", "", "backup file of the groups' offsets written before deleting (default offsetctl-backup-GROUP-UTCTIME.csv)")
	return cmd
}

// runDeleteGroup checks the selection, gathers the groups, plans the
// deletes and, with --execute, hands them to executeDeleteGroup.
func (a *app) runDeleteGroup(cmd *cobra.Command, args []string, gs groupSelect, execute bool, backup string) error {
	sel, err := gs.resolve(args, false)
	if err != nil {
		return err
	}
	args = sel.Groups
	// A group named twice is deleted (and backed up) once, as lag
	// shows it once.
	args = lag.Dedupe(args)
	if err := a.checkChangeFiles(cmd); err != nil {
		return err
	}
	for _, g := range args {
		if err := admin.CheckGroupName(g); err != nil {
			return exitcode.AsUsage(err)
		}
	}
	cfg, adm, err := a.admin(cmd.Context())
	if err != nil {
		return err
	}
	defer adm.Close()
	gctx, cancel := context.WithTimeout(cmd.Context(), cfg.Timeout)
	snap, err := lag.Gather(gctx, adm, lag.GatherRequest{Groups: args, AllGroups: sel.All, Match: sel.Match})
	cancel()
	if err != nil {
		return a.planErr(cfg, gctx, err)
	}
	var skipped []admin.DeleteGroupRow
	var live []string // the groups the selection skipped as live: the run fails for them
	if sel.All {
		var liveRows, unbackable []admin.DeleteGroupRow
		args, liveRows, unbackable = a.deletableGroups(snap)
		if len(args) == 0 && len(liveRows) == 0 {
			// "inactive" only where groups matched and were all live:
			// of a selection that matched none it reads as if some had.
			what := "consumer group"
			if len(snap.Groups) > 0 {
				what = "inactive consumer group"
			}
			return sel.noMatch(what, snap.SkippedKind, "delete-group")
		}
		for _, r := range liveRows {
			live = append(live, r.Group)
		}
		skipped = append(append(liveRows, unbackable...), shareSkippedRows(snap)...)
	}
	a.warnUnmatched(sel, snap.SkippedKind, "delete-group")
	rows := admin.PlanDeleteGroups(snap, args)
	// The share groups the selection skipped are rows of the
	// report too, as reset and delete-offsets list them; they
	// are never in rows, so never backed up or deleted.
	show := func() error {
		return report.DeleteGroups(a.stdout, a.format, append(slices.Clip(rows), skipped...))
	}
	if refusals := admin.DeleteGroupsRefusals(rows); len(refusals) > 0 {
		// Before the backup and the audit entry: nothing is written.
		return withOutput(fmt.Errorf("nothing was deleted: %s", strings.Join(refusals, "; ")), show())
	}
	if !execute {
		werr := show()
		// Fail the way --execute would (as reset's dry run does).
		if err := deleteGroupErrs(rows, true); err != nil {
			return withOutput(err, werr)
		}
		if len(live) > 0 {
			if werr == nil {
				a.infof("dry run: nothing changed. Add --execute to delete these groups.")
			}
			return withOutput(&skippedLiveError{op: deleteGroupOp, groups: live, dryRun: true, none: len(args) == 0}, werr)
		}
		if werr != nil {
			return werr
		}
		a.infof("dry run: nothing changed. Add --execute to delete these groups.")
		return nil
	}
	if len(args) == 0 {
		// Every selected group is live: nothing is sent, and the
		// refusal is recorded, naming them, whatever happens to stdout.
		werr := show()
		return withOutput(a.recordSkippedLive(cmd.Context(), adm, audit.ActDeleteGroup, withSkippedLiveOp(deleteGroupOp, nil, live, true), live), werr)
	}
	bgs := admin.BackupGroups(snap, args)
	if len(bgs) == 0 {
		// No group exists: nothing to back up or delete.
		return withOutput(deleteGroupErrs(rows, false), show())
	}
	return a.executeDeleteGroup(cmd.Context(), cfg, adm, rows, bgs, live, backup, show)
}

// executeDeleteGroup hands the validated plan to the change engine
// (change.DeleteGroups), which decides the order of the side effects;
// this supplies the backup file, the audit record and the printing.
func (a *app) executeDeleteGroup(ctx context.Context, cfg cluster.Config, adm *cluster.Admin, rows []admin.DeleteGroupRow, bgs []admin.BackupGroup, live []string, backup string, show func() error) (err error) {
	rec, err := a.beginAudit(ctx, adm, audit.ActDeleteGroup)
	if err != nil {
		return err
	}
	eng := &change.DeleteGroups{Rows: rows, Groups: bgs, Admin: adm, Timeout: cfg.Timeout}
	defer func() { err = rec.finish(err, deleteGroupAudit(&eng.Backup, rows, bgs, live)) }()
	eng.WriteBackup = func(groups []admin.BackupGroup) (string, error) {
		return writeBackup(backup, a.now(), a.backupClusterID(ctx, cfg, adm, "backup"), groups)
	}
	eng.Intent = func() error { return rec.writeIntent(deleteGroupAudit(&eng.Backup, rows, bgs, live)) }
	// The live groups the selection skipped are part of the outcome.
	eng.Outcome = func(err error) error {
		return rec.finish(withSkippedLiveOp(deleteGroupOp, err, live, false), deleteGroupAudit(&eng.Backup, rows, bgs, live))
	}
	eng.Report = func(err error) error {
		// The backup line whatever happens to stdout.
		rerr := show()
		a.infof("%s", deleteGroupBackupLine(a.prog(), eng.Backup, rows, bgs))
		if rerr != nil {
			return errors.Join(err, rerr)
		}
		return err
	}
	return loudAfterChange(eng.Execute(ctx))
}

// deletableGroups is the groups a pattern or --all-groups selected, less
// the live ones: the broker refuses to delete a group with members
// (NON_EMPTY_GROUP), so a selection skips and lists them, as reset
// --all-groups does, instead of failing part-way.
//
// live are the report rows of the skipped consumer groups with members:
// the run fails for them (a Streams or Connect group is skipped for its
// kind, never counted).
//
// unbackable are the rows of the groups skipped because their names
// cannot be written to a backup.
func (a *app) deletableGroups(snap *lag.Snapshot) (out []string, live, unbackable []admin.DeleteGroupRow) {
	for _, g := range snap.SkippedShare {
		a.warnf("%s", lag.ShareSkipWarning(g, "delete it"))
	}
	for _, g := range snap.Groups {
		if err := admin.CheckGroupName(g.Group); err != nil {
			a.warnf("skipping %v", err) // its offsets could not be backed up
			unbackable = append(unbackable, admin.DeleteGroupRow{Group: g.Group, Type: g.Type, State: g.State, Members: len(g.Members), Status: "skipped", Skipped: admin.UnbackableReason(g.Group)})
			continue
		}
		if reason := admin.LiveGroupReasonTo(g.GroupInfo, "deleted"); reason != "" && g.Err == nil {
			a.warnf("skipping: %s", reason)
			if g.Type != "streams" && g.IsConsumer() {
				commits := 0
				g.Commits.Each(func(string, int32, lag.Commit) { commits++ })
				live = append(live, admin.DeleteGroupRow{Group: g.Group, Type: g.Type, State: g.State, Members: len(g.Members), Commits: commits, Status: "skipped", Skipped: "active group (" + g.State + ")"})
			}
			continue
		}
		out = append(out, g.Group)
	}
	return out, live, unbackable
}

// shareSkippedRows are the report rows of the share groups a selection
// skipped (deletableGroups warns about each).
func shareSkippedRows(snap *lag.Snapshot) []admin.DeleteGroupRow {
	var out []admin.DeleteGroupRow
	for _, g := range snap.SkippedShare {
		out = append(out, admin.DeleteGroupRow{Group: g, Type: lag.ShareType, Status: "skipped", Skipped: "share group: " + lag.ShareSkipped("delete it")})
	}
	return out
}

// deleteGroupErrs is change.DeleteGroupErrs (the engine's error lines),
// for the dry run and the checks before the change.
func deleteGroupErrs(rows []admin.DeleteGroupRow, planned bool) error {
	return change.DeleteGroupErrs(rows, planned)
}

// deleteOffsetsBackupLines say where the backup is and how to undo what
// was deleted: one line for one group, else the backup and one undo line
// per group that lost offsets.
func deleteOffsetsBackupLines(prog string, plans []admin.DeleteOffsetsPlan) []string {
	if len(plans) == 1 {
		return []string{deleteOffsetsBackupLine(prog, plans[0])}
	}
	lines := []string{fmt.Sprintf("backup of the previous offsets of %d groups: %s", len(plans), safetext.Arg(plans[0].Backup))}
	for _, p := range plans {
		if undo, label := deleteOffsetsUndo(prog, p); undo != "" {
			lines = append(lines, fmt.Sprintf("%s of group %s: %s --execute", label, safetext.Arg(p.Group), undo))
		}
	}
	if len(lines) == 1 {
		lines[0] += " (nothing was deleted)"
	}
	return lines
}

// deleteOffsetsBackupLine is the line saying where the backup is and how
// to undo what was deleted.
func deleteOffsetsBackupLine(prog string, plan admin.DeleteOffsetsPlan) string {
	unknown := 0
	for _, r := range plan.Partitions {
		if r.Unanswered {
			unknown++
		}
	}
	if unknown > 0 {
		// Never "nothing was deleted" when it may have been.
		return fmt.Sprintf("backup of the previous offsets: %s (whether %d offset(s) were deleted is unknown: check with: %s lag %s; restore whatever was deleted: %s reset %s --to %s --execute)",
			safetext.Arg(plan.Backup), unknown, prog, groupArg(plan.Group), prog, groupArg(plan.Group), shellQuote("file:"+plan.Backup))
	}
	undo, label := deleteOffsetsUndo(prog, plan)
	if undo == "" {
		return fmt.Sprintf("backup of the offsets: %s (nothing was deleted)", safetext.Arg(plan.Backup))
	}
	return fmt.Sprintf("backup of the previous offsets: %s (%s: %s --execute)", safetext.Arg(plan.Backup), label, undo)
}

// deleteOffsetsUndo is the command that restores what plan deleted from
// its backup, and its label; "" when nothing was deleted. After a partial
// failure the undo names only the deleted partitions (--topic): the others
// still have their offsets, which may have moved since the backup. A group
// that was live is refused by reset until its consumers stop, so the label
// says so.
func deleteOffsetsUndo(prog string, plan admin.DeleteOffsetsPlan) (cmd, label string) {
	scope, whole := plan.UndoScope()
	if !whole && len(scope) == 0 {
		return "", ""
	}
	label = "undo"
	if !whole {
		label = "undo of what was deleted"
	}
	if plan.Live {
		label += ", once the group's consumers have stopped"
	}
	cmd = prog + " reset " + groupArg(plan.Group) + " --to " + shellQuote("file:"+plan.Backup)
	for _, t := range scope {
		cmd += " --topic " + shellQuote(t)
	}
	return cmd, label
}

// deleteGroupBackupLine is the line saying where the backup is and how to
// restore what was deleted. The backup holds every existing group named
// (it is written before deleting); when some of them were not deleted
// (NON_EMPTY_GROUP, ...), the restore names the deleted groups, since
// restoring the whole file would be refused for a live group and would
// roll back the offsets of the others.
func deleteGroupBackupLine(prog, backup string, rows []admin.DeleteGroupRow, bgs []admin.BackupGroup) string {
	status := map[string]string{}
	for _, r := range rows {
		status[r.Group] = r.Status
	}
	var restore []string // deleted groups with offsets to restore
	deleted, all := 0, true
	for _, bg := range bgs {
		st := status[bg.Group]
		if st != "deleted" && st != admin.PartlyDeleted && st != admin.DeleteUnknown {
			all = false
			continue
		}
		if st != "deleted" {
			all = false // name the groups: this one may still exist
		}
		deleted++
		if len(bg.Rows) > 0 {
			restore = append(restore, bg.Group)
		}
	}
	file := shellQuote("file:" + backup)
	switch {
	case deleted == 0:
		return fmt.Sprintf("backup of the offsets: %s (nothing was deleted)", safetext.Arg(backup))
	case len(restore) == 0:
		return fmt.Sprintf("backup: %s (the deleted groups had no committed offsets)", safetext.Arg(backup))
	case all:
		return fmt.Sprintf("backup of the deleted offsets: %s (restore: %s reset --to %s --execute)", safetext.Arg(backup), prog, file)
	}
	names := make([]string, len(restore))
	for i, g := range restore {
		names[i] = groupArg(g)
	}
	return fmt.Sprintf("backup of the offsets: %s (restore the deleted groups: %s reset %s --to %s --execute)", safetext.Arg(backup), prog, strings.Join(names, " "), file)
}
