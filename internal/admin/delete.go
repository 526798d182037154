package admin

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/offsetctl/offsetctl/internal/cluster"
	"github.com/offsetctl/offsetctl/internal/exitcode"
	"github.com/offsetctl/offsetctl/internal/lag"
	"github.com/offsetctl/offsetctl/internal/safetext"
	"github.com/offsetctl/offsetctl/internal/topicname"
)

// DeleteOffsetsRow is one partition of a delete-offsets plan.
type DeleteOffsetsRow struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Current   *int64 `json:"current"`
	Status    string `json:"status"`
	Error     string `json:"error"`
	// WouldFail is, in a plan, the error --execute is expected to get
	// (GROUP_SUBSCRIBED_TO_TOPIC for a topic live members consume).
	WouldFail string `json:"-"`
	// Unanswered: the delete of this partition was sent, or may have
	// been, and got no answer: whether it was applied is unknown.
	Unanswered bool `json:"-"`
}

// DeleteOffsetsPlan is the plan of `delete-offsets`.
type DeleteOffsetsPlan struct {
	Group      string             `json:"group"`
	State      string             `json:"state"`
	Members    int                `json:"members"`
	Executed   bool               `json:"executed"`
	Backup     string             `json:"backup"`
	Error      string             `json:"error,omitempty"`
	Partitions []DeleteOffsetsRow `json:"partitions"`
	// DeleteRequests is how many OffsetDelete requests --execute sent (1
	// unless the delete exceeded the coordinator's batch limit).
	DeleteRequests int `json:"-"`
	// Live is whether the group had live members when planned (reset,
	// and so an undo from the backup, refuses it until they stop).
	Live bool `json:"-"`
	// GroupType is "share" for a share group (KIP-932), whose start
	// offsets are deleted a whole topic at a time (DeleteShareGroupOffsets).
	GroupType string `json:"group_type,omitempty"`
	// Skipped says why a selection (--all-groups, --regex) left the group
	// out: it is reported, never backed up or changed.
	Skipped string `json:"skipped,omitempty"`
}

// Skip returns p as a selection leaves it out, for why: every row says
// "skipped", and nothing is expected to fail.
func (p DeleteOffsetsPlan) Skip(why string) DeleteOffsetsPlan {
	p.Skipped = why
	rows := make([]DeleteOffsetsRow, len(p.Partitions))
	for i, r := range p.Partitions {
		r.Status, r.WouldFail = "skipped: "+why, ""
		rows[i] = r
	}
	p.Partitions = rows
	return p
}

// setOutcome sets a planned row's outcome of a delete: reqErr is the
// request's error, answered whether the broker's answer names the row,
// itemErr the error it gives the row.
func (r *DeleteOffsetsRow) setOutcome(reqErr error, answered bool, itemErr error) {
	switch {
	case r.Current == nil:
		// Nothing to delete, whatever the broker said (it refuses a topic
		// live members consume even where there is no commit): say so
		// rather than "failed".
		r.Status = "no commit"
	case !answered && reqErr != nil:
		r.Status, r.Error = "failed", ExplainError(reqErr)
	case !answered:
		// Not acknowledged: failed unless the read-back finds it gone
		// (settleNotNamed).
		r.Status, r.Error = "failed", notNamed("deleted")
	case itemErr != nil:
		r.Status, r.Error = "failed", ExplainError(itemErr)
	default:
		r.Status = "deleted"
	}
}

// PlanDeleteOffsets lists the scoped partitions of group with their
// commits. Unknown topics or partitions are bad input (exitcode.Usage).
func PlanDeleteOffsets(s *lag.Snapshot, group string, scope lag.Scope) (DeleteOffsetsPlan, error) {
	p := DeleteOffsetsPlan{Group: group, Partitions: []DeleteOffsetsRow{}}
	g, ok := s.Group(group)
	if !ok {
		return p, exitcode.Usagef("group %s was not gathered", safetext.Arg(group))
	}
	p.State, p.Members = g.State, len(g.Members)
	if !g.Exists {
		// The broker answers GROUP_ID_NOT_FOUND: fail before any backup,
		// in the dry run too.
		p.State = "Dead"
		p.Error = fmt.Sprintf("group %s: %s", safetext.Arg(group), ExplainError(kerr.GroupIDNotFound))
	}
	if g.Type == "streams" {
		p.Error = "group " + safetext.Arg(group) + " " + StreamsRefusal
		return p, nil
	}
	// The broker refuses to delete the offsets of topics live members
	// consume; their assignments say which.
	consumed := map[string]bool{}
	if LiveGroupReason(g.GroupInfo) != "" {
		p.Live = true
		for _, m := range g.Members {
			for t := range m.Assigned {
				consumed[t] = true
			}
		}
	}
	if g.IsShare() {
		if err := shareDeleteScope(&p, g, scope); err != nil {
			return p, err
		}
	}
	switch {
	case g.Err != nil:
		p.Error = fmt.Sprintf("describing group %s: %v", safetext.Arg(group), g.Err)
		return p, nil
	case g.CommitErr != nil:
		p.Error = fmt.Sprintf("fetching committed offsets of group %s: %v", safetext.Arg(group), g.CommitErr)
		return p, nil
	}
	for _, t := range scope.TopicNames() {
		if err := s.Offsets.TopicErr[t]; err != nil {
			return p, lag.TopicFailure(err)
		}
		parts, ok := s.Offsets.Partitions[t]
		if !ok {
			return p, exitcode.Usagef("topic %s does not exist", t)
		}
		want := scope.Topics[t]
		if want == nil {
			for q := range parts {
				want = append(want, q)
			}
			slices.Sort(want)
		}
		for _, q := range want {
			if _, ok := parts[q]; !ok {
				return p, exitcode.Usagef("partition %d does not exist in topic %s (it has %d partitions)", q, t, len(parts))
			}
			row := DeleteOffsetsRow{Topic: t, Partition: q, Status: "would delete"}
			if c, ok := g.Commits[t][q]; ok {
				if c.Err != nil {
					row.Error = fmt.Sprintf("committed offset: %v", c.Err)
				} else {
					off := c.Offset
					row.Current = &off
					if consumed[t] {
						row.Status = "would fail: GROUP_SUBSCRIBED_TO_TOPIC"
						row.WouldFail = ExplainError(kerr.GroupSubscribedToTopic)
					}
				}
			} else {
				row.Status = "no commit"
			}
			p.Partitions = append(p.Partitions, row)
		}
	}
	return p, nil
}

// HasCommits reports whether any planned partition has a commit to delete.
func (p DeleteOffsetsPlan) HasCommits() bool {
	for _, r := range p.Partitions {
		if r.Current != nil {
			return true
		}
	}
	return false
}

// BackupRows returns the pre-delete state of the plan's partitions.
func (p DeleteOffsetsPlan) BackupRows() BackupGroup {
	bg := BackupGroup{Group: p.Group, Share: p.GroupType == lag.ShareType}
	for _, r := range p.Partitions {
		row := PlanRow{Group: p.Group, Topic: r.Topic, Partition: r.Partition, NoCommit: r.Current == nil}
		if r.Current != nil {
			row.Offset = *r.Current
		}
		bg.Rows = append(bg.Rows, row)
	}
	return bg
}

// Errors lists the plan's errors, naming group, topic and partition:
// partitions that failed the same way share one item (see
// groupPartitionErrors).
func (p DeleteOffsetsPlan) Errors() []string {
	var out []string
	if p.Error != "" {
		out = append(out, p.Error)
	}
	var fails []partitionErr
	for _, r := range p.Partitions {
		if r.Error != "" {
			fails = append(fails, partitionErr{r.Topic, r.Partition, r.Error})
		}
	}
	return append(out, groupPartitionErrors(p.Group, fails)...)
}

// WouldFail lists, in the form Errors uses, the failures --execute is
// expected to meet (live members consuming a topic).
func (p DeleteOffsetsPlan) WouldFail() []string {
	var fails []partitionErr
	for _, r := range p.Partitions {
		if r.WouldFail != "" {
			fails = append(fails, partitionErr{r.Topic, r.Partition, r.WouldFail})
		}
	}
	return groupPartitionErrors(p.Group, fails)
}

type partitionErr struct {
	topic     string
	partition int32
	msg       string
}

// groupPartitionErrors makes one item per distinct error of group's
// partitions, in the order the errors first occur: "group G topic T
// partition P: ERR" for one partition, "group G: N partitions (T/0, T/1,
// ... and M more): ERR" for several, so a live group's refusal is
// explained once, not once per partition.
func groupPartitionErrors(group string, fails []partitionErr) []string {
	var order []string
	byMsg := map[string][]partitionErr{}
	for _, f := range fails {
		if _, ok := byMsg[f.msg]; !ok {
			order = append(order, f.msg)
		}
		byMsg[f.msg] = append(byMsg[f.msg], f)
	}
	var out []string
	for _, msg := range order {
		fs := byMsg[msg]
		if len(fs) == 1 {
			out = append(out, fmt.Sprintf("group %s topic %s partition %d: %s", safetext.Arg(group), fs[0].topic, fs[0].partition, msg))
			continue
		}
		names := make([]string, len(fs))
		for i, f := range fs {
			names[i] = fmt.Sprintf("%s/%d", f.topic, f.partition)
		}
		out = append(out, fmt.Sprintf("group %s: %d partitions (%s): %s", safetext.Arg(group), len(fs), shortList(names), msg))
	}
	return out
}

// UndoScope is the --topic scope that restores, from the backup, exactly
// the offsets --execute deleted: nil with whole true when every
// partition that had a commit was deleted (the whole backup is the undo),
// nil with whole false when nothing was deleted. Otherwise one TOPIC (all
// its planned partitions were deleted) or TOPIC:P,... per topic, so the
// undo leaves alone the partitions whose delete failed: their offsets are
// still there and may have moved on since the backup.
func (p DeleteOffsetsPlan) UndoScope() (scope []string, whole bool) {
	var topics []string
	planned := map[string]int{}
	deleted := map[string][]int32{}
	whole = true
	for _, r := range p.Partitions {
		if _, ok := planned[r.Topic]; !ok {
			topics = append(topics, r.Topic)
		}
		planned[r.Topic]++
		switch {
		case r.Status == "deleted":
			deleted[r.Topic] = append(deleted[r.Topic], r.Partition)
		case r.Current != nil:
			whole = false
		}
	}
	if len(deleted) == 0 {
		return nil, false
	}
	if whole {
		return nil, true
	}
	for _, t := range topics {
		ps := deleted[t]
		switch {
		case len(ps) == 0:
			continue
		case len(ps) == planned[t]:
			scope = append(scope, t)
		default:
			var nums []string
			for _, q := range ps {
				nums = append(nums, fmt.Sprint(q))
			}
			scope = append(scope, t+":"+strings.Join(nums, ","))
		}
	}
	return scope, false
}

// ExecuteDeleteOffsets deletes the plan's offsets (one OffsetDelete, or
// the fewest that fit the coordinator's batch limit) and then reads the
// group's offsets back to confirm they are gone.
func ExecuteDeleteOffsets(ctx context.Context, adm *cluster.Admin, p *DeleteOffsetsPlan) error {
	return executeDeleteOffsets(ctx, adm, p, commitBatchBytes)
}

func executeDeleteOffsets(ctx context.Context, adm *cluster.Admin, p *DeleteOffsetsPlan, limit int) error {
	if p.GroupType == lag.ShareType {
		return executeShareDelete(ctx, adm, p)
	}
	set := kadm.TopicsSet{}
	for _, r := range p.Partitions {
		set.Add(r.Topic, r.Partition)
	}
	if len(set) == 0 {
		return nil
	}
	resp, n, err := deleteInBatches(ctx, adm, p.Group, set, limit)
	p.DeleteRequests = n
	// A request error (NON_EMPTY_GROUP, GROUP_ID_NOT_FOUND, ...) applies
	// to every partition it did not answer. Answered, every partition
	// must be named: one left out is not acknowledged.
	p.Executed = len(resp) > 0 || err == nil
	var gaps answerGaps
	if err == nil {
		gaps = partitionGaps(set, resp)
	}
	unnamed := map[int]bool{}
	for i := range p.Partitions {
		r := &p.Partitions[i]
		perr, ok := resp[r.Topic][r.Partition]
		r.setOutcome(err, ok, perr)
		if !ok && err == nil && r.Current != nil {
			r.Error += gaps.note()
			unnamed[i] = true
		}
		if !ok && err != nil && n > 0 && unanswered(err) && r.Current != nil {
			// The request cut off may have been applied (all of it:
			// one OffsetDelete is one batch); later ones were not sent,
			// but which is which is not known here: unknown, never
			// "failed", which would promise nothing changed.
			r.Unanswered = true
			r.Error += "; the delete got no answer, so whether it was applied is unknown"
		}
	}
	if !p.Executed {
		return nil
	}
	fetched, err := lag.FetchOffsets(ctx, adm, p.Group)
	if err != nil {
		p.Error = fmt.Sprintf("reading back offsets of group %s: %v", safetext.Arg(p.Group), err)
		p.settleNotNamed(unnamed, nil, false)
		return nil
	}
	p.settleNotNamed(unnamed, fetched, true)
	for i := range p.Partitions {
		r := &p.Partitions[i]
		if r.Error != "" {
			continue
		}
		if o, ok := fetched.Lookup(r.Topic, r.Partition); ok && o.Err == nil && o.At >= 0 {
			r.Status, r.Error = "failed", fmt.Sprintf("verify: still committed at %d", o.At)
		}
	}
	return nil
}

// DeleteGroupRow is one group of `delete-group`.
type DeleteGroupRow struct {
	Group   string `json:"group"`
	Type    string `json:"type"`
	State   string `json:"state"`
	Members int    `json:"members"`
	Commits int    `json:"commits"`
	Status  string `json:"status"`
	Error   string `json:"error"`
	// WouldFail is, in a plan, the error --execute is expected to get
	// (NON_EMPTY_GROUP for a group with live members).
	WouldFail string `json:"-"`
	// Skipped says why a selection (--all-groups, --regex) left the group
	// out (a share group): it is reported, never backed up or deleted.
	Skipped string `json:"skipped,omitempty"`
}

// PlanDeleteGroups describes what deleting the groups would do.
func PlanDeleteGroups(s *lag.Snapshot, groups []string) []DeleteGroupRow {
	var out []DeleteGroupRow
	for _, name := range groups {
		row := DeleteGroupRow{Group: name, Status: "would delete"}
		g, ok := s.Group(name)
		if !ok {
			row.Error = "not gathered"
			out = append(out, row)
			continue
		}
		row.Type, row.State, row.Members = g.Type, g.State, len(g.Members)
		row.Commits = g.Commits.Len()
		switch {
		case g.Err != nil:
			row.Error = fmt.Sprintf("describing group: %v", g.Err)
		case !g.Exists:
			// Not sent: the broker would answer GROUP_ID_NOT_FOUND.
			row.State, row.Status = "Dead", "does not exist"
			row.Error = ExplainError(kerr.GroupIDNotFound)
		case g.Type == "streams":
			// Never sent: deleting a Streams application's offsets alone
			// leaves its state stores and internal topics behind.
			row.Status = "refused"
			row.Error = "group " + safetext.Arg(name) + " " + StreamsRefusal
		case hasMembers(g.GroupInfo):
			row.Status = "would fail: group has live members (NON_EMPTY_GROUP)"
			row.WouldFail = ExplainError(kerr.NonEmptyGroup)
		}
		out = append(out, row)
	}
	return out
}

// DeleteGroupsRefusals lists the groups a delete-group run refuses
// outright (a Kafka Streams group: see StreamsRefusal), one line each. Any
// refusal stops the whole run before its backup and audit entry are
// written, as reset stops on a refused group: the operator named a group
// offsetctl will not delete, and a backup written first would be a file
// that restores nothing offsetctl did.
func DeleteGroupsRefusals(rows []DeleteGroupRow) []string {
	var out []string
	for _, r := range rows {
		if r.Status == "refused" {
			out = append(out, r.Error)
		}
	}
	return out
}

// hasMembers reports whether the broker would refuse to delete the group
// as NON_EMPTY_GROUP: it has members, or (classic) is not Empty or Dead.
// A Connect worker group is judged like any other, not by reset's guard.
func hasMembers(gi lag.GroupInfo) bool {
	if len(gi.Members) > 0 {
		return true
	}
	switch gi.Type {
	case "consumer", lag.ShareType:
		return false
	}
	switch gi.State {
	case "Empty", "Dead", "":
		return false
	}
	return true
}

// BackupGroups returns the committed offsets of the groups that exist, for
// a backup before deleting them.
func BackupGroups(s *lag.Snapshot, groups []string) []BackupGroup {
	var out []BackupGroup
	for _, name := range groups {
		g, ok := s.Group(name)
		if !ok || !g.Exists {
			continue
		}
		// A share group's backup is marked, so its restore sets start
		// offsets again (AlterShareGroupOffsets) instead of committing
		// consumer offsets, which would create a classic group of the name.
		bg := BackupGroup{Group: name, Share: g.IsShare()}
		for _, c := range g.Commits.Sorted() {
			if c.Value.Err == nil {
				bg.Rows = append(bg.Rows, PlanRow{Group: name, Topic: c.Topic, Partition: c.Partition, Offset: c.Value.Offset})
			}
		}
		out = append(out, bg)
	}
	return out
}

// maxTopicName is Kafka's longest topic name: the bound used to estimate a
// group's tombstones without its topic names.
const maxTopicName = topicname.MaxLen

// groupTombstoneBytes bounds the size of the tombstones DeleteGroups
// writes for a group of n commits: one offset tombstone per commit (as an
// OffsetDelete writes, see commitRecordBytes) and the group's own.
func groupTombstoneBytes(group string, n int) int {
	return (n + 1) * (len(group) + maxTopicName + 70)
}

// ExecuteDeleteGroups deletes the groups and records each one's outcome.
//
// The coordinator writes the tombstones of every group of one DeleteGroups
// request as one batch, refused above the 1 MiB limit with
// UNKNOWN_SERVER_ERROR for every group of the request (measured on Apache
// Kafka 4.4: a group of 10,000 partitions and a 112-character name, and a
// 100-partition group that shared the request with it). So groups go out
// in requests whose estimated tombstones fit; a group too large on its
// own first has its offsets deleted in OffsetDeletes that each fit (see
// deleteInBatches), then the group itself. That group's deletion is then
// several atomic steps, not one: a failure between them leaves the group
// with part of its offsets (the backup, written first, restores them).
func ExecuteDeleteGroups(ctx context.Context, adm *cluster.Admin, rows []DeleteGroupRow) error {
	var batch []string
	size := 0
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		err := deleteGroupsOnce(ctx, adm, rows, batch, false)
		batch, size = nil, 0
		return err
	}
	for i := range rows {
		r := &rows[i]
		if r.Error != "" {
			continue
		}
		b := groupTombstoneBytes(r.Group, r.Commits)
		if b > commitBatchBytes {
			deleted, err := emptyLargeGroup(ctx, adm, r)
			if err != nil {
				r.Status, r.Error = "failed", err.Error()
				if deleted > 0 {
					r.Status = PartlyDeleted
					r.Error = fmt.Sprintf("%s; the group is PARTLY CHANGED: %d of its offsets were deleted", err, deleted)
				}
				continue
			}
			// Its offsets all deleted, an empty group may be gone
			// already (a coordinator removes an Empty group without
			// offsets): GROUP_ID_NOT_FOUND is then the outcome asked.
			err = deleteGroupsOnce(ctx, adm, rows, []string{r.Group}, true)
			offsetsGone(r, deleted, err)
			if err != nil {
				return err
			}
			continue
		}
		if size > 0 && size+b > commitBatchBytes {
			if err := flush(); err != nil {
				return err
			}
		}
		batch = append(batch, r.Group)
		size += b
	}
	return flush()
}

// offsetsGone corrects the row of a group too large for one DeleteGroups
// whose offsets were all deleted (deleted of them) before its DeleteGroups
// was refused or failed (a consumer joined in between: NON_EMPTY_GROUP):
// "failed" would say nothing changed, where every offset is gone.
func offsetsGone(r *DeleteGroupRow, deleted int, err error) {
	if deleted == 0 || r.Status == "deleted" || r.Status == DeleteUnknown {
		return
	}
	why := r.Error
	if why == "" && err != nil {
		why = ExplainError(err)
	}
	r.Status = PartlyDeleted
	r.Error = fmt.Sprintf("deleting the group itself: %s; the group is PARTLY CHANGED: its %d offsets were deleted (in batches, as it is too large for one DeleteGroups) and the group was not", why, deleted)
}

// DeleteUnknown is the status of a group whose DeleteGroups was sent and
// got no answer: it may or may not be gone.
const DeleteUnknown = "unknown"

const deleteNoAnswer = "the delete got no answer, so whether the group was deleted is unknown"

// PartlyDeleted is the status of a group too large for one DeleteGroups
// whose offsets were deleted in part before a failure.
const PartlyDeleted = "partly deleted"

// emptyLargeGroup deletes every committed offset of a group too large for
// one DeleteGroups, in OffsetDeletes under the batch limit. It returns how
// many offsets were deleted.
func emptyLargeGroup(ctx context.Context, adm *cluster.Admin, r *DeleteGroupRow) (int, error) {
	fetched, err := lag.FetchOffsets(ctx, adm, r.Group)
	if err != nil {
		return 0, fmt.Errorf("fetching its offsets to delete them in batches: %w", err)
	}
	set := kadm.TopicsSet{}
	fetched.Each(func(o kadm.OffsetResponse) {
		if o.Err == nil && o.At >= 0 {
			set.Add(o.Topic, o.Partition)
		}
	})
	resp, _, err := deleteInBatches(ctx, adm, r.Group, set, commitBatchBytes)
	deleted := 0
	var first error
	for _, ps := range resp {
		for _, perr := range ps {
			if perr == nil {
				deleted++
			} else if first == nil {
				first = perr
			}
		}
	}
	if err == nil {
		err = first
	}
	if err != nil {
		return deleted, fmt.Errorf("deleting its offsets in batches (it is too large for one DeleteGroups): %s", ExplainError(err))
	}
	return deleted, nil
}

// deleteGroupsOnce sends one DeleteGroups round (kadm: one request per
// coordinator) for names and records each group's outcome in rows. With
// emptied (a group whose offsets were just deleted), GROUP_ID_NOT_FOUND
// counts as deleted.
func deleteGroupsOnce(ctx context.Context, adm *cluster.Admin, rows []DeleteGroupRow, names []string, emptied bool) error {
	resp, err := deleteGroupsRetrying(ctx, adm, names)
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	if err != nil {
		if unanswered(err) {
			// Sent, or maybe sent, and no answer (a dropped connection,
			// the deadline): the groups may be gone. Unknown, never
			// "failed", which would promise that nothing changed
			// (issue 21: outcomes from what the broker answered).
			for i := range rows {
				if r := &rows[i]; r.Error == "" && want[r.Group] {
					r.Status, r.Error = DeleteUnknown, deleteNoAnswer
				}
			}
		}
		return fmt.Errorf("deleting groups: %w", err)
	}
	for i := range rows {
		r := &rows[i]
		if r.Error != "" || !want[r.Group] {
			continue
		}
		d, ok := resp[r.Group]
		switch {
		case !ok:
			// Its coordinator's answer was lost (kadm reports a shard
			// that did not answer by leaving its groups out).
			r.Status, r.Error = DeleteUnknown, deleteNoAnswer
		case emptied && errors.Is(d.Err, kerr.GroupIDNotFound):
			r.Status = "deleted"
		case d.Err != nil:
			r.Status, r.Error = "failed", ExplainError(d.Err)
		default:
			r.Status = "deleted"
		}
	}
	return nil
}

// deleteGroupsRetrying is kadm's DeleteGroups, retrying the groups whose
// coordinator was not available (RetryGroups). A retry is safe: a
// coordinator error says the group was not deleted, except that Apache
// Kafka also answers COORDINATOR_NOT_AVAILABLE when the tombstones' append
// timed out and may still land; so a group that a retry finds gone
// (GROUP_ID_NOT_FOUND) after such an answer counts as deleted, which is
// the outcome asked for either way.
func deleteGroupsRetrying(ctx context.Context, adm *cluster.Admin, names []string) (kadm.DeleteGroupResponses, error) {
	var fatal error
	asked := map[string]bool{}
	out := lag.RetryGroups(ctx, names, func(groups []string) map[string]kadm.DeleteGroupResponse {
		resp, err := adm.DeleteGroups(ctx, groups...)
		if err != nil && !lag.IsShardErr(err) {
			fatal = err
			return nil
		}
		for g, r := range resp {
			if asked[g] && errors.Is(r.Err, kerr.GroupIDNotFound) {
				r.Err = nil
				resp[g] = r
			}
		}
		for _, g := range groups {
			asked[g] = true
		}
		return resp
	}, func(r *kadm.DeleteGroupResponse) *error { return &r.Err })
	if fatal != nil {
		return nil, fatal
	}
	return out, nil
}
