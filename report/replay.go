package report

import (
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/offsetctl/offsetctl/internal/safetext"
	"github.com/offsetctl/offsetctl/internal/textlist"
	"github.com/offsetctl/offsetctl/replay"
)

// Replay renders a replay summary: JSON is the result itself; the table
// shows a header line with totals and the digest, the partitions, the
// backfill state when copying, and the proof table; CSV gives the
// partition rows then, after a blank line, the proof rows, and after
// another the summary row with the digests (what the replay is for).
func Replay(w io.Writer, f Format, r *replay.Result) error {
	return ReplayView(w, f, r, false)
}

// ReplayView is Replay with the proof table's detail chosen: allRows shows
// every proof row (-v); otherwise, in the table, a group's unchanged rows
// collapse into one line when there are more than proofRowsShown of them
// (a 2,000-partition topic is one line per group, not 2,000). Changed rows
// are always shown in full; JSON and CSV always carry every row.
func ReplayView(w io.Writer, f Format, r *replay.Result, allRows bool) error {
	switch f {
	case JSON:
		return WriteJSON(w, r)
	case CSV:
		if err := WriteCSV(w, replayPartHeader, replayPartRows(r, false)); err != nil {
			return err
		}
		if _, err := fmt.Fprintln(w); err != nil {
			return err
		}
		if err := WriteCSV(w, proofHeader, proofRows(r.Verification)); err != nil {
			return err
		}
		if _, err := fmt.Fprintln(w); err != nil {
			return err
		}
		return WriteCSV(w, replaySummaryHeader, [][]string{{r.Topic, r.Isolation, I64(r.Records), I64(r.Bytes), r.Stopped, r.Digest, r.PayloadDigest, r.ResumeFrom}})
	}
	elapsed := time.Duration(r.ElapsedMs) * time.Millisecond
	if _, err := fmt.Fprintf(w, "TOPIC %s  ISOLATION %s  RECORDS %d  BYTES %d  ELAPSED %s  RATE %s records/s  STOPPED %s\nDIGEST %s\n",
		safetext.Name(r.Topic), r.Isolation, r.Records, r.Bytes, elapsed, Rate(r.RecordsPerSec), r.Stopped, Dash(r.Digest)); err != nil {
		return err
	}
	if r.ResumeFrom != "" {
		line := "CONTINUE WITH --from " + r.ResumeFrom + "\n"
		if b := r.Backfill; b != nil && (b.Transactional || b.Checkpoint != nil) {
			// Its transactional id or checkpoint keeps the position:
			// --from would start another backfill to the target.
			line = "CONTINUE BY RERUNNING THE SAME COMMAND\n"
		}
		if _, err := io.WriteString(w, line); err != nil {
			return err
		}
	}
	if r.PayloadDigest != "" {
		if _, err := fmt.Fprintf(w, "PAYLOAD-DIGEST %s\n", r.PayloadDigest); err != nil {
			return err
		}
	}
	if err := shardLines(w, r); err != nil {
		return err
	}
	if _, err := fmt.Fprintln(w); err != nil {
		return err
	}
	if err := WriteTable(w, replayPartHeader, replayPartRows(r, true)); err != nil {
		return err
	}
	if b := r.Backfill; b != nil {
		state := "complete"
		if !b.Complete {
			state = "INCOMPLETE: resume with --from " + b.Resume
			if b.Checkpoint != nil {
				state = "INCOMPLETE: rerun the same command to resume from the checkpoint"
			}
			if b.Transactional {
				state = "INCOMPLETE: rerun the same command to resume from the committed position"
				if b.Resume == "" {
					state = "INCOMPLETE: committed, not yet visible to read_committed readers"
				}
			}
			if b.Unanswered > 0 && !b.Transactional {
				state += fmt.Sprintf(" (%d copies sent without an answer may be in %s already: the resume would copy them again)", b.Unanswered, safetext.Name(b.Target))
			}
		}
		txn := ""
		if b.Transactional {
			txn = ", transactional"
		}
		if _, err := fmt.Fprintf(w, "\nBACKFILL to %s (partitioner %s%s): replayed %d, produced %d, %s\n", safetext.Name(b.Target), safetext.Name(b.Partitioner), txn, r.Records, b.Produced, state); err != nil {
			return err
		}
		if err := checkpointLine(w, b); err != nil {
			return err
		}
		rows := make([][]string, 0, len(b.Partitions))
		for _, p := range b.Partitions {
			rows = append(rows, []string{I64(int64(p.Partition)), I64(p.From), I64(p.Copied), Opt(p.AckedThrough), I64(p.ResumeFrom)})
		}
		if err := WriteTable(w, []string{"PARTITION", "FROM", "COPIED", "ACKED-THROUGH", "RESUME-FROM"}, rows); err != nil {
			return err
		}
	}
	v := r.Verification
	if v.Skipped {
		_, err := fmt.Fprintln(w, "\nPROOF skipped (--no-verify)")
		return err
	}
	if v.Error != "" {
		_, err := fmt.Fprintf(w, "\nPROOF could not be taken: %s\n", safetext.Text(v.Error))
		return err
	}
	if _, err := fmt.Fprintf(w, "\nPROOF %d group(s) with commits on %s checked before and after: %s\n", v.GroupsChecked, safetext.Name(r.Topic), proofVerdict(v)); err != nil {
		return err
	}
	if len(v.Rows) == 0 {
		return nil
	}
	rows, collapsed := proofRows(v), false
	if !allRows {
		rows, collapsed = proofTableRows(v)
	}
	if err := WriteTable(w, proofHeader, rows); err != nil {
		return err
	}
	if collapsed {
		_, err := fmt.Fprintln(w, "(unchanged partitions counted per group: -v or -o json lists every row)")
		return err
	}
	return nil
}

// Rate renders a records/s figure: whole numbers from 10/s, one decimal
// below (1 record in 3 s is 0.3, not 0), two significant digits below
// 0.1/s (1 record in a minute is 0.017), so a rate that is not zero
// never prints as 0.
func Rate(perSec float64) string {
	if perSec > 0 && perSec < 0.1 {
		return strconv.FormatFloat(perSec, 'g', 2, 64)
	}
	if perSec > 0 && perSec < 10 {
		return strconv.FormatFloat(perSec, 'f', 1, 64)
	}
	return strconv.FormatFloat(perSec, 'f', 0, 64)
}

var (
	replayPartHeader = []string{"PARTITION", "FROM", "TO", "RECORDS", "FIRST-TS", "LAST-TS", "STOP"}
	proofHeader      = []string{"GROUP", "TOPIC", "PARTITION", "BEFORE", "AFTER", "STATUS"}
)

func proofVerdict(v replay.Verification) string {
	own := ""
	if v.BackfillGroup != "" {
		// The group is named after --transactional-id, which may hold
		// any byte: shown as the proof table shows a group.
		own = " (group " + safetext.Arg(v.BackfillGroup) + " is this backfill's own position: not counted)"
	}
	switch {
	case v.Unchanged:
		return "all committed offsets unchanged" + own
	case len(v.Failed()) > 0:
		return fmt.Sprintf("%d committed offset(s) of groups with no live member CHANGED", len(v.Failed()))
	}
	return fmt.Sprintf("%d committed offset(s) moved by live groups' own consumers; none by the replay%s", len(v.Changes), own)
}

func replayPartRows(r *replay.Result, total bool) [][]string {
	rows := make([][]string, 0, len(r.Partitions)+1)
	for _, p := range r.Partitions {
		stop := p.Stop
		if total {
			stop = stopWords(p.Stop)
		}
		rows = append(rows, []string{I64(int64(p.Partition)), I64(p.From), I64(p.To), I64(p.Records), msTime(p.FirstTs), msTime(p.LastTs), stop})
	}
	if total && len(r.Partitions) > 1 {
		rows = append(rows, []string{"TOTAL", "", "", I64(r.Records), "", "", ""})
	}
	return rows
}

// stopWords says in the table why a partition stopped at TO: the flag that
// bounded it, or the replay's own stop.
func stopWords(stop string) string {
	switch stop {
	case replay.BoundUntil:
		return "--until"
	case replay.BoundEnd:
		return "log end"
	case replay.StoppedMax:
		return "--max"
	}
	return stop
}

// proofRowsShown is how many unchanged rows of one group the table shows
// before it counts them on one line instead.
const proofRowsShown = 10

// proofTableRows is the proof table with each group's unchanged rows
// collapsed into one "N partitions unchanged" line when there are more
// than proofRowsShown; rows that are not unchanged stay in full, in order.
// collapsed says whether any group was.
func proofTableRows(v replay.Verification) ([][]string, bool) {
	unchanged := map[string]int{}
	for _, c := range v.Rows {
		if c.Status == replay.StatusUnchanged {
			unchanged[c.Group+"\x00"+c.Topic]++
		}
	}
	rows := make([][]string, 0, len(v.Rows))
	done := map[string]bool{}
	collapsed := false
	for _, c := range v.Rows {
		key := c.Group + "\x00" + c.Topic
		if n := unchanged[key]; c.Status == replay.StatusUnchanged && n > proofRowsShown {
			if !done[key] {
				done[key] = true
				collapsed = true
				rows = append(rows, []string{c.Group, c.Topic, textlist.Count(n, "partition"), "", "", replay.StatusUnchanged})
			}
			continue
		}
		rows = append(rows, proofRow(c))
	}
	return rows, collapsed
}

func proofRow(c replay.Change) []string {
	return []string{c.Group, c.Topic, I64(int64(c.Partition)), Opt(c.Before), Opt(c.After), c.Status}
}

func proofRows(v replay.Verification) [][]string {
	rows := make([][]string, 0, len(v.Rows))
	for _, c := range v.Rows {
		rows = append(rows, proofRow(c))
	}
	return rows
}

// msTime formats a millisecond timestamp as RFC 3339 UTC with
// milliseconds; "-" when nil.
func msTime(ms *int64) string {
	if ms == nil {
		return "-"
	}
	return time.UnixMilli(*ms).UTC().Format("2006-01-02T15:04:05.000Z07:00")
}

// checkpointLine says what a --checkpoint run did with its file.
func checkpointLine(w io.Writer, b *replay.BackfillResult) error {
	c := b.Checkpoint
	if c == nil {
		return nil
	}
	what := "started"
	switch {
	case c.AlreadyComplete:
		what = "already complete: nothing copied"
	case c.Resumed:
		what = fmt.Sprintf("resumed; up to %d record(s) of %s may be duplicates", c.PossibleDuplicates, b.Target)
	}
	state := "not complete"
	if c.Complete {
		state = "complete"
	}
	_, err := fmt.Fprintf(w, "CHECKPOINT %s: %s; %d write(s), it says %s\n", safetext.Name(c.Path), what, c.Writes, state)
	return err
}

// replaySummaryHeader heads -o csv's last table: the replay's one summary
// row (the table's header lines).
var replaySummaryHeader = []string{"TOPIC", "ISOLATION", "RECORDS", "BYTES", "STOPPED", "DIGEST", "PAYLOAD-DIGEST", "RESUME-FROM"}
