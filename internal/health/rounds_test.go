package health

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/offsetctl/offsetctl/internal/lag"
)

// roundRow is one partition row of a round: committed offset c (-1:
// none) of log end e; err marks a failed read.
type roundRow struct {
	c, e int64
	err  bool
}

func roundGroup(rows ...roundRow) lag.GroupLag {
	g := lag.GroupLag{Group: "g"}
	for i, r := range rows {
		p := lag.PartitionLag{Topic: "t", Partition: int32(i), LogEnd: r.e}
		if r.err {
			p.Error = "NOT_LEADER_FOR_PARTITION"
		}
		if r.c >= 0 && !r.err {
			p.Committed, p.Lag = i64(r.c), i64(r.e-r.c)
		}
		g.Partitions = append(g.Partitions, p)
	}
	return g
}

// Rounds judged as the sampling source judges: each case is a run of
// rounds 10 s apart of one partition, judged at its last round.
func TestRoundsObserve(t *testing.T) {
	cases := []struct {
		name    string
		window  time.Duration
		rounds  []roundRow
		want    Status
		pending bool
		reason  string
	}{
		{"one round with lag is pending", time.Minute, []roundRow{{10, 100, false}}, OK, true, ""},
		{"one round caught up is OK", time.Minute, []roundRow{{100, 100, false}}, OK, false, "caught up"},
		{"one round without a commit is OK, no commit", time.Minute, []roundRow{{-1, 100, false}}, OK, false, NoCommit},
		{"standing under lag: WARN before the window", time.Minute, []roundRow{{10, 100, false}, {10, 110, false}}, WARN, false, "did not move in 10s with lag 100: STOP once it stands for the 1m0s window"},
		{"stopped under lag for the window", time.Minute, []roundRow{{10, 100, false}, {10, 110, false}, {10, 110, false}, {10, 110, false}, {10, 110, false}, {10, 110, false}, {10, 120, false}}, STOP, false, "did not move in 1m0s"},
		{"stopped after moving", time.Minute, []roundRow{{10, 100, false}, {20, 110, false}, {30, 120, false}, {30, 130, false}, {30, 130, false}}, STOP, false, "did not move in 20s, longer than the 10s its last moves took"},
		{"gaining", time.Minute, []roundRow{{10, 100, false}, {40, 110, false}, {70, 120, false}}, OK, false, "committing"},
		{"falling behind", time.Minute, []roundRow{{10, 100, false}, {20, 120, false}, {30, 140, false}}, WARN, false, "lag grew from 90 to 110"},
		{"rewound", time.Minute, []roundRow{{50, 100, false}, {60, 100, false}, {20, 100, false}}, REWIND, false, "went back from 60 to 20"},
		// The window is shorter than the interval: the last two rounds
		// are judged, never one alone (a stopped consumer is not OK).
		{"window shorter than the interval", time.Second, []roundRow{{10, 100, false}, {10, 110, false}, {10, 120, false}}, STOP, false, "did not move in 10s"},
		// Rounds older than the window go but the newest of them: the
		// rewind 40 s ago is out of a 25 s window.
		{"old rewind out of the window", 25 * time.Second, []roundRow{{50, 100, false}, {20, 100, false}, {30, 110, false}, {45, 120, false}, {60, 130, false}, {75, 140, false}}, OK, false, "committing"},
		// Burrow's rule 3: a lag that stays the same while the offset
		// moves is WARN, as one that grows is.
		{"moving under a constant lag", time.Minute, []roundRow{{50, 100, false}, {55, 105, false}, {60, 110, false}}, WARN, false, "lag stayed at 50 at 3 points over 20s while the offset moved from 50 to 60"},
		{"failed read keeps the rounds", time.Minute, []roundRow{{10, 100, false}, {0, 0, true}, {10, 120, false}}, WARN, false, "did not move in 20s"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := NewRounds(tc.window)
			var s RoundsStatus
			for i, row := range tc.rounds {
				s = r.Observe(roundGroup(row), at(10*i), nil)
			}
			p, ok := s.Lookup("t", 0)
			if s.Status != tc.want || (!tc.pending && (!ok || p.Status != tc.want)) || s.GroupPending() != tc.pending || !strings.Contains(p.Reason, tc.reason) {
				t.Errorf("%s (pending %v) %+v, want %s pending %v with %q", s.Status, s.GroupPending(), p, tc.want, tc.pending, tc.reason)
			}
			if tc.pending != (len(s.Pending) == 1) {
				t.Errorf("pending %v", s.Pending)
			}
		})
	}
}

// A consumer that moved its offset every round, then stopped: STOP once
// it stood longer than its moves took, and STOP every round after, while
// its moves leave the window (QA: STOP, then WARN once they had left the
// 30s window, then STOP again at 30s, an alert's for: reset each time),
// with the time it has stood growing.
func TestRoundsStopStaysStop(t *testing.T) {
	r := NewRounds(30 * time.Second)
	var s RoundsStatus
	offsets := []int64{10, 20, 30}
	for i := 0; i < 40; i++ { // rounds 2 s apart; the last move at 4 s
		off := offsets[min(i, 2)]
		s = r.Observe(roundGroup(roundRow{off, 1000, false}), at(2*i), nil)
		p, _ := s.Lookup("t", 0)
		switch stood := 2*i - 4; {
		case stood <= 2:
			if p.Status == STOP {
				t.Fatalf("round %d (stood %ds): STOP %q", i, stood, p.Reason)
			}
		case p.Status != STOP:
			t.Fatalf("round %d (stood %ds): %s %q, want STOP", i, stood, p.Status, p.Reason)
		case !strings.Contains(p.Reason, fmt.Sprintf("did not move in %s, longer than the 2s its last moves took", time.Duration(stood)*time.Second)):
			t.Fatalf("round %d: reason %q", i, p.Reason)
		}
	}
	if n := r.Len("g", Key{"t", 0}); n > 4+17 {
		t.Errorf("%d observations kept, want the window's (16 and the newest before it) and at most 4 more", n)
	}
}

// The history keeps what the window needs, a partition no longer read is
// forgotten, Forget drops groups, and LogEnds gives the rounds' log ends.
func TestRoundsKeep(t *testing.T) {
	r := NewRounds(25 * time.Second)
	k0, k1 := Key{"t", 0}, Key{"t", 1}
	for i := 0; i < 6; i++ {
		r.Observe(roundGroup(roundRow{10, int64(100 + i), false}, roundRow{5, 5, false}), at(10*i), nil)
	}
	// At 50 s, the window starts at 25 s: 30, 40, 50 and 20 (the newest
	// before it).
	if n := r.Len("g", k0); n != 4 {
		t.Errorf("%d rounds kept, want 4", n)
	}
	ends := r.LogEnds("g")[k0]
	if len(ends) != 4 || ends[0] != (LogEnd{Offset: 102, Time: at(20), Paired: true, Committed: 10}) || ends[3] != (LogEnd{Offset: 105, Time: at(50), Paired: true, Committed: 10}) {
		t.Errorf("log ends %v", ends)
	}
	// Partition 1 is no longer read: forgotten.
	r.Observe(roundGroup(roundRow{10, 106, false}), at(60), nil)
	if r.Len("g", k1) != 0 || r.Len("g", k0) != 4 {
		t.Errorf("kept %d and %d", r.Len("g", k0), r.Len("g", k1))
	}
	r.Observe(lag.GroupLag{Group: "h"}, at(60), nil)
	r.Forget(func(g string) bool { return g == "h" })
	if r.Groups() != 1 || r.Len("g", k0) != 0 {
		t.Errorf("after Forget: %d groups", r.Groups())
	}
	r.Forget(nil)
	if r.Groups() != 0 {
		t.Errorf("after Forget(nil): %d groups", r.Groups())
	}
}

// ApplyRounds writes Pending on the rows seen once with lag, and on the
// group when nothing judged is worse than OK; a judged WARN stands.
func TestApplyRounds(t *testing.T) {
	r := NewRounds(time.Minute)
	r.Observe(roundGroup(roundRow{10, 100, false}, roundRow{-1, 0, false}), at(0), nil)
	g := roundGroup(roundRow{10, 110, false}, roundRow{5, 50, false}, roundRow{7, 7, false})
	s := r.Observe(g, at(10), nil)
	ApplyRounds(&g, s, SourceSample)
	got := []string{g.Status, g.Partitions[0].Status, g.Partitions[1].Status, g.Partitions[2].Status}
	if strings.Join(got, " ") != "WARN WARN PENDING OK" || g.StatusSource != SourceSample || g.Partitions[1].StatusReason != pendingReason {
		t.Errorf("statuses %v source %q reason %q", got, g.StatusSource, g.Partitions[1].StatusReason)
	}
	// A failed row or one without a commit first: the rows after it are
	// judged all the same.
	r = NewRounds(time.Minute)
	for i := 0; i < 2; i++ {
		g = roundGroup(roundRow{0, 0, true}, roundRow{-1, 0, false}, roundRow{10, int64(100 + i), false})
		s = r.Observe(g, at(10*i), nil)
	}
	if ApplyRounds(&g, s, SourceSample); g.Status != "WARN" || g.Partitions[2].Status != "WARN" || g.Partitions[1].StatusReason != NoCommit || g.Partitions[0].Status != "" {
		t.Errorf("after a failed row and one without a commit: %s %+v", g.Status, g.Partitions)
	}
	// A row without a commit is one partition of the group, counted once.
	if s := NewRounds(time.Minute).Observe(roundGroup(roundRow{-1, 10, false}), at(0), nil); s.Reason != "no committed partitions (1 without a commit to judge)" {
		t.Errorf("no commit: %q", s.Reason)
	}
	g = roundGroup(roundRow{20, 110, false}, roundRow{5, 50, false})
	s = NewRounds(time.Minute).Observe(g, at(0), nil)
	ApplyRounds(&g, s, SourceSample)
	if g.Status != Pending || g.StatusReason != "2 partition(s) with lag seen in one round only: judged from the next round" {
		t.Errorf("group %s %q, want PENDING", g.Status, g.StatusReason)
	}
}

// A Judge with Rounds and the sampling source judges each call as a round
// of a watch: PENDING, then WARN for an offset that does not move (STOP
// once it stands for the window: TestRoundsObserve); the
// source said once; a group whose read failed keeps its rounds through a
// complete round, a group not read in one is forgotten, a failed round
// forgets nothing.
func TestJudgeWatchSample(t *testing.T) {
	var said []string
	j := &Judge{Mode: ModeSample, Rounds: NewRounds(time.Minute), Source: func(s string) { said = append(said, s) }}
	k := Key{"t", 0}
	round := func(i int, g lag.GroupLag) lag.GroupLag {
		t.Helper()
		b := lag.LagBatch{Snapshot: &lag.Snapshot{At: at(10 * i)}, Report: lag.LagReport{Groups: []lag.GroupLag{g}}}
		if err := j.Judge(context.Background(), &b, nil); err != nil {
			t.Fatal(err)
		}
		return b.Report.Groups[0]
	}
	if g := round(0, roundGroup(roundRow{10, 100, false})); g.Status != Pending || g.StatusSource != SourceSample {
		t.Errorf("round 1: %s from %q", g.Status, g.StatusSource)
	}
	j.EndRound(true)
	if g := round(1, roundGroup(roundRow{10, 110, false})); g.Status != "WARN" || g.Partitions[0].Status != "WARN" {
		t.Errorf("round 2: %s %q", g.Status, g.StatusReason)
	}
	j.EndRound(true)
	if len(said) != 1 || said[0] != SourceSample {
		t.Errorf("source said %v", said)
	}
	failed := lag.GroupLag{Group: "g", Error: "COORDINATOR_NOT_AVAILABLE"}
	if g := round(2, failed); g.Status != "" {
		t.Errorf("a failed group judged: %s", g.Status)
	}
	j.EndRound(true)
	if j.Rounds.Len("g", k) != 2 {
		t.Errorf("a failed read forgot: %d rounds", j.Rounds.Len("g", k))
	}
	round(3, lag.GroupLag{Group: "other"})
	j.EndRound(false)
	if j.Rounds.Len("g", k) != 2 {
		t.Error("a failed round forgot")
	}
	round(4, lag.GroupLag{Group: "other"})
	j.EndRound(true)
	if j.Rounds.Len("g", k) != 0 || j.Rounds.Groups() != 1 {
		t.Errorf("a group a complete round did not read is kept: %d rounds, %d groups", j.Rounds.Len("g", k), j.Rounds.Groups())
	}
	(&Judge{}).EndRound(true) // no Rounds: nothing to do
}

// A steady consumer (lag 50, committing 10 offsets a second) whose
// commits carry the timestamps of a broker clock 3 s behind the host's:
// each round's log end is judged against the offset that round read, not
// against the commit the broker's clock puts at the round's time (which
// is 30 offsets newer: lags 20, 20, 20 then 50 read as growth). Its lag
// never falls, so it is WARN (Burrow's rule 3), at its real lag, 50.
func TestJudgeCommitsBrokerClockBehind(t *testing.T) {
	const skew = 3 * time.Second
	t0 := time.UnixMilli(1_700_000_000_000)
	r := NewRounds(time.Minute)
	var commits []Commit
	committed := func(at time.Time) int64 { return at.Sub(t0).Milliseconds() / 100 }
	var st RoundsStatus
	for i := 0; i <= 4; i++ {
		at := t0.Add(time.Duration(i) * 10 * time.Second)
		for s := at.Add(-10 * time.Second); !s.After(at); s = s.Add(time.Second) {
			if s.Before(t0) {
				continue
			}
			if n := len(commits); n == 0 || commits[n-1].Time.Before(s.Add(-skew)) {
				commits = append(commits, Commit{Offset: committed(s), Time: s.Add(-skew)})
			}
		}
		g := roundGroup(roundRow{c: committed(at), e: committed(at) + 50})
		r.Add(g, at)
		st = r.JudgeCommits(g, at, nil, map[Key][]Commit{{"t", 0}: commits})
	}
	if want := "t/0: lag stayed at 50 at 5 points over 40s"; st.Status != WARN || !strings.HasPrefix(st.Reason, want) {
		t.Fatalf("steady consumer with a broker clock 3 s behind: %s %q, want WARN %q", st.Status, st.Reason, want)
	}
}
