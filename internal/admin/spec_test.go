package admin

import (
	"strings"
	"testing"
	"time"
)

func TestParseTarget(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	ms := func(s string) int64 {
		tm, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return tm.UnixMilli()
	}
	tests := []struct {
		spec string
		want Target
		err  string
	}{
		{spec: "earliest", want: Target{Kind: ToEarliest}},
		{spec: " LATEST ", want: Target{Kind: ToLatest}},
		{spec: "current", want: Target{Kind: ToCurrent}},
		{spec: "42", want: Target{Kind: ToOffset, Offset: 42}},
		{spec: "0", want: Target{Kind: ToOffset, Offset: 0}},
		{spec: "-5", err: "negative"},
		{spec: "99999999999999999999", err: "not an integer"},
		{spec: "shift:+10", want: Target{Kind: ToShift, Shift: 10}},
		{spec: "shift:-10", want: Target{Kind: ToShift, Shift: -10}},
		{spec: "shift:7", want: Target{Kind: ToShift, Shift: 7}},
		{spec: "shift:", err: "signed integer"},
		{spec: "shift:+-1", err: "signed integer"},
		{spec: "shift:abc", err: "signed integer"},
		{spec: "time:2026-11-30T10:00:00Z", want: Target{Kind: ToTime, Millis: ms("2026-11-30T10:00:00Z")}},
		{spec: "time:2026-11-30T10:00:00.250+02:00", want: Target{Kind: ToTime, Millis: ms("2026-11-30T08:00:00.25Z")}},
		{spec: "time:2026-11-30T10:00:00.000", want: Target{Kind: ToTime, Millis: ms("2026-11-30T10:00:00Z")}},      // Apache: no zone is UTC
		{spec: "time:2026-11-30T10:00:00.000-0130", want: Target{Kind: ToTime, Millis: ms("2026-11-30T11:30:00Z")}}, // Apache's XX zone
		{spec: "time:2026-11-30T10:00:00.000+08", want: Target{Kind: ToTime, Millis: ms("2026-11-30T02:00:00Z")}},   // Apache's X zone
		{spec: "time:1764496800000", want: Target{Kind: ToTime, Millis: 1764496800000}},
		{spec: "time:2026-11-30", want: Target{Kind: ToTime, Millis: ms("2026-11-30T00:00:00Z")}},
		{spec: "time:2026-13-30T10:00:00Z", err: "RFC 3339"},
		{spec: "time:2026-11-30T10:00Z", want: Target{Kind: ToTime, Millis: ms("2026-11-30T10:00:00Z")}},
		{spec: "time:2026-11-30T10", err: "HH:MM"},
		{spec: "time:2026-11-30T10:00:00+25:00", err: "bad zone"},
		{spec: "time:", err: "empty time"},
		{spec: "ago:90m", want: Target{Kind: ToTime, Millis: now.Add(-90 * time.Minute).UnixMilli()}},
		{spec: "ago:P1DT2H", want: Target{Kind: ToTime, Millis: now.Add(-26 * time.Hour).UnixMilli()}},
		{spec: "ago:PT0.1S", want: Target{Kind: ToTime, Millis: now.Add(-100 * time.Millisecond).UnixMilli()}},
		{spec: "ago:pt1m", want: Target{Kind: ToTime, Millis: now.Add(-time.Minute).UnixMilli()}},
		{spec: "ago:3d", want: Target{Kind: ToTime, Millis: now.Add(-72 * time.Hour).UnixMilli()}},
		{spec: "ago:P1D", want: Target{Kind: ToTime, Millis: now.Add(-24 * time.Hour).UnixMilli()}},
		// Back to 1970 exactly is the earliest time: time: takes; before it
		// is refused as time: refuses it (QA: ago:106751d planned 1970).
		{spec: "ago:" + now.Sub(time.UnixMilli(0)).String(), want: Target{Kind: ToTime, Millis: 0}},
		{spec: "ago:" + (now.Sub(time.UnixMilli(0)) + time.Millisecond).String(), err: "is before 1970-01-01T00:00:00Z; to start at the log start use earliest"},
		{spec: "ago:100000d", err: `"ago:100000d": now minus the duration is before 1970-01-01T00:00:00Z`},
		{spec: "ago:106751d", err: "before 1970"},
		{spec: "ago:P106751D", err: "before 1970"},
		{spec: "ago:-1h", err: "negative"},
		{spec: "ago:-PT1H", err: "negative"},
		{spec: "ago:P1Y", err: "ISO-8601"},
		{spec: "ago:P1W", err: "ISO-8601"},
		{spec: "ago:PT", err: "ISO-8601"},
		{spec: "ago:P", err: "ISO-8601"},
		{spec: "ago:PT1M1H", err: "ISO-8601"},
		{spec: "ago:PT1.5M", err: "ISO-8601"},
		{spec: "ago:PT1E5S", err: "ISO-8601"},
		{spec: "ago:soon", err: "Go duration"},
		{spec: "file:plan.csv", want: Target{Kind: ToFile, Path: "plan.csv"}},
		{spec: "file:dir/a:b.csv", want: Target{Kind: ToFile, Path: "dir/a:b.csv"}},
		{spec: "file:", err: "needs a path"},
		{spec: "group:other", want: Target{Kind: ToGroup, Group: "other"}},
		{spec: "group:a:b", want: Target{Kind: ToGroup, Group: "a:b"}},
		{spec: "group:", err: "needs a group"},
		{spec: "translated:primary", want: Target{Kind: ToTranslated, Alias: "primary", Path: "translated:primary"}},
		{spec: "Translated:dc-1.east", want: Target{Kind: ToTranslated, Alias: "dc-1.east", Path: "Translated:dc-1.east"}},
		{spec: "translated:", err: "needs the MirrorMaker 2 source cluster alias"},
		{spec: "translated:a/b", err: "cluster alias has a character"},
		{spec: "earliest:1", err: "no argument"},
		{spec: "", err: "want earliest"},
		{spec: "beginning", err: "want earliest"},
	}
	for _, tc := range tests {
		got, err := ParseTarget(tc.spec, now)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseTarget(%q) error = %v, want containing %q", tc.spec, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseTarget(%q): %v", tc.spec, err)
			continue
		}
		got.Spec = ""
		if got != tc.want {
			t.Errorf("ParseTarget(%q) = %+v, want %+v", tc.spec, got, tc.want)
		}
	}
}

func FuzzParseTarget(f *testing.F) {
	for _, s := range []string{"earliest", "42", "shift:-3", "time:2026-11-30T10:00:00.000+08:00", "time:17", "ago:P1DT2H", "ago:PT0.5S", "ago:90m", "file:x", "group:g", "ago:P1.5D", "time:2026-11-30T10:00:00-"} {
		f.Add(s)
	}
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, s string) {
		tg, err := ParseTarget(s, now)
		if err != nil {
			return
		}
		switch tg.Kind {
		case ToOffset:
			if tg.Offset < 0 {
				t.Fatalf("%q: negative offset %d", s, tg.Offset)
			}
		case ToTime:
			if strings.HasPrefix(strings.ToLower(strings.TrimSpace(s)), "ago:") && tg.Millis > now.UnixMilli() {
				t.Fatalf("%q: ago in the future", s)
			}
		case ToFile:
			if tg.Path == "" {
				t.Fatalf("%q: empty path", s)
			}
		case ToGroup:
			if tg.Group == "" {
				t.Fatalf("%q: empty group", s)
			}
		case ToEarliest, ToLatest, ToCurrent, ToShift:
		default:
			t.Fatalf("%q: unknown kind %d", s, tg.Kind)
		}
	})
}

func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"PT1M", "P1DT2H3M4.5S", "-PT1S", "1h", "P0D", "PT.5S", "P99999999999D", "3d", "1d12h", "-2d", "106751d23h"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDuration(s)
		if err == nil && d < 0 {
			t.Fatalf("%q: negative %v", s, d)
		}
	})
}

func TestParseTime(t *testing.T) {
	ms := func(s string) int64 {
		tm, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return tm.UnixMilli()
	}
	tests := []struct {
		in   string
		want int64
		err  string
	}{
		{in: "1764496800000", want: 1764496800000},
		{in: "0", err: "before 1973"},
		{in: "20261130", err: "before 1973"},   // a compact date, not milliseconds
		{in: "1764470400", err: "before 1973"}, // unix seconds
		{in: "100000000000", want: 100000000000},
		{in: "2026-11-30T10:00:00Z", want: ms("2026-11-30T10:00:00Z")},
		{in: "2026-11-30T10:00:00.250+02:00", want: ms("2026-11-30T08:00:00.25Z")},
		{in: "2026-11-30T10:00:00.123", want: ms("2026-11-30T10:00:00.123Z")}, // Apache's form: UTC
		{in: "2026-11-30T10:00:00.000-0130", want: ms("2026-11-30T11:30:00Z")},
		{in: "2026-11-30T10:00:00", want: ms("2026-11-30T10:00:00Z")},
		{in: "2026-11-30T10:00", want: ms("2026-11-30T10:00:00Z")},
		{in: "2026-11-30T10:00+01:00", want: ms("2026-11-30T09:00:00Z")},
		{in: " 2026-11-30 ", want: ms("2026-11-30T00:00:00Z")},
		{in: "1970-01-01", want: 0},
		{in: "1969-12-31T23:59:59.999Z", err: "before 1970"},
		{in: "1969-12-31", err: "before 1970"},
		{in: "2026-11-31", err: "RFC 3339"},
		{in: "2026-11-30T25:00", err: "RFC 3339"},
		{in: "2026-11-30T10", err: "HH:MM"},
		{in: "30/11/2026", err: "RFC 3339"},
		{in: "-5", err: "RFC 3339"},
		{in: "99999999999999999999", err: "out of range"},
		{in: "", err: "empty"},
	}
	for _, tc := range tests {
		got, err := ParseTime(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseTime(%q) = %d, %v; want error containing %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseTime(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
}

func TestParseDuration(t *testing.T) {
	const day = 24 * time.Hour
	tests := []struct {
		in   string
		want time.Duration
		err  string
	}{
		{in: "90m", want: 90 * time.Minute},
		{in: "1h30m", want: 90 * time.Minute},
		{in: "1.5h", want: 90 * time.Minute},
		{in: "0s", want: 0},
		{in: "3d", want: 3 * day},
		{in: "1d12h", want: 36 * time.Hour},
		{in: "2d30m15s", want: 2*day + 30*time.Minute + 15*time.Second},
		{in: "+1d", want: day},
		{in: "P1D", want: day},
		{in: "p1dt2h", want: 26 * time.Hour},
		{in: "PT90M", want: 90 * time.Minute},
		{in: "PT0.5S", want: 500 * time.Millisecond},
		{in: "-3d", err: "negative"},
		{in: "-1d12h", err: "negative"},
		{in: "-90m", err: "negative"},
		{in: "-PT1H", err: "negative"},
		{in: "1d-12h", err: "Go duration"},
		{in: "1dx", err: "Go duration"},
		{in: "1.5d", err: "Go duration"},
		{in: "d", err: "Go duration"},
		{in: "3D", err: "Go duration"},
		{in: "106752d", err: "too long"},
		{in: "106751d24h", err: "too long"},
		{in: "P1W", err: "ISO-8601"},
		{in: "P1DT", err: "ISO-8601"},
		{in: "PT", err: "ISO-8601"},
		{in: "P", err: "ISO-8601"},
		{in: "PT1H2D", err: "ISO-8601"},
		{in: "P1DT1S", want: day + time.Second},
		{in: "soon", err: "Go duration"},
		{in: "", err: "empty"},
	}
	for _, tc := range tests {
		got, err := ParseDuration(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseDuration(%q) = %v, %v; want error containing %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

func FuzzParseTime(f *testing.F) {
	for _, s := range []string{"1764496800000", "2026-11-30T10:00:00Z", "2026-11-30T10:00:00.250+02:00", "2026-11-30T10:00:00.000-0130",
		"2026-11-30T10:00", "2026-11-30", "1969-12-31", "2026-11-30T10:00:00+08", "0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ms, err := ParseTime(s)
		if err != nil {
			return
		}
		if ms < 0 {
			t.Fatalf("%q: negative time %d", s, ms)
		}
		// A date-time without a zone is UTC: the same as with Z.
		if st := strings.TrimSpace(s); strings.Contains(st, "T") && !strings.ContainsAny(st[strings.Index(st, "T"):], "Zz+-") {
			if z, err := ParseTime(st + "Z"); err != nil || z != ms {
				t.Fatalf("%q = %d but with Z = %d, %v", s, ms, z, err)
			}
		}
	})
}

func TestFormatTime(t *testing.T) {
	for ms, want := range map[int64]string{
		1796068542140: "2026-11-30T19:55:42.140Z",
		1796068542000: "2026-11-30T19:55:42Z",
		1796068542007: "2026-11-30T19:55:42.007Z",
		0:             "1970-01-01T00:00:00Z",
	} {
		if got := FormatTime(time.UnixMilli(ms)); got != want {
			t.Errorf("FormatTime(%d) = %s, want %s", ms, got, want)
		}
		if got := FormatTime(time.UnixMilli(ms).Add(999 * time.Microsecond)); got != want {
			t.Errorf("FormatTime(%d ms + 999µs) = %s, want %s (milliseconds only)", ms, got, want)
		}
		if back, err := ParseTime(FormatTime(time.UnixMilli(ms))); err != nil || back != ms {
			t.Errorf("ParseTime(FormatTime(%d)) = %d, %v", ms, back, err)
		}
	}
}

// CheckAlias takes exactly the characters a topic name can have, and up
// to 200 bytes (ALIAS.checkpoints.internal must stay a topic name).
func TestCheckAliasBoundaries(t *testing.T) {
	for _, ok := range []string{"a", "z", "A", "Z", "0", "9", "-", "_", ".", "us-east_1.prod", strings.Repeat("a", 200)} {
		if err := CheckAlias(ok); err != nil {
			t.Errorf("CheckAlias(%q) = %v, want ok", ok, err)
		}
	}
	// The neighbours of each accepted range: '`' and '{' around a-z, '@'
	// and '[' around A-Z, '/' and ':' around 0-9; '+' and ',' around '-'
	// and '.' in ASCII, '^' before '_'.
	for _, bad := range []string{"", "`", "{", "@", "[", "/", ":", "+", ",", "^", "a b", "é", strings.Repeat("a", 201)} {
		if err := CheckAlias(bad); err == nil {
			t.Errorf("CheckAlias(%q) = nil, want an error", bad)
		}
	}
}

// lineOf names a plan file's line, and nothing for rows built in memory.
func TestLineOf(t *testing.T) {
	for _, c := range []struct {
		line int
		want string
	}{{0, ""}, {1, "line 1 "}, {12, "line 12 "}} {
		if got := lineOf(PlanRow{Line: c.line}); got != c.want {
			t.Errorf("lineOf(line %d) = %q, want %q", c.line, got, c.want)
		}
	}
}
