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
	"sort"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetctl/offsetctl/admin"
	"github.com/offsetctl/offsetctl/audit"
	"github.com/offsetctl/offsetctl/cluster"
	"github.com/offsetctl/offsetctl/internal/exitcode"
	"github.com/offsetctl/offsetctl/internal/inputfile"
	"github.com/offsetctl/offsetctl/replay"
)

// auditRec is one audited command: the log opened before the change and
// the entry appended once the change returns.
type auditRec struct {
	a     *app
	log   *audit.Log // nil with --no-audit
	entry audit.Entry
	start time.Time
}

// auditFill fills an entry from a command's result once it has run, and
// says how many changes were applied and whether the guard refused.
type auditFill func(e *audit.Entry) (applied int, refused bool)

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
// cannot be written stops the change (exit 1, nothing changed).
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
		return nil, fmt.Errorf("nothing was changed: the audit log cannot be written (%v); fix it, point --audit-log elsewhere, or opt out with --no-audit", err)
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
	e.UndoOf = a.undoOf
	e.User, e.Host = osUser(a.getenv), hostName()
	e.Profile = a.profile
	e.Command = audit.RedactArgs(a.args, a.secrets)
	if adm != nil {
		mctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		if m, err := adm.BrokerMetadata(mctx); err == nil {
			e.ClusterID = m.Cluster
		}
		cancel()
	}
	return r, nil
}

// finish appends the entry for a change that returned err, and returns
// err. When the append fails after a change, the change is still reported
// (err and what was applied are kept) and the run fails (exit 1) with a
// line saying the trail is missing this entry.
func (r *auditRec) finish(err error, fill auditFill) error {
	if r == nil || r.log == nil {
		return err
	}
	defer r.log.Close()
	e := &r.entry
	applied, refused := fill(e)
	e.Applied = applied
	e.Partitions = len(e.Changes)
	if e.Backup != "" {
		if abs, aerr := filepath.Abs(e.Backup); aerr == nil {
			e.Backup = abs
		}
		if sum, herr := fileSHA256(e.Backup); herr == nil {
			e.BackupSHA256 = sum
		}
	}
	if err == nil && applied == 0 && len(e.Changes) == 0 && e.Records == nil {
		return nil // nothing was in scope: nothing changed, nothing to record
	}
	if exitcode.Code(err) == exitcode.Usage && applied == 0 {
		return err // bad input: nothing was done
	}
	e.Outcome = audit.Outcome(err, refused, applied)
	e.ExitCode = exitcode.Code(err)
	e.DurationMs = r.a.now().Sub(r.start).Milliseconds()
	if err != nil {
		e.Error = errorLine(err)
	}
	// A secret typed anywhere (even into a file name) never reaches the
	// log.
	e.Backup = audit.RedactString(e.Backup, r.a.secrets)
	e.Checkpoint = audit.RedactString(e.Checkpoint, r.a.secrets)
	e.Error = audit.RedactString(e.Error, r.a.secrets)
	if e.Changes == nil {
		e.Changes = []audit.Change{}
	}
	aerr := r.log.Append(*e)
	if aerr == nil && r.a.trailTopic != "" {
		aerr = r.a.produceTrail(*e)
	}
	if aerr != nil {
		what := "the change was made"
		if applied == 0 {
			what = "the command ran"
		}
		loud := fmt.Errorf("%s (outcome %s, %d partition(s) applied), but audit entry %s is NOT recorded: %v", what, e.Outcome, applied, e.ID, aerr)
		fmt.Fprintln(r.a.stderr, "offsetctl: error: "+errorLine(loud))
		if err == nil {
			return &exitcode.Error{Code: exitcode.Failure, Err: loud}
		}
		return errors.Join(err, loud)
	}
	if err == nil || (applied > 0 && e.Backup != "") {
		// A partial offset change names its entry too (undo needs the
		// id); the error still comes last. A failed replay or backfill
		// ends on its error and resume line alone.
		r.a.infof("audit: recorded as %s in %s", e.ID, r.log.Path())
	}
	return err
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
// with its offset before and the target (nil: the commit is deleted).
func resetAudit(plan *admin.Plan) auditFill {
	return func(e *audit.Entry) (int, bool) {
		applied := 0
		topics := map[string]bool{}
		for _, g := range plan.Groups {
			if len(g.Partitions) == 0 && g.Refused == "" {
				continue
			}
			e.Groups = append(e.Groups, g.Group)
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
				if c.Error == "" && g.Error != "" {
					c.Error = g.Error
				}
				if !g.Executed && c.Error == "" && g.Refused != "" {
					c.Error = "refused: " + g.Refused
				}
				if g.Executed && c.Error == "" {
					applied++
				}
				e.Changes = append(e.Changes, c)
			}
		}
		e.Topics = sortedKeys(topics)
		return applied, len(plan.Refusals()) > 0 && applied == 0
	}
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
func deleteOffsetsAudit(plans []admin.DeleteOffsetsPlan) auditFill {
	return func(e *audit.Entry) (int, bool) {
		topics := map[string]bool{}
		applied := 0
		for _, plan := range plans {
			e.Groups, e.Backup = append(e.Groups, plan.Group), plan.Backup
			for _, r := range plan.Partitions {
				if r.Current == nil {
					continue // no commit: nothing to delete
				}
				topics[r.Topic] = true
				c := audit.Change{Group: plan.Group, Topic: r.Topic, Partition: r.Partition, Before: r.Current, Error: r.Error}
				if r.Status == "deleted" {
					applied++
				} else if c.Error == "" {
					c.Error = r.Status
				}
				e.Changes = append(e.Changes, c)
			}
		}
		e.Topics = sortedKeys(topics)
		return applied, false
	}
}

// deleteGroupAudit fills an entry from a delete-group run: the backed-up
// offsets of each group, gone once the group is deleted.
func deleteGroupAudit(backup *string, rows []admin.DeleteGroupRow, bgs []admin.BackupGroup) auditFill {
	return func(e *audit.Entry) (int, bool) {
		e.Backup = *backup
		status := map[string]admin.DeleteGroupRow{}
		for _, r := range rows {
			status[r.Group] = r
			e.Groups = append(e.Groups, r.Group)
		}
		topics := map[string]bool{}
		applied := 0
		for _, bg := range bgs {
			row := status[bg.Group]
			for _, pr := range bg.Rows {
				topics[pr.Topic] = true
				off := pr.Offset
				c := audit.Change{Group: bg.Group, Topic: pr.Topic, Partition: pr.Partition, Before: &off}
				if row.Status == "deleted" {
					applied++
				} else {
					c.Error = row.Error
				}
				e.Changes = append(e.Changes, c)
			}
			if row.Status == "deleted" && len(bg.Rows) == 0 {
				applied++ // a group without offsets was still deleted
			}
		}
		e.Topics = sortedKeys(topics)
		return applied, false
	}
}

// replayAudit fills an entry from a replay (or backfill) result: what was
// read, its digests and the proof's verdict.
func replayAudit(res **replay.Result) auditFill {
	return func(e *audit.Entry) (int, bool) {
		r := *res
		if r == nil {
			return 0, false
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
				e.Checkpoint = c.Path
				if abs, err := filepath.Abs(c.Path); err == nil {
					e.Checkpoint = abs
				}
				dups := c.PossibleDuplicates
				e.PossibleDuplicates = &dups
			}
			return int(min(produced, 1<<31-1)), false
		}
		return 0, false
	}
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
