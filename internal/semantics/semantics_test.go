package semantics

import (
	"errors"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestParseModes(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []Mode
		err  string
	}{
		{"all", DefaultModes, ""},
		{"ALL", DefaultModes, ""},
		{" all ", DefaultModes, ""},
		{"sync", []Mode{Sync}, ""},
		{" at-most-once , at-least-once ", []Mode{AtMostOnce, AtLeastOnce}, ""},
		{"auto,auto-greedy", []Mode{Auto, AutoGreedy}, ""},
		{"SYNC,Async", []Mode{Sync, Async}, ""},
		// A typed empty value is an error, never "all".
		{"", nil, `must name at least one mode (want`},
		{"  ", nil, "must name at least one mode"},
		{"sync,,async", nil, "item 2 is empty"},
		{"sync,", nil, "item 2 is empty"},
		{",sync", nil, "item 1 is empty"},
		{",", nil, "item 1 is empty"},
		{"sync,sync", nil, "sync given twice"},
		{"sync, SYNC", nil, "sync given twice"},
		{"all,sync", nil, "cannot be combined"},
		{"sync,all", nil, "cannot be combined"},
		{"exactly-once", nil, `item 1 is not a mode`},
	} {
		got, err := ParseModes(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseModes(%q) error = %v, want %q", tc.in, err, tc.err)
			}
			// The value is not echoed (the item's place says which);
			// the command layer adds --modes.
			if err != nil && len(tc.in) > 5 && strings.Contains(err.Error(), strconv.Quote(tc.in)) {
				t.Errorf("ParseModes(%q) error %q echoes the value", tc.in, err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseModes(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	// An unknown mode lists the valid ones.
	_, err := ParseModes("sync,bogus")
	for _, m := range AllModes {
		if err == nil || !strings.Contains(err.Error(), string(m)) {
			t.Errorf("unknown mode error %v does not list %s", err, m)
		}
	}
	// The default list is copied, never shared.
	got, _ := ParseModes("all")
	got[0] = "changed"
	if DefaultModes[0] != AtMostOnce {
		t.Fatal("ParseModes returned the package's default slice")
	}
}

func FuzzParseModes(f *testing.F) {
	for _, s := range []string{"", "all", "sync", "sync,,async", "at-most-once, at-least-once", "SYNC,sync", "all,sync", "x", ","} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ms, err := ParseModes(s)
		if err != nil {
			// The value is never echoed (a pasted secret, a terminal
			// escape): the error is short and plain whatever it is.
			if msg := err.Error(); len(msg) > 200 || strings.ContainsFunc(msg, func(r rune) bool { return r < 0x20 || r == 0x7f || r > 0x7e }) {
				t.Fatalf("ParseModes(%q) error %q echoes the value", s, err)
			}
			return
		}
		if len(ms) == 0 {
			t.Fatalf("ParseModes(%q) accepted no mode", s)
		}
		seen := map[Mode]bool{}
		for _, m := range ms {
			if !m.Valid() || seen[m] {
				t.Fatalf("ParseModes(%q) = %v: unknown or repeated mode", s, ms)
			}
			seen[m] = true
		}
		// Valid modes pass Validate too.
		o := Options{}.WithDefaults()
		o.Modes = ms
		if err := o.Validate(); err != nil {
			t.Fatalf("ParseModes(%q) = %v, but Validate: %v", s, ms, err)
		}
	})
}

func TestValidate(t *testing.T) {
	ok := Options{}.WithDefaults()
	if err := ok.Validate(); err != nil {
		t.Fatalf("defaults invalid: %v", err)
	}
	if ok.Events != 60 || ok.Partitions != 3 || ok.Batch != 10 || ok.CrashAfter != 25 || ok.CommitInterval != 2*time.Second || len(ok.Modes) != 5 || ok.TopicPrefix != "offsetctl-semantics" {
		t.Fatalf("defaults are not the seed's: %+v", ok)
	}
	for _, tc := range []struct {
		mod  func(*Options)
		want string
	}{
		// Validate fills no default: a zero is checked as it is.
		{func(o *Options) { o.Events = 0 }, "--events must be between 2 and 1000000, got 0"},
		{func(o *Options) { o.Events = 1; o.CrashAfter = 1 }, "--events must be between 2 and 1000000, got 1"},
		{func(o *Options) { o.Events = -1 }, "--events must be between 2 and 1000000, got -1"},
		{func(o *Options) { o.Events = 1_000_001 }, "--events must be between 2 and 1000000, got 1000001"},
		{func(o *Options) { o.Partitions = 0 }, "--partitions must be between 1 and 1000, got 0"},
		{func(o *Options) { o.Partitions = -2 }, "--partitions must be between 1 and 1000, got -2"},
		{func(o *Options) { o.Partitions = 1001 }, "--partitions must be between 1 and 1000, got 1001"},
		{func(o *Options) { o.Batch = 0 }, "--batch must be between 1 and 1000000, got 0"},
		{func(o *Options) { o.Batch = -1 }, "--batch must be between 1 and 1000000, got -1"},
		{func(o *Options) { o.Batch = 1_000_001 }, "--batch must be between 1 and 1000000, got 1000001"},
		{func(o *Options) { o.Events, o.Batch = 1_000_000, 9 }, "--batch must be at least 10 with --events 1000000 (at most 100000 batches, each a synchronous commit), got 9"},
		{func(o *Options) { o.Events, o.Batch = 100_001, 1 }, "--batch must be at least 2 with --events 100001"},
		{func(o *Options) { o.CrashAfter = 0 }, "--crash-after must be between 1 and --events - 1 (59), got 0"},
		{func(o *Options) { o.CrashAfter = 60 }, "--crash-after must be between 1 and --events - 1 (59), got 60"},
		{func(o *Options) { o.CrashAfter = -1 }, "--crash-after must be between 1 and --events - 1 (59), got -1"},
		{func(o *Options) { o.WorkDelay = -time.Second }, "--work-delay must be at least 0s, got -1s"},
		{func(o *Options) { o.CommitInterval = 0 }, "--commit-interval must be at least 100ms, got 0s"},
		{func(o *Options) { o.CommitInterval = -time.Second }, "--commit-interval must be at least 100ms, got -1s"},
		{func(o *Options) { o.CommitInterval = time.Millisecond }, "--commit-interval must be at least 100ms, got 1ms"},
		{func(o *Options) { o.CommitInterval = 99 * time.Millisecond }, "--commit-interval must be at least 100ms, got 99ms"},
		{func(o *Options) { o.SessionTimeout = 0 }, "--session-timeout must be between 1s and 30m, got 0s"},
		{func(o *Options) { o.SessionTimeout = time.Millisecond }, "--session-timeout must be between 1s and 30m, got 1ms"},
		{func(o *Options) { o.SessionTimeout = 31 * time.Minute }, "--session-timeout must be between 1s and 30m, got 31m0s"},
		// Work delays that would take hours: (events + crash-after)
		// records per mode, all modes with --sequential.
		{func(o *Options) { o.WorkDelay = 11 * time.Second }, "--work-delay must be between 0s and 10.588s with --events 60 and --crash-after 25, got 11s: up to 85 records go through it, 15m35s in all, and a run may spend at most 15m in work delays"},
		{func(o *Options) { o.WorkDelay = 3 * time.Second; o.Sequential = true }, "--work-delay must be between 0s and 2.117s with --events 60, --crash-after 25 and --sequential (5 modes), got 3s: up to 425 records"},
		{func(o *Options) { o.WorkDelay = math.MaxInt64 }, "over 290 years in all"},
		{func(o *Options) { o.Events, o.WorkDelay = 1_000_000, time.Millisecond }, "--work-delay must be between 0s and 899µs with --events 1000000"},
		{func(o *Options) { o.Modes = nil }, "--modes: no mode given"},
		{func(o *Options) { o.Modes = []Mode{"bogus"} }, `--modes: unknown mode "bogus"`},
		{func(o *Options) { o.Modes = []Mode{Sync, Sync} }, "--modes: sync given twice"},
	} {
		o := ok
		tc.mod(&o)
		err := o.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Validate(%+v) = %v, want %q", o, err, tc.want)
		}
	}
	// The limits themselves are valid, and a zero work delay is the
	// default, not an error.
	for _, mod := range []func(*Options){
		func(o *Options) { o.Events, o.CrashAfter = 2, 1 },
		func(o *Options) { o.Events = 1_000_000 },
		func(o *Options) { o.Partitions = 1 },
		func(o *Options) { o.Partitions = 1000 },
		func(o *Options) { o.Batch = 1 },
		func(o *Options) { o.CrashAfter = 59 },
		func(o *Options) { o.WorkDelay = 0 },
		func(o *Options) { o.SessionTimeout = time.Second },
		func(o *Options) { o.SessionTimeout = 30 * time.Minute },
		func(o *Options) { o.Batch = 61 },                  // one batch of all 60
		func(o *Options) { o.Events, o.CrashAfter = 2, 1 }, // with the default batch of 10
		func(o *Options) { o.Events, o.Batch = 1_000_000, 10 },
		func(o *Options) { o.CommitInterval = MinCommitInterval },
		func(o *Options) { o.WorkDelay = 10588 * time.Millisecond },
		func(o *Options) { o.WorkDelay, o.Sequential = 2117*time.Millisecond, true },
		func(o *Options) { o.WorkDelay, o.Sequential, o.Modes = 10*time.Second, true, []Mode{Sync} },
	} {
		o := ok
		mod(&o)
		if err := o.Validate(); err != nil {
			t.Errorf("Validate(%+v) = %v, want nil", o, err)
		}
	}
}

func TestCheckTopicPrefix(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string // "" = valid
	}{
		{"offsetctl-semantics", ""},
		{"qa-", ""},
		{"qa", ""},
		{"QA.team_1-x", ""},
		{".", ""}, // "." alone is no topic name, but ".-0a1b2c3d" is
		{strings.Repeat("a", 240), ""},
		{"", "--topic-prefix must not be empty"},
		{strings.Repeat("a", 241), "--topic-prefix must be at most 240 characters (Kafka topic names are at most 249 and the random suffix takes 9), got 241"},
		{"qa semantics", `--topic-prefix "qa semantics": ' ' is not allowed`},
		{"qa/x", `'/' is not allowed`},
		{"qa:x", `':' is not allowed`},
		{"qä", `'ä' is not allowed`},
		{strings.Repeat("ä", 200), `'ä' is not allowed`},
	} {
		err := CheckTopicPrefix(tc.in)
		if tc.want == "" {
			if err != nil {
				t.Errorf("CheckTopicPrefix(%q) = %v, want nil", tc.in, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("CheckTopicPrefix(%q) = %v, want %q", tc.in, err, tc.want)
		}
	}
	// Validate checks the prefix, or the exact topic when one is set
	// (the demo's "orders").
	o := Options{}.WithDefaults()
	o.TopicPrefix = "bad prefix"
	if err := o.Validate(); err == nil || !strings.Contains(err.Error(), "--topic-prefix") {
		t.Errorf("Validate with a bad prefix = %v", err)
	}
	o.TopicPrefix = ""
	if err := o.Validate(); err == nil || !strings.Contains(err.Error(), "--topic-prefix must not be empty") {
		t.Errorf("Validate with no prefix = %v", err)
	}
	o.Topic = "orders"
	if err := o.Validate(); err != nil {
		t.Errorf("Validate with topic orders = %v", err)
	}
	for _, bad := range []string{"..", "a b", strings.Repeat("x", 250)} {
		o.Topic = bad
		if err := o.Validate(); err == nil || !strings.HasPrefix(err.Error(), "scratch topic: topic name") {
			t.Errorf("Validate with topic %q = %v", bad, err)
		}
	}
	if err := CheckTopicName(strings.Repeat("x", 249)); err != nil {
		t.Errorf("249 characters: %v", err)
	}
}

func FuzzCheckTopicPrefix(f *testing.F) {
	for _, s := range []string{"offsetctl-semantics", "qa-", "", ".", "a b", "qä", strings.Repeat("a", 240), strings.Repeat("a", 241)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, prefix string) {
		if CheckTopicPrefix(prefix) != nil {
			return
		}
		// An accepted prefix makes a legal topic name that starts with
		// it, whatever the random suffix.
		for _, suffix := range []string{"00000000", "ffffffff"} {
			topic := prefix + "-" + suffix
			if err := CheckTopicName(topic); err != nil {
				t.Fatalf("prefix %q accepted, but topic %q: %v", prefix, topic, err)
			}
		}
	})
}

func TestLayout(t *testing.T) {
	ev := Layout(60, 3)
	if len(ev) != 60 {
		t.Fatalf("len = %d", len(ev))
	}
	for i, e := range ev {
		wantP, wantO := int32(i/20), int64(i%20)
		if e.N != i+1 || e.Partition != wantP || e.Offset != wantO {
			t.Fatalf("event %d = %+v, want partition %d offset %d", i+1, e, wantP, wantO)
		}
	}
	if ev[24].Key != "event-025" || ev[24].Value != `{"event":25}` {
		t.Fatalf("event 25 = %+v", ev[24])
	}
	if got := PerPartition(Layout(61, 3), 3); !reflect.DeepEqual(got, []int64{21, 20, 20}) {
		t.Fatalf("61 over 3 = %v", got)
	}
	if got := PerPartition(Layout(2, 3), 3); !reflect.DeepEqual(got, []int64{1, 1, 0}) {
		t.Fatalf("2 over 3 = %v", got)
	}
	if ev := Layout(1000, 1); ev[999].Key != "event-1000" || ev[0].Key != "event-0001" {
		t.Fatalf("keys: %s %s", ev[0].Key, ev[999].Key)
	}
	if Layout(0, 3) != nil || Layout(3, 0) != nil {
		t.Fatal("empty layout not nil")
	}
}

func entriesOf(ev []Event, ns ...int) []Entry {
	var out []Entry
	for _, n := range ns {
		out = append(out, Entry{Partition: ev[n-1].Partition, Offset: ev[n-1].Offset})
	}
	return out
}

func seq(from, to int) []int {
	var out []int
	for i := from; i <= to; i++ {
		out = append(out, i)
	}
	return out
}

func TestCompare(t *testing.T) {
	ev := Layout(60, 3)
	// at-most-once: 1-25, then 31-60.
	amo := Compare(ev, entriesOf(ev, append(seq(1, 25), seq(31, 60)...)...))
	if amo.Processed != 55 || amo.Unique != 55 || amo.Duplicates != 0 || amo.Lost != 5 || !reflect.DeepEqual(amo.LostEvents, seq(26, 30)) {
		t.Fatalf("at-most-once tally = %+v", amo)
	}
	// at-least-once: 1-25, then 21-60.
	alo := Compare(ev, entriesOf(ev, append(seq(1, 25), seq(21, 60)...)...))
	if alo.Processed != 65 || alo.Unique != 60 || alo.Duplicates != 5 || alo.Lost != 0 || alo.LostEvents != nil {
		t.Fatalf("at-least-once tally = %+v", alo)
	}
	unk := Compare(ev, []Entry{{Partition: 7, Offset: 1}, {Partition: 0, Offset: 99}})
	if unk.Unknown != 2 || unk.Lost != 60 {
		t.Fatalf("unknown tally = %+v", unk)
	}
}

func TestExplain(t *testing.T) {
	for _, tc := range []struct {
		m    Mode
		c    int64
		t    Tally
		want string
	}{
		{AtMostOnce, 30, Tally{Lost: 5}, "Commits each polled batch, then processes it: at the crash right after event 25, 30 events were already committed, so events 26-30 were never processed: 5 lost."},
		{AtLeastOnce, 20, Tally{Duplicates: 5}, "Processes each batch, then commits it: at the crash right after event 25 only 20 events were committed, so the restart processed events 21-25 again: 5 duplicates."},
		{Auto, 0, Tally{Duplicates: 25}, "Auto-commit (franz-go's default) every 2s commits what earlier polls returned: at the crash right after event 25 nothing was committed, so the restart processed events 1-25 again: 25 duplicates."},
		{Async, 24, Tally{Duplicates: 1}, "at the crash right after event 25 only 24 events were committed, so the restart processed event 25 again: 1 duplicate."},
		{Async, 25, Tally{}, "exactly 25 events were committed, so the restart neither repeated nor skipped any."},
		{AutoGreedy, 26, Tally{Lost: 1}, "26 events were already committed, so event 26 was never processed: 1 lost."},
		{Sync, -1, Tally{Duplicates: 2, Lost: 1}, "the restart processed 2 events twice and lost 1 event."},
	} {
		got := Explain(tc.m, 2*time.Second, 25, tc.c, tc.t)
		if !strings.HasSuffix(got, tc.want) {
			t.Errorf("Explain(%s, %d) =\n  %s\nwant suffix\n  %s", tc.m, tc.c, got, tc.want)
		}
	}
}

func TestParseLine(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Entry
		err  string
	}{
		{"0,5,event-006,{\"event\":6}", Entry{0, 5, "event-006", `{"event":6}`}, ""},
		{"2,19,k,{\"a\":1,\"b\":2}", Entry{2, 19, "k", `{"a":1,"b":2}`}, ""},
		{"1,3,k,v\r", Entry{1, 3, "k", "v"}, ""},
		{"1,3", Entry{1, 3, "", ""}, ""},
		{" 1 , 3 ,k,", Entry{1, 3, "k", ""}, ""},
		{"1,3,,", Entry{1, 3, "", ""}, ""},
		{"x,3,k,v", Entry{}, `partition "x"`},
		{"-1,3,k,v", Entry{}, `partition "-1"`},
		{"1,-3,k,v", Entry{}, `offset "-3"`},
		{"1,3.5,k,v", Entry{}, `offset "3.5"`},
		{"+0,3,k,v", Entry{}, `partition "+0"`},
		{"-0,3,k,v", Entry{}, `partition "-0"`},
		{"0,+3,k,v", Entry{}, `offset "+3"`},
		{"0,0x3,k,v", Entry{}, `offset "0x3"`},
		{"99999999999,3,k,v", Entry{}, `partition "99999999999" is out of range (at most 2147483647)`},
		{"2147483647,9223372036854775807,k,v", Entry{2147483647, 9223372036854775807, "k", "v"}, ""},
		{"0,99999999999999999999,k,v", Entry{}, `offset "99999999999999999999" is out of range (at most 9223372036854775807)`},
		{"0,9223372036854775808", Entry{}, `offset "9223372036854775808" is out of range`},
		{"0,1e3,k,v", Entry{}, `offset "1e3" is not a number ≥ 0`},
		{"13", Entry{}, "want partition,offset"},
		{"", Entry{}, "want partition,offset"},
	} {
		got, err := ParseLine(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseLine(%q) error = %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseLine(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
}

func TestReadLogAndCount(t *testing.T) {
	in := "\uFEFFpartition,offset,key,value\r\n0,0,a,1\r\n0,1,b,2\r\n\r\n0,0,a,1\r\n1,0,c,{\"x\":1,\"y\":2}\r\n"
	es, err := ReadLog(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	c := CountEntries("f.log", es)
	if c != (Count{File: "f.log", Total: 4, UniqueOffsets: 3, Duplicates: 1}) {
		t.Fatalf("count = %+v", c)
	}
	if es[3].Value != `{"x":1,"y":2}` {
		t.Fatalf("value with commas = %q", es[3].Value)
	}
	// Empty file, only newlines.
	if es, err := ReadLog(strings.NewReader("\n\n")); err != nil || len(es) != 0 {
		t.Fatalf("blank log = %v, %v", es, err)
	}
	// A malformed line names its number (1-based, counting blank lines).
	_, err = ReadLog(strings.NewReader("0,0,a,1\n\n0,zz,a,1\n"))
	var le *LineError
	if !errors.As(err, &le) || le.Line != 3 {
		t.Fatalf("malformed: %v", err)
	}
	// A header anywhere but the top is malformed.
	if _, err := ReadLog(strings.NewReader("0,0,a,1\npartition,offset,key,value\n")); !errors.As(err, &le) || le.Line != 2 {
		t.Fatalf("late header: %v", err)
	}
	// A line too long for the scanner is a line error, not a panic.
	if _, err := ReadLog(strings.NewReader("0,0,k," + strings.Repeat("v", maxLine+10) + "\n")); !errors.As(err, &le) || le.Line != 1 {
		t.Fatalf("long line: %v", err)
	}
}

func TestFormatEntryRoundTrip(t *testing.T) {
	line := FormatEntry(2, 17, []byte("event-058"), []byte(`{"event":58}`))
	if string(line) != "2,17,event-058,{\"event\":58}\n" {
		t.Fatalf("line = %q", line)
	}
	e, err := ParseLine(strings.TrimSuffix(string(line), "\n"))
	if err != nil || e != (Entry{2, 17, "event-058", `{"event":58}`}) {
		t.Fatalf("round trip = %+v, %v", e, err)
	}
}

func FuzzParseLine(f *testing.F) {
	for _, s := range []string{"0,5,event-006,{\"event\":6}", "1,3\r", "x,1,k,v", "", ",,,", "2,19,k,{\"a\":1,\"b\":2}", "-0,0", "1,9223372036854775807,k,v"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := ParseLine(s)
		if err != nil {
			return
		}
		if e.Partition < 0 || e.Offset < 0 {
			t.Fatalf("ParseLine(%q) accepted a negative position: %+v", s, e)
		}
		// Whatever parses re-formats to a line that parses the same,
		// when key and value hold no separator of their own.
		if strings.ContainsAny(e.Key, ",\n\r") || strings.ContainsAny(e.Value, "\n\r") {
			return
		}
		line := strings.TrimSuffix(string(FormatEntry(e.Partition, e.Offset, []byte(e.Key), []byte(e.Value))), "\n")
		e2, err := ParseLine(line)
		if err != nil || e2 != e {
			t.Fatalf("round trip of %q: %q → %+v, %v; want %+v", s, line, e2, err, e)
		}
		// And ReadLog agrees on a one-line log.
		es, err := ReadLog(strings.NewReader(line + "\n"))
		if err != nil || len(es) != 1 || es[0] != e {
			t.Fatalf("ReadLog(%q) = %+v, %v; want [%+v]", line, es, err, e)
		}
	})
}

func BenchmarkReadLog(b *testing.B) {
	var sb strings.Builder
	for i := 0; i < 10000; i++ {
		sb.Write(FormatEntry(int32(i%3), int64(i/3), []byte("event-00001"), []byte(`{"event":1}`)))
	}
	in := sb.String()
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		es, err := ReadLog(strings.NewReader(in))
		if err != nil || len(es) != 10000 {
			b.Fatal(err, len(es))
		}
		_ = CountEntries("x", es)
	}
}

// The layout line names one event by itself: "5 on 2", not "5-5 on 2"
// (QA finding: semantics --events 5 said "events 1-2 on 0, 3-4 on 1,
// 5-5 on 2").
func TestLayoutSummary(t *testing.T) {
	for _, c := range []struct {
		events, partitions int
		want               string
	}{
		{60, 3, "1-20 on 0, 21-40 on 1, 41-60 on 2"},
		{5, 3, "1-2 on 0, 3-4 on 1, 5 on 2"},
		{2, 3, "1 on 0, 2 on 1, none on 2"},
	} {
		if got := layoutSummary(Layout(c.events, c.partitions), c.partitions); got != c.want {
			t.Errorf("%d events over %d: %q, want %q", c.events, c.partitions, got, c.want)
		}
	}
}
