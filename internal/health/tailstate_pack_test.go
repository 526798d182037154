package health

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// heldOf renders a tailTopic's partitions as all yields them, in its
// order: "p=newest[history...]" (a dense topic's in partition order).
func heldOf(tt *tailTopic) string {
	var out []string
	for p, c := range tt.all() {
		s := fmt.Sprintf("%d=%d", p, c.newest.offset)
		for _, o := range c.older {
			s += fmt.Sprintf(",%d", o.offset)
		}
		out = append(out, s)
	}
	return strings.Join(out, " ")
}

// take commits off to partition p as applyOffset does, the history (when
// kept) getting the newest before it; it reports isNew.
func take(tt *tailTopic, p int32, off int64) bool {
	last, older, isNew := tt.slot(p)
	if isNew && (last.offset != 0 || last.ms != 0 || (older != nil && *older != nil)) {
		panic(fmt.Sprintf("partition %d taken with %v %v", p, *last, older))
	}
	if !isNew && older != nil {
		*older = append(*older, *last)
	}
	*last = tailCommit{offset: off, ms: off}
	return isNew
}

// The presence bits at a word's edges: 63 is the first word's last bit,
// 64 and 65 the second's first two. Each is held, yielded and removed on
// its own; a removed one is free (taken again as new, with a zero slot).
func TestTailTopicBitsetEdges(t *testing.T) {
	// A partition just past the slots (a whole number of words: no word
	// holds its bit) is not held.
	var w tailTopic
	take(&w, 63, 1)
	if len(w.newest) != 64 || len(w.held) != 1 || w.remove(64) || w.remove(62) || !w.remove(63) || w.n != 0 {
		t.Fatalf("one word: %d slots, %d words, n %d", len(w.newest), len(w.held), w.n)
	}
	var tt tailTopic
	for p := range int32(16) {
		take(&tt, p, int64(p))
	}
	for _, p := range []int32{65, 63, 64} {
		if !take(&tt, p, int64(p)) {
			t.Fatalf("%d not new", p)
		}
	}
	if tt.sparse != nil || len(tt.newest) != 66 || len(tt.held) != 2 || tt.n != 19 {
		t.Fatalf("dense %v, %d slots, %d words, n %d", tt.sparse == nil, len(tt.newest), len(tt.held), tt.n)
	}
	if tt.held[0] != 1<<63|1<<16-1 || tt.held[1] != 3 {
		t.Fatalf("bits %#x %#x", tt.held[0], tt.held[1])
	}
	if got := heldOf(&tt); !strings.HasSuffix(got, " 15=15 63=63 64=64 65=65") {
		t.Fatalf("held %s", got)
	}
	for i, want := range map[int]bool{0: true, 15: true, 16: false, 62: false, 63: true, 64: true, 65: true} {
		if tt.has(i) != want {
			t.Errorf("has(%d) = %v", i, !want)
		}
	}
	if !tt.remove(64) || tt.remove(64) || tt.n != 18 || tt.held[1] != 2 || tt.newest[64] != (tailCommit{}) {
		t.Fatalf("64 removed: n %d, bits %#x, slot %v", tt.n, tt.held[1], tt.newest[64])
	}
	if !tt.remove(63) || tt.held[0] != 1<<16-1 || !tt.remove(65) || tt.held[1] != 0 || tt.n != 16 {
		t.Fatalf("63, 65 removed: n %d, bits %#x %#x", tt.n, tt.held[0], tt.held[1])
	}
	if got := heldOf(&tt); strings.Contains(got, "63") || strings.Contains(got, "64") {
		t.Fatalf("removed ones yielded: %s", got)
	}
	if !take(&tt, 64, 7) || take(&tt, 64, 8) || tt.newest[64].offset != 8 || tt.held[1] != 1 {
		t.Fatalf("64 taken again: %s", heldOf(&tt))
	}
	// 127 (the last bit of the second word) and 128 (a third word's first).
	for p := int32(16); p < 40; p++ {
		take(&tt, p, int64(p))
	}
	take(&tt, 127, 127)
	take(&tt, 128, 128)
	if len(tt.held) != 3 || tt.held[1] != 1|1<<63 || tt.held[2] != 1 || len(tt.newest) != 129 {
		t.Fatalf("127, 128: %d words %#x, %d slots", len(tt.held), tt.held, len(tt.newest))
	}
	var order []int32
	for p := range tt.all() {
		order = append(order, p)
	}
	if want := append(slices.Collect(func(yield func(int32) bool) {
		for p := range int32(40) {
			yield(p)
		}
	}), 64, 127, 128); !slices.Equal(order, want) {
		t.Fatalf("order %v", order)
	}
	for p := range tt.all() {
		if p != 0 {
			t.Fatalf("all went on past a stop, at %d", p)
		}
		break
	}
}

// Histories go with their partitions from dense to sparse and back; a
// topic without them yields none (and slot gives no history to keep).
func TestTailTopicHistories(t *testing.T) {
	tt := tailTopic{hist: true}
	take(&tt, 0, 1)
	take(&tt, 0, 2)
	take(&tt, 5, 3)
	if got := heldOf(&tt); got != "0=2,1 5=3" || len(tt.older) != 6 {
		t.Fatalf("dense: %s, %d histories", got, len(tt.older))
	}
	take(&tt, 1000, 4) // sparse
	take(&tt, 1000, 5)
	take(&tt, 5, 6)
	if tt.sparse == nil || tt.newest != nil || tt.held != nil || tt.older != nil {
		t.Fatal("not sparse, or dense slices kept")
	}
	cs := map[int32]string{}
	for p, c := range tt.all() {
		cs[p] = fmt.Sprint(c.newest.offset, c.older)
	}
	if want := map[int32]string{0: "2 [{1 1}]", 5: "6 [{3 3}]", 1000: "5 [{4 4}]"}; !maps(cs, want) {
		t.Fatalf("sparse: %v", cs)
	}
	take(&tt, 5, 8)
	for p := int32(1); tt.sparse != nil; p++ {
		take(&tt, p+100, 9)
	}
	if tt.n != 251 || len(tt.newest) != 1001 || len(tt.older) != 1001 || len(tt.held) != 16 {
		t.Fatalf("dense again: n %d, %d slots %d histories %d words", tt.n, len(tt.newest), len(tt.older), len(tt.held))
	}
	if got := heldOf(&tt); !strings.HasPrefix(got, "0=2,1 5=8,3,6 101=9 ") || !strings.HasSuffix(got, " 1000=5,4") {
		t.Fatalf("dense again: %s", got)
	}
	// Removed then taken again: no history, dense and sparse.
	tt.remove(5)
	if !take(&tt, 5, 10) || tt.older[5] != nil {
		t.Fatalf("5 again: %v", tt.older[5])
	}
	take(&tt, 5, 11)
	if !strings.HasPrefix(heldOf(&tt), "0=2,1 5=11,10 ") {
		t.Fatalf("5 again: %s", heldOf(&tt))
	}
	take(&tt, -1, 1)
	take(&tt, -1, 2)
	tt.remove(-1)
	if !take(&tt, -1, 3) || tt.sparse[-1].older != nil {
		t.Fatalf("-1 again: %v", tt.sparse[-1])
	}
	// No histories: slot gives none, dense or sparse, and all yields none.
	var no tailTopic
	for _, p := range []int32{0, 0, 3000, 3000} {
		if _, older, _ := no.slot(p); older != nil {
			t.Fatalf("a history at %d without a window", p)
		}
	}
	no.toDense()
	if no.older != nil || heldOf(&no) != "0=0 3000=0" {
		t.Fatalf("dense without a window: %d histories, %s", len(no.older), heldOf(&no))
	}
}

func maps(a, b map[int32]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// A reference model: random commits and offset tombstones of a few
// groups over partition numbers that send topics from dense to sparse and
// back (negative, past 64, far out), with offsets and times anywhere in
// int64 (0 and the extremes included: no value marks a free slot). After
// every record the state answers as a plain map of each partition's
// commits since it was last taken (no window limit, no cap) would.
func TestTailStateModel(t *testing.T) {
	parts := []int32{0, 1, 2, 15, 62, 63, 64, 65, 127, 128, 200, 255, 256, 1000, -1, -64, 1 << 30, math.MaxInt32}
	vals := []int64{0, 1, -1, 42, math.MinInt64, math.MaxInt64, 1 << 40}
	for _, w := range []time.Duration{0, -1} {
		for seed := range uint64(16) {
			rng := rand.New(rand.NewPCG(seed, uint64(w)))
			s := NewTailState(TailOptions{Window: w, MaxCommits: -1})
			model := map[string][]tailCommit{} // "group topic partition" -> commits
			for i := range 300 {
				g, topic := fmt.Sprint("g", rng.IntN(2)), fmt.Sprint("t", rng.IntN(2))
				p := parts[rng.IntN(len(parts))]
				if rng.IntN(6) == 0 {
					p = int32(rng.IntN(300))
				}
				k := fmt.Sprintf("%s %s %d", g, topic, p)
				if rng.IntN(5) == 0 {
					s.Apply(offsetTombstone(0, g, topic, p))
					delete(model, k)
				} else {
					c := tailCommit{offset: vals[rng.IntN(len(vals))], ms: vals[rng.IntN(len(vals))]}
					if rng.IntN(2) == 0 {
						c.offset = rng.Int64()
					}
					s.Apply(TailRecord{Key: commitKey(1, g, topic, p), Value: commitValue(3, c.offset, c.ms)})
					if w == 0 {
						model[k] = nil
					}
					model[k] = append(model[k], c)
				}
				if got, want := modelOf(s), render(model); got != want {
					t.Fatalf("window %v seed %d record %d (%s):\n got %s\nwant %s", w, seed, i, k, got, want)
				}
			}
		}
	}
}

// modelOf renders a state as the model: every group's History, checked
// against its Commits, AppendCommits and the state's Partitions.
func modelOf(s *TailState) string {
	out := map[string][]tailCommit{}
	n := 0
	for g := range s.groups {
		for k, h := range s.History(g) {
			cs := make([]tailCommit, len(h))
			for i, c := range h {
				cs[i] = tailCommit{offset: c.Offset, ms: c.Time.UnixMilli()}
			}
			out[fmt.Sprintf("%s %s %d", g, k.Topic, k.Partition)] = cs
		}
		commits, _ := s.Commits(g)
		rows, _ := s.AppendCommits(g, nil)
		for _, r := range rows {
			h := out[fmt.Sprintf("%s %s %d", g, r.Topic, r.Partition)]
			if len(h) == 0 || h[len(h)-1].offset != r.Offset || commits[r.Topic][r.Partition].Offset != r.Offset {
				out["mismatch"] = nil
			}
			n++
		}
		if commits.Len() != len(s.History(g)) {
			out["commits"] = nil
		}
	}
	if n != len(out) || s.Partitions() != n {
		out[fmt.Sprint("partitions ", n, s.Partitions())] = nil
	}
	return render(out)
}

func render(m map[string][]tailCommit) string {
	var out []string
	for k, cs := range m {
		out = append(out, fmt.Sprint(k, cs))
	}
	slices.Sort(out)
	return strings.Join(out, "; ")
}
