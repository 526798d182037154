package health

import (
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)

// at is a time s seconds after t0.
func at(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }

// commits makes one commit a minute from t0, at these offsets.
func commits(offsets ...int64) []Commit {
	cs := make([]Commit, len(offsets))
	for i, o := range offsets {
		cs[i] = Commit{Offset: o, Time: at(60 * i)}
	}
	return cs
}

// ends makes one log end a minute from t0.
func ends(offsets ...int64) []LogEnd {
	es := make([]LogEnd, len(offsets))
	for i, o := range offsets {
		es[i] = LogEnd{Offset: o, Time: at(60 * i)}
	}
	return es
}

type ruleCase struct {
	name   string
	p      Partition
	now    time.Time
	want   Status
	reason string // a part of the reason
}

func runRules(t *testing.T, cases []ruleCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			now := c.now
			if now.IsZero() {
				now = at(60*len(c.p.Commits) - 30) // 30 s after the last commit
			}
			r := Evaluate(c.p, Options{Window: 10 * time.Minute, Now: now})
			if r.Status != c.want || !strings.Contains(r.Reason, c.reason) {
				t.Fatalf("got %s %q, want %s with %q", r.Status, r.Reason, c.want, c.reason)
			}
		})
	}
}

// Burrow wiki, "Consumer Lag Evaluation Rules", rule 1: no lag now is OK
// whatever came before, and a lag of zero anywhere in the window is OK
// unless STOP or REWIND (TestRuleOrderAsBurrow).
func TestRuleCaughtUpIsOK(t *testing.T) {
	runRules(t, []ruleCase{
		{name: "idle at the log end long after its last commit", p: Partition{Commits: commits(100), LogEnds: ends(100)}, now: at(3600), want: OK, reason: "caught up"},
		{name: "same offset at the log end", p: Partition{Commits: commits(100, 100, 100), LogEnds: ends(100, 100, 100)}, want: OK, reason: "caught up"},
		{name: "no commit", p: Partition{LogEnds: ends(5)}, want: OK, reason: "no commit"},
		{name: "lag shrinking", p: Partition{Commits: commits(10, 40, 80), LogEnds: ends(100, 110, 120)}, want: OK, reason: "not falling behind"},
		{name: "lag grew then fell", p: Partition{Commits: commits(10, 15, 100), LogEnds: ends(100, 110, 120)}, want: OK},
		{name: "a zero lag inside the window", p: Partition{Commits: commits(100, 101, 102), LogEnds: []LogEnd{{Offset: 100, Time: at(0)}, {Offset: 105, Time: at(60)}, {Offset: 110, Time: at(120)}}}, want: OK},
	})
}

// Burrow wiki rule 2: the offset does not change over the window while
// there is lag: STALL.
func TestRuleStall(t *testing.T) {
	runRules(t, []ruleCase{
		{name: "same offset committed, lag fixed", p: Partition{Commits: commits(50, 50, 50, 50), LogEnds: ends(100)}, want: STALL, reason: "4 commits of offset 50"},
		{name: "same offset committed, lag growing", p: Partition{Commits: commits(50, 50, 50), LogEnds: ends(100, 200, 300)}, want: STALL},
		{name: "one commit is not a stall", p: Partition{Commits: commits(50), LogEnds: ends(100)}, now: at(30), want: OK},
		{name: "the offset moved once", p: Partition{Commits: commits(50, 50, 51), LogEnds: ends(100)}, want: OK},
		// Samples are not commits: an offset that stood between two
		// samples may be a consumer that commits less often (QA: one
		// committing every 5 s, watched every 2 s, was STOP at once).
		// It is STOP once it stands longer than the span of the moves
		// seen (Burrow's rule 4 on commits), or, with fewer than two
		// moves seen, for the window (WARN until then, never OK);
		// standing within its moves' span it is judged as moving.
		{name: "samples are not commits", p: Partition{Commits: commits(50, 50), LogEnds: ends(100), Sampled: true}, want: WARN, reason: "offset 50 did not move in 1m0s with lag 50: STOP once it stands for the 10m0s window (sampled"},
		{name: "samples: standing for the window", p: Partition{Commits: commits(50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50), LogEnds: ends(100), Sampled: true}, want: STOP, reason: "offset 50 did not move in 10m0s with lag 50 (sampled: a stall looks the same)"},
		{name: "samples: standing longer than its moves took", p: Partition{Commits: commits(10, 20, 30, 30, 30, 30, 30), LogEnds: ends(100), Sampled: true}, want: STOP, reason: "offset 30 did not move in 4m0s, longer than the 1m0s its last moves took, with lag 70 (sampled)"},
		{name: "samples: standing within its moves' span", p: Partition{Commits: commits(10, 20, 30, 40, 40), LogEnds: ends(100), Sampled: true}, want: OK, reason: "committing"},
	})
}

// Burrow wiki rule 3, as its checkIfLagNotDecreasing has it: the offset
// moves but the lag never falls from one point to the next (a lag that
// stays the same counts): WARN. The reason gives the time the points
// cover, not the window (QA: "at each of 2 points in 10m0s" of samples 4 s
// apart).
func TestRuleWarn(t *testing.T) {
	runRules(t, []ruleCase{
		{name: "gaining but falling behind", p: Partition{Commits: commits(10, 20, 30), LogEnds: ends(100, 120, 140)}, want: WARN, reason: "lag grew from 90 to 110, never falling, at 3 points over 2m0s while the offset moved from 10 to 30"},
		{name: "flat then growing", p: Partition{Commits: commits(10, 20, 30), LogEnds: ends(100, 110, 130)}, want: WARN, reason: "lag grew from 90 to 100"},
		{name: "constant lag under a moving offset", p: Partition{Commits: commits(10, 20, 30), LogEnds: ends(100, 110, 120)}, want: WARN, reason: "lag stayed at 90 at 3 points over 2m0s while the offset moved from 10 to 30"},
		{name: "one step down", p: Partition{Commits: commits(10, 30, 40), LogEnds: ends(100, 110, 140)}, want: OK},
		{name: "log ends before the first commit do not count", p: Partition{Commits: []Commit{{10, at(60)}, {20, at(120)}}, LogEnds: []LogEnd{{Offset: 500, Time: at(0)}, {Offset: 100, Time: at(60)}, {Offset: 120, Time: at(120)}}}, now: at(150), want: WARN, reason: "from 90 to 100, never falling, at 2 points over 1m0s"},
		// Commits far apart, so the one commit in the window is not a STOP
		// against the commit before it (the rule of TestRuleStop's "one
		// commit in the window" rows).
		{name: "log ends before the window do not count", p: Partition{Commits: []Commit{{10, at(-1200)}, {20, at(-600)}, {30, at(120)}}, LogEnds: ends(100, 105, 120)}, now: at(120 + 30 + 9*60 + 30), want: OK},
		{name: "one commit under a growing log end", p: Partition{Commits: commits(10), LogEnds: []LogEnd{{Offset: 50, Time: at(0)}, {Offset: 90, Time: at(30)}}}, now: at(30), want: OK},
		{name: "sampled too", p: Partition{Commits: []Commit{{10, at(0)}, {20, at(30)}}, LogEnds: []LogEnd{{Offset: 100, Time: at(0)}, {Offset: 150, Time: at(30)}}, Sampled: true}, now: at(30), want: WARN, reason: "over 30s"},
	})
}

// The WARN rule against Burrow's (QA finding: a consumer moving from 50 to
// 60 with its lag staying at 50 was OK, where Burrow says WARN; and the
// reason named the 10m window for samples 4 s apart).
func TestWarnAsBurrow(t *testing.T) {
	s := func(sec int) time.Time { return t0.Add(time.Duration(sec) * time.Second) }
	// sampled is two samples 4 s apart, as lag --status --sample 4s.
	sampled := func(c0, e0, c1, e1 int64) Partition {
		return Partition{Sampled: true, Commits: []Commit{{c0, s(0)}, {c1, s(4)}}, LogEnds: []LogEnd{{Offset: e0, Time: s(0)}, {Offset: e1, Time: s(4)}}}
	}
	// rounds is one sample every 15 s of committed offsets cs against log
	// ends es, as the exporter's and lag --watch's rounds.
	rounds := func(cs, es []int64) Partition {
		p := Partition{Sampled: true}
		for i := range cs {
			p.Commits = append(p.Commits, Commit{cs[i], s(15 * i)})
			p.LogEnds = append(p.LogEnds, LogEnd{Offset: es[i], Time: s(15 * i), Paired: true, Committed: cs[i]})
		}
		return p
	}
	for _, c := range []struct {
		name   string
		p      Partition
		now    time.Time
		want   Status
		reason string
	}{
		{"constant lag, offset moving 50 to 60", sampled(50, 100, 60, 110), s(4), WARN, "lag stayed at 50 at 2 points over 4s while the offset moved from 50 to 60"},
		{"lag growing: the span of the samples, not the window", sampled(50, 100, 60, 125), s(4), WARN, "lag grew from 50 to 65, never falling, at 2 points over 4s while the offset moved from 50 to 60"},
		{"lag falling", sampled(50, 100, 60, 109), s(4), OK, "committing and not falling behind"},
		{"constant over many rounds", rounds([]int64{10, 20, 30, 40, 50}, []int64{60, 70, 80, 90, 100}), s(60), WARN, "lag stayed at 50 at 5 points over 1m0s"},
		{"lag decreasing at one pair only", rounds([]int64{10, 20, 30, 40, 50}, []int64{60, 75, 79, 95, 110}), s(60), OK, "committing and not falling behind"},
		{"growing then flat", rounds([]int64{10, 20, 30, 40}, []int64{60, 80, 90, 100}), s(45), WARN, "lag grew from 50 to 60, never falling, at 4 points over 45s"},
		{"constant lag, offset not moving: WARN from samples until the window", sampled(50, 100, 50, 100), s(4), WARN, "did not move in 4s"},
		{"one point is no trend", Partition{Commits: []Commit{{10, s(-700)}, {20, s(0)}, {30, s(4)}}, LogEnds: []LogEnd{{Offset: 80, Time: s(4)}}}, s(4), OK, "committing and not falling behind"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := Evaluate(c.p, Options{Window: 10 * time.Minute, Now: c.now})
			if r.Status != c.want || !strings.Contains(r.Reason, c.reason) {
				t.Fatalf("got %s %q, want %s with %q", r.Status, r.Reason, c.want, c.reason)
			}
		})
	}
}

// Burrow's evaluator order (core/internal/evaluator/caching.go,
// calculatePartitionStatus): no lag now is OK; STOP, unless a log end read
// lately was at or below the last commit; REWIND; any lag of zero in the
// window is OK; STALL; WARN. offsetctl tries REWIND before STOP
// (docs/health.md says why).
func TestRuleOrderAsBurrow(t *testing.T) {
	// read is log ends read (not listed) at these times, each paired with
	// the commit made then.
	sampledAt := func(secs []int, cs, es []int64) Partition {
		p := Partition{Sampled: true}
		for i, sec := range secs {
			p.Commits = append(p.Commits, Commit{cs[i], at(sec)})
			p.LogEnds = append(p.LogEnds, LogEnd{Offset: es[i], Time: at(sec)})
		}
		return p
	}
	twelve := make([]int, 12)
	same := make([]int64, 12)
	idleEnds := make([]int64, 12)
	for i := range twelve {
		twelve[i], same[i], idleEnds[i] = 15*i, 100, 105
	}
	idleEnds[0] = 100
	runRules(t, []ruleCase{
		// Rule 1 on the lag now comes first: a rewind left at the log end
		// (the log itself went back: a topic recreated) is not looked at.
		{name: "no lag now beats a rewind", p: Partition{Commits: commits(500, 20), LogEnds: ends(20)}, want: OK, reason: "caught up"},
		// Any lag of zero in the window is OK ahead of STALL and WARN...
		{name: "a zero lag in the window beats STALL", p: Partition{Commits: commits(100, 100, 100), LogEnds: ends(100, 105, 110)}, want: OK, reason: "lag was 0 at 2026-12-02T12:00:00Z, inside the 10m0s window (10 now)"},
		{name: "a zero lag in the window beats WARN", p: Partition{Commits: commits(100, 101, 102), LogEnds: ends(100, 105, 110)}, want: OK, reason: "lag was 0 at"},
		// ...but not ahead of STOP: a consumer that caught up and then
		// stopped with records behind it is STOP.
		{name: "STOP beats an old zero lag", p: Partition{Commits: commits(10, 20, 30), LogEnds: ends(10, 25, 40)}, now: at(120 + 121), want: STOP, reason: "longer than the 2m0s"},
		// Burrow's checkIfRecentLagZero: a log end read lately at or
		// below the last commit holds STOP back (an idle consumer just
		// written to), then the zero lag is OK.
		{name: "caught up at the first sample: not STOP yet", p: sampledAt([]int{0, 30}, []int64{100, 100}, []int64{100, 105}), now: at(30), want: OK, reason: "lag was 0 at 2026-12-02T12:00:00Z"},
		{name: "caught up 11 reads ago: not held back", p: sampledAt(twelve, same, idleEnds), now: at(165), want: WARN, reason: "offset 100 did not move in 2m45s with lag 5"},
		{name: "an end listed at a commit time is not a read", p: Partition{Commits: commits(10, 20, 30), LogEnds: []LogEnd{listedEnd(30, at(120)), {Offset: 90, Time: at(600), Paired: true, Committed: 30}}}, now: at(600), want: STOP, reason: "no commit for 8m0s"},
		// REWIND before STOP here (Burrow: STOP first).
		{name: "rewound, then silent", p: Partition{Commits: commits(500, 510, 20), LogEnds: ends(600)}, now: at(120 + 300), want: REWIND, reason: "offset went back from 510 to 20"},
		// STALL before WARN: the offset does not move.
		{name: "STALL before WARN", p: Partition{Commits: commits(50, 50, 50), LogEnds: ends(100, 100, 110)}, want: STALL, reason: "3 commits of offset 50"},
	})
}

// Burrow wiki rule 4: the time since the last commit is longer than the
// window's commits took (or than the window), with lag: STOP.
func TestRuleStop(t *testing.T) {
	runRules(t, []ruleCase{
		{name: "no commit in the window", p: Partition{Commits: commits(10, 20), LogEnds: ends(100)}, now: at(60 + 11*60), want: STOP, reason: "no commit for 11m0s (window 10m0s) with lag 80"},
		{name: "silent longer than its commits took", p: Partition{Commits: commits(10, 20, 30), LogEnds: ends(100)}, now: at(120 + 121), want: STOP, reason: "longer than the 2m0s"},
		{name: "silent, but not that long", p: Partition{Commits: commits(10, 20, 30), LogEnds: ends(100)}, now: at(120 + 119), want: OK},
		// One commit in the window: judged against the commit before it
		// (QA: a consumer that committed once in the window and stopped was
		// OK, "committing and not falling behind", until the commit left
		// the window).
		{name: "one commit in the window, silent longer than since the one before", p: Partition{Commits: []Commit{{10, at(0)}, {20, at(400)}}, LogEnds: ends(100)}, now: at(400 + 401), want: STOP, reason: "no commit for 6m41s, longer than the 6m40s its last commits took"},
		{name: "one commit in the window, silent not that long", p: Partition{Commits: []Commit{{10, at(0)}, {20, at(700)}}, LogEnds: ends(100)}, now: at(700 + 299), want: OK, reason: "committing and not falling behind"},
		{name: "one commit ever: too few to judge a stop", p: Partition{Commits: commits(10), LogEnds: ends(100)}, now: at(300), want: OK, reason: "one commit in the window and none before it"},
		{name: "one commit, the one before of unknown time", p: Partition{Commits: []Commit{{5, time.Time{}}, {10, at(0)}}, LogEnds: ends(100)}, now: at(300), want: OK, reason: "one commit in the window and none before it"},
		{name: "last commit before the window, time unknown", p: Partition{Commits: []Commit{{Offset: 10}}, LogEnds: ends(100)}, want: STOP, reason: "no commit in the 10m0s window with lag 90"},
		{name: "stopped at the log end", p: Partition{Commits: commits(10, 20), LogEnds: ends(20)}, now: at(3600), want: OK, reason: "caught up"},
	})
}

// Burrow's REWIND (linkedin/Burrow#716; the wiki's page predates it): the
// committed offset went back inside the window and no later commit came
// back to where it was.
func TestRuleRewind(t *testing.T) {
	runRules(t, []ruleCase{
		{name: "reset backwards", p: Partition{Commits: commits(500, 510, 20, 30), LogEnds: ends(600)}, want: REWIND, reason: "offset went back from 510 to 20 at 2026-12-02T12:02:00Z"},
		{name: "caught up since: the log went back", p: Partition{Commits: commits(500, 20), LogEnds: ends(20)}, want: OK, reason: "caught up"},
		{name: "recovered past where it was", p: Partition{Commits: commits(500, 20, 520), LogEnds: ends(600)}, want: OK},
		{name: "recovered to where it was", p: Partition{Commits: commits(500, 20, 500), LogEnds: ends(600)}, want: OK},
		{name: "before the window", p: Partition{Commits: commits(500, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120, 130), LogEnds: ends(1000)}, want: OK},
		// A later rewind recovered from does not hide an earlier one that
		// was not (it did: OK).
		{name: "an earlier rewind not recovered from", p: Partition{Commits: commits(100, 50, 60, 40, 70), LogEnds: ends(200)}, want: REWIND, reason: "offset went back from 100 to 50 at 2026-12-02T12:01:00Z"},
		// A rewind after recovering from an earlier one is a rewind
		// (Burrow looks at the first rewind only: not REWIND there).
		{name: "a second rewind after recovering", p: Partition{Commits: commits(100, 50, 120, 110), LogEnds: ends(200)}, want: REWIND, reason: "offset went back from 120 to 110"},
	})
}

// A rewind the audit log explains is not a fault.
func TestRewindExplained(t *testing.T) {
	p := Partition{Topic: "orders", Partition: 3, Commits: commits(500, 20, 30), LogEnds: ends(600)}
	var asked Rewind
	o := Options{Window: 10 * time.Minute, Now: at(150), Explain: func(r Rewind) (string, bool) {
		asked = r
		return "offsetctl reset (audit 7f3a)", true
	}}
	r := Evaluate(p, o)
	if r.Status != OK || r.Reason != "rewound from 500 to 20 at 2026-12-02T12:01:00Z by offsetctl reset (audit 7f3a)" || r.Lag != 570 {
		t.Fatalf("got %+v", r)
	}
	if asked.Topic != "orders" || asked.Partition != 3 || asked.From.Offset != 500 || asked.To.Offset != 20 || !asked.To.Time.Equal(at(60)) {
		t.Fatalf("explainer asked %+v", asked)
	}
	o.Explain = func(Rewind) (string, bool) { return "", false }
	if r := Evaluate(p, o); r.Status != REWIND {
		t.Fatalf("unexplained: got %+v", r)
	}
}

// A group is its worst partition, naming the deciding ones.
func TestGroupWorstPartition(t *testing.T) {
	stopP := func(part int32) Partition {
		return Partition{Topic: "t", Partition: part, Commits: commits(1), LogEnds: ends(9)}
	}
	ps := []Partition{
		{Topic: "t", Partition: 0, Commits: commits(9), LogEnds: ends(9)},
		stopP(1), {Topic: "t", Partition: 2, Commits: commits(5, 5), LogEnds: ends(9)}, stopP(3), stopP(4), stopP(5),
	}
	g := EvaluateGroup("g", ps, Options{Window: time.Minute, Now: at(3600)})
	if g.Status != STOP || len(g.Deciding) != 5 || len(g.Partitions) != 6 {
		t.Fatalf("got %s deciding %d of %d", g.Status, len(g.Deciding), len(g.Partitions))
	}
	if want := "t/1: no commit for 1h0m0s (window 1m0s) with lag 8; also STOP: t/2, t/3, 2 more"; g.Reason != want {
		t.Fatalf("reason %q, want %q", g.Reason, want)
	}
	if p, ok := g.Lookup("t", 2); !ok || p.Status != STOP {
		t.Fatalf("t/2: %+v %v", p, ok)
	}
	if _, ok := g.Lookup("t", 9); ok {
		t.Fatal("t/9 found")
	}
	ok := EvaluateGroup("g", ps[:1], Options{Window: time.Minute, Now: at(30)})
	if ok.Status != OK || ok.Reason != "all 1 partition(s) OK" || ok.Deciding != nil {
		t.Fatalf("got %+v", ok)
	}
	if e := EvaluateGroup("g", nil, Options{}); e.Status != OK || e.Reason != "no partitions" {
		t.Fatalf("got %+v", e)
	}
	// Partitions without a commit are OK, and the group says so rather
	// than "no partitions".
	bare := []Partition{{Topic: "t", Partition: 0}, {Topic: "t", Partition: 1}}
	if e := EvaluateGroup("g", bare, Options{Window: time.Minute, Now: at(30)}); e.Status != OK || e.Reason != "no committed partitions (2 without a commit to judge)" || e.Partitions[1].Reason != NoCommit {
		t.Fatalf("got %+v", e)
	}
	if e := EvaluateGroup("g", append(bare, ps[0]), Options{Window: time.Minute, Now: at(30)}); e.Status != OK || e.Reason != "all 3 partition(s) OK (2 without a commit to judge)" {
		t.Fatalf("got %+v", e)
	}
	// Two deciding partitions: the reason is the first one's alone.
	two := EvaluateGroup("g", []Partition{stopP(1), {Topic: "t", Partition: 2, Commits: commits(5), LogEnds: ends(9)}}, Options{Window: time.Minute, Now: at(3600)})
	if want := "t/1: no commit for 1h0m0s (window 1m0s) with lag 8; also STOP: t/2"; two.Reason != want {
		t.Fatalf("reason %q, want %q", two.Reason, want)
	}
}

func TestParseStatus(t *testing.T) {
	for _, s := range Statuses() {
		got, err := ParseStatus(" " + strings.ToLower(s.String()))
		if err != nil || got != s {
			t.Fatalf("%s: %v %v", s, got, err)
		}
	}
	if _, err := ParseStatus("ERR"); err == nil || err.Error() != "ERR is not a status: want one of OK, WARN, REWIND, STALL, STOP" {
		t.Fatalf("ERR: %v", err)
	}
	if !(OK < WARN && WARN < REWIND && REWIND < STALL && STALL < STOP) || Status(9).String() != "Status(9)" {
		t.Fatal("order or name")
	}
}

// Durations in reasons are rounded: a watch of 1s measured its rounds
// 999.54621ms apart and said so (QA finding: `lag --watch 1s --status
// --window 2s` showed "did not move in 999.54621ms"). Under a second, two
// significant figures; from a second, whole seconds.
func TestReasonDurationsRounded(t *testing.T) {
	for d, want := range map[time.Duration]string{
		999546210 * time.Nanosecond:          "1s",
		25179567 * time.Nanosecond:           "25ms",
		453217 * time.Microsecond:            "450ms",
		1500 * time.Millisecond:              "2s",
		30*time.Second + 12*time.Millisecond: "30s",
		1234567 * time.Nanosecond:            "1.2ms",
		0:                                    "0s",
	} {
		if got := round(d).String(); got != want {
			t.Errorf("round(%s) = %s, want %s", d, got, want)
		}
	}
	// A sampled stop over rounds 999.54621ms apart, and a window widened
	// by as much.
	p := Partition{Sampled: true, Commits: []Commit{{10, t0}, {10, t0.Add(999546210)}}, LogEnds: []LogEnd{{Offset: 20, Time: t0}, {Offset: 20, Time: t0.Add(999546210)}}}
	r := Evaluate(p, Options{Window: 999546210, Now: t0.Add(999546210)})
	if r.Status != STOP || !strings.Contains(r.Reason, "did not move in 1s with lag 10") {
		t.Errorf("got %s %q, want STOP: did not move in 1s", r.Status, r.Reason)
	}
}
