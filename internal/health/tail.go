package health

import (
	"context"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Tail reads __consumer_offsets for a watch (lag --watch --status): a
// group's first read takes its partition of the topic from the window's
// start, every later one only what was written since the one before. The
// commits are kept, those older than the window dropped, and so are the
// commits a transaction staged and has not ended yet, which its marker
// decides in a later read. A Tail is the caller's loop's: not safe for
// concurrent use.
type Tail struct {
	Reader TopicReader
	f      txnFilter
	next   map[int32]int64 // the offset each partition read goes on from
	n      int32           // the topic's partition count, read once
}

// Read returns the commits of groups from since to the end of their
// partitions, as TopicReader.Read does, reading only what the Tail has
// not read yet. A group new to the Tail whose partition was already read
// has that partition read again from since (its records were passed
// over), for every group in it.
func (t *Tail) Read(ctx context.Context, groups []string, since time.Time) (History, error) {
	if t.n == 0 {
		n, err := t.Reader.count(ctx)
		if err != nil {
			return nil, err
		}
		t.n, t.next = n, map[int32]int64{}
		t.f = txnFilter{h: History{}, pending: map[int64][]OffsetRecord{}}
	}
	parts := map[int32]bool{}
	again := map[int32]bool{}
	for _, g := range groups {
		p := OffsetsPartition(g, t.n)
		parts[p] = true
		if _, known := t.f.h[g]; !known {
			t.f.h[g] = map[Key][]Commit{}
			if _, read := t.next[p]; read {
				again[p] = true
			}
		}
	}
	t.restart(again)
	starts, ends, err := t.Reader.bounds(ctx, since)
	if err != nil {
		return nil, err
	}
	want := map[int32]kgo.Offset{}
	left := map[int32]int64{}
	for p := range parts {
		s, _ := starts.Lookup(OffsetsTopic, p)
		e, _ := ends.Lookup(OffsetsTopic, p)
		from, read := t.next[p]
		if !read {
			from = s.Offset
		}
		if from < e.Offset {
			want[p], left[p] = kgo.NewOffset().At(from), e.Offset
		}
		t.next[p] = max(from, e.Offset)
	}
	if len(want) > 0 {
		if err := t.Reader.consume(ctx, want, left, &t.f); err != nil {
			for p := range want {
				delete(t.next, p) // read from since again, as new
				again[p] = true
			}
			t.restart(again)
			return nil, err
		}
	}
	out := make(History, len(groups))
	for _, g := range groups {
		out[g] = t.f.h[g]
		for k, cs := range out[g] {
			if cs = dropBefore(cs, since); len(cs) == 0 {
				delete(out[g], k)
			} else {
				out[g][k] = cs
			}
		}
	}
	return out, nil
}

// restart forgets what was read of partitions: their groups' commits and
// what their transactions staged.
func (t *Tail) restart(parts map[int32]bool) {
	if len(parts) == 0 {
		return
	}
	for g := range t.f.h {
		if parts[OffsetsPartition(g, t.n)] {
			t.f.h[g] = map[Key][]Commit{}
		}
	}
	for id, recs := range t.f.pending {
		kept := recs[:0]
		for _, r := range recs {
			if !parts[OffsetsPartition(r.Group, t.n)] {
				kept = append(kept, r)
			}
		}
		if len(kept) == 0 {
			delete(t.f.pending, id)
		} else {
			t.f.pending[id] = kept
		}
	}
	for p := range parts {
		delete(t.next, p)
	}
}

// Forget drops the groups keep says no to: their records are passed over
// from the next read on, and a group that comes back is read as new.
func (t *Tail) Forget(keep func(group string) bool) {
	for g := range t.f.h {
		if keep == nil || !keep(g) {
			delete(t.f.h, g)
		}
	}
}

// Records is how many records of the topic the Tail has read in all.
func (t *Tail) Records() int { return t.f.records }

// dropBefore is cs without the commits before since.
func dropBefore(cs []Commit, since time.Time) []Commit {
	for i, c := range cs {
		if !c.Time.Before(since) {
			return cs[i:]
		}
	}
	return nil
}
