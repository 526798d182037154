package health

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/offsetctl/offsetctl/internal/testkit"
)

// restart forgets the commits of every group in the partitions read
// again and what their transactions staged, nothing else.
func TestTailRestart(t *testing.T) {
	const n = 50
	a, b := "group-a", "group-b"
	pa, pb := OffsetsPartition(a, n), OffsetsPartition(b, n)
	if pa == pb {
		t.Fatal("pick groups in two partitions")
	}
	k := Key{"t", 0}
	tl := &Tail{n: n, next: map[int32]int64{pa: 10, pb: 20},
		f: txnFilter{h: History{a: {k: commits(1, 2)}, b: {k: commits(3)}},
			pending: map[int64][]OffsetRecord{7: {{Group: a}, {Group: b}}, 8: {{Group: a}}}}}
	tl.restart(map[int32]bool{pa: true})
	if len(tl.f.h[a]) != 0 || len(tl.f.h[b][k]) != 1 {
		t.Errorf("history %v", tl.f.h)
	}
	if _, ok := tl.next[pa]; ok || tl.next[pb] != 20 {
		t.Errorf("next %v", tl.next)
	}
	if len(tl.f.pending) != 1 || len(tl.f.pending[7]) != 1 || tl.f.pending[7][0].Group != b {
		t.Errorf("pending %v", tl.f.pending)
	}
	tl.restart(nil)
	if tl.next[pb] != 20 {
		t.Error("restart(nil) forgot")
	}
	tl.Forget(func(g string) bool { return g == b })
	if _, ok := tl.f.h[a]; ok || len(tl.f.h) != 1 {
		t.Errorf("after Forget: %v", tl.f.h)
	}
	tl.Forget(nil)
	if len(tl.f.h) != 0 {
		t.Errorf("after Forget(nil): %v", tl.f.h)
	}
}

func TestDropBefore(t *testing.T) {
	cs := commits(1, 2, 3) // at 0, 60, 120 s
	for _, tc := range []struct {
		since time.Time
		want  int
	}{{at(0), 3}, {at(1), 2}, {at(60), 2}, {at(120), 1}, {at(121), 0}} {
		if got := dropBefore(cs, tc.since); len(got) != tc.want || (tc.want > 0 && got[len(got)-1] != cs[2]) {
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
	if got := offsets(h, a); len(got) != 7 || got[6] != 7 || tl.Records()-first != 2 {
		t.Errorf("second read: %v, %d records more, want 2", got, tl.Records()-first)
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
