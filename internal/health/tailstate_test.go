package health

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/offsetctl/offsetctl/internal/lag"
)

// The records a tail test feeds, in log order.
func commitRec(p int32, g, topic string, part int32, off, ms int64) TailRecord {
	return TailRecord{Partition: p, Key: commitKey(1, g, topic, part), Value: commitValue(3, off, ms)}
}

func txnRec(p int32, producer int64, g, topic string, part int32, off, ms int64) TailRecord {
	r := commitRec(p, g, topic, part, off, ms)
	r.Txn, r.Producer = true, producer
	return r
}

func offsetTombstone(p int32, g, topic string, part int32) TailRecord {
	return TailRecord{Partition: p, Key: commitKey(1, g, topic, part)}
}

func groupKey(v int16, g string) []byte {
	k := binary.BigEndian.AppendUint16(nil, uint16(v))
	k = binary.BigEndian.AppendUint16(k, uint16(len(g)))
	return append(k, g...)
}

func groupRec(p int32, v int16, g string, tombstone bool) TailRecord {
	r := TailRecord{Partition: p, Key: groupKey(v, g)}
	if !tombstone {
		r.Value = []byte{0, 3, 0, 0} // a value; its content is not read
	}
	return r
}

func marker(p int32, producer int64, commit bool) TailRecord {
	typ := uint16(0)
	if commit {
		typ = 1
	}
	k := binary.BigEndian.AppendUint16(binary.BigEndian.AppendUint16(nil, 0), typ)
	return TailRecord{Partition: p, Control: true, Txn: true, Producer: producer, Key: k, Value: []byte{0, 0, 0, 0, 0, 0}}
}

// committed renders a state's committed offsets: "g t/p=off ..." sorted.
func committed(s *TailState) string {
	var out []string
	s.Groups(func(g string) {
		cs, ok := s.Commits(g)
		if !ok {
			out = append(out, g+" ?")
			return
		}
		cs.Each(func(t string, p int32, c lag.Commit) {
			out = append(out, fmt.Sprintf("%s %s/%d=%d", g, t, p, c.Offset))
		})
	})
	slices.Sort(out)
	return strings.Join(out, " ")
}

func TestTailState(t *testing.T) {
	for _, tc := range []struct {
		name string
		recs []TailRecord
		want string
	}{
		{"commits, the latest wins", []TailRecord{
			commitRec(0, "a", "t", 0, 5, 1000), commitRec(0, "a", "t", 0, 9, 2000), commitRec(0, "a", "t", 1, 3, 2000),
			commitRec(1, "b", "t", 0, 7, 2000)}, "a t/0=9 a t/1=3 b t/0=7"},
		{"a commit going back is applied (a rewind)", []TailRecord{
			commitRec(0, "a", "t", 0, 50, 1000), commitRec(0, "a", "t", 0, 20, 2000)}, "a t/0=20"},
		{"offset tombstone removes the partition, then the group", []TailRecord{
			commitRec(0, "a", "t", 0, 5, 1000), commitRec(0, "a", "t", 1, 5, 1000),
			offsetTombstone(0, "a", "t", 0)}, "a t/1=5"},
		{"last offset tombstone removes the group", []TailRecord{
			commitRec(0, "a", "t", 0, 5, 1000), offsetTombstone(0, "a", "t", 0), offsetTombstone(0, "x", "t", 0)}, ""},
		{"group metadata tombstone hides the group (classic)", []TailRecord{
			commitRec(0, "a", "t", 0, 5, 1000), commitRec(0, "b", "t", 0, 6, 1000), groupRec(0, 2, "a", true)}, "b t/0=6"},
		{"group metadata tombstone hides the group (KIP-848)", []TailRecord{
			commitRec(0, "a", "t", 0, 5, 1000), groupRec(0, 3, "a", true)}, ""},
		{"a group converted keeps its offsets", []TailRecord{
			commitRec(0, "a", "t", 0, 5, 1000), groupRec(0, 2, "a", true), groupRec(0, 3, "a", false)}, "a t/0=5"},
		{"a commit after the tombstone brings the group back", []TailRecord{
			commitRec(0, "a", "t", 0, 5, 1000), groupRec(0, 2, "a", true), commitRec(0, "a", "t", 1, 1, 2000)}, "a t/0=5 a t/1=1"},
		{"group metadata of a group with no commits adds nothing", []TailRecord{
			groupRec(0, 2, "a", false), groupRec(0, 2, "b", true)}, ""},
		{"txn commit applies at its COMMIT marker", []TailRecord{
			commitRec(0, "a", "t", 0, 5, 1000), txnRec(0, 7, "a", "t", 0, 90, 1500), marker(0, 7, true)}, "a t/0=90"},
		// As the coordinator decides (OffsetMetadataManager): of a staged and
		// a plain commit, the one whose record comes later in the log wins.
		{"txn commit: a plain commit made while it was open wins over it", []TailRecord{
			txnRec(0, 7, "a", "t", 0, 90, 1500), commitRec(0, "a", "t", 0, 95, 1600), marker(0, 7, true)}, "a t/0=95"},
		{"txn commit: staged after a plain commit, it wins at its marker", []TailRecord{
			commitRec(0, "a", "t", 0, 95, 1500), txnRec(0, 7, "a", "t", 0, 90, 1600), marker(0, 7, true)}, "a t/0=90"},
		{"txn commit: a plain commit lower than it, made while it was open, wins too", []TailRecord{
			commitRec(0, "a", "t", 0, 500, 1000), txnRec(0, 7, "a", "t", 0, 700, 1500), commitRec(0, "a", "t", 0, 100, 1600),
			marker(0, 7, true)}, "a t/0=100"},
		{"two transactions: the one staged later wins, its marker first", []TailRecord{
			txnRec(0, 7, "a", "t", 0, 80, 1500), txnRec(0, 8, "a", "t", 0, 85, 1600), marker(0, 8, true), marker(0, 7, true)}, "a t/0=85"},
		{"two transactions: the one staged later wins, its marker last", []TailRecord{
			txnRec(0, 8, "a", "t", 0, 80, 1500), txnRec(0, 7, "a", "t", 0, 85, 1600), marker(0, 8, true), marker(0, 7, true)}, "a t/0=85"},
		{"txn commit: staged for other partitions too, each decided alone", []TailRecord{
			txnRec(0, 7, "a", "t", 0, 90, 1500), txnRec(0, 7, "a", "t", 1, 91, 1500), commitRec(0, "a", "t", 0, 95, 1600),
			marker(0, 7, true)}, "a t/0=95 a t/1=91"},
		{"an offset tombstone drops the commits staged for its partition", []TailRecord{
			commitRec(0, "a", "t", 0, 5, 1000), commitRec(0, "a", "t", 1, 5, 1000), txnRec(0, 7, "a", "t", 0, 90, 1500),
			offsetTombstone(0, "a", "t", 0), marker(0, 7, true)}, "a t/1=5"},
		{"a transactional offset tombstone takes effect at once", []TailRecord{
			commitRec(0, "a", "t", 0, 5, 1000), commitRec(0, "a", "t", 1, 5, 1000),
			{Partition: 0, Txn: true, Producer: 7, Key: commitKey(1, "a", "t", 0)}}, "a t/1=5"},
		{"txn abort applies nothing", []TailRecord{
			commitRec(0, "a", "t", 0, 5, 1000), txnRec(0, 7, "a", "t", 0, 0, 1500), marker(0, 7, false)}, "a t/0=5"},
		{"txn open applies nothing, later commits are seen", []TailRecord{
			commitRec(0, "a", "t", 0, 5, 1000), txnRec(0, 7, "a", "t", 0, 0, 1500), commitRec(0, "a", "t", 0, 6, 1600)}, "a t/0=6"},
		{"a marker in another partition is not this one's", []TailRecord{
			commitRec(0, "a", "t", 0, 5, 1000), txnRec(0, 7, "a", "t", 0, 90, 1500), marker(1, 7, true)}, "a t/0=5"},
		{"another producer's marker is not this one's", []TailRecord{
			commitRec(0, "a", "t", 0, 5, 1000), txnRec(0, 7, "a", "t", 0, 90, 1500), marker(0, 8, true)}, "a t/0=5"},
		{"a staged commit after an abort waits for its own marker", []TailRecord{
			txnRec(0, 7, "a", "t", 0, 90, 1500), marker(0, 7, false), txnRec(0, 7, "a", "t", 0, 91, 1600), marker(0, 7, true)}, "a t/0=91"},
		{"txn commit of a deletion applies it", []TailRecord{
			commitRec(0, "a", "t", 0, 5, 1000), commitRec(0, "a", "t", 1, 5, 1000),
			{Partition: 0, Txn: true, Producer: 7, Key: commitKey(1, "a", "t", 0)}, marker(0, 7, true)}, "a t/1=5"},
		{"out-of-order partitions: each partition's order is what counts", []TailRecord{
			commitRec(3, "b", "t", 0, 8, 3000), commitRec(0, "a", "t", 0, 5, 1000), commitRec(3, "b", "t", 0, 9, 4000),
			commitRec(0, "a", "t", 0, 6, 2000)}, "a t/0=6 b t/0=9"},
		{"undecodable and other records are skipped", []TailRecord{
			{Partition: 0, Key: []byte{0}}, {Partition: 0, Key: []byte{0, 9, 1}, Value: []byte{1}},
			{Partition: 0, Key: commitKey(1, "a", "t", 0), Value: []byte{0, 9}}, commitRec(0, "a", "t", 0, 5, 1000)}, "a t/0=5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := NewTailState(TailOptions{Window: time.Minute})
			next := map[int32]int64{} // each partition's records at offsets 0, 1, ...
			for _, r := range tc.recs {
				r.Offset = next[r.Partition]
				next[r.Partition]++
				s.Apply(r)
			}
			if got := committed(s); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestTailStateUndecodable(t *testing.T) {
	s := NewTailState(TailOptions{})
	s.Apply(TailRecord{Key: []byte{0}})
	s.Apply(TailRecord{Key: commitKey(1, "a", "t", 0), Value: []byte{0, 9}})
	s.Apply(groupRec(0, 2, "a", true))
	if s.Undecodable != 2 || s.Partitions() != 0 {
		t.Fatalf("undecodable %d, partitions %d", s.Undecodable, s.Partitions())
	}
}

// The history kept: the window's commits and the newest before it,
// capped; the times are the commits'.
func TestTailStateHistory(t *testing.T) {
	ms := func(s int64) int64 { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli() + s*1000 }
	hist := func(o TailOptions, secs ...int64) string {
		s := NewTailState(o)
		for i, sec := range secs {
			s.Apply(commitRec(0, "a", "t", 0, int64(i), ms(sec)))
		}
		var out []string
		for _, c := range s.History("a")[Key{"t", 0}] {
			out = append(out, fmt.Sprintf("%d@%d", c.Offset, (c.Time.UnixMilli()-ms(0))/1000))
		}
		return strings.Join(out, " ")
	}
	for _, tc := range []struct {
		name string
		o    TailOptions
		secs []int64
		want string
	}{
		{"all in the window", TailOptions{Window: time.Minute}, []int64{0, 10, 20}, "0@0 1@10 2@20"},
		{"older ones go, the newest older one stays", TailOptions{Window: time.Minute}, []int64{0, 10, 20, 75, 81}, "2@20 3@75 4@81"},
		{"window boundary: exactly window old stays", TailOptions{Window: time.Minute}, []int64{0, 10, 70}, "0@0 1@10 2@70"},
		{"no window: the latest only", TailOptions{}, []int64{0, 10, 20}, "2@20"},
		{"capped: thinned from the middle", TailOptions{Window: time.Hour, MaxCommits: 3}, []int64{0, 1, 2, 3, 4}, "0@0 2@2 4@4"},
		{"default cap", TailOptions{Window: time.Hour}, seq(40), "0@0 2@2 4@4 6@6 8@8 10@10 12@12 14@14 16@16 17@17 18@18 19@19 20@20 21@21 22@22 23@23 24@24 25@25 26@26 27@27 28@28 29@29 30@30 31@31 32@32 33@33 34@34 35@35 36@36 37@37 38@38 39@39"},
	} {
		if got := hist(tc.o, tc.secs...); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
	s := NewTailState(TailOptions{})
	if s.History("none") != nil {
		t.Error("history of an unknown group")
	}
	s.Apply(commitRec(0, "a", "t", 0, 1, ms(0)))
	s.Apply(groupRec(0, 2, "a", true))
	if h := s.History("a"); len(h[Key{"t", 0}]) != 1 {
		t.Errorf("history of a group whose metadata was deleted: %v, want its commit (named, it is wanted)", h)
	}
	if _, ok := s.Commits("a"); ok {
		t.Error("commits of a deleted group")
	}
	if s.Partitions() != 1 {
		t.Errorf("partitions %d, want 1 (kept while hidden)", s.Partitions())
	}
}

func seq(n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(i)
	}
	return out
}

func TestWarmUp(t *testing.T) {
	w := NewWarmUp(map[int32]int64{0: 0, 1: 5, 2: 9, 3: 0}, map[int32]int64{0: 10, 1: 5, 2: 12, 3: 0})
	if w.Done() || w.Left() != 2 {
		t.Fatalf("start: done %v left %d, want 2 left (partitions 1 and 3 are empty)", w.Done(), w.Left())
	}
	steps := []struct {
		p    int32
		off  int64
		left int
	}{{0, 3, 2}, {2, 10, 2}, {0, 9, 1}, {7, 100, 1}, {2, 11, 0}}
	for _, s := range steps {
		w.Seen(s.p, s.off)
		if w.Left() != s.left {
			t.Fatalf("after %d@%d: %d left, want %d", s.p, s.off, w.Left(), s.left)
		}
	}
	if !w.Done() {
		t.Fatal("not done")
	}
	if !NewWarmUp(nil, nil).Done() {
		t.Fatal("nothing to read is done")
	}
}

func TestDecodeGroupKey(t *testing.T) {
	for _, tc := range []struct {
		key  []byte
		want string
		ok   bool
	}{
		{groupKey(2, "g1"), "g1", true},
		{groupKey(3, "g2"), "g2", true},
		{groupKey(2, ""), "", true},
		{groupKey(4, "g"), "", false},
		{groupKey(1, "g"), "", false},
		{commitKey(1, "g", "t", 0), "", false},
		{[]byte{0, 2, 0}, "", false},
		{append(groupKey(2, "g"), 'x'), "", false},
		{[]byte{0, 2, 0xff, 0xff}, "", false},
		{(&kmsg.GroupMetadataKey{Version: 2, Group: "from-kmsg"}).AppendTo(nil), "from-kmsg", true},
	} {
		g, ok := DecodeGroupKey(tc.key)
		if g != tc.want || ok != tc.ok {
			t.Errorf("%x: %q %v, want %q %v", tc.key, g, ok, tc.want, tc.ok)
		}
	}
}

// A read bounded in time (TopicReader.Read, the watch's Tail) keeps every
// commit: MaxCommits < 0 is no cap, Window < 0 no age limit; 0 is the
// default cap, a window keeps its commits and the newest before it.
func TestTailStateKeepAll(t *testing.T) {
	for _, tc := range []struct {
		o    TailOptions
		want int
	}{
		{TailOptions{Window: -1, MaxCommits: -1}, 40},
		{TailOptions{Window: -1}, DefaultTailCommits},
		{TailOptions{Window: 10 * time.Second, MaxCommits: -1}, 12},
		{TailOptions{}, 1},
	} {
		s := NewTailState(tc.o)
		for i := range 40 {
			s.Apply(commitRec(0, "a", "t", 0, int64(i), 1_700_000_000_000+int64(i)*1000))
		}
		if got := len(s.History("a")[Key{"t", 0}]); got != tc.want {
			t.Errorf("%+v: %d commits kept, want %d", tc.o, got, tc.want)
		}
	}
}

func TestAppendCommitsMatchesCommits(t *testing.T) {
	s := NewTailState(TailOptions{Window: time.Minute})
	s.Apply(commitRec(0, "g", "t", 0, 5, 1_000))
	s.Apply(commitRec(0, "g", "t", 0, 7, 2_000))
	s.Apply(commitRec(0, "g", "t", 5, 4, 1_000))
	s.Apply(commitRec(0, "g", "t", 2, 6, 1_000))
	s.Apply(commitRec(0, "g", "u", 3, 9, 1_000))
	s.Apply(commitRec(0, "h", "t", 0, 1, 1_000))
	s.Apply(offsetTombstone(0, "h", "t", 0))
	before := []lag.CommitRow{{Topic: "x", Partition: 1, Offset: 1}}
	rows, ok := s.AppendCommits("g", before)
	if !ok {
		t.Fatal("AppendCommits(g) = false, want true")
	}
	if rows[0] != before[0] {
		t.Fatalf("the row before was overwritten: %v", rows[0])
	}
	got := map[Key]int64{}
	var tParts []int32
	for _, r := range rows[1:] {
		got[Key{r.Topic, r.Partition}] = r.Offset
		if r.Topic == "t" {
			tParts = append(tParts, r.Partition)
		}
	}
	want := map[Key]int64{{"t", 0}: 7, {"t", 2}: 6, {"t", 5}: 4, {"u", 3}: 9}
	if len(rows) != 5 || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("AppendCommits(g) = %v, want %v", rows[1:], want)
	}
	if !slices.IsSorted(tParts) {
		t.Fatalf("a dense topic's partitions out of order: %v", tParts)
	}
	for _, g := range []string{"none", "h"} {
		if rows, ok := s.AppendCommits(g, before); ok || len(rows) != 1 {
			t.Fatalf("AppendCommits(%s) = %v, %v; want the rows before, false", g, rows, ok)
		}
	}
}

// The cap thins a partition's commits from the middle: the window's start
// and first commit, the newest, and every rewind with the commit it went
// back from stay; of the rest, the one whose neighbours are closest goes.
func TestTailStateThin(t *testing.T) {
	type c struct{ off, sec int64 }
	for _, tc := range []struct {
		name    string
		window  time.Duration
		max     int
		commits []c
		want    string
	}{
		{"under the cap: all", time.Hour, 4, []c{{1, 0}, {2, 1}, {3, 2}, {4, 3}}, "1@0 2@1 3@2 4@3"},
		{"the closest neighbours go", time.Hour, 4, []c{{1, 0}, {2, 10}, {3, 11}, {4, 12}, {5, 30}}, "1@0 2@10 4@12 5@30"},
		{"a tie: the oldest goes", time.Hour, 3, []c{{1, 0}, {2, 1}, {3, 2}, {4, 3}}, "1@0 3@2 4@3"},
		{"a rewind and what it went back from stay", time.Hour, 4, []c{{0, 0}, {10, 1}, {3, 2}, {4, 3}, {5, 4}, {6, 5}}, "0@0 10@1 3@2 6@5"},
		{"a rewind as the newest but one stays", time.Hour, 3, []c{{0, 0}, {1, 1}, {9, 2}, {2, 3}}, "0@0 9@2 2@3"},
		{"a stall is thinned evenly", time.Hour, 4, []c{{7, 0}, {7, 1}, {7, 2}, {7, 3}, {7, 4}, {7, 5}, {7, 6}}, "7@0 7@2 7@4 7@6"},
		{"only rewinds: the oldest goes", time.Hour, 3, []c{{9, 0}, {5, 1}, {9, 2}, {5, 3}, {9, 4}}, "9@2 5@3 9@4"},
		{"the window's first and the one before it stay", 10 * time.Second, 3, []c{{1, 0}, {2, 5}, {3, 12}, {4, 13}, {5, 14}}, "1@0 2@5 5@14"},
		{"the window drops what the cap kept", 10 * time.Second, 3, []c{{1, 0}, {2, 5}, {3, 12}, {4, 13}, {5, 14}, {6, 30}}, "5@14 6@30"},
		{"a cap of one keeps the newest", time.Hour, 1, []c{{1, 0}, {2, 1}, {0, 2}}, "0@2"},
		{"a cap of two keeps the oldest and the newest", time.Hour, 2, []c{{1, 0}, {2, 1}, {3, 2}}, "1@0 3@2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := NewTailState(TailOptions{Window: tc.window, MaxCommits: tc.max})
			for _, x := range tc.commits {
				s.Apply(commitRec(0, "a", "t", 0, x.off, x.sec*1000))
			}
			var out []string
			for _, h := range s.History("a")[Key{"t", 0}] {
				out = append(out, fmt.Sprintf("%d@%d", h.Offset, h.Time.UnixMilli()/1000))
			}
			if got := strings.Join(out, " "); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// A consumer committing every second over a 10-minute window keeps its
// whole window under the default cap, and a rewind in it is still judged.
func TestTailStateThinKeepsTheWindow(t *testing.T) {
	const start = 1_700_000_000_000
	s := NewTailState(TailOptions{Window: 10 * time.Minute})
	off := int64(1000)
	for sec := range int64(1800) {
		if sec == 1500 {
			off -= 400 // reset back, never recovered
		}
		s.Apply(commitRec(0, "a", "t", 0, off, start+sec*1000))
		off++
	}
	h := s.History("a")[Key{"t", 0}]
	now := time.UnixMilli(start + 1799*1000)
	if len(h) != DefaultTailCommits {
		t.Fatalf("%d commits kept, want %d", len(h), DefaultTailCommits)
	}
	if first := h[0].Time; now.Sub(first) < 10*time.Minute {
		t.Fatalf("oldest kept is %s before the newest: the window is shortened", now.Sub(first))
	}
	for i := 1; i < len(h); i++ {
		if gap := h[i].Time.Sub(h[i-1].Time); gap > time.Minute {
			t.Errorf("a gap of %s between commits %d and %d: not thinned evenly", gap, i-1, i)
		}
	}
	r := Evaluate(Partition{Topic: "t", Commits: h, LogEnds: []LogEnd{{Offset: off + 100, Time: now}}}, Options{Window: 10 * time.Minute, Now: now})
	if r.Status != REWIND {
		t.Fatalf("status %s (%s), want REWIND", r.Status, r.Reason)
	}
}

// A topic's partitions are a slice while they are numbered from 0 to less
// than max(64, 4 x the count held); a map otherwise, dense again once the
// count catches up with the highest. Held partitions, their order and the
// count are the same either way.
func TestDenseFits(t *testing.T) {
	for _, c := range []struct {
		p    int32
		n    int
		want bool
	}{{0, 0, true}, {63, 0, true}, {64, 0, false}, {63, 1, true}, {64, 16, false}, {64, 17, true},
		{99, 24, false}, {99, 25, true}, {-1, 100, false}, {1<<31 - 1, 1<<29 - 1, false}, {1<<31 - 1, 1 << 29, true}} {
		if got := denseFits(c.p, c.n); got != c.want {
			t.Errorf("denseFits(%d, %d) = %v", c.p, c.n, got)
		}
	}
}

func TestTailTopicSparse(t *testing.T) {
	held := func(tt *tailTopic) string {
		var out []string
		for p, c := range tt.all() {
			out = append(out, fmt.Sprintf("%d=%d", p, c.newest.offset))
		}
		slices.Sort(out)
		return fmt.Sprintf("%s n%d dense%v", strings.Join(out, " "), tt.n, tt.sparse == nil)
	}
	put := func(tt *tailTopic, p int32, off int64) bool {
		s, _, isNew := tt.slot(p)
		s.offset = off
		return isNew
	}
	var tt tailTopic
	if !put(&tt, 63, 1) || len(tt.newest) != 64 || tt.sparse != nil {
		t.Fatalf("partition 63 of none: %s, %d slots", held(&tt), len(tt.newest))
	}
	if put(&tt, 63, 2) {
		t.Fatal("63 taken twice")
	}
	if !put(&tt, 0, 3) || held(&tt) != "0=3 63=2 n2 densetrue" {
		t.Fatalf("got %s", held(&tt))
	}
	// 64 with 2 held (3 once taken): past max(64, 12), sparse.
	if !put(&tt, 64, 4) || tt.sparse == nil || held(&tt) != "0=3 63=2 64=4 n3 densefalse" || tt.lo != 0 || tt.hi != 64 {
		t.Fatalf("64: %s lo %d hi %d", held(&tt), tt.lo, tt.hi)
	}
	if put(&tt, 64, 5) || put(&tt, 0, 6) {
		t.Fatal("a sparse partition taken twice")
	}
	for p := int32(1); p <= 12; p++ {
		put(&tt, p, int64(p))
	}
	// 16 held, highest 64: 64 < 64 is not yet; the 17th makes it dense.
	if put(&tt, 13, 13); tt.sparse == nil || tt.n != 16 {
		t.Fatalf("dense too soon: %s", held(&tt))
	}
	if !put(&tt, 14, 14) || tt.sparse != nil || len(tt.newest) != 65 || tt.n != 17 || held(&tt) != "0=6 10=10 11=11 12=12 13=13 14=14 1=1 2=2 3=3 4=4 5=5 63=2 64=5 6=6 7=7 8=8 9=9 n17 densetrue" {
		t.Fatalf("not dense again: %s, %d slots", held(&tt), len(tt.newest))
	}
	if s, _, _ := tt.slot(14); s.offset != 14 {
		t.Fatalf("the slot taken as it turned dense: %d", s.offset)
	}
	// A negative partition: sparse, and stays so however many are held.
	if !put(&tt, -1, 7) || tt.sparse == nil || tt.lo != -1 {
		t.Fatalf("-1: %s", held(&tt))
	}
	for p := int32(15); p < 40; p++ {
		put(&tt, p, 1)
	}
	if tt.sparse == nil || tt.n != 43 {
		t.Fatalf("dense with a negative partition: %s", held(&tt))
	}
	if !tt.remove(-1) || tt.remove(-1) || tt.n != 42 || tt.remove(1000) {
		t.Fatalf("sparse remove: %s", held(&tt))
	}
	// Dense: removes free the slot; out of range or free ones are not held.
	var d tailTopic
	put(&d, 0, 1)
	put(&d, 2, 3)
	if d.remove(1) || d.remove(5) || d.remove(-1) || !d.remove(2) || d.remove(2) || d.n != 1 || held(&d) != "0=1 n1 densetrue" {
		t.Fatalf("dense remove: %s", held(&d))
	}
	if !put(&d, 2, 4) || d.n != 2 {
		t.Fatalf("taken again: %s", held(&d))
	}
	var order []int32
	for p := range d.all() {
		order = append(order, p)
	}
	if !slices.Equal(order, []int32{0, 2}) {
		t.Fatalf("dense order %v", order)
	}
	for range d.all() {
		break // all stops when told
	}
	for range tt.all() {
		break
	}
	// The first partition of a topic far out: sparse at once.
	var f tailTopic
	if !put(&f, 5000, 1) || f.sparse == nil || f.lo != 5000 || f.hi != 5000 {
		t.Fatalf("5000 first: %s", held(&f))
	}
}

// A group with a topic's partitions numbered sparsely (sent to the map)
// reads the same through Commits, AppendCommits, History and Partitions.
func TestTailStateSparsePartitions(t *testing.T) {
	s := NewTailState(TailOptions{Window: time.Minute})
	parts := []int32{1 << 30, 0, -5, 70, 3}
	for i, p := range parts {
		s.Apply(commitRec(0, "g", "t", p, int64(i), 1_000))
		s.Apply(commitRec(0, "g", "t", p, int64(i)+10, 2_000))
	}
	if got, want := committed(s), "g t/-5=12 g t/0=11 g t/1073741824=10 g t/3=14 g t/70=13"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	if h := s.History("g")[Key{"t", 70}]; len(h) != 2 || h[0].Offset != 3 || h[1].Offset != 13 {
		t.Fatalf("history of 70: %v", h)
	}
	rows, _ := s.AppendCommits("g", nil)
	if n := len(rows); n != 5 || s.Partitions() != 5 {
		t.Fatalf("each %d, partitions %d", n, s.Partitions())
	}
	s.Apply(offsetTombstone(0, "g", "t", 1<<30))
	s.Apply(offsetTombstone(0, "g", "t", 1<<30))
	if s.Partitions() != 4 {
		t.Fatalf("partitions %d after a tombstone", s.Partitions())
	}
}

// The group and topic of the last commit are remembered; a group or a
// group's topic dropped since (its last offset deleted, Restart, Forget)
// must not take the next commit of the same names.
func TestTailStateCursor(t *testing.T) {
	for _, c := range []struct {
		name string
		drop func(s *TailState)
		want string
	}{
		{"the group's last offset deleted", func(s *TailState) { s.Apply(offsetTombstone(0, "g", "t", 0)) }, "g t/1=2 h u/0=5"},
		{"the topic's last offset deleted", func(s *TailState) {
			s.Apply(commitRec(0, "g", "u", 0, 4, 1_000))
			s.Apply(commitRec(0, "g", "t", 0, 4, 1_000))
			s.Apply(offsetTombstone(0, "g", "t", 0))
		}, "g t/1=2 g u/0=4 h u/0=5"},
		{"a partition of two deleted", func(s *TailState) {
			s.Apply(commitRec(0, "g", "t", 2, 4, 1_000))
			s.Apply(offsetTombstone(0, "g", "t", 0))
		}, "g t/1=2 g t/2=4 h u/0=5"},
		{"restarted", func(s *TailState) { s.Restart(map[int32]bool{OffsetsPartition("g", 3): true}, 3) }, "g t/1=2 h u/0=5"},
		{"forgotten", func(s *TailState) { s.Forget(func(g string) bool { return g != "g" }) }, "g t/1=2 h u/0=5"},
	} {
		s := NewTailState(TailOptions{})
		s.Apply(commitRec(0, "h", "u", 0, 5, 1_000))
		s.Apply(commitRec(0, "g", "t", 0, 1, 1_000))
		c.drop(s)
		s.Apply(commitRec(0, "g", "t", 1, 2, 1_000))
		if got := committed(s); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

// A topic whose last partition of a group is deleted is gone from the
// group's commits (not an empty entry), the group's other topic stays.
func TestTailStateTopicDeleted(t *testing.T) {
	s := NewTailState(TailOptions{})
	s.Apply(commitRec(0, "g", "t", 0, 1, 1_000))
	s.Apply(commitRec(0, "g", "u", 0, 2, 1_000))
	s.Apply(offsetTombstone(0, "g", "t", 0))
	cs, ok := s.Commits("g")
	if _, has := cs["t"]; !ok || has || len(cs["u"]) != 1 || len(s.groups["g"].topics) != 1 {
		t.Fatalf("commits %v %v", cs, ok)
	}
}

// A tombstone of a topic never committed removes nothing, not the
// partition of the topic numbered 0 (an unknown name's number).
func TestTailStateTombstoneUnknownTopic(t *testing.T) {
	s := NewTailState(TailOptions{})
	s.Apply(commitRec(0, "g", "a", 0, 1, 1_000))
	s.Apply(offsetTombstone(0, "g", "never", 0))
	if got, want := committed(s), "g a/0=1"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// TestTailStateLost: a group is lost when its partition of the offsets
// topic starts past offset 0 (LostBefore), not when it starts at 0.
func TestTailStateLost(t *testing.T) {
	s := NewTailState(TailOptions{})
	var on0, on1 string
	for i := 0; on0 == "" || on1 == ""; i++ {
		g := fmt.Sprintf("g%d", i)
		switch OffsetsPartition(g, 2) {
		case 0:
			on0 = g
		case 1:
			on1 = g
		}
	}
	if _, _, lost := s.Lost(on1); lost {
		t.Fatal("lost before anything is known")
	}
	s.LostBefore(map[int32]int64{0: 0, 1: 12}, 2)
	if _, _, lost := s.Lost(on0); lost {
		t.Errorf("%s lost, its partition starting at 0", on0)
	}
	if p, start, lost := s.Lost(on1); !lost || p != 1 || start != 12 {
		t.Errorf("%s: partition %d, start %d, lost %v; want 1, 12, true", on1, p, start, lost)
	}
}
