package report

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/offsetctl/offsetctl/internal/admin"
)

// The fast table writer prints exactly what WriteTable prints.
func TestWriteAlignedMatchesWriteTable(t *testing.T) {
	header := []string{"GROUP", "TOPIC", "PARTITION", "NOTE"}
	for _, rows := range [][][]string{
		{{"orders-billing", "orders", "0", "-"}, {"g", "a-much-longer-topic-name", "12345", "clamped to log end (asked 100)"}},
		{{"", "t", "0", ""}},
		nil,
		// Display width, not bytes or runes: accents (1 column, 2
		// bytes), CJK (2 columns), a combining mark (0), an emoji (2).
		{{"café-billing", "订单", "0", "-"}, {"g", "naïve", "7", "e\u0301 and 🚀"}, {"日本語のグループ", "t", "1", "x"}},
	} {
		var fast, slow bytes.Buffer
		if err := writeAligned(&fast, header, rows); err != nil {
			t.Fatal(err)
		}
		if err := writeTablewriter(&slow, header, rows); err != nil {
			t.Fatal(err)
		}
		if fast.String() != slow.String() {
			t.Errorf("rows %q:\nfast:\n%s\nWriteTable:\n%s", rows, strings.ReplaceAll(fast.String(), " ", "·"), strings.ReplaceAll(slow.String(), " ", "·"))
		}
	}
}

// TestWriteTableLargeWide: a large table with one wide cell takes the
// fast path and still lays out as tablewriter does.
func TestWriteTableLargeWide(t *testing.T) {
	header := []string{"TOPIC", "PARTITION", "NOTE"}
	var rows [][]string
	for i := 0; i <= largeTable; i++ {
		rows = append(rows, []string{"orders", strconv.Itoa(i), "-"})
	}
	rows[7][0] = "订单"
	if hasControl(header, rows) {
		t.Fatal("no control characters here")
	}
	var fast, slow bytes.Buffer
	if err := WriteTable(&fast, header, rows); err != nil {
		t.Fatal(err)
	}
	if err := writeTablewriter(&slow, header, rows); err != nil {
		t.Fatal(err)
	}
	if fast.String() != slow.String() {
		t.Errorf("large wide table differs from tablewriter's:\n%.600s\n---\n%.600s", fast.String(), slow.String())
	}
	rows[3][2] = "two\nlines"
	if !hasControl(header, rows) {
		t.Error("a newline is a control character: tablewriter renders it")
	}
}

func TestResetRender(t *testing.T) {
	cur, tgt, d := int64(15), int64(20), int64(5)
	p := admin.Plan{Groups: []admin.GroupPlan{{Group: "g", State: "Empty", Partitions: []admin.PartitionPlan{
		{Topic: "t", Partition: 0, LogStart: 0, LogEnd: 20, Current: &cur, Target: &tgt, Delta: &d},
		{Topic: "t", Partition: 1, LogStart: 0, LogEnd: 20, Action: admin.ActDelete, Note: "restore: had no commit (offset deleted)"},
	}}}}
	var b bytes.Buffer
	if err := Reset(&b, Table, p, true); err != nil {
		t.Fatal(err)
	}
	want := "GROUP  TOPIC  PARTITION  LOG-START  CURRENT  TARGET  DELTA  NOTE\n" +
		"g      t      0          0          15       20      +5     -\n" +
		"g      t      1          0          -        none    -      restore: had no commit (offset deleted)\n"
	if b.String() != want {
		t.Errorf("table =\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	if err := ResetExport(&b, p); err != nil {
		t.Fatal(err)
	}
	if want := "g,t,0,20\noffsetctl:no-commit:g,t,1,0\n"; b.String() != want {
		t.Errorf("export = %q, want %q", b.String(), want)
	}
	b.Reset()
	if err := Reset(&b, CSV, p, true); err != nil {
		t.Fatal(err)
	}
	// CSV: numbers as numbers (no '+'), a missing one empty.
	if want := "GROUP,TOPIC,PARTITION,LOG-START,LOG-END,CURRENT,TARGET,DELTA,NOTE,ERROR\ng,t,0,0,20,15,20,5,,\ng,t,1,0,20,,,,restore: had no commit (offset deleted),\n"; b.String() != want {
		t.Errorf("csv = %q", b.String())
	}
}

// The rows of a group whose transaction was aborted (outcome failed) say
// so in NOTE, table and CSV, so they do not read like the applied group's;
// the applied group's rows are unchanged.
func TestResetAbortedGroupRowsMarked(t *testing.T) {
	cur, tgt, d := int64(1), int64(5), int64(4)
	row := admin.PartitionPlan{Topic: "t", Partition: 0, Current: &cur, Target: &tgt, Delta: &d, Action: admin.ActCommit}
	p := admin.Plan{Groups: []admin.GroupPlan{
		{Group: "ok", Executed: true, Outcome: admin.OutcomeApplied, Partitions: []admin.PartitionPlan{row}},
		{Group: "live", Outcome: admin.OutcomeFailed, Aborted: "group became active", Error: "group live ...", Partitions: []admin.PartitionPlan{row}},
		{Group: "refused", Outcome: admin.OutcomeFailed, Error: "committing ...", Partitions: []admin.PartitionPlan{row}},
	}}
	var table, csv bytes.Buffer
	if err := Reset(&table, Table, p, false); err != nil {
		t.Fatal(err)
	}
	if err := Reset(&csv, CSV, p, false); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(table.String()), "\n")
	if len(lines) != 4 || !strings.HasSuffix(lines[1], " -") || !strings.HasSuffix(lines[2], "not applied: group became active") ||
		!strings.HasSuffix(lines[3], "not applied: the group's change failed (see the error)") {
		t.Errorf("table:\n%s", table.String())
	}
	if !strings.Contains(csv.String(), "live,t,0,0,0,1,5,4,not applied: group became active,") || strings.Contains(csv.String(), "ok,t,0,0,0,1,5,4,not") {
		t.Errorf("csv:\n%s", csv.String())
	}
	if p.Groups[1].Partitions[0].Note != "" {
		t.Error("rendering changed the plan")
	}
}
