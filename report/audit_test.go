package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/offsetctl/offsetctl/audit"
)

// history's GROUPS column names the groups unambiguously: a name holding a
// comma or a blank is quoted, and groups beyond three are counted (JSON
// lists them all). Whole rows, so a change of any column shows.
func TestHistoryTableGroups(t *testing.T) {
	at := time.Date(2026, 12, 2, 1, 0, 0, 0, time.UTC)
	e := func(id string, groups ...string) audit.Entry {
		return audit.Entry{ID: id, Time: at, User: "ops", Host: "h", Action: "reset", Groups: groups, Outcome: "ok", Partitions: 2, Applied: 2, Backup: "b.csv"}
	}
	entries := []audit.Entry{
		e("01", "billing"),
		e("02", "a,b", "c"),
		e("03", "a", "b", "c"),
		e("04", "orders billing"),
		e("05", "g1", "g2", "g3", "g4", "g5"),
		e("06", "evil\x1b[2K"),
	}
	var buf bytes.Buffer
	if err := History(&buf, Table, entries); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`ID  TIME                  WHO    ACTION  GROUPS               OUTCOME  CHANGED  BACKUP`,
		`01  2026-12-02T01:00:00Z  ops@h  reset   billing              ok       2/2      b.csv`,
		`02  2026-12-02T01:00:00Z  ops@h  reset   "a,b",c              ok       2/2      b.csv`,
		`03  2026-12-02T01:00:00Z  ops@h  reset   a,b,c                ok       2/2      b.csv`,
		`04  2026-12-02T01:00:00Z  ops@h  reset   "orders billing"     ok       2/2      b.csv`,
		`05  2026-12-02T01:00:00Z  ops@h  reset   g1,g2,g3 and 2 more  ok       2/2      b.csv`,
		`06  2026-12-02T01:00:00Z  ops@h  reset   "evil\x1b[2K"        ok       2/2      b.csv`,
	}
	got := strings.Split(strings.TrimRight(buf.String(), "\n"), "\n")
	for i := range got {
		got[i] = strings.TrimRight(got[i], " ")
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("history table:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// history's CHANGED column counts the partitions a version-2 entry moved
// (a reset to the current offsets wrote 3 and changed none), and a
// version-1 entry's applied partitions; CSV has both counts.
func TestHistoryChangedColumn(t *testing.T) {
	at := time.Date(2026, 12, 2, 1, 0, 0, 0, time.UTC)
	zero, three := 0, 3
	entries := []audit.Entry{
		{ID: "01", Time: at, User: "u", Host: "h", Action: "reset", Outcome: "applied", Partitions: 3, Applied: 3},
		{ID: "02", Time: at, User: "u", Host: "h", Action: "reset", Outcome: "applied", Partitions: 3, Applied: 3, Written: &three, Changed: &zero},
	}
	var buf bytes.Buffer
	if err := History(&buf, Table, entries); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(buf.String(), "\n")
	if !strings.Contains(lines[1], " 3/3 ") || !strings.Contains(lines[2], " 0/3 ") {
		t.Fatalf("CHANGED column:\n%s", buf.String())
	}
	buf.Reset()
	if err := History(&buf, CSV, entries); err != nil {
		t.Fatal(err)
	}
	lines = strings.Split(buf.String(), "\n")
	if !strings.Contains(lines[0], ",PARTITIONS,APPLIED,CHANGED,BACKUP,") || !strings.Contains(lines[1], ",3,3,3,") || !strings.Contains(lines[2], ",3,3,0,") {
		t.Fatalf("CSV counts:\n%s", buf.String())
	}
}

// history --verify: one row per partition, "no commit" for a nil offset,
// which recorded offset it holds now; CSV leaves a nil offset empty; JSON
// is the verification itself.
func TestVerifyTable(t *testing.T) {
	one, two := int64(1), int64(2)
	v := audit.Verification{ID: "01", Outcome: "unknown", Matches: "mixed", Rows: []audit.VerifyRow{
		{Group: "g", Topic: "t", Partition: 0, Before: &one, Planned: &two, Now: &two, Matches: audit.MatchPlanned},
		{Group: "g", Topic: "t", Partition: 1, Before: nil, Planned: &two, Now: nil, Matches: audit.MatchBefore},
	}}
	var buf bytes.Buffer
	if err := Verify(&buf, Table, v); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"GROUP  TOPIC  PARTITION  BEFORE     PLANNED  NOW        MATCHES",
		"g      t      0          1          2        2          planned",
		"g      t      1          no commit  2        no commit  before",
	}
	got := strings.Split(strings.TrimRight(buf.String(), "\n"), "\n")
	for i := range got {
		got[i] = strings.TrimRight(got[i], " ")
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("verify table:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	buf.Reset()
	if err := Verify(&buf, CSV, v); err != nil {
		t.Fatal(err)
	}
	if want := "GROUP,TOPIC,PARTITION,BEFORE,PLANNED,NOW,MATCHES\ng,t,0,1,2,2,planned\ng,t,1,,2,,before\n"; buf.String() != want {
		t.Fatalf("verify CSV:\n%q\nwant\n%q", buf.String(), want)
	}
	buf.Reset()
	if err := Verify(&buf, JSON, v); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"matches": "mixed"`) || !strings.Contains(buf.String(), `"now": null`) {
		t.Fatalf("verify JSON:\n%s", buf.String())
	}
}
