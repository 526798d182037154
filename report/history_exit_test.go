package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/offsetctl/offsetctl/internal/audit"
)

// TestHistoryUnknownExitCode (QA): an entry whose outcome was never
// recorded (a run killed after its intent) showed exit_code 0 and
// duration_ms 0 in history -o json and EXIT-CODE 0 in CSV, the 0s of its
// intent line: automation looking for exit_code != 0 missed killed runs.
// They are null (JSON) and empty (CSV); recorded ones are as recorded.
func TestHistoryUnknownExitCode(t *testing.T) {
	es := []audit.Entry{
		{V: audit.Version, ID: "01KILLED", Action: audit.ActReset, Outcome: audit.Unknown, NoOutcome: true},
		{V: audit.Version, ID: "01FAILED", Action: audit.ActReset, Outcome: audit.Failed, ExitCode: 1, DurationMs: 12},
		{V: audit.Version, ID: "01OK", Action: audit.ActReset, Outcome: audit.Applied},
	}
	var js bytes.Buffer
	if err := History(&js, JSON, es, ""); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Entries []map[string]any `json:"entries"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	want := []struct{ exit, dur any }{{nil, nil}, {1.0, 12.0}, {0.0, 0.0}}
	for i, w := range want {
		e := doc.Entries[i]
		code, hasCode := e["exit_code"]
		dur, hasDur := e["duration_ms"]
		if !hasCode || !hasDur || code != w.exit || dur != w.dur {
			t.Errorf("entry %d: exit_code %v (%v) duration_ms %v (%v), want %v %v", i, code, hasCode, dur, hasDur, w.exit, w.dur)
		}
	}
	if strings.Count(js.String(), `"exit_code"`) != 3 {
		t.Errorf("exit_code appears %d times, want once per entry:\n%s", strings.Count(js.String(), `"exit_code"`), js.String())
	}
	var csv bytes.Buffer
	if err := History(&csv, CSV, es, ""); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(csv.String()), "\n")
	col := -1
	for i, h := range strings.Split(lines[0], ",") {
		if h == "EXIT-CODE" {
			col = i
		}
	}
	var got []string
	for _, l := range lines[1:] {
		got = append(got, strings.Split(l, ",")[col])
	}
	if strings.Join(got, " ") != " 1 0" {
		t.Errorf("CSV EXIT-CODE %q, want \"\", 1, 0", got)
	}
}
