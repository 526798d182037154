package lag

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestSeriesWindow: the rate spans the window. The bugs: dropping the
// second-to-last sample, so two samples further apart than the window give
// no rate; keeping a sample exactly one window old; keeping one sample
// fewer than the ring holds; two samples at one instant giving an infinite
// rate instead of none.
func TestSeriesWindow(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	s := &series{}
	s.add(t0, 0, 10*time.Second)
	s.add(t0.Add(20*time.Second), 40, 10*time.Second)
	if got, ok := s.rate(); !ok || got != 2 {
		t.Errorf("two samples 20 s apart, window 10 s: rate %v, %v; want 2/s", got, ok)
	}

	// Samples at 0, 5 and 15 s with a 10 s window: at 15 s the sample at
	// 5 s is exactly one window old and becomes the first.
	s = &series{}
	s.add(t0, 0, 10*time.Second)
	s.add(t0.Add(5*time.Second), 100, 10*time.Second)
	s.add(t0.Add(15*time.Second), 20, 10*time.Second)
	if got, ok := s.rate(); !ok || got != 2 {
		t.Errorf("window exactly 10 s: rate %v, %v; want 20 over 10 s = 2/s", got, ok)
	}

	// A window longer than the ring: the ring keeps maxSamples samples.
	// Deltas grow by one each second, so the first sample kept sets the
	// rate: samples 6..69 (64 of them) give (sum of 7..69)/63 s.
	s = &series{}
	for i := 0; i < 70; i++ {
		s.add(t0.Add(time.Duration(i)*time.Second), int64(i), time.Hour)
	}
	if len(s.samples) != maxSamples {
		t.Errorf("ring holds %d samples, want %d", len(s.samples), maxSamples)
	}
	want := 0.0
	for i := 7; i < 70; i++ {
		want += float64(i)
	}
	if got, ok := s.rate(); !ok || got != want/63 {
		t.Errorf("rate over the ring %v, %v; want %v", got, ok, want/63)
	}

	s = &series{}
	s.add(t0, 0, time.Minute)
	s.add(t0, 5, time.Minute)
	if got, ok := s.rate(); ok {
		t.Errorf("two samples at one instant: rate %v, want none", got)
	}
}

// TestRatesLogEndZeroAndUnknown: a partition whose log end is 0 is a
// position like any other (its growth to 30 is produced records); one whose
// log end is unknown (-1) is skipped, and its later growth is not measured
// from -1. The bugs: skipping log end 0, and recording an unknown -1 as a
// position.
func TestRatesLogEndZeroAndUnknown(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	r := NewRates(time.Minute)
	r.Observe(lagRep("g", []*int64{i64(0)}, []int64{0}), t0)
	r.Observe(lagRep("g", []*int64{i64(0)}, []int64{30}), t0.Add(10*time.Second))
	if got, ok := r.ProduceRate("t"); !ok || got != 3 {
		t.Errorf("log end 0 then 30 over 10 s: topic produce rate %v, %v; want 3/s", got, ok)
	}
	if got, ok := r.GroupProduceRate("g"); !ok || got != 3 {
		t.Errorf("log end 0 then 30 over 10 s: group produce rate %v, %v; want 3/s", got, ok)
	}

	r = NewRates(time.Minute)
	r.Observe(lagRep("g", []*int64{i64(0)}, []int64{-1}), t0)
	r.Observe(lagRep("g", []*int64{i64(0)}, []int64{30}), t0.Add(10*time.Second))
	r.Observe(lagRep("g", []*int64{i64(0)}, []int64{30}), t0.Add(20*time.Second))
	if got, ok := r.ProduceRate("t"); !ok || got != 0 {
		t.Errorf("unknown log end, then 30, 30: topic produce rate %v, %v; want 0 (nothing measured from -1)", got, ok)
	}
	if got, ok := r.GroupProduceRate("g"); !ok || got != 0 {
		t.Errorf("unknown log end, then 30, 30: group produce rate %v, %v; want 0", got, ok)
	}
}

// TestRatesPartitionSharedByGroups: two groups on one topic, the second
// also on a partition the first does not read. Each partition's growth
// counts once for the topic, and the second group's own partition counts.
// The bug: stopping at a partition already seen this round, so every
// partition after it in that group was left out.
func TestRatesPartitionSharedByGroups(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	r := NewRates(time.Minute)
	round := func(at time.Time, end0, end1 int64) LagReport {
		a := lagRep("a", []*int64{i64(0)}, []int64{end0})
		b := lagRep("b", []*int64{i64(0), i64(0)}, []int64{end0, end1})
		return LagReport{Groups: append(a.Groups, b.Groups...)}
	}
	r.Observe(round(t0, 100, 100), t0)
	r.Observe(round(t0.Add(10*time.Second), 110, 200), t0.Add(10*time.Second))
	if got, ok := r.ProduceRate("t"); !ok || got != 11 {
		t.Errorf("topic produce rate %v, %v; want (10 + 100) / 10 s = 11/s", got, ok)
	}
	if got, ok := r.GroupProduceRate("b"); !ok || got != 11 {
		t.Errorf("group b produce rate %v, %v; want 11/s", got, ok)
	}
}

// TestParseCountFloatBounds: a count in float syntax may be 0 ("0.0",
// "0e3") and may be as large as the bound (MaxInt64/2, written
// 4.611686018427387904e18); past it, or negative, it is refused. The bugs:
// refusing zero written as a float, refusing the bound itself.
func TestParseCountFloatBounds(t *testing.T) {
	for in, want := range map[string]int64{"0.0": 0, "0e3": 0, "1e6": 1000000, "4.611686018427387904e18": 4611686018427387904} {
		got, err := ParseMinLag(in)
		if err != nil || got != want {
			t.Errorf("ParseMinLag(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"4.62e18", "-1e3", "-0.5", "1.5"} {
		if got, err := ParseMinLag(in); err == nil {
			t.Errorf("ParseMinLag(%q) = %d, want an error", in, got)
		}
	}
}

// TestBreachesAfterAFailedGroup: a group that could not be read is
// skipped, and the groups after it are still judged. The bug: stopping at
// the failed group, so --fail-if passed on a breach listed after it.
func TestBreachesAfterAFailedGroup(t *testing.T) {
	th, err := ParseThreshold("total-lag>10")
	if err != nil {
		t.Fatal(err)
	}
	r := LagReport{Groups: []GroupLag{
		{Group: "broken", Error: "COORDINATOR_NOT_AVAILABLE", TotalLag: 999},
		{Group: "late", TotalLag: 50},
	}}
	got := Breaches(r, []Threshold{th})
	if len(got) != 1 || !strings.HasPrefix(got[0], "group late total-lag 50") {
		t.Errorf("Breaches = %q, want group late only", got)
	}
}

// TestIsConsumer: a group keeps consumer offsets when its protocol type is
// consumer or not set yet; a Connect worker group does not. The bug: any
// protocol type but consumer taken for consumer offsets.
func TestIsConsumer(t *testing.T) {
	for pt, want := range map[string]bool{"": true, "consumer": true, "connect": false, "sr": false} {
		if got := (GroupInfo{ProtocolType: pt}).IsConsumer(); got != want {
			t.Errorf("IsConsumer(protocol type %q) = %v, want %v", pt, got, want)
		}
	}
}

// TestLagCoordinatorShown: the coordinator is reported for a group that
// exists, was read without error and has one (broker 0 included); not for
// a group that does not exist, failed, or has none (-1). The bugs: any one
// of the three conditions dropped, or broker 0 taken for none.
func TestLagCoordinatorShown(t *testing.T) {
	s := &Snapshot{Groups: []GroupSnapshot{
		{GroupInfo: GroupInfo{Group: "ok0", Exists: true, Coordinator: 0}},
		{GroupInfo: GroupInfo{Group: "ok2", Exists: true, Coordinator: 2}},
		{GroupInfo: GroupInfo{Group: "absent", Exists: false, Coordinator: 1}},
		{GroupInfo: GroupInfo{Group: "failed", Exists: true, Coordinator: 1, Err: errors.New("COORDINATOR_LOAD_IN_PROGRESS")}},
		{GroupInfo: GroupInfo{Group: "none", Exists: true, Coordinator: -1}},
	}}
	want := map[string]int32{"ok0": 0, "ok2": 2}
	for _, g := range ComputeLag(s, Scope{}).Groups {
		w, shown := want[g.Group]
		switch {
		case shown && (g.Coordinator == nil || *g.Coordinator != w):
			t.Errorf("group %s: coordinator %v, want %d", g.Group, g.Coordinator, w)
		case !shown && g.Coordinator != nil:
			t.Errorf("group %s: coordinator %d, want none", g.Group, *g.Coordinator)
		}
	}
}

// TestLagAskedPartitionsOfEveryNamedTopic: with every group of the cluster
// and two named partitions (a:0 and b:0), a group with commits on b only
// gets b:0's row although a:0 is not its topic. The bug: the first topic
// the group has nothing on ended the loop, so b:0 had no row.
func TestLagAskedPartitionsOfEveryNamedTopic(t *testing.T) {
	s := &Snapshot{
		Groups: []GroupSnapshot{{
			GroupInfo: GroupInfo{Group: "g", Type: "consumer", State: "Empty", Exists: true},
			Commits:   map[string]map[int32]Commit{"b": {1: {Offset: 3}}},
		}},
		Offsets: TopicOffsets{Partitions: map[string]map[int32]PartitionOffsets{
			"a": {0: {Start: 0, End: 5}},
			"b": {0: {Start: 0, End: 5}, 1: {Start: 0, End: 5}},
		}},
	}
	scope, err := ParseScope([]string{"a:0", "b:0"})
	if err != nil {
		t.Fatal(err)
	}
	got := ComputeLagWith(s, LagOptions{Scope: scope, AllGroups: true})
	var rows []string
	for _, p := range got.Groups[0].Partitions {
		rows = append(rows, fmt.Sprintf("%s:%d", p.Topic, p.Partition))
	}
	if strings.Join(rows, " ") != "b:0" {
		t.Errorf("rows %v, want [b:0] (a is not the group's topic; b:0 is asked for)", rows)
	}
}

// TestLagNotePastTheEnd: a commit past the end says by how much. The bugs:
// the distance computed as c+end or with the sign turned.
func TestLagNotePastTheEnd(t *testing.T) {
	c := int64(15)
	lag, note := partitionLag(&c, 0, 10, ReadUncommitted, "")
	if lag == nil || *lag != 0 || note != "committed offset is 5 past the log end" {
		t.Errorf("uncommitted: lag %v, note %q", lag, note)
	}
	lag, note = partitionLag(&c, 0, 12, ReadCommitted, "")
	if lag == nil || *lag != 0 || note != "committed offset is 3 past the last stable offset (a transaction is open, or the commit is past the log end)" {
		t.Errorf("committed: lag %v, note %q", lag, note)
	}
}

// TestLagAskedPartitionsNotForUnreadGroups: a partition asked for by name
// gets a "no commit" row only in a group whose description and commits
// were both read; where either failed, its commits are unknown and no row
// may claim there is none. The bug: one of the two errors enough.
func TestLagAskedPartitionsNotForUnreadGroups(t *testing.T) {
	s := &Snapshot{
		Groups: []GroupSnapshot{
			{GroupInfo: GroupInfo{Group: "commits-failed", Exists: true}, CommitErr: errors.New("NOT_COORDINATOR")},
			{GroupInfo: GroupInfo{Group: "describe-failed", Exists: true, Err: errors.New("NOT_COORDINATOR")}},
			{GroupInfo: GroupInfo{Group: "read", Exists: true}},
		},
		Offsets: TopicOffsets{Partitions: map[string]map[int32]PartitionOffsets{"b": {0: {Start: 0, End: 5}}}},
	}
	scope, err := ParseScope([]string{"b:0"})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range ComputeLag(s, scope).Groups {
		want := 0
		if g.Group == "read" {
			want = 1
		}
		if len(g.Partitions) != want {
			t.Errorf("group %s: %d rows, want %d", g.Group, len(g.Partitions), want)
		}
	}
}
