package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/offsetctl/offsetctl/internal/audit"
)

// history's GROUPS column names the groups unambiguously: a name holding a
// comma or a blank is quoted, and groups beyond three are counted (JSON
// lists them all). Whole rows, so a change of any column shows.
func TestHistoryTableGroups(t *testing.T) {
	at := time.Date(2026, 12, 2, 1, 0, 0, 0, time.UTC)
	e := func(id string, groups ...string) audit.Entry {
		return audit.Entry{ID: id, Time: at, User: "ops", Host: "h", Action: "reset", Groups: groups, Outcome: "ok", Partitions: 2, Applied: audit.Count(2), Backup: "b.csv"}
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
	if err := History(&buf, Table, entries, ""); err != nil {
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

// TestHistoryUnknownVersion: an entry written by a newer offsetctl shows
// its version instead of an outcome whose meaning may have changed.
func TestHistoryUnknownVersion(t *testing.T) {
	at := time.Date(2026, 12, 2, 1, 0, 0, 0, time.UTC)
	entries := []audit.Entry{
		{V: audit.Version, ID: "01", Time: at, Action: "reset", Outcome: "applied"},
		{V: audit.Version + 1, ID: "02", Time: at, Action: "reset", Outcome: "applied"},
	}
	var buf bytes.Buffer
	if err := History(&buf, Table, entries, ""); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(buf.String(), "\n")
	if !strings.Contains(lines[1], " applied ") || strings.Contains(lines[1], "format-v") {
		t.Errorf("known version: %q", lines[1])
	}
	if want := " format-v" + strconv.Itoa(audit.Version+1) + "? "; !strings.Contains(lines[2], want) || strings.Contains(lines[2], "applied") {
		t.Errorf("unknown version: %q, want %q", lines[2], want)
	}
}

// TestHistoryJSONMatchesHistory: the streamed JSON is byte for byte what
// History writes, for no entry, one and several (with changes, HTML
// characters and nil offsets); an error of next stops it.
func TestHistoryJSONMatchesHistory(t *testing.T) {
	off := int64(7)
	all := []audit.Entry{
		{V: 1, ID: "01", Action: "reset", Groups: []string{"a<b>&c"}, Changes: []audit.Change{{Group: "g", Topic: "t", Before: &off}}},
		{V: 1, ID: "02", Action: "undo", UndoOf: "01"},
		{V: 1, ID: "03", Action: "replay"},
		// Killed mid-change: its exit code and duration are not known.
		{V: 2, ID: "04", Action: "reset", Outcome: audit.Unknown, NoOutcome: true},
	}
	for n := 0; n <= len(all); n++ {
		var want, got bytes.Buffer
		if err := History(&want, JSON, all[:n], ""); err != nil {
			t.Fatal(err)
		}
		i := 0
		err := HistoryJSON(&got, func() (*audit.Entry, error) {
			if i == n {
				return nil, nil
			}
			i++
			return &all[i-1], nil
		})
		if err != nil || got.String() != want.String() {
			t.Errorf("%d entries: %v\ngot:\n%s\nwant:\n%s", n, err, got.String(), want.String())
		}
		if n == len(all) {
			var doc struct {
				Entries []map[string]any `json:"entries"`
			}
			if err := json.Unmarshal(got.Bytes(), &doc); err != nil || len(doc.Entries) != n {
				t.Fatalf("%v: %s", err, got.String())
			}
			for _, e := range doc.Entries {
				code, ok := e["exit_code"]
				if killed := e["id"] == "04"; !ok || (code == nil) != killed || (e["duration_ms"] == nil) != killed {
					t.Errorf("entry %v: exit_code %v, duration_ms %v (null only for the killed change)", e["id"], code, e["duration_ms"])
				}
			}
		}
	}
	boom := errors.New("boom")
	if err := HistoryJSON(io.Discard, func() (*audit.Entry, error) { return nil, boom }); err != boom {
		t.Errorf("next's error: %v", err)
	}
}

// history's CHANGED column counts the partitions a version-2 entry moved
// (a reset to the current offsets wrote 3 and changed none), and a
// version-1 entry's applied partitions; CSV has both counts.
func TestHistoryChangedColumn(t *testing.T) {
	at := time.Date(2026, 12, 2, 1, 0, 0, 0, time.UTC)
	zero, three := 0, 3
	entries := []audit.Entry{
		{ID: "01", Time: at, User: "u", Host: "h", Action: "reset", Outcome: "applied", Partitions: 3, Applied: audit.Count(3)},
		{ID: "02", Time: at, User: "u", Host: "h", Action: "reset", Outcome: "applied", Partitions: 3, Applied: audit.Count(3), Written: &three, Changed: &zero},
	}
	var buf bytes.Buffer
	if err := History(&buf, Table, entries, ""); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(buf.String(), "\n")
	if !strings.Contains(lines[1], " 3/3 ") || !strings.Contains(lines[2], " 0/3 ") {
		t.Fatalf("CHANGED column:\n%s", buf.String())
	}
	buf.Reset()
	if err := History(&buf, CSV, entries, ""); err != nil {
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
	if want := "GROUP,TOPIC,PARTITION,BEFORE,PLANNED,NOW,MATCHES,LATER,FOUND,FOUND-MATCHES\ng,t,0,1,2,2,planned,,,\ng,t,1,,2,,before,,,\n"; buf.String() != want {
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

// A partition a later change touched names it, with the offset it found
// and which of the change's offsets that is: the table adds the columns
// only then, CSV always has them, JSON nests them under "later".
func TestVerifyTableLater(t *testing.T) {
	one, two, four := int64(1), int64(2), int64(4)
	v := audit.Verification{ID: "01", Outcome: "unknown", Matches: "mixed", Rows: []audit.VerifyRow{
		{Group: "g", Topic: "t", Partition: 0, Before: &one, Planned: &two, Now: &four, Matches: audit.MatchNeither,
			Later: &audit.Later{ID: "02", Action: "reset", Outcome: "applied", Found: &one, Matches: audit.MatchBefore}},
		{Group: "g", Topic: "t", Partition: 1, Before: &one, Planned: &two, Now: &one, Matches: audit.MatchBefore,
			Later: &audit.Later{ID: "03", Action: "reset", Outcome: "applied", Matches: audit.MatchUnread}},
		{Group: "g", Topic: "t", Partition: 2, Before: &one, Planned: &two, Now: &two, Matches: audit.MatchPlanned},
	}}
	var buf bytes.Buffer
	if err := Verify(&buf, Table, v); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"GROUP  TOPIC  PARTITION  BEFORE  PLANNED  NOW  MATCHES  LATER  FOUND  FOUND-MATCHES",
		"g      t      0          1       2        4    neither  02     1      before",
		"g      t      1          1       2        1    before   03     ?      not readable",
		"g      t      2          1       2        2    planned  -      -      -",
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
	if want := "GROUP,TOPIC,PARTITION,BEFORE,PLANNED,NOW,MATCHES,LATER,FOUND,FOUND-MATCHES\ng,t,0,1,2,4,neither,02,1,before\ng,t,1,1,2,1,before,03,,not readable\ng,t,2,1,2,2,planned,,,\n"; buf.String() != want {
		t.Fatalf("verify CSV:\n%q\nwant\n%q", buf.String(), want)
	}
	buf.Reset()
	if err := Verify(&buf, JSON, v); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"later": {`) || !strings.Contains(buf.String(), `"found": 1,`) || strings.Count(buf.String(), `"later"`) != 2 {
		t.Fatalf("verify JSON:\n%s", buf.String())
	}
}

// history --verify's table quotes a group name that would not show
// safely once, as every table does (the table writer quotes each cell):
// quoting it before too printed "\"ctl\\x1b[31mred\"".
func TestVerifyTableHostileName(t *testing.T) {
	one := int64(1)
	v := audit.Verification{ID: "01", Matches: audit.MatchBefore, Rows: []audit.VerifyRow{
		{Group: "ctl\x1b[31mred", Topic: "t", Partition: 0, Before: &one, Planned: &one, Now: &one, Matches: audit.MatchBoth},
	}}
	var buf bytes.Buffer
	if err := Verify(&buf, Table, v); err != nil {
		t.Fatal(err)
	}
	row := strings.Split(buf.String(), "\n")[1]
	if !strings.HasPrefix(row, `"ctl\x1b[31mred"  t`) || strings.ContainsRune(buf.String(), 0x1b) {
		t.Fatalf("verify row: %q", row)
	}
}

// history shows what a change of outcome unknown applied and changed as
// unknown: ? in the table, empty CSV fields (an unknown value, as every
// CSV has it) and null in JSON, never 0 (QA: `unknown 0/3`, `"applied":
// 0`, though --verify showed the change applied). A killed backfill has
// no records counted: ?, not 0/0.
func TestHistoryUnknownCounts(t *testing.T) {
	at := time.Date(2026, 12, 2, 1, 0, 0, 0, time.UTC)
	three := 3
	entries := []audit.Entry{
		{V: 2, ID: "01", Time: at, User: "u", Host: "h", Action: "reset", Outcome: "unknown", Partitions: 3},
		{V: 2, ID: "02", Time: at, User: "u", Host: "h", Action: "reset", Outcome: "unknown", Partitions: 3, Written: &three},
		{V: 2, ID: "03", Time: at, User: "u", Host: "h", Action: "backfill", Outcome: "unknown", Topics: []string{"orders"}, Target: "orders-copy"},
	}
	var buf bytes.Buffer
	if err := History(&buf, Table, entries, ""); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`ID  TIME                  WHO  ACTION    GROUPS  OUTCOME  CHANGED  BACKUP`,
		`01  2026-12-02T01:00:00Z  u@h  reset             unknown  ?/3      -`,
		`02  2026-12-02T01:00:00Z  u@h  reset             unknown  ?/3      -`,
		`03  2026-12-02T01:00:00Z  u@h  backfill          unknown  ?        -`,
	}
	got := strings.Split(strings.TrimRight(buf.String(), "\n"), "\n")
	for i := range got {
		got[i] = strings.TrimRight(got[i], " ")
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("history table:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	buf.Reset()
	if err := History(&buf, CSV, entries, ""); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(buf.String(), "\n")
	for i, l := range lines[1:4] {
		if !strings.Contains(l, ",unknown,0,"+[]string{"3", "3", "0"}[i]+",,,,") {
			t.Errorf("CSV row %d: APPLIED and CHANGED should be empty:\n%s", i+1, l)
		}
	}
	buf.Reset()
	if err := History(&buf, JSON, entries, ""); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), `"applied": null`); n != 3 || strings.Contains(buf.String(), `"changed"`) || !strings.Contains(buf.String(), `"written": 3`) {
		t.Errorf("JSON: %d null applied counts:\n%s", n, buf.String())
	}
	buf.Reset()
	if err := HistoryJSON(&buf, func() (*audit.Entry, error) {
		if len(entries) == 0 {
			return nil, nil
		}
		e := entries[0]
		entries = entries[1:]
		return &e, nil
	}); err != nil || strings.Count(buf.String(), `"applied": null`) != 3 {
		t.Errorf("streamed JSON (%v):\n%s", err, buf.String())
	}
}

// With --group G, a fleet change that skipped the live group G reads
// OUTCOME "skipped (live)" and no CHANGED count; a change that did touch G
// keeps its own, and without --group every row keeps the change's outcome.
func TestHistoryGroupSkippedRow(t *testing.T) {
	at := time.Date(2026, 12, 2, 1, 0, 0, 0, time.UTC)
	entries := []audit.Entry{
		{ID: "01", Time: at, User: "ops", Host: "h", Action: "reset", Groups: []string{"h1"}, SkippedLive: []string{"g"}, Outcome: "partly", Partitions: 2, Applied: audit.Count(2)},
		{ID: "02", Time: at, User: "ops", Host: "h", Action: "reset", Groups: []string{"g"}, Outcome: "applied", Partitions: 3, Applied: audit.Count(3)},
	}
	rows := func(group string) []string {
		var buf bytes.Buffer
		if err := History(&buf, Table, entries, group); err != nil {
			t.Fatal(err)
		}
		return strings.Split(strings.TrimSpace(buf.String()), "\n")
	}
	g := rows("g")
	if len(g) != 3 || !strings.Contains(g[1], SkippedOutcome) || strings.Contains(g[1], "partly") || strings.Contains(g[1], "2/2") ||
		!strings.Contains(g[2], "applied") || !strings.Contains(g[2], "3/3") || strings.Contains(g[2], SkippedOutcome) {
		t.Errorf("history --group g:\n%s", strings.Join(g, "\n"))
	}
	all := rows("")
	if len(all) != 3 || !strings.Contains(all[1], "partly") || !strings.Contains(all[1], "2/2") || strings.Contains(all[1], SkippedOutcome) {
		t.Errorf("history:\n%s", strings.Join(all, "\n"))
	}
}
