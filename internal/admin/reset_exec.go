package admin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/offsetctl/offsetctl/internal/cluster"
	"github.com/offsetctl/offsetctl/internal/coordretry"
	"github.com/offsetctl/offsetctl/internal/durable"
	"github.com/offsetctl/offsetctl/internal/exitcode"
	"github.com/offsetctl/offsetctl/internal/lag"
	"github.com/offsetctl/offsetctl/internal/safetext"
)

// ResetRequest says what to reset.
type ResetRequest struct {
	Groups    []string
	AllGroups bool
	// Match, with AllGroups, keeps only the groups it accepts (a
	// --regex/--exclude selection), also among a backup's groups.
	Match     func(group string) bool
	Target    Target
	Scope     lag.Scope
	AllTopics bool
	// File is the parsed plan of a file: target.
	File *PlanFile
	// GroupsFromFile says Groups are the plan file's groups (no group was
	// named): like --all-groups, a group without rows inside --topic is
	// skipped, not an error.
	GroupsFromFile bool
}

// GatherReset gathers everything PlanReset needs in a few batched rounds:
// the groups (and the group to copy from), their commits, the log start and
// end of every scoped topic (also topics the groups never committed on) and,
// for time targets, the offsets by time.
func GatherReset(ctx context.Context, adm *cluster.Admin, req ResetRequest) (ResetInput, error) {
	in := ResetInput{Target: req.Target, Scope: req.Scope, AllTopics: req.AllTopics, AllGroups: req.AllGroups, File: req.File, GroupsFromFile: req.GroupsFromFile}
	extra := req.Scope.TopicNames()
	if req.File != nil {
		seen := map[string]bool{}
		for _, r := range req.File.Rows {
			if !seen[r.Topic] && req.Scope.HasTopic(r.Topic) {
				seen[r.Topic] = true
				extra = append(extra, r.Topic)
			}
		}
	}
	groups := append([]string(nil), req.Groups...)
	if req.Target.Kind == ToGroup && (!req.AllGroups || req.Match != nil) {
		// A pattern may leave the source out of the listing: named, it
		// rides along (and is never itself reset).
		groups = append(groups, req.Target.Group)
	}
	if req.AllGroups && req.File != nil && req.File.Columns == 4 {
		// --all-groups with a snapshot or backup restores the groups it
		// is a backup of (its marker rows) even when they no longer
		// exist (deleted since). A plain plan's unknown groups stay
		// unknown: a typo must not create a group.
		for _, g := range req.File.GroupsIn() {
			if _, ok := req.File.Backups[g]; ok && (req.Match == nil || req.Match(g)) {
				groups = append(groups, g)
			}
		}
	}
	greq := lag.GatherRequest{Groups: groups, AllGroups: req.AllGroups, Match: req.Match, Scope: req.Scope, ExtraTopics: extra}
	snap, err := lag.Gather(ctx, adm, greq)
	if err != nil {
		return in, err
	}
	in.Snapshot = snap
	markShareBackups(snap, req.File)
	if req.AllGroups {
		for _, g := range snap.Groups {
			if req.Target.Kind == ToGroup && g.Group == req.Target.Group {
				continue
			}
			in.Groups = append(in.Groups, g.Group)
		}
	} else {
		in.Groups = lag.Dedupe(req.Groups)
	}
	if req.Target.Kind == ToGroup {
		o, ok := snap.Group(req.Target.Group)
		if !ok || !o.Exists {
			return in, exitcode.Usagef("group %s (to copy from) does not exist", safetext.Arg(req.Target.Group))
		}
		// Copying needs the source's commits on the scoped topics even
		// when the reset groups never touched them: they are listed
		// already through ExtraTopics and the source's own topics.
	}
	if req.Target.Kind == ToTime {
		in.Times, err = ListTimeOffsets(ctx, adm, req.Target.Millis, snap.Offsets.Partitions.Topics())
		if err != nil {
			return in, err
		}
	}
	return in, nil
}

// ListTimeOffsets lists, per partition of topics, the first offset whose
// record timestamp is at or after ms (one ListOffsets per leader).
func ListTimeOffsets(ctx context.Context, adm *cluster.Admin, ms int64, topics []string) (lag.PartitionMap[TimeOffset], error) {
	out := lag.PartitionMap[TimeOffset]{}
	if len(topics) == 0 {
		return out, nil
	}
	listed, err := adm.ListOffsetsAfterMilli(ctx, ms, topics...)
	if err != nil && !lag.IsShardErr(err) {
		return nil, fmt.Errorf("listing offsets by time: %w", err)
	}
	for t, ps := range listed {
		for p, o := range ps {
			if p < 0 {
				continue
			}
			out.Set(t, p, TimeOffset{Offset: o.Offset, Timestamp: o.Timestamp, Err: o.Err})
		}
	}
	return out, nil
}

// WriteBackupFile writes the backup of cluster clusterID's groups
// (WriteBackupCSV) to path, refusing to overwrite an
// existing file, and fsyncs the file and its directory before returning.
// A path that cannot be created for what it is (one there already, no
// such directory, no permission: durable.UserPath) is bad input, exit 2:
// the commands check it before any request, and this catches a path
// that changed since; a disk that fails is exit 1.
func WriteBackupFile(path string, at time.Time, clusterID string, groups []BackupGroup) error {
	f, err := durable.Create(path)
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			return exitcode.Usagef("backup file %s already exists: choose another with --backup", safetext.Arg(path))
		}
		return createErr(path, err)
	}
	return writeBackup(f, path, at, clusterID, groups)
}

// createErr words a backup file that could not be created, as bad input
// when the path is the cause.
func createErr(path string, err error) error {
	if durable.UserPath(err) {
		return exitcode.Usagef("backup file %s cannot be created: %s", safetext.Arg(path), durable.Reason(err))
	}
	return fmt.Errorf("creating backup file: %w", err)
}

// maxBackupSuffix bounds the -N suffixes WriteNewBackupFile tries.
const maxBackupSuffix = 10_000

// WriteNewBackupFile writes the backup to a file that did not exist yet,
// named stem+".csv", else stem+"-2.csv", stem+"-3.csv", ...: for default
// names the tool picks, so two runs in the same instant never collide and
// never overwrite. It returns the path written (fsynced like
// WriteBackupFile).
func WriteNewBackupFile(stem string, at time.Time, clusterID string, groups []BackupGroup) (string, error) {
	f, path, err := durable.CreateNumbered(stem, ".csv", maxBackupSuffix)
	if errors.Is(err, os.ErrExist) {
		return "", fmt.Errorf("creating backup file: %s.csv and %d numbered variants all exist: choose a name with --backup", stem, maxBackupSuffix)
	}
	if err != nil {
		return "", createErr(stem+".csv", err)
	}
	return path, writeBackup(f, path, at, clusterID, groups)
}

// writeBackup writes the backup to the new file f with durable.Finish:
// fsynced with its directory, or removed if any of that fails (a truncated
// backup left behind would look like a real one, and a later restore from
// it would silently restore only part of the offsets).
func writeBackup(f durable.File, path string, at time.Time, clusterID string, groups []BackupGroup) error {
	err := durable.Finish(f, path, func(w io.Writer) error { return WriteBackupCSV(w, at, clusterID, groups) })
	var de *durable.Error
	if !errors.As(err, &de) {
		return err
	}
	err = fmt.Errorf("%s backup file %s: %w", de.Op, path, de.Err)
	if de.RemoveErr != nil {
		return fmt.Errorf("%w; removing the incomplete backup also failed: %v", err, de.RemoveErr)
	}
	return fmt.Errorf("%w (the incomplete backup file was removed)", err)
}

// commitBatchBytes bounds the estimated size of one OffsetCommit. The
// group coordinator writes a whole OffsetCommit as one record batch into
// __consumer_offsets, atomically, and refuses a batch above the topic's
// max message size (1 MiB by default) with UNKNOWN_SERVER_ERROR for every
// partition (RecordTooLargeException in the broker log): 10,000 partitions
// with 40-character names are already too much. A larger commit is split
// into the fewest OffsetCommits under this bound, each still atomic.
const commitBatchBytes = 960_000

// commitRecordBytes estimates, a little high, one offset-commit record in
// the coordinator's batch: key (version, group, topic, partition: 10 bytes
// and the names), value (version, offset, leader epoch, metadata, commit
// time, topic id, tags: under 50) and record framing (about 10).
func commitRecordBytes(group string, o kadm.Offset) int {
	return len(group) + len(o.Topic) + len(o.Metadata) + 70
}

// splitCommits splits offsets, in topic/partition order, into batches whose
// estimated size stays under limit (at least one offset each).
func splitCommits(group string, os kadm.Offsets, limit int) []kadm.Offsets {
	var out []kadm.Offsets
	cur, size := kadm.Offsets{}, 0
	for _, o := range os.Sorted() {
		b := commitRecordBytes(group, o)
		if size > 0 && size+b > limit {
			out = append(out, cur)
			cur, size = kadm.Offsets{}, 0
		}
		cur.Add(o)
		size += b
	}
	if size > 0 {
		out = append(out, cur)
	}
	return out
}

// commitInBatches commits os for group: one OffsetCommit when it fits the
// coordinator's batch limit, else the fewest that do. A batch the broker
// still refuses as too large (a smaller max message size) is halved and
// retried: a refused batch wrote nothing. It returns every partition's
// outcome and the number of OffsetCommit requests sent.
func commitInBatches(ctx context.Context, adm *cluster.Admin, group string, os kadm.Offsets) (kadm.OffsetResponses, int, error) {
	return commitSplit(group, os, func(batch kadm.Offsets) (resp kadm.OffsetResponses, err error) {
		// A coordinator error says the batch was not applied (the
		// coordinator refused it, or kgo never sent it): resending the
		// same absolute offsets is safe, and the read-back checks them.
		err = coordretry.Do(ctx, coordretry.Group(group), func() error {
			resp, err = adm.CommitOffsets(ctx, group, batch)
			return err
		})
		return resp, err
	})
}

// commitSplit sends os with commit in the fewest batches under the
// coordinator's batch limit (splitCommits); a batch of more than one
// partition that the broker refuses as too large for every partition
// (a refused batch wrote nothing) is halved and resent. It returns every
// partition's answer and the number of requests sent. OffsetCommit
// (commitInBatches) and TxnOffsetCommit (commitTxnBatches) share it.
func commitSplit(group string, os kadm.Offsets, commit func(batch kadm.Offsets) (kadm.OffsetResponses, error)) (kadm.OffsetResponses, int, error) {
	out := kadm.OffsetResponses{}
	queue := splitCommits(group, os, commitBatchBytes)
	n := 0
	for len(queue) > 0 {
		batch := queue[0]
		queue = queue[1:]
		resp, err := commit(batch)
		n++
		if err != nil {
			return out, n, &batchError{batch: batch, err: err}
		}
		if batchLen(batch) > 1 && allTooLarge(resp) {
			queue = append(splitCommits(group, batch, batchBytes(group, batch)/2), queue...)
			continue
		}
		// By the answers' keys: kadm's answer to a partition not asked
		// for holds the zero Offset (topic "", partition 0).
		for t, ps := range resp {
			if out[t] == nil {
				out[t] = map[int32]kadm.OffsetResponse{}
			}
			maps.Copy(out[t], ps)
		}
	}
	return out, n, nil
}

// batchError is the error of the batch a split commit stopped at, naming
// the batch: when it got no answer, its partitions may have been applied
// (one request is atomic) while the batches after it were never sent.
type batchError struct {
	batch kadm.Offsets
	err   error
}

func (e *batchError) Error() string { return e.err.Error() }
func (e *batchError) Unwrap() error { return e.err }

// unansweredBatch is the batch err stopped a split commit at when that
// batch got no answer (it may have been applied), else nil.
func unansweredBatch(err error) kadm.Offsets {
	var be *batchError
	if errors.As(err, &be) && unanswered(err) {
		return be.batch
	}
	return nil
}

// deleteInBatches deletes group's offsets of set with as few OffsetDeletes
// as fit the coordinator's batch limit: it writes one tombstone per
// partition as one atomic batch, like a commit, so a very large delete is
// split the way commitInBatches splits a commit (each OffsetDelete still
// atomic). It returns the outcome of every partition of the requests that
// were answered (a request error stops it: later partitions are missing
// from the result) and the number of requests sent.
func deleteInBatches(ctx context.Context, adm *cluster.Admin, group string, set kadm.TopicsSet, limit int) (kadm.DeleteOffsetsResponses, int, error) {
	all := kadm.Offsets{}
	set.Each(func(t string, p int32) { all.Add(kadm.Offset{Topic: t, Partition: p}) })
	out := kadm.DeleteOffsetsResponses{}
	n := 0
	for _, batch := range splitCommits(group, all, limit) {
		bs := kadm.TopicsSet{}
		batch.Each(func(o kadm.Offset) { bs.Add(o.Topic, o.Partition) })
		// Deleting an offset again is a no-op: safe to retry.
		var resp kadm.DeleteOffsetsResponses
		err := coordretry.Do(ctx, coordretry.Group(group), func() (err error) {
			resp, err = adm.DeleteOffsets(ctx, group, bs)
			return err
		})
		n++
		if err != nil {
			return out, n, err
		}
		for t, ps := range resp {
			for p, perr := range ps {
				if out[t] == nil {
					out[t] = map[int32]error{}
				}
				out[t][p] = perr
			}
		}
	}
	return out, n, nil
}

func batchLen(os kadm.Offsets) int {
	n := 0
	for _, ps := range os {
		n += len(ps)
	}
	return n
}

func batchBytes(group string, os kadm.Offsets) int {
	n := 0
	os.Each(func(o kadm.Offset) { n += commitRecordBytes(group, o) })
	return n
}

// allTooLarge reports whether every partition failed the way an oversized
// coordinator batch fails.
func allTooLarge(resp kadm.OffsetResponses) bool {
	any := false
	all := true
	resp.Each(func(r kadm.OffsetResponse) {
		any = true
		if !errors.Is(r.Err, kerr.UnknownServerError) && !errors.Is(r.Err, kerr.MessageTooLarge) && !errors.Is(r.Err, kerr.RecordListTooLarge) {
			all = false
		}
	})
	return any && all
}

// ExplainError turns the broker errors an operator meets here into words.
func ExplainError(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, kerr.UnknownMemberID):
		return "UNKNOWN_MEMBER_ID: a consumer joined the group after the check, so the broker refused the admin commit; stop the group's consumers and retry"
	case errors.Is(err, kerr.IllegalGeneration), errors.Is(err, kerr.RebalanceInProgress), errors.Is(err, kerr.StaleMemberEpoch):
		return fmt.Sprintf("%v: the group became active after the check; stop its consumers and retry", err)
	case errors.Is(err, kerr.GroupSubscribedToTopic):
		return "GROUP_SUBSCRIBED_TO_TOPIC: live members of the group consume this topic, so its offsets cannot be deleted; stop them (or unsubscribe the topic) first"
	case errors.Is(err, kerr.NonEmptyGroup):
		return "NON_EMPTY_GROUP: the group has live members" + stopAdvice
	case errors.Is(err, kerr.GroupIDNotFound):
		return "GROUP_ID_NOT_FOUND: the group does not exist"
	case errors.Is(err, kerr.UnknownTopicOrPartition):
		return "UNKNOWN_TOPIC_OR_PARTITION: the topic or partition does not exist"
	case errors.Is(err, kerr.GroupAuthorizationFailed), errors.Is(err, kerr.TopicAuthorizationFailed):
		return fmt.Sprintf("%v: not authorized", err)
	}
	return err.Error()
}

// Applied reports whether ExecuteReset changed anything of g on the
// broker: it sent its commits and at least one partition was not refused
// by the commit or delete itself (a consumer that joined after the check
// gets every partition refused with UNKNOWN_MEMBER_ID). A read-back that
// fails after the commit counts as applied: the commit may have landed.
func (g GroupPlan) Applied() bool {
	if !g.Executed {
		return false
	}
	for _, pp := range g.Partitions {
		if pp.Action == ActSkip {
			continue
		}
		if !strings.HasPrefix(pp.Error, commitErrPrefix) && !strings.HasPrefix(pp.Error, deleteErrPrefix) {
			return true
		}
	}
	return false
}

// The outcomes of a group's execution (GroupPlan.Outcome), the words of
// the audit trail's outcomes. Refused is the plan's (the guard), not set
// here.
const (
	// OutcomeApplied: the broker acknowledged every change (an answered
	// EndTxn, or a lost answer read back as committed), even when the
	// read-back after it got no answer.
	OutcomeApplied = "applied"
	// OutcomeUnverified: the broker acknowledged every change, but the
	// read-back found some partitions not holding their planned offset
	// (their "verify: " errors name them): a consumer committed meanwhile,
	// the topic was deleted (and recreated). The change was made; whether
	// it still stands there is not.
	OutcomeUnverified = "unverified"
	// OutcomeFailed: the broker changed nothing of the group.
	OutcomeFailed = "failed"
	// OutcomePartly: some partitions changed, others did not.
	OutcomePartly = "partly"
	// OutcomeUnknown: a request that could change the group got no
	// answer, and nothing settled whether it was applied.
	OutcomeUnknown = "unknown"
)

// partitionsOutcome is the outcome of an execution whose every request
// was answered: by the partitions the broker refused (a commit: or delete:
// error) among those planned.
func partitionsOutcome(gp *GroupPlan) string {
	planned, refused := 0, 0
	for _, pp := range gp.Partitions {
		if pp.Action == ActSkip {
			continue
		}
		planned++
		if strings.HasPrefix(pp.Error, commitErrPrefix) || strings.HasPrefix(pp.Error, deleteErrPrefix) {
			refused++
		}
	}
	switch refused {
	case 0:
		return OutcomeApplied
	case planned:
		return OutcomeFailed
	}
	return OutcomePartly
}

// verifiedOutcome is a group's outcome once its read-back was compared
// with the plan: an applied change with a partition that does not hold
// its planned offset is unverified.
func verifiedOutcome(gp *GroupPlan) string {
	if gp.Outcome != OutcomeApplied {
		return gp.Outcome
	}
	for _, pp := range gp.Partitions {
		if strings.HasPrefix(pp.Error, verifyErrPrefix) {
			return OutcomeUnverified
		}
	}
	return gp.Outcome
}

// unanswered says whether err is a request left without an answer (a
// lost connection, the deadline) rather than the broker's refusal: then
// whether the broker applied it is unknown.
func unanswered(err error) bool {
	var ke *kerr.Error
	return !errors.As(err, &ke)
}

// The prefixes of partition errors the broker gave to the commit or the
// delete itself (nothing of that partition changed).
const (
	commitErrPrefix = "commit: "
	deleteErrPrefix = "delete: "
	// verifyErrPrefix: the read-back found the partition not holding
	// what was planned (the broker had acknowledged the change).
	verifyErrPrefix = "verify: "
)

// ExecuteReset applies one group's validated plan: one OffsetCommit to the
// group's coordinator (generation -1, as an admin, never joining the
// group), an OffsetDelete for partitions restored to "no commit", then an
// OffsetFetch to confirm every partition holds what was planned. Failures
// land in the partitions' Error; the returned error is only for the whole
// group failing.
func ExecuteReset(ctx context.Context, adm *cluster.Admin, gp *GroupPlan) error {
	commits := kadm.Offsets{}
	deletes := kadm.TopicsSet{}
	idx := map[lag.TP]int{}
	for i, pp := range gp.Partitions {
		idx[lag.TP{Topic: pp.Topic, Partition: pp.Partition}] = i
		switch {
		case pp.Action == ActCommit && pp.Target != nil:
			commits.Add(kadm.Offset{Topic: pp.Topic, Partition: pp.Partition, At: *pp.Target, LeaderEpoch: -1})
		case pp.Action == ActDelete:
			deletes.Add(pp.Topic, pp.Partition)
		}
	}
	unnamed := map[lag.TP]bool{}
	setErr := func(topic string, p int32, msg string) bool {
		if i, ok := idx[lag.TP{Topic: topic, Partition: p}]; ok && gp.Partitions[i].Error == "" {
			gp.Partitions[i].Error = msg
			return true
		}
		return false
	}
	if len(commits) > 0 {
		resp, n, err := commitInBatches(ctx, adm, gp.Group, commits)
		gp.CommitRequests = n
		var applied, notNamedN int
		if err != nil {
			applied, notNamedN = markApplied(gp, resp, unansweredBatch(err))
		}
		if applied > 0 || notNamedN > 0 {
			// Partitions the answers before the failure did not name
			// may have been applied: unknown, never "failed".
			gp.Executed = true
			gp.Outcome = OutcomePartly
			gp.Error = fmt.Sprintf("committing offsets of group %s: %s", safetext.Arg(gp.Group), ExplainError(err))
			if applied > 0 {
				gp.Error += fmt.Sprintf("; the group is PARTLY CHANGED: %d of %d partitions were applied before the failure (see \"applied\")", applied, batchLen(commits))
			} else {
				gp.Outcome = OutcomeUnknown
			}
			if notNamedN > 0 {
				gp.Error += fmt.Sprintf("; the answers before the failure did not name %d, so whether they were applied is unknown (\"applied\" null)", notNamedN)
			}
			if maybe := batchLen(unansweredBatch(err)); maybe > 0 {
				gp.Error += fmt.Sprintf("; %d more got no answer, so whether they were applied is unknown (\"applied\" null)", maybe)
			}
			return errors.New(gp.Error)
		}
		if err != nil {
			gp.Outcome = OutcomeFailed
			gp.Error = fmt.Sprintf("committing offsets of group %s: %s", safetext.Arg(gp.Group), ExplainError(err))
			if unanswered(err) && n > 0 {
				// A request sent and not answered may have been
				// applied (all of it: one request is atomic).
				gp.Outcome = OutcomeUnknown
				gp.Error += "; the commit got no answer, so whether it was applied is unknown"
			}
			return errors.New(gp.Error)
		}
		// A partition the answer does not name is not acknowledged:
		// never counted as applied (kadm fills it with an error of its
		// own, not the broker's).
		gaps := commitGaps(commits, resp)
		for _, k := range gaps.missing {
			if setErr(k.Topic, k.Partition, commitErrPrefix+notNamed("committed")+gaps.note()) {
				unnamed[k] = true
			}
		}
		resp.Each(func(r kadm.OffsetResponse) {
			if r.Err != nil {
				setErr(r.Topic, r.Partition, commitErrPrefix+ExplainError(r.Err))
			}
		})
	}
	if len(deletes) > 0 {
		maps.Copy(unnamed, deleteNoCommit(ctx, adm, gp, deletes))
	}
	gp.Executed = true
	gp.Outcome = partitionsOutcome(gp)
	// Read back and compare with the plan. The outcome stands whatever
	// the read-back says: it is what the broker acknowledged, with the
	// partitions its answers did not name judged by the read-back.
	fetched, err := lag.FetchOffsets(ctx, adm, gp.Group)
	if err != nil {
		settleOutcome(gp, unnamed, nil, false)
		what := "the broker acknowledged the change: " + gp.Outcome
		if len(unnamed) > 0 {
			what = fmt.Sprintf("the broker's answers did not name %d of the planned partitions, so whether those changed is unknown; outcome %s", len(unnamed), gp.Outcome)
		}
		gp.Error = fmt.Sprintf("reading back offsets of group %s: %v (%s)", safetext.Arg(gp.Group), err, what)
		return errors.New(gp.Error)
	}
	verifyReadBack(gp, fetched)
	gp.Outcome = verifiedOutcome(gp)
	settleOutcome(gp, unnamed, fetched, true)
	return nil
}

// markApplied records, after split commits failed part way, which
// partitions the answered batches applied (Applied and a note on every
// partition to change). The partitions of maybe, the batch sent without an
// answer, keep Applied nil: whether they were applied is unknown. Those
// never sent (later batches, the deletes after the commits) are not
// applied. A partition of an answered batch that the answer did not name
// is not known either (Applied nil), and its error says so. It returns
// how many were applied, and how many were not named.
func markApplied(gp *GroupPlan, resp kadm.OffsetResponses, maybe kadm.Offsets) (n, notNamedN int) {
	for i := range gp.Partitions {
		pp := &gp.Partitions[i]
		if pp.Action == ActDelete {
			notSent := false
			pp.Applied = &notSent
			pp.Note = lag.JoinNote(pp.Note, "NOT applied")
			continue
		}
		if pp.Action != ActCommit || pp.Target == nil {
			continue
		}
		if _, sent := maybe.Lookup(pp.Topic, pp.Partition); sent {
			pp.Note = lag.JoinNote(pp.Note, "NO ANSWER: maybe applied")
			continue
		}
		r, ok := resp.Lookup(pp.Topic, pp.Partition)
		if ok && !brokerAnswered(r.Err) {
			notNamedN++
			pp.Error = commitErrPrefix + notNamed("committed")
			pp.Note = lag.JoinNote(pp.Note, "NO ANSWER: maybe applied")
			continue
		}
		applied := ok && r.Err == nil
		pp.Applied = &applied
		if applied {
			n++
			pp.Note = lag.JoinNote(pp.Note, "applied")
		} else {
			pp.Note = lag.JoinNote(pp.Note, "NOT applied")
		}
	}
	return n, notNamedN
}

// verifyReadBack compares the offsets read back after an execution with
// the plan, setting the Error of every partition that does not hold what
// was planned.
func verifyReadBack(gp *GroupPlan, fetched kadm.OffsetResponses) {
	for i := range gp.Partitions {
		pp := &gp.Partitions[i]
		if pp.Error != "" || pp.Action == ActSkip {
			continue
		}
		o, ok := fetched.Lookup(pp.Topic, pp.Partition)
		has := ok && o.Err == nil && o.At >= 0
		switch {
		case ok && o.Err != nil:
			pp.Error = fmt.Sprintf(verifyErrPrefix+"%v", o.Err)
		case pp.Action == ActDelete && has:
			pp.Error = fmt.Sprintf(verifyErrPrefix+"still committed at %d after the delete", o.At)
		case pp.Action == ActCommit && !has:
			pp.Error = fmt.Sprintf(verifyErrPrefix+"no commit found, planned %d", *pp.Target)
		case pp.Action == ActCommit && o.At != *pp.Target:
			pp.Error = fmt.Sprintf(verifyErrPrefix+"committed %d, planned %d (did a consumer commit meanwhile?)", o.At, *pp.Target)
		}
	}
}
