package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/offsetctl/offsetctl/admin"
	"github.com/offsetctl/offsetctl/audit"
	"github.com/offsetctl/offsetctl/internal/exitcode"
	"github.com/offsetctl/offsetctl/internal/safetext"
	"github.com/offsetctl/offsetctl/report"
)

func (a *app) deleteOffsetsCmd() *cobra.Command {
	var (
		topics  []string
		execute bool
		backup  string
	)
	cmd := &cobra.Command{
		Use:   "delete-offsets GROUP --topic T[:P,...]",
		Short: "Delete a group's committed offsets for some topics (dry run by default; --execute writes a backup first)",
		Example: `  offsetctl delete-offsets orders-billing --topic orders-old
  offsetctl delete-offsets orders-billing --topic orders:0,1 --execute`,
		Args: exactlyOne("the group"),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			group := args[0]
			if err := checkGroupArgs(args); err != nil {
				return err
			}
			if err := admin.CheckGroupName(group); err != nil {
				return exitcode.AsUsage(err)
			}
			if err := checkBackupFlag(cmd); err != nil {
				return err
			}
			if len(topics) == 0 {
				return exitcode.Usagef("name the offsets to delete: --topic TOPIC[:P,...] (repeatable)")
			}
			scope, err := admin.ParseScope(topics)
			if err != nil {
				return exitcode.Flag("--topic", err)
			}
			cfg, adm, err := a.admin(cmd.Context())
			if err != nil {
				return err
			}
			defer adm.Close()
			gctx, cancel := context.WithTimeout(cmd.Context(), cfg.Timeout)
			snap, err := admin.Gather(gctx, adm, admin.GatherRequest{Groups: []string{group}, Scope: scope, ExtraTopics: scope.TopicNames()})
			cancel()
			if err != nil {
				return a.planErr(cfg, gctx, err)
			}
			plan, err := admin.PlanDeleteOffsets(snap, group, scope)
			if err != nil {
				return exitcode.AsUsage(err)
			}
			if errs := plan.Errors(); len(errs) > 0 {
				if err := report.DeleteOffsets(a.stdout, a.format, plan); err != nil {
					return err
				}
				return fmt.Errorf("nothing was deleted: %w", reportErrors(errs))
			}
			if !execute {
				if err := report.DeleteOffsets(a.stdout, a.format, plan); err != nil {
					return err
				}
				// Fail the way --execute would (as reset's dry run does).
				if wf := plan.WouldFail(); len(wf) > 0 {
					return reportErrors(wf)
				}
				a.infof("dry run: nothing changed. Add --execute to delete these offsets.")
				return nil
			}
			rec, err := a.beginAudit(cmd.Context(), adm, audit.ActDeleteOffsets)
			if err != nil {
				return err
			}
			defer func() { err = rec.finish(err, deleteOffsetsAudit(&plan)) }()
			backup, err := writeBackup(backup, a.now(), []admin.BackupGroup{plan.BackupRows()})
			if err != nil {
				return fmt.Errorf("nothing was deleted: %w", err)
			}
			plan.Backup = backup
			ectx, cancel := context.WithTimeout(cmd.Context(), cfg.Timeout)
			defer cancel()
			if err := admin.ExecuteDeleteOffsets(ectx, adm, &plan); err != nil {
				return err
			}
			if err := report.DeleteOffsets(a.stdout, a.format, plan); err != nil {
				return err
			}
			if plan.DeleteRequests > 1 {
				a.infof("group %s: the delete exceeded the group coordinator's batch limit (1 MiB by default), so it was sent as %d OffsetDelete requests, each atomic", safetext.Arg(group), plan.DeleteRequests)
			}
			a.infof("%s", deleteOffsetsBackupLine(plan))
			return reportErrors(plan.Errors())
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVarP(&topics, "topic", "t", nil, "TOPIC (every partition) or TOPIC:P,P (repeatable, required)")
	fl.BoolVar(&execute, "execute", false, "delete (default: dry run)")
	fl.StringVar(&backup, "backup", "", "backup file written before deleting (default offsetctl-backup-GROUP-UTCTIME.csv)")
	return cmd
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
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			sel, err := gs.resolve(args, false)
			if err != nil {
				return err
			}
			args = sel.Groups
			// A group named twice is deleted (and backed up) once, as lag
			// shows it once.
			args = admin.Dedupe(args)
			if err := checkBackupFlag(cmd); err != nil {
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
			snap, err := admin.Gather(gctx, adm, admin.GatherRequest{Groups: args, AllGroups: sel.All, Match: sel.Match})
			cancel()
			if err != nil {
				return a.planErr(cfg, gctx, err)
			}
			if sel.All {
				if args = a.deletableGroups(snap); len(args) == 0 {
					return sel.noMatch("inactive consumer group")
				}
			}
			rows := admin.PlanDeleteGroups(snap, args)
			if !execute {
				if err := report.DeleteGroups(a.stdout, a.format, rows); err != nil {
					return err
				}
				// Fail the way --execute would (as reset's dry run does).
				if err := deleteGroupErrs(rows, true); err != nil {
					return err
				}
				a.infof("dry run: nothing changed. Add --execute to delete these groups.")
				return nil
			}
			bgs := admin.BackupGroups(snap, args)
			if len(bgs) == 0 {
				// No group exists: nothing to back up or delete.
				if err := report.DeleteGroups(a.stdout, a.format, rows); err != nil {
					return err
				}
				return deleteGroupErrs(rows, false)
			}
			rec, err := a.beginAudit(cmd.Context(), adm, audit.ActDeleteGroup)
			if err != nil {
				return err
			}
			var written string
			defer func() { err = rec.finish(err, deleteGroupAudit(&written, rows, bgs)) }()
			backup, err := writeBackup(backup, a.now(), bgs)
			written = backup
			if err != nil {
				return fmt.Errorf("nothing was deleted: %w", err)
			}
			ectx, cancel := context.WithTimeout(cmd.Context(), cfg.Timeout)
			defer cancel()
			if err := admin.ExecuteDeleteGroups(ectx, adm, rows); err != nil {
				return err
			}
			if err := report.DeleteGroups(a.stdout, a.format, rows); err != nil {
				return err
			}
			a.infof("%s", deleteGroupBackupLine(backup, rows, bgs))
			return deleteGroupErrs(rows, false)
		},
	}
	fl := cmd.Flags()
	gs.flags(fl, "every consumer group (live groups are skipped with a warning; so are they with --regex)")
	fl.BoolVar(&execute, "execute", false, "delete (default: dry run)")
	fl.StringVar(&backup, "backup", "", "backup file of the groups' offsets written before deleting (default offsetctl-backup-GROUP-UTCTIME.csv)")
	return cmd
}

// deletableGroups is the groups a pattern or --all-groups selected, less
// the live ones: the broker refuses to delete a group with members
// (NON_EMPTY_GROUP), so a selection skips and lists them, as reset
// --all-groups does, instead of failing part-way.
func (a *app) deletableGroups(snap *admin.Snapshot) []string {
	var out []string
	for _, g := range snap.Groups {
		if reason := admin.LiveGroupReason(g.GroupInfo); reason != "" && g.Err == nil {
			a.warnf("skipping: %s", reason)
			continue
		}
		out = append(out, g.Group)
	}
	return out
}

// deleteGroupErrs is the error of a delete-group run, one line naming each
// failed group; for a dry run (planned) also the failures --execute is
// expected to meet, worded as --execute words them.
func deleteGroupErrs(rows []admin.DeleteGroupRow, planned bool) error {
	var errs []string
	for _, r := range rows {
		switch {
		case r.Error != "":
			errs = append(errs, "group "+safetext.Arg(r.Group)+": "+r.Error)
		case planned && r.WouldFail != "":
			errs = append(errs, "group "+safetext.Arg(r.Group)+": "+r.WouldFail)
		}
	}
	return reportErrors(errs)
}

// deleteOffsetsBackupLine is the line saying where the backup is and how
// to undo what was deleted. After a partial failure the undo names only
// the deleted partitions (--topic): the others still have their offsets,
// which may have moved since the backup. A group that was live is refused
// by reset until its consumers stop, so the line says so.
func deleteOffsetsBackupLine(plan admin.DeleteOffsetsPlan) string {
	scope, whole := plan.UndoScope()
	if !whole && len(scope) == 0 {
		return fmt.Sprintf("backup of the offsets: %s (nothing was deleted)", safetext.Arg(plan.Backup))
	}
	label := "undo"
	if !whole {
		label = "undo of what was deleted"
	}
	if plan.Live {
		label += ", once the group's consumers have stopped"
	}
	cmd := "offsetctl reset " + groupArg(plan.Group) + " --to " + shellQuote("file:"+plan.Backup)
	for _, t := range scope {
		cmd += " --topic " + shellQuote(t)
	}
	return fmt.Sprintf("backup of the previous offsets: %s (%s: %s --execute)", safetext.Arg(plan.Backup), label, cmd)
}

// deleteGroupBackupLine is the line saying where the backup is and how to
// restore what was deleted. The backup holds every existing group named
// (it is written before deleting); when some of them were not deleted
// (NON_EMPTY_GROUP, ...), the restore names the deleted groups, since
// restoring the whole file would be refused for a live group and would
// roll back the offsets of the others.
func deleteGroupBackupLine(backup string, rows []admin.DeleteGroupRow, bgs []admin.BackupGroup) string {
	status := map[string]string{}
	for _, r := range rows {
		status[r.Group] = r.Status
	}
	var restore []string // deleted groups with offsets to restore
	deleted, all := 0, true
	for _, bg := range bgs {
		if status[bg.Group] != "deleted" && status[bg.Group] != admin.PartlyDeleted {
			all = false
			continue
		}
		if status[bg.Group] == admin.PartlyDeleted {
			all = false // name the groups: this one still exists
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
		return fmt.Sprintf("backup of the deleted offsets: %s (restore: offsetctl reset --to %s --execute)", safetext.Arg(backup), file)
	}
	names := make([]string, len(restore))
	for i, g := range restore {
		names[i] = groupArg(g)
	}
	return fmt.Sprintf("backup of the offsets: %s (restore the deleted groups: offsetctl reset %s --to %s --execute)", safetext.Arg(backup), strings.Join(names, " "), file)
}
