package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/offsetctl/offsetctl/internal/audit"
	"github.com/offsetctl/offsetctl/internal/safetext"
)

// History renders audit entries: JSON {"entries":[...]}, or one row per
// entry. group is history's --group (or ""): the table's row of an entry
// that skipped that group for its live members says so in OUTCOME
// (SkippedOutcome) and counts no CHANGED, since the entry's outcome and
// counts are its other groups'. JSON and CSV name such groups in
// skipped_live / SKIPPED-LIVE.
func History(w io.Writer, f Format, entries []audit.Entry, group string) error {
	if entries == nil {
		entries = []audit.Entry{}
	}
	if f == JSON {
		out := make([]historyEntry, len(entries))
		for i, e := range entries {
			out[i] = newHistoryEntry(e)
		}
		return WriteJSON(w, struct {
			Entries []historyEntry `json:"entries"`
		}{out})
	}
	var rows [][]string
	for _, e := range entries {
		who := e.User + "@" + e.Host
		changes := changedCell(e)
		// A group name may hold a comma or a blank: safetext.List quotes
		// such a name, and counts the groups beyond historyGroups (JSON
		// and CSV list them all).
		outcome := e.Outcome
		if e.V > audit.Version {
			// A newer offsetctl's entry: its fields may mean other things.
			outcome = fmt.Sprintf("format-v%d?", e.V)
		}
		if group != "" && e.Skipped(group) {
			outcome, changes = SkippedOutcome, "-"
		}
		row := []string{e.ID, e.Time.UTC().Format(time.RFC3339), who, e.Action, safetext.List(e.Groups, historyGroups), outcome, changes, Dash(e.Backup)}
		if f == CSV {
			records := ""
			if e.Records != nil {
				records = I64(*e.Records)
			}
			row = []string{e.ID, e.Time.UTC().Format(time.RFC3339Nano), e.User, e.Host, e.ClusterID, e.Profile, e.Action,
				strings.Join(e.Groups, " "), strings.Join(e.Topics, " "), e.Outcome, exitCell(e),
				fmt.Sprint(e.Partitions), countCSV(e.Applied), countCSV(changedOf(e)), e.Backup, e.BackupSHA256, records, e.Digest, e.UndoOf,
				strings.Join(e.Command, " "), strings.Join(e.SkippedLive, " ")}
		}
		rows = append(rows, row)
	}
	header := []string{"ID", "TIME", "WHO", "ACTION", "GROUPS", "OUTCOME", "CHANGED", "BACKUP"}
	if f == CSV {
		header = []string{"ID", "TIME", "USER", "HOST", "CLUSTER-ID", "PROFILE", "ACTION", "GROUPS", "TOPICS", "OUTCOME", "EXIT-CODE",
			"PARTITIONS", "APPLIED", "CHANGED", "BACKUP", "BACKUP-SHA256", "RECORDS", "DIGEST", "UNDO-OF", "COMMAND", "SKIPPED-LIVE"}
	}
	if f == CSV {
		return WriteCSV(w, header, rows)
	}
	return writeTable(w, header, rows, 4) // GROUPS is a safetext.List
}

// historyEntry is an entry as history -o json shows it: the exit code
// and duration of a change whose outcome was never recorded (killed) are
// null, not the 0 of its intent line, which read as a run that exited 0.
type historyEntry struct {
	audit.Entry
	ExitCode   *int   `json:"exit_code"`
	DurationMs *int64 `json:"duration_ms"`
}

// newHistoryEntry is e as history -o json shows it.
func newHistoryEntry(e audit.Entry) historyEntry {
	h := historyEntry{Entry: e}
	if !e.NoOutcome {
		h.ExitCode, h.DurationMs = &e.ExitCode, &e.DurationMs
	}
	return h
}

// exitCell is history -o csv's EXIT-CODE: empty when not known.
func exitCell(e audit.Entry) string {
	if e.NoOutcome {
		return ""
	}
	return fmt.Sprint(e.ExitCode)
}

// SkippedOutcome is history's OUTCOME, with --group G, of a change that
// skipped G for its live members: G was not changed, whatever the change
// did to its other groups.
const SkippedOutcome = "skipped (live)"

// changedOf is the partitions an entry changed: Changed (version 2, the
// offsets the change moved, as the console counted them), else Applied
// (version 1 counted every partition written); nil when not known (a
// change whose outcome is unknown).
func changedOf(e audit.Entry) *int {
	if e.Changed != nil {
		return e.Changed
	}
	return e.Applied
}

// changedCell is history's CHANGED: the records of a replay or backfill,
// else changed/planned partitions; a count not known is ?, and a
// backfill that left no count at all (killed) is ? alone.
func changedCell(e audit.Entry) string {
	changed := changedOf(e)
	switch {
	case e.Records != nil:
		return fmt.Sprintf("%d records", *e.Records)
	case changed == nil && e.Partitions == 0:
		return "?"
	case changed == nil:
		return fmt.Sprintf("?/%d", e.Partitions)
	}
	return fmt.Sprintf("%d/%d", *changed, e.Partitions)
}

// countCSV is a count in CSV: empty when not known, as every unknown
// value in CSV.
func countCSV(n *int) string {
	if n == nil {
		return ""
	}
	return fmt.Sprint(*n)
}

// Verify renders history --verify: JSON, or one row per partition with
// its offsets before, planned and now, and which of them it matches. A
// partition a later change touched also names that change (LATER), the
// offset it found there (FOUND) and which of this change's offsets that
// is (FOUND-MATCHES): CSV always has those columns, the table only when a
// row has a later change.
func Verify(w io.Writer, f Format, v audit.Verification) error {
	if f == JSON {
		return WriteJSON(w, v)
	}
	anyLater := false
	for _, r := range v.Rows {
		anyLater = anyLater || r.Later != nil
	}
	rows := make([][]string, 0, len(v.Rows))
	for _, r := range v.Rows {
		if f == CSV {
			row := []string{r.Group, r.Topic, fmt.Sprint(r.Partition), OptCSV(r.Before), OptCSV(r.Planned), OptCSV(r.Now), r.Matches, "", "", ""}
			if l := r.Later; l != nil {
				row[7], row[8], row[9] = l.ID, OptCSV(l.Found), foundMatches(l)
			}
			rows = append(rows, row)
			continue
		}
		row := []string{r.Group, r.Topic, fmt.Sprint(r.Partition), noCommit(r.Before), noCommit(r.Planned), noCommit(r.Now), r.Matches}
		if anyLater {
			row = append(row, "-", "-", "-")
			if l := r.Later; l != nil {
				row[7], row[8], row[9] = l.ID, noCommit(l.Found), foundMatches(l)
				if l.Matches == audit.MatchUnread {
					row[8] = "?"
				}
			}
		}
		rows = append(rows, row)
	}
	header := []string{"GROUP", "TOPIC", "PARTITION", "BEFORE", "PLANNED", "NOW", "MATCHES"}
	if f == CSV || anyLater {
		header = append(header, "LATER", "FOUND", "FOUND-MATCHES")
	}
	if f == CSV {
		return WriteCSV(w, header, rows)
	}
	return WriteTable(w, header, rows)
}

// foundMatches is a later change's FOUND-MATCHES: which offset it found,
// marked when that change may be another cluster's (a cluster id
// missing).
func foundMatches(l *audit.Later) string {
	if l.ClusterUnknown {
		return l.Matches + " (no cluster id)"
	}
	return l.Matches
}

// noCommit formats an offset of a verification: "no commit" when nil.
func noCommit(v *int64) string {
	if v == nil {
		return "no commit"
	}
	return I64(*v)
}

// historyGroups is how many group names a history row shows: an
// --all-groups reset names hundreds, which would make every row as wide.
const historyGroups = 3

// DiffResult is what `diff` prints: the partitions that differ and the
// groups in only one of the two states. FromCluster and ToCluster are the
// ids of the clusters the two sides are of (a file's offsetctl:cluster
// record, the connected cluster's id), "" when unknown.
type DiffResult struct {
	From        string          `json:"from"`
	To          string          `json:"to"`
	FromCluster string          `json:"from_cluster"`
	ToCluster   string          `json:"to_cluster"`
	Changes     []audit.DiffRow `json:"changes"`
	audit.GroupDiff
}

// Diff renders a diff: JSON, or one row per partition that differs, then
// one per group that appeared or vanished.
func Diff(w io.Writer, f Format, d DiffResult) error {
	if d.Changes == nil {
		d.Changes = []audit.DiffRow{}
	}
	if f == JSON {
		return WriteJSON(w, d)
	}
	var rows [][]string
	opt := Opt
	if f == CSV {
		opt = OptCSV
	}
	for _, c := range d.Changes {
		rows = append(rows, []string{c.Group, c.Topic, I64(int64(c.Partition)), opt(c.Before), opt(c.After), opt(c.Delta), "changed"})
	}
	for _, g := range d.Appeared {
		rows = append(rows, []string{g, "", "", "", "", "", "group appeared"})
	}
	for _, g := range d.Vanished {
		rows = append(rows, []string{g, "", "", "", "", "", "group vanished"})
	}
	if f == Table {
		for _, r := range rows {
			for i := 1; i < 6; i++ {
				r[i] = Dash(r[i])
			}
		}
	}
	header := []string{"GROUP", "TOPIC", "PARTITION", "BEFORE", "AFTER", "DELTA", "STATUS"}
	return Rows(w, f, header, rows)
}

// SnapshotResult is what `snapshot` prints: the file and, per group, how
// many partitions have a commit and how many a no-commit marker.
type SnapshotResult struct {
	File   string          `json:"file"`
	Groups []SnapshotGroup `json:"groups"`
}

// SnapshotGroup is one group of a snapshot.
type SnapshotGroup struct {
	Group     string `json:"group"`
	Committed int    `json:"committed"`
	NoCommit  int    `json:"no_commit"`
}

// Snapshot renders a snapshot's summary.
func Snapshot(w io.Writer, f Format, s SnapshotResult) error {
	if f == JSON {
		return WriteJSON(w, s)
	}
	var rows [][]string
	for _, g := range s.Groups {
		rows = append(rows, []string{g.Group, fmt.Sprint(g.Committed), fmt.Sprint(g.NoCommit)})
	}
	return Rows(w, f, []string{"GROUP", "COMMITTED", "NO-COMMIT"}, rows)
}

// HistoryJSON writes history's JSON ({"entries":[...]}, byte for byte
// what History writes) one entry at a time: next returns the entries in
// order, nil at the end. A log of a gigabyte is never held at once.
func HistoryJSON(w io.Writer, next func() (*audit.Entry, error)) error {
	w = jsonOut(w)
	first := true
	for {
		e, err := next()
		if err != nil {
			return err
		}
		if e == nil {
			break
		}
		// As History writes it: a killed change's exit code is null,
		// not its intent line's 0 (streamed, it was 0: a script keeping
		// exit_code == 0 counted a run killed mid-change a success).
		b, err := json.MarshalIndent(newHistoryEntry(*e), "    ", "  ")
		if err != nil {
			return err
		}
		sep := ",\n    "
		if first {
			sep = "{\n  \"entries\": [\n    "
		}
		if _, err := io.WriteString(w, sep); err != nil {
			return err
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
		first = false
	}
	end := "\n  ]\n}\n"
	if first {
		end = "{\n  \"entries\": []\n}\n"
	}
	_, err := io.WriteString(w, end)
	return err
}
