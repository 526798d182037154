package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/offsetctl/offsetctl/internal/audit"
	"github.com/offsetctl/offsetctl/internal/exitcode"
	"github.com/offsetctl/offsetctl/internal/safetext"
	"github.com/offsetctl/offsetctl/internal/textlist"
)

// Of a change whose outcome is unknown, the offsets now are evidence only
// where no later change touched its partitions: a later reset to the same
// target makes a change that never landed look applied, and one back to
// the old offsets makes a change that landed look as if it never did.
// Where one did, the log's own record decides: the later change's intent
// holds the offsets it found before it sent anything.

// laterChanges is, for each partition of parts (e's changes, or what an
// undo of e writes), the changes the trail recorded after e that touched
// it (audit.LaterChangesIn). read is what
// readTrail read for e: the whole shared trail, or, from a log on
// standard input (read once), every entry from e's id on. A log file is
// read again, only its files that may hold later entries, decoding only
// the lines that name one of e's groups. A log that cannot be read is
// exit 1, as for every command.
func (a *app) laterChanges(e audit.Entry, parts []audit.Change, read []audit.Entry) (audit.Laters, error) {
	path, err := a.auditPath()
	if err != nil {
		return audit.Laters{}, &exitcode.Error{Code: exitcode.Failure, Err: err}
	}
	if a.trailTopic != "" || path == audit.Stdio {
		return audit.LaterChangesIn(e, parts, read), nil
	}
	o := audit.ReadOptions{Explicit: a.auditExplicit(), PipeWait: a.timeout, After: e.ID, Needles: audit.NameNeedles(changeGroups(parts))}
	var later []audit.Entry
	is, err := audit.Walk(path, o, func(l *audit.Entry, _ []byte) error {
		if laterThan(*l, e.ID) {
			later = append(later, *l)
		}
		return nil
	})
	for _, w := range is.Warnings() {
		a.warnf("%s", w)
	}
	if err != nil {
		return audit.Laters{}, &exitcode.Error{Code: exitcode.Failure, Err: fmt.Errorf("%w: the audit log cannot be read", err)}
	}
	for i, l := range later {
		if l.ChangesFile == "" || !audit.KnownVersion(l.V) {
			continue
		}
		if later[i], err = audit.LoadChanges(path, l); err != nil {
			// Its partitions are not known: it counts as touching every
			// partition of its groups, with nothing found.
			later[i] = l
			a.warnf("the changes of entry %s, recorded after %s, cannot be read (%v): it counts as having changed every partition of its groups", l.ID, e.ID, err)
		}
	}
	return audit.LaterChangesIn(e, parts, audit.Join(later)), nil
}

// laterThan says whether a line of the log belongs to a change recorded
// after the entry id: an outcome by its intent's id.
func laterThan(l audit.Entry, id string) bool {
	if l.Kind == audit.KindOutcome {
		return l.Intent > id
	}
	return l.ID > id
}

// changeGroups are the groups of changes, in order.
func changeGroups(changes []audit.Change) []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range changes {
		if !seen[c.Group] {
			seen[c.Group] = true
			out = append(out, c.Group)
		}
	}
	return out
}

// laterName names a later change: its id, action, time and outcome.
func laterName(l audit.Later) string {
	return fmt.Sprintf("%s (%s at %s, outcome %s)", l.ID, l.Action, l.Time.UTC().Format(time.RFC3339), l.Outcome)
}

// verifyLaterLines is history --verify's summary of an entry when a later
// change touched some of its partitions, whatever its outcome: a first
// line saying so, one line per later change and what it found (of an
// entry whose outcome is unknown, what that supports), then what the
// offsets now say of the partitions no later change touched, as for a
// change no later one touched.
func verifyLaterLines(e audit.Entry, v audit.Verification) []string {
	type key struct{ id, matches string }
	var order []key
	by := map[key][]audit.VerifyRow{}
	var untouched []audit.VerifyRow
	for _, r := range v.Rows {
		if r.Later == nil {
			untouched = append(untouched, r)
			continue
		}
		k := key{r.Later.ID, r.Later.Matches}
		if _, ok := by[k]; !ok {
			order = append(order, k)
		}
		by[k] = append(by[k], r)
	}
	lines := []string{fmt.Sprintf("entry %s (recorded outcome: %s): a later change touched %d of its %s: today's offsets are no evidence of this change there; what the log records instead:",
		e.ID, e.Outcome, len(v.Rows)-len(untouched), textlist.Count(len(v.Rows), "partition"))}
	for _, k := range order {
		rows := by[k]
		l := *rows[0].Later
		lines = append(lines, fmt.Sprintf("  %s: cannot tell from today's offsets: %s changed them later; %s",
			partitionsWord(rows), laterName(l), foundWords(e, l)))
	}
	if len(untouched) > 0 {
		now := nowWords(untouched)
		if e.Outcome != audit.Unknown {
			// The record says whether the change was made: the words of
			// a change no later one touched weigh the offsets against it.
			now = verifyWords(audit.Verification{ID: e.ID, Outcome: e.Outcome, Matches: audit.MatchesOver(untouched), Rows: untouched})
		}
		lines = append(lines, fmt.Sprintf("  %s, which no later change touched: %s", partitionsWord(untouched), now))
	}
	return lines
}

// foundWords says what the later change l found of e's offsets and, of an
// e whose outcome is unknown, what that supports. Of a recorded outcome
// the record says whether e was made: what l found is said as it is.
func foundWords(e audit.Entry, l audit.Later) string {
	found := fmt.Sprintf("the later change %s at %s found ", l.ID, l.Time.UTC().Format(time.RFC3339))
	if l.ClusterUnknown && l.Matches != audit.MatchUnread {
		return fmt.Sprintf("%s or %s records no cluster id, so %s may be another cluster's change: what it found is no evidence: cannot tell", l.ID, e.ID, l.ID)
	}
	if e.Outcome != audit.Unknown {
		switch l.Matches {
		case audit.MatchPlanned:
			return found + "the planned offsets there"
		case audit.MatchBefore:
			return found + "the offsets from before " + e.ID + " there"
		case audit.MatchBoth:
			return found + "the offsets from before " + e.ID + ", which it planned to keep"
		case audit.MatchNeither:
			return found + "neither the offsets from before " + e.ID + " nor the planned ones: they moved in between"
		}
	}
	switch l.Matches {
	case audit.MatchPlanned:
		return found + "the planned offsets: applied before " + l.ID
	case audit.MatchBefore:
		return found + "the offsets from before " + e.ID + ": not applied before " + l.ID
	case audit.MatchBoth:
		return found + "the offsets from before " + e.ID + ", which it planned to keep: nothing to apply there"
	case audit.MatchUnread:
		return "its record of them cannot be read (a format this offsetctl does not know, or its changes file): cannot tell"
	}
	return found + "neither the offsets from before " + e.ID + " nor the planned ones: cannot tell"
}

// nowWords says which recorded offsets the partitions rows hold now, and
// what that supports: no later change touched them, so the offsets now
// are evidence.
func nowWords(rows []audit.VerifyRow) string {
	planned, before := true, true
	for _, r := range rows {
		switch r.Matches {
		case audit.MatchPlanned:
			before = false
		case audit.MatchBefore:
			planned = false
		case audit.MatchNeither:
			return "some hold neither their offset before nor the planned one now: they moved since (see MATCHES)"
		}
	}
	switch {
	case planned:
		return "they hold their planned offsets now: applied"
	case before:
		return "they hold their offsets from before the change now: not applied"
	}
	return "some hold their planned offsets now and the others their offsets from before the change: partly applied"
}

// partitionsWord counts rows and names them by group and topic.
func partitionsWord(rows []audit.VerifyRow) string {
	var parts []string
	for i := 0; i < len(rows); {
		j := i
		var ps []string
		for ; j < len(rows) && rows[j].Group == rows[i].Group && rows[j].Topic == rows[i].Topic; j++ {
			ps = append(ps, fmt.Sprint(rows[j].Partition))
		}
		parts = append(parts, fmt.Sprintf("group %s topic %s partition %s", safetext.Arg(rows[i].Group), safetext.Arg(rows[i].Topic), textlist.Short(ps, 10, ", ")))
		i = j
	}
	return fmt.Sprintf("%s (%s)", textlist.Count(len(rows), "partition"), textlist.Short(parts, 3, "; "))
}

// undoOverLater decides an undo of e when changes recorded later touched
// partitions its restore (r) writes (later), whatever e's outcome:
// restoring its backup would revert them too, and of an e whose outcome
// is unknown the offsets now cannot tell whether it landed. The
// partitions e left as they were and its backup restores all the same
// are named.
// Without --force it is refused (exit 2, nothing changed), naming them
// and the one to undo first; with --force it warns, and the undo's entry
// names them (forced_over). Later undos of e alone mean e was undone
// already: the line says so, and --force restores the backup again.
func (a *app) undoOverLater(e audit.Entry, entries []audit.Entry, later audit.Laters, r undoRestore, force bool) error {
	var names, ids, others []string
	for _, l := range later.Changes() {
		names = append(names, laterName(l))
		ids = append(ids, l.ID)
		if l.UndoOf != e.ID {
			others = append(others, l.ID)
		}
	}
	what := fmt.Sprintf("entry %s (outcome %s): %d of its %d partition(s) were changed later, by %s",
		e.ID, e.Outcome, later.Len(), len(r.writes), textlist.Short(names, 3, ", "))
	if n, which := r.leftAsWas(e, later); n > 0 {
		what += fmt.Sprintf(" (%d of them %s left as they were, but its backup restores them too: %s)", n, e.ID, which)
	}
	var why []string
	if e.Outcome == audit.Unknown {
		why = append(why, "today's offsets cannot tell whether it reached the cluster")
	}
	that := "that change"
	if len(ids) > 1 {
		that = "those changes"
	}
	advice := "add --force to restore the backup again" // its own undos: nothing else is undone
	switch {
	case len(others) == 0:
	case len(others) == len(ids):
		why = append(why, "restoring its backup would undo "+that+" too")
	default:
		why = append(why, "restoring its backup would undo "+textlist.Short(others, 3, ", ")+" too")
	}
	switch len(others) {
	case 0:
	case 1:
		advice = fmt.Sprintf("undo it first (%s undo %s), or add --force to restore the backup anyway", a.prog(), others[0])
	default:
		// The latest first: each undo restores what its change found.
		advice = fmt.Sprintf("undo them first, the latest first (%s undo %s), or add --force to restore the backup anyway", a.prog(), others[len(others)-1])
	}
	if len(why) > 0 {
		what += ": " + strings.Join(why, ", and ")
	}
	what += undoneWords(a.prog(), entries, e.ID)
	if !force {
		return exitcode.Usagef("%s; %s", what, advice)
	}
	a.warnf("%s; --force: restoring the backup over %s (the undo's entry names %s in forced_over)", what, that, map[bool]string{true: "them", false: "it"}[len(ids) > 1])
	a.forcedOver = ids
	return nil
}
