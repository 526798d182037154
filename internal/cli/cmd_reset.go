package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/offsetctl/offsetctl/internal/admin"
	"github.com/offsetctl/offsetctl/internal/audit"
	"github.com/offsetctl/offsetctl/internal/change"
	"github.com/offsetctl/offsetctl/internal/cluster"
	"github.com/offsetctl/offsetctl/internal/durable"
	"github.com/offsetctl/offsetctl/internal/exitcode"
	"github.com/offsetctl/offsetctl/internal/lag"
	"github.com/offsetctl/offsetctl/internal/safetext"
	"github.com/offsetctl/offsetctl/report"
)

type resetFlags struct {
	sel       groupSelect
	to        string
	topics    []string
	allTopics bool
	execute   bool
	dryRun    bool
	export    bool
	backup    string
	// txnPrefix + group is the transactional id of --execute; nonAtomic
	// commits in plain split OffsetCommits instead (no transaction).
	txnPrefix string
	nonAtomic bool
	// parallel bounds how many groups are changed at once.
	parallel int
	// otherCluster, with --to file:PLAN, is the cluster id the plan
	// records, typed to restore it on a cluster of another id.
	otherCluster string

	// Apache's kafka-consumer-groups scenario flags, as aliases of --to.
	toEarliest, toLatest, toCurrent bool
	toOffset, shiftBy, toDatetime   string
	byDuration, fromFile            string
}

func (a *app) resetCmd() *cobra.Command {
	var f resetFlags
	cmd := &cobra.Command{
		Use:   "reset GROUP [GROUP...] | --all-groups | -r PATTERN...  --to SPEC  --topic T[:P,...] | --all-topics",
		Short: "Move consumer-group offsets (dry run by default; --execute writes a backup, commits and verifies)",
		Long: `Move the committed offsets of inactive consumer groups.

--to SPEC is one of: earliest, latest, current, N (an exact offset),
shift:+N / shift:-N (relative to the committed offset), time:TIME (first
offset at or after that time: RFC 3339, YYYY-MM-DD[THH:MM[:SS[.sss]]] in UTC
unless a zone follows, or unix milliseconds), ago:DURATION (90m, 3d, 1d12h,
PT90M, P1DT2H), file:PLAN.csv (Apache's --export/--from-file CSV), group:OTHER
(copy another group's committed offsets) or translated:ALIAS (MirrorMaker 2's
translation of the group's offsets on source cluster ALIAS: see translate).
Apache's flags --to-earliest, --to-latest, --to-current, --to-offset,
--shift-by, --to-datetime, --by-duration and --from-file are accepted too.

Without --execute nothing changes: the plan is printed. With --execute the
whole plan is validated, a backup of the current offsets is written and
fsynced, and each group's offsets are committed in one transaction (never
joining the group), so the group moves from all its old offsets to all its new
ones at once, whatever the size; the offsets are then read back and compared
with the plan. The transactional id is --transactional-id-prefix + GROUP: a
second offsetctl on the same group fences the first, and a run whose group
changed since its plan refuses (exit 1, nothing changed). Where transactions
are not allowed, --non-atomic commits in plain OffsetCommits instead.
Restore with: offsetctl reset GROUP --to file:BACKUP.csv --execute
A backup (or snapshot) records the id of the cluster it was written on:
restoring it on another cluster is refused (exit 2), dry run too;
--other-cluster ID restores it anyway, for that cluster rebuilt under a
new id.`,
		Example: `  offsetctl reset orders-billing --topic orders --to earliest
  offsetctl reset orders-billing --topic orders:0,1 --to shift:-100 --execute
  offsetctl reset orders-billing --all-topics --to ago:2h --execute
  offsetctl reset orders-billing --all-topics --to-datetime 2026-11-30T10:00:00.000 --export > plan.csv
  offsetctl reset orders-billing --topic orders --to time:2026-11-30T06:00:00Z      # dry run: where a time puts each partition
  offsetctl reset orders-billing --to file:offsetctl-backup-orders-billing-20261130T101500.412Z.csv --execute   # restore from the backup an --execute wrote`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runReset(cmd, args, f)
		},
	}
	fl := cmd.Flags()
	f.sel.flags(fl, "every consumer group (active groups and share groups are skipped with a warning, and an active group with commits in the scope makes the run exit 1; so with --regex)")
	enumVar(fl, &f.to, "to", "", "", "target: an offset N or", enum{choices: []string{"earliest", "latest", "current", "shift:±N", "time:T", "ago:D", "file:PLAN.csv", "group:OTHER", "translated:ALIAS"},
		complete: a.completeResetTarget})
	fl.StringArrayVarP(&f.topics, "topic", "t", nil, "scope: TOPIC (every partition) or TOPIC:P,P (repeatable)")
	fl.BoolVar(&f.allTopics, "all-topics", false, "scope: every partition the group has committed offsets on (not with --topic)")
	fl.BoolVar(&f.execute, "execute", false, "apply the plan (default: dry run)")
	fl.BoolVar(&f.dryRun, "dry-run", false, "only print the plan (the default; not with --execute)")
	fl.BoolVar(&f.export, "export", false, "print the plan as Apache's CSV (topic,partition,offset; group first for several groups); -o csv is the same CSV, -o table or json is refused")
	fl.StringVar(&f.backup, "backup", "", "with --execute: backup file written before it commits (default offsetctl-backup-GROUP-UTCTIME.csv)")
	fl.StringVar(&f.txnPrefix, "transactional-id-prefix", admin.DefaultTxnIDPrefix, fmt.Sprintf("--execute commits each group in one transaction with id PREFIX+GROUP; runs with the same id fence each other (printable, no blanks at the ends, at most %d bytes: the id lands in broker logs, ACLs and __transaction_state, prefixed to each group id)", maxTxnPrefix))
	fl.BoolVar(&f.nonAtomic, "non-atomic", false, "commit without a transaction (plain OffsetCommits, split at the 1 MiB batch limit: a failure between them leaves the group partly changed)")
	fl.IntVar(&f.parallel, "parallel-groups", change.DefaultParallel, "with --execute and several groups: how many groups are changed at once (each in its own transaction; results are reported in plan order)")
	fl.BoolVar(&f.toEarliest, "to-earliest", false, "alias of --to earliest")
	fl.BoolVar(&f.toLatest, "to-latest", false, "alias of --to latest")
	fl.BoolVar(&f.toCurrent, "to-current", false, "alias of --to current")
	fl.StringVar(&f.toOffset, "to-offset", "", "alias of --to N")
	fl.StringVar(&f.shiftBy, "shift-by", "", "alias of --to shift:N")
	fl.StringVar(&f.toDatetime, "to-datetime", "", "alias of --to time:T (Apache's YYYY-MM-DDTHH:mm:SS.sss, UTC without a zone; also RFC 3339, YYYY-MM-DD, unix ms)")
	fl.StringVar(&f.byDuration, "by-duration", "", "alias of --to ago:D (ISO-8601 like PT1H; also 90m, 3d, 1d12h)")
	fl.StringVar(&f.fromFile, "from-file", "", "alias of --to file:PATH")
	fl.StringVar(&f.otherCluster, "other-cluster", "", "with --to file:PLAN: restore a plan written on cluster `ID` (its offsetctl:cluster line) on the cluster connected now, whose id differs: only for that cluster rebuilt under a new id; recorded in the reset's entry")
	return cmd
}

// targetSpec merges --to and Apache's aliases into one SPEC.
func (f resetFlags) targetSpec(cmd *cobra.Command) (string, error) {
	var specs []string
	add := func(flag, spec string) {
		if changed(cmd.Flags(), flag) {
			specs = append(specs, spec)
		}
	}
	add("to", f.to)
	add("to-earliest", "earliest")
	add("to-latest", "latest")
	add("to-current", "current")
	add("to-offset", strings.TrimSpace(f.toOffset))
	add("shift-by", "shift:"+strings.TrimSpace(f.shiftBy))
	add("to-datetime", "time:"+strings.TrimSpace(f.toDatetime))
	add("by-duration", "ago:"+strings.TrimSpace(f.byDuration))
	add("from-file", "file:"+f.fromFile)
	switch len(specs) {
	case 0:
		return "", exitcode.Usagef("say where to move the offsets: --to SPEC (%s)", admin.TargetForms)
	case 1:
		return specs[0], nil
	}
	return "", exitcode.Usagef("give exactly one target (--to or one of Apache's --to-* flags), got %d: %s", len(specs), strings.Join(specs, ", "))
}

// resetReq is a reset's command line, checked: nothing in it needs the
// cluster.
type resetReq struct {
	target   admin.Target
	scope    lag.Scope
	file     *admin.PlanFile
	sel      selection
	fromFile bool // the groups are the plan file's (none named)
	oneGroup bool // JSON is an object: exactly one group was named
}

// resetRequest checks the flags and arguments and reads the plan file:
// bad input is exit 2 before any request.
func (a *app) resetRequest(cmd *cobra.Command, args []string, f resetFlags) (resetReq, error) {
	if f.export && changed(cmd.Flags(), "output") && a.format != report.CSV {
		return resetReq{}, exitcode.Usagef("--export prints Apache's CSV plan; it takes no -o %s", a.format)
	}
	if err := a.checkChangeFiles(cmd); err != nil {
		return resetReq{}, err
	}
	spec, err := f.targetSpec(cmd)
	if err != nil {
		return resetReq{}, err
	}
	target, err := admin.ParseTarget(spec, a.now())
	if err != nil {
		return resetReq{}, exitcode.Flag("--to", err)
	}
	if f.execute && f.dryRun {
		return resetReq{}, exitcode.Usagef("--execute and --dry-run contradict each other")
	}
	if err := checkCommitFlags(cmd); err != nil {
		return resetReq{}, err
	}
	if f.allTopics && len(f.topics) > 0 {
		return resetReq{}, exitcode.Usagef("--topic and --all-topics contradict each other")
	}
	scope, err := lag.ParseScope(f.topics)
	if err != nil {
		return resetReq{}, exitcode.Flag("--topic", err)
	}
	if target.NeedsScope() && scope.Empty() && !f.allTopics {
		return resetReq{}, exitcode.Usagef("name a scope: --topic TOPIC[:P,...] (repeatable) or --all-topics")
	}
	var file *admin.PlanFile
	fromFile := false // the groups are the plan file's (none named)
	if target.Kind == admin.ToFile {
		data, err := a.planData(target.Path)
		if err != nil {
			return resetReq{}, exitcode.Usagef("reading plan: %v", err)
		}
		pf, err := admin.ParsePlanCSV(data)
		if err != nil {
			return resetReq{}, exitcode.Usagef("plan %s: %v", target.Path, err)
		}
		if len(pf.Rows) == 0 {
			return resetReq{}, exitcode.Usagef("plan %s has no rows", target.Path)
		}
		file = &pf
		fromFile = !f.sel.given(args) && pf.Columns == 4
	}
	if err := checkOtherClusterFlag(f.otherCluster, target, file); err != nil {
		return resetReq{}, err
	}
	var sel selection
	if fromFile {
		sel.Groups = file.GroupsIn()
		if err := checkGroupArgs(sel.Groups); err != nil {
			return resetReq{}, err
		}
	} else if sel, err = f.sel.resolve(args, false); err != nil {
		return resetReq{}, err
	}
	for _, g := range sel.Groups {
		if target.Kind == admin.ToGroup && g == target.Group {
			return resetReq{}, exitcode.Usagef("group %s cannot copy its own offsets", safetext.Arg(g))
		}
	}
	// JSON is an object only when exactly one group was named, whatever
	// the cluster holds.
	oneGroup := !sel.All && !fromFile && len(lag.Dedupe(sel.Groups)) == 1
	if target.Kind == admin.ToGroup {
		if err := checkGroupArgs([]string{target.Group}); err != nil {
			return resetReq{}, err
		}
	}
	return resetReq{target: target, scope: scope, file: file, sel: sel, fromFile: fromFile, oneGroup: oneGroup}, nil
}

func (a *app) runReset(cmd *cobra.Command, args []string, f resetFlags) (err error) {
	req, err := a.resetRequest(cmd, args, f)
	if err != nil {
		return err
	}
	target, scope, file, sel, fromFile := req.target, req.scope, req.file, req.sel, req.fromFile
	oneGroup := req.oneGroup

	cfg, adm, err := a.admin(cmd.Context())
	if err != nil {
		return err
	}
	defer adm.Close()
	if target.Kind == admin.ToFile {
		// Before anything is read for the plan: a file of another
		// cluster is never restored here, dry run or not. A reset run
		// by undo has its --other-cluster (undo checked its entry).
		other, byUndo := f.otherCluster, a.undoOf != ""
		if byUndo && other == "" {
			other = a.otherCluster
		}
		if err := a.checkPlanCluster(cmd.Context(), cfg, adm, target.Path, file, other, byUndo); err != nil {
			return err
		}
	}
	if target.Kind == admin.ToTranslated {
		if sel.All || sel.Match != nil {
			return exitcode.Usagef("--to translated:ALIAS resets named groups: name them (not --all-groups or --regex)")
		}
		if file, err = a.translatedPlan(cmd.Context(), cfg, adm, target.Alias, lag.Dedupe(sel.Groups), scope); err != nil {
			return err
		}
	}

	gctx, cancel := context.WithTimeout(cmd.Context(), cfg.Timeout)
	in, err := admin.GatherReset(gctx, adm, admin.ResetRequest{Groups: sel.Groups, AllGroups: sel.All, Match: sel.Match, Target: target, Scope: scope, AllTopics: f.allTopics, File: file, GroupsFromFile: fromFile})
	cancel()
	if err != nil {
		return a.planErr(cfg, gctx, err)
	}
	if sel.Match != nil && len(in.Groups) == 0 {
		for _, g := range in.Snapshot.SkippedShare {
			a.warnf("%s", lag.ShareSkipWarning(g, "reset it"))
		}
		return sel.noMatch("consumer group", in.Snapshot.SkippedKind, "reset")
	}
	a.warnUnmatched(sel, in.Snapshot.SkippedKind, "reset")
	plan, err := admin.PlanReset(in)
	if err != nil {
		return a.planErr(cfg, gctx, err)
	}
	for _, w := range plan.Warnings {
		a.warnf("%s", w)
	}
	var rec *auditRec
	if f.execute {
		// The result err, not a shadow: finish must see what the
		// command returns. After an intent, the change engine records
		// the outcome itself and this finish does nothing.
		var aerr error
		if rec, aerr = a.beginAudit(cmd.Context(), adm, audit.ActReset); aerr != nil {
			return aerr
		}
		defer func() { err = rec.finish(err, resetAudit(&plan)) }()
	}
	render := func() error {
		if f.export {
			w := a.stdout
			if a.format != report.CSV && a.ios().IsStdoutTTY() {
				// --export is CSV whatever -o says: on a terminal it is
				// escaped as -o csv is there (app.go).
				w = report.TerminalCSV(safetext.Lines(w))
			}
			return report.ResetExport(w, plan)
		}
		return report.Reset(a.stdout, a.format, plan, oneGroup)
	}
	// A plan that cannot be applied is a failure even when stdout's
	// reader left before its table was written (stdout.go).
	if errs := plan.Errors(); len(errs) > 0 {
		return withOutput(fmt.Errorf("nothing was committed: %w", change.SummarizeErrors(errs)), render())
	}
	if refusals := plan.Refusals(); len(refusals) > 0 {
		return withOutput(fmt.Errorf("nothing was committed: %s", strings.Join(refusals, "; ")), render())
	}
	if !f.execute {
		werr := render()
		if live := plan.SkippedLive(); len(live) > 0 {
			// The dry run fails as --execute would: those groups would
			// be left as they are (whatever happens to stdout).
			if werr == nil {
				a.infof("dry run: nothing changed. Add --execute to apply this plan.")
			}
			return withOutput(&skippedLiveError{op: resetOp, groups: live, dryRun: true, none: !plan.HasWork()}, werr)
		}
		if werr != nil {
			return werr
		}
		a.infof("dry run: nothing changed. Add --execute to apply this plan.")
		return nil
	}
	return a.executeReset(cmd.Context(), cfg, adm, &plan, f, render, rec)
}

// planErr classifies a gather or planning failure: usage (exit 2), an
// unreachable cluster, or an operational failure.
func (a *app) planErr(cfg cluster.Config, ctx context.Context, err error) error {
	if exitcode.Code(err) == exitcode.Usage {
		return err
	}
	if ctx.Err() != nil {
		return cfg.Unreachable(ctx.Err())
	}
	return err
}

// executeReset hands the validated plan to the change engine
// (change.Reset), which decides the order of the side effects; this
// supplies the backup file, the audit record and the printing.
func (a *app) executeReset(ctx context.Context, cfg cluster.Config, adm *cluster.Admin, plan *admin.Plan, f resetFlags, render func() error, rec *auditRec) error {
	eng := &change.Reset{
		Plan: plan, Admin: adm, NonAtomic: f.nonAtomic, TxnPrefix: f.txnPrefix, Parallel: f.parallel,
		Deadline: cfg.Timeout, Resolve: a.timeout, Unreachable: cfg.Unreachable, Prog: a.prog(),
		WriteBackup: func(groups []admin.BackupGroup) (string, error) {
			return writeBackup(f.backup, a.now(), a.backupClusterID(ctx, cfg, adm, "backup"), groups)
		},
		Intent: func() error { return rec.writeIntent(resetAudit(plan)) },
		// The live groups a selection skipped are part of the outcome:
		// the entry and the exit code say they were not reset.
		Outcome: func(err error) error {
			return rec.finish(withSkippedLiveOp(resetOp, err, plan.SkippedLive(), !plan.HasWork()), resetAudit(plan))
		},
		Note: a.notef,
		Report: func(res change.ResetResult, err error) error {
			if len(res.Todo) == 0 {
				werr := render()
				if err := withSkippedLiveOp(resetOp, nil, plan.SkippedLive(), !plan.HasWork()); err != nil {
					return withOutput(err, werr) // recorded by runReset's finish
				}
				if werr != nil {
					return werr
				}
				if skippedAny(plan) {
					// Every group with something in scope was skipped
					// (a name no backup can hold, a share group...): the
					// warnings above say which and why.
					a.infof("nothing to reset: every selected group with something in scope was skipped (see the warnings above)")
					return nil
				}
				a.infof("nothing to reset: no partition in scope")
				return nil
			}
			return loudAfterChange(a.reportReset(plan, res.Todo, f, res.Backup, rec.id(), render, err))
		},
	}
	return eng.Execute(ctx)
}

// maxTxnPrefix bounds --transactional-id-prefix: the prefix is a fixed
// name an operator types into ACLs (a PREFIXED TransactionalId) and reads in
// broker logs, and every group id is appended to it; 128 bytes is far
// beyond any real prefix and keeps the id short of what a broker logs whole.
const maxTxnPrefix = 128

// checkTxnPrefix checks --transactional-id-prefix before any request: the
// prefix becomes a broker's transactional id, so a control character
// (ESC, BEL) or a blank at either end would land there raw. The value is
// never echoed (exit 2 names the flag and what is wrong).
func checkTxnPrefix(s string) error {
	if len(s) > maxTxnPrefix {
		return exitcode.Usagef("--transactional-id-prefix is %d bytes long: at most %d", len(s), maxTxnPrefix)
	}
	if safetext.Name(s) != s {
		return exitcode.Usagef("--transactional-id-prefix must be printable text with no control characters and no blank at either end")
	}
	return nil
}

// maxParallelGroups bounds --parallel-groups: each group in flight holds
// a transactional id and a few requests at the coordinators; more than
// this only queues requests at the broker.
const maxParallelGroups = 256

// reportReset prints the plan (stdout), the backup and undo line and what
// was done (stderr), and returns the reset's error err, or a failure to
// print the plan.
func (a *app) reportReset(plan *admin.Plan, todo []int, f resetFlags, path, id string, render func() error, err error) error {
	// The plan goes to stdout; what was done goes to stderr whatever
	// happens to stdout (a closed pipe must not hide a commit).
	renderErr := render()
	a.infof("%s", resetBackupLine(a.prog(), path, plan, todo, id))
	for _, i := range todo {
		if n := plan.Groups[i].CommitRequests; n > 1 && f.nonAtomic {
			a.notef("group %s: the commit exceeded the group coordinator's batch limit (1 MiB by default), so it was sent as %d OffsetCommit requests, each atomic", safetext.Arg(plan.Groups[i].Group), n)
		}
	}
	if err != nil && !onlySkippedLive(err) {
		return err
	}
	changed, unchanged, superseded := 0, 0, 0
	for _, i := range todo {
		c, u := plan.Groups[i].Changes()
		changed, unchanged = changed+c, unchanged+u
		if gp := plan.Groups[i]; gp.Superseded {
			superseded++
			a.notef("group %s: %s", safetext.Arg(gp.Group), gp.Note)
		} else if gp.Note != "" {
			a.notef("group %s: %s", safetext.Arg(gp.Group), gp.Note) // a lost answer, resolved
		}
	}
	verified := "read back and verified"
	if superseded > 0 {
		verified = fmt.Sprintf("read back and verified, except %d group(s) another offsetctl changed again after this run's commit", superseded)
	}
	a.infof("reset %d group(s): %d partition(s) changed, %d unchanged; %s", len(todo), changed, unchanged, verified)
	if renderErr != nil {
		perr := fmt.Errorf("the reset was applied, but printing its plan failed: %w", renderErr)
		if err != nil {
			return fmt.Errorf("%w; and %v", perr, err) // the skipped live groups are still named
		}
		return perr
	}
	return err // nil, or the live groups a selection skipped
}

// resetBackupLine says where the backup is and how to undo the reset,
// naming only the groups the reset changed: a group whose every commit was
// refused (a consumer joined after the check) is unchanged, and restoring
// it from the backup would only be refused in turn.
//
// A group whose outcome is unknown (the commit's answer lost and not
// settled) is named too: restoring it is right if the commit landed and
// changes nothing if it did not. With id (the audit entry), the line says
// how to find out which.
//
// Each command in it starts with prog (offsetctl and the connection
// flags the reset was given, app.prog): pasted, it acts on the cluster
// the reset changed, never on KAFKA_BROKERS or localhost instead.
func resetBackupLine(prog, path string, plan *admin.Plan, todo []int, id string) string {
	var applied, unknown []string
	unverified := 0
	for _, i := range todo {
		switch groupOutcome(plan.Groups[i]) {
		case audit.Unverified:
			// Changed, though its read-back missed some partitions: the
			// backup restores it, those partitions too.
			unverified++
			applied = append(applied, plan.Groups[i].Group)
		case audit.Applied, audit.Partly:
			applied = append(applied, plan.Groups[i].Group)
		case audit.Unknown:
			applied = append(applied, plan.Groups[i].Group)
			unknown = append(unknown, plan.Groups[i].Group)
		}
	}
	file := shellQuote("file:" + path)
	if id != "" && len(applied) > maxUndoLineGroups && (len(unknown) > 0 || len(applied) != len(todo)) {
		// Naming every group would make a line of kilobytes: the
		// audit entry knows them, and undo restores exactly those.
		what := fmt.Sprintf("undo: %s undo %s --execute", prog, id)
		if len(unknown) > 0 {
			what = fmt.Sprintf("whether the change of %d group(s) reached the cluster is unknown: check with: %s history --verify %s; undo whatever landed: %s undo %s --execute", len(unknown), prog, id, prog, id)
		}
		return fmt.Sprintf("backup of the previous offsets: %s (%d groups; %s)", safetext.Name(path), len(applied), what)
	}
	if len(unknown) > 0 {
		check := prog + " lag " + groupArg(unknown[0])
		if id != "" {
			check = prog + " history --verify " + id
		}
		args := make([]string, len(applied))
		for i, g := range applied {
			args[i] = groupArg(g)
		}
		return fmt.Sprintf("backup of the previous offsets: %s (whether the change of %d group(s) reached the cluster is unknown: check with: %s; undo whatever landed: %s reset %s --to %s --execute)", safetext.Name(path), len(unknown), check, prog, strings.Join(args, " "), file)
	}
	note := ""
	if unverified > 0 {
		note = fmt.Sprintf("; it also restores the %d group(s) committed but not read back as planned (outcome unverified)", unverified)
	}
	switch {
	case len(applied) == 0:
		return fmt.Sprintf("backup of the previous offsets: %s (nothing was committed, so there is nothing to undo)", safetext.Name(path))
	case len(applied) == len(todo) && len(todo) > 1:
		return fmt.Sprintf("backup of the previous offsets: %s (undo: %s reset --to %s --execute%s)", safetext.Name(path), prog, file, note)
	}
	args := make([]string, len(applied))
	for i, g := range applied {
		args[i] = groupArg(g)
	}
	return fmt.Sprintf("backup of the previous offsets: %s (undo: %s reset %s --to %s --execute%s)", safetext.Name(path), prog, strings.Join(args, " "), file, note)
}

// skippedAny reports whether the plan lists a group its selection skipped.
func skippedAny(plan *admin.Plan) bool {
	for _, g := range plan.Groups {
		if strings.HasPrefix(g.Note, "skipped") {
			return true
		}
	}
	return false
}

// maxUndoLineGroups is the most groups the undo line names one by one;
// with more, and an audit entry, it points to offsetctl undo ID.
const maxUndoLineGroups = 5

// writeBackup writes the backup of cluster clusterID's groups to path
// given with --backup (an existing file there is an error) or, with no
// path, to a default name that is new: the tool chose it, so it never
// fails because the name is taken and never overwrites. It returns the
// path written.
func writeBackup(path string, at time.Time, clusterID string, groups []admin.BackupGroup) (string, error) {
	if path != "" {
		return path, admin.WriteBackupFile(path, at, clusterID, groups)
	}
	return admin.WriteNewBackupFile(defaultBackupStem(groups, at), at, clusterID, groups)
}

// defaultBackupStem is the default backup name without ".csv":
// offsetctl-backup-GROUP-UTCTIME or offsetctl-backup-N-groups-UTCTIME, the
// time to the millisecond (WriteNewBackupFile adds -2, -3... if taken).
func defaultBackupStem(groups []admin.BackupGroup, at time.Time) string {
	ts := at.UTC().Format("20060102T150405.000Z")
	if len(groups) == 1 {
		return fmt.Sprintf("offsetctl-backup-%s-%s", admin.SafeFileName(groups[0].Group), ts)
	}
	return fmt.Sprintf("offsetctl-backup-%d-groups-%s", len(groups), ts)
}

// shellQuote quotes s as one shell word that hands offsetctl exactly its
// bytes (safetext.Shell: $'...' for control bytes).
func shellQuote(s string) string { return safetext.Shell(s) }

// groupArg is a group as a copy-paste argument of an undo command: a name
// starting with '-' would be read as a flag, so it goes in --group=.
func groupArg(g string) string {
	if strings.HasPrefix(g, "-") {
		return shellQuote("--group=" + g)
	}
	return shellQuote(g)
}

// checkBackupFlag checks --backup of reset, delete-offsets, delete-group
// and undo before any request. An explicitly empty one is refused (it
// would silently mean the default name). With --execute, a path that
// cannot be the new backup is bad input, exit 2, with nothing sent: one
// that exists (a backup never overwrites), no such directory, no
// permission; so is a current directory that cannot take the default
// name. An existing --backup was exit 1 "nothing was committed", found
// only once the plan was made and the transaction permission checked,
// while snapshot --out refused the same with exit 2.
func checkBackupFlag(cmd *cobra.Command) error {
	f := cmd.Flags().Lookup("backup")
	if f != nil && f.Changed && strings.TrimSpace(f.Value.String()) == "" {
		return exitcode.Usagef("--backup is empty: give a file path, or leave the flag out for offsetctl-backup-GROUP-UTCTIME.csv")
	}
	if execute, _ := cmd.Flags().GetBool("execute"); !execute || f == nil {
		return nil
	}
	if f.Changed {
		return checkOut("--backup", f.Value.String(), durable.CheckNew, "cannot be created", "a backup never overwrites")
	}
	if err := durable.CheckDir("."); err != nil && durable.UserPath(err) {
		return exitcode.Usagef("the backup cannot be written to the current directory (%v): name its file with --backup", err)
	}
	return nil
}

// checkChangeFiles checks, before any request, the files a change
// writes: its backup (checkBackupFlag) and, with --execute, the audit log
// it appends to (checkAuditForChange).
func (a *app) checkChangeFiles(cmd *cobra.Command) error {
	if err := checkBackupFlag(cmd); err != nil {
		return err
	}
	if execute, _ := cmd.Flags().GetBool("execute"); execute {
		return a.checkAuditForChange()
	}
	return nil
}

// checkAuditForChange checks, before any request, the audit log a change
// or a replay will append to: a path that cannot be a log (a device, a
// directory, a link, another user's file) or whose directory takes no
// file is bad input, exit 2, said as opening the log says it. It was
// found only when the log was opened, after the plan was made (or the
// replay's cluster reached); opening it still decides (a FIFO with no
// reader, a disk that fails).
func (a *app) checkAuditForChange() error {
	if a.noAudit {
		return nil
	}
	path, err := a.auditPath()
	if err != nil || path == audit.Stdio {
		return nil // said when the log is opened
	}
	err = audit.CheckPath(path, a.auditExplicit(), true)
	if dir := filepath.Dir(path); err == nil && !missing(dir) {
		// The log's own directory must take its file; one still to be
		// made is left to opening the log (no probe in $HOME).
		if derr := durable.CheckDir(dir); derr != nil && durable.UserPath(derr) {
			err = exitcode.Usagef("audit log %s: %v", safetext.Arg(path), derr)
		}
	}
	if err != nil {
		return &exitcode.Error{Code: exitcode.Code(err), Err: fmt.Errorf("nothing was changed: the audit log cannot be written (%v); fix it, point --audit-log elsewhere, or opt out with --no-audit", err)}
	}
	return nil
}

// missing says whether nothing is at path.
func missing(path string) bool {
	_, err := os.Lstat(path)
	return errors.Is(err, fs.ErrNotExist)
}
