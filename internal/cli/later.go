package cli

import (
	"fmt"
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

// laterChanges is, for each partition of e, the earliest change the trail
// recorded after e that touched it (audit.LaterChanges). read is what
// readTrail read for e: the whole shared trail, or, from a log on
// standard input (read once), every entry from e's id on. A log file is
// read again, only its files that may hold later entries, decoding only
// the lines that name one of e's groups. A log that cannot be read is
// exit 1, as for every command.
func (a *app) laterChanges(e audit.Entry, read []audit.Entry) (audit.Laters, error) {
	path, err := a.auditPath()
	if err != nil {
		return audit.Laters{}, &exitcode.Error{Code: exitcode.Failure, Err: err}
	}
	if a.trailTopic != "" || path == audit.Stdio {
		return audit.LaterChanges(e, read), nil
	}
	o := audit.ReadOptions{Explicit: a.auditExplicit(), PipeWait: a.timeout, After: e.ID, Needles: audit.NameNeedles(changeGroups(e))}
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
	return audit.LaterChanges(e, audit.Join(later)), nil
}

// laterThan says whether a line of the log belongs to a change recorded
// after the entry id: an outcome by its intent's id.
func laterThan(l audit.Entry, id string) bool {
	if l.Kind == audit.KindOutcome {
		return l.Intent > id
	}
	return l.ID > id
}

// changeGroups are the groups of e's changes, in order.
func changeGroups(e audit.Entry) []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range e.Changes {
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

// verifyLaterLines is history --verify's summary of an entry whose
// outcome is unknown when a later change touched some of its partitions:
// a first line saying so, one line per later change and what it found
// (what that supports), then what the offsets now say of the partitions
// no later change touched, as for a change no later one touched.
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
		lines = append(lines, fmt.Sprintf("  %s, which no later change touched: %s", partitionsWord(untouched), nowWords(untouched)))
	}
	return lines
}

// foundWords says what the later change l found of e's offsets, and what
// that supports.
func foundWords(e audit.Entry, l audit.Later) string {
	found := fmt.Sprintf("the later change %s at %s found ", l.ID, l.Time.UTC().Format(time.RFC3339))
	if l.ClusterUnknown && l.Matches != audit.MatchUnread {
		return fmt.Sprintf("%s or %s records no cluster id, so %s may be another cluster's change: what it found is no evidence: cannot tell", l.ID, e.ID, l.ID)
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

// undoOverLater decides an undo of e, whose outcome is unknown, when later
// changes touched its partitions: whether e landed cannot be told from
// the offsets now, and restoring its backup would undo those changes as
// well. Without --force it is refused (exit 2, nothing changed), naming
// them; with --force it warns, and the undo's entry names them
// (forced_over).
func (a *app) undoOverLater(e audit.Entry, entries []audit.Entry, later audit.Laters, force bool) error {
	changes := later.Changes()
	var names, ids []string
	own := true // every later change is an undo of e
	for _, l := range changes {
		names = append(names, laterName(l))
		ids = append(ids, l.ID)
		own = own && l.UndoOf == e.ID
	}
	that, advice := "that change", fmt.Sprintf("undo it first (%s undo %s), or add --force to restore the backup anyway", a.prog(), ids[0])
	if len(ids) > 1 {
		that, advice = "those changes", "undo them first, or add --force to restore the backup anyway"
	}
	what := fmt.Sprintf("entry %s (outcome unknown): %d of its %d partition(s) were changed later, by %s: today's offsets cannot tell whether it reached the cluster",
		e.ID, later.Len(), len(e.Changes), textlist.Short(names, 3, ", "))
	if own {
		// Its own undo: restoring the backup again undoes nothing else.
		advice = "add --force to restore the backup again"
	} else {
		what += fmt.Sprintf(", and restoring its backup would undo %s too", that)
	}
	what += undoneWords(a.prog(), entries, e.ID)
	if !force {
		return exitcode.Usagef("%s; %s", what, advice)
	}
	a.warnf("%s; --force: restoring the backup over %s (the undo's entry names %s in forced_over)", what, that, map[bool]string{true: "them", false: "it"}[len(ids) > 1])
	a.forcedOver = ids
	return nil
}
