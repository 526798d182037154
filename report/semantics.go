package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/offsetctl/offsetctl/internal/safetext"
	"github.com/offsetctl/offsetctl/internal/semantics"
	"github.com/offsetctl/offsetctl/internal/textlist"
)

// Semantics renders the commit-semantics experiment: the table of modes,
// one sentence per mode and the closing replay; JSON is the Result; CSV is
// one row per mode.
func Semantics(w io.Writer, f Format, res *semantics.Result) error {
	if res == nil {
		return nil
	}
	switch f {
	case JSON:
		return WriteJSON(w, res)
	case CSV:
		header := []string{"MODE", "GROUP", "PROCESSED", "UNIQUE", "DUPLICATES", "LOST", "COMMITTED-AFTER", "EXPLANATION"}
		rows := make([][]string, 0, len(res.Results))
		for _, r := range res.Results {
			rows = append(rows, []string{string(r.Mode), r.Group, strconv.Itoa(r.Processed), strconv.Itoa(r.Unique),
				strconv.Itoa(r.Duplicates), strconv.Itoa(r.Lost), committedList(r.CommittedAfter), r.Explanation})
		}
		return WriteCSV(w, header, rows)
	}
	if _, err := fmt.Fprintf(w, "%d events over %s (topic %s), batches of %d, crash right after event %d, work delay %s, commit interval %s\n\n",
		res.Events, textlist.Count(res.Partitions, "partition"), res.Topic, res.Batch, res.CrashAfter, res.WorkDelay, res.CommitInterval); err != nil {
		return err
	}
	header := []string{"MODE", "PROCESSED", "UNIQUE", "DUPLICATES", "LOST", "COMMITTED-AFTER"}
	rows := make([][]string, 0, len(res.Results))
	width := 0
	for _, r := range res.Results {
		rows = append(rows, []string{string(r.Mode), strconv.Itoa(r.Processed), strconv.Itoa(r.Unique),
			strconv.Itoa(r.Duplicates), strconv.Itoa(r.Lost), committedList(r.CommittedAfter)})
		width = max(width, len(r.Mode))
	}
	if err := WriteTable(w, header, rows); err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("\n")
	for _, r := range res.Results {
		fmt.Fprintf(&b, "%-*s  %s\n", width, r.Mode, r.Explanation)
	}
	if rp := res.Replay; rp != nil {
		state := "unchanged"
		if !rp.CommittedUnchanged {
			state = "CHANGED"
		}
		digest := rp.Digest
		if len(digest) > 16 {
			digest = digest[:16] + "…"
		}
		fmt.Fprintf(&b, "\nreplay from offset %d without a group: %d of %d events read (digest %s); committed offsets of %d group(s) %s by it\n",
			rp.FromOffset, rp.Records, res.Events, digest, rp.Verification.GroupsChecked, state)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// committedList formats committed offsets as "0:20 1:20 2:20" ("-": none).
func committedList(os []semantics.PartitionOffset) string {
	if len(os) == 0 {
		return "-"
	}
	parts := make([]string, len(os))
	for i, o := range os {
		parts[i] = fmt.Sprintf("%d:%d", o.Partition, o.Offset)
	}
	return strings.Join(parts, " ")
}

// SemanticsCount renders `semantics count`: the experiment's
// "FILE: total=N unique-offsets=U duplicates=D" lines, or JSON / CSV.
func SemanticsCount(w io.Writer, f Format, counts []semantics.Count) error {
	switch f {
	case JSON:
		if counts == nil {
			counts = []semantics.Count{}
		}
		return WriteJSON(w, counts)
	case CSV:
		rows := make([][]string, 0, len(counts))
		for _, c := range counts {
			rows = append(rows, []string{c.File, strconv.Itoa(c.Total), strconv.Itoa(c.UniqueOffsets), strconv.Itoa(c.Duplicates)})
		}
		return WriteCSV(w, []string{"FILE", "TOTAL", "UNIQUE-OFFSETS", "DUPLICATES"}, rows)
	}
	for _, c := range counts {
		if _, err := fmt.Fprintf(w, "%s: total=%d unique-offsets=%d duplicates=%d\n", safetext.Name(c.File), c.Total, c.UniqueOffsets, c.Duplicates); err != nil {
			return err
		}
	}
	return nil
}
