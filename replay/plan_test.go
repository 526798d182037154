package replay

import (
	"strings"
	"testing"
	"time"
)

func gathered() Gathered {
	return Gathered{
		Topic: "orders",
		Partitions: map[int32]PartitionState{
			0: {Partition: 0, LogStart: 100, LogEnd: 500},
			1: {Partition: 1, LogStart: 0, LogEnd: 0},
			2: {Partition: 2, LogStart: 10, LogEnd: 300},
		},
		TimeOffsets: map[int64]map[int32]int64{
			1000: {0: 150, 1: 0, 2: 300}, // partition 2: nothing at/after → end
			2000: {0: 400, 1: 0, 2: 300},
			5000: {0: 500, 1: 0, 2: 300}, // in the future of every partition
		},
	}
}

func TestMakePlan(t *testing.T) {
	at := func(ms int64) time.Time { return time.UnixMilli(ms) }
	type want struct{ from, bound int64 }
	cases := []struct {
		name    string
		req     PlanRequest
		want    map[int32]want
		wantErr string
	}{
		{name: "default earliest to end", req: PlanRequest{},
			want: map[int32]want{0: {100, 500}, 1: {0, 0}, 2: {10, 300}}},
		{name: "offset for all selected", req: PlanRequest{Partitions: []int32{0, 2}, From: StartSpec{All: Start{Kind: StartOffset, Offset: 200}}},
			want: map[int32]want{0: {200, 500}, 2: {200, 300}}},
		{name: "at the end is valid", req: PlanRequest{Partitions: []int32{0}, From: StartSpec{All: Start{Kind: StartOffset, Offset: 500}}},
			want: map[int32]want{0: {500, 500}}},
		{name: "at the log start is valid", req: PlanRequest{Partitions: []int32{0}, From: StartSpec{All: Start{Kind: StartOffset, Offset: 100}}},
			want: map[int32]want{0: {100, 500}}},
		{name: "below the log start", req: PlanRequest{Partitions: []int32{0}, From: StartSpec{All: Start{Kind: StartOffset, Offset: 99}}},
			wantErr: "topic orders partition 0: start offset 99 is outside the log: valid start offsets are 100..500"},
		{name: "past the end", req: PlanRequest{From: StartSpec{PerPartition: map[int32]Start{2: {Kind: StartOffset, Offset: 301}}}},
			wantErr: "partition 2: start offset 301 is outside the log: valid start offsets are 10..300"},
		{name: "per partition", req: PlanRequest{From: StartSpec{PerPartition: map[int32]Start{0: {Kind: StartOffset, Offset: 120}, 2: {Kind: StartEarliest}}}},
			want: map[int32]want{0: {120, 500}, 2: {10, 300}}},
		{name: "per partition must match --partitions", req: PlanRequest{Partitions: []int32{0}, From: StartSpec{PerPartition: map[int32]Start{2: {Kind: StartEarliest}}}},
			wantErr: "differ"},
		{name: "unknown partition", req: PlanRequest{Partitions: []int32{7}},
			wantErr: "topic orders has no partition 7 (it has partitions 0..2)"},
		{name: "time start", req: PlanRequest{From: StartSpec{All: Start{Kind: StartTime, Time: at(1000)}}},
			want: map[int32]want{0: {150, 500}, 1: {0, 0}, 2: {300, 300}}},
		{name: "until offset clamps to the end", req: PlanRequest{Until: UntilSpec{All: Until{Set: true, Offset: 400}}},
			want: map[int32]want{0: {100, 400}, 1: {0, 0}, 2: {10, 300}}},
		{name: "until before start", req: PlanRequest{Partitions: []int32{0}, Until: UntilSpec{All: Until{Set: true, Offset: 50}}},
			wantErr: "--until 50 is before the start offset 100"},
		{name: "until time", req: PlanRequest{Until: UntilSpec{All: Until{Set: true, IsTime: true, Time: at(2000)}}},
			want: map[int32]want{0: {100, 400}, 1: {0, 0}, 2: {10, 300}}},
		{name: "until time before from time is reversed", req: PlanRequest{Partitions: []int32{0}, From: StartSpec{All: Start{Kind: StartTime, Time: at(2000)}}, Until: UntilSpec{All: Until{Set: true, IsTime: true, Time: at(1000)}}},
			wantErr: "--from time:1970-01-01T00:00:02Z is after --until time:1970-01-01T00:00:01Z: the range is reversed"},
		{name: "until time equal to from time is empty", req: PlanRequest{Partitions: []int32{0}, From: StartSpec{All: Start{Kind: StartTime, Time: at(2000)}}, Until: UntilSpec{All: Until{Set: true, IsTime: true, Time: at(2000)}}},
			want: map[int32]want{0: {400, 400}}},
		{name: "until time before an offset start is reversed", req: PlanRequest{Partitions: []int32{0}, From: StartSpec{All: Start{Kind: StartOffset, Offset: 450}}, Until: UntilSpec{All: Until{Set: true, IsTime: true, Time: at(2000)}}},
			wantErr: "partition 0: --until time:1970-01-01T00:00:02Z is at offset 400 (the first record stamped at or after it), before the start offset 450: the range is reversed"},
		{name: "until time at an offset start is empty", req: PlanRequest{Partitions: []int32{0}, From: StartSpec{All: Start{Kind: StartOffset, Offset: 400}}, Until: UntilSpec{All: Until{Set: true, IsTime: true, Time: at(2000)}}},
			want: map[int32]want{0: {400, 400}}},
		{name: "until time with no record at or after it is the end", req: PlanRequest{From: StartSpec{PerPartition: map[int32]Start{2: {Kind: StartOffset, Offset: 300}}}, Until: UntilSpec{All: Until{Set: true, IsTime: true, Time: at(1000)}}},
			want: map[int32]want{2: {300, 300}}},
		{name: "follow has no bound", req: PlanRequest{Partitions: []int32{0}, Follow: true},
			want: map[int32]want{0: {100, NoBound}}},
		{name: "follow with until offset past the end waits for it", req: PlanRequest{Partitions: []int32{0}, Follow: true, Until: UntilSpec{All: Until{Set: true, Offset: 900}}},
			want: map[int32]want{0: {100, 900}}},
		{name: "negative max", req: PlanRequest{Max: -1}, wantErr: "--max"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			plan, err := MakePlan(gathered(), c.req)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(plan.Partitions) != len(c.want) {
				t.Fatalf("plan %+v, want %v", plan.Partitions, c.want)
			}
			prev := int32(-1)
			for _, pp := range plan.Partitions {
				w, ok := c.want[pp.Partition]
				if !ok || pp.From != w.from || pp.Bound != w.bound {
					t.Errorf("partition %d: [%d, %d), want %+v", pp.Partition, pp.From, pp.Bound, w)
				}
				if pp.Partition <= prev {
					t.Errorf("partitions out of order: %d after %d", pp.Partition, prev)
				}
				prev = pp.Partition
			}
		})
	}
}

func TestFollowWithFutureUntilTimeStopsByTimestamp(t *testing.T) {
	plan, err := MakePlan(gathered(), PlanRequest{Partitions: []int32{0}, Follow: true, Now: time.UnixMilli(3000), Until: UntilSpec{All: Until{Set: true, IsTime: true, Time: time.UnixMilli(5000)}}})
	if err != nil {
		t.Fatal(err)
	}
	if pp := plan.Partitions[0]; pp.StopAtMs != 5000 || pp.Bound != NoBound || plan.Total() != -1 {
		t.Fatalf("plan %+v total %d", pp, plan.Total())
	}
}

func TestPlanTotal(t *testing.T) {
	plan, err := MakePlan(gathered(), PlanRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if got := plan.Total(); got != 400+290 {
		t.Fatalf("total %d, want 690", got)
	}
	plan.Max = 50
	if got := plan.Total(); got != 50 {
		t.Fatalf("total with max %d, want 50", got)
	}
}

func TestTimesNeeded(t *testing.T) {
	got := TimesNeeded(StartSpec{PerPartition: map[int32]Start{0: {Kind: StartTime, Time: time.UnixMilli(7)}, 1: {Kind: StartOffset}, 2: {Kind: StartTime, Time: time.UnixMilli(3)}}},
		UntilSpec{All: Until{Set: true, IsTime: true, Time: time.UnixMilli(7)}})
	if len(got) != 2 || got[0] != 3 || got[1] != 7 {
		t.Fatalf("TimesNeeded = %v, want [3 7]", got)
	}
	// A per-partition --until's times are listed too.
	got = TimesNeeded(StartSpec{}, UntilSpec{PerPartition: map[int32]Until{0: {Set: true, IsTime: true, Time: time.UnixMilli(9)}, 1: {Set: true, Offset: 4}, 2: {}}})
	if len(got) != 1 || got[0] != 9 {
		t.Fatalf("TimesNeeded(per-partition until) = %v, want [9]", got)
	}
}

// TestMakePlanPerPartitionUntil: an exact range per partition in one run,
// and why each range ends where it does.
func TestMakePlanPerPartitionUntil(t *testing.T) {
	at := func(ms int64) Until { return Until{Set: true, IsTime: true, Time: time.UnixMilli(ms)} }
	off := func(o int64) Until { return Until{Set: true, Offset: o} }
	type want struct {
		from, bound int64
		by          string
	}
	cases := []struct {
		name    string
		req     PlanRequest
		want    map[int32]want
		wantErr string
	}{
		{name: "offsets per partition select the partitions",
			req:  PlanRequest{Until: UntilSpec{PerPartition: map[int32]Until{0: off(150), 2: off(20)}}},
			want: map[int32]want{0: {100, 150, BoundUntil}, 2: {10, 20, BoundUntil}}},
		{name: "exact audit range: per-partition from and until",
			req: PlanRequest{From: StartSpec{PerPartition: map[int32]Start{0: {Kind: StartOffset, Offset: 120}, 2: {Kind: StartOffset, Offset: 15}}},
				Until: UntilSpec{PerPartition: map[int32]Until{0: off(130), 2: off(15)}}},
			want: map[int32]want{0: {120, 130, BoundUntil}, 2: {15, 15, BoundUntil}}},
		{name: "time, offset and end mixed",
			req:  PlanRequest{Until: UntilSpec{PerPartition: map[int32]Until{0: at(2000), 1: off(0), 2: {}}}},
			want: map[int32]want{0: {100, 400, BoundUntil}, 1: {0, 0, BoundEnd}, 2: {10, 300, BoundEnd}}},
		{name: "a time no record has reached ends at the log end",
			req:  PlanRequest{Until: UntilSpec{PerPartition: map[int32]Until{2: at(1000)}}},
			want: map[int32]want{2: {10, 300, BoundEnd}}},
		{name: "an offset past the end ends at the log end",
			req:  PlanRequest{Until: UntilSpec{PerPartition: map[int32]Until{0: off(900)}}},
			want: map[int32]want{0: {100, 500, BoundEnd}}},
		{name: "the one --until for all says until",
			req:  PlanRequest{Until: UntilSpec{All: off(400)}},
			want: map[int32]want{0: {100, 400, BoundUntil}, 1: {0, 0, BoundEnd}, 2: {10, 300, BoundEnd}}},
		{name: "follow: an end per partition waits for it",
			req:  PlanRequest{Follow: true, Until: UntilSpec{PerPartition: map[int32]Until{0: off(900), 2: {}}}},
			want: map[int32]want{0: {100, 900, BoundUntil}, 2: {10, NoBound, ""}}},
		{name: "until partitions must match --from's",
			req: PlanRequest{From: StartSpec{PerPartition: map[int32]Start{0: {}}},
				Until: UntilSpec{PerPartition: map[int32]Until{0: off(150), 2: off(20)}}},
			wantErr: "the partitions of --from (0) and of --until (0,2) differ"},
		{name: "until partitions must match --partitions",
			req:     PlanRequest{Partitions: []int32{0, 1}, Until: UntilSpec{PerPartition: map[int32]Until{0: off(150)}}},
			wantErr: "the partitions of --partitions (0,1) and of --until (0) differ"},
		{name: "every end before its start is named",
			req: PlanRequest{From: StartSpec{PerPartition: map[int32]Start{0: {Kind: StartOffset, Offset: 200}, 2: {Kind: StartOffset, Offset: 50}}},
				Until: UntilSpec{PerPartition: map[int32]Until{0: off(150), 2: off(20)}}},
			wantErr: "topic orders: 2 of the 2 partitions asked for are out of range: partition 0: --until 150 is before the start offset 200: valid ends are 200..500; partition 2: --until 20 is before the start offset 50: valid ends are 50..300"},
		{name: "an unknown partition in --until",
			req:     PlanRequest{Until: UntilSpec{PerPartition: map[int32]Until{0: off(150), 9: off(3)}}},
			wantErr: "topic orders has no partition 9 (it has partitions 0..2)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			plan, err := MakePlan(gathered(), c.req)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(plan.Partitions) != len(c.want) {
				t.Fatalf("plan %+v, want %v", plan.Partitions, c.want)
			}
			for _, pp := range plan.Partitions {
				if w := c.want[pp.Partition]; pp.From != w.from || pp.Bound != w.bound || pp.BoundBy != w.by {
					t.Errorf("partition %d: [%d, %d) by %q, want %+v", pp.Partition, pp.From, pp.Bound, pp.BoundBy, w)
				}
			}
		})
	}
}

// TestMakePlanNamesEveryBadPartition: one error names every partition
// whose start is outside its log, with its valid range, and shortens a
// long list.
func TestMakePlanNamesEveryBadPartition(t *testing.T) {
	g := Gathered{Topic: "t", Partitions: map[int32]PartitionState{
		0: {Partition: 0, LogStart: 0, LogEnd: 100},
		1: {Partition: 1, LogStart: 100, LogEnd: 100},
		2: {Partition: 2, LogStart: 20, LogEnd: 100},
		3: {Partition: 3, LogStart: 0, LogEnd: 50},
	}}
	_, err := MakePlan(g, PlanRequest{From: StartSpec{All: Start{Kind: StartOffset, Offset: 10}}})
	want := "topic t: 2 of the 4 partitions asked for are out of range: " +
		"partition 1: start offset 10 is outside the log: valid start offsets are 100..100 (log start..log end); " +
		"partition 2: start offset 10 is outside the log: valid start offsets are 20..100 (log start..log end)"
	if err == nil || err.Error() != want {
		t.Fatalf("error\n%v\nwant\n%s", err, want)
	}

	wide := Gathered{Topic: "w", Partitions: map[int32]PartitionState{}}
	for p := int32(0); p < 2000; p++ {
		wide.Partitions[p] = PartitionState{Partition: p, LogStart: 50, LogEnd: 60}
	}
	_, err = MakePlan(wide, PlanRequest{From: StartSpec{All: Start{Kind: StartOffset, Offset: 10}}})
	if err == nil || !strings.HasPrefix(err.Error(), "topic w: 2000 of the 2000 partitions asked for are out of range: partition 0: ") ||
		!strings.HasSuffix(err.Error(), "partition 4: start offset 10 is outside the log: valid start offsets are 50..60 (log start..log end) and 1995 more") {
		t.Fatalf("wide error: %v", err)
	}

	_, err = MakePlan(g, PlanRequest{Partitions: []int32{0, 7, 8}})
	if err == nil || err.Error() != "topic t has no partitions 7,8 (it has partitions 0..3)" {
		t.Fatalf("missing partitions: %v", err)
	}
}
