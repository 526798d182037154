package audit

import (
	"sort"
	"strings"
	"time"
)

// Later is a change recorded after another entry that touched one of its
// partitions, and what it recorded of that partition. A change's intent
// holds each partition's offset as the change found it, read before it
// sent anything: of an earlier change whose outcome is unknown, the only
// evidence left once another change has moved the partition (the offsets
// now are that later change's doing, or of one after it).
type Later struct {
	ID      string    `json:"id"`
	Time    time.Time `json:"time"`
	Action  string    `json:"action"`
	Outcome string    `json:"outcome"`
	// UndoOf is, for an undo, the entry it undid.
	UndoOf string `json:"undo_of,omitempty"`
	// Found is the partition's offset as the later change found it (its
	// before; nil: no commit).
	Found *int64 `json:"found"`
	// Matches says which offset of the earlier entry Found is
	// (MatchPlanned, MatchBefore, MatchBoth, MatchNeither), or
	// MatchUnread when the later change's record of the partition
	// cannot be read.
	Matches string `json:"matches"`
	// ClusterUnknown: the later change or the entry records no cluster
	// id, so the later change may be another cluster's (same group and
	// topic names): it counts as touching, and what it found is no
	// evidence.
	ClusterUnknown bool `json:"cluster_unknown,omitempty"`
	// NoMove: the later change left the partition where it found it
	// (its record is read, written without error, Before equal to
	// After: a reset --to current). A restore over it reverts nothing
	// of it; what it found is still evidence.
	NoMove bool `json:"-"`
}

// MatchUnread is a Later whose record cannot be read: an entry in a
// format this offsetctl does not know, or whose changes file was not
// read. It may have changed the partition; what it found is not known.
const MatchUnread = "not readable"

// Laters maps each partition of an entry to the changes recorded after it
// that touched the partition (LaterChanges): the earliest is the evidence
// of what the entry left there; every one of them would be reverted by a
// restore of the entry's backup.
type Laters struct{ m map[changeKey][]Later }

// Lookup returns the earliest later change of a partition.
func (l Laters) Lookup(group, topic string, partition int32) (Later, bool) {
	vs := l.m[changeKey{group, topic, partition}]
	if len(vs) == 0 {
		return Later{}, false
	}
	first := vs[0]
	for _, v := range vs[1:] {
		if v.ID < first.ID {
			first = v
		}
	}
	return first, true
}

// Len is the number of partitions a later change touched.
func (l Laters) Len() int { return len(l.m) }

// In is l of the partitions of groups only.
func (l Laters) In(groups []string) Laters {
	out := Laters{m: map[changeKey][]Later{}}
	for k, vs := range l.m {
		if contains(groups, k.group) {
			out.m[k] = vs
		}
	}
	return out
}

// Changes are every later change that touched one of the partitions, not
// only the earliest of each, each once, in id order (Found and Matches
// left out: they are per partition).
func (l Laters) Changes() []Later {
	seen := map[string]bool{}
	var out []Later
	for _, vs := range l.m {
		for _, v := range vs {
			if !seen[v.ID] {
				seen[v.ID] = true
				v.Found, v.Matches = nil, ""
				out = append(out, v)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Standing is l without the later changes that an undo recorded after
// them restored completely (outcome applied or unverified), nor those
// undos: undone, a later change is no longer there for a restore of the
// entry's backup to revert. An undo undone in turn stands no more, and
// the change it undid stands again. An undo of the entry itself stays:
// it says the entry was undone already.
func (l Laters) Standing() Laters {
	all := l.Changes()
	in := map[string]bool{}
	for _, c := range all {
		in[c.ID] = true
	}
	gone := map[string]bool{}
	for i := len(all) - 1; i >= 0; i-- { // the latest undo first
		u := all[i]
		if !gone[u.ID] && u.Action == ActUndo && (u.Outcome == Applied || u.Outcome == Unverified) && in[u.UndoOf] {
			gone[u.ID], gone[u.UndoOf] = true, true
		}
	}
	return l.keep(func(v Later) bool { return !gone[v.ID] })
}

// keep is l with the later changes for which ok holds.
func (l Laters) keep(ok func(Later) bool) Laters {
	out := Laters{m: map[changeKey][]Later{}}
	for k, vs := range l.m {
		for _, v := range vs {
			if ok(v) {
				out.m[k] = append(out.m[k], v)
			}
		}
	}
	return out
}

// Moving is l without the later changes that moved nothing (NoMove): a
// restore of the entry's backup reverts nothing of those, so they are no
// reason to refuse it. A partition still moved by them since the entry is
// what the restore's check of the offsets now finds (Moved).
func (l Laters) Moving() Laters {
	return l.keep(func(v Later) bool { return !v.NoMove })
}

// LaterChanges finds, for each partition of e, the entries after e that
// touched it (Lookup gives the earliest): each an entry whose id sorts
// after e's (ids sort by the time a command started, history's order) of
// a change to offsets (reset, undo, delete-offsets, delete-group)
// whatever its outcome, but refused and failed (they changed nothing),
// that lists the partition as written or maybe written (no error, or a
// read-back's "verify: " one). entries
// are joined entries (Join); e itself, outcomes without their intent and
// entries of other groups are passed over.
//
// An entry whose record cannot be read (a format version this offsetctl
// does not know, or changes kept in a file that was not read) touched,
// as far as anyone can tell, every partition of e in a group it names:
// its Matches is MatchUnread.
//
// A change recorded on another cluster (both ids known, and different)
// touched none of e's partitions, whatever their names: two clusters with
// the same groups and topics (a DR pair, staging and production) are told
// apart by their ids alone. One where either id is missing may be of
// either cluster: it counts, ClusterUnknown.
func LaterChanges(e Entry, entries []Entry) Laters {
	return LaterChangesIn(e, e.Changes, entries)
}

// LaterChangesIn is LaterChanges of the partitions of parts instead of
// e's changes: what a restore of e's backup writes, which is every row of
// the backup, also the partitions e left as they were (a partition that
// had no commit and still had none, one the group copied from had no
// commit on, a share group's extra rows), each as a change of e from its
// backed-up offset to itself.
func LaterChangesIn(e Entry, parts []Change, entries []Entry) Laters {
	mine := map[changeKey]Change{}
	for _, c := range parts {
		mine[changeKey{c.Group, c.Topic, c.Partition}] = c
	}
	out := Laters{m: map[changeKey][]Later{}}
	keep := func(k changeKey, l Later) { out.m[k] = append(out.m[k], l) }
	seen := map[string]bool{}
	for _, l := range entries {
		if l.ID <= e.ID || l.Kind == KindOutcome || seen[l.ID] || !changesOffsets(l) {
			continue
		}
		if KnownVersion(l.V) && e.ClusterID != "" && l.ClusterID != "" && l.ClusterID != e.ClusterID {
			continue // another cluster's change
		}
		seen[l.ID] = true
		ref := Later{ID: l.ID, Time: l.Time, Action: l.Action, Outcome: l.Outcome, UndoOf: l.UndoOf,
			ClusterUnknown: e.ClusterID == "" || l.ClusterID == ""}
		if !KnownVersion(l.V) || l.ChangesFile != "" && len(l.Changes) == 0 {
			for k := range mine {
				if contains(l.Groups, k.group) {
					r := ref
					r.Matches = MatchUnread
					keep(k, r)
				}
			}
			continue
		}
		for _, c := range l.Changes {
			k := changeKey{c.Group, c.Topic, c.Partition}
			m, ok := mine[k]
			if !ok || c.NotWritten() {
				continue
			}
			r := ref
			r.Found, r.Matches = c.Before, matchOf(c.Before, m)
			r.NoMove = c.Error == "" && sameOffset(c.Before, c.After)
			keep(k, r)
		}
	}
	return out
}

// verifyErrPrefix starts the error of a partition whose write the broker
// acknowledged and whose read-back differed (admin's): it was written.
const verifyErrPrefix = "verify: "

// NotWritten says whether change c was not written: the broker refused
// it, or it was never sent. A "verify: " error is a write the broker
// acknowledged whose read-back differed: written.
func (c Change) NotWritten() bool {
	return c.Error != "" && !strings.HasPrefix(c.Error, verifyErrPrefix)
}

// changesOffsets says whether l may have changed a group's offsets: a
// change (not a replay) that was not refused and did not fail. Of an
// entry in a format this offsetctl does not know, only the action is
// trusted.
func changesOffsets(l Entry) bool {
	switch l.Action {
	case ActReplay, ActBackfill:
		return false
	case ActReset, ActUndo, ActDeleteOffsets, ActDeleteGroup:
	default:
		if KnownVersion(l.V) {
			return false
		}
	}
	return !KnownVersion(l.V) || l.Outcome != Refused && l.Outcome != Failed
}

// matchOf says which recorded offset of c the offset v is.
func matchOf(v *int64, c Change) string {
	isPlanned, isBefore := sameOffset(v, c.After), sameOffset(v, c.Before)
	switch {
	case isPlanned && isBefore:
		return MatchBoth
	case isPlanned:
		return MatchPlanned
	case isBefore:
		return MatchBefore
	}
	return MatchNeither
}
