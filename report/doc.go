// Package report renders offsetctl's typed results as a table, JSON or
// CSV. It depends on the result types, never the reverse, and writes only
// to the data stream it is handed (stdout); it renders, never computes.
//
// # API
//
// report is one of offsetctl's two importable packages (with replay). The
// CHANGELOG's semantic-versioning promise covers the functions whose
// arguments are this package's own types or replay's:
//
//   - Format, ParseFormat;
//   - the generic writers WriteTable, WriteCSV, WriteJSON, WriteJSONLine
//     and Rows (a header and rows in any Format);
//   - the cell helpers Dash, I64, Known, KnownCSV, Opt, OptCSV, Rate;
//   - Replay and ReplayView (a replay.Result), Snapshot (SnapshotResult),
//     Version (VersionInfo).
//
// The other renderers (Lag, Groups, Reset, DeleteOffsets, History, Diff,
// Semantics, ...) take result types of offsetctl's internal packages
// (internal/lag, internal/admin, internal/audit, internal/semantics): only
// offsetctl can call them, and they may change with those types. Their
// output is the command's, whose JSON shapes are described by
// `offsetctl help formatting`.
package report
