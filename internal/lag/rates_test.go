package lag

import (
	"math"
	"testing"
	"time"
)

func TestCatchUp(t *testing.T) {
	for _, tc := range []struct {
		name             string
		lag              int64
		consume, produce float64
		known            bool
		secs             float64
		behind, ok       bool
	}{
		{"no lag is caught up", 0, 0, 0, false, 0, false, true},
		{"no lag even with unknown rates", 0, 5, 9, true, 0, false, true},
		{"rates unknown", 100, 0, 0, false, 0, false, false},
		{"gaining 10/s on 600", 600, 30, 20, true, 60, false, true},
		{"consuming, nothing produced", 50, 25, 0, true, 2, false, true},
		{"equal rates never catch up", 100, 20, 20, true, 0, true, true},
		{"slower than production", 100, 10, 20, true, 0, true, true},
		{"idle group with lag", 7, 0, 0, true, 0, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			secs, behind, ok := CatchUp(tc.lag, tc.consume, tc.produce, tc.known)
			if secs != tc.secs || behind != tc.behind || ok != tc.ok {
				t.Errorf("CatchUp(%d, %v, %v, %v) = %v, %v, %v; want %v, %v, %v", tc.lag, tc.consume, tc.produce, tc.known, secs, behind, ok, tc.secs, tc.behind, tc.ok)
			}
		})
	}
}

// lagRep is a one-group, one-topic report with the given committed offsets
// and log ends per partition (nil committed: never committed).
func lagRep(group string, committed []*int64, ends []int64) LagReport {
	g := GroupLag{Group: group, Type: "classic", State: "Stable"}
	for i := range committed {
		p := PartitionLag{Topic: "t", Partition: int32(i), LogStart: 0, LogEnd: ends[i], Committed: committed[i]}
		if committed[i] != nil {
			p.Lag = new(ends[i] - *committed[i])
		}
		g.Partitions = append(g.Partitions, p)
	}
	return LagReport{Groups: []GroupLag{g}}
}

func TestRatesWindowAndETA(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	r := NewRates(30 * time.Second)
	// Every 10 s the group commits 40 records further on each of two
	// partitions (80 per 10 s = 8/s) while 30 are appended to each (60 per
	// 10 s = 6/s): it gains 2/s.
	for i := int64(0); i <= 6; i++ {
		c := 1000 + 40*i
		e := 2000 + 30*i
		r.Observe(lagRep("g", []*int64{i64(c), i64(c)}, []int64{e, e}), t0.Add(time.Duration(i)*10*time.Second))
		if i == 0 {
			if _, ok := r.ConsumeRate("g"); ok {
				t.Fatal("a rate after one sample")
			}
			continue
		}
		if got, _ := r.ConsumeRate("g"); math.Abs(got-8) > 1e-9 {
			t.Fatalf("round %d: consume rate %v, want 8", i, got)
		}
		if got, _ := r.ProduceRate("t"); math.Abs(got-6) > 1e-9 {
			t.Fatalf("round %d: produce rate %v, want 6", i, got)
		}
		lag := 2 * (e - c)
		secs, behind, ok := r.CatchUp("g", lag)
		if !ok || behind || math.Abs(secs-float64(lag)/2) > 1e-9 {
			t.Fatalf("round %d: catch-up %v %v %v, want %v s", i, secs, behind, ok, float64(lag)/2)
		}
	}
	// The window keeps at most one sample older than 30 s.
	if n := len(r.consumed["g"].samples); n > 5 {
		t.Errorf("%d samples kept for a 30 s window of 10 s gathers", n)
	}
}

func TestRatesIgnoreBackwardMoves(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	r := NewRates(time.Minute)
	r.Observe(lagRep("g", []*int64{i64(500)}, []int64{1000}), t0)
	// A reset to earliest moves the commit back 500: no negative rate.
	r.Observe(lagRep("g", []*int64{i64(0)}, []int64{1000}), t0.Add(10*time.Second))
	if got, _ := r.ConsumeRate("g"); got != 0 {
		t.Fatalf("consume rate after a reset backwards = %v, want 0", got)
	}
	r.Observe(lagRep("g", []*int64{i64(100)}, []int64{1000}), t0.Add(20*time.Second))
	if got, _ := r.ConsumeRate("g"); math.Abs(got-5) > 1e-9 {
		t.Fatalf("consume rate = %v, want 100 records over 20 s = 5", got)
	}
	// Never-committed partitions add nothing to the consume rate, and a
	// group that vanished is forgotten.
	r.Observe(lagRep("h", []*int64{nil}, []int64{1000}), t0.Add(30*time.Second))
	if _, ok := r.ConsumeRate("g"); ok {
		t.Error("a group absent from the report still has a rate")
	}
}

func TestProgress(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name           string
		c0, c1, e0, e1 int64
		want           *Progress
	}{
		// 100 committed and 50 produced in 10 s: 10/s against 5/s; lag
		// 400 shrinks 5/s: 80 s.
		{"catching up", 100, 200, 550, 600, &Progress{ConsumeRate: 10, ProduceRate: 5, CatchUpSeconds: new(80.0)}},
		{"stuck with lag", 100, 100, 500, 500, &Progress{FallingBehind: true}},
		{"slower than production", 100, 110, 500, 600, &Progress{ConsumeRate: 1, ProduceRate: 10, FallingBehind: true}},
		{"caught up", 500, 600, 500, 600, &Progress{ConsumeRate: 10, ProduceRate: 10, CatchUpSeconds: new(0.0)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := NewRates(time.Minute)
			r.Observe(lagRep("g", []*int64{i64(tc.c0)}, []int64{tc.e0}), t0)
			if p := r.Progress(lagRep("g", []*int64{i64(tc.c0)}, []int64{tc.e0}).Groups[0]); p != nil {
				t.Fatalf("progress after one round: %+v", p)
			}
			rep := lagRep("g", []*int64{i64(tc.c1)}, []int64{tc.e1})
			rep.Groups[0].TotalLag = tc.e1 - tc.c1
			r.Observe(rep, t0.Add(10*time.Second))
			got := r.Progress(rep.Groups[0])
			if got == nil || got.ConsumeRate != tc.want.ConsumeRate || got.ProduceRate != tc.want.ProduceRate || got.FallingBehind != tc.want.FallingBehind ||
				(got.CatchUpSeconds == nil) != (tc.want.CatchUpSeconds == nil) || (got.CatchUpSeconds != nil && *got.CatchUpSeconds != *tc.want.CatchUpSeconds) {
				t.Fatalf("Progress = %+v (eta %v), want %+v (eta %v)", got, deref(got), tc.want, tc.want.CatchUpSeconds)
			}
		})
	}
}

func deref(p *Progress) any {
	if p == nil || p.CatchUpSeconds == nil {
		return nil
	}
	return *p.CatchUpSeconds
}

// TestRatesPositionsByPartition: a group's consumption counts only the
// partitions it had committed on in the previous round: one it never
// committed on below the highest (a hole), one added past the last, and a
// negative partition number (no such partition) add nothing, and a later
// round counts each from its own previous offset.
func TestRatesPositionsByPartition(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	r := NewRates(time.Minute)
	// Round 1: only p1 committed (p0 a hole), p2 not in the group yet.
	r.Observe(lagRep("g", []*int64{nil, i64(10)}, []int64{500, 500}), t0)
	// Round 2, 10 s later: p0 committed at 300 (first seen: adds
	// nothing), p1 moves 10 -> 30 (20), p2 appears at 400 (adds nothing).
	r.Observe(lagRep("g", []*int64{i64(300), i64(30), i64(400)}, []int64{500, 500, 500}), t0.Add(10*time.Second))
	if c, ok := r.ConsumeRate("g"); !ok || c != 2 {
		t.Fatalf("consume rate after round 2 = %v, %v; want 2 (20 records in 10 s)", c, ok)
	}
	// Round 3: each moves 10 from its own last offset: 30 more in 10 s.
	r.Observe(lagRep("g", []*int64{i64(310), i64(40), i64(410)}, []int64{500, 500, 500}), t0.Add(20*time.Second))
	if c, ok := r.ConsumeRate("g"); !ok || c != 2.5 {
		t.Fatalf("consume rate after round 3 = %v, %v; want 2.5 (50 records in 20 s)", c, ok)
	}
	ps := positions{}
	ps.set("t", -1, 5)
	ps.set("t", 0, 0)
	if len(ps["t"]) != 1 {
		t.Fatalf("positions after a negative partition and p0: %v; want one slot", ps["t"])
	}
	if _, ok := ps.get("t", -1); ok {
		t.Fatal("a negative partition has a position")
	}
	if v, ok := ps.get("t", 0); !ok || v != 0 {
		t.Fatalf("p0 = %v, %v; want 0, true (offset 0 is a position)", v, ok)
	}
	if _, ok := ps.get("t", 1); ok {
		t.Fatal("p1, past the last set, has a position")
	}
	ps.set("t", 3, 7)
	if _, ok := ps.get("t", 2); ok {
		t.Fatal("p2, a hole below p3, has a position")
	}
	if v, ok := ps.get("t", 3); !ok || v != 7 {
		t.Fatalf("p3 = %v, %v; want 7, true", v, ok)
	}
}

// A group on two topics: each topic's commits and log ends are its own
// (the rows of a topic are looked up once per run of them); a row that
// could not be read is passed over, not the rows after it.
func TestRatesTwoTopics(t *testing.T) {
	row := func(topic string, committed, end int64, err string) PartitionLag {
		return PartitionLag{Topic: topic, Partition: 0, Committed: &committed, LogEnd: end, Error: err}
	}
	rep := func(a, b, endA, endB int64) LagReport {
		return LagReport{Groups: []GroupLag{{Group: "g", Partitions: []PartitionLag{
			row("a", 0, 0, "listing offsets: not leader"), row("a", a, endA, ""), row("b", b, endB, "")}}}}
	}
	for i := range 2 {
		rep := rep(10, 100, 50, 500)
		rep.Groups[0].Partitions[1].Partition = 1
		if i == 1 {
			rep.Groups[0].Partitions[0], rep.Groups[0].Partitions[1] = rep.Groups[0].Partitions[1], rep.Groups[0].Partitions[0]
		}
		r := NewRates(time.Minute)
		at := time.Unix(1000, 0)
		r.Observe(rep, at)
		next := LagReport{Groups: []GroupLag{{Group: "g", Partitions: []PartitionLag{
			row("a", 0, 0, "listing offsets: not leader"), row("a", 20, 80, ""), row("b", 100, 530, "")}}}}
		next.Groups[0].Partitions[1].Partition = 1
		r.Observe(next, at.Add(10*time.Second))
		if c, ok := r.ConsumeRate("g"); !ok || c != 1 {
			t.Errorf("order %d: consume rate %v %v, want 1/s (a +10 in 10 s, b still)", i, c, ok)
		}
		if p, ok := r.GroupProduceRate("g"); !ok || p != 6 {
			t.Errorf("order %d: group produce rate %v %v, want 6/s (a +30, b +30 in 10 s)", i, p, ok)
		}
		if p, ok := r.ProduceRate("a"); !ok || p != 3 {
			t.Errorf("order %d: produce rate of a %v %v, want 3/s", i, p, ok)
		}
	}
}

// sized gives a topic's first row of a round room for the last round's
// partitions, and leaves positions already written alone.
func TestSized(t *testing.T) {
	if s := sized(nil, 4); s == nil || len(s) != 0 || cap(s) != 4 {
		t.Errorf("nil: len %d cap %d", len(s), cap(s))
	}
	kept := []int64{7}
	if s := sized(kept, 4); len(s) != 1 || &s[0] != &kept[0] {
		t.Errorf("written: %v", s)
	}
	s := setAt(sized(nil, 3), 2, 9)
	if cap(s) != 3 || s[2] != 9 || s[0] != noPosition {
		t.Errorf("set in a sized slice: %v cap %d", s, cap(s))
	}
}

// TestRatesRecycledPositions: a round writes its positions over those of
// the round before the last (no new array per group and round), never
// over positions a group carried from a failed read still holds: the
// carried group's next read counts from them.
func TestRatesRecycledPositions(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	r := NewRates(time.Minute)
	two := func(c int64) LagReport { return lagRep("g", []*int64{i64(c), i64(c)}, []int64{500, 500}) }
	r.Observe(two(10), t0)
	first := &r.committed["g"]["t"][0]
	r.Observe(two(20), t0.Add(10*time.Second))
	r.Observe(two(30), t0.Add(20*time.Second))
	if &r.committed["g"]["t"][0] != first {
		t.Error("round 3 did not write its positions over round 1's")
	}
	if c, ok := r.ConsumeRate("g"); !ok || c != 2 {
		t.Fatalf("consume rate after 3 rounds = %v, %v; want 2 (40 records in 20 s)", c, ok)
	}
	// Round 4 cannot read the group: its round 3 positions are carried.
	rr := r.Round(t0.Add(30 * time.Second))
	rr.Observe(LagReport{Groups: []GroupLag{{Group: "g", Error: "coordinator not available"}}})
	rr.End(true)
	// Round 5 reads it at 60: 30 more on each partition since round 3.
	r.Observe(two(60), t0.Add(40*time.Second))
	if v, ok := r.committed["g"].get("t", 1); !ok || v != 60 {
		t.Fatalf("round 5 position %v, %v; want 60", v, ok)
	}
	if c, ok := r.ConsumeRate("g"); !ok || c != 2.5 {
		t.Fatalf("consume rate after round 5 = %v, %v; want 2.5 (100 records in 40 s)", c, ok)
	}
}

// Groups on one topic, each on some of its partitions: a topic's log ends
// are recorded once per partition and round, whichever group has it
// first; a group whose partitions all have their end already adds
// nothing, and one with a partition not seen yet (past the last seen, or
// a hole below it) adds that partition's growth.
func TestRatesEndsOfSharedTopic(t *testing.T) {
	groupOn := func(name string, end func(p int32) int64, parts ...int32) GroupLag {
		g := GroupLag{Group: name}
		for _, p := range parts {
			c := int64(0)
			g.Partitions = append(g.Partitions, PartitionLag{Topic: "t", Partition: p, Committed: &c, LogEnd: end(p)})
		}
		return g
	}
	rep := func(end func(p int32) int64) LagReport {
		return LagReport{Groups: []GroupLag{
			groupOn("g1", end, 0, 1),
			groupOn("g2", end, 0, 1, 2, 3),
			groupOn("g3", end, 1, 2),
			groupOn("g4", end, 5),
			groupOn("g5", end, 0, 1, 2, 3, 4, 5),
			groupOn("g6", end, 2, 3),
		}}
	}
	r := NewRates(time.Minute)
	at := time.Unix(1000, 0)
	r.Observe(rep(func(int32) int64 { return 100 }), at)
	r.Observe(rep(func(p int32) int64 { return 100 + 10*int64(p+1) }), at.Add(10*time.Second))
	for p := int32(0); p < 6; p++ {
		if v, ok := r.logEnd.get("t", p); !ok || v != 100+10*int64(p+1) {
			t.Errorf("log end of t/%d: %v %v, want %d", p, v, ok, 100+10*int64(p+1))
		}
	}
	if got, ok := r.ProduceRate("t"); !ok || got != 21 {
		t.Errorf("produce rate of t %v %v, want 21/s (10+20+...+60 in 10 s)", got, ok)
	}
	if got, ok := r.GroupProduceRate("g3"); !ok || got != 5 {
		t.Errorf("g3's produce rate %v %v, want 5/s (20+30 in 10 s)", got, ok)
	}
}
