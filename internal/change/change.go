// Package change is offsetctl's change engine: it runs a change to a
// cluster's offsets (reset, undo, delete-offsets, delete-group) in the one
// order of side effects that docs/atomicity.md and docs/audit.md describe,
// so that the order can be read, and checked against them, here: Execute
// (this file) for every change, Reset (reset.go) for a reset plan, and
// DeleteOffsets and DeleteGroups (delete.go) for the deletes, each from
// validation to the undo line. internal/admin makes the plans and applies
// one group's; internal/cli parses, calls one engine's Execute, and
// supplies the backup file, the audit record and the printing. The order:
//
//  1. the plan is validated (by the caller, before Execute);
//  2. Backup writes and fsyncs the backup of what the change replaces;
//  3. Intent appends and fsyncs the audit intent (the plan, the backup
//     and its SHA-256), before the first request that can change the
//     cluster: if it cannot be written, nothing is sent;
//  4. Apply commits (one transaction per group, or --non-atomic, or the
//     deletes) and reads back, and decides the outcome from what the
//     broker acknowledged and what the read-back showed;
//  5. Outcome appends the audit outcome naming the intent;
//  6. Report prints what was done and the undo line.
//
// A step that fails stops the steps after it, except that once Apply has
// run its outcome is always recorded and reported: a change that reached
// the cluster is never left with an intent alone by this run.
package change

// Steps are one change's side effects, in the order Execute runs them.
// The commands supply them; none of them may send a request that changes
// the cluster except Apply.
type Steps struct {
	// Backup writes and fsyncs the backup; an error means nothing was
	// changed (and says so).
	Backup func() error
	// Intent appends and fsyncs the intent; an error means nothing was
	// changed (and says so).
	Intent func() error
	// Apply makes the change and reads it back; it returns the change's
	// error, nil when it was applied and verified.
	Apply func() error
	// Outcome records Apply's result and returns the command's error
	// (Apply's, or a failure to record).
	Outcome func(applyErr error) error
	// Report prints the result and the undo line, and returns the
	// command's final error (at least Outcome's).
	Report func(err error) error
}

// Execute runs the steps in order: backup, intent, apply, outcome,
// report.
func Execute(s Steps) error {
	if err := s.Backup(); err != nil {
		return err
	}
	if err := s.Intent(); err != nil {
		return err
	}
	err := s.Apply()
	err = s.Outcome(err)
	return s.Report(err)
}

// DefaultParallel is how many groups' changes run at once unless the
// command says otherwise: groups are independent (each has its own
// transaction, its own fencing and its own read-back), and a few dozen
// requests in flight keep one broker busy without queueing them behind
// each other (see bench/reset.md for the measured effect).
const DefaultParallel = 16

// Each calls fn(i) for every i in [0, n), at most limit at once (limit < 1
// counts as 1), and returns once every call has returned. fn must keep
// its results per i: the caller reads them in order afterwards, so what
// ran concurrently is still reported in plan order.
func Each(n, limit int, fn func(i int)) {
	limit = max(1, min(limit, n))
	next := make(chan int)
	done := make(chan struct{})
	for w := 0; w < limit; w++ {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := range next {
				fn(i)
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	for w := 0; w < limit; w++ {
		<-done
	}
}
