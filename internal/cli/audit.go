package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"sort"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetctl/offsetctl/internal/admin"
	"github.com/offsetctl/offsetctl/internal/audit"
	"github.com/offsetctl/offsetctl/internal/cluster"
	"github.com/offsetctl/offsetctl/internal/exitcode"
	"github.com/offsetctl/offsetctl/internal/inputfile"
	"github.com/offsetctl/offsetctl/internal/safetext"
	"github.com/offsetctl/offsetctl/replay"
)

// auditRec is one audited command: the log opened before the change, the
// intent appended before the first request that can change the cluster,
// and the outcome (or, for a command that changed nothing, one
// self-contained entry) appended once the change returns.
type auditRec struct {
	a     *app
	log   *audit.Log // nil with --no-audit
	entry audit.Entry
	start time.Time
	// intent is the id of the intent on the record, "" before; planned
	// is that intent as written (what a check of the change starts from).
	intent  string
	planned audit.Entry
	// done: the outcome (or the entry) is written, or the log failed
	// before the change: nothing more is appended.
	done bool
}

// auditResult is what a command's fill reports of its result.
type auditResult struct {
	// applied counts the partitions changed as planned (Entry.Applied),
	// written those sent, changed those whose offset moved.
	applied, written, changed int
	// refused: the guard refused and nothing was sent.
	refused bool
	// outcome, when the command knows it (from the broker's answers
	// and its read-back), else "" and it is classified from the error.
	outcome string
}

// auditFill fills an entry from a command's plan or result.
type auditFill func(e *audit.Entry) auditResult

// auditPath is the log's path: --audit-log, else audit.DefaultPath.
func (a *app) auditPath() (string, error) {
	if a.auditLog != "" {
		return a.auditLog, nil
	}
	return audit.DefaultPath(a.getenv)
}

// auditExplicit says whether the user named the log (the flag or the
// variable): only then is a FIFO or "-" accepted.
func (a *app) auditExplicit() bool {
	return a.auditLog != "" || a.getenv(audit.EnvLog) != ""
}

// auditOptions are the log's options for a command: the append deadline
// is --timeout; rotation from --audit-rotate-size or its variable.
func (a *app) auditOptions(ctx context.Context) (audit.Options, error) {
	o := audit.Options{
		Explicit: a.auditExplicit(), Stream: a.stderr, Context: ctx, Deadline: a.timeout,
		Gzip: a.auditGzip, Warn: func(s string) { a.warnf("%s", s) },
	}
	flag, v := "--audit-rotate-size", a.auditRotate
	if v == "" {
		flag, v = "$"+audit.EnvRotateSize, a.getenv(audit.EnvRotateSize)
	}
	if v != "" {
		n, err := audit.ParseSize(v)
		if err != nil {
			return o, exitcode.Flag(flag, err)
		}
		o.RotateSize = n
		if n == 0 {
			o.RotateSize = -1
		}
	}
	return o, nil
}

// beginAudit opens the audit log before a change, so that a log that
// cannot be written stops the change (nothing changed: exit 2 for a path
// that cannot be a log, exit 1 for a log that fails).
func (a *app) beginAudit(ctx context.Context, adm *cluster.Admin, action string) (*auditRec, error) {
	r := &auditRec{a: a, start: a.now()}
	if a.noAudit {
		return r, nil
	}
	path, err := a.auditPath()
	if err != nil {
		return nil, fmt.Errorf("nothing was changed: %w", err)
	}
	opt, err := a.auditOptions(ctx)
	if err != nil {
		return nil, err
	}
	l, err := audit.OpenWith(path, opt)
	if err != nil {
		// A path that cannot be a log (a device, a directory, a link)
		// is bad input, exit 2; a log that fails is exit 1 (audit's
		// path.go). Nothing was changed either way.
		return nil, &exitcode.Error{Code: exitcode.Code(err), Err: fmt.Errorf("nothing was changed: the audit log cannot be written (%v); fix it, point --audit-log elsewhere, or opt out with --no-audit", err)}
	}
	r.log = l
	if a.trailTopic != "" && adm != nil {
		tctx, cancel := context.WithTimeout(ctx, a.timeout)
		err := audit.CheckTopic(tctx, adm, a.trailTopic)
		cancel()
		if err != nil {
			l.Close()
			return nil, fmt.Errorf("nothing was changed: the shared audit trail cannot be written (%v); fix it, or opt out with --no-audit", err)
		}
	}
	if a.auditAction != "" {
		action = a.auditAction
	}
	e := &r.entry
	e.V, e.ID, e.Time, e.Action = audit.Version, audit.NewID(r.start), r.start.UTC(), action
	e.UndoOf, e.OtherClusterID = a.undoOf, a.otherCluster
	e.User, e.Host = osUser(a.getenv), hostName()
	e.Profile = a.profile
	if a.conn != nil {
		for _, b := range a.conn.Brokers {
			e.Brokers = append(e.Brokers, audit.RedactString(b, a.secrets))
		}
	}
	e.Command = audit.RedactArgs(a.args, a.secrets)
	if adm != nil {
		mctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		if m, err := adm.BrokerMetadata(mctx); err == nil {
			e.ClusterID = m.Cluster
		}
		cancel()
	}
	e.ForcedOver = a.forcedOver
	return r, nil
}

// id is the id the change is recorded under ("" without a log).
func (r *auditRec) id() string {
	if r == nil || r.log == nil {
		return ""
	}
	return r.entry.ID
}

// writeIntent appends and fsyncs the intent: the entry fill makes of the
// plan (groups, partitions, before and planned after, the backup and its
// SHA-256), before the first request that can change the cluster. An
// intent that cannot be written stops the change: nothing was changed
// (exit 1), and nothing more is appended.
func (r *auditRec) writeIntent(fill auditFill) error {
	if r == nil || r.log == nil {
		return nil
	}
	e := r.entry
	fill(&e)
	e.Kind, e.Outcome = audit.KindIntent, audit.Unknown
	for i := range e.Changes {
		e.Changes[i].Error = "" // a plan: nothing has failed yet
	}
	r.prepare(&e)
	err := r.log.Append(e)
	if err == nil && r.a.trailTopic != "" {
		err = r.a.produceTrail(e)
	}
	if err != nil {
		r.done = true
		r.log.Close()
		return fmt.Errorf("nothing was changed: the audit intent could not be written (%v); fix it, point --audit-log elsewhere, or opt out with --no-audit", err)
	}
	r.intent, r.planned = e.ID, e
	return nil
}

// prepare completes an entry before it is appended: the counts, the
// backup's absolute path and SHA-256, secrets redacted.
func (r *auditRec) prepare(e *audit.Entry) {
	e.Partitions = len(e.Changes)
	if e.Backup != "" {
		if abs, aerr := filepath.Abs(e.Backup); aerr == nil {
			e.Backup = abs
		}
		if sum, herr := fileSHA256(e.Backup); herr == nil {
			e.BackupSHA256 = sum
		}
	}
	// A secret typed anywhere (even into a file name) never reaches the
	// log.
	e.Backup = audit.RedactString(e.Backup, r.a.secrets)
	e.Checkpoint = audit.RedactString(e.Checkpoint, r.a.secrets)
	e.TransactionalID = audit.RedactString(e.TransactionalID, r.a.secrets)
	e.Error = audit.RedactString(e.Error, r.a.secrets)
	if e.Changes == nil {
		e.Changes = []audit.Change{}
	}
}

// finish appends, for a change that returned err, its outcome (after an
// intent) or its one entry, and returns err. When the append fails after
// a change, the change is still reported (err and what was applied are
// kept) and the run fails (exit 1) with a line saying the trail is
// missing this outcome: the intent, on the record, reads as unknown.
func (r *auditRec) finish(err error, fill auditFill) error {
	if r == nil || r.log == nil || r.done {
		return err
	}
	r.done = true
	defer r.log.Close()
	e := &r.entry
	res := fill(e)
	e.Applied = audit.Count(res.applied)
	if r.intent == "" {
		if err == nil && res.applied == 0 && len(e.Changes) == 0 && e.Records == nil {
			return nil // nothing was in scope: nothing changed, nothing to record
		}
		if exitcode.Code(err) == exitcode.Usage && res.applied == 0 {
			return err // bad input: nothing was done
		}
	}
	e.Outcome = res.outcome
	if e.Outcome == "" {
		e.Outcome = audit.Outcome(err, res.refused, res.applied)
	}
	e.ExitCode = exitcode.Code(err)
	e.DurationMs = r.a.now().Sub(r.start).Milliseconds()
	if err != nil {
		e.Error = errorLine(err)
	}
	if r.intent != "" {
		e.Written, e.Changed = audit.Count(res.written), audit.Count(res.changed)
	}
	e.ForgetUnknownCounts()
	r.prepare(e)
	line := *e
	if r.intent != "" {
		line = outcomeOf(*e, r.intent, r.a.now())
	}
	aerr := r.log.Append(line)
	if aerr != nil {
		return withUnrecorded(err, r.unrecorded(*e, aerr))
	}
	if r.a.trailTopic != "" {
		if terr := r.a.produceTrail(line); terr != nil {
			// The local log has the outcome: only the shared trail
			// lacks it, and reads the change as unknown.
			return withUnrecorded(err, fmt.Errorf("outcome %s of audit entry %s is recorded in %s but NOT in the shared trail (%v): readers of audit topic %s see its intent only, as unknown", e.Outcome, e.ID, r.log.Path(), terr, safetext.Name(r.a.trailTopic)))
		}
	}
	switch {
	case r.intent != "" && (err == nil || e.Backup != ""):
		// The console names the outcome in the entry's word. A failed
		// backfill (no backup, no undo) ends on its error and resume
		// line alone.
		r.a.infof("audit: recorded as %s in %s (outcome: %s)", e.ID, r.log.Path(), e.Outcome)
		if e.Outcome == audit.Unknown {
			r.a.infof("whether the change reached the cluster is unknown: %s", r.a.checkWords(r.planned))
		}
	case err == nil || (res.applied > 0 && e.Backup != ""):
		// A partial offset change names its entry too (undo needs the
		// id); the error still comes last. A failed replay or backfill
		// ends on its error and resume line alone.
		r.a.infof("audit: recorded as %s in %s", e.ID, r.log.Path())
	}
	return err
}

// unrecorded is the loud line of entry e (its result filled in) that the
// log did not take (aerr): what was done, in the counts the entry would
// have held (unknown ones said as such), and that it is not on the record.
func (r *auditRec) unrecorded(e audit.Entry, aerr error) error {
	if r.intent != "" {
		changed := "which partitions changed is not known"
		switch {
		case e.Action == audit.ActBackfill && e.Produced != nil:
			changed = fmt.Sprintf("%d cop(ies) acknowledged", *e.Produced)
		case e.Changed != nil:
			changed = fmt.Sprintf("%d partition(s) changed", *e.Changed)
		}
		return fmt.Errorf("outcome %s (%s), but the outcome of audit entry %s is NOT recorded (%v): its intent is, and reads as unknown; %s", e.Outcome, changed, e.ID, aerr, r.a.checkWords(r.planned))
	}
	what := "the change was made"
	if e.Applied == nil || *e.Applied == 0 {
		what = "the command ran"
	}
	applied := "partitions applied not known"
	if e.Applied != nil {
		applied = fmt.Sprintf("%d partition(s) applied", *e.Applied)
	}
	return fmt.Errorf("%s (outcome %s, %s), but audit entry %s is NOT recorded: %v", what, e.Outcome, applied, e.ID, aerr)
}

// withUnrecorded is the command's error err with loud, the line saying
// its entry is not in the log: one error, printed once by execute. An
// err that would end the run without a word (a replay whose reader left,
// a closed stdout alone) gives way to loud: a record that was not written
// is an operational failure (exit 1); any other keeps its exit code.
func withUnrecorded(err, loud error) error {
	var ee *exitcode.Error
	if err == nil || errors.As(err, &ee) && ee.Quiet || stdoutClosed(err) {
		return &exitcode.Error{Code: exitcode.Failure, Err: loud}
	}
	return errors.Join(err, loud)
}

// outcomeOf is the outcome line of the change e, recorded under intent:
// the result, the counts and only the partitions not changed as planned
// (the intent holds the plan; Join folds the two).
func outcomeOf(e audit.Entry, intent string, now time.Time) audit.Entry {
	o := audit.Entry{V: audit.Version, ID: audit.NewID(now), Kind: audit.KindOutcome, Intent: intent, Time: now.UTC(),
		Action: e.Action, User: e.User, Host: e.Host, ClusterID: e.ClusterID, Profile: e.Profile, Brokers: e.Brokers,
		Groups: e.Groups, Topics: e.Topics, Partitions: e.Partitions, Applied: e.Applied, Written: e.Written, Changed: e.Changed,
		UndoOf: e.UndoOf, OtherClusterID: e.OtherClusterID, Records: e.Records, Digest: e.Digest, PayloadDigest: e.PayloadDigest, Proof: e.Proof,
		Target: e.Target, Produced: e.Produced, Checkpoint: e.Checkpoint, PossibleDuplicates: e.PossibleDuplicates,
		Outcome: e.Outcome, ExitCode: e.ExitCode, DurationMs: e.DurationMs, Error: e.Error, Changes: []audit.Change{}}
	for _, c := range e.Changes {
		if c.Error != "" {
			o.Changes = append(o.Changes, c)
		}
	}
	return o
}

func fileSHA256(path string) (string, error) {
	f, err := inputfile.Open(path, inputfile.PlanLimit, 30*time.Second)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// osUser is the OS user running offsetctl.
func osUser(getenv func(string) string) string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	return getenv("USER")
}

func hostName() string {
	h, _ := os.Hostname()
	return h
}

// resetAudit fills an entry from a reset plan: every planned partition
// with its offset before and the target (nil: the commit is deleted); once
// executed, each group's outcome (admin decides it from the broker's
// answers and the read-back) and which partitions it changed.
func resetAudit(plan *admin.Plan) auditFill {
	return func(e *audit.Entry) auditResult {
		var res auditResult
		var outcomes []string
		topics := map[string]bool{}
		skipped := false
		for _, g := range plan.Groups {
			if g.SkippedLive {
				// Asked for by the selection and refused by the guard:
				// named, with no changes, so the entry reads partly (or
				// refused) rather than a complete success.
				skipped = true
				e.Groups = append(e.Groups, g.Group)
				e.SkippedLive = append(e.SkippedLive, g.Group)
				outcomes = append(outcomes, audit.Refused)
				continue
			}
			if len(g.Partitions) == 0 && g.Refused == "" {
				continue
			}
			e.Groups = append(e.Groups, g.Group)
			outcomes = append(outcomes, groupOutcome(g))
			if g.Backup != "" {
				e.Backup = g.Backup
			}
			for _, pp := range g.Partitions {
				if pp.Action == admin.ActSkip {
					continue
				}
				topics[pp.Topic] = true
				c := audit.Change{Group: g.Group, Topic: pp.Topic, Partition: pp.Partition, Before: pp.Current, Error: pp.Error}
				if pp.Action == admin.ActCommit {
					c.After = pp.Target
				}
				if pp.Unacked && partitionWritten(g, pp) {
					// Not acknowledged, but read back as planned, or
					// not known: written. An error here would read as
					// "not written" to undo (which would skip it) and
					// to the later-change check of an earlier entry;
					// the run's output and the entry's error say it was
					// not acknowledged.
					c.Error = ""
				}
				// A partition of a partly changed group whose batch got
				// no answer (Applied nil) may have been applied: written,
				// not known, and undo restores it (no error).
				known := g.Outcome != admin.OutcomeUnknown && (g.Outcome != admin.OutcomePartly || pp.Applied != nil)
				res.count(c, partitionWritten(g, pp), known)
				if !partitionWritten(g, pp) && c.Error == "" {
					c.Error = firstNonEmpty(g.Error, prefixed("refused: ", g.Refused), "not changed")
				}
				e.Changes = append(e.Changes, c)
			}
		}
		e.Topics = sortedKeys(topics)
		// Refused only when no group may have changed: one whose outcome
		// is unknown, partly or unverified (its EndTxn answer lost, a
		// batch unanswered, a read-back that differs) decides the outcome
		// with the others, skipped groups or not.
		maybeChanged := res.written > 0 || slices.ContainsFunc(outcomes, func(o string) bool { return o != audit.Refused && o != audit.Failed })
		res.refused = (len(plan.Refusals()) > 0 || skipped) && res.applied == 0 && !maybeChanged
		res.outcome = combined(outcomes)
		if res.refused {
			res.outcome = audit.Refused
		}
		return res
	}
}

// count adds a partition's change to the counts: written (sent, and not
// refused), changed (written, known to be applied, and moved: After is
// not Before), applied (changed as planned and read back).
func (r *auditResult) count(c audit.Change, written, known bool) {
	if !written {
		return
	}
	r.written++
	if !known {
		return
	}
	if !sameOffset(c.Before, c.After) {
		r.changed++
	}
	if c.Error == "" {
		r.applied++
	}
}

func sameOffset(a, b *int64) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

// groupOutcome is the outcome of one group of a reset: the one its
// execution decided, else refused (the guard), failed (never executed),
// or for an execution that decides none (share groups) applied or failed
// by whether anything was applied.
func groupOutcome(g admin.GroupPlan) string {
	switch {
	case g.Outcome != "":
		return g.Outcome
	case g.Refused != "":
		return audit.Refused
	case g.Executed && g.Applied():
		return audit.Applied
	}
	return audit.Failed
}

// partitionWritten says whether the change of a partition was sent and
// not refused by the broker: the whole group of an applied or unknown
// transaction, the acknowledged commits of a partly changed one.
func partitionWritten(g admin.GroupPlan, pp admin.PartitionPlan) bool {
	if pp.Unacked {
		// Judged by the read-back: changed as planned (true), or maybe
		// (nil); as it was (false).
		return pp.Applied == nil || *pp.Applied
	}
	refused := admin.RefusedErr(pp.Error)
	switch groupOutcome(g) {
	case audit.Applied, audit.Unverified, audit.Unknown:
		return !refused
	case audit.Partly:
		if pp.Applied != nil {
			return *pp.Applied
		}
		return !refused
	}
	return false
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

func prefixed(prefix, s string) string {
	if s == "" {
		return ""
	}
	return prefix + s
}

// combined is the outcome of a change's parts, or "" (classified from
// the command's error) when it has none.
func combined(parts []string) string {
	if len(parts) == 0 {
		return ""
	}
	return audit.Combine(parts)
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// deleteOffsetsAudit fills an entry from delete-offsets plans.
func deleteOffsetsAudit(plans []admin.DeleteOffsetsPlan, live []string) auditFill {
	return func(e *audit.Entry) auditResult {
		topics := map[string]bool{}
		var res auditResult
		outcomes := skippedLiveGroups(e, live)
		for _, plan := range plans {
			e.Groups, e.Backup = append(e.Groups, plan.Group), plan.Backup
			for _, r := range plan.Partitions {
				if r.Current == nil {
					continue // no commit: nothing to delete
				}
				topics[r.Topic] = true
				c := audit.Change{Group: plan.Group, Topic: r.Topic, Partition: r.Partition, Before: r.Current, Error: r.Error}
				deleted := r.Status == "deleted"
				switch {
				case r.Unanswered:
					// Maybe deleted: undo restores it (no error).
					c.Error = ""
					outcomes = append(outcomes, audit.Unknown)
				case deleted:
					outcomes = append(outcomes, audit.Applied)
				default:
					c.Error = firstNonEmpty(c.Error, r.Status)
					outcomes = append(outcomes, audit.Failed)
				}
				res.count(c, deleted || r.Unanswered, !r.Unanswered)
				e.Changes = append(e.Changes, c)
			}
		}
		e.Topics = sortedKeys(topics)
		res.outcome = combined(outcomes)
		res.refused = len(live) > 0 && len(plans) == 0
		return res
	}
}

// skippedLiveGroups names, in an entry, the groups a selection skipped
// for their live members (the command failed for them), and returns their
// outcomes (refused) to combine with the others'.
func skippedLiveGroups(e *audit.Entry, live []string) []string {
	var outcomes []string
	for _, g := range live {
		e.Groups = append(e.Groups, g)
		e.SkippedLive = append(e.SkippedLive, g)
		outcomes = append(outcomes, audit.Refused)
	}
	return outcomes
}

// recordSkippedLive records a selection whose every group was skipped as
// live, so nothing was sent: outcome refused, the groups named. It returns
// err (the skippedLiveError), or a failure to record it.
func (a *app) recordSkippedLive(ctx context.Context, adm *cluster.Admin, action string, err error, live []string) error {
	rec, aerr := a.beginAudit(ctx, adm, action)
	if aerr != nil {
		return errors.Join(err, aerr)
	}
	return rec.finish(err, func(e *audit.Entry) auditResult {
		return auditResult{refused: true, outcome: combined(skippedLiveGroups(e, live))}
	})
}

// deleteGroupAudit fills an entry from a delete-group run: the backed-up
// offsets of each group, gone once the group is deleted.
func deleteGroupAudit(backup *string, rows []admin.DeleteGroupRow, bgs []admin.BackupGroup, live []string) auditFill {
	return func(e *audit.Entry) auditResult {
		e.Backup = *backup
		status := map[string]admin.DeleteGroupRow{}
		for _, r := range rows {
			status[r.Group] = r
			e.Groups = append(e.Groups, r.Group)
		}
		topics := map[string]bool{}
		var res auditResult
		outcomes := skippedLiveGroups(e, live)
		for _, bg := range bgs {
			row := status[bg.Group]
			gone := row.Status == "deleted"
			// A group too large for one request, deleted in part: which
			// offsets went is not known per partition, so its changes
			// carry no error (undo restores the whole group).
			partly := row.Status == admin.PartlyDeleted
			// Sent without an answer: maybe gone, so undo restores it
			// (its changes carry no error) and the outcome is unknown.
			unknown := row.Status == admin.DeleteUnknown
			outcomes = append(outcomes, map[bool]string{true: audit.Applied, false: audit.Failed}[gone])
			if partly {
				outcomes[len(outcomes)-1] = audit.Partly
			}
			if unknown {
				outcomes[len(outcomes)-1] = audit.Unknown
			}
			for _, pr := range bg.Rows {
				topics[pr.Topic] = true
				off := pr.Offset
				c := audit.Change{Group: bg.Group, Topic: pr.Topic, Partition: pr.Partition, Before: &off}
				if !gone && !partly && !unknown {
					c.Error = firstNonEmpty(row.Error, row.Status, "not deleted")
				}
				res.count(c, gone || partly || unknown, !partly && !unknown)
				e.Changes = append(e.Changes, c)
			}
			if gone && len(bg.Rows) == 0 {
				res.applied++ // a group without offsets was still deleted
			}
		}
		// A named group with nothing backed up and not deleted (it does
		// not exist: GROUP_ID_NOT_FOUND) is a part that failed: the
		// run exits 1 for it, and "applied" would say every named
		// group went.
		backed := map[string]bool{}
		for _, bg := range bgs {
			backed[bg.Group] = true
		}
		for _, r := range rows {
			if !backed[r.Group] && r.Status != "deleted" && r.Error != "" {
				outcomes = append(outcomes, audit.Failed)
			}
		}
		e.Topics = sortedKeys(topics)
		res.outcome = combined(outcomes)
		return res
	}
}

// replayAudit fills an entry from a replay (or backfill) result: what was
// read, its digests and the proof's verdict.
func replayAudit(res **replay.Result) auditFill {
	return func(e *audit.Entry) auditResult {
		r := *res
		if r == nil {
			return auditResult{}
		}
		e.Topics = []string{r.Topic}
		e.Groups = r.Verification.Groups
		records := r.Records
		e.Records = &records
		e.Digest, e.PayloadDigest = r.Digest, r.PayloadDigest
		switch v := r.Verification; {
		case v.Skipped:
			e.Proof = "skipped"
		case v.Error != "":
			e.Proof = "error"
		case v.Unchanged:
			e.Proof = "unchanged"
		default:
			e.Proof = "changed"
		}
		if b := r.Backfill; b != nil {
			e.Target = b.Target
			produced := b.Produced
			e.Produced = &produced
			if c := b.Checkpoint; c != nil {
				e.Checkpoint = absPath(c.Path)
				dups := c.PossibleDuplicates
				e.PossibleDuplicates = &dups
			}
			n := int(min(produced, 1<<31-1))
			return auditResult{applied: n, written: n}
		}
		return auditResult{}
	}
}

// absPath is path made absolute, or path when it cannot be.
func absPath(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}

// produceTrail writes e to the shared trail's topic with the command's
// own connection and security.
func (a *app) produceTrail(e audit.Entry) error {
	if a.conn == nil {
		return fmt.Errorf("audit topic %s: no connection", a.trailTopic)
	}
	cl, err := a.conn.NewClient(kgo.RequiredAcks(kgo.AllISRAcks()))
	if err != nil {
		return err
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), a.timeout)
	defer cancel()
	return audit.Produce(ctx, cl, a.trailTopic, e)
}

// checkWords is audit.CheckWords with the connection the user gave: the
// printed --verify command reaches the cluster the entry was made on.
func (a *app) checkWords(e audit.Entry) string {
	return audit.CheckWordsBy(e, a.prog())
}
