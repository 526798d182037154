package exporter

import (
	"bytes"
	"strconv"
	"testing"
)

// TestWriteRowsEqualsAppendSample: the per-partition lines written with
// the labels escaped once per group and topic are byte for byte the lines
// appendSample writes, for hostile names, with and without a cluster
// label, across a change of topic, for every row family.
func TestWriteRowsEqualsAppendSample(t *testing.T) {
	g := &groupState{rows: []rowState{
		{topic: "a\"b", partition: 0, committed: 5, lag: 7, timeLagMs: 1500},
		{topic: "a\"b", partition: 12, committed: 9, lag: 0, timeLagMs: -1, stale: true},
		{topic: "t\\\n\x1b\xff", partition: 2147483647, committed: 1 << 40, lag: 3, timeLagMs: 0, stale: true},
	}}
	for _, cluster := range []string{"", "eu\"1\n"} {
		for _, f := range []*family{famCurrentOffset, famLag, famLagSeconds, famLagStale} {
			var got bytes.Buffer
			pw := &pageWriter{w: &got, cluster: cluster}
			pw.family(f)
			writeRows(pw, f, "g\\\"\u0085", g)
			pw.flush()
			want := appendHelp(nil, f)
			for _, r := range g.rows {
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
