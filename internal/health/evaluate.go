package health

import (
	"fmt"
	"time"
)

// Commit is one observation of a partition's committed offset: a commit
// read from __consumer_offsets (Time is the commit's timestamp), or a
// sample of the committed offset (Time is when it was read).
type Commit struct {
	Offset int64     `json:"offset"`
	Time   time.Time `json:"time"`
}

// LogEnd is one observation of a partition's log end offset.
type LogEnd struct {
	Offset int64     `json:"offset"`
	Time   time.Time `json:"time"`
	// Estimated: listed by timestamp at a commit's time (the first offset
	// written at or after it), not read as the log end then: a batch
	// written in that millisecond, or by a producer whose clock is off,
	// puts it a batch or more off the end ListOffsets latest reads. It is
	// a point of the lag trend (lagPoints) but never a sign that the
	// consumer was caught up lately (caughtUpLately).
	Estimated bool `json:"estimated,omitempty"`
	// Paired: Committed is the offset the same read found committed, so
	// the lag at this end is Offset − Committed with no clock involved.
	// Unpaired ends take the newest commit at or before Time, whose
	// timestamp is the broker's: a broker clock behind the host's would
	// pair an earlier end with a later commit, a lag too low, and a
	// steady consumer's lag would seem to grow (lagPoints).
	Paired    bool  `json:"-"`
	Committed int64 `json:"-"`
}

// Partition is what is known of one partition of a group: its commits,
// oldest first (the newest may be older than the window: it is then the
// last commit known; a zero Time says only that it is older than the
// window), and its log ends, oldest first, the last one current.
type Partition struct {
	Topic     string
	Partition int32
	Commits   []Commit
	LogEnds   []LogEnd
	// Sampled says the commits are samples of the committed offset, not
	// commits: a consumer that commits the same offset again cannot be
	// told from one that commits nothing, so STALL is not decided and an
	// offset that did not move with lag is STOP.
	Sampled bool
}

// Rewind is a committed offset that went backwards, for an Explainer.
type Rewind struct {
	Group     string // set by EvaluateGroup
	Topic     string
	Partition int32
	From, To  Commit
}

// Explainer says why a rewind happened when something known did it (an
// offsetctl reset recorded in the audit log): the text, and true. A
// rewind explained is not a fault.
type Explainer func(Rewind) (string, bool)

// Options are the evaluation's inputs besides the observations.
type Options struct {
	Window  time.Duration
	Now     time.Time
	Explain Explainer // nil: no rewind is explained
}

// Result is a partition's status and why.
type Result struct {
	Status Status
	Reason string
	// Lag is the lag now (the last log end less the last commit), -1 when
	// unknown (no commit or no log end).
	Lag int64
}

// NoCommit is the reason of a partition with no commit (or no log end)
// to judge: OK, as Burrow's rule 1 has it.
const NoCommit = "no commit to judge"

// Evaluate judges one partition. The rules are tried in Burrow's order
// (its evaluator, core/internal/evaluator/caching.go), the first that
// holds decides: no lag now is OK; REWIND (Burrow tries it after STOP:
// docs/health.md says why not here); STOP, unless a log end read lately
// was at or below the newest commit; any lag of zero in the window is OK;
// STALL; WARN, the lag never falling from one point to the next while the
// offset moves; else OK.
func Evaluate(p Partition, o Options) Result {
	if len(p.Commits) == 0 || len(p.LogEnds) == 0 {
		return Result{Status: OK, Reason: NoCommit, Lag: -1}
	}
	last := p.Commits[len(p.Commits)-1]
	lag := p.LogEnds[len(p.LogEnds)-1].Offset - last.Offset
	// A consumer at its log end is well whatever it did before (Burrow
	// judges nothing, a rewind included, without lag now: a rewind left at
	// the log end is a log that went back, a topic recreated or truncated,
	// not a consumer to look at).
	if lag <= 0 {
		return Result{Status: OK, Reason: "caught up", Lag: lag}
	}
	since := o.Now.Add(-o.Window)
	in := inWindow(p.Commits, since)
	if r, ok := rewound(p, in, o.Explain); ok {
		r.Lag = lag
		return r
	}
	if r, ok := stopped(p, in, lag, o); ok {
		r.Lag = lag
		return r
	}
	pts := lagPoints(p, since)
	// The wiki's rule 1, where Burrow's code puts it: after STOP and
	// REWIND, before STALL and WARN.
	for _, pt := range pts {
		if pt.lag <= 0 {
			return Result{Status: OK, Reason: fmt.Sprintf("lag was 0 at %s, inside the %s window (%d now)", stamp(pt.at), round(o.Window), lag), Lag: lag}
		}
	}
	if r, ok := stalled(p, in, lag); ok {
		r.Lag = lag
		return r
	}
	if r, ok := lagNotFalling(in, pts); ok {
		r.Lag = lag
		return r
	}
	if len(in) == 1 {
		if _, ok := commitSpan(p.Commits, in); !ok {
			return Result{Status: OK, Reason: fmt.Sprintf("one commit in the window and none before it: too few to judge a stop until it is %s old", round(o.Window)), Lag: lag}
		}
	}
	return Result{Status: OK, Reason: "committing and not falling behind", Lag: lag}
}

// inWindow is the commits at or after since.
func inWindow(cs []Commit, since time.Time) []Commit {
	for i, c := range cs {
		if !c.Time.Before(since) {
			return cs[i:]
		}
	}
	return nil
}

// atWord is how a reason places a commit in time: "at" its time, or,
// from samples, "seen by" the sample that found it (the commit came
// between that sample and the one before).
func atWord(p Partition) string {
	if p.Sampled {
		return "seen by"
	}
	return "at"
}

// rewound is REWIND: the committed offset went backwards inside the window
// and no later commit came back to where it was (Burrow's REWIND status,
// linkedin/Burrow#716: a rewind the consumer recovered from is judged by
// the other rules). Every rewind in the window is looked at, the newest
// first. Burrow looks at the first only, so a second rewind after the
// consumer recovered from the first passes there; offsetctl looked at the
// newest only, so a rewind recovered from hid an earlier one that was not
// (offsets 100, 50, 60, 40, 70 were not REWIND). A rewind the Explainer
// explains is not a fault: when every unrecovered rewind is explained, the
// partition is OK with the newest one's text.
func rewound(p Partition, in []Commit, explain Explainer) (Result, bool) {
	var explained *Result
	for i := len(in) - 1; i > 0; i-- {
		from, to := in[i-1], in[i]
		if to.Offset >= from.Offset || recovered(in[i:], from.Offset) {
			continue
		}
		rw := Rewind{Topic: p.Topic, Partition: p.Partition, From: from, To: to}
		if explain != nil {
			if why, ok := explain(rw); ok {
				if explained == nil {
					when := "at " + stamp(to.Time)
					if p.Sampled {
						when = "(seen by " + stamp(to.Time) + ")"
					}
					explained = &Result{Status: OK, Reason: fmt.Sprintf("rewound from %d to %d %s by %s", from.Offset, to.Offset, when, why)}
				}
				continue
			}
		}
		return Result{Status: REWIND, Reason: fmt.Sprintf("offset went back from %d to %d %s %s", from.Offset, to.Offset, atWord(p), stamp(to.Time))}, true
	}
	if explained != nil {
		return *explained, true
	}
	return Result{}, false
}

// recovered reports whether a commit of after came back to offset
// (Burrow's checkIfRewindRecovered).
func recovered(after []Commit, offset int64) bool {
	for _, c := range after {
		if c.Offset >= offset {
			return true
		}
	}
	return false
}

// stopped is STOP, the wiki's rule 4: lag, and the newest commit is older
// than the window, or older than the span from the window's first commit
// to its newest (the time the consumer took to make its last commits).
// From samples, it is an offset that did not move at all. Not while the
// consumer was caught up lately (caughtUpLately): it may only now have
// something to consume.
func stopped(p Partition, in []Commit, lag int64, o Options) (Result, bool) {
	last := p.Commits[len(p.Commits)-1]
	if caughtUpLately(p, o.Now.Add(-o.Window)) {
		return Result{}, false
	}
	idle := o.Now.Sub(last.Time)
	if p.Sampled {
		// Samples do not say when the consumer commits: one that
		// commits every minute is still between samples 30s apart, and
		// two samples called it STOP. As Burrow's rule 4 asks of
		// commits, the offset must stand longer than the span of the
		// moves seen (the time the consumer's last commits took); with
		// fewer than two moves seen, for the whole window, and until
		// then it is WARN, never OK. Standing within its usual span, it
		// is judged by the rules after this one.
		from := unmovedFrom(p.Commits)
		if !from.Before(last.Time) {
			return Result{}, false // it moved at the last sample
		}
		still := last.Time.Sub(from)
		span, moved := moveSpan(p.Commits)
		switch {
		case moved && still > span:
			return Result{Status: STOP, Reason: fmt.Sprintf("offset %d did not move in %s, longer than the %s its last moves took, with lag %d (sampled)", last.Offset, round(still), round(span), lag)}, true
		case moved:
			return Result{}, false
		case still >= o.Window:
			return Result{Status: STOP, Reason: fmt.Sprintf("offset %d did not move in %s with lag %d (sampled: a stall looks the same)", last.Offset, round(still), lag)}, true
		}
		return Result{Status: WARN, Reason: fmt.Sprintf("offset %d did not move in %s with lag %d: STOP once it stands for the %s window (sampled: a consumer that commits less often looks the same until then)", last.Offset, round(still), lag, round(o.Window))}, true
	}
	if len(in) == 0 {
		if last.Time.IsZero() { // known only as older than the window
			return Result{Status: STOP, Reason: fmt.Sprintf("no commit in the %s window with lag %d", round(o.Window), lag)}, true
		}
		return Result{Status: STOP, Reason: fmt.Sprintf("no commit for %s (window %s) with lag %d", round(idle), round(o.Window), lag)}, true
	}
	if span, ok := commitSpan(p.Commits, in); ok && idle > span {
		return Result{Status: STOP, Reason: fmt.Sprintf("no commit for %s, longer than the %s its last commits took, with lag %d", round(idle), round(span), lag)}, true
	}
	return Result{}, false
}

// unmovedFrom is the time of the oldest of the newest commits that all
// hold the newest offset: since when it has stood, as far as seen.
func unmovedFrom(cs []Commit) time.Time {
	i := len(cs) - 1
	for i > 0 && cs[i-1].Offset == cs[i].Offset {
		i--
	}
	return cs[i].Time
}

// moveSpan is the time from the first to the last move seen in samples
// cs (a sample whose offset differs from the one before), ok with two
// moves or more: how long the consumer's last commits took, as far as
// samples tell.
func moveSpan(cs []Commit) (time.Duration, bool) {
	var first, last time.Time
	n := 0
	for i := 1; i < len(cs); i++ {
		if cs[i].Offset != cs[i-1].Offset {
			if n == 0 {
				first = cs[i].Time
			}
			last = cs[i].Time
			n++
		}
	}
	return last.Sub(first), n >= 2
}

// recentEnds is how many of the newest log ends read say whether a
// consumer was caught up lately: Burrow keeps the last 10 (its
// intervals) it read.
const recentEnds = 10

// caughtUpLately reports whether one of the recentEnds newest log ends
// read since the consumer first committed its newest offset (and in the
// window, from since on) is at or below that offset: the consumer had
// nothing to consume then, so its silence is not a stop yet (Burrow's
// checkIfRecentLagZero: a consumer idle at its log end that has just been
// written to is not STOP before it could commit; the partition is then
// judged by the zero lag, OK). Ends listed by timestamp at the commit
// times (Estimated) do not count: they are estimates of the past, and
// counting them would hold a STOP back for as long as the commit stays in
// the window. An end read before the offset was committed says nothing of
// the consumer since.
func caughtUpLately(p Partition, since time.Time) bool {
	cs := p.Commits
	last := cs[len(cs)-1]
	from := last.Time
	for i := len(cs) - 2; i >= 0 && cs[i].Offset == last.Offset; i-- {
		from = cs[i].Time
	}
	if from.Before(since) {
		from = since
	}
	seen := 0
	for i := len(p.LogEnds) - 1; i >= 0 && seen < recentEnds; i-- {
		e := p.LogEnds[i]
		if e.Estimated {
			continue
		}
		if e.Time.Before(from) {
			break
		}
		if e.Offset <= last.Offset {
			return true
		}
		seen++
	}
	return false
}

// commitSpan is the time the consumer took to make its last commits: from
// the window's first commit to its newest, or, with one commit in the
// window, from the commit before it (Burrow keeps its last commits by
// count, so a consumer that committed once in the window and stopped is
// judged against its previous commit). With no earlier commit of known
// time there is no span to judge by.
func commitSpan(all, in []Commit) (time.Duration, bool) {
	last := all[len(all)-1]
	if len(in) > 1 {
		return last.Time.Sub(in[0].Time), true
	}
	if len(all) > 1 && !all[len(all)-2].Time.IsZero() {
		return last.Time.Sub(all[len(all)-2].Time), true
	}
	return 0, false
}

// stalled is STALL, the wiki's rule 2: commits keep coming in the window
// but the offset does not change, while there is lag.
func stalled(p Partition, in []Commit, lag int64) (Result, bool) {
	if p.Sampled || len(in) < 2 || in[0].Offset != in[len(in)-1].Offset {
		return Result{}, false
	}
	for _, c := range in {
		if c.Offset != in[0].Offset {
			return Result{}, false
		}
	}
	return Result{Status: STALL, Reason: fmt.Sprintf("%d commits of offset %d in %s with lag %d", len(in), in[0].Offset, round(in[len(in)-1].Time.Sub(in[0].Time)), lag)}, true
}

// point is the lag at one log end of the window: the end less the offset
// committed by then.
type point struct {
	at  time.Time
	lag int64
}

// lagPoints is the lag at each log end observed in the window (since on),
// oldest first: a log end against the offset the same read found
// committed (Paired), else against the newest commit at or before it; an
// end with no commit known by then has no point (Burrow: a commit whose lag
// is not known yet).
func lagPoints(p Partition, since time.Time) []point {
	var pts []point
	for _, e := range p.LogEnds {
		c, ok := committedAt(p.Commits, e.Time)
		if e.Paired {
			c, ok = e.Committed, true
		}
		if e.Time.Before(since) || !ok {
			continue
		}
		pts = append(pts, point{at: e.Time, lag: e.Offset - c})
	}
	return pts
}

// lagNotFalling is WARN, the wiki's rule 3 as Burrow's
// checkIfLagNotDecreasing has it: the offset moves, but the lag never
// falls from one point of the window to the next; a lag that stays the
// same counts (the consumer is not catching up). Two points at least (one
// says nothing of a trend), every lag above zero (rule 1, judged before).
// The reason gives the time the points cover, not the window.
func lagNotFalling(in []Commit, pts []point) (Result, bool) {
	if len(pts) < 2 || len(in) < 2 || in[len(in)-1].Offset <= in[0].Offset {
		return Result{}, false
	}
	for i := 1; i < len(pts); i++ {
		if pts[i].lag < pts[i-1].lag {
			return Result{}, false
		}
	}
	first, last := pts[0], pts[len(pts)-1]
	span := round(last.at.Sub(first.at))
	moved := fmt.Sprintf("while the offset moved from %d to %d", in[0].Offset, in[len(in)-1].Offset)
	if first.lag == last.lag {
		return Result{Status: WARN, Reason: fmt.Sprintf("lag stayed at %d at %d points over %s %s", first.lag, len(pts), span, moved)}, true
	}
	return Result{Status: WARN, Reason: fmt.Sprintf("lag grew from %d to %d, never falling, at %d points over %s %s", first.lag, last.lag, len(pts), span, moved)}, true
}

// committedAt is the offset committed at t: the newest commit at or
// before it.
func committedAt(cs []Commit, t time.Time) (int64, bool) {
	off, ok := int64(0), false
	for _, c := range cs {
		if c.Time.After(t) {
			break
		}
		off, ok = c.Offset, true
	}
	return off, ok
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// round is a duration as a reason says it: whole seconds from a second,
// two significant figures under it (a watch of 1s measured its rounds
// 999.54621ms apart: 1s; a sampling of a few ms: 25ms).
func round(d time.Duration) time.Duration {
	if d >= time.Second {
		return d.Round(time.Second)
	}
	unit := time.Duration(1)
	for lim := 100 * time.Nanosecond; lim <= d; lim *= 10 {
		unit *= 10
	}
	return d.Round(unit)
}
