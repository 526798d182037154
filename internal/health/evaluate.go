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
	// puts it a batch or more off the end ListOffsets latest reads. A
	// rise in lag is judged between ends of one kind only (lagGrowing).
	Estimated bool `json:"estimated,omitempty"`
	// Paired: Committed is the offset the same read found committed, so
	// the lag at this end is Offset − Committed with no clock involved.
	// Unpaired ends take the newest commit at or before Time, whose
	// timestamp is the broker's: a broker clock behind the host's would
	// pair an earlier end with a later commit, a lag too low, and a
	// steady consumer's lag would seem to grow (lagGrowing).
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

// Evaluate judges one partition. The rules are tried in this order, the
// first that holds decides (Burrow's evaluator order: rewind, stop, stall,
// then the lag trend).
func Evaluate(p Partition, o Options) Result {
	if len(p.Commits) == 0 || len(p.LogEnds) == 0 {
		return Result{Status: OK, Reason: NoCommit, Lag: -1}
	}
	last := p.Commits[len(p.Commits)-1]
	lag := p.LogEnds[len(p.LogEnds)-1].Offset - last.Offset
	in := inWindow(p.Commits, o.Now.Add(-o.Window))
	if r, ok := rewound(p, in, o.Explain); ok {
		r.Lag = lag
		return r
	}
	// The wiki's rule 1 (any lag of zero in the window is OK) starts from
	// the lag now: a consumer at the log end is well whatever it did.
	if lag <= 0 {
		return Result{Status: OK, Reason: "caught up", Lag: lag}
	}
	for _, rule := range []func(Partition, []Commit, int64, Options) (Result, bool){stopped, stalled, lagGrowing} {
		if r, ok := rule(p, in, lag, o); ok {
			r.Lag = lag
			return r
		}
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

// rewound is REWIND: the committed offset went backwards inside the window
// and has not since come back past where it was (Burrow's REWIND status,
// linkedin/Burrow#716: a rewind the consumer recovered from is judged by
// the other rules). A rewind the Explainer explains is OK, with its text.
func rewound(p Partition, in []Commit, explain Explainer) (Result, bool) {
	for i := len(in) - 1; i > 0; i-- {
		from, to := in[i-1], in[i]
		if to.Offset >= from.Offset {
			continue
		}
		if in[len(in)-1].Offset >= from.Offset {
			return Result{}, false // recovered: past where it was
		}
		rw := Rewind{Topic: p.Topic, Partition: p.Partition, From: from, To: to}
		if explain != nil {
			if why, ok := explain(rw); ok {
				return Result{Status: OK, Reason: fmt.Sprintf("rewound from %d to %d at %s by %s", from.Offset, to.Offset, stamp(to.Time), why)}, true
			}
		}
		return Result{Status: REWIND, Reason: fmt.Sprintf("offset went back from %d to %d at %s", from.Offset, to.Offset, stamp(to.Time))}, true
	}
	return Result{}, false
}

// stopped is STOP, the wiki's rule 4: lag, and the newest commit is older
// than the window, or older than the span from the window's first commit
// to its newest (the time the consumer took to make its last commits).
// From samples, it is an offset that did not move at all.
func stopped(p Partition, in []Commit, lag int64, o Options) (Result, bool) {
	last := p.Commits[len(p.Commits)-1]
	idle := o.Now.Sub(last.Time)
	if p.Sampled {
		if len(in) > 1 && in[0].Offset == last.Offset {
			return Result{Status: STOP, Reason: fmt.Sprintf("offset %d did not move in %s with lag %d (sampled: a stall looks the same)", last.Offset, round(last.Time.Sub(in[0].Time)), lag)}, true
		}
		return Result{}, false
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
func stalled(p Partition, in []Commit, lag int64, _ Options) (Result, bool) {
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

// lagGrowing is WARN, the wiki's rule 3: the offset moves, but the lag at
// every point of the window is at least the one before, and the last is
// greater than the first (the consumer is not keeping up). A point is a
// log end observed in the window against the offset committed by then; a
// lag of zero at any point is OK (rule 1). The lag must have risen
// between two points whose log ends are of one kind (both Estimated or
// both read): from a listed end to a read one the lag is as likely to
// rise by the listing's error as by the consumer's, which made a steady
// consumer WARN (a fall there still rules WARN out).
func lagGrowing(p Partition, in []Commit, _ int64, o Options) (Result, bool) {
	since := o.Now.Add(-o.Window)
	var lags []int64
	var prev LogEnd
	rose := false
	for _, e := range p.LogEnds {
		c, ok := committedAt(p.Commits, e.Time)
		if e.Paired {
			c, ok = e.Committed, true
		}
		if e.Time.Before(since) || !ok {
			continue
		}
		l, n := e.Offset-c, len(lags)
		if l <= 0 || (n > 0 && l < lags[n-1]) {
			return Result{}, false
		}
		if n > 0 && l > lags[n-1] && e.Estimated == prev.Estimated {
			rose = true
		}
		lags, prev = append(lags, l), e
	}
	if !rose || !moved(p.Commits, since) {
		return Result{}, false
	}
	return Result{Status: WARN, Reason: fmt.Sprintf("lag grew from %d to %d at each of %d points in %s", lags[0], lags[len(lags)-1], len(lags), round(o.Window))}, true
}

// moved reports whether the committed offset went up inside the window:
// lag that grows under an offset that does not move is a STALL or STOP
// question (or, with one commit, too little to judge), not a WARN.
func moved(cs []Commit, since time.Time) bool {
	in := inWindow(cs, since)
	return len(in) > 1 && in[len(in)-1].Offset > in[0].Offset
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

// logEndAt is the log end known at t: the newest observation at or before
// t, else the oldest (a log end never moves back, so that is the least
// wrong guess).
func logEndAt(ends []LogEnd, t time.Time) int64 {
	at := ends[0].Offset
	for _, e := range ends {
		if e.Time.After(t) {
			break
		}
		at = e.Offset
	}
	return at
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
