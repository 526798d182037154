package change

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/offsetctl/offsetctl/internal/admin"
	"github.com/offsetctl/offsetctl/internal/cluster"
	"github.com/offsetctl/offsetctl/internal/coordretry"
	"github.com/offsetctl/offsetctl/internal/lag"
	"github.com/offsetctl/offsetctl/internal/safetext"
)

// Reset is the change engine of a validated reset plan (reset and undo):
// Execute runs its side effects in the order of Execute above, with the
// reset's own steps in between:
//
//  1. the plan was validated by the caller (admin.PlanReset: no errors,
//     no refusals); the groups with rows are the ones to change;
//  2. the transaction permission is checked with the first group a
//     transaction commits (InitProducerId changes no offsets, so it may
//     come before the backup and the intent);
//  3. Backup: the backup of every group to change, written and fsynced;
//  4. Intent: the audit intent;
//  5. apply: every group in its own transaction (admin.ExecuteResetTxn),
//     or --non-atomic split commits (admin.ExecuteReset), or a share
//     group's AlterShareGroupOffsets (admin.ExecuteShareReset), at most
//     Parallel groups at once, each with its read-back;
//  6. Outcome: the audit outcome, from what was applied and read back;
//  7. Report: the plan, the backup and undo line, what was done.
type Reset struct {
	Plan      *admin.Plan
	Admin     *cluster.Admin
	NonAtomic bool
	TxnPrefix string
	Parallel  int
	// Deadline bounds the whole change (the connection's timeout);
	// Resolve bounds settling a transaction whose EndTxn answer was lost.
	Deadline, Resolve time.Duration
	// Unreachable words a deadline the cluster did not answer by.
	Unreachable func(error) error
	// Prog is how a check command in an error starts: offsetctl and
	// the command's connection flags (admin.TxnOptions.Prog).
	Prog string

	// What the command supplies; Execute decides when each runs.
	WriteBackup func(groups []admin.BackupGroup) (path string, err error)
	Intent      func() error
	Outcome     func(applyErr error) error
	// Note says something during the change (stderr).
	Note func(format string, args ...any)
	// Report prints the result (the plan, the backup and undo line) and
	// returns the command's final error; with no group to change, Todo is
	// empty and nothing else ran.
	Report func(r ResetResult, err error) error
}

// ResetResult is what a reset did: the indexes in Plan.Groups of the
// groups it changed (or tried to), and the backup's path.
type ResetResult struct {
	Todo   []int
	Backup string
}

// TxnHint is added to every refusal of a transaction: what to do.
const TxnHint = "grant it, or rerun with --non-atomic (plain split commits: not all-or-nothing)"

// Execute runs the reset (see Reset).
func (r *Reset) Execute(ctx context.Context) error {
	var res ResetResult
	var backups []admin.BackupGroup
	for i, g := range r.Plan.Groups {
		if len(g.Partitions) == 0 {
			continue
		}
		res.Todo = append(res.Todo, i)
		backups = append(backups, g.BackupOf())
	}
	if len(res.Todo) == 0 {
		return r.Report(res, nil)
	}
	ectx, cancel := context.WithTimeout(ctx, r.Deadline)
	defer cancel()
	if g, ok := r.firstTxnGroup(res.Todo); ok && !r.NonAtomic {
		if err := admin.CheckTxnAllowed(ectx, r.Admin, g, r.txnOptions(g, r.Deadline)); err != nil {
			return fmt.Errorf("%w; %s", err, TxnHint)
		}
	}
	return Execute(Steps{
		Backup: func() error {
			p, err := r.WriteBackup(backups)
			if err != nil {
				return fmt.Errorf("nothing was committed: %w", err)
			}
			res.Backup = p
			for _, i := range res.Todo {
				r.Plan.Groups[i].Backup = p
			}
			return nil
		},
		Intent:  r.Intent,
		Apply:   func() error { return r.apply(ectx, res.Todo) },
		Outcome: r.Outcome,
		Report:  func(err error) error { return r.Report(res, err) },
	})
}

// apply executes the groups' plans, up to Parallel at once (each group in
// its own transaction, with its own fencing, live check and read-back:
// groups share nothing but the deadline), and returns the reset's error:
// every group and partition failure, in plan order, and what the deadline
// left behind.
func (r *Reset) apply(ectx context.Context, todo []int) error {
	plan := r.Plan
	// Said before the groups start, in plan order, not as they finish.
	for _, i := range todo {
		if plan.Groups[i].Type == lag.ShareType {
			r.Note("group %s is a share group: its start offsets are set with AlterShareGroupOffsets, not in a transaction and not all-or-nothing across partitions", safetext.Arg(plan.Groups[i].Group))
		}
	}
	errs := make([]error, len(todo))
	Each(len(todo), r.Parallel, func(k int) {
		errs[k] = r.executeGroup(ectx, &plan.Groups[todo[k]])
	})
	var groupErrs []string
	for k, i := range todo {
		// A group error is also the group's Error, which plan.Errors()
		// lists: only an error that is not is added here.
		if errs[k] != nil && plan.Groups[i].Error == "" {
			groupErrs = append(groupErrs, errs[k].Error())
		}
	}
	errList := plan.GroupErrors() // one item per group and cause: the table has every partition
	if len(errList) == 0 && len(groupErrs) == 0 {
		return nil
	}
	all := SummarizeErrors(append(groupErrs, errList...))
	// A coordinator that answered "not available" until the deadline did
	// answer: its give-up line says what was waited for, not that the
	// cluster was silent.
	if ectx.Err() != nil && !strings.Contains(all.Error(), coordretry.GaveUpText) {
		// Say what the deadline left behind (a group partly changed by
		// --non-atomic, a transaction resolved), not only that the
		// cluster stopped answering.
		return fmt.Errorf("%v: %w", r.Unreachable(ectx.Err()), all)
	}
	return all
}

// executeGroup executes one group's plan: in one transaction, or with
// --non-atomic in plain split commits. A cluster that does not allow the
// transaction changed nothing: the error says so and offers --non-atomic.
func (r *Reset) executeGroup(ctx context.Context, gp *admin.GroupPlan) error {
	if gp.Type == lag.ShareType {
		// No transaction exists for share-group start offsets (no
		// TxnOffsetCommit for share groups): --non-atomic or not
		// (apply said so).
		return admin.ExecuteShareReset(ctx, r.Admin, gp)
	}
	if r.NonAtomic {
		return admin.ExecuteReset(ctx, r.Admin, gp)
	}
	err := admin.ExecuteResetTxn(ctx, r.Admin, gp, r.txnOptions(gp.Group, r.Resolve))
	var na *admin.TxnNotAllowedError
	if errors.As(err, &na) {
		gp.Error = err.Error() + "; " + TxnHint
		return errors.New(gp.Error)
	}
	return err
}

// firstTxnGroup is the first group to execute that a transaction commits
// (share groups are not): the one the transaction permission is checked
// with.
func (r *Reset) firstTxnGroup(todo []int) (string, bool) {
	for _, i := range todo {
		if r.Plan.Groups[i].Type != lag.ShareType {
			return r.Plan.Groups[i].Group, true
		}
	}
	return "", false
}

func (r *Reset) txnOptions(group string, resolve time.Duration) admin.TxnOptions {
	return admin.TxnOptions{ID: admin.TxnID(r.TxnPrefix, group), Timeout: admin.DefaultTxnTimeout, Resolve: resolve, Prog: r.Prog}
}

// ReportErrors joins a command's error lines into its error: nil for none,
// the line for one, a count and the lines for several.
func ReportErrors(lines []string) error {
	if len(lines) == 0 {
		return nil
	}
	if len(lines) == 1 {
		return errors.New(lines[0])
	}
	return fmt.Errorf("%d errors: %s", len(lines), strings.Join(lines, "; "))
}

// SummarizeErrors is ReportErrors for lists that can run to thousands of
// partitions: the first few, then how many more (the table has them all).
func SummarizeErrors(lines []string) error {
	const show = 5
	if len(lines) <= show {
		return ReportErrors(lines)
	}
	return fmt.Errorf("%d errors: %s; ... and %d more (see the table)", len(lines), strings.Join(lines[:show], "; "), len(lines)-show)
}
