package admin

// Requests answered per partition (OffsetCommit, OffsetDelete,
// TxnOffsetCommit, AlterShareGroupOffsets) or per topic
// (DeleteShareGroupOffsets): every partition asked for must be named in
// the answer. One the answer leaves out is not acknowledged: its row gets
// an error saying so, never a success, and what the read-back then finds
// decides whether it changed. kadm fills a partition its OffsetCommit
// answer left out with an error of its own (not a broker error code) and
// fills nothing for the other requests; an answer naming the topic by an
// id not asked for leaves the topic's name empty.

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/offsetctl/offsetctl/internal/lag"
	"github.com/offsetctl/offsetctl/internal/safetext"
	"github.com/offsetctl/offsetctl/internal/textlist"
)

// notNamed is the error of a partition (or topic) the broker's answer did
// not name: what was asked for (committed, deleted, set) is not known to
// have happened.
func notNamed(what string) string {
	return "the broker's answer did not name it: not known to be " + what
}

// answerGaps is what an answer left out: the partitions asked for that it
// does not name, and what it named that was not asked for (stray).
type answerGaps struct {
	missing []lag.TP
	stray   map[strayKey][]int32
}

// note is what the error of a missing partition adds about the stray
// answers: " (it named partitions not asked for: ...)", or "".
func (g answerGaps) note() string { return strayNote("partitions", g.stray) }

// brokerAnswered reports whether err (a partition's answer) is the
// broker's: none, or a broker error code. Any other error is the client's
// own for a partition the answer did not name (kadm's "partition missing
// in commit response").
func brokerAnswered(err error) bool {
	var ke *kerr.Error
	return err == nil || errors.As(err, &ke)
}

// commitGaps compares an OffsetCommit's answers (kadm's, in resp) with the
// offsets asked for. The answers are read by their keys: kadm's
// OffsetResponse of a partition not asked for is the zero Offset (topic
// "", partition 0) with the answer's error.
func commitGaps(asked kadm.Offsets, resp kadm.OffsetResponses) answerGaps {
	answered := map[lag.TP]bool{}
	g := answerGaps{stray: map[strayKey][]int32{}}
	for t, ps := range resp {
		for p, r := range ps {
			if _, ok := asked.Lookup(t, p); !ok {
				g.addStray(kadm.OffsetResponse{Offset: kadm.Offset{Topic: t, Partition: p}, Err: r.Err})
				continue
			}
			answered[lag.TP{Topic: t, Partition: p}] = brokerAnswered(r.Err)
		}
	}
	for _, o := range asked.Sorted() {
		if k := (lag.TP{Topic: o.Topic, Partition: o.Partition}); !answered[k] {
			g.missing = append(g.missing, k)
		}
	}
	return g
}

// partitionGaps compares answers per partition (OffsetDelete's,
// AlterShareGroupOffsets') with the partitions asked for.
func partitionGaps(asked kadm.TopicsSet, resp map[string]map[int32]error) answerGaps {
	g := answerGaps{stray: map[strayKey][]int32{}}
	for t, ps := range resp {
		for p, err := range ps {
			if !asked.Lookup(t, p) {
				g.addStray(kadm.OffsetResponse{Offset: kadm.Offset{Topic: t, Partition: p}, Err: err})
			}
		}
	}
	for _, tp := range asked.Sorted() {
		for _, p := range tp.Partitions {
			err, ok := resp[tp.Topic][p]
			if !ok || !brokerAnswered(err) {
				g.missing = append(g.missing, lag.TP{Topic: tp.Topic, Partition: p})
			}
		}
	}
	return g
}

func (g *answerGaps) addStray(r kadm.OffsetResponse) {
	k := strayOf(r)
	g.stray[k] = append(g.stray[k], r.Partition)
}

// strayKey groups the answers to partitions that were not asked for:
// their topic, by name, or as an id not asked for
// when commitBatch could not name it, and their error code.
type strayKey struct{ topic, err string }

func strayOf(r kadm.OffsetResponse) strayKey {
	k := strayKey{topic: "a topic id not asked for", err: "no error"}
	if r.Topic != "" {
		k.topic = "topic " + safetext.Arg(r.Topic)
	}
	var ke *kerr.Error
	switch {
	case errors.As(r.Err, &ke):
		k.err = ke.Message
	case r.Err != nil:
		k.err = r.Err.Error()
	}
	return k
}

// strayNote says what an answer named that was not asked for (what: its
// kind, "partitions" or "topics"): " (it named what not asked for: topic
// T partition 0, 1: ERR; ...)", sorted by topic and error, at most three
// groups and five partitions each; "" when nothing. A stray of no
// partitions is a topic's answer ("topic T: ERR").
func strayNote(what string, stray map[strayKey][]int32) string {
	if len(stray) == 0 {
		return ""
	}
	keys := slices.SortedFunc(maps.Keys(stray), func(a, b strayKey) int {
		return cmp.Or(strings.Compare(a.topic, b.topic), strings.Compare(a.err, b.err))
	})
	named := make([]string, len(keys))
	for i, sk := range keys {
		ps := slices.Sorted(slices.Values(stray[sk]))
		if len(ps) == 0 {
			named[i] = fmt.Sprintf("%s: %s", sk.topic, sk.err)
			continue
		}
		words := make([]string, len(ps))
		for j, p := range ps {
			words[j] = fmt.Sprint(p)
		}
		named[i] = fmt.Sprintf("%s partition %s: %s", sk.topic, textlist.Short(words, 5, ", "), sk.err)
	}
	return fmt.Sprintf(" (it named %s not asked for: %s)", what, textlist.Short(named, 3, "; "))
}

// settleUnnamed judges, once the execution's read-back is in (fetched;
// read false when there is none: it failed, or is not this run's), each
// partition of unnamed, which the broker's answers did not name: it holds
// what was planned (Applied true: it changed all the same), it is as it
// was (Applied false), or neither or not read (Applied nil: whether this
// run changed it is unknown). What the read-back found is added to its
// error, which stays: the broker never acknowledged it.
func settleUnnamed(gp *GroupPlan, unnamed map[lag.TP]bool, fetched kadm.OffsetResponses, read bool) {
	for i := range gp.Partitions {
		pp := &gp.Partitions[i]
		if !unnamed[lag.TP{Topic: pp.Topic, Partition: pp.Partition}] {
			continue
		}
		pp.Applied = nil
		pp.Unacked = true
		if !read {
			continue
		}
		o, ok := fetched.Lookup(pp.Topic, pp.Partition)
		if ok && o.Err != nil {
			pp.Error += fmt.Sprintf("; reading it back failed: %v", o.Err)
			continue
		}
		var now *int64
		if ok && o.At >= 0 {
			now = &o.At
		}
		planned := pp.Target
		if pp.Action == ActDelete {
			planned = nil
		}
		word := offsetWord(now, gp.GroupType == lag.ShareType)
		switch {
		case sameOffset(now, planned):
			pp.Applied = new(true)
			pp.Error += "; read back: it holds what was planned (" + word + ") all the same"
		case sameOffset(now, pp.Current):
			pp.Applied = new(false)
			pp.Error += "; read back: unchanged (" + word + ")"
		default:
			pp.Error += "; read back: " + word + ", neither what was planned nor what it was"
		}
	}
}

func sameOffset(a, b *int64) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

// offsetWord is an offset read back, in words: "committed N" or "no
// commit", a share group's "start offset N" or "no start offset".
func offsetWord(at *int64, share bool) string {
	switch {
	case at == nil && share:
		return "no start offset"
	case at == nil:
		return "no commit"
	case share:
		return fmt.Sprintf("start offset %d", *at)
	}
	return fmt.Sprintf("committed %d", *at)
}

// unnamedOutcome is the outcome of an execution some of whose partitions
// the broker's answers did not name (settleUnnamed judged them): never
// applied or unverified, which say the broker acknowledged every planned
// change. Partly when some partition changed (acknowledged, or an
// unnamed one read back as planned, where that moves it), failed when the
// read-back shows nothing changed, unknown when nothing was acknowledged
// and the read-back could not tell for some unnamed partition.
func unnamedOutcome(gp *GroupPlan, unnamed map[lag.TP]bool) string {
	undetermined := false
	for _, pp := range gp.Partitions {
		if pp.Action == ActSkip {
			continue
		}
		if !unnamed[lag.TP{Topic: pp.Topic, Partition: pp.Partition}] {
			if !RefusedErr(pp.Error) {
				return OutcomePartly // acknowledged
			}
			continue
		}
		switch {
		case pp.Applied == nil:
			undetermined = true
		case *pp.Applied && pp.moves():
			return OutcomePartly
		}
	}
	if undetermined {
		return OutcomeUnknown
	}
	return OutcomeFailed
}

// moves says whether the partition's plan moves it: deletes a commit, or
// commits an offset it does not hold.
func (pp PartitionPlan) moves() bool {
	if pp.Action == ActDelete {
		return pp.Current != nil
	}
	return !sameOffset(pp.Current, pp.Target)
}

// RefusedErr says whether a partition's error is the commit's or the
// delete's own (refused, or not named in the answer): not acknowledged.
func RefusedErr(e string) bool {
	return strings.HasPrefix(e, commitErrPrefix) || strings.HasPrefix(e, deleteErrPrefix)
}

// markPartly says, of every planned partition of a partly changed group
// but those of unnamed (settleUnnamed judged them), whether it was
// applied: acknowledged (even if the read-back differs: "verify: ") or
// not (refused). The audit counts a partly changed group's partitions
// from that; without it, a --non-atomic reset with one partition refused
// recorded none of the others as changed.
func markPartly(gp *GroupPlan, unnamed map[lag.TP]bool) {
	if gp.Outcome != OutcomePartly {
		return
	}
	for i := range gp.Partitions {
		pp := &gp.Partitions[i]
		if pp.Action == ActSkip || unnamed[lag.TP{Topic: pp.Topic, Partition: pp.Partition}] {
			continue
		}
		pp.Applied = new(!RefusedErr(pp.Error))
	}
}

// settleOutcome finishes a group's outcome once its read-back was
// compared with the plan (verifyReadBack, verifiedOutcome; read false
// when there is no read-back of this run): the partitions of unnamed,
// which the broker's answers did not name, are judged by what the
// read-back found and decide the outcome with the others
// (unnamedOutcome), and a partly changed group says of each partition
// whether it was applied.
func settleOutcome(gp *GroupPlan, unnamed map[lag.TP]bool, fetched kadm.OffsetResponses, read bool) {
	if len(unnamed) > 0 {
		settleUnnamed(gp, unnamed, fetched, read)
		gp.Outcome = unnamedOutcome(gp, unnamed)
	}
	markPartly(gp, unnamed)
}

// settleNotNamed judges, by the read-back after a delete-offsets (fetched;
// read false when it failed), each row of unnamed (indexes), whose delete
// the broker's answer did not name: one still committed was not deleted
// (it stays failed, saying at what); one without a commit now, or not
// read back, may have been deleted by it (Unanswered: never "failed",
// which would promise it is still there, and the restore line covers
// it), but was never acknowledged. What the read-back found is added to
// its error.
func (p *DeleteOffsetsPlan) settleNotNamed(unnamed map[int]bool, fetched kadm.OffsetResponses, read bool) {
	for i := range p.Partitions {
		if !unnamed[i] {
			continue
		}
		r := &p.Partitions[i]
		o, ok := fetched.Lookup(r.Topic, r.Partition)
		switch {
		case !read:
			r.Unanswered = true
			r.Error += "; not read back, so whether it was deleted is unknown"
		case ok && o.Err != nil:
			r.Unanswered = true
			r.Error += fmt.Sprintf("; reading it back failed (%v), so whether it was deleted is unknown", o.Err)
		case ok && o.At >= 0 && p.GroupType == lag.ShareType:
			r.Error += fmt.Sprintf("; read back: start offset still %d", o.At)
		case ok && o.At >= 0:
			r.Error += fmt.Sprintf("; read back: still committed at %d", o.At)
		default:
			r.Unanswered = true
			r.Error += "; read back: " + offsetWord(nil, p.GroupType == lag.ShareType) + " now, so it may have been deleted all the same"
		}
	}
}
