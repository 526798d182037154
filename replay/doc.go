// Package replay reads a range of a topic without any consumer group
// (kgo.ConsumePartitions: no JoinGroup, no heartbeat, no offset commit),
// streams the records to a sink as JSON lines or raw values, computes an
// audit digest, proves that no group's committed offsets moved, and can
// copy the records to another topic (backfill).
//
// # API
//
// replay is one of offsetctl's two importable packages (with report); the
// CHANGELOG's semantic-versioning promise covers what this section names.
// These need nothing but the package itself:
//
//   - the range: ParseStart (--from), ParseUntil (--until),
//     ParsePartitions, FormatResume (where a copy stopped, as the next
//     --from), and the StartSpec/UntilSpec they return;
//   - the output: Format and ParseFormat, ParseLine (a jsonl line back to
//     the record's exact bytes), DigestVersion;
//   - the plan: MakePlan and ResumePlan over a Gathered (PlanRequest,
//     Plan, PartitionPlan);
//   - the backfill checkpoint file: Checkpoint, ParseCheckpoint,
//     ReadCheckpoint, WriteCheckpoint, LockCheckpoint;
//   - the result types the command prints as JSON: Result, Verification,
//     Change, BackfillResult, CheckpointResult (their JSON tags are the
//     schema; see offsetctl help formatting).
//
// Run and Gather take a connection from offsetctl's internal/cluster (a
// Config, an Admin) and so are callable from offsetctl itself only; they
// are documented for readers of the command, not promised as API.
//
// It is split like the rest of offsetctl: parsers and planning are pure
// functions (spec.go, plan.go), gathering and consuming do the I/O
// (run.go), encoders and the digest are allocation-free helpers.
package replay
