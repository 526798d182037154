package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/offsetctl/offsetctl/admin"
	"github.com/offsetctl/offsetctl/internal/exitcode"
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
		RunE: func(cmd *cobra.Command, args []string) error {
			group := args[0]
			if group == "" {
				return exitcode.Usagef("empty group name")
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
				return exitcode.AsUsage(err)
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
				a.infof("group %s: the delete exceeded the group coordinator's batch limit (1 MiB by default), so it was sent as %d OffsetDelete requests, each atomic", group, plan.DeleteRequests)
			}
			deleted := 0
			for _, r := range plan.Partitions {
				if r.Status == "deleted" {
					deleted++
				}
			}
			if deleted > 0 {
				a.infof("backup of the previous offsets: %s (undo: offsetctl reset %s --to %s --execute)", backup, shellQuote(group), shellQuote("file:"+backup))
			} else {
				a.infof("backup of the offsets: %s (nothing was deleted)", backup)
			}
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
	)
	cmd := &cobra.Command{
		Use:   "delete-group GROUP...",
		Short: "Delete consumer groups and all their offsets (dry run by default; --execute writes a backup first)",
		Example: `  offsetctl delete-group old-billing
  offsetctl delete-group old-billing old-audit --execute`,
		Args: atLeastOne("the group(s) to delete"),
		RunE: func(cmd *cobra.Command, args []string) error {
			for _, g := range args {
				if g == "" {
					return exitcode.Usagef("empty group name")
				}
			}
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
			snap, err := admin.Gather(gctx, adm, admin.GatherRequest{Groups: args})
			cancel()
			if err != nil {
				return a.planErr(cfg, gctx, err)
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
			backup, err := writeBackup(backup, a.now(), bgs)
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
			n := 0
			for _, bg := range bgs {
				n += len(bg.Rows)
			}
			if n > 0 {
				a.infof("backup of the deleted offsets: %s (restore: offsetctl reset --to %s --execute)", backup, shellQuote("file:"+backup))
			} else {
				a.infof("backup: %s (the groups had no committed offsets)", backup)
			}
			return deleteGroupErrs(rows, false)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&execute, "execute", false, "delete (default: dry run)")
	fl.StringVar(&backup, "backup", "", "backup file of the groups' offsets written before deleting (default offsetctl-backup-GROUP-UTCTIME.csv)")
	return cmd
}

// deleteGroupErrs is the error of a delete-group run, one line naming each
// failed group; for a dry run (planned) also the failures --execute is
// expected to meet, worded as --execute words them.
func deleteGroupErrs(rows []admin.DeleteGroupRow, planned bool) error {
	var errs []string
	for _, r := range rows {
		switch {
		case r.Error != "":
			errs = append(errs, "group "+r.Group+": "+r.Error)
		case planned && r.WouldFail != "":
			errs = append(errs, "group "+r.Group+": "+r.WouldFail)
		}
	}
	return reportErrors(errs)
}
