package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/offsetctl/offsetctl/internal/admin"
	"github.com/offsetctl/offsetctl/replay"
)

// Tests for the mutants make mutate-full found alive in report, each
// written as the bug the mutant stands for.

// TestProofTableCollapsesOnlyAboveTen: a group with exactly
// proofRowsShown (10) unchanged partitions is listed row by row; one more
// and it is one "N partitions unchanged" line. The bug: collapsing at 10
// would hide the rows of a group the hint says are shown in full.
func TestProofTableCollapsesOnlyAboveTen(t *testing.T) {
	five := int64(5)
	var rows []replay.Change
	for g, n := range map[string]int{"ten": proofRowsShown, "eleven": proofRowsShown + 1} {
		for p := 0; p < n; p++ {
			rows = append(rows, replay.Change{Group: g, Topic: "t", Partition: int32(p), Before: &five, After: &five, Status: replay.StatusUnchanged})
		}
	}
	// Rows come sorted by group, as compareSnapshots makes them.
	if rows[0].Group == "ten" {
		rows = append(rows[proofRowsShown:], rows[:proofRowsShown]...)
	}
	r := &replay.Result{Topic: "t", Isolation: "committed", Stopped: replay.StoppedEnd,
		Verification: replay.Verification{GroupsChecked: 2, Unchanged: true, Rows: rows, Groups: []string{"eleven", "ten"}}}
	got := render(t, func(w *bytes.Buffer) error { return Replay(w, Table, r) })
	want := "PROOF 2 group(s) with commits on t checked before and after: all committed offsets unchanged\n" +
		"GROUP   TOPIC  PARTITION      BEFORE  AFTER  STATUS\n" +
		"eleven  t      11 partitions                 unchanged\n"
	for p := 0; p < proofRowsShown; p++ {
		want += fmt.Sprintf("ten     t      %-13d  5       5      unchanged\n", p)
	}
	want += "(unchanged partitions counted per group: -v or -o json lists every row)\n"
	sameText(t, "proof table", got[strings.Index(got, "PROOF"):], want)
}

// TestTableQuotesHostileNameInAnyColumn: a name with a control character
// is quoted wherever it sits in a row, also after plain cells and after
// another hostile cell in the same row. The bugs: sanitising only the
// first cells of a row (stopping at the first plain one), or only the
// cells that were already plain.
func TestTableQuotesHostileNameInAnyColumn(t *testing.T) {
	header := []string{"GROUP", "TOPIC", "CLIENT-ID"}
	rows := [][]string{
		{"plain", "t", "evil\x1b[2Kapp"},
		{"bad\nrow", "t", "x\ty"},
		{"ok", "t", "ok"},
	}
	got := render(t, func(w *bytes.Buffer) error { return WriteTable(w, header, rows) })
	want := "" +
		"GROUP       TOPIC  CLIENT-ID\n" +
		"plain       t      \"evil\\x1b[2Kapp\"\n" +
		"\"bad\\nrow\"  t      \"x\\ty\"\n" +
		"ok          t      ok\n"
	sameText(t, "table with hostile names", got, want)
	if rows[0][2] != "evil\x1b[2Kapp" || rows[1][0] != "bad\nrow" {
		t.Errorf("the caller's rows were changed: %q", rows)
	}
}

// TestWriteAlignedRowLongerThanHeader: a row with one cell more than the
// header lays out on the fast path as tablewriter lays it out (the extra
// cell last, unpadded). The bug: measuring a width for a column the
// header does not have (an index past the widths: a panic).
func TestWriteAlignedRowLongerThanHeader(t *testing.T) {
	header := []string{"A", "BB"}
	rows := [][]string{{"x", "y", "zzz"}, {"xx", "y"}}
	fast := render(t, func(w *bytes.Buffer) error { return writeAligned(w, header, rows) })
	slow := render(t, func(w *bytes.Buffer) error { return writeTablewriter(w, header, rows) })
	want := "A   BB\nx   y   zzz\nxx  y\n"
	sameText(t, "fast path", fast, want)
	sameText(t, "tablewriter", slow, want)
}

// TestDeleteOffsetsSkippedRows: a group a selection left out unseen (a
// share group: no partitions, a reason) is one "skipped" row; a group with
// neither partitions nor a reason has no row; a group with partitions
// shows them, whatever else it says. The bugs: a skipped share group
// vanishing from the table, a phantom row for an empty plan, or a planned
// group's partitions replaced by one line.
func TestDeleteOffsetsSkippedRows(t *testing.T) {
	five := int64(5)
	ps := []admin.DeleteOffsetsPlan{
		{Group: "s1", Skipped: "share group: name it"},
		{Group: "empty"},
		{Group: "g", Skipped: "live", Partitions: []admin.DeleteOffsetsRow{{Topic: "t", Partition: 0, Current: &five, Status: "would delete"}}},
	}
	for f, want := range map[Format]string{
		Table: "GROUP  TOPIC  PARTITION  CURRENT  STATUS\n" +
			"s1     -      -          -        skipped: share group: name it\n" +
			"g      t      0          5        would delete\n",
		CSV: "GROUP,TOPIC,PARTITION,CURRENT,STATUS,ERROR\n" +
			"s1,,,,skipped: share group: name it,\n" +
			"g,t,0,5,would delete,\n",
	} {
		if got := render(t, func(w *bytes.Buffer) error { return DeleteOffsetsGroups(w, f, ps) }); got != want {
			t.Errorf("format %v:\n%s\nwant:\n%s", f, got, want)
		}
	}
}

// TestWriteTableQuotesEveryColumn: WriteTable makes every cell safe, the
// second column too. The bug: a cell with an escape byte written raw,
// repainting the operator's terminal.
func TestWriteTableQuotesEveryColumn(t *testing.T) {
	got := render(t, func(w *bytes.Buffer) error {
		return WriteTable(w, []string{"A", "B"}, [][]string{{"x", "bad\x1bname"}})
	})
	if want := "A  B\nx  \"bad\\x1bname\"\n"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}
