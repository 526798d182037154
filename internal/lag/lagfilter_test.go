package lag

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// triageReport: group a (Stable) on t1 p0 lag 5 (time lag 2 s), p1 lag
// 500 (90 s), p2 never committed; on t2 p0 lag 0. Group b (Empty) on t1
// p0 lag 20000 (10 min). Group c could not be described.
func triageReport() LagReport {
	ms := func(d time.Duration) *int64 { return new(d.Milliseconds()) }
	return LagReport{Isolation: "uncommitted", Groups: []GroupLag{
		{Group: "a", Type: "classic", State: "Stable", Members: 2, TotalLag: 505, Partitions: []PartitionLag{
			{Topic: "t1", Partition: 0, Committed: i64(95), LogEnd: 100, Lag: i64(5), TimeLagMs: ms(2 * time.Second)},
			{Topic: "t1", Partition: 1, Committed: i64(0), LogEnd: 500, Lag: i64(500), TimeLagMs: ms(90 * time.Second)},
			{Topic: "t1", Partition: 2, LogEnd: 70},
			{Topic: "t2", Partition: 0, Committed: i64(9), LogEnd: 9, Lag: i64(0), TimeLagMs: ms(0)},
		}},
		{Group: "b", Type: "consumer", State: "Empty", TotalLag: 20000, Partitions: []PartitionLag{
			{Topic: "t1", Partition: 0, Committed: i64(0), LogEnd: 20000, Lag: i64(20000), TimeLagMs: ms(10 * time.Minute)},
		}},
		{Group: "c", Error: "describing group: NOT_COORDINATOR", Partitions: []PartitionLag{}},
	}}
}

func rowsOf(r LagReport) []string {
	var out []string
	for _, g := range r.Groups {
		out = append(out, "group "+g.Group)
		for _, p := range g.Partitions {
			out = append(out, g.Group+"/"+p.Topic+"/"+string(rune('0'+p.Partition)))
		}
	}
	return out
}

func TestLagFilterApply(t *testing.T) {
	d := func(x time.Duration) *time.Duration { return &x }
	for _, tc := range []struct {
		name string
		f    LagFilter
		want []string
	}{
		{"no filter keeps everything", LagFilter{}, []string{"group a", "a/t1/0", "a/t1/1", "a/t1/2", "a/t2/0", "group b", "b/t1/0", "group c"}},
		{"min-lag 0 drops only unknown lag", LagFilter{MinLag: i64(0)}, []string{"group a", "a/t1/0", "a/t1/1", "a/t2/0", "group b", "b/t1/0", "group c"}},
		{"min-lag 500 is inclusive", LagFilter{MinLag: i64(500)}, []string{"group a", "a/t1/1", "group b", "b/t1/0", "group c"}},
		{"min-lag above all drops groups, keeps errors", LagFilter{MinLag: i64(20001)}, []string{"group c"}},
		{"min-time-lag 90s is inclusive", LagFilter{MinTimeLag: d(90 * time.Second)}, []string{"group a", "a/t1/1", "group b", "b/t1/0", "group c"}},
		{"both", LagFilter{MinLag: i64(1000), MinTimeLag: d(time.Minute)}, []string{"group b", "b/t1/0", "group c"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := triageReport()
			got := rowsOf(tc.f.Apply(rep))
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("rows\n got %v\nwant %v", got, tc.want)
			}
			if out := tc.f.Apply(rep); len(out.Groups) > 0 && out.Groups[0].Group == "a" && out.Groups[0].TotalLag != 505 {
				t.Errorf("TotalLag changed to %d: it is the group's whole lag", out.Groups[0].TotalLag)
			}
			if len(rep.Groups[0].Partitions) != 4 {
				t.Error("Apply changed its input")
			}
		})
	}
}

// Apply names the groups it leaves out (an error group is never one),
// adding to those of an earlier Apply, and String says what a row needs.
func TestLagFilterFilteredOut(t *testing.T) {
	d := time.Minute
	f := LagFilter{MinLag: i64(20001)}
	out := f.Apply(triageReport())
	if !reflect.DeepEqual(out.FilteredOut, []string{"a", "b"}) {
		t.Fatalf("FilteredOut %v, want [a b]", out.FilteredOut)
	}
	if again := (LagFilter{MinTimeLag: &d}).Apply(out); !reflect.DeepEqual(again.FilteredOut, []string{"a", "b"}) {
		t.Fatalf("a second Apply: FilteredOut %v, want [a b]", again.FilteredOut)
	}
	if out := (LagFilter{}).Apply(triageReport()); out.FilteredOut != nil {
		t.Fatalf("no filter: FilteredOut %v", out.FilteredOut)
	}
	for f, want := range map[*LagFilter]string{
		{}:                               "",
		{MinLag: i64(100)}:               "lag ≥ 100",
		{MinTimeLag: &d}:                 "time lag ≥ 1m0s",
		{MinLag: i64(5), MinTimeLag: &d}: "lag ≥ 5 and time lag ≥ 1m0s",
	} {
		if got := f.String(); got != want {
			t.Errorf("%+v: %q, want %q", *f, got, want)
		}
	}
}

func TestParseThreshold(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Threshold
		err  string
	}{
		{in: "lag>10000", want: Threshold{Expr: "lag>10000", Metric: "lag", Count: 10000}},
		{in: " total-lag >= 1e6 ", want: Threshold{Expr: "total-lag >= 1e6", Metric: "total-lag", OrEq: true, Count: 1000000}},
		{in: "LAG>2.5e3", want: Threshold{Expr: "LAG>2.5e3", Metric: "lag", Count: 2500}},
		{in: "time-lag>5m", want: Threshold{Expr: "time-lag>5m", Metric: "time-lag", Time: 5 * time.Minute}},
		{in: "time-lag>=0s", want: Threshold{Expr: "time-lag>=0s", Metric: "time-lag", OrEq: true}},
		{in: "lag>0", want: Threshold{Expr: "lag>0", Metric: "lag"}},
		{in: "lag", err: "want METRIC>VALUE"},
		{in: "lag<5", err: "the comparison must be > or >="},
		{in: "lag=5", err: "the comparison must be > or >="},
		{in: "lags>5", err: "unknown metric lags (want lag, total-lag, time-lag or status)"},
		{in: ">5", err: "unknown metric"},
		{in: "lag>", err: "is empty"},
		{in: "lag>-1", err: "negative"},
		{in: "lag>1.5", err: "not a whole"},
		{in: "lag>1e400", err: "not a number"},
		{in: "lag>NaN", err: "not a number"},
		{in: "lag>5m", err: "not a number"},
		{in: "time-lag>5", err: "takes a duration"},
		{in: "time-lag>-5s", err: "takes a duration"},
		{in: "lag>1e19", err: "not a whole"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseThreshold(tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("= %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
	long := "lag>" + strings.Repeat("9", 500)
	if _, err := ParseThreshold(long); err == nil || len(err.Error()) > 400 {
		t.Errorf("a 500-digit threshold: err %v (must be refused, and never echoed whole)", err)
	}
	if _, err := ParseThreshold("lag>\x1b[2J5"); err == nil || strings.Contains(err.Error(), "\x1b") {
		t.Errorf("control characters echoed raw: %q", err)
	}
}

func TestBreaches(t *testing.T) {
	th := func(s string) Threshold {
		t.Helper()
		x, err := ParseThreshold(s)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	for _, tc := range []struct {
		exprs []string
		want  []string
	}{
		{[]string{"lag>20000"}, nil},
		{[]string{"lag>=20000"}, []string{"group b topic t1 partition 0 lag 20000 (lag>=20000)"}},
		{[]string{"lag>5"}, []string{"group a topic t1 partition 1 lag 500 (lag>5)", "group b topic t1 partition 0 lag 20000 (lag>5)"}},
		{[]string{"total-lag>505"}, []string{"group b total-lag 20000 (total-lag>505)"}},
		{[]string{"total-lag>=505"}, []string{"group a total-lag 505 (total-lag>=505)", "group b total-lag 20000 (total-lag>=505)"}},
		{[]string{"time-lag>1m"}, []string{"group a topic t1 partition 1 time-lag 1m30s (time-lag>1m)", "group b topic t1 partition 0 time-lag 10m0s (time-lag>1m)"}},
		{[]string{"time-lag>10m", "total-lag>1e5"}, nil},
		{[]string{"lag>1000", "time-lag>=10m"}, []string{"group b topic t1 partition 0 lag 20000 (lag>1000)", "group b topic t1 partition 0 time-lag 10m0s (time-lag>=10m)"}},
	} {
		var ts []Threshold
		for _, e := range tc.exprs {
			ts = append(ts, th(e))
		}
		if got := Breaches(triageReport(), ts); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%v:\n got %q\nwant %q", tc.exprs, got, tc.want)
		}
	}
}

func TestByTopics(t *testing.T) {
	got := ByTopics(triageReport())
	if len(got.Groups) != 3 {
		t.Fatalf("%d groups", len(got.Groups))
	}
	a := got.Groups[0]
	want := []TopicLag{
		{Topic: "t1", Partitions: 3, Lag: 505, MaxLag: i64(500), MaxTimeLagMs: i64(90000)},
		{Topic: "t2", Partitions: 1, Lag: 0, MaxLag: i64(0), MaxTimeLagMs: i64(0)},
	}
	if a.Group != "a" || a.TotalLag == nil || *a.TotalLag != 505 || a.Members != 2 || !reflect.DeepEqual(a.Topics, want) {
		t.Errorf("group a: %+v\nwant topics %+v", a, want)
	}
	if c := got.Groups[2]; c.Error == "" || len(c.Topics) != 0 || c.TotalLag != nil {
		t.Errorf("group c: %+v", c)
	}
	// A topic whose rows are all never committed has no known max.
	r := LagReport{Groups: []GroupLag{{Group: "n", Partitions: []PartitionLag{{Topic: "t", Partition: 0}, {Topic: "t", Partition: 1, Error: "x"}}}}}
	if tl := ByTopics(r).Groups[0].Topics[0]; tl.Partitions != 2 || tl.MaxLag != nil || tl.Lag != 0 || tl.Errors != 1 {
		t.Errorf("never-committed topic: %+v", tl)
	}
}

func TestParseMinLagAndBy(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "10000": 10000, "1e6": 1000000, " 7 ": 7} {
		if got, err := ParseMinLag(in); err != nil || got != want {
			t.Errorf("ParseMinLag(%q) = %d, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "-1", "x", "1.5", "1e999"} {
		if _, err := ParseMinLag(in); err == nil {
			t.Errorf("ParseMinLag(%q) accepted", in)
		}
	}
	for in, want := range map[string]LagBy{"partition": ByPartition, "TOPIC": ByTopic, " group": ByGroup} {
		if got, err := ParseLagBy(in); err != nil || got != want {
			t.Errorf("ParseLagBy(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseLagBy("member"); err == nil {
		t.Error("--by member accepted")
	}
}

func FuzzParseThreshold(f *testing.F) {
	for _, s := range []string{"lag>10000", "total-lag>=1e6", "time-lag>5m", "lag>", "x", "lag>1e400"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		th, err := ParseThreshold(s)
		if err != nil {
			// safetext.Arg shows at most 256 bytes of an argument.
			if len(s) > 300 && strings.Contains(err.Error(), s) {
				t.Fatalf("error echoes a long expression whole")
			}
			if strings.ContainsAny(err.Error(), "\x00\x1b\n") {
				t.Fatalf("error carries a raw control character: %q", err)
			}
			return
		}
		if th.Count < 0 || th.Time < 0 {
			t.Fatalf("negative threshold from %q: %+v", s, th)
		}
	})
}
