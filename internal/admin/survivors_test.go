package admin

import (
	"strings"
	"testing"
	"time"
)

// Tests for the mutants make mutate-full found alive in admin, each written
// as the bug the mutant stands for.

// TestParseTargetNumberLikeErrors: a target that starts like a number but
// is not one ("0x10", "9z") is reported as a bad offset, whichever digit it
// starts with. The bug: 0 or 9 left out of the digit range, so "0x10" got
// the generic "want earliest, latest, ..." message instead.
func TestParseTargetNumberLikeErrors(t *testing.T) {
	for _, in := range []string{"0x10", "9z", "5e3", "-3x"} {
		_, err := ParseTarget(in, time.Now())
		if err == nil || !strings.Contains(err.Error(), "is not an integer") {
			t.Errorf("ParseTarget(%q) = %v, want the offset error", in, err)
		}
	}
	if _, err := ParseTarget("x10", time.Now()); err == nil || !strings.Contains(err.Error(), "want earliest") {
		t.Errorf("ParseTarget(x10) = %v, want the list of forms", err)
	}
}

// TestParseDurationDayBoundaries: days up to the largest a time.Duration
// holds (106751) are accepted, one more is too long; the rest after the
// days may start with any digit, 0 and 9 included, and may be zero. The
// bugs: refusing exactly 106751d, refusing "1d0h" or "1d9h", taking a
// zero rest for an overflow.
func TestParseDurationDayBoundaries(t *testing.T) {
	const day = 24 * time.Hour
	for in, want := range map[string]time.Duration{
		"106751d": 106751 * day,
		"1d0h":    day,
		"1d9h":    day + 9*time.Hour,
		"1d0s":    day,
		"2d0m30s": 2*day + 30*time.Second,
	} {
		got, err := ParseDuration(in)
		if err != nil || got != want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := ParseDuration("106752d"); err == nil || !strings.Contains(err.Error(), "too long") {
		t.Errorf("ParseDuration(106752d) = %v, want too long", err)
	}
}

// TestParseDurationISOBounds: ISO-8601 units in order, each once; a number
// of seconds past what a time.Duration holds is too long, never a wrapped
// (negative) duration, also at exactly 2^63 ns. The bugs: "PT1H1H" read as two hours, and the
// seconds bound scaled the wrong way (so 10^10 s wrapped around).
func TestParseDurationISOBounds(t *testing.T) {
	for _, in := range []string{"PT1H1H", "P1D1D", "PT1M1M"} {
		if d, err := ParseDuration(in); err == nil {
			t.Errorf("ParseDuration(%q) = %v, want an error (a unit twice)", in, d)
		}
	}
	// 9223372036.854775807 s reads as the float 2^63/1e9, which converts to
	// 2^63 ns: one past the largest Duration (it came back negative).
	for _, in := range []string{"PT10000000000S", "PT9223372037S", "P106752D", "PT9223372036.854775807S", "PT9223372036.8547758S"} {
		d, err := ParseDuration(in)
		if err == nil || !strings.Contains(err.Error(), "too long") {
			t.Errorf("ParseDuration(%q) = %v, %v; want too long", in, d, err)
		}
	}
	if d, err := ParseDuration("PT9223372036S"); err != nil || d != 9223372036*time.Second {
		t.Errorf("ParseDuration(PT9223372036S) = %v, %v", d, err)
	}
}

// TestParseTimeZoneOnlyClock: a clock part that is only a zone
// ("2026-11-30T+05:00") is split into the zone and an empty clock, and
// refused for its missing HH:MM. The bug: a zone at the start of the clock
// part not taken for one (the clock parsed whole, the generic message).
func TestParseTimeZoneOnlyClock(t *testing.T) {
	for _, in := range []string{"2026-11-30T+05:00", "2026-11-30T-0500"} {
		_, err := ParseTime(in)
		if err == nil || !strings.Contains(err.Error(), "want HH:MM or HH:MM:SS after T") {
			t.Errorf("ParseTime(%q) = %v, want the missing clock named", in, err)
		}
	}
}

// TestPlanCSVLineAtTheLimit: a plan line of exactly maxPlanLine bytes is
// read; one byte more is refused. The bug: refusing the limit itself.
func TestPlanCSVLineAtTheLimit(t *testing.T) {
	tail := ",t,0,5"
	group := strings.Repeat("g", maxPlanLine-len(tail))
	pf, err := ParsePlanCSV([]byte(group + tail + "\n"))
	if err != nil || len(pf.Rows) != 1 || pf.Rows[0].Group != group || pf.Rows[0].Offset != 5 {
		t.Fatalf("a line of exactly %d bytes: %v", maxPlanLine, err)
	}
	if _, err := ParsePlanCSV([]byte("g" + group + tail + "\n")); err == nil || !strings.Contains(err.Error(), "longer than") {
		t.Errorf("one byte over: %v", err)
	}
}

// TestPlanCSVSecondHeader: a header line anywhere but first is refused,
// also right after another header (no data rows yet). The bug: only a
// header after data rows refused, so a repeated header passed.
func TestPlanCSVSecondHeader(t *testing.T) {
	h := "group,topic,partition,offset\n"
	if _, err := ParsePlanCSV([]byte(h + h + "g,t,0,5\n")); err == nil || !strings.Contains(err.Error(), "line 2: header line after data") {
		t.Errorf("two headers: %v", err)
	}
	if _, err := ParsePlanCSV([]byte(h + "g,t,0,5\n" + h)); err == nil || !strings.Contains(err.Error(), "line 3: header line after data") {
		t.Errorf("header after a row: %v", err)
	}
}

// TestPlanCSVShareMarkerThenRows: a share-group marker names its group
// and the rows after it are read. The bugs: a well-formed marker refused,
// and the rest of the file dropped after the marker (a partial reset).
func TestPlanCSVShareMarkerThenRows(t *testing.T) {
	pf, err := ParsePlanCSV([]byte(ShareMarker + ",sg,0,0\nsg,t,0,5\nsg,t,1,7\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !pf.Share["sg"] || len(pf.Rows) != 2 || pf.Rows[1].Partition != 1 || pf.Rows[1].Offset != 7 {
		t.Errorf("plan %+v, want share group sg and both rows", pf)
	}
	if _, err := ParsePlanCSV([]byte(ShareMarker + ",,0,0\n")); err == nil {
		t.Error("a share marker without a group: no error")
	}
}
