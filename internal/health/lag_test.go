package health

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/offsetctl/offsetctl/internal/lag"
)

func row(topic string, part int32, committed *int64, end int64) lag.PartitionLag {
	return lag.PartitionLag{Topic: topic, Partition: part, Committed: committed, LogEnd: end}
}

// FromHistory: a row's commits from the history; one older than the
// window as a commit of unknown time; one newer than the history at the
// report's time; a row without a commit with no commits (judged "no
// commit to judge"); a row with an error left out.
func TestFromHistory(t *testing.T) {
	g := lag.GroupLag{Group: "g", Partitions: []lag.PartitionLag{
		row("t", 0, i64(30), 100), row("t", 1, i64(7), 50), row("t", 2, i64(9), 90), row("t", 3, nil, 5),
		{Topic: "t", Partition: 4, Committed: i64(1), Error: "x"},
	}}
	hist := map[Key][]Commit{{"t", 0}: commits(10, 30), {"t", 2}: commits(5)}
	ends := map[Key][]LogEnd{{"t", 0}: ends(60, 80)}
	ps := FromHistory(g, hist, ends, at(300))
	if len(ps) != 4 || ps[3].Partition != 3 || len(ps[3].Commits) != 0 {
		t.Fatalf("%d partitions: %+v", len(ps), ps)
	}
	if p := ps[0]; len(p.Commits) != 2 || len(p.LogEnds) != 3 || p.LogEnds[2] != (LogEnd{Offset: 100, Time: at(300), Paired: true, Committed: 30}) {
		t.Fatalf("t/0: %+v", p)
	}
	if p := ps[1]; len(p.Commits) != 1 || p.Commits[0].Offset != 7 || !p.Commits[0].Time.IsZero() {
		t.Fatalf("t/1: %+v", p)
	}
	if p := ps[2]; len(p.Commits) != 2 || p.Commits[1] != (Commit{9, at(300)}) {
		t.Fatalf("t/2: %+v", p)
	}
	if len(hist[Key{"t", 2}]) != 1 {
		t.Fatal("the history was changed")
	}
}

// The rows judged are the later read's, the ones shown: a partition first
// committed between the samples got no status (a '-', no status in JSON,
// left out of --fail-if) and the group said "all 1 partition(s) OK" above
// two rows; one whose offset was deleted meanwhile was counted in the
// group though not shown. Now the first is pending (one sample cannot be
// judged) and the second is not judged.
func TestFromSamplesAndApply(t *testing.T) {
	earlier := map[Key]Sample{{"t", 0}: {Committed: i64(10), LogEnd: 100}, {"t", 1}: {Committed: i64(5), LogEnd: -1}, {"t", 3}: {Committed: i64(1), LogEnd: 10}}
	g := lag.GroupLag{Group: "g", Partitions: []lag.PartitionLag{row("t", 0, i64(10), 150), row("t", 1, i64(5), 50), row("t", 2, nil, 5), row("t", 4, i64(3), 20)}}
	ps, pending := FromSamples(earlier, at(0), g, at(30))
	if len(ps) != 4 || !ps[0].Sampled || len(ps[0].Commits) != 2 || ps[0].LogEnds[1] != (LogEnd{Offset: 150, Time: at(30)}) || len(ps[1].Commits) != 1 || len(ps[2].Commits) != 0 || len(ps[3].Commits) != 1 {
		t.Fatalf("%+v", ps)
	}
	if fmt.Sprint(pending) != "[{t 1} {t 4}]" {
		t.Fatalf("pending %v, want t/1 (no log end earlier) and t/4 (first committed between)", pending)
	}
	gs := EvaluateGroup("g", ps, Options{Window: 30 * time.Second, Now: at(30)})
	applySampled(&g, RoundsStatus{GroupStatus: gs, Pending: pending})
	if g.Status != "STOP" || g.StatusSource != "sample" || g.Partitions[0].Status != "STOP" || g.Partitions[1].Status != Pending || g.Partitions[2].Status != "OK" || g.Partitions[2].StatusReason != NoCommit || g.Partitions[3].Status != Pending || g.StatusReason == "" {
		t.Fatalf("%+v", g)
	}
	for _, r := range g.Partitions {
		if r.Status == "" {
			t.Fatalf("row %s/%d has no status", r.Topic, r.Partition)
		}
	}
	// Nothing worse than OK otherwise: the group is pending.
	g = lag.GroupLag{Group: "g", Partitions: []lag.PartitionLag{row("t", 2, nil, 5), row("t", 4, i64(3), 20)}}
	ps, pending = FromSamples(earlier, at(0), g, at(30))
	applySampled(&g, RoundsStatus{GroupStatus: EvaluateGroup("g", ps, Options{Window: time.Minute, Now: at(30)}), Pending: pending})
	if g.Status != Pending || !strings.Contains(g.StatusReason, "1 partition(s) with lag first committed between the samples") || g.Partitions[1].Status != Pending {
		t.Fatalf("%+v", g)
	}
}

func TestSampleTimes(t *testing.T) {
	hist := map[Key][]Commit{{"t", 0}: commits(1, 2, 3, 4, 5), {"t", 1}: append(commits(1, 2), Commit{Offset: 9})}
	got := SampleTimes(hist, 3)
	if len(got) != 3 || !got[0].Equal(at(0)) || !got[1].Equal(at(120)) || !got[2].Equal(at(240)) {
		t.Fatalf("%v", got)
	}
	if all := SampleTimes(hist, 10); len(all) != 5 {
		t.Fatalf("%v", all)
	}
}

// A consumer that goes on committing while the history is read: the
// history holds commits newer than the report's row. They are cut, so it
// is not judged rewound (the Apache Kafka suite saw "went back from 24 to
// 22" for four live groups when the row's older offset was appended after
// them); log ends listed after the report's time go too. A real rewind
// before the row's offset stays; a row below a history without its offset
// adds nothing.
func TestFromHistoryReadAfterReport(t *testing.T) {
	hist := map[Key][]Commit{
		{"t", 0}: commits(20, 21, 22, 23, 24),
		{"t", 1}: commits(50, 5, 6, 7),
		{"t", 2}: commits(20, 24),
	}
	endsK := map[Key][]LogEnd{{"t", 0}: ends(30, 31, 32, 33, 34)}
	g := lag.GroupLag{Group: "g", Partitions: []lag.PartitionLag{row("t", 0, i64(22), 40), row("t", 1, i64(6), 40), row("t", 2, i64(22), 40)}}
	ps := FromHistory(g, hist, endsK, at(150))
	if p := ps[0]; len(p.Commits) != 3 || p.Commits[2].Offset != 22 || len(p.LogEnds) != 4 || p.LogEnds[3] != (LogEnd{Offset: 40, Time: at(150), Paired: true, Committed: 22}) {
		t.Fatalf("t/0: %+v", p)
	}
	if p := ps[1]; len(p.Commits) != 3 || p.Commits[1].Offset != 5 {
		t.Fatalf("t/1: %+v", p)
	}
	if p := ps[2]; len(p.Commits) != 2 || p.Commits[1].Offset != 24 {
		t.Fatalf("t/2: %+v", p)
	}
	gs := EvaluateGroup("g", ps[:1], Options{Window: time.Hour, Now: at(150)})
	if gs.Status == REWIND {
		t.Fatalf("judged %s: %s", gs.Status, gs.Reason)
	}
	gs = EvaluateGroup("g", ps[1:2], Options{Window: time.Hour, Now: at(150)})
	if gs.Status != REWIND {
		t.Fatalf("a rewind before the row's offset: %s: %s", gs.Status, gs.Reason)
	}
}

// Sampling judges its two samples whatever the window: a --window not
// longer than --sample left the first sample outside it, and a stopped
// consumer with lag came out OK.
func TestSampledWindowShorterThanSample(t *testing.T) {
	for _, w := range []time.Duration{time.Nanosecond, 2 * time.Second, 30 * time.Second} {
		g := lag.GroupLag{Group: "g", Partitions: []lag.PartitionLag{row("t", 0, i64(10), 15), row("t", 1, i64(2), 20)}}
		earlier := map[Key]Sample{{"t", 0}: {Committed: i64(10), LogEnd: 15}, {"t", 1}: {Committed: i64(2), LogEnd: 20}}
		o := sampledOptions(Options{Window: w, Now: at(30)}, at(0), 0)
		ps, _ := FromSamples(earlier, at(0), g, at(30))
		gs := EvaluateGroup("g", ps, o)
		if gs.Status != STOP || len(gs.Deciding) != 2 {
			t.Fatalf("window %s: %s %q", w, gs.Status, gs.Reason)
		}
		if want := "t/0: offset 10 did not move in 30s with lag 5 (sampled: a stall looks the same); also STOP: t/1"; gs.Reason != want {
			t.Fatalf("window %s: reason %q, want %q", w, gs.Reason, want)
		}
	}
	if o := sampledOptions(Options{Window: time.Hour, Now: at(30)}, at(0), 0); o.Window != time.Hour {
		t.Fatalf("a longer window was changed: %s", o.Window)
	}
	// A window longer than the samples: an offset that stood between
	// them is WARN, not STOP (a consumer that commits once a minute is
	// still between samples 30 s apart), and never OK.
	g := lag.GroupLag{Group: "g", Partitions: []lag.PartitionLag{row("t", 0, i64(10), 15)}}
	ps, _ := FromSamples(map[Key]Sample{{"t", 0}: {Committed: i64(10), LogEnd: 15}}, at(0), g, at(30))
	if gs := EvaluateGroup("g", ps, sampledOptions(Options{Window: time.Minute, Now: at(30)}, at(0), 0)); gs.Status != WARN || !strings.Contains(gs.Reason, "STOP once it stands for the 1m0s window") {
		t.Fatalf("window 1m: %s %q", gs.Status, gs.Reason)
	}
}
