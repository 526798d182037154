package admin

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/offsetctl/offsetctl/internal/cluster"
	"github.com/offsetctl/offsetctl/internal/coordretry"
	"github.com/offsetctl/offsetctl/internal/lag"
	"github.com/offsetctl/offsetctl/internal/safetext"
)

// DefaultTxnIDPrefix is the default prefix of the transactional id a
// transactional reset uses: the id is the prefix followed by the group, so
// every offsetctl changing one group uses the same id and the newer one
// fences the older (InitProducerId bumps the epoch and aborts the older
// one's open transaction).
const DefaultTxnIDPrefix = "offsetctl-reset-"

// TxnID is the transactional id for changing group's offsets.
func TxnID(prefix, group string) string { return prefix + group }

// TxnOptions configures ExecuteResetTxn.
type TxnOptions struct {
	// ID is the transactional id (TxnID(prefix, group)).
	ID string
	// Timeout is the transaction timeout asked of the coordinator: how
	// long a transaction of a run that died stays open when nobody takes
	// the id over (the next run with the same id aborts it at once).
	Timeout time.Duration
	// Resolve bounds the work after the EndTxn answer was lost (taking
	// the id over and reading back), which runs even when ctx has ended.
	Resolve time.Duration
	// Prog is how a command printed for the user to check a group
	// starts: offsetctl and the connection flags the change was given
	// ("" is offsetctl alone), so that it reads the cluster changed.
	Prog string
}

// lagCommand is the command that shows where group's offsets are now,
// for an error that cannot tell: lag, started as o.Prog says, the group
// one shell word (after --group= when it starts with '-', which would
// read as a flag).
func (o TxnOptions) lagCommand(group string) string {
	prog := o.Prog
	if prog == "" {
		prog = "offsetctl"
	}
	if strings.HasPrefix(group, "-") {
		group = "--group=" + group
	}
	return prog + " lag " + safetext.Shell(group)
}

// DefaultTxnTimeout is the transaction timeout: far above the time a reset
// of 10,000 partitions takes, far below the broker's
// transaction.max.timeout.ms (15 minutes by default).
const DefaultTxnTimeout = time.Minute

// ChangedError says the group's committed offsets differ from those the
// plan (and its backup) were made from: committing would lose an update.
type ChangedError struct {
	Group string
	N     int
}

func (e *ChangedError) Error() string {
	return fmt.Sprintf("group %s changed since the plan (%d partitions): run again to plan from the current offsets", e.Group, e.N)
}

// TxnNotAllowedError says the cluster does not let this principal use a
// transaction (an ACL, or no transaction coordinator). Nothing changed.
type TxnNotAllowedError struct {
	Group string
	// Missing names the permission or facility that is missing.
	Missing string
	Err     error
}

func (e *TxnNotAllowedError) Error() string {
	return fmt.Sprintf("group %s: cannot change the offsets in one transaction: %s (%v); nothing changed", e.Group, e.Missing, e.Err)
}

func (e *TxnNotAllowedError) Unwrap() error { return e.Err }

// txn is one transactional id held by this run.
type txn struct {
	cl    *kgo.Client
	id    string
	pid   int64
	epoch int16
	// committed is the producer id and epoch the coordinator holds once
	// this run's EndTxn(commit) was answered: the request's, or with
	// EndTxn v5+ (KIP-890) the bumped ones the answer carries.
	committed *[2]int64
}

// retriableTxnErr: errors a transactional request may answer while the
// coordinator loads, moves, or still finishes the id's previous
// transaction (CONCURRENT_TRANSACTIONS: InitProducerId waits for the
// markers of an EndTxn, or of the abort it started itself).
func retriableTxnErr(err error) bool {
	return errors.Is(err, kerr.ConcurrentTransactions) || coordretry.Retriable(err)
}

// initTxn takes the transactional id over: InitProducerId with the id
// aborts any transaction a previous holder left open (a killed run) or
// waits until its commit has completed, and fences that holder.
//
// Retrying InitProducerId is safe: taking the id over again only fences
// this run's own earlier attempt, which had nothing open yet.
func initTxn(ctx context.Context, cl *kgo.Client, group string, o TxnOptions) (*txn, error) {
	id := o.ID
	var last error
	r := coordretry.New(ctx)
	for {
		req := kmsg.NewPtrInitProducerIDRequest()
		req.TransactionalID = &id
		req.TransactionTimeoutMillis = int32(o.Timeout / time.Millisecond)
		resp, err := req.RequestWith(ctx, cl)
		if err == nil {
			err = kerr.ErrorForCode(resp.ErrorCode)
		}
		switch {
		case err == nil:
			return &txn{cl: cl, id: id, pid: resp.ProducerID, epoch: resp.ProducerEpoch}, nil
		case errors.Is(err, kerr.TransactionalIDAuthorizationFailed):
			return nil, &TxnNotAllowedError{Group: group, Missing: fmt.Sprintf("the principal lacks WRITE on TransactionalId %q", id), Err: err}
		case errors.Is(err, kerr.ClusterAuthorizationFailed):
			return nil, &TxnNotAllowedError{Group: group, Missing: "the principal lacks IDEMPOTENT_WRITE on the cluster", Err: err}
		case errors.Is(err, kerr.UnsupportedVersion), errors.Is(err, kerr.UnsupportedForMessageFormat):
			return nil, &TxnNotAllowedError{Group: group, Missing: "the cluster has no transaction support", Err: err}
		case retriableTxnErr(err) && ctx.Err() == nil:
			last = err
			coordretry.Note(ctx, coordretry.Txn(id), err)
			if !r.Next() {
				return nil, noCoordinator(group, r.GaveUp(coordretry.Txn(id), last), ctx.Err())
			}
		case ctx.Err() != nil && last != nil:
			return nil, noCoordinator(group, r.GaveUp(coordretry.Txn(id), last), ctx.Err())
		default:
			return nil, fmt.Errorf("group %s: taking transactional id %q: %w", group, id, err)
		}
	}
}

// noCoordinator: a coordinator that stayed unavailable until the deadline
// means the cluster cannot host the transaction (typically
// __transaction_state cannot be created: too few brokers for its
// replication factor).
func noCoordinator(group string, last, ctxErr error) error {
	if errors.Is(last, kerr.CoordinatorNotAvailable) {
		return &TxnNotAllowedError{Group: group, Missing: "the cluster has no transaction coordinator available", Err: last}
	}
	return fmt.Errorf("group %s: taking the transactional id: %w (%v)", group, last, ctxErr)
}

// addOffsets adds the group to the open transaction. Retrying it is safe:
// adding a group the transaction already has changes nothing.
func (t *txn) addOffsets(ctx context.Context, group string) error {
	r := coordretry.New(ctx)
	for {
		req := kmsg.NewPtrAddOffsetsToTxnRequest()
		req.TransactionalID, req.ProducerID, req.ProducerEpoch, req.Group = t.id, t.pid, t.epoch, group
		resp, err := req.RequestWith(ctx, t.cl)
		if err == nil {
			err = kerr.ErrorForCode(resp.ErrorCode)
		}
		if err != nil && retriableTxnErr(err) {
			coordretry.Note(ctx, coordretry.Txn(t.id), err)
			if r.Next() {
				continue
			}
			return r.GaveUp(coordretry.Txn(t.id), err)
		}
		return err
	}
}

// endTxn ends the transaction; commit false aborts it.
//
// A coordinator error (request or answer: kgo returns the answer's as the
// request's once its own retries are spent) or CONCURRENT_TRANSACTIONS is
// retried with the same producer id and epoch, as Kafka's own producer
// does: NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS and a coordinator
// missing from the broker list mean the commit was not acted on. But
// Apache Kafka answers COORDINATOR_NOT_AVAILABLE also for a commit whose
// PrepareCommit append timed out and may still land, so a commit answered
// that way and then not with success is not taken as refused: it is
// returned as a *noAnswerError, and endTxn takes the id over and reads
// back (resolveLost) to learn the outcome.
func (t *txn) end(ctx context.Context, commit bool) error {
	r := coordretry.New(ctx)
	maybeApplied := false
	for {
		req := kmsg.NewPtrEndTxnRequest()
		req.TransactionalID, req.ProducerID, req.ProducerEpoch, req.Commit = t.id, t.pid, t.epoch, commit
		resp, err := req.RequestWith(ctx, t.cl)
		switch {
		case err != nil && !coordretry.Retriable(err):
			return &noAnswerError{err}
		case err == nil:
			err = kerr.ErrorForCode(resp.ErrorCode)
		}
		if err == nil && commit {
			t.committed = &[2]int64{t.pid, int64(t.epoch)}
			if resp.Version >= 5 && resp.ProducerID >= 0 && resp.ProducerEpoch >= 0 {
				t.committed = &[2]int64{resp.ProducerID, int64(resp.ProducerEpoch)}
			}
		}
		// CONCURRENT_TRANSACTIONS: the coordinator is still finishing
		// an abort (a run that took the id over) or the markers of a
		// decided outcome; asking again gets the final answer.
		maybeApplied = maybeApplied || errors.Is(err, kerr.CoordinatorNotAvailable)
		if err != nil && retriableTxnErr(err) {
			coordretry.Note(ctx, coordretry.Txn(t.id), err)
			if r.Next() {
				continue
			}
		}
		if err != nil && commit && maybeApplied {
			return &noAnswerError{fmt.Errorf("an attempt was answered COORDINATOR_NOT_AVAILABLE and may still have committed; the last answer: %w", r.GaveUp(coordretry.Txn(t.id), err))}
		}
		return r.GaveUp(coordretry.Txn(t.id), err)
	}
}

// noAnswerError: a request got no answer (connection lost, deadline,
// broker frozen): whether the broker processed it is unknown.
type noAnswerError struct{ err error }

func (e *noAnswerError) Error() string { return e.err.Error() }
func (e *noAnswerError) Unwrap() error { return e.err }

// topicIDs maps the topics to their ids: TxnOffsetCommit v6 (Kafka 4.4,
// KIP-1319) names topics only by id, and a v6 request carrying only names
// gets UNKNOWN_TOPIC_ID for every partition (measured). Both the name and
// the id are sent, so either version works.
//
// The ids come from the client's metadata cache when the gather filled it
// within topicIDAge (the OffsetFetch and ListOffsets of the gather look the
// same topics up): asking the broker again cost a Metadata request of
// every partition (260 KB for 10,000) and its maps, 6-20 ms and 18 ms of
// CPU in a 0.25 s reset of 10,000 partitions (measured). A cached id is
// never wrong in a way that could commit elsewhere: a topic deleted and
// created again since has a new id, and the broker answers the old one
// UNKNOWN_TOPIC_ID, so the transaction is aborted and nothing changes.
func topicIDs(ctx context.Context, adm *cluster.Admin, os kadm.Offsets) (map[string][16]byte, error) {
	topics := make([]string, 0, len(os))
	for t := range os {
		topics = append(topics, t)
	}
	sort.Strings(topics)
	ids, err := adm.TopicIDs(ctx, topics, topicIDAge)
	if err != nil {
		return nil, fmt.Errorf("looking up topic ids: %w", err)
	}
	return ids, nil
}

// topicIDAge is how old a cached topic id may be: a run's gather and its
// commits are seconds apart, and a topic's id never changes.
const topicIDAge = time.Minute

// commitBatch sends one TxnOffsetCommit (generation -1 and no member id:
// an admin commit from outside the group, which Apache Kafka 4.4 and kfake
// accept for empty classic and KIP-848 groups) and returns each
// partition's answer.
func (t *txn) commitBatch(ctx context.Context, group string, batch kadm.Offsets, ids map[string][16]byte) (kadm.OffsetResponses, error) {
	req := kmsg.NewPtrTxnOffsetCommitRequest()
	req.TransactionalID, req.Group, req.ProducerID, req.ProducerEpoch = t.id, group, t.pid, t.epoch
	req.Generation, req.MemberID = -1, ""
	for topic, ps := range batch {
		rt := kmsg.NewTxnOffsetCommitRequestTopic()
		rt.Topic, rt.TopicID = topic, ids[topic]
		for _, o := range ps {
			rp := kmsg.NewTxnOffsetCommitRequestTopicPartition()
			rp.Partition, rp.Offset, rp.LeaderEpoch = o.Partition, o.At, -1
			rt.Partitions = append(rt.Partitions, rp)
		}
		req.Topics = append(req.Topics, rt)
	}
	// Staging the same offsets again in the same open transaction only
	// overwrites them with themselves, and nothing is visible before
	// EndTxn: safe to retry.
	var resp *kmsg.TxnOffsetCommitResponse
	err := coordretry.Do(ctx, coordretry.Group(group), func() (err error) {
		resp, err = req.RequestWith(ctx, t.cl)
		return err
	})
	if err != nil {
		return nil, err
	}
	byID := map[[16]byte]string{}
	for name, id := range ids {
		byID[id] = name
	}
	out := kadm.OffsetResponses{}
	for _, rt := range resp.Topics {
		name := rt.Topic
		if name == "" {
			name = byID[rt.TopicID]
		}
		for _, rp := range rt.Partitions {
			out.Add(kadm.OffsetResponse{Offset: kadm.Offset{Topic: name, Partition: rp.Partition}, Err: kerr.ErrorForCode(rp.ErrorCode)})
		}
	}
	return out, nil
}

// commitTxnBatches stages os in the transaction in splitCommits batches,
// each under the coordinator's 1 MiB batch limit (a TxnOffsetCommit is
// written as one record batch, like an OffsetCommit); a batch refused as
// too large is halved and resent (a refused batch staged nothing). It
// returns every partition's answer and the number of requests.
func (t *txn) commitTxnBatches(ctx context.Context, group string, os kadm.Offsets, ids map[string][16]byte) (kadm.OffsetResponses, int, error) {
	return commitSplit(group, os, func(batch kadm.Offsets) (kadm.OffsetResponses, error) {
		return t.commitBatch(ctx, group, batch, ids)
	})
}

// CheckTxnAllowed takes the transactional id once, before anything is
// written, so that a cluster that does not allow the transaction (an ACL
// on the id, no IDEMPOTENT_WRITE, no transaction coordinator) is found
// before the backup and the commits: it returns a *TxnNotAllowedError
// then, and nil for any other outcome (the execution reports those).
// Taking the id is what ExecuteResetTxn does first anyway.
func CheckTxnAllowed(ctx context.Context, adm *cluster.Admin, group string, o TxnOptions) error {
	_, err := initTxn(ctx, adm.Kgo, group, o)
	var na *TxnNotAllowedError
	if errors.As(err, &na) {
		return err
	}
	return nil
}

// ExecuteResetTxn applies one group's validated plan like ExecuteReset,
// with the same contract (partition failures in PartitionPlan.Error, the
// returned error for the whole group, CommitRequests counted), but as one
// transaction, so the group moves from all its old offsets to all its new
// ones at once whatever the size:
//
//  1. InitProducerId with o.ID takes the id over: a run that died with an
//     open transaction is aborted at once, a live one is fenced;
//  2. the committed offsets are read again and must equal the plan's
//     (ChangedError otherwise: another run changed the group since);
//  3. AddOffsetsToTxn, then TxnOffsetCommit in batches under the
//     coordinator's 1 MiB limit; staged offsets stay invisible to
//     OffsetFetch until the commit marker (measured on Apache Kafka 4.4);
//  4. the group is described again and the transaction aborted if it is
//     live: the broker does not refuse a transactional commit for a live
//     group (measured), so this check is offsetctl's own;
//  5. EndTxn(commit); a lost answer is resolved by taking the id over
//     again (which completes or aborts the transaction) and reading back;
//  6. partitions restored to "no commit" are deleted (OffsetDelete has no
//     transactional form: this step is not part of the transaction);
//  7. the offsets are read back (require_stable) and compared with the
//     plan.
func ExecuteResetTxn(ctx context.Context, adm *cluster.Admin, gp *GroupPlan, o TxnOptions) error {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTxnTimeout
	}
	commits, deletes := planOffsets(gp)
	// Every failure before EndTxn(commit) changed nothing: staged
	// offsets are discarded with the transaction.
	gp.Outcome = OutcomeFailed
	t, err := initTxn(ctx, adm.Kgo, gp.Group, o)
	if err != nil {
		return groupFailed(gp, nothingChanged(err))
	}
	if err := checkUnchanged(ctx, adm, gp); err != nil {
		return groupFailed(gp, nothingChanged(err))
	}
	if len(commits) > 0 {
		if err := stageCommits(ctx, adm, t, gp, commits); err != nil {
			return err
		}
		if err := endTxn(ctx, adm, t, gp, o); err != nil {
			return err // endTxn set the outcome
		}
	}
	gp.Executed = true
	gp.Outcome = OutcomeApplied
	// The commit is decided (EndTxn answered, or a lost answer resolved
	// as committed): the deletes and the read-back get a window of their
	// own, bounded by the resolution's, even when ctx ends now. A broker
	// frozen right after answering EndTxn must not end the run on a bare
	// deadline: the run knows the outcome and says it.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), resolveBound(o))
	defer cancel()
	var unnamed map[lag.TP]bool
	if len(deletes) > 0 {
		unnamed = deleteNoCommit(ctx, adm, gp, deletes)
		gp.Outcome = partitionsOutcome(gp)
	}
	fetched, over, err := readBackCommitted(ctx, adm, gp, t)
	if err != nil || over {
		// No read-back of this run: the deletes its answers did not
		// name stay unknown.
		settleOutcome(gp, unnamed, nil, false)
	}
	if err != nil {
		return groupFailed(gp, fmt.Errorf("group %s: the transaction was committed (the coordinator acknowledged the commit), so the group is entirely at its new offsets once the commit marker is written, never mixed; reading them back failed (%w); check with: %s", gp.Group, err, o.lagCommand(gp.Group)))
	}
	if over {
		// Not a mismatch of this run: see takenOver.
		gp.Superseded = true
		gp.Note = fmt.Sprintf("committed; before the read-back another offsetctl took over transactional id %q (possible only once this run's transaction had completed) and the group changed again since, so the offsets read back are not this run's", t.id)
		return nil
	}
	verifyReadBack(gp, fetched)
	gp.Outcome = verifiedOutcome(gp)
	settleOutcome(gp, unnamed, fetched, true)
	return nil
}

// takenOver reports whether another run has taken the transactional id
// over since this run's commit: the coordinator holds a newer producer
// epoch (or id) than the one the commit left. The coordinator answers that
// InitProducerId only once the transaction before it has completed (its
// markers written; CONCURRENT_TRANSACTIONS until then), and the run that
// took the id re-reads the committed offsets after taking it
// (checkUnchanged), so it planned from this run's result or refused: a
// read-back that differs now shows a later change, not a lost commit.
// Measured on Apache Kafka 4.4: two resets started together, where one
// ran entirely between the other's EndTxn and its read-back, made the
// first report "committed 7, planned 3" for every partition and exit 1,
// with an undo line that would have reverted the second. A failure to
// describe the id counts as no takeover (the read-back is verified),
// except that the deadline is returned: a broker that stopped answering
// leaves the read-back unfinished, as a fetch cut by it does.
func takenOver(ctx context.Context, adm *cluster.Admin, t *txn) (bool, error) {
	if t == nil || t.committed == nil {
		return false, nil
	}
	// The transaction coordinator not being there yet (or having moved)
	// is waited out under the one policy (coordretry, issue 28): read as
	// "no takeover", it made the read-back report a mismatch when another
	// run had in fact taken the id over. Describing changes nothing, so
	// asking again is safe.
	var d kadm.DescribedTransaction
	var ok bool
	err := coordretry.Do(ctx, coordretry.Txn(t.id), func() error {
		described, err := adm.DescribeTransactions(ctx, t.id)
		if err != nil {
			return err
		}
		if d, ok = described[t.id]; ok {
			return d.Err
		}
		return nil
	})
	if err != nil && ctx.Err() != nil {
		return false, fmt.Errorf("describing transactional id %q: %w", t.id, ctx.Err())
	}
	if err != nil || !ok {
		return false, nil
	}
	return d.ProducerID != t.committed[0] || int64(d.ProducerEpoch) > t.committed[1], nil
}

// nothingChanged says so on an error that stopped the run before anything
// was staged (a frozen broker's deadline would otherwise be all it says);
// the refusals that say it their own way are left as they are.
func nothingChanged(err error) error {
	var ce *ChangedError
	var na *TxnNotAllowedError
	if errors.As(err, &ce) || errors.As(err, &na) {
		return err
	}
	return fmt.Errorf("%w; nothing was staged: nothing changed for this group", err)
}

// readBackCommitted reads the offsets back after the commit. EndTxn
// answers once the commit is decided (PrepareCommit written); the commit
// markers follow. Until the marker reaches the group's coordinator, a
// group that had no commits before does not exist there, and Apache Kafka
// 4.4 answers OffsetFetch with no offsets even with require_stable
// (measured: "no commit found" on every partition right after EndTxn). So
// a read-back that does not show the plan yet is repeated, briefly, before
// it counts as a mismatch.
//
// It also stops waiting, and says so (over), once another run has taken
// the transactional id over (takenOver): the group may hold that run's
// offsets by now, and they would never turn into this run's.
func readBackCommitted(ctx context.Context, adm *cluster.Admin, gp *GroupPlan, t *txn) (fetched kadm.OffsetResponses, over bool, err error) {
	want := func(pp PartitionPlan) *int64 {
		switch {
		case pp.Action == ActDelete && pp.Error != "":
			// A delete refused, or not named in the answer, is
			// expected to have left the commit: a refused one is not
			// waited for (no marker brings it; the read-back waited
			// its whole 10 s for it). An unnamed one the broker did
			// carry out differs from that until the wait ends, and is
			// then judged from what was read (settleUnnamed).
			return pp.Current
		case pp.Action == ActDelete:
			return nil
		}
		return pp.Target
	}
	wctx, cancel := context.WithTimeout(ctx, markerWaitWithin(ctx))
	defer cancel()
	for try := 0; ; try++ {
		fetched, err := fetchStable(ctx, adm, gp.Group)
		if err != nil || len(differing(gp, fetched, want)) == 0 {
			return fetched, false, err
		}
		over, err := takenOver(ctx, adm, t)
		if over || err != nil {
			return fetched, over, err
		}
		if !coordretry.Wait(wctx, readBackBackoff(try)) {
			return fetched, false, nil
		}
	}
}

// markerWait bounds how long the read-back waits for the commit markers.
const markerWait = 10 * time.Second

// markerWaitWithin is markerWait, or half of what is left of ctx when
// that is shorter: the read-back's last fetch, after the wait, must still
// have time to answer. With a resolve window (--resolve-timeout) of 10 s
// or less, a group another writer had moved waited out the whole window,
// and its last fetch failed on the deadline: "reading them back failed"
// (exit 1, the group failed) where the run knew the commit went through
// and only the offsets differed (unverified).
func markerWaitWithin(ctx context.Context) time.Duration {
	if dl, ok := ctx.Deadline(); ok {
		return min(markerWait, time.Until(dl)/2)
	}
	return markerWait
}

// readBackBackoff is the wait before the read-back's next try: short and
// growing (2, 4, 8 ... ms, at most 100 ms). The commit marker usually
// reaches the group's coordinator within milliseconds of EndTxn's answer
// (the coordinator writes it right after the PrepareCommit), so a first
// wait of 100 ms (coordretry.Backoff, sized for a coordinator that is
// moving) cost each group about 100 ms for nothing: 20 groups took 2.2 s.
func readBackBackoff(try int) time.Duration {
	return min(2*time.Millisecond<<min(try, 6), 100*time.Millisecond)
}

// fetchStable reads the group's committed offsets with require_stable:
// the broker answers UNSTABLE_OFFSET_COMMIT (retried by kgo) while a
// transactional commit to the group is pending, instead of hiding it. A
// group that does not exist has no commits (kfake answers
// GROUP_ID_NOT_FOUND where Apache Kafka answers with no offsets).
func fetchStable(ctx context.Context, adm *cluster.Admin, group string) (kadm.OffsetResponses, error) {
	fetched, err := lag.FetchOffsets(kadm.RequireStable(ctx), adm, group)
	if errors.Is(err, kerr.GroupIDNotFound) {
		return kadm.OffsetResponses{}, nil
	}
	return fetched, err
}

func groupFailed(gp *GroupPlan, err error) error {
	gp.Error = err.Error()
	return err
}

// planOffsets splits the plan into the offsets to commit and the
// partitions to restore to "no commit".
func planOffsets(gp *GroupPlan) (kadm.Offsets, kadm.TopicsSet) {
	commits := kadm.Offsets{}
	deletes := kadm.TopicsSet{}
	for _, pp := range gp.Partitions {
		switch {
		case pp.Action == ActCommit && pp.Target != nil:
			commits.Add(kadm.Offset{Topic: pp.Topic, Partition: pp.Partition, At: *pp.Target, LeaderEpoch: -1})
		case pp.Action == ActDelete:
			deletes.Add(pp.Topic, pp.Partition)
		}
	}
	return commits, deletes
}

// checkUnchanged reads the committed offsets again, after the id is held,
// and refuses when any planned partition's commit differs from the one
// the plan (and so the backup) was made from: another run committed in
// between, and committing now would lose its update, with a backup that
// no longer undoes this one. require_stable makes the broker wait for
// pending transactional commits of other ids instead of hiding them.
func checkUnchanged(ctx context.Context, adm *cluster.Admin, gp *GroupPlan) error {
	fetched, err := fetchStable(ctx, adm, gp.Group)
	if err != nil {
		return fmt.Errorf("group %s: re-reading the committed offsets before committing: %w", gp.Group, err)
	}
	if n := len(differing(gp, fetched, func(pp PartitionPlan) *int64 { return pp.Current })); n > 0 {
		return &ChangedError{Group: gp.Group, N: n}
	}
	return nil
}

// differing lists the planned partitions whose committed offset in
// fetched is not want(pp) (nil: no commit).
func differing(gp *GroupPlan, fetched kadm.OffsetResponses, want func(PartitionPlan) *int64) []int {
	var out []int
	for i, pp := range gp.Partitions {
		if pp.Action == ActSkip {
			continue
		}
		o, ok := fetched.Lookup(pp.Topic, pp.Partition)
		has := ok && o.Err == nil && o.At >= 0
		w := want(pp)
		if has != (w != nil) || has && o.At != *w {
			out = append(out, i)
		}
	}
	return out
}

// abort aborts the transaction and says what became of it. Whatever the
// answer, the commit was never sent, so nothing of the plan is applied;
// the words say whether the abort itself was answered (an abort that got
// no answer is finished by the coordinator: at the transaction timeout,
// or when the next run takes the id over).
func (t *txn) abort(ctx context.Context) string {
	err := t.end(ctx, false)
	var lost *noAnswerError
	switch {
	case err == nil:
		return "the transaction was aborted"
	case errors.As(err, &lost):
		return fmt.Sprintf("the abort got no answer (%v), but the commit was never sent: the transaction coordinator aborts it (at its timeout, or when the next run takes the id over)", err)
	}
	return fmt.Sprintf("the abort was refused (%v), but the commit was never sent: the transaction coordinator aborts it (at its timeout, or when the next run takes the id over)", err)
}

// stageCommits adds the group to the transaction and stages commits; on
// any failure it aborts, so nothing of the plan is applied.
func stageCommits(ctx context.Context, adm *cluster.Admin, t *txn, gp *GroupPlan, commits kadm.Offsets) error {
	abort := func(err error) error {
		return groupFailed(gp, fmt.Errorf("group %s: %w; %s: nothing changed for this group", gp.Group, err, t.abort(ctx)))
	}
	if err := t.addOffsets(ctx, gp.Group); err != nil {
		return abort(fmt.Errorf("adding the group to the transaction: %s", explainTxnErr(err, t.id)))
	}
	ids, err := topicIDs(ctx, adm, commits)
	if err != nil {
		return abort(err)
	}
	resp, n, err := t.commitTxnBatches(ctx, gp.Group, commits, ids)
	gp.CommitRequests = n
	if err != nil {
		return abort(fmt.Errorf("staging offsets: %s", explainTxnErr(err, t.id)))
	}
	if why := checkStaged(gp, commits, resp, t.id); why != "" {
		return abort(errors.New(why))
	}
	return nil
}

// checkStaged sets the error of every partition of commits that the
// TxnOffsetCommit answers did not stage: one refused (its error code), or
// one they do not name at all, whose staging is then not known. It
// returns what stops the transaction ("" when every partition was staged).
//
// Every partition must be answered, without an error, before
// EndTxn(commit) is sent. An answer that named none of the planned
// partitions (a v6 answer whose topic ids were not the ones asked for)
// used to read as staging them all: the run committed an empty
// transaction, waited 10 s for offsets that could never appear, and
// recorded "unverified" (the broker acknowledged every planned change)
// where nothing had changed.
func checkStaged(gp *GroupPlan, commits kadm.Offsets, resp kadm.OffsetResponses, id string) string {
	idx := partitionIndex(gp)
	answered := map[lag.TP]bool{}
	refused := 0
	stray := map[strayKey][]int32{}
	resp.Each(func(r kadm.OffsetResponse) {
		k := lag.TP{Topic: r.Topic, Partition: r.Partition}
		if _, asked := commits.Lookup(r.Topic, r.Partition); !asked {
			sk := strayOf(r)
			stray[sk] = append(stray[sk], r.Partition)
			return
		}
		answered[k] = true
		if r.Err != nil {
			refused++
			gp.Partitions[idx[k]].Error = commitErrPrefix + explainTxnErr(r.Err, id)
		}
	})
	missing := 0
	commits.Each(func(o kadm.Offset) {
		if k := (lag.TP{Topic: o.Topic, Partition: o.Partition}); !answered[k] {
			missing++
			gp.Partitions[idx[k]].Error = commitErrPrefix + "the answer to the transactional commit did not name this partition, so it is not known to be staged"
		}
	})
	var parts []string
	if refused > 0 {
		parts = append(parts, fmt.Sprintf("%d partition(s) refused the transactional commit", refused))
	}
	if missing > 0 {
		parts = append(parts, fmt.Sprintf("the answer to the transactional commit did not name %d of the partition(s) asked for, so they are not known to be staged", missing))
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, ", and ") + strayNote("partitions", stray)
}

// explainTxnErr is ExplainError for a transactional request: a fenced
// producer means another run took the id over.
func explainTxnErr(err error, id string) string {
	if errors.Is(err, kerr.ProducerFenced) || errors.Is(err, kerr.InvalidProducerEpoch) {
		return fmt.Sprintf("%v: another offsetctl took over transactional id %q", err, id)
	}
	return ExplainError(err)
}

func partitionIndex(gp *GroupPlan) map[lag.TP]int {
	idx := make(map[lag.TP]int, len(gp.Partitions))
	for i, pp := range gp.Partitions {
		idx[lag.TP{Topic: pp.Topic, Partition: pp.Partition}] = i
	}
	return idx
}

// liveNow describes the group again and returns why it is live, or "".
//
// It first describes the group with the API of the type the plan saw
// (describeAsPlanned: one request to its coordinator). Only when that is
// not a plain answer about the group does it list every group to learn
// the type now and describe again: a ListGroups per group made a reset of
// N groups send N listings of N groups (500 groups: 0.07 s of the
// client's CPU and the broker's for every run, measured).
func liveNow(ctx context.Context, adm *cluster.Admin, group, planned string) (string, error) {
	if gi, ok := describeAsPlanned(ctx, adm, group, planned); ok {
		return liveReason(gi), nil
	}
	listed, err := lag.ListGroups(ctx, adm)
	if err != nil {
		return "", err
	}
	described, err := lag.DescribeGroups(ctx, adm, []string{group}, listed)
	if err != nil {
		return "", err
	}
	gi := described[group]
	if gi.Err != nil {
		return "", fmt.Errorf("describing group %s: %w", group, gi.Err)
	}
	return liveReason(gi), nil
}

// describeAsPlanned describes group as the type the plan saw (classic or
// consumer) and reports whether the answer stands on its own: described
// without error and in a state a group that exists has. A group that has
// changed type since (a KIP-848 consumer joined an empty classic group, or
// a classic consumer an empty KIP-848 group) is not one: the other type's
// API answers GROUP_ID_NOT_FOUND (DescribeGroups v6+ and
// ConsumerGroupDescribe) or, before KIP-1043, state Dead, and liveNow then
// lists the groups as before. So is a group that no longer exists, or one
// the plan saw with another type.
func describeAsPlanned(ctx context.Context, adm *cluster.Admin, group, planned string) (lag.GroupInfo, bool) {
	if planned != "classic" && planned != "consumer" {
		return lag.GroupInfo{}, false
	}
	listed := kadm.ListedGroups{group: {Group: group, GroupType: planned}}
	described, err := lag.DescribeGroups(ctx, adm, []string{group}, listed)
	if err != nil {
		return lag.GroupInfo{}, false
	}
	gi := described[group]
	if gi.Err != nil || gi.State == "" || gi.State == "Dead" {
		return lag.GroupInfo{}, false
	}
	return gi, true
}

// endTxn checks, right before EndTxn, that the group is still not live
// (aborting if it is), then commits. When the EndTxn answer is lost (a
// frozen broker, a dropped connection, the deadline), whether the
// coordinator got it is unknown: resolveLost finds out.
func endTxn(ctx context.Context, adm *cluster.Admin, t *txn, gp *GroupPlan, o TxnOptions) error {
	live, err := liveNow(ctx, adm, gp.Group, gp.Type)
	if err == nil && live != "" {
		// live ends with its own advice (stopAdvice): said once, at
		// the end.
		live = strings.TrimSuffix(live, stopAdvice)
		gp.Aborted = "group became active"
		return groupFailed(gp, fmt.Errorf("group %s %s: it became active after the check, so %s: nothing changed for this group; stop its consumers and retry", gp.Group, live, t.abort(ctx)))
	}
	if err != nil {
		return groupFailed(gp, fmt.Errorf("group %s: describing it again before the commit: %v; %s: nothing changed for this group", gp.Group, err, t.abort(ctx)))
	}
	err = t.end(ctx, true)
	var lost *noAnswerError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &lost):
		// Checked before the refusals: an unknown outcome wraps the
		// last answer, which may be one of them.
		return resolveLost(ctx, adm, gp, o, err)
	case errors.Is(err, kerr.ProducerFenced), errors.Is(err, kerr.InvalidProducerEpoch), errors.Is(err, kerr.InvalidProducerIDMapping),
		errors.Is(err, kerr.InvalidTxnState):
		// Another run took the id over (its InitProducerId aborted ours:
		// Apache Kafka answers PRODUCER_FENCED, kfake INVALID_TXN_STATE),
		// or the transaction timed out and was aborted. Not resolved by
		// taking the id over: that would fence the other run in turn.
		return groupFailed(gp, fmt.Errorf("group %s: the transaction coordinator no longer held this run's transaction (%v: another offsetctl took over transactional id %q, or the transaction timed out), so it was aborted: nothing changed for this group", gp.Group, err, t.id))
	}
	// Any other answer refused the commit. The transaction is aborted
	// (here, or by the timeout or the next run); no takeover, which
	// could fence another run that holds the id now.
	_ = t.end(ctx, false) // the refusal says it all: nothing changed
	return groupFailed(gp, fmt.Errorf("group %s: the transaction coordinator refused the commit (%v): nothing changed for this group", gp.Group, err))
}

func resolveBound(o TxnOptions) time.Duration {
	if o.Resolve <= 0 {
		return 30 * time.Second
	}
	return o.Resolve
}

// resolveLost finds out what happened to a transaction whose EndTxn
// answer was lost. Taking the id over again completes the transaction if
// the coordinator had the commit (PrepareCommit is durable) or aborts it
// if not; after that the committed offsets are final, and reading them
// tells which. The group is never mixed: one group's offsets live in one
// __consumer_offsets partition, made visible by one commit marker.
func resolveLost(ctx context.Context, adm *cluster.Admin, gp *GroupPlan, o TxnOptions, endErr error) error {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), resolveBound(o))
	defer cancel()
	lost := fmt.Sprintf("group %s: the answer to the transaction's commit was lost (%v)", gp.Group, endErr)
	undetermined := func(what string, err error) error {
		gp.Outcome = OutcomeUnknown
		return groupFailed(gp, fmt.Errorf("%s and %s within %s more (%v): offsetctl could not tell whether the transaction was committed: the group is either all at its old or all at its new offsets, never mixed; run `%s` to see which",
			lost, what, resolveBound(o), err, o.lagCommand(gp.Group)))
	}
	if _, err := initTxn(rctx, adm.Kgo, gp.Group, o); err != nil {
		return undetermined("the cluster did not settle it", err)
	}
	fetched, err := fetchStable(rctx, adm, gp.Group)
	if err != nil {
		return undetermined("reading back failed", err)
	}
	target := func(pp PartitionPlan) *int64 {
		if pp.Action == ActDelete {
			return pp.Current // deletes come after the transaction
		}
		return pp.Target
	}
	switch {
	case len(differing(gp, fetched, target)) == 0:
		gp.Note = "the commit's answer was lost; read back: the transaction was committed"
		return nil // applied
	case len(differing(gp, fetched, func(pp PartitionPlan) *int64 { return pp.Current })) == 0:
		return groupFailed(gp, fmt.Errorf("%s; read back: the transaction was aborted, the group is entirely at its old offsets, nothing changed", lost))
	}
	// Committed and changed again since, or aborted and changed since:
	// the read-back cannot tell.
	gp.Outcome = OutcomeUnknown
	return groupFailed(gp, fmt.Errorf("%s; read back: the group holds neither the old offsets nor the new ones (another run changed it since?), so whether this run's transaction was committed is unknown", lost))
}

// deleteNoCommit deletes the partitions restored to "no commit" (after
// the transaction: OffsetDelete cannot be part of one). It sets the error
// of every partition the broker refused, or whose delete a failed request
// left unanswered, and returns those its answers did not name: not
// acknowledged, they carry an error saying so, and the read-back decides
// whether they changed (settleOutcome).
func deleteNoCommit(ctx context.Context, adm *cluster.Admin, gp *GroupPlan, deletes kadm.TopicsSet) map[lag.TP]bool {
	resp, _, err := deleteInBatches(ctx, adm, gp.Group, deletes, commitBatchBytes)
	var gaps answerGaps
	if err == nil {
		gaps = partitionGaps(deletes, resp)
	}
	missing := map[lag.TP]bool{}
	for _, k := range gaps.missing {
		missing[k] = true
	}
	unnamed := map[lag.TP]bool{}
	for i := range gp.Partitions {
		pp := &gp.Partitions[i]
		if pp.Action != ActDelete || pp.Error != "" {
			continue
		}
		k := lag.TP{Topic: pp.Topic, Partition: pp.Partition}
		perr, ok := resp[pp.Topic][pp.Partition]
		switch {
		case missing[k]:
			unnamed[k] = true
			pp.Error = deleteErrPrefix + notNamed("deleted") + gaps.note()
		case !ok && err != nil && unanswered(err):
			// Its request may have been carried out (sent, no
			// answer), or never sent: the read-back judges it, as for
			// a partition an answer left out. A "failed" here told
			// undo that the restore changed nothing.
			unnamed[k] = true
			pp.Error = deleteErrPrefix + "the delete got no answer (" + ExplainError(err) + "): not known to be deleted"
		case !ok && err != nil:
			pp.Error = deleteErrPrefix + ExplainError(err)
		case perr != nil:
			pp.Error = deleteErrPrefix + ExplainError(perr)
		}
	}
	return unnamed
}
