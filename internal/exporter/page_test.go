package exporter

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"testing"
	"time"

	"github.com/offsetctl/offsetctl/internal/cluster"
)

// TestWriteRowsEqualsAppendSample: the per-partition lines written with
// the labels escaped once per group and topic are byte for byte the lines
// appendSample writes, for hostile names, with and without a cluster
// label, across a change of topic, for every row family.
func TestWriteRowsEqualsAppendSample(t *testing.T) {
	rows := []struct {
		topic string
		rowState
	}{
		{"a\"b", rowState{partition: 0, committed: 5, lag: 7, timeLagMs: 1500}},
		{"a\"b", rowState{partition: 12, committed: 9, lag: 0, timeLagMs: -1, stale: true}},
		{"t\\\n\x1b\xff", rowState{partition: 2147483647, committed: 1 << 40, lag: 3, timeLagMs: 0, stale: true}},
	}
	g := &groupState{}
	for _, r := range rows {
		g.add(r.topic, r.rowState)
	}
	for _, cluster := range []string{"", "eu\"1\n"} {
		for _, f := range []*family{famCurrentOffset, famLag, famLagSeconds, famLagStale} {
			var got bytes.Buffer
			pw := &pageWriter{w: &got, cluster: cluster}
			pw.family(f)
			writeRows(pw, f, "g\\\"\u0085", g)
			pw.flush()
			want := appendHelp(nil, f)
			for _, r := range rows {
				v := map[*family]float64{famCurrentOffset: float64(r.committed), famLag: float64(r.lag), famLagSeconds: float64(r.timeLagMs) / 1000, famLagStale: 1}[f]
				if (f == famLagSeconds && r.timeLagMs < 0) || (f == famLagStale && !r.stale) {
					continue
				}
				want = appendSample(want, f, cluster, v, "g\\\"\u0085", strconv.Itoa(int(r.partition)), r.topic)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Errorf("%s (cluster %q):\n got %q\nwant %q", f.name, cluster, got.Bytes(), want)
			}
		}
	}
}

// BenchmarkWriteText writes the page of 500 groups x 1,000 partitions
// from state, as a scrape does (no broker: the state is made here).
func BenchmarkWriteText(b *testing.B) {
	state := map[string]*groupState{}
	var names []string
	for g := 0; g < 500; g++ {
		gs := &groupState{members: 3, protocol: "consumer", state: "Stable", typ: "classic", ok: okConsume | okBehind, consume: 12.5}
		for p := int32(0); p < 1000; p++ {
			gs.add("orders-events", rowState{partition: p, committed: 123456 + int64(p), lag: int64(p % 50), timeLagMs: -1})
		}
		name := "xbench-group-" + strconv.Itoa(g)
		state[name] = gs
		names = append(names, name)
	}
	c := New(cluster.Config{}, Options{})
	c.last = &snapshot{text: samples{lines: map[*family][]byte{}}, groups: names, state: state}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := WriteText(io.Discard, c); err != nil {
			b.Fatal(err)
		}
	}
}

// TestGroupStateRow: a row is found by topic and partition across topic
// runs (a failed read keeps the row it finds), and a topic or partition
// the group has no row of is not found.
func TestGroupStateRow(t *testing.T) {
	g := &groupState{}
	g.add("a", rowState{partition: 0, committed: 1})
	g.add("a", rowState{partition: 3, committed: 2})
	g.add("b", rowState{partition: 1, committed: 3})
	g.add("b", rowState{partition: 3, committed: 4})
	g.add("c", rowState{partition: 0, committed: 5})
	for _, tc := range []struct {
		topic     string
		partition int32
		committed int64
		found     bool
	}{
		{"a", 0, 1, true}, {"a", 3, 2, true}, {"b", 1, 3, true}, {"b", 3, 4, true}, {"c", 0, 5, true},
		{"a", 1, 0, false}, {"b", 0, 0, false}, {"c", 3, 0, false}, {"ab", 0, 0, false}, {"d", 0, 0, false},
	} {
		r, ok := g.row(tc.topic, tc.partition)
		if ok != tc.found || r.committed != tc.committed {
			t.Errorf("row(%q, %d) = %+v, %v; want committed %d, %v", tc.topic, tc.partition, r, ok, tc.committed, tc.found)
		}
	}
	if _, ok := (*groupState)(nil).row("a", 0); ok {
		t.Error("a group without state has a row")
	}
}

// failAfter accepts n writes, then fails every one, counting them.
type failAfter struct{ n, writes int }

func (w *failAfter) Write(b []byte) (int, error) {
	w.writes++
	if w.writes > w.n {
		return 0, io.ErrClosedPipe
	}
	return len(b), nil
}

// TestPageStopsWhenScraperGone: once a write of the page fails, nothing
// more is formatted or written: not the rest of the family (a line
// leaves the buffer empty), nor its other groups, nor the next families.
func TestPageStopsWhenScraperGone(t *testing.T) {
	w := &failAfter{n: 1}
	pw := &pageWriter{w: w}
	pw.family(famLag)
	for i := 0; pw.err == nil; i++ {
		if i > 1_000_000 {
			t.Fatal("no write failed")
		}
		pw.line([]byte(`kafka_consumergroup_lag{consumergroup="g",partition="`), int64(i), []byte(`",topic="t"} `), 1)
	}
	for i := 0; i < 100; i++ {
		pw.line([]byte("x"), 1, nil, 1)
		pw.add(1, "g", "0", "t")
		pw.raw([]byte("y\n"))
	}
	if len(pw.buf) != 0 || w.writes != 2 {
		t.Errorf("after the failed write: %d bytes formatted, %d writes; want 0 and 2", len(pw.buf), w.writes)
	}

	// The whole page: 200 groups of 1,000 rows, the scraper gone after the
	// first write: one more write is tried, then WriteText returns.
	c := New(cluster.Config{}, Options{Interval: time.Minute})
	st := map[string]*groupState{}
	var names []string
	for g := 0; g < 200; g++ {
		gs := &groupState{}
		for p := 0; p < 1000; p++ {
			gs.add("orders", rowState{partition: int32(p), committed: 5, lag: 7, timeLagMs: 100})
		}
		name := fmt.Sprintf("g%03d", g)
		st[name], names = gs, append(names, name)
	}
	c.last = &snapshot{text: samples{lines: map[*family][]byte{}}, groups: names, state: st}
	w = &failAfter{n: 1}
	if err := WriteText(w, c); err == nil || w.writes != 2 {
		t.Errorf("WriteText to a scraper gone: error %v after %d writes; want an error after 2", err, w.writes)
	}
}
