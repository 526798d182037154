package health

import (
	"context"
	"time"
)

// Tail reads __consumer_offsets for a watch (lag --watch --status): a
// group's first read takes its partition of the topic from the window's
// start, every later one only what was written since the one before. The
// records go into a TailState (as the exporter's Tailer's do), which
// keeps the commits of the groups asked for over Window and holds what a
// transaction staged until its marker, in a later read if need be. A Tail
// is the caller's loop's: not safe for concurrent use.
type Tail struct {
	Reader TopicReader
	// Window is the commits kept per partition before its newest (the
	// watch's --window; 0 keeps every commit read).
	Window time.Duration
	state  *TailState
	known  map[string]bool // the groups asked for, read or to read
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
		t.init(n)
	}
	parts := map[int32]bool{}
	again := map[int32]bool{}
	for _, g := range groups {
		p := OffsetsPartition(g, t.n)
		parts[p] = true
		if !t.known[g] {
			t.known[g] = true
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
	from := map[int32]int64{}
	for p := range parts {
		s, _ := starts.Lookup(OffsetsTopic, p)
		e, _ := ends.Lookup(OffsetsTopic, p)
		f, read := t.next[p]
		if !read {
			f = s.Offset
		}
		from[p], t.next[p] = f, max(f, e.Offset)
	}
	if err := t.Reader.consume(ctx, from, ends, t.state); err != nil {
		for p := range parts {
			again[p] = true // read from since again, as new
		}
		t.restart(again)
		return nil, err
	}
	out := make(History, len(groups))
	for _, g := range groups {
		out[g] = map[Key][]Commit{}
		for k, cs := range t.state.History(g) {
			if cs = inWindow(cs, since); len(cs) > 0 {
				out[g][k] = cs
			}
		}
	}
	return out, nil
}

// init starts the Tail on a topic of n partitions.
func (t *Tail) init(n int32) {
	w := t.Window
	if w <= 0 {
		w = -1
	}
	t.n, t.next, t.known = n, map[int32]int64{}, map[string]bool{}
	t.state = NewTailState(TailOptions{Window: w, MaxCommits: -1, Want: func(g string) bool { return t.known[g] }})
}

// restart forgets what was read of partitions: their groups' commits and
// what their transactions staged.
func (t *Tail) restart(parts map[int32]bool) {
	if len(parts) == 0 {
		return
	}
	t.state.Restart(parts, t.n)
	for p := range parts {
		delete(t.next, p)
	}
}

// Forget drops the groups keep says no to: their records are passed over
// from the next read on, and a group that comes back is read as new.
func (t *Tail) Forget(keep func(group string) bool) {
	forgetGroups(t.known, keep)
	if t.state != nil {
		t.state.Forget(keep)
	}
}

// Records is how many records of the topic the Tail has read in all.
func (t *Tail) Records() int {
	if t.state == nil {
		return 0
	}
	return t.state.Records
}
