package audit

import (
	"fmt"

	"github.com/offsetctl/offsetctl/internal/safetext"
)

// NoOutcome is the Error Join gives intent e when its outcome was never
// recorded: what may or may not have happened, and how to find out.
func NoOutcome(e Entry) string {
	what := "the change may or may not have reached the cluster"
	if e.Action == ActBackfill {
		what = fmt.Sprintf("its copies may or may not have reached %s", safetext.Arg(e.Target))
	}
	return fmt.Sprintf("no outcome was recorded (the run was killed, or could not write its log after the change): %s; %s", what, CheckWords(e))
}

// CheckWords says how to find out what change e, of outcome Unknown, did.
// history --verify reads the offsets of the groups a change moved; a
// backfill moved none (it copied records to a topic), so it is told what
// does tell (docs/replay.md): a rerun that resumes from the position its
// --transactional-id committed or its --checkpoint holds, or, with
// neither, the payload digests of the two topics.
func CheckWords(e Entry) string { return CheckWordsBy(e, "offsetctl") }

// CheckWordsBy is CheckWords with prog as the command that reaches the
// entry's cluster and trail (offsetctl and the connection flags given).
func CheckWordsBy(e Entry, prog string) string {
	if e.Action != ActBackfill {
		return "check with: " + prog + " history --verify " + e.ID
	}
	switch {
	case e.TransactionalID != "":
		return fmt.Sprintf("finish it by rerunning the same command: with --transactional-id %s it resumes, exactly once, from the position committed with its copies", safetext.Arg(e.TransactionalID))
	case e.Checkpoint != "":
		return fmt.Sprintf("finish it by rerunning the same command: it resumes from checkpoint %s, counting the records of %s that may be duplicates", safetext.Arg(e.Checkpoint), safetext.Arg(e.Target))
	}
	source := "the source"
	if len(e.Topics) == 1 {
		source = safetext.Arg(e.Topics[0])
	}
	return fmt.Sprintf("it kept no resume point: compare the payload digests of %s and %s (offsetctl replay TOPIC --payload-digest --no-verify --format none, each on its cluster; docs/replay.md) before copying again, as a rerun copies every record again", safetext.Arg(e.Target), source)
}

// Join folds a log's version-2 intents and outcomes into one entry per
// change, in log order: the intent (who, where, the plan, the backup)
// with its outcome's result (outcome, exit code, duration, error, counts,
// and the partitions the outcome names as not changed). An intent whose
// outcome is missing is Unknown with the NoOutcome error. An outcome
// whose intent is missing (a log cut by hand) is kept as it is. A
// self-contained entry is kept, a version-1 "partial" read as Partly.
func Join(entries []Entry) []Entry {
	outcomes := map[string]Entry{}
	intents := map[string]bool{}
	for _, e := range entries {
		switch e.Kind {
		case KindOutcome:
			// A second outcome for one intent is damage: the first,
			// the one its run wrote, counts (as history -o json reads it).
			if _, dup := outcomes[e.Intent]; !dup {
				outcomes[e.Intent] = e
			}
		case KindIntent:
			intents[e.ID] = true
		}
	}
	out := make([]Entry, 0, len(entries))
	for _, e := range entries {
		switch e.Kind {
		case KindOutcome:
			if !intents[e.Intent] {
				e.ForgetUnknownCounts()
				out = append(out, e)
			}
		case KindIntent:
			o, ok := outcomes[e.ID]
			out = append(out, joinOne(e, o, ok))
		default:
			if e.Outcome == Partial {
				e.Outcome = Partly
			}
			e.ForgetUnknownCounts()
			out = append(out, e)
		}
	}
	return out
}

// Orphans is the outcomes among joined (Join's result) whose intent is not
// in the log: Join keeps them as they are, so a log cut or edited by hand
// shows them as changes; the reader says the intent is missing.
func Orphans(joined []Entry) []Entry {
	var out []Entry
	for _, e := range joined {
		if e.Kind == KindOutcome {
			out = append(out, e)
		}
	}
	return out
}

// OrphanWarning is the one line saying orphans' intents are missing ("" for
// none): a trail with a gap says so instead of hiding it.
func OrphanWarning(orphans []Entry) string {
	if len(orphans) == 0 {
		return ""
	}
	first := orphans[0]
	more := ""
	if len(orphans) > 1 {
		more = fmt.Sprintf(" (and %d more)", len(orphans)-1)
	}
	return fmt.Sprintf("outcome %s names intent %s, which is not in the log%s: the log was cut or edited; such outcomes are shown as they are, without the plan or backup their intent held", safetext.Name(first.ID), safetext.Name(first.Intent), more)
}

// JoinPair is intent e joined with its outcome o, as Join joins them.
func JoinPair(e, o Entry) Entry { return joinOne(e, o, true) }

// joinOne is intent e with its outcome o (found: o exists).
func joinOne(e, o Entry, found bool) Entry {
	if !found {
		e.NoOutcome = true
		e.Outcome = Unknown
		e.Error = NoOutcome(e)
		e.Written = nil // what was sent is not known either
		e.ForgetUnknownCounts()
		return e
	}
	if !KnownVersion(o.V) {
		// An outcome this reader cannot read: the change is shown in
		// its version, never acted on (undo refuses it).
		e.V = o.V
	}
	e.Outcome, e.ExitCode, e.DurationMs, e.Error = o.Outcome, o.ExitCode, o.DurationMs, o.Error
	e.Applied, e.Written, e.Changed = o.Applied, o.Written, o.Changed
	e.ForgetUnknownCounts() // logs written before 0 stood for unknown
	e.Records, e.Digest, e.PayloadDigest, e.Proof = o.Records, o.Digest, o.PayloadDigest, o.Proof
	e.Produced, e.PossibleDuplicates = o.Produced, o.PossibleDuplicates
	if o.Target != "" {
		e.Target = o.Target
	}
	if o.Checkpoint != "" {
		e.Checkpoint = o.Checkpoint
	}
	failed := map[changeKey]string{}
	for _, c := range o.Changes {
		failed[changeKey{c.Group, c.Topic, c.Partition}] = c.Error
	}
	changes := make([]Change, len(e.Changes))
	for i, c := range e.Changes {
		if msg, ok := failed[changeKey{c.Group, c.Topic, c.Partition}]; ok {
			c.Error = msg
		}
		changes[i] = c
	}
	e.Changes = changes
	return e
}

type changeKey struct {
	group, topic string
	partition    int32
}

// The matches of Verify: which recorded offset a partition holds now.
const (
	MatchPlanned = "planned"
	MatchBefore  = "before"
	// MatchBoth: the change planned the offset the partition had.
	MatchBoth    = "before and planned"
	MatchNeither = "neither"
)

// VerifyRow is one partition of a change read again now.
type VerifyRow struct {
	Group     string `json:"group"`
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Before    *int64 `json:"before"`
	Planned   *int64 `json:"planned"`
	Now       *int64 `json:"now"`
	Matches   string `json:"matches"`
	// Later is the earliest change recorded after this one that touched
	// the partition (VerifyLater), and what it found there: the offsets
	// now are no evidence of this change when one did.
	Later *Later `json:"later,omitempty"`
}

// Verification is what history --verify says of a change: each planned
// partition, and over all of them which state the groups are in.
type Verification struct {
	ID      string      `json:"id"`
	Outcome string      `json:"outcome"`
	Matches string      `json:"matches"`
	Rows    []VerifyRow `json:"partitions"`
}

// Verify compares the offsets live holds now with e's before and planned
// offsets, partition by partition. Matches over all is MatchPlanned
// when every partition holds its planned offset, MatchBefore when every
// one holds its offset before, "mixed" when each holds one or the other
// but not all the same, else MatchNeither (something else moved it).
func Verify(e Entry, live State) Verification {
	return VerifyLater(e, live, Laters{})
}

// VerifyLater is Verify with the changes recorded after e
// (LaterChanges): each row a later change touched names it. Matches stays
// what the offsets now hold; Later.Matches is what the later change found.
func VerifyLater(e Entry, live State, later Laters) Verification {
	v := Verification{ID: e.ID, Outcome: e.Outcome, Rows: []VerifyRow{}}
	for _, c := range e.Changes {
		now := live[c.Group][c.Topic][c.Partition]
		r := VerifyRow{Group: c.Group, Topic: c.Topic, Partition: c.Partition, Before: c.Before, Planned: c.After, Now: now}
		if l, ok := later.Lookup(c.Group, c.Topic, c.Partition); ok {
			r.Later = &l
		}
		isPlanned, isBefore := sameOffset(now, c.After), sameOffset(now, c.Before)
		switch {
		case isPlanned && isBefore:
			r.Matches = MatchBoth
		case isPlanned:
			r.Matches = MatchPlanned
		case isBefore:
			r.Matches = MatchBefore
		default:
			r.Matches = MatchNeither
		}
		v.Rows = append(v.Rows, r)
	}
	v.Matches = MatchesOver(v.Rows)
	return v
}

// MatchesOver is which state rows are in over all (Verification.Matches):
// MatchPlanned when every one holds its planned offset, MatchBefore when
// every one holds its offset before, "mixed" when each holds one or the
// other but not all the same, else MatchNeither.
func MatchesOver(rows []VerifyRow) string {
	planned, before, neither := true, true, false
	for _, r := range rows {
		switch r.Matches {
		case MatchPlanned:
			before = false
		case MatchBefore:
			planned = false
		case MatchNeither:
			planned, before, neither = false, false, true
		}
	}
	switch {
	case neither:
		return MatchNeither
	case planned:
		return MatchPlanned
	case before:
		return MatchBefore
	}
	return "mixed"
}
