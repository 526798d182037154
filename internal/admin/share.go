package admin

// Share groups (KIP-932). A share group keeps no committed offsets: each
// share-partition has a start offset (SPSO), the first offset not yet
// acknowledged by the group, kept by the share coordinator in
// __share_group_state. offsetctl gathers the SPSO where it gathers a
// consumer group's commits (GroupSnapshot.Commits), so lag, groups and the
// reset planner treat a share group like a consumer group, and only the
// I/O differs: ShareGroupDescribe (key 77), DescribeShareGroupOffsets (90),
// AlterShareGroupOffsets (91) and DeleteShareGroupOffsets (92).

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/offsetctl/offsetctl/internal/cluster"
	"github.com/offsetctl/offsetctl/internal/coordretry"
	"github.com/offsetctl/offsetctl/internal/exitcode"
	"github.com/offsetctl/offsetctl/internal/safetext"
	"github.com/offsetctl/offsetctl/internal/textlist"
)

// ShareType is the group type the broker lists share groups with.
const ShareType = "share"

// IsShare reports whether the group is a share group (KIP-932).
func (g GroupInfo) IsShare() bool { return g.Type == ShareType }

// ShareSkipped says why a selection (--all-groups, --regex) of a command
// that changes offsets leaves a share group out (see SkippedShareGroups),
// and how to do it anyway: action is what naming it does ("reset it").
func ShareSkipped(action string) string {
	return "--all-groups and --regex select consumer groups only; name it to " + action
}

// ShareSkipWarning is the warning for a share group a selection skipped.
func ShareSkipWarning(group, action string) string {
	return "skipping share group " + safetext.Arg(group) + " (KIP-932): " + ShareSkipped(action)
}

// describedShareGroup turns one group of a ShareGroupDescribe response
// into its GroupInfo.
func describedShareGroup(rg kmsg.ShareGroupDescribeResponseGroup, coordinator int32) GroupInfo {
	gi := GroupInfo{Group: rg.GroupID, Type: ShareType, State: rg.GroupState, Assignor: rg.Assignor, Coordinator: coordinator, Exists: true}
	if err := kerr.ErrorForCode(rg.ErrorCode); err != nil {
		gi.Err = err
		if rg.ErrorMessage != nil {
			gi.Err = fmt.Errorf("%w: %s", err, *rg.ErrorMessage)
		}
		return gi
	}
	for _, rm := range rg.Members {
		m := Member{ID: rm.MemberID, ClientID: rm.ClientID, Host: rm.ClientHost, Assigned: map[string][]int32{}}
		for _, tp := range rm.Assignment.TopicPartitions {
			// Apache and kfake both name the topic; one known by ID
			// only (deleted since) is left out rather than guessed.
			if tp.Topic != "" {
				m.Assigned[tp.Topic] = append(m.Assigned[tp.Topic], tp.Partitions...)
			}
		}
		gi.Members = append(gi.Members, m)
	}
	return gi
}

// describeShareGroups describes share groups with ShareGroupDescribe
// (sharded by kgo to each group's coordinator), retrying the groups whose
// coordinator is not available yet (see retryGroups).
func describeShareGroups(ctx context.Context, adm *cluster.Admin, groups []string) map[string]GroupInfo {
	return retryGroups(ctx, groups, func(groups []string) map[string]GroupInfo {
		req := kmsg.NewPtrShareGroupDescribeRequest()
		req.GroupIDs = groups
		out := make(map[string]GroupInfo, len(groups))
		for _, sh := range adm.Kgo.RequestSharded(ctx, req) {
			if sh.Err != nil {
				for _, g := range sh.Req.(*kmsg.ShareGroupDescribeRequest).GroupIDs {
					out[g] = GroupInfo{Group: g, Type: ShareType, Coordinator: -1, Exists: true, Err: sh.Err}
				}
				continue
			}
			for _, rg := range sh.Resp.(*kmsg.ShareGroupDescribeResponse).Groups {
				out[rg.GroupID] = describedShareGroup(rg, sh.Meta.NodeID)
			}
		}
		return out
	}, func(gi *GroupInfo) *error { return &gi.Err })
}

// shareCommits turns one group of a DescribeShareGroupOffsets answer into
// its snapshot's commits: the start offset of every share-partition that
// has one. A start offset of -1 means the share-partition is not
// initialized (no consumer has read it, or its state was deleted): no
// commit, as a consumer group's partition without one.
func shareCommits(rg kmsg.DescribeShareGroupOffsetsResponseGroup) GroupSnapshot {
	gs := GroupSnapshot{Commits: PartitionMap[Commit]{}}
	if err := kerr.ErrorForCode(rg.ErrorCode); err != nil && !errors.Is(err, kerr.GroupIDNotFound) {
		gs.CommitErr = err
		if rg.ErrorMessage != nil {
			gs.CommitErr = fmt.Errorf("%w: %s", err, *rg.ErrorMessage)
		}
		return gs
	}
	for _, rt := range rg.Topics {
		for _, rp := range rt.Partitions {
			if err := kerr.ErrorForCode(rp.ErrorCode); err != nil {
				gs.Commits.Set(rt.Topic, rp.Partition, Commit{Offset: -1, LeaderEpoch: -1, Err: err})
				continue
			}
			if rp.StartOffset < 0 {
				gs.NoStart = append(gs.NoStart, TP{rt.Topic, rp.Partition})
				continue
			}
			c := Commit{Offset: rp.StartOffset, LeaderEpoch: rp.LeaderEpoch}
			if rp.Lag >= 0 {
				// v1 (KIP-1226, Kafka 4.2+): the broker's own count.
				c.ShareLag = new(rp.Lag)
			}
			gs.Commits.Set(rt.Topic, rp.Partition, c)
		}
	}
	return gs
}

// FetchShareCommits fetches the share-partition start offsets of share
// groups with DescribeShareGroupOffsets (all topics of each group: a null
// topic list), batched per coordinator, retrying the groups whose
// coordinator is not available yet.
func FetchShareCommits(ctx context.Context, adm *cluster.Admin, groups []string) map[string]GroupSnapshot {
	out := make(map[string]GroupSnapshot, len(groups))
	if len(groups) == 0 {
		return out
	}
	return retryGroups(ctx, groups, func(groups []string) map[string]GroupSnapshot {
		req := kmsg.NewPtrDescribeShareGroupOffsetsRequest()
		for _, g := range groups {
			rg := kmsg.NewDescribeShareGroupOffsetsRequestGroup()
			rg.GroupID = g
			req.Groups = append(req.Groups, rg)
		}
		out := make(map[string]GroupSnapshot, len(groups))
		for _, sh := range adm.Kgo.RequestSharded(ctx, req) {
			if sh.Err != nil {
				for _, rg := range sh.Req.(*kmsg.DescribeShareGroupOffsetsRequest).Groups {
					out[rg.GroupID] = GroupSnapshot{Commits: PartitionMap[Commit]{}, CommitErr: sh.Err}
				}
				continue
			}
			for _, rg := range sh.Resp.(*kmsg.DescribeShareGroupOffsetsResponse).Groups {
				out[rg.GroupID] = shareCommits(rg)
			}
		}
		for _, g := range groups {
			if _, ok := out[g]; !ok {
				out[g] = GroupSnapshot{Commits: PartitionMap[Commit]{}, CommitErr: fmt.Errorf("no share-group offsets response for group %s", safetext.Arg(g))}
			}
		}
		return out
	}, func(gs *GroupSnapshot) *error { return &gs.CommitErr })
}

// shareLiveReason is liveReason for a share group: any member is live.
// The broker refuses AlterShareGroupOffsets and DeleteShareGroupOffsets
// with NON_EMPTY_GROUP then too, but checking first keeps the dry run
// honest and names the members.
func shareLiveReason(gi GroupInfo) string {
	if len(gi.Members) == 0 {
		return ""
	}
	return fmt.Sprintf("is a share group with %s (state %s): its start offsets can only be changed while it has none; stop its share consumers first", textlist.Count(len(gi.Members), "member"), gi.State)
}

// NoteShareGroup is the note of a share group's lag: what its columns mean.
const NoteShareGroup = "share group (KIP-932): committed is the share-partition start offset, lag the broker's count of records not yet acknowledged"

// NoteShareNoStart is the note of a share-partition without a start
// offset. Apache 4.4 answers -1 for an assigned partition until the share
// group's state of it is first written (records acknowledged), not at
// the assignment.
const NoteShareNoStart = "no start offset yet: the share group starts where its share.auto.offset.reset says (latest unless set)"

// shareLag is the lag of one share-partition row: the broker's own count
// when it gave one (records after the start offset that were already
// acknowledged or archived are not lag: KIP-1226), else the log end minus
// the start offset. note says when the two differ.
func shareLag(c Commit, computed *int64) (*int64, string) {
	if c.ShareLag == nil || computed == nil {
		return computed, ""
	}
	if *c.ShareLag < *computed {
		return new(*c.ShareLag), fmt.Sprintf("%d records after the start offset are already acknowledged or archived", *computed-*c.ShareLag)
	}
	return new(*c.ShareLag), ""
}

// NoteShareReset is the note of a share group's reset plan.
const NoteShareReset = "share group: start offsets set with AlterShareGroupOffsets, not in a transaction (share groups have no transactional offset commit) and not all-or-nothing: the share coordinator writes each share-partition's state on its own and answers per partition"

// shareTargetErr refuses the targets that have no meaning for a share
// group. KIP-932's AlterShareGroupOffsets sets a share-partition's start
// offset, and Apache's kafka-share-groups --reset-offsets offers
// earliest, latest, current, an offset, a time and a file: a shift of a
// start offset (records after it may already be acknowledged) or another
// group's commits are not among them.
func shareTargetErr(t Target, group string) error {
	switch t.Kind {
	case ToShift, ToGroup:
		return exitcode.Usagef("group %s is a share group: --to %s is not supported for share groups; use earliest, latest, current, an offset N, time:T, ago:D or file:PLAN.csv (what KIP-932 start offsets support)", safetext.Arg(group), safetext.Arg(t.Spec))
	}
	return nil
}

// planShareDeletes marks the rows a share group's plan cannot restore to
// "no start offset": DeleteShareGroupOffsets deletes a whole topic's
// state, so a topic with such rows must have no start offset outside the
// plan, or the delete would take those too.
func planShareDeletes(gp *GroupPlan, g *GroupSnapshot) {
	planned := map[TP]bool{}
	deletes := map[string]bool{}
	for _, pp := range gp.Partitions {
		planned[TP{pp.Topic, pp.Partition}] = true
		if pp.Action == ActDelete {
			deletes[pp.Topic] = true
		}
	}
	outside := map[string][]string{}
	g.Commits.Each(func(t string, p int32, _ Commit) {
		if deletes[t] && !planned[TP{t, p}] {
			outside[t] = append(outside[t], fmt.Sprint(p))
		}
	})
	for i := range gp.Partitions {
		pp := &gp.Partitions[i]
		if ps := outside[pp.Topic]; pp.Action == ActDelete && len(ps) > 0 && pp.Error == "" {
			pp.Error = fmt.Sprintf("a share group's start offsets are deleted a whole topic at a time (DeleteShareGroupOffsets), and partition(s) %s of %s outside this plan have one: restore the whole topic", shortList(ps), pp.Topic)
		}
	}
}

// planShareUndo makes the backup of a share group's plan restorable: a
// planned partition that has no start offset now is restored to "no start
// offset" with DeleteShareGroupOffsets, which deletes a whole topic's
// (planShareDeletes refuses the restore when partitions of that topic
// outside it have one). So the backup also holds the start offsets of
// those partitions of the topic outside the plan, and its restore deletes
// the topic's and sets them again. (QA: a reset of one such partition
// printed an undo line that was then refused.)
func planShareUndo(gp *GroupPlan, g *GroupSnapshot) {
	planned := map[TP]bool{}
	fromNone := map[string]bool{}
	for _, pp := range gp.Partitions {
		planned[TP{pp.Topic, pp.Partition}] = true
		if pp.Current == nil && pp.Action == ActCommit && pp.Error == "" {
			fromNone[pp.Topic] = true
		}
	}
	extra := map[string][]string{}
	for _, c := range g.Commits.Sorted() {
		if !fromNone[c.Topic] || planned[TP{c.Topic, c.Partition}] || c.Value.Err != nil {
			continue
		}
		gp.BackupExtra = append(gp.BackupExtra, PlanRow{Topic: c.Topic, Partition: c.Partition, Offset: c.Value.Offset})
		extra[c.Topic] = append(extra[c.Topic], fmt.Sprint(c.Partition))
	}
	for _, t := range slices.Sorted(maps.Keys(extra)) {
		gp.Note = joinNote(gp.Note, fmt.Sprintf("the backup also holds the start offsets of partition(s) %s of %s, outside this plan: a share group's start offsets are deleted a whole topic at a time, so its restore deletes %s's and sets those again", shortList(extra[t]), t, t))
	}
}

// planShareAcked marks the share-partitions the plan changes that have
// records after their start offset already acknowledged or archived: the
// broker's lag (KIP-1226) is below log end minus start offset. Both
// AlterShareGroupOffsets and DeleteShareGroupOffsets discard a
// share-partition's record states, and a backup keeps only the start
// offset, so neither the change nor its undo gives that state back: those
// records are delivered again. (QA: a reset to earliest and its undo left
// 40 acknowledged records a partition to be delivered again, unwarned.)
// It returns the warning line, or none.
func planShareAcked(gp *GroupPlan, g *GroupSnapshot) []string {
	var parts []string
	var total int64
	for i := range gp.Partitions {
		pp := &gp.Partitions[i]
		sent := pp.Action == ActDelete || pp.Action == ActCommit && pp.Target != nil
		c, ok := g.Commits[pp.Topic][pp.Partition]
		if !sent || pp.Error != "" || !ok || c.Err != nil || c.ShareLag == nil || pp.LogEnd < c.Offset {
			continue
		}
		if n := pp.LogEnd - c.Offset - *c.ShareLag; n > 0 {
			pp.AckedPastStart = new(n)
			pp.Note = joinNote(pp.Note, fmt.Sprintf("%d records after the start offset are acknowledged or archived: this change discards that, and no restore gives it back", n))
			total += n
			parts = append(parts, fmt.Sprintf("%s/%d", pp.Topic, pp.Partition))
		}
	}
	if len(parts) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("group %s: %d record(s) after the start offsets of %s (%s) are already acknowledged or archived; setting or deleting a start offset discards that state, and a backup keeps only the start offsets, so neither this change nor its undo restores it: those records will be delivered again",
		safetext.Arg(gp.Group), total, textlist.Count(len(parts), "share-partition"), shortList(parts))}
}

// ExecuteShareReset applies a share group's validated plan: one
// DeleteShareGroupOffsets for the topics with partitions restored to "no
// start offset", then one AlterShareGroupOffsets with every start offset
// to set (those of a topic just deleted included), then
// DescribeShareGroupOffsets to confirm every partition holds what was
// planned. The broker refuses both while the group has members
// (NON_EMPTY_GROUP). Failures land in the partitions' Error; the returned
// error is only for the whole group failing.
func ExecuteShareReset(ctx context.Context, adm *cluster.Admin, gp *GroupPlan) error {
	alters := kadm.Offsets{}
	var topics []string
	for _, pp := range gp.Partitions {
		switch {
		case pp.Action == ActCommit && pp.Target != nil:
			alters.Add(kadm.Offset{Topic: pp.Topic, Partition: pp.Partition, At: *pp.Target, LeaderEpoch: -1})
		case pp.Action == ActDelete && !slices.Contains(topics, pp.Topic):
			topics = append(topics, pp.Topic)
		}
	}
	setErr := func(match func(PartitionPlan) bool, msg string) {
		for i := range gp.Partitions {
			if pp := &gp.Partitions[i]; match(*pp) && pp.Error == "" {
				pp.Error = msg
			}
		}
	}
	if len(topics) > 0 {
		resp, err := deleteShareOffsets(ctx, adm, gp.Group, topics)
		gp.CommitRequests++
		if err != nil {
			gp.Error = fmt.Sprintf("deleting share-group start offsets of group %s: %s", safetext.Arg(gp.Group), ExplainError(err))
			return errors.New(gp.Error)
		}
		gp.Executed = true
		for t, terr := range resp {
			if terr != nil {
				setErr(func(pp PartitionPlan) bool { return pp.Topic == t && pp.Action == ActDelete }, deleteErrPrefix+ExplainError(terr))
			}
		}
	}
	if len(alters) > 0 {
		var resp kadm.AlterShareGroupOffsetsResponses
		// A coordinator error is the broker refusing the whole request
		// (kadm returns the top-level code as err): nothing was altered,
		// so it is safe to send again (coordretry, issue 28).
		err := coordretry.Do(ctx, coordretry.Group(gp.Group), func() (err error) {
			resp, err = adm.AlterShareGroupOffsets(ctx, gp.Group, alters)
			return err
		})
		gp.CommitRequests++
		if err != nil {
			gp.Error = fmt.Sprintf("altering share-group start offsets of group %s: %s", safetext.Arg(gp.Group), ExplainError(err))
			if gp.Executed {
				gp.Error += "; the group is PARTLY CHANGED: the start offsets of " + strings.Join(topics, ", ") + " were deleted before the failure"
			}
			return errors.New(gp.Error)
		}
		resp.EachError(func(t string, p int32, perr error) {
			setErr(func(pp PartitionPlan) bool { return pp.Topic == t && pp.Partition == p }, commitErrPrefix+ExplainError(perr))
		})
	}
	gp.Executed = true
	back := FetchShareCommits(ctx, adm, []string{gp.Group})[gp.Group]
	if back.CommitErr != nil {
		gp.Error = fmt.Sprintf("reading back share-group start offsets of group %s: %v", safetext.Arg(gp.Group), back.CommitErr)
		return errors.New(gp.Error)
	}
	fetched := kadm.OffsetResponses{}
	back.Commits.Each(func(t string, p int32, c Commit) {
		fetched.Add(kadm.OffsetResponse{Offset: kadm.Offset{Topic: t, Partition: p, At: c.Offset}, Err: c.Err})
	})
	verifyReadBack(gp, fetched)
	return nil
}

// shareDeleteScope checks a delete-offsets plan of a share group: whole
// topics only (DeleteShareGroupOffsets names topics, not partitions), and
// no members (the broker refuses with NON_EMPTY_GROUP; the plan says so
// first, in the dry run too, naming how many).
func shareDeleteScope(p *DeleteOffsetsPlan, g *GroupSnapshot, scope Scope) error {
	p.GroupType = ShareType
	for _, t := range scope.TopicNames() {
		if scope.Topics[t] != nil {
			return exitcode.Usagef("group %s is a share group, whose start offsets are deleted a whole topic at a time (DeleteShareGroupOffsets): name the topic %s without partitions", safetext.Arg(g.Group), t)
		}
	}
	if r := LiveGroupReason(g.GroupInfo); r != "" {
		p.Live = true
		p.Error = r
	}
	return nil
}

// executeShareDelete deletes a share group's start offsets of the plan's
// topics with one DeleteShareGroupOffsets, then reads them back.
func executeShareDelete(ctx context.Context, adm *cluster.Admin, p *DeleteOffsetsPlan) error {
	var topics []string
	for _, r := range p.Partitions {
		if !slices.Contains(topics, r.Topic) {
			topics = append(topics, r.Topic)
		}
	}
	if len(topics) == 0 {
		return nil
	}
	resp, err := deleteShareOffsets(ctx, adm, p.Group, topics)
	p.DeleteRequests = 1
	p.Executed = err == nil
	for i := range p.Partitions {
		r := &p.Partitions[i]
		// DeleteShareGroupOffsets answers per topic; a failed request
		// answers no row.
		terr, ok := resp[r.Topic]
		r.setOutcome(err, ok && err == nil, terr)
	}
	if !p.Executed {
		return nil
	}
	back := FetchShareCommits(ctx, adm, []string{p.Group})[p.Group]
	if back.CommitErr != nil {
		p.Error = fmt.Sprintf("reading back share-group start offsets of group %s: %v", safetext.Arg(p.Group), back.CommitErr)
		return nil
	}
	for i := range p.Partitions {
		r := &p.Partitions[i]
		if c, ok := back.Commits[r.Topic][r.Partition]; ok && r.Error == "" && c.Err == nil {
			r.Status, r.Error = "failed", fmt.Sprintf("verify: start offset still %d", c.Offset)
		}
	}
	return nil
}

// markShareBackups makes the groups a backup marks as share groups
// (ShareMarker) share groups in the snapshot when the cluster no longer
// knows them, so the restore sets start offsets with
// AlterShareGroupOffsets (which creates the group) rather than committing
// consumer offsets under the same name.
func markShareBackups(snap *Snapshot, pf *PlanFile) {
	if pf == nil {
		return
	}
	for i := range snap.Groups {
		g := &snap.Groups[i]
		if pf.Share[g.Group] && !g.Exists && len(g.Commits) == 0 {
			g.Type, g.State, g.Err, g.CommitErr = ShareType, "Dead", nil, nil
		}
	}
}

// shareFileMismatch refuses a file that backs up a share group (its
// ShareMarker) when the cluster now has a group of another type under that
// name: the start offsets would be committed as consumer offsets
// (OffsetCommit) of that group, which a share consumer of the name never
// reads. Kafka keeps one group per name, so the share group can only come
// back once that group is gone.
func shareFileMismatch(pf *PlanFile, g *GroupSnapshot) error {
	if pf == nil || !pf.Share[g.Group] || !g.Exists || g.IsShare() {
		return nil
	}
	typ := g.Type
	if typ == "" {
		typ = "consumer"
	}
	return exitcode.Usagef("group %s: the file backs up a share group of that name, but the cluster has a %s group %s now; a share group's start offsets are never committed as consumer offsets: delete that group first to restore the share group", safetext.Arg(g.Group), typ, safetext.Arg(g.Group))
}

// FetchGroupCommits is FetchCommits for groups of any type: it lists the
// groups first, so a share group's start offsets are read with
// DescribeShareGroupOffsets (an OffsetFetch of a share group answers no
// commits, and an undo would take the start offsets for "no commit").
func FetchGroupCommits(ctx context.Context, adm *cluster.Admin, groups []string) (map[string]GroupSnapshot, error) {
	listed, err := ListGroups(ctx, adm)
	if err != nil {
		return nil, err
	}
	return fetchAllCommits(ctx, adm, groups, listed), nil
}

// deleteShareOffsets is DeleteShareGroupOffsets under the coordinator
// retry policy: a coordinator error is the broker refusing the whole
// request (kadm returns the top-level code as err), so nothing was deleted
// and sending it again is safe (issue 28).
func deleteShareOffsets(ctx context.Context, adm *cluster.Admin, group string, topics []string) (resp kadm.DeleteShareGroupOffsetsResponses, err error) {
	err = coordretry.Do(ctx, coordretry.Group(group), func() (err error) {
		resp, err = adm.DeleteShareGroupOffsets(ctx, group, topics...)
		return err
	})
	return resp, err
}
