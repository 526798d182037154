package health

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/offsetctl/offsetctl/internal/testkit"
)

// restart forgets the commits of every group in the partitions read
// again and what their transactions staged, nothing else; Forget drops
// groups and passes their records over from then on.
func TestTailRestart(t *testing.T) {
	const n = 50
	a, b := "group-a", "group-b"
	pa, pb := OffsetsPartition(a, n), OffsetsPartition(b, n)
	if pa == pb {
		t.Fatal("pick groups in two partitions")
	}
	k := Key{"t", 0}
	ms := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC).UnixMilli()
	rec := func(g string, p int32, off int64, txn bool) TailRecord {
		return TailRecord{Partition: p, Txn: txn, Producer: 7, Key: commitKey(1, g, "t", 0), Value: commitValue(3, off, ms+off)}
	}
	tl := &Tail{}
	tl.init(n)
	tl.known[a], tl.known[b] = true, true
	tl.next[pa], tl.next[pb] = 10, 20
	for _, r := range []TailRecord{rec(a, pa, 1, false), rec(a, pa, 2, false), rec(b, pb, 3, false), rec(a, pa, 4, true), rec(b, pb, 5, true)} {
		tl.state.Apply(r)
	}
	tl.restart(map[int32]bool{pa: true})
	if tl.state.History(a) != nil || len(tl.state.History(b)[k]) != 1 {
		t.Errorf("history a %v b %v", tl.state.History(a), tl.state.History(b))
	}
	if _, ok := tl.next[pa]; ok || tl.next[pb] != 20 || !tl.known[a] {
		t.Errorf("next %v known %v", tl.next, tl.known)
	}
	commit := TailRecord{Control: true, Producer: 7, Key: []byte{0, 0, 0, 1}}
	commit.Partition = pa
	tl.state.Apply(commit)
	commit.Partition = pb
	tl.state.Apply(commit)
	if tl.state.History(a) != nil || len(tl.state.History(b)[k]) != 2 {
		t.Errorf("after the markers: a %v b %v", tl.state.History(a), tl.state.History(b))
	}
	tl.restart(nil)
	if tl.next[pb] != 20 {
		t.Error("restart(nil) forgot")
	}
	tl.Forget(func(g string) bool { return g == b })
	if tl.known[a] || !tl.known[b] || tl.state.History(b) == nil {
		t.Errorf("after Forget: %v", tl.known)
	}
	tl.state.Apply(rec(a, pa, 9, false))
	if tl.state.History(a) != nil {
		t.Error("a forgotten group's commit kept")
	}
	tl.Forget(nil)
	if len(tl.known) != 0 || tl.state.History(b) != nil || tl.Records() != 8 {
		t.Errorf("after Forget(nil): %v, %d records", tl.known, tl.Records())
	}
}

func TestInWindow(t *testing.T) {
	cs := commits(1, 2, 3) // at 0, 60, 120 s
	for _, tc := range []struct {
		since time.Time
		want  int
	}{{at(0), 3}, {at(1), 2}, {at(60), 2}, {at(120), 1}, {at(121), 0}} {
		if got := inWindow(cs, tc.since); len(got) != tc.want || (tc.want > 0 && got[len(got)-1] != cs[2]) {
			t.Errorf("since %s: %v, want the last %d", tc.since, got, tc.want)
		}
	}
}

// TestTailApache: on Apache Kafka, a Tail reads a group's commits from
// the window's start, then only the records written since (counted); a
// group new to it in a partition already read has that partition read
// again, its commits all there and the other group's not doubled; commits
// older than the window are not returned.
func TestTailApache(t *testing.T) {
	if !testkit.Real() {
		t.Skip("needs a real broker (KAFKA_BROKERS): kfake keeps no readable __consumer_offsets")
	}
	c := testkit.New(t)
	topic := c.Topic(1, nil)
	c.Produce(topic, map[int32]int{0: 100}, time.Time{})
	adm := c.Admin()
	ctx := testkit.Ctx(t)
	// A fresh broker makes the offsets topic at the first commit.
	c.Commit(testkit.Name(t, "tail-warm"), topic, map[int32]int64{0: 1})
	var n int32
	for deadline := time.Now().Add(30 * time.Second); n == 0; time.Sleep(100 * time.Millisecond) {
		td, err := adm.Client.ListTopics(ctx, OffsetsTopic)
		if err == nil && td[OffsetsTopic].Err == nil {
			n = int32(len(td[OffsetsTopic].Partitions))
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s: %v %v", OffsetsTopic, err, td)
		}
	}
	a := testkit.Name(t, "tail-a")
	b := a + "-b"
	for OffsetsPartition(b, n) != OffsetsPartition(a, n) {
		b = testkit.Name(t, "tail-b")
	}
	commit := func(g string, offs ...int64) {
		for _, o := range offs {
			os := make(kadm.Offsets)
			os.AddOffset(topic, 0, o, -1)
			if err := adm.CommitAllOffsets(ctx, g, os); err != nil {
				t.Fatal(err)
			}
		}
	}
	start := time.Now()
	commit(a, 1, 2, 3, 4, 5)
	commit(b, 10, 11)
	tl := &Tail{Reader: TopicReader{Admin: adm.Client, NewClient: c.Cfg.NewClient, Idle: time.Second}}
	k := Key{topic, 0}
	offsets := func(h History, g string) []int64 {
		var out []int64
		for _, cm := range h[g][k] {
			out = append(out, cm.Offset)
		}
		return out
	}
	read := func(groups ...string) History {
		h, err := tl.Read(context.Background(), groups, start.Add(-time.Second))
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	h := read(a)
	first := tl.Records()
	if got := offsets(h, a); len(got) != 5 || got[4] != 5 || first < 7 {
		t.Fatalf("first read: %v, %d records", got, first)
	}
	commit(a, 6, 7)
	h = read(a)
	// Only what was written since: the 2 new commits (plus any other
	// group's commits to the same offsets-topic partition meanwhile, as
	// when other tests share the broker), never the partition again
	// (first or more).
	if got, more := offsets(h, a), tl.Records()-first; len(got) != 7 || got[6] != 7 || more < 2 || more >= first {
		t.Errorf("second read: %v, %d records more, want 2 (and fewer than the first read's %d)", got, more, first)
	}
	// b is new, in the same partition: read again from the start.
	h = read(a, b)
	if ga, gb := offsets(h, a), offsets(h, b); len(ga) != 7 || len(gb) != 2 || gb[1] != 11 {
		t.Errorf("with b: a %v, b %v", ga, gb)
	}
	// A window that starts after every commit: none returned.
	h, err := tl.Read(context.Background(), []string{a, b}, time.Now().Add(time.Minute))
	if err != nil || len(h[a]) != 0 || len(h[b]) != 0 {
		t.Errorf("empty window: %v %v", h, err)
	}
}
