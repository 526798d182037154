package health

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// A record's key and value are the fetch's bytes, gone once applied:
// what the state keeps must not alias them, staged transactional commits
// included.
func TestTailStateKeepsNoReference(t *testing.T) {
	for _, w := range []time.Duration{0, time.Minute} {
		s := NewTailState(TailOptions{Window: w})
		recs := []TailRecord{
			commitRec(0, "grp-a", "orders", 1, 10, 1_000),
			commitRec(0, "grp-a", "orders", 1, 11, 2_000),
			commitRec(0, "grp-b", "payments", 2, 20, 1_000),
			txnRec(0, 7, "grp-c", "refunds", 3, 30, 1_500),
		}
		for _, r := range recs {
			s.Apply(r)
			scribble(r.Key)
			scribble(r.Value)
		}
		s.Apply(marker(0, 7, true))
		if got, want := committed(s), "grp-a orders/1=11 grp-b payments/2=20 grp-c refunds/3=30"; got != want {
			t.Fatalf("window %s: got %q, want %q", w, got, want)
		}
		if h := s.History("grp-a")[Key{"orders", 1}]; len(h) == 0 || h[len(h)-1].Offset != 11 || h[len(h)-1].Time.UnixMilli() != 2_000 {
			t.Fatalf("window %s: history %v", w, h)
		}
	}
}

func scribble(b []byte) {
	for i := range b {
		b[i] = 'x'
	}
}

// Several topics per group, a tombstone of a topic never seen, and a
// partition deleted then committed again.
func TestTailStateTopics(t *testing.T) {
	s := NewTailState(TailOptions{Window: time.Minute})
	s.Apply(commitRec(0, "g", "a", 0, 1, 1_000))
	s.Apply(commitRec(0, "g", "b", 0, 2, 1_000))
	s.Apply(commitRec(0, "h", "b", 0, 3, 1_000))
	s.Apply(offsetTombstone(0, "g", "never", 0))
	s.Apply(offsetTombstone(0, "g", "a", 0))
	if got, want := committed(s), "g b/0=2 h b/0=3"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	s.Apply(commitRec(0, "g", "a", 0, 9, 2_000))
	if h := s.History("g")[Key{"a", 0}]; len(h) != 1 || h[0].Offset != 9 {
		t.Fatalf("a partition committed after its tombstone starts anew: %v", h)
	}
	if s.Partitions() != 3 {
		t.Fatalf("partitions %d, want 3", s.Partitions())
	}
}

// The Tailer's fetches wait for 1 MiB, but never a third of idle or more:
// idle with no record ends the warm-up.
func TestTailWait(t *testing.T) {
	for _, c := range []struct {
		idle time.Duration
		want time.Duration
	}{{0, 500 * time.Millisecond}, {-1, 500 * time.Millisecond}, {3 * time.Second, 500 * time.Millisecond},
		{time.Second, 333 * time.Millisecond}, {1500 * time.Millisecond, 500 * time.Millisecond}, {time.Millisecond, 10 * time.Millisecond}} {
		if got := tailWait(c.idle); got != c.want {
			t.Errorf("idle %s: wait %v, want %s", c.idle, got, c.want)
		}
	}
	if tailMinBytes != 1<<20 {
		t.Errorf("min bytes %d", tailMinBytes)
	}
}

// A commit exactly at the window's start is the window's first (kept by
// the cap); one exactly at it as the one before is not protected twice.
func TestTailStateThinWindowEdge(t *testing.T) {
	hist := func(secs ...int64) string {
		s := NewTailState(TailOptions{Window: 10 * time.Second, MaxCommits: 3})
		for i, sec := range secs {
			s.Apply(commitRec(0, "a", "t", 0, int64(i), sec*1000))
		}
		var out []string
		for _, c := range s.History("a")[Key{"t", 0}] {
			out = append(out, fmt.Sprint(c.Time.UnixMilli()/1000))
		}
		return strings.Join(out, " ")
	}
	for _, c := range []struct {
		secs []int64
		want string
	}{
		{[]int64{1, 4, 5, 14}, "1 4 14"},    // since = 4: 4 is the window's first, kept; 5 goes
		{[]int64{4, 5, 13, 14}, "4 13 14"},  // 4 at since is the first; 5 after it is not protected
		{[]int64{4, 5, 6, 7, 14}, "4 7 14"}, // 5 went at 7 (a tie); at 14, 6 (after 4, at since) goes
		{[]int64{3, 4, 5, 6, 14}, "3 5 14"}, // 4 went at 6; at 14, 5 is the window's first: 6 goes
	} {
		if got := hist(c.secs...); got != c.want {
			t.Errorf("%v: got %q, want %q", c.secs, got, c.want)
		}
	}
}

// Commits answers as OffsetFetch would: the offset, no leader epoch (-1).
func TestTailStateCommitsEpoch(t *testing.T) {
	s := NewTailState(TailOptions{})
	s.Apply(commitRec(0, "g", "t", 4, 9, 1_000))
	cs, ok := s.Commits("g")
	if c := cs["t"][4]; !ok || c.Offset != 9 || c.LeaderEpoch != -1 {
		t.Fatalf("commits %v %v, want t/4 at 9 with epoch -1", cs, ok)
	}
}

// DecodeOffsetRecord's Time is the commit's, and zero for a tombstone or
// a record that does not decode.
func TestDecodeOffsetRecordTime(t *testing.T) {
	if rec, ok, _ := DecodeOffsetRecord(commitKey(1, "g", "t", 0), nil); !ok || !rec.Deleted || !rec.Time.IsZero() {
		t.Errorf("tombstone: %+v %v", rec, ok)
	}
	if rec, ok, err := DecodeOffsetRecord(commitKey(1, "g", "t", 0), []byte{0, 3, 1}); ok || err == nil || !rec.Time.IsZero() || rec.Group != "g" {
		t.Errorf("short value: %+v %v %v", rec, ok, err)
	}
}
