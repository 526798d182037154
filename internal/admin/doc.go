// Package admin is offsetctl's change side: what a change to a cluster's
// offsets is and how it is applied.
//
//   - targets (spec.go): --to-earliest, --to-datetime, --shift-by, ...
//     parsed into a Target;
//   - plans (reset.go, delete.go, share.go): pure functions from a
//     lag.Snapshot and the request to a Plan of rows, with the refusals
//     (live groups, Streams groups) and warnings;
//   - the CSV plan and backup format (plancsv.go);
//   - execution of one group's plan (reset_txn.go: one transaction per
//     group; reset_exec.go: --non-atomic, backups and batching; share.go:
//     AlterShareGroupOffsets; delete.go: DeleteOffsets and DeleteGroups),
//     each with its read-back.
//
// The order of side effects of a whole change (backup, audit intent,
// commit, read-back, audit outcome, undo line) lives in one place, the
// change engine in internal/change. What a plan must read (the snapshot,
// the offsets to read back) comes from internal/lag, the read side; that
// package never imports this one.
package admin
