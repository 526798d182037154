package change

import (
	"context"
	"fmt"
	"time"

	"github.com/offsetctl/offsetctl/internal/admin"
	"github.com/offsetctl/offsetctl/internal/cluster"
	"github.com/offsetctl/offsetctl/internal/safetext"
)

// DeleteOffsets is the change engine of validated delete-offsets plans:
// Execute runs their side effects in the order of Execute (change.go):
//
//  1. the plans were validated by the caller (no plan has errors);
//  2. Backup: one backup of every plan's offsets, written and fsynced;
//     its path becomes every plan's Backup;
//  3. Intent: the audit intent;
//  4. apply: each group's offsets deleted in turn and read back
//     (admin.ExecuteDeleteOffsets, each within Timeout); groups are
//     independent, so one group's failure does not stop the others, and
//     any failure is the change's error;
//  5. Outcome: the audit outcome, from what was deleted and read back;
//  6. Report: the plans, the backup and undo lines.
type DeleteOffsets struct {
	// Plans are changed in place (Backup, each row's result): the
	// caller's hooks read them.
	Plans []admin.DeleteOffsetsPlan
	Admin *cluster.Admin
	// Timeout bounds each group's delete and read-back.
	Timeout time.Duration

	// What the command supplies; Execute decides when each runs.
	WriteBackup func(groups []admin.BackupGroup) (path string, err error)
	Intent      func() error
	Outcome     func(applyErr error) error
	// Report prints the result (the plans, the backup and undo lines)
	// and returns the command's final error.
	Report func(err error) error
}

// Execute runs the delete (see DeleteOffsets).
func (d *DeleteOffsets) Execute(ctx context.Context) error {
	plans := d.Plans
	bgs := make([]admin.BackupGroup, len(plans))
	for i := range plans {
		bgs[i] = plans[i].BackupRows()
	}
	return Execute(Steps{
		Backup: func() error {
			backup, err := d.WriteBackup(bgs)
			if err != nil {
				return fmt.Errorf("nothing was deleted: %w", err)
			}
			for i := range plans {
				plans[i].Backup = backup
			}
			return nil
		},
		Intent:  d.Intent,
		Apply:   func() error { return d.apply(ctx) },
		Outcome: d.Outcome,
		Report:  d.Report,
	})
}

// apply deletes each group's offsets in turn, each within Timeout, and
// returns every group's failure and every partition's error.
func (d *DeleteOffsets) apply(ctx context.Context) error {
	plans := d.Plans
	var failed []string
	for i := range plans {
		ectx, cancel := context.WithTimeout(ctx, d.Timeout)
		err := admin.ExecuteDeleteOffsets(ectx, d.Admin, &plans[i])
		cancel()
		if err != nil {
			failed = append(failed, fmt.Sprintf("group %s: %v", safetext.Arg(plans[i].Group), err))
		}
	}
	for _, p := range plans {
		failed = append(failed, p.Errors()...)
	}
	return ReportErrors(failed)
}

// DeleteGroups is the change engine of a validated delete-group plan:
// Execute runs its side effects in the order of Execute (change.go):
//
//  1. the plan was validated by the caller (no refusals, and at least
//     one group exists to back up);
//  2. Backup: the backup of every existing group's offsets, written and
//     fsynced; its path is Backup from then on;
//  3. Intent: the audit intent;
//  4. apply: the groups deleted and read back (admin.ExecuteDeleteGroups,
//     within Timeout); every failed group is the change's error;
//  5. Outcome: the audit outcome, from each row's status;
//  6. Report: the rows, the backup and restore line.
type DeleteGroups struct {
	// Rows are changed in place (each group's status): the caller's
	// hooks read them.
	Rows []admin.DeleteGroupRow
	// Groups are what the backup holds: every existing group's offsets.
	Groups []admin.BackupGroup
	Admin  *cluster.Admin
	// Timeout bounds the deletes and their read-back.
	Timeout time.Duration

	// What the command supplies; Execute decides when each runs.
	WriteBackup func(groups []admin.BackupGroup) (path string, err error)
	Intent      func() error
	Outcome     func(applyErr error) error
	// Report prints the result (the rows, the backup and restore line)
	// and returns the command's final error.
	Report func(err error) error

	// Backup is the backup's path once it is written (Intent, Outcome
	// and Report read it); "" before.
	Backup string
}

// Execute runs the delete (see DeleteGroups).
func (d *DeleteGroups) Execute(ctx context.Context) error {
	return Execute(Steps{
		Backup: func() error {
			path, err := d.WriteBackup(d.Groups)
			if err != nil {
				return fmt.Errorf("nothing was deleted: %w", err)
			}
			d.Backup = path
			return nil
		},
		Intent: d.Intent,
		Apply: func() error {
			ectx, cancel := context.WithTimeout(ctx, d.Timeout)
			defer cancel()
			if err := admin.ExecuteDeleteGroups(ectx, d.Admin, d.Rows); err != nil {
				return err
			}
			return DeleteGroupErrs(d.Rows, false)
		},
		Outcome: d.Outcome,
		Report:  d.Report,
	})
}

// DeleteGroupErrs is the error of a delete-group run, one line naming
// each failed group; for a dry run (planned) also the failures --execute
// is expected to meet, worded as --execute words them.
func DeleteGroupErrs(rows []admin.DeleteGroupRow, planned bool) error {
	var errs []string
	for _, r := range rows {
		switch {
		case r.Error != "":
			errs = append(errs, "group "+safetext.Arg(r.Group)+": "+r.Error)
		case planned && r.WouldFail != "":
			errs = append(errs, "group "+safetext.Arg(r.Group)+": "+r.WouldFail)
		}
	}
	return ReportErrors(errs)
}
