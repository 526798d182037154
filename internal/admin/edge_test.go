package admin

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// The tests in this file each stand for a bug that mutation testing showed
// the rest of the suite would let through (issue 17): two topics where
// every other test uses one, a duplicate in the middle where the others
// put it last, and the edges of the character and zone checks.

// reset --topic t:0 --topic u must plan t/0 AND u/0: a scope loop that
// stopped after the first topic with named partitions would silently skip
// u and still report success.
func TestPlanResetTwoTopicsPlansBoth(t *testing.T) {
	tests := []struct {
		scope []string
		want  []string
	}{
		{[]string{"t:0", "u"}, []string{"t/0 40>10 d-30", "u/0 ->0 d-"}},
		{[]string{"u", "t:0"}, []string{"t/0 40>10 d-30", "u/0 ->0 d-"}},
		{[]string{"t:0,1", "u:0"}, []string{"t/0 40>10 d-30", "t/1 45>0 d-45", "u/0 ->0 d-"}},
		{[]string{"t", "u"}, []string{"t/0 40>10 d-30", "t/1 45>0 d-45", "t/2 ->0 d-", "u/0 ->0 d-"}},
	}
	for _, tc := range tests {
		tg, err := ParseTarget("earliest", time.Unix(0, 0))
		if err != nil {
			t.Fatal(err)
		}
		plan, err := PlanReset(ResetInput{Snapshot: resetSnapshot(), Groups: []string{"g"}, Target: tg, Scope: resetScope(t, tc.scope...)})
		if err != nil {
			t.Fatalf("%v: %v", tc.scope, err)
		}
		var got []string
		for _, pp := range plan.Groups[0].Partitions {
			got = append(got, planRow(pp))
		}
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("--topic %v planned\n%s\nwant\n%s", tc.scope, strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
		}
	}
}

// An exact repeated row in the middle of a plan file is harmless: every
// later row is still read and applied. A parser that stopped at the
// duplicate would apply part of the plan and report success.
func TestPlanFileDuplicateRowInTheMiddle(t *testing.T) {
	pf, err := ParsePlanCSV([]byte("g,t,0,5\ng,t,0,5\ng,t,1,30\nsrc,t,0,7\n"))
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, r := range pf.Rows {
		rows = append(rows, fmt.Sprintf("%s/%s/%d=%d@%d", r.Group, r.Topic, r.Partition, r.Offset, r.Line))
	}
	if got := strings.Join(rows, " "); got != "g/t/0=5@1 g/t/1=30@3 src/t/0=7@4" {
		t.Fatalf("rows %s", got)
	}
	plan, err := PlanReset(ResetInput{Snapshot: resetSnapshot(), Groups: []string{"g"}, Target: Target{Kind: ToFile, Path: "p.csv"}, File: &pf})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, pp := range plan.Groups[0].Partitions {
		got = append(got, planRow(pp))
	}
	if want := "t/0 40>10 d-30 [clamped to log start (asked 5)]\nt/1 45>30 d-15"; strings.Join(got, "\n") != want {
		t.Fatalf("plan\n%s\nwant\n%s", strings.Join(got, "\n"), want)
	}
	// The same in a three-column file, and a conflicting repeat after the
	// duplicate is still caught.
	pf, err = ParsePlanCSV([]byte("t,0,5\nt,0,5\nt,1,30\n"))
	if err != nil || len(pf.Rows) != 2 || pf.Rows[1].Partition != 1 || pf.Rows[1].Offset != 30 {
		t.Fatalf("three columns: %+v, %v", pf.Rows, err)
	}
	_, err = ParsePlanCSV([]byte("t,0,5\nt,0,5\nt,0,6\n"))
	if err == nil || err.Error() != "line 3: t partition 0 listed again with a different offset (first on line 1)" {
		t.Fatalf("conflict after a duplicate: %v", err)
	}
}

// A malformed zone is an error, never UTC: "+ab" read as +00:00 would
// reset to a time hours away from the one meant.
func TestParseTimeMalformedZones(t *testing.T) {
	for _, z := range []string{"+ab", "-ab", "+1", "+123", "+12345", "+1a", "+a1", "+12:3", "+1:30", "+12:300", "+1230:", "+:1230", "+", "-", "+19", "-19:00", "+12:60", "+1260", "+12:5a", "++12", "+-12"} {
		in := "2026-11-30T10:00:00" + z
		if ms, err := ParseTime(in); err == nil {
			t.Errorf("ParseTime(%q) = %d, want an error", in, ms)
		} else if !strings.Contains(err.Error(), "bad zone") && !strings.Contains(err.Error(), "RFC 3339") {
			t.Errorf("ParseTime(%q): %v", in, err)
		}
	}
	base := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC).UnixMilli()
	for z, east := range map[string]int64{
		"+18": 18 * 3600, "-18:00": -18 * 3600, "+18:59": 18*3600 + 59*60, "+00": 0, "-0000": 0,
		"+0959": 9*3600 + 59*60, "-09:01": -(9*3600 + 60), "+01:00": 3600, "z": 0, "Z": 0,
	} {
		in := "2026-11-30T10:00:00" + z
		got, err := ParseTime(in)
		if err != nil || got != base-east*1000 {
			t.Errorf("ParseTime(%q) = %d, %v; want %d", in, got, err, base-east*1000)
		}
	}
	if _, err := parseZone("+ab"); err == nil || err.Error() != `bad zone "+ab"` {
		t.Errorf("parseZone(+ab): %v", err)
	}
}

// A plan file checks its topics with lag.CheckTopicName too.
func TestPlanFileTopicNameCharacters(t *testing.T) {
	// In a plan file too.
	if _, err := ParsePlanCSV([]byte("z{,0,1\n")); err == nil || !strings.Contains(err.Error(), `line 1: topic "z{"`) {
		t.Errorf("plan file topic z{: %v", err)
	}
	if pf, err := ParsePlanCSV([]byte("Zz09,0,1\n")); err != nil || pf.Rows[0].Topic != "Zz09" {
		t.Errorf("plan file topic Zz09: %v", err)
	}
}
