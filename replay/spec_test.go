package replay

import (
	"strings"
	"testing"
	"time"
)

var now = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

func TestParseStart(t *testing.T) {
	ts := time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)
	cases := []struct {
		in      string
		all     *Start
		per     map[int32]Start
		wantErr string
	}{
		// Issue 11: empty is an error (it read as earliest), like --until.
		{in: "", wantErr: "empty"},
		{in: "0=", wantErr: "partition 0: empty"},
		{in: "0=5,1= ", wantErr: "partition 1: empty"},
		{in: "earliest", all: &Start{Kind: StartEarliest}},
		{in: " Beginning ", all: &Start{Kind: StartEarliest}},
		{in: "0", all: &Start{Kind: StartOffset, Offset: 0}},
		{in: "120", all: &Start{Kind: StartOffset, Offset: 120}},
		{in: "time:2026-11-30T06:00:00Z", all: &Start{Kind: StartTime, Time: ts}},
		{in: "time:2026-11-30T07:00:00+01:00", all: &Start{Kind: StartTime, Time: ts}},
		{in: "time:2026-11-30T06:00:00", all: &Start{Kind: StartTime, Time: ts}},
		{in: "time:2026-11-30", all: &Start{Kind: StartTime, Time: time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)}},
		{in: "time:" + "1796018400000", all: &Start{Kind: StartTime, Time: ts}},
		{in: "ago:6h", all: &Start{Kind: StartTime, Time: ts}},
		{in: "ago:1d", all: &Start{Kind: StartTime, Time: now.Add(-24 * time.Hour)}},
		{in: "0=120,2=300", per: map[int32]Start{0: {Kind: StartOffset, Offset: 120}, 2: {Kind: StartOffset, Offset: 300}}},
		{in: "1=earliest, 3=time:2026-11-30T06:00:00Z", per: map[int32]Start{1: {Kind: StartEarliest}, 3: {Kind: StartTime, Time: ts}}},
		{in: "-1", wantErr: "want earliest, an offset"},
		{in: "abc", wantErr: "want earliest, an offset"},
		{in: "latest", wantErr: "want earliest, an offset"},
		// The grammar reset shares (admin.ParseTime, admin.ParseDuration).
		{in: "time:2026-11-30T06:00", all: &Start{Kind: StartTime, Time: ts}},
		{in: "time:2026-11-30T06:00:00.000", all: &Start{Kind: StartTime, Time: ts}},
		{in: "ago:1d12h", all: &Start{Kind: StartTime, Time: now.Add(-36 * time.Hour)}},
		{in: "ago:PT90M", all: &Start{Kind: StartTime, Time: now.Add(-90 * time.Minute)}},
		{in: "ago:P1D", all: &Start{Kind: StartTime, Time: now.Add(-24 * time.Hour)}},
		{in: "time:yesterday", wantErr: "want RFC 3339"},
		{in: "time:1969-12-31", wantErr: "before 1970"},
		{in: "ago:-5m", wantErr: "negative"},
		{in: "ago:PT0S", all: &Start{Kind: StartTime, Time: now}},
		{in: "ago:30000d", all: &Start{Kind: StartTime, Time: time.UnixMilli(0)}},
		{in: "ago:0s", all: &Start{Kind: StartTime, Time: now}},
		{in: "ago:xd", wantErr: "days"},
		{in: "0=1,0=2", wantErr: "given twice"},
		{in: "0=1,2", wantErr: "PARTITION=START"},
		{in: "x=1", wantErr: "not a non-negative integer"},
		{in: "-1=1", wantErr: "not a non-negative integer"},
		{in: "0=-4", wantErr: "partition 0"},
	}
	for _, c := range cases {
		got, err := ParseStart(c.in, now)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("ParseStart(%q) error = %v, want one containing %q", c.in, err, c.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseStart(%q): %v", c.in, err)
			continue
		}
		if c.all != nil {
			if got.PerPartition != nil || !sameStart(got.All, *c.all) {
				t.Errorf("ParseStart(%q) = %+v, want all %+v", c.in, got, *c.all)
			}
			continue
		}
		if len(got.PerPartition) != len(c.per) {
			t.Errorf("ParseStart(%q) = %+v, want %+v", c.in, got.PerPartition, c.per)
			continue
		}
		for p, want := range c.per {
			if !sameStart(got.PerPartition[p], want) {
				t.Errorf("ParseStart(%q)[%d] = %+v, want %+v", c.in, p, got.PerPartition[p], want)
			}
		}
	}
}

func sameStart(a, b Start) bool {
	return a.Kind == b.Kind && a.Offset == b.Offset && a.Time.Equal(b.Time)
}

func TestParseUntil(t *testing.T) {
	ts := time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)
	cases := []struct {
		in      string
		want    Until
		per     map[int32]Until
		wantErr string
	}{
		{in: "", want: Until{}},
		{in: "end", want: Until{}},
		{in: "400", want: Until{Set: true, Offset: 400}},
		{in: "time:2026-11-30T06:00:00Z", want: Until{Set: true, IsTime: true, Time: ts}},
		{in: "ago:30m", want: Until{Set: true, IsTime: true, Time: now.Add(-30 * time.Minute)}},
		{in: "ago:PT30M", want: Until{Set: true, IsTime: true, Time: now.Add(-30 * time.Minute)}},
		{in: "ago:1d12h", want: Until{Set: true, IsTime: true, Time: now.Add(-36 * time.Hour)}},
		{in: "time:2026-11-30T06:00", want: Until{Set: true, IsTime: true, Time: ts}},
		{in: "ago:0s", want: Until{Set: true, IsTime: true, Time: now}},
		{in: "ago:0", want: Until{Set: true, IsTime: true, Time: now}},
		{in: "ago:-1s", wantErr: "negative"},
		{in: "-3", wantErr: "want an offset"},
		{in: "earliest", wantErr: "want an offset"},
		{in: "time:", wantErr: "empty time"},
		// Per partition: the same forms as --from's.
		{in: "0=50,1=60", per: map[int32]Until{0: {Set: true, Offset: 50}, 1: {Set: true, Offset: 60}}},
		{in: " 2=time:2026-11-30T06:00:00Z, 0=ago:30m ,5=end", per: map[int32]Until{
			2: {Set: true, IsTime: true, Time: ts}, 0: {Set: true, IsTime: true, Time: now.Add(-30 * time.Minute)}, 5: {}}},
		{in: "3=1796018400000", per: map[int32]Until{3: {Set: true, Offset: 1796018400000}}},
		{in: "3=time:1796018400000", per: map[int32]Until{3: {Set: true, IsTime: true, Time: ts}}},
		{in: "0=50,0=60", wantErr: "partition 0 given twice"},
		{in: "0=50,1", wantErr: "PARTITION=END"},
		{in: "0=", wantErr: "partition 0 has no end"},
		{in: "x=5", wantErr: "not a non-negative integer"},
		{in: "1=-5", wantErr: "partition 1: want an offset"},
		{in: "1=earliest", wantErr: "partition 1: want an offset"},
		{in: "1=ago:-1h", wantErr: "partition 1: duration"},
	}
	for _, c := range cases {
		got, err := ParseUntil(c.in, now)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("ParseUntil(%q) error = %v, want one containing %q", c.in, err, c.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseUntil(%q): %v", c.in, err)
			continue
		}
		if c.per == nil {
			if got.PerPartition != nil || !sameUntil(got.All, c.want) {
				t.Errorf("ParseUntil(%q) = %+v, want all %+v", c.in, got, c.want)
			}
			continue
		}
		if len(got.PerPartition) != len(c.per) {
			t.Errorf("ParseUntil(%q) = %+v, want %+v", c.in, got.PerPartition, c.per)
			continue
		}
		for p, w := range c.per {
			if u, ok := got.PerPartition[p]; !ok || !sameUntil(u, w) {
				t.Errorf("ParseUntil(%q)[%d] = %+v, want %+v", c.in, p, u, w)
			}
		}
	}
}

func sameUntil(a, b Until) bool {
	return a.Set == b.Set && a.IsTime == b.IsTime && a.Offset == b.Offset && a.Time.Equal(b.Time)
}

func TestParsePartitions(t *testing.T) {
	got, err := ParsePartitions("2, 0,2")
	if err != nil || len(got) != 2 || got[0] != 0 || got[1] != 2 {
		t.Fatalf("ParsePartitions = %v, %v; want [0 2]", got, err)
	}
	if got, err := ParsePartitions(""); err != nil || got != nil {
		t.Fatalf("ParsePartitions(\"\") = %v, %v; want nil", got, err)
	}
	for _, bad := range []string{"a", "-1", "0,,1", "99999999999"} {
		if _, err := ParsePartitions(bad); err == nil {
			t.Errorf("ParsePartitions(%q) accepted", bad)
		}
	}
	// The words: one item is named once (it is the whole value), and
	// the bad item of a list is named with the list.
	for in, want := range map[string]string{
		"-3":    `"-3" is not a non-negative integer`,
		" x ":   `"x" is not a non-negative integer`,
		"0,x,2": `"0,x,2": partition "x" is not a non-negative integer`,
		"1,-1":  `"1,-1": partition "-1" is not a non-negative integer`,
	} {
		if _, err := ParsePartitions(in); err == nil || err.Error() != want {
			t.Errorf("ParsePartitions(%q) error %v, want %q", in, err, want)
		}
	}
	if got, err := ParsePartitions("7"); err != nil || len(got) != 1 || got[0] != 7 {
		t.Errorf("ParsePartitions(\"7\") = %v, %v; want [7]", got, err)
	}
}

func TestFormatResumeRoundTrips(t *testing.T) {
	next := map[int32]int64{2: 300, 0: 120, 7: 0}
	s := FormatResume(next)
	if s != "0=120,2=300,7=0" {
		t.Fatalf("FormatResume = %q", s)
	}
	spec, err := ParseStart(s, now)
	if err != nil {
		t.Fatal(err)
	}
	for p, o := range next {
		if st := spec.PerPartition[p]; st.Kind != StartOffset || st.Offset != o {
			t.Errorf("partition %d: %+v, want offset %d", p, st, o)
		}
	}
}

func FuzzParseStart(f *testing.F) {
	for _, s := range []string{"", "earliest", "12", "time:2026-11-30T06:00:00Z", "ago:5m", "ago:3d", "ago:1d12h", "ago:PT90M", "time:2026-11-30T06:00", "0=120,2=300", "1=time:1796018400000", "0=1,0=2", "=", ",", "time:", "ago:"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		spec, err := ParseStart(s, now)
		if err != nil {
			if spec.PerPartition != nil {
				t.Fatalf("error with a partial result: %q", s)
			}
			return
		}
		check := func(st Start) {
			switch st.Kind {
			case StartOffset:
				if st.Offset < 0 {
					t.Fatalf("%q: negative offset %d", s, st.Offset)
				}
			case StartTime:
				if st.Time.IsZero() || st.Time.UnixMilli() < 0 {
					t.Fatalf("%q: time %v (zero or before 1970)", s, st.Time)
				}
			}
		}
		check(spec.All)
		for p, st := range spec.PerPartition {
			if p < 0 {
				t.Fatalf("%q: negative partition", s)
			}
			check(st)
		}
		// A per-partition spec renders back to itself for offsets.
		if spec.PerPartition != nil {
			offs := map[int32]int64{}
			for p, st := range spec.PerPartition {
				if st.Kind != StartOffset {
					return
				}
				offs[p] = st.Offset
			}
			again, err := ParseStart(FormatResume(offs), now)
			if err != nil || len(again.PerPartition) != len(offs) {
				t.Fatalf("%q: FormatResume does not parse back: %v", s, err)
			}
		}
	})
}

func FuzzParseUntil(f *testing.F) {
	for _, s := range []string{"", "0", "400", "end", "time:2026-11-30", "ago:90s", "ago:P1D", "ago:0s", "x", "-1", "time:-1",
		"0=50,1=60", "0=time:2026-11-30T06:00:00Z,2=ago:1h,3=end", "1=time:1796018400000", "0=1,0=2", "0=", "=5", "0=50,", ",", "1=earliest"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		spec, err := ParseUntil(s, now)
		if err != nil {
			if spec.PerPartition != nil {
				t.Fatalf("error with a partial result: %q", s)
			}
			return
		}
		check := func(u Until) {
			if u.Set && !u.IsTime && u.Offset < 0 {
				t.Fatalf("%q: negative offset", s)
			}
			if u.IsTime && (!u.Set || u.Time.UnixMilli() < 0) {
				t.Fatalf("%q: time %v unset or before 1970", s, u.Time)
			}
			if !u.Set && (u.IsTime || u.Offset != 0) {
				t.Fatalf("%q: no bound with a value %+v", s, u)
			}
		}
		check(spec.All)
		if spec.PerPartition == nil {
			if in := strings.ToLower(strings.TrimSpace(s)); !spec.All.Set && in != "" && in != "end" {
				t.Fatalf("%q: parsed as no bound", s)
			}
			return
		}
		if len(spec.PerPartition) == 0 {
			t.Fatalf("%q: per-partition spec with no partition", s)
		}
		// Every partition is named once in the input.
		if n := strings.Count(s, "="); n != len(spec.PerPartition) {
			t.Fatalf("%q: %d items parsed into %d partitions", s, n, len(spec.PerPartition))
		}
		for p, u := range spec.PerPartition {
			if p < 0 {
				t.Fatalf("%q: negative partition", s)
			}
			check(u)
		}
	})
}

func FuzzParsePartitions(f *testing.F) {
	for _, s := range []string{"", "0", "0,2", "2,0,2", "a", "-1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ps, err := ParsePartitions(s)
		if err != nil {
			return
		}
		for i := range ps {
			if ps[i] < 0 || (i > 0 && ps[i] <= ps[i-1]) {
				t.Fatalf("%q: %v not sorted unique non-negative", s, ps)
			}
		}
	})
}

func TestCheckTimeOrder(t *testing.T) {
	now := time.Date(2026, 12, 5, 2, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		from, until string
		want        string // "" for no error
	}{
		{"time:2026-12-05T02:00:00Z", "time:2026-12-05T01:00:00Z", "--from time:2026-12-05T02:00:00Z is after --until time:2026-12-05T01:00:00Z: the range is reversed"},
		{"ago:1s", "ago:1h", "--from time:2026-12-05T01:59:59Z is after --until time:2026-12-05T01:00:00Z"},
		{"ago:1h", "ago:1s", ""},
		{"ago:1h", "ago:1h", ""},                 // equal: empty, not reversed
		{"time:2026-12-05T02:00:00Z", "100", ""}, // an offset end: checked once resolved
		{"500", "time:2026-12-05T01:00:00Z", ""},
		{"earliest", "time:2026-12-05T01:00:00Z", ""},
		{"0=ago:1s,1=ago:2h", "ago:1h", "partition 0: --from time:2026-12-05T01:59:59Z is after --until time:2026-12-05T01:00:00Z: the range is reversed"},
		{"ago:1s", "0=ago:1h,1=end,2=ago:2h", "partition 0: --from time:2026-12-05T01:59:59Z is after --until time:2026-12-05T01:00:00Z; partition 2: --from"},
		{"0=ago:1s", "1=ago:1h", ""}, // different partitions: MakePlan says they differ
	} {
		from, err := ParseStart(tc.from, now)
		if err != nil {
			t.Fatal(err)
		}
		until, err := ParseUntil(tc.until, now)
		if err != nil {
			t.Fatal(err)
		}
		err = CheckTimeOrder(from, until)
		if (err == nil) != (tc.want == "") || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("--from %s --until %s: %v, want %q", tc.from, tc.until, err, tc.want)
		}
	}
}

// TestReversedNeedsTwoTimes: only a start time after an end time is
// reversed; an offset, earliest or an unset end never is, whatever time
// the value carries.
func TestReversedNeedsTwoTimes(t *testing.T) {
	early, late := time.Date(2026, 12, 5, 1, 0, 0, 0, time.UTC), time.Date(2026, 12, 5, 2, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		st   Start
		u    Until
		want bool
	}{
		{Start{Kind: StartTime, Time: late}, Until{Set: true, IsTime: true, Time: early}, true},
		{Start{Kind: StartTime, Time: early}, Until{Set: true, IsTime: true, Time: late}, false},
		{Start{Kind: StartTime, Time: late}, Until{Set: true, IsTime: true, Time: late}, false},
		{Start{Kind: StartOffset, Time: late}, Until{Set: true, IsTime: true, Time: early}, false},
		{Start{Kind: StartEarliest, Time: late}, Until{Set: true, IsTime: true, Time: early}, false},
		{Start{Kind: StartTime, Time: late}, Until{Set: true, IsTime: false, Time: early}, false},
		{Start{Kind: StartTime, Time: late}, Until{Set: false, IsTime: true, Time: early}, false},
	} {
		if got := reversed(tc.st, tc.u); got != tc.want {
			t.Errorf("reversed(%+v, %+v) = %v, want %v", tc.st, tc.u, got, tc.want)
		}
	}
}
