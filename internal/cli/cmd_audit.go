package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/offsetctl/offsetctl/internal/admin"
	"github.com/offsetctl/offsetctl/internal/audit"
	"github.com/offsetctl/offsetctl/internal/change"
	"github.com/offsetctl/offsetctl/internal/cluster"
	"github.com/offsetctl/offsetctl/internal/exitcode"
	"github.com/offsetctl/offsetctl/internal/lag"
	"github.com/offsetctl/offsetctl/internal/textlist"
	"github.com/offsetctl/offsetctl/report"
)

func (a *app) historyCmd() *cobra.Command {
	var group, topic, since, verify string
	cmd := &cobra.Command{
		Use:   "history [--group G] [--topic T] [--since 24h|TIME] | --verify ID",
		Short: "List the audit trail: who changed which group's offsets, when, with which backup (and every replay)",
		Long: `history lists the audit trail, one row per change: who changed which
group's offsets, when, with which backup and outcome (and every replay).
A change whose outcome was never recorded (the run was killed after its
intent) is shown as unknown. --group G also lists the fleet changes
(reset --all-groups or -r) that skipped G for its live members, with OUTCOME
"skipped (live)" and no CHANGED count: G was not changed by them.
--verify ID reads the groups of change ID now and says, partition by
partition, whether each holds the offset before the change, the planned
one, or neither. Where a change recorded later touched a partition, it
names that change and the offset it found there: today's offsets there are
that change's doing, whatever this one's outcome, and the summary says
what the later change found instead (of a change whose outcome is
unknown, that record, not today's offsets, is the evidence).`,
		Example: `  offsetctl history --group orders-billing --since 7d
  offsetctl history --since 2026-11-30 -o json
  offsetctl history --verify 01JE4Z8Q6M3T9V2XKQ0R5B7C1D`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if changed(cmd.Flags(), "verify") {
				return a.runVerify(cmd, verify)
			}
			// An empty filter matched every entry: `--group "$G"` with G
			// unset listed the whole trail.
			for _, fl := range []struct{ name, v string }{{"group", group}, {"topic", topic}} {
				if changed(cmd.Flags(), fl.name) && strings.TrimSpace(fl.v) == "" {
					return exitcode.Usagef("--%s is empty: name one, or leave the flag out for every entry", fl.name)
				}
			}
			f := audit.Filter{Group: group, Topic: topic}
			if changed(cmd.Flags(), "since") {
				t, err := audit.ParseSince(since, a.now())
				if err != nil {
					return exitcode.Flag("--since", err)
				}
				f.Since = t
			}
			// Summaries first (no changes): what is selected, in order.
			// Standard input is read once: whole.
			logPath, _ := a.auditPath()
			stdin := logPath == audit.Stdio
			entries, err := a.readTrail(cmd.Context(), !stdin, "")
			if err != nil {
				return err
			}
			sel := audit.Select(entries, f)
			defer a.unknownHint(sel)
			if a.format == report.JSON && a.trailTopic == "" && !stdin {
				return a.historyJSON(cmd.Context(), sel)
			}
			if a.trailTopic == "" && a.format != report.JSON {
				for i := range sel {
					sel[i].Changes = nil // the table shows the counts
				}
			}
			return report.History(a.stdout, a.format, sel, group)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&group, "group", "", "only entries about this group: that changed it, replayed past it, or skipped it as live (OUTCOME skipped (live))")
	fl.StringVarP(&topic, "topic", "t", "", "only entries about this topic")
	fl.StringVar(&since, "since", "", "only entries from this long ago (24h, 7d, PT90M) or since this time (RFC 3339, YYYY-MM-DD, unix ms)")
	fl.StringVar(&verify, "verify", "", "read the groups of change ID now: which partitions hold the offsets before it, which the planned ones")
	cmd.MarkFlagsMutuallyExclusive("verify", "group")
	cmd.MarkFlagsMutuallyExclusive("verify", "topic")
	cmd.MarkFlagsMutuallyExclusive("verify", "since")
	return cmd
}

// unknownHint says on stderr which listed changes have no recorded
// outcome, and where to see what the evidence shows of each (history
// --verify: the offsets now, or, where a later change touched a
// partition, what that change found). It claims no state: "where each
// left its groups" presumed --verify could always tell.
//
// A change that a listed undo restored completely (applied or unverified)
// is settled: where it left the groups no longer matters, so it is not
// named again in every later listing; so is an unknown undo of a change
// that a later undo restored completely.
func (a *app) unknownHint(sel []audit.Entry) {
	// undone: per change, its latest complete undo's id (ids sort by
	// time).
	undone := map[string]string{}
	for _, e := range sel {
		if e.Action == audit.ActUndo && (e.Outcome == audit.Applied || e.Outcome == audit.Unverified) {
			undone[e.UndoOf] = max(undone[e.UndoOf], e.ID)
		}
	}
	var ids []string
	var backfills []audit.Entry
	for _, e := range sel {
		if e.Outcome != audit.Unknown || undone[e.ID] != "" {
			continue
		}
		if e.Action == audit.ActUndo && undone[e.UndoOf] > e.ID {
			// An undo killed part-way, finished by a later one (--force):
			// the change it undid is restored, so it is settled too.
			continue
		}
		if e.Action == audit.ActBackfill {
			if !resumedLater(e, sel) {
				backfills = append(backfills, e) // --verify reads groups, not topics
			}
			continue
		}
		ids = append(ids, e.ID)
	}
	if len(ids) > 0 {
		a.notef("%d change(s) with outcome unknown (%s): whether each landed is not recorded; see what the evidence shows with: %s history --verify ID", len(ids), textlist.Short(ids, 3, ", "), a.prog())
	}
	a.backfillHint(backfills)
}

// resumedLater says whether a backfill e of unknown outcome was finished
// by a later run of the same job that completed (outcome applied): the
// same --transactional-id or --checkpoint, target and source on the same
// cluster, which resumed from where e left its position. Telling to
// finish e by rerunning it then only sent the user to copy again.
func resumedLater(e audit.Entry, sel []audit.Entry) bool {
	if e.TransactionalID == "" && e.Checkpoint == "" {
		return false // no resume point: a later run copied everything again
	}
	for _, l := range sel {
		if l.ID > e.ID && l.Action == audit.ActBackfill && l.Outcome == audit.Applied &&
			l.TransactionalID == e.TransactionalID && l.Checkpoint == e.Checkpoint &&
			l.Target == e.Target && slices.Equal(l.Topics, e.Topics) && l.ClusterID == e.ClusterID &&
			slices.Equal(targetFlags(l.Command), targetFlags(e.Command)) {
			return true
		}
	}
	return false
}

// targetFlags are the flags of a recorded command line that name the
// target cluster of a backfill, as given: a --transactional-id's position
// lives there, so a run of the same id to another cluster is another job.
func targetFlags(argv []string) []string {
	var out []string
	for i := 0; i < len(argv); i++ {
		for _, name := range []string{"--target-brokers", "--target-command-config", "--target-profile"} {
			switch {
			case argv[i] == name && i+1 < len(argv):
				out = append(out, name+"="+argv[i+1])
			case strings.HasPrefix(argv[i], name+"="):
				out = append(out, argv[i])
			}
		}
	}
	return out
}

// backfillHint says which listed backfills have no recorded outcome, and
// what tells how far each got: its checkpoint or transactional id, or the
// payload digests (audit.CheckWords), never history --verify.
func (a *app) backfillHint(bfs []audit.Entry) {
	var ids []string
	for _, e := range bfs {
		ids = append(ids, e.ID)
	}
	switch len(bfs) {
	case 0:
	case 1:
		a.notef("1 backfill(s) with outcome unknown (%s): %s", bfs[0].ID, audit.CheckWords(bfs[0]))
	default:
		a.notef("%d backfill(s) with outcome unknown (%s): finish each by rerunning it with its --checkpoint or --transactional-id, or compare the payload digests of its topics; each entry's error (offsetctl history -o json) says which", len(bfs), textlist.Short(ids, 3, ", "))
	}
}

// runVerify is history --verify ID: the change's partitions read now.
func (a *app) runVerify(cmd *cobra.Command, id string) error {
	entries, err := a.readTrail(cmd.Context(), false, id)
	if err != nil {
		return err
	}
	e, err := audit.Find(entries, id)
	if err != nil {
		return exitcode.Flag("--verify:", err)
	}
	if e.Action == audit.ActReplay || e.Action == audit.ActBackfill {
		return exitcode.Usagef("--verify: entry %s is a %s: %s%s", e.ID, e.Action, audit.MovedNoGroup(e), backfillCheck(e))
	}
	cfg, adm, err := a.admin(cmd.Context())
	if err != nil {
		return err
	}
	defer adm.Close()
	// Offsets read on another cluster say nothing of this change: never
	// "applied" or "not applied" for it.
	if err := a.checkEntryCluster(cmd.Context(), cfg, adm, e, entryCheck{refusal: "it cannot be verified here", retry: []string{"history", "--verify", e.ID}}); err != nil {
		return err
	}
	live, err := a.changeState(cmd.Context(), cfg, adm, e)
	if err != nil {
		return err
	}
	later, err := a.laterChanges(e, e.Changes, entries)
	if err != nil {
		return err
	}
	v := audit.VerifyLater(e, live, later)
	// The verdict is said on stderr whatever became of the table.
	werr := report.Verify(a.stdout, a.format, v)
	if later.Len() > 0 {
		// Where a later change touched a partition, the offsets now are
		// its doing, whatever this change's outcome: it is named, with
		// what it found, never taken as evidence of this change.
		for _, l := range verifyLaterLines(e, v) {
			a.infof("%s", l)
		}
		return werr
	}
	a.infof("entry %s (recorded outcome: %s): %s", e.ID, e.Outcome, verifyWords(v))
	return werr
}

// backfillCheck is, after --verify's refusal of backfill e, what does
// tell how far it got, when its outcome is unknown.
func backfillCheck(e audit.Entry) string {
	if e.Action != audit.ActBackfill || e.Outcome != audit.Unknown {
		return ""
	}
	return "; " + audit.CheckWords(e)
}

// undoneWords says, after "N partition(s) moved since entry ID", which
// earlier undos of it explain the move: one that finished undid it
// already; one killed or cut short (outcome unknown or partly) may have
// restored only some groups, and --force finishes the restore.
func undoneWords(prog string, entries []audit.Entry, id string) string {
	var done, unfinished []string
	for _, u := range entries {
		if u.Action != audit.ActUndo || u.UndoOf != id {
			continue
		}
		switch u.Outcome {
		case audit.Applied, audit.Unverified:
			done = append(done, u.ID)
		case audit.Unknown, audit.Partly:
			unfinished = append(unfinished, u.ID+" (outcome "+u.Outcome+")")
		}
	}
	switch {
	case len(unfinished) > 0:
		return fmt.Sprintf(" (an earlier undo of it did not finish: entry %s; check what it restored with %s history --verify %s, and add --force to finish the restore)", textlist.Short(unfinished, 3, ", "), prog, strings.SplitN(unfinished[len(unfinished)-1], " ", 2)[0])
	case len(done) > 0:
		return fmt.Sprintf(" (it was undone already by entry %s)", textlist.Short(done, 3, ", "))
	}
	return ""
}

// verifyWords says in one line which state a verification found. The
// offsets now cannot tell a change from a later one that left the same
// offsets: where they contradict the recorded outcome, the record wins
// and the line says the groups moved since.
func verifyWords(v audit.Verification) string {
	switch {
	case len(v.Rows) == 0: // a refused or failed run that planned nothing
		return "the entry records no partition it changed or planned: there is nothing to verify"
	case v.Matches == audit.MatchPlanned && (v.Outcome == audit.Failed || v.Outcome == audit.Refused):
		return fmt.Sprintf("every partition (%d) holds its planned offset, but the change was recorded as %s: another change left the same offsets since", len(v.Rows), v.Outcome)
	case v.Matches == audit.MatchBefore && v.Outcome == audit.Applied:
		return fmt.Sprintf("every partition (%d) holds its offset before the change, but the change was recorded as applied: the groups moved back since", len(v.Rows))
	}
	switch v.Matches {
	case audit.MatchPlanned:
		return fmt.Sprintf("every partition (%d) holds its planned offset: the change is applied", len(v.Rows))
	case audit.MatchBefore:
		return fmt.Sprintf("every partition (%d) holds its offset before the change: it is not applied", len(v.Rows))
	case "mixed":
		return "some partitions hold their planned offsets and the others their offsets before: the change is partly applied"
	}
	return "some partitions hold neither their offset before nor the planned one: the groups moved since (see MATCHES)"
}

// readTrail reads the trail: the local log (every file of it, rotated
// and gzip'd ones too) or the shared topic. Lines that are not entries,
// oversized lines and entries of an unknown format version are reported
// with a warning each (the rest of the trail still counts). summary
// leaves the changes out (history's table needs only the counts); a
// non-empty id reads only what may hold that entry. A log that cannot be
// read is exit 2 when its path cannot be a log (a device, a directory, a
// link), else exit 1 (docs/audit.md: the same codes for every command).
func (a *app) readTrail(ctx context.Context, summary bool, id string) ([]audit.Entry, error) {
	if a.auditTopic != "" || a.profile != "" {
		// The shared trail, when the flag or the profile names one.
		if _, err := a.clusterConfig(); err != nil {
			return nil, err
		}
	}
	if a.trailTopic != "" {
		cfg, adm, err := a.admin(ctx)
		if err != nil {
			return nil, err
		}
		defer adm.Close()
		rctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
		defer cancel()
		entries, err := audit.ReadTopic(rctx, cfg, adm, a.trailTopic)
		var ce *audit.CorruptError
		if errors.As(err, &ce) {
			a.warnf("audit topic %s: %v", a.trailTopic, err)
			err = nil
		}
		joined := audit.Join(entries)
		if w := audit.OrphanWarning(audit.Orphans(joined)); w != "" {
			a.warnf("audit topic %s: %s", a.trailTopic, w)
		}
		return joined, err
	}
	if _, err := a.auditOptions(ctx); err != nil {
		return nil, err // a bad --audit-rotate-size is bad usage here too
	}
	path, err := a.auditPath()
	if err != nil {
		return nil, &exitcode.Error{Code: exitcode.Failure, Err: err}
	}
	prefix := strings.ToUpper(strings.TrimSpace(id))
	o := audit.ReadOptions{Summary: summary, Explicit: a.auditExplicit(), Stdin: a.stdin, PipeWait: a.timeout, IDPrefix: prefix}
	// Standard input is read once: the changes recorded after the entry
	// (laterChanges) are kept from this read.
	stdin := path == audit.Stdio && id != ""
	if stdin {
		o.IDPrefix = ""
	}
	var entries []audit.Entry
	is, err := audit.Walk(path, o, func(e *audit.Entry, line []byte) error {
		// The change's outcome names its intent's id.
		// An undo of it names it too: undo says it was undone already.
		if id != "" && !related(*e, prefix) && !(stdin && laterThan(*e, prefix)) {
			return nil
		}
		entries = append(entries, *e)
		return nil
	})
	for _, w := range is.Warnings() {
		a.warnf("%s", w)
	}
	if err != nil {
		// Exit 2 when the path cannot be a log (/dev/zero, a
		// directory, a link: audit's path.go), else 1.
		return nil, &exitcode.Error{Code: exitcode.Code(err), Err: fmt.Errorf("%w: the audit log cannot be read", err)}
	}
	// The changes a sidecar holds are read (and checked) before the join:
	// the outcome names the partitions not changed among them.
	for i, e := range entries {
		if id != "" && related(e, prefix) && e.ChangesFile != "" && audit.KnownVersion(e.V) {
			if entries[i], err = audit.LoadChanges(path, e); err != nil {
				return nil, &exitcode.Error{Code: exitcode.Failure, Err: err}
			}
		}
	}
	// One row per change: each intent with its outcome.
	joined := audit.Join(entries)
	if w := audit.OrphanWarning(audit.Orphans(joined)); w != "" && id == "" {
		// (With an id, only the entries it names are read: an outcome
		// asked for by its own id comes without its intent.)
		a.warnf("%s", w)
	}
	return joined, nil
}

// related says whether e is the entry whose id starts with prefix, its
// outcome, or an undo of it.
func related(e audit.Entry, prefix string) bool {
	return strings.HasPrefix(e.ID, prefix) || strings.HasPrefix(e.Intent, prefix) || strings.HasPrefix(e.UndoOf, prefix)
}

// historyJSON streams the selected entries, changes included, in the
// order of sel: a second read of the log sends each on as soon as its
// turn comes (a log is appended nearly in id order, so few wait), and
// JSON over a gigabyte of log never holds it all.
func (a *app) historyJSON(ctx context.Context, sel []audit.Entry) error {
	rank := make(map[string]int, len(sel))
	for i, e := range sel {
		rank[e.ID] = i
	}
	path, err := a.auditPath()
	if err != nil {
		return &exitcode.Error{Code: exitcode.Failure, Err: err}
	}
	ch := make(chan *audit.Entry)
	stop := make(chan struct{})
	defer close(stop)
	var werr error
	go func() {
		defer close(ch)
		held := map[int]audit.Entry{}
		turn := 0
		send := func(e audit.Entry) bool {
			select {
			case ch <- &e:
				return true
			case <-stop:
				return false
			}
		}
		// An intent waits for its outcome (a few lines later, as a rule)
		// and goes on joined with it; one the first read found without
		// an outcome goes on at once, as unknown.
		// An outcome read before its intent (files concatenated out of
		// order) waits for it; one selected as itself (its intent gone)
		// goes on as it is, as the first read listed it.
		intents, early := map[string]audit.Entry{}, map[string]audit.Entry{}
		o := audit.ReadOptions{Explicit: a.auditExplicit(), Stdin: a.stdin, PipeWait: a.timeout}
		_, werr = audit.Walk(path, o, func(e *audit.Entry, _ []byte) error {
			id := e.ID
			if _, alone := rank[id]; e.Kind == audit.KindOutcome && !alone {
				id = e.Intent
			}
			i, ok := rank[id]
			if !ok || i < turn {
				return nil // not selected, or a second copy
			}
			switch in, waiting := intents[id]; {
			case e.Kind == audit.KindOutcome && waiting:
				delete(intents, id)
				held[i] = audit.JoinPair(in, *e)
			case e.Kind == audit.KindOutcome && id == e.Intent:
				if _, dup := early[id]; !dup {
					early[id] = *e // its intent is not read yet
				}
				return nil
			case e.Kind == audit.KindIntent && sel[i].Outcome == audit.Unknown && sel[i].Error == audit.NoOutcome(*e):
				held[i] = audit.Join([]audit.Entry{*e})[0]
			case e.Kind == audit.KindIntent:
				if out, ok := early[id]; ok {
					held[i] = audit.JoinPair(*e, out)
					break
				}
				intents[id] = *e
				return nil
			default: // self-contained: read as Join reads it (v1 "partial" is partly)
				held[i] = audit.Join([]audit.Entry{*e})[0]
			}
			for ; ; turn++ {
				next, ok := held[turn]
				if !ok {
					return nil
				}
				delete(held, turn)
				if !send(next) {
					return errors.New("stopped")
				}
			}
		})
		for id, in := range intents { // the outcome was not found again
			held[rank[id]] = audit.Join([]audit.Entry{in})[0]
		}
		for ; turn < len(sel); turn++ { // gone since the first read: skipped
			if next, ok := held[turn]; ok && !send(next) {
				return
			}
		}
	}()
	err = report.HistoryJSON(a.stdout, func() (*audit.Entry, error) { return <-ch, nil })
	if err != nil {
		return err
	}
	if werr != nil {
		return &exitcode.Error{Code: exitcode.Failure, Err: fmt.Errorf("%w: the audit log cannot be read", werr)}
	}
	return nil
}

func (a *app) undoCmd() *cobra.Command {
	var execute, force bool
	var backup, other string
	cmd := &cobra.Command{
		Use:   "undo ID",
		Short: "Restore the offsets a recorded change replaced, from its backup (dry run by default)",
		Long: `undo restores exactly the offsets that the audited change ID replaced, from
the backup it recorded: partitions that had no commit go back to no commit. It
checks the backup's SHA-256 first, and refuses (exit 1) when a group has moved
since that change (a consumer committed, or another reset), unless --force. It
is refused (exit 2, nothing changed) when a change recorded later on the same
cluster changed, or may have changed, any partition its backup restores (also
those the change left as they were), whatever its outcome: the restore would
revert that change too (undo it first), and of a change whose outcome is
unknown the offsets now cannot tell whether it landed; --force restores
anyway, and the undo's entry names those changes (forced_over).

The restore is a reset --to file:BACKUP, with its guard (no live members), its
own backup and read-back, and it is recorded in the trail too. An entry
recorded on another cluster than the one connected (its cluster_id) is refused
(exit 2); --other-cluster ID undoes it anyway, for that cluster rebuilt under
a new id.`,
		Example: `  offsetctl history --group orders-billing
  offsetctl undo 01JE4Z8Q6M3T9V2XKQ0R5B7C1D
  offsetctl undo 01JE4Z8Q6M3T9V2XKQ0R5B7C1D --execute`,
		Args: exactlyOne("the audit entry id (see offsetctl history)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := a.checkChangeFiles(cmd); err != nil {
				return err
			}
			if err := checkCommitFlags(cmd); err != nil {
				return err
			}
			if changed(cmd.Flags(), "other-cluster") && strings.TrimSpace(other) == "" {
				return exitcode.Usagef("--other-cluster is empty: give the cluster id the entry records (see offsetctl history -o json)")
			}
			return a.runUndo(cmd, args[0], undoFlags{execute: execute, force: force, backup: backup, other: other})
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&execute, "execute", false, "restore (default: dry run)")
	fl.BoolVar(&force, "force", false, "restore even if the group has moved since the change, or a change recorded later touched its partitions")
	fl.StringVar(&backup, "backup", "", "backup of the offsets the undo replaces (default offsetctl-backup-GROUP-UTCTIME.csv)")
	fl.StringVar(&other, "other-cluster", "", "undo an entry recorded on cluster `ID` (the cluster_id it records) on the cluster connected now, whose id differs: only for that cluster rebuilt under a new id; recorded in the undo's entry")
	// How the restore commits, as reset takes them: a change made with
	// --non-atomic or a custom prefix (ACLs allowing only it) is undone
	// the same way. Checked by reset.
	fl.Bool("non-atomic", false, "restore without a transaction, as reset --non-atomic (for clusters that do not allow transactions)")
	fl.String("transactional-id-prefix", admin.DefaultTxnIDPrefix, "the restore's transactional id prefix, as reset's (the id is PREFIX+GROUP)")
	fl.Int("parallel-groups", change.DefaultParallel, "how many groups are restored at once, as reset's")
	return cmd
}

// checkCommitFlags checks how a change commits: --transactional-id-prefix,
// its contradiction with --non-atomic, and --parallel-groups. reset checks
// its own flags with it, and undo the ones it hands to the restoring reset
// before anything is read, so bad input is exit 2 whatever the entry's
// state.
func checkCommitFlags(cmd *cobra.Command) error {
	fl := cmd.Flags()
	prefix, _ := fl.GetString("transactional-id-prefix")
	if err := checkTxnPrefix(prefix); err != nil {
		return err
	}
	if nonAtomic, _ := fl.GetBool("non-atomic"); nonAtomic && fl.Changed("transactional-id-prefix") {
		// The prefix names the transactions, and --non-atomic has none:
		// a typed prefix would be ignored without a word.
		return exitcode.Usagef("--transactional-id-prefix and --non-atomic contradict each other: --non-atomic commits without a transaction")
	}
	if n, _ := fl.GetInt("parallel-groups"); n < 1 || n > maxParallelGroups {
		return exitcode.Usagef("--parallel-groups must be between 1 and %d, got %d", maxParallelGroups, n)
	}
	return nil
}

// undoFlags are undo's own flags.
type undoFlags struct {
	execute, force bool
	backup, other  string
}

func (a *app) runUndo(cmd *cobra.Command, id string, f undoFlags) error {
	entries, e, err := a.undoEntry(cmd.Context(), id)
	if err != nil {
		return err
	}
	cfg, adm, err := a.admin(cmd.Context())
	if err != nil {
		return err
	}
	defer adm.Close()
	retry := []string{"undo", e.ID}
	if f.execute {
		retry = append(retry, "--execute")
	}
	check := entryCheck{refusal: "it is never applied to another cluster", retry: retry, override: "--other-cluster", other: f.other}
	if err := a.checkEntryCluster(cmd.Context(), cfg, adm, e, check); err != nil {
		return err
	}
	if f.other != "" {
		a.otherCluster = e.ClusterID // on the undo's record
	}
	restore, err := loadRestore(e)
	if err != nil {
		return err
	}
	live, err := a.changeState(cmd.Context(), cfg, adm, e)
	if err != nil {
		return err
	}
	// The changes recorded later of the partitions the restore writes
	// (every row of the backup it restores, not only e's changes), e's
	// outcome recorded or not, but those undone since: the restore would
	// revert them too.
	later, err := a.laterChanges(e, restore.writes, entries)
	if err != nil {
		return err
	}
	// A later change that moved nothing (reset --to current) has
	// nothing for the restore to revert.
	if later = later.Standing().Moving(); later.Len() > 0 {
		// Refused, or with --force restored over the later changes.
		if err := a.undoOverLater(e, entries, later, restore, f.force); err != nil {
			return err
		}
	} else if v := audit.Verify(e, live); e.Outcome == audit.Unknown && v.Matches == audit.MatchBefore {
		a.infof("entry %s (outcome unknown): every partition holds its offset before the change, which did not reach the cluster: nothing to undo", e.ID)
		return nil
	}
	// Every partition the restore writes: a commit made since on one e
	// left as it was is overwritten all the same.
	moved := audit.Moved(restore.asChanges(e), live)
	if len(moved) > 0 {
		lines := make([]string, len(moved))
		for i, c := range moved {
			lines[i] = fmt.Sprintf("group %s topic %s partition %d: %s after the change, %s now", c.Group, c.Topic, c.Partition, offsetWord(c.Before), offsetWord(c.After))
		}
		what := fmt.Sprintf("%d partition(s) moved since entry %s: %s", len(moved), e.ID, textlist.Short(lines, 5, "; "))
		what += undoneWords(a.prog(), entries, e.ID)
		if !f.force {
			return a.refuseUndo(cmd, adm, e, f.execute, what+"; undoing would overwrite those commits: add --force to restore the backup anyway")
		}
		a.warnf("%s; --force: restoring the backup over them", what)
	}
	return a.restoreEntry(cmd, e, restore, f)
}

// undoEntry finds the entry undo ID names, with the entries read (its
// later undos among them), and refuses one that cannot be undone.
func (a *app) undoEntry(ctx context.Context, id string) ([]audit.Entry, audit.Entry, error) {
	entries, err := a.readTrail(ctx, false, id)
	if err != nil {
		return nil, audit.Entry{}, err
	}
	e, err := audit.Find(entries, id)
	if err != nil {
		return nil, e, exitcode.AsUsage(err)
	}
	if !audit.KnownVersion(e.V) {
		return nil, e, fmt.Errorf("entry %s is in audit format version %d, which this offsetctl does not know (it knows 1 to %d): it is never acted on; undo it with the offsetctl that wrote it", e.ID, e.V, audit.Version)
	}
	if why := audit.Undoable(e); why != "" {
		return nil, e, exitcode.Usagef("%s", why)
	}
	return entries, e, nil
}

// restoreEntry restores e's backup as r says (the bytes checked, the
// groups whose later changes were checked): the reset path itself,
// recorded as an undo of e.
func (a *app) restoreEntry(cmd *cobra.Command, e audit.Entry, r undoRestore, f undoFlags) error {
	a.auditAction, a.undoOf = audit.ActUndo, e.ID
	a.restoring = &r
	rc := a.resetCmd()
	rc.SilenceErrors, rc.SilenceUsage = true, true
	rc.SetOut(a.stdout)
	rc.SetErr(a.stderr)
	args := r.restoreArgs()
	if f.execute {
		args = append(args, "--execute")
	}
	if f.backup != "" {
		args = append(args, "--backup", f.backup)
	}
	// The flags undo hands on to the reset that restores.
	for _, name := range []string{"non-atomic", "transactional-id-prefix", "parallel-groups"} {
		if fl := cmd.Flags().Lookup(name); fl != nil && fl.Changed {
			args = append(args, "--"+name+"="+fl.Value.String())
		}
	}
	rc.SetArgs(args)
	return rc.ExecuteContext(cmd.Context())
}

// appliedGroups is the groups of e (in its order) with a change made.
func appliedGroups(e audit.Entry) []string {
	made := map[string]bool{}
	for _, c := range e.Changes {
		if c.Error == "" {
			made[c.Group] = true
		}
	}
	var out []string
	for _, g := range e.Groups {
		if made[g] {
			out = append(out, g)
		}
	}
	return out
}

// changeState fetches the committed offsets of the groups e changed.
func (a *app) changeState(ctx context.Context, cfg cluster.Config, adm *cluster.Admin, e audit.Entry) (audit.State, error) {
	var groups []string
	seen := map[string]bool{}
	for _, c := range e.Changes {
		if !seen[c.Group] {
			seen[c.Group] = true
			groups = append(groups, c.Group)
		}
	}
	fctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	commits, err := lag.FetchGroupCommits(fctx, adm, groups)
	if err != nil {
		return nil, fmt.Errorf("cannot tell whether the groups moved since entry %s: %w", e.ID, err)
	}
	live, failed := audit.StateOfCommits(commits)
	if len(failed) > 0 {
		var lines []string
		for g, err := range failed {
			lines = append(lines, fmt.Sprintf("group %s: %v", g, err))
		}
		return nil, fmt.Errorf("cannot tell whether the groups moved since entry %s: %s", e.ID, strings.Join(lines, "; "))
	}
	return live, nil
}

// refuseUndo refuses an undo (exit 1); with --execute the refusal is on
// the record.
func (a *app) refuseUndo(cmd *cobra.Command, adm *cluster.Admin, e audit.Entry, execute bool, why string) error {
	err := errors.New(why)
	if !execute {
		return err
	}
	a.auditAction, a.undoOf = audit.ActUndo, e.ID
	rec, aerr := a.beginAudit(cmd.Context(), adm, audit.ActUndo)
	if aerr != nil {
		return errors.Join(err, aerr)
	}
	return rec.finish(err, func(u *audit.Entry) auditResult {
		u.Groups, u.Topics, u.Backup = e.Groups, e.Topics, e.Backup
		return auditResult{refused: true}
	})
}

func offsetWord(v *int64) string {
	if v == nil {
		return "no commit"
	}
	return fmt.Sprint(*v)
}
