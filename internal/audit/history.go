package audit

import (
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/offsetctl/offsetctl/internal/admin"
	"github.com/offsetctl/offsetctl/internal/lag"
	"github.com/offsetctl/offsetctl/internal/safetext"
)

// Filter selects entries for history. Zero fields select everything.
type Filter struct {
	Group string
	Topic string
	Since time.Time
}

// Select returns the entries that match f, sorted by id (time order),
// each id once (a shared trail keyed by group holds an entry of several
// groups once per group).
func Select(entries []Entry, f Filter) []Entry {
	out := []Entry{}
	seen := map[string]bool{}
	for _, e := range entries {
		if seen[e.ID] || !f.Since.IsZero() && e.Time.Before(f.Since) {
			continue
		}
		if f.Group != "" && !contains(e.Groups, f.Group) || f.Topic != "" && !contains(e.Topics, f.Topic) {
			continue
		}
		seen[e.ID] = true
		out = append(out, e)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Skipped reports whether e names group only as skipped for its live
// members (SkippedLive): the change was not made to it. history --group
// lists such an entry, marked so, since what was asked for the group and
// not done is part of its story.
func (e Entry) Skipped(group string) bool {
	return contains(e.SkippedLive, group)
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// ParseSince parses history's --since: a duration back from now (24h, 3d,
// PT90M) or a time (admin.ParseTime: RFC 3339, a date, unix ms). A
// duration of zero or less is refused: it reaches back to now or later and
// selects no entry, so "0" (which a reader may take for unix ms, as a bare
// number is elsewhere) or "0s" would list nothing and exit 0.
func ParseSince(s string, now time.Time) (time.Time, error) {
	t := strings.TrimSpace(s)
	if d, err := admin.ParseDuration(strings.TrimPrefix(t, "-")); err == nil {
		if d == 0 || strings.HasPrefix(t, "-") {
			return time.Time{}, fmt.Errorf("%q: a duration of zero or less reaches back to no entry: give how far back, such as 24h or 7d, or a time (2026-11-30T10:00:00Z, 2026-11-30, unix ms)", s)
		}
		return now.Add(-d), nil
	}
	ms, err := admin.ParseTime(s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q: want a duration (24h, 3d, PT90M) or a time (2026-11-30T10:00:00Z, 2026-11-30, unix ms)", s)
	}
	return time.UnixMilli(ms), nil
}

// Find returns the entry with id, or the one entry whose id starts with
// it (at least 6 characters, case-insensitive: ids are upper-case).
func Find(entries []Entry, id string) (Entry, error) {
	shown := shownID(id)
	id = strings.ToUpper(strings.TrimSpace(id))
	var match []Entry
	for i, e := range entries {
		switch {
		case e.ID == id:
			return e, distinct(entries[i+1:], e)
		case len(id) >= 6 && strings.HasPrefix(e.ID, id):
			if len(match) == 0 || match[len(match)-1].ID != e.ID {
				match = append(match, e)
			}
		}
	}
	switch {
	case id == "":
		return Entry{}, errors.New("the audit entry id is empty (see offsetctl history)")
	case len(match) == 0 && len(id) < 6:
		return Entry{}, fmt.Errorf("no audit entry %s (an id prefix needs at least 6 characters)", shown)
	}
	switch len(match) {
	case 0:
		return Entry{}, fmt.Errorf("no audit entry %s", shown)
	case 1:
		return match[0], nil
	}
	return Entry{}, fmt.Errorf("%s names %d audit entries (%s, %s, ...): give more of the id", shown, len(match), match[0].ID, match[1].ID)
}

// shownID is an id argument for an error: upper-cased as ids are written
// when it is letters and digits, as a real id or prefix is; anything else
// is not an id, and is quoted as typed (safetext.QuotedArg), cut if long:
// upper-casing "\x1b[31m" would show a different value.
func shownID(id string) string {
	t := strings.TrimSpace(id)
	for i := 0; i < len(t); i++ {
		if c := t[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return safetext.QuotedArg(id)
		}
	}
	if len(t) > 64 {
		return safetext.QuotedArg(id)
	}
	return strings.ToUpper(t)
}

// distinct refuses a second, different entry with e's id: ids are 80
// random bits, so it is an edit or damage, and acting on either one
// could restore the wrong offsets. Copies of one entry (a shared trail
// holds one per group, a file read twice) are the same entry.
func distinct(rest []Entry, e Entry) error {
	for _, o := range rest {
		if o.ID == e.ID && !reflect.DeepEqual(o, e) {
			return fmt.Errorf("the audit log holds two different entries with id %s (an edit or damage): neither is acted on; compare them with: offsetctl history -o json", e.ID)
		}
	}
	return nil
}

// StateOfCommits is the state of fetched commits (lag.FetchCommits).
// A group whose commits could not be fetched is left out and named in
// failed.
func StateOfCommits(groups map[string]lag.GroupSnapshot) (s State, failed map[string]error) {
	s, failed = State{}, map[string]error{}
	for g, gs := range groups {
		if gs.CommitErr != nil {
			failed[g] = gs.CommitErr
			continue
		}
		s.Set(g, "", 0, nil)
		for t, ps := range gs.Commits {
			for p, c := range ps {
				if c.Err != nil {
					failed[g] = fmt.Errorf("topic %s partition %d: %w", t, p, c.Err)
					continue
				}
				off := c.Offset
				s.Set(g, t, p, &off)
			}
		}
	}
	return s, failed
}

// Moved lists the partitions that e changed and that no longer hold what
// e left there: Before is what e left, After what live holds now. Changes
// that failed (Error set) are not compared: e did not move them. Of an
// entry whose outcome is unknown, a partition still at its offset before
// has not moved either: e never reached it (undo leaves it alone).
func Moved(e Entry, live State) []Change {
	var out []Change
	for _, c := range e.Changes {
		if c.Error != "" {
			continue
		}
		now := live[c.Group][c.Topic][c.Partition]
		if e.Outcome == Unknown && sameOffset(now, c.Before) {
			continue
		}
		if !sameOffset(now, c.After) {
			out = append(out, Change{Group: c.Group, Topic: c.Topic, Partition: c.Partition, Before: c.After, After: now})
		}
	}
	SortChanges(out)
	return out
}

// MovedNoGroup says, for a replay or backfill entry, why it has no offsets
// to undo or verify. A backfill with --transactional-id did commit, to its
// own position group (offsetctl-backfill-ID), which "moved no group's
// offsets" denied; and what it copied cannot be taken back.
func MovedNoGroup(e Entry) string {
	if e.Action == ActBackfill {
		return "it moved no consumer group's offsets (a --transactional-id backfill commits only its own position group's), and the records it copied cannot be taken back"
	}
	return "it moved no group's offsets"
}

// Undoable says why e cannot be undone, or "" when it can: it must have
// changed something, or may have (Unknown: an intent alone is undone from
// its backup), and have a backup of what was there before. An outcome
// record (its id given instead of the change's) names its intent, which
// holds the backup: the undo is of that id.
func Undoable(e Entry) string {
	switch {
	case e.Kind == KindOutcome && e.Intent != "":
		return fmt.Sprintf("entry %s is the outcome of change %s, not a change: undo %s", e.ID, e.Intent, e.Intent)
	case e.Action == ActReplay || e.Action == ActBackfill:
		return fmt.Sprintf("entry %s is a %s: %s, so there is nothing to undo", e.ID, e.Action, MovedNoGroup(e))
	case e.Outcome == Refused || e.Outcome == Failed:
		return fmt.Sprintf("entry %s was %s: it changed nothing, so there is nothing to undo", e.ID, e.Outcome)
	case e.Backup == "":
		return fmt.Sprintf("entry %s has no backup to restore from", e.ID)
	}
	return ""
}
