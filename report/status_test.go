package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/offsetctl/offsetctl/internal/lag"
)

func statusReport(status bool) lag.LagReport {
	c := int64(10)
	return lag.LagReport{Isolation: "uncommitted", Status: status, Groups: []lag.GroupLag{
		{Group: "g", State: "Empty", TotalLag: 90, Status: "STOP", StatusReason: "t/0: no commit", Partitions: []lag.PartitionLag{
			{Topic: "t", Partition: 0, Committed: &c, LogEnd: 100, Lag: ptr(90), Status: "STOP", StatusReason: "no commit"},
			{Topic: "t", Partition: 1, LogEnd: 5},
		}},
		{Group: "gone", Error: "GROUP_ID_NOT_FOUND"},
	}}
}

func ptr(v int64) *int64 { return &v }

// lag --status: the table's group line says the status and why, and each
// row has a STATUS (- when not judged); CSV has STATUS and STATUS-REASON,
// empty for a group without rows; without --status neither shows.
func TestLagStatusColumns(t *testing.T) {
	var b bytes.Buffer
	if err := Lag(&b, Table, statusReport(true)); err != nil {
		t.Fatal(err)
	}
	want := "GROUP g  TYPE -  STATE Empty  MEMBERS 0  TOTAL-LAG 90  STATUS STOP (t/0: no commit)\n"
	lines := strings.Split(b.String(), "\n")
	if lines[0]+"\n" != want || !strings.HasSuffix(strings.TrimSpace(lines[1]), "STATUS") ||
		!strings.HasSuffix(strings.TrimSpace(lines[2]), "STOP") || !strings.HasSuffix(strings.TrimSpace(lines[3]), "-") {
		t.Fatalf("table:\n%s", b.String())
	}
	b.Reset()
	if err := Lag(&b, CSV, statusReport(true)); err != nil {
		t.Fatal(err)
	}
	rows := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(rows) != 4 || !strings.HasSuffix(rows[0], ",ERROR,STATUS,STATUS-REASON") || !strings.HasSuffix(rows[1], ",STOP,no commit") ||
		!strings.HasSuffix(rows[2], ",,") || !strings.HasSuffix(rows[3], ",GROUP_ID_NOT_FOUND,,") {
		t.Fatalf("csv:\n%s", b.String())
	}
	for _, f := range []Format{Table, CSV} {
		b.Reset()
		r := statusReport(false)
		r.Groups[0].Status, r.Groups[0].Partitions[0].Status = "", ""
		if err := Lag(&b, f, r); err != nil || strings.Contains(b.String(), "STATUS") {
			t.Fatalf("%v without --status:\n%s", f, b.String())
		}
	}
}

func TestGroupsStatusColumn(t *testing.T) {
	gs := []lag.GroupSummary{{Group: "g", Status: "WARN", StatusReason: "t/0: lag grew"}, {Group: "h"}}
	var b bytes.Buffer
	if err := Groups(&b, CSV, gs, true); err != nil {
		t.Fatal(err)
	}
	rows := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(rows) != 3 || !strings.HasSuffix(rows[0], ",ERROR,STATUS,STATUS-REASON") || !strings.HasSuffix(rows[1], ",WARN,t/0: lag grew") || !strings.HasSuffix(rows[2], ",-,") {
		t.Fatalf("csv:\n%s", b.String())
	}
	b.Reset()
	if err := Groups(&b, CSV, gs, false); err != nil || strings.Contains(b.String(), "STATUS") {
		t.Fatalf("without --status:\n%s", b.String())
	}
}
