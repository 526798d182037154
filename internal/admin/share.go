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

	"github.com/offsetctl/offsetctl/internal/cluster"
	"github.com/offsetctl/offsetctl/internal/coordretry"
	"github.com/offsetctl/offsetctl/internal/exitcode"
	"github.com/offsetctl/offsetctl/internal/lag"
	"github.com/offsetctl/offsetctl/internal/safetext"
	"github.com/offsetctl/offsetctl/internal/textlist"
)

// shareLiveReason is liveReason for a share group: any member is live.
// The broker refuses AlterShareGroupOffsets and DeleteShareGroupOffsets
// with NON_EMPTY_GROUP then too, but checking first keeps the dry run
// honest and names the members.
func shareLiveReason(gi lag.GroupInfo) string {
	if len(gi.Members) == 0 {
		return ""
	}
	return fmt.Sprintf("is a share group with %s (state %s): its start offsets can only be changed while it has none; stop its share consumers first", textlist.Count(len(gi.Members), "member"), gi.State)
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
func planShareDeletes(gp *GroupPlan, g *lag.GroupSnapshot) {
	planned := map[lag.TP]bool{}
	deletes := map[string]bool{}
	for _, pp := range gp.Partitions {
		planned[lag.TP{Topic: pp.Topic, Partition: pp.Partition}] = true
		if pp.Action == ActDelete {
			deletes[pp.Topic] = true
		}
	}
	outside := map[string][]string{}
	g.Commits.Each(func(t string, p int32, _ lag.Commit) {
		if deletes[t] && !planned[lag.TP{Topic: t, Partition: p}] {
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
func planShareUndo(gp *GroupPlan, g *lag.GroupSnapshot) {
	planned := map[lag.TP]bool{}
	fromNone := map[string]bool{}
	for _, pp := range gp.Partitions {
		planned[lag.TP{Topic: pp.Topic, Partition: pp.Partition}] = true
		if pp.Current == nil && pp.Action == ActCommit && pp.Error == "" {
			fromNone[pp.Topic] = true
		}
	}
	extra := map[string][]string{}
	for _, c := range g.Commits.Sorted() {
		if !fromNone[c.Topic] || planned[lag.TP{Topic: c.Topic, Partition: c.Partition}] || c.Value.Err != nil {
			continue
		}
		gp.BackupExtra = append(gp.BackupExtra, PlanRow{Topic: c.Topic, Partition: c.Partition, Offset: c.Value.Offset})
		extra[c.Topic] = append(extra[c.Topic], fmt.Sprint(c.Partition))
	}
	for _, t := range slices.Sorted(maps.Keys(extra)) {
		gp.Note = lag.JoinNote(gp.Note, fmt.Sprintf("the backup also holds the start offsets of partition(s) %s of %s, outside this plan: a share group's start offsets are deleted a whole topic at a time, so its restore deletes %s's and sets those again", shortList(extra[t]), t, t))
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
func planShareAcked(gp *GroupPlan, g *lag.GroupSnapshot) []string {
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
			pp.Note = lag.JoinNote(pp.Note, fmt.Sprintf("%d records after the start offset are acknowledged or archived: this change discards that, and no restore gives it back", n))
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
	// unnamed are the partitions the broker's answers did not name: not
	// acknowledged, judged by the read-back (settleOutcome).
	unnamed := map[lag.TP]bool{}
	setErr := func(match func(PartitionPlan) bool, msg string) (set []lag.TP) {
		for i := range gp.Partitions {
			if pp := &gp.Partitions[i]; match(*pp) && pp.Error == "" {
				pp.Error = msg
				set = append(set, lag.TP{Topic: pp.Topic, Partition: pp.Partition})
			}
		}
		return set
	}
	if len(topics) > 0 {
		resp, err := deleteShareOffsets(ctx, adm, gp.Group, topics)
		gp.CommitRequests++
		if err != nil {
			gp.Error = fmt.Sprintf("deleting share-group start offsets of group %s: %s", safetext.Arg(gp.Group), ExplainError(err))
			return errors.New(gp.Error)
		}
		gp.Executed = true
		missing, note := topicGaps(topics, resp)
		for _, t := range missing {
			for _, k := range setErr(func(pp PartitionPlan) bool { return pp.Topic == t && pp.Action == ActDelete }, deleteErrPrefix+notNamed("deleted")+note) {
				unnamed[k] = true
			}
		}
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
			// The start offsets to set are rows of the outcome: refused
			// (a broker error: nothing was altered), or, without an
			// answer, maybe set (Unacked, not known). They carried no
			// error, so the deletes before made the group "applied"
			// and these rows counted as written.
			alterRow := func(pp PartitionPlan) bool { return pp.Action == ActCommit && pp.Target != nil }
			if unanswered(err) {
				for i := range gp.Partitions {
					if pp := &gp.Partitions[i]; alterRow(*pp) && pp.Error == "" {
						pp.Error = commitErrPrefix + "the request got no answer (" + ExplainError(err) + "): not known to be set"
						pp.Unacked, pp.Applied = true, nil
					}
				}
				gp.Outcome = OutcomeUnknown
			} else {
				setErr(alterRow, commitErrPrefix+ExplainError(err))
				gp.Outcome = OutcomeFailed
				if gp.Executed {
					gp.Outcome = OutcomePartly
				}
			}
			if gp.Executed {
				gp.Error += "; the group is PARTLY CHANGED: the start offsets of " + strings.Join(topics, ", ") + " were deleted before the failure"
			}
			return errors.New(gp.Error)
		}
		gaps := partitionGaps(alters.TopicsSet(), resp)
		for _, k := range gaps.missing {
			for _, u := range setErr(func(pp PartitionPlan) bool { return pp.Topic == k.Topic && pp.Partition == k.Partition }, commitErrPrefix+notNamed("set")+gaps.note()) {
				unnamed[u] = true
			}
		}
		resp.EachError(func(t string, p int32, perr error) {
			setErr(func(pp PartitionPlan) bool { return pp.Topic == t && pp.Partition == p }, commitErrPrefix+ExplainError(perr))
		})
	}
	gp.Executed = true
	// The outcome, as a consumer group's: what the broker acknowledged
	// (partly when it refused some partitions), then what the read-back
	// showed, the partitions its answers did not name judged by it.
	gp.Outcome = partitionsOutcome(gp)
	back := lag.FetchShareCommits(ctx, adm, []string{gp.Group})[gp.Group]
	if back.CommitErr != nil {
		settleOutcome(gp, unnamed, nil, false)
		gp.Error = fmt.Sprintf("reading back share-group start offsets of group %s: %v", safetext.Arg(gp.Group), back.CommitErr)
		return errors.New(gp.Error)
	}
	fetched := shareFetched(back)
	verifyReadBack(gp, fetched)
	gp.Outcome = verifiedOutcome(gp)
	settleOutcome(gp, unnamed, fetched, true)
	return nil
}

// shareFetched is a share group's start offsets read back, as the
// offsets a consumer group's read-back returns.
func shareFetched(back lag.GroupSnapshot) kadm.OffsetResponses {
	fetched := kadm.OffsetResponses{}
	back.Commits.Each(func(t string, p int32, c lag.Commit) {
		fetched.Add(kadm.OffsetResponse{Offset: kadm.Offset{Topic: t, Partition: p, At: c.Offset}, Err: c.Err})
	})
	return fetched
}

// topicGaps compares a DeleteShareGroupOffsets answer (per topic) with
// the topics asked for: those it does not name, and the note naming what
// it named that was not asked for ("" when nothing).
func topicGaps(asked []string, resp kadm.DeleteShareGroupOffsetsResponses) (missing []string, note string) {
	stray := map[strayKey][]int32{}
	for t, err := range resp {
		if !slices.Contains(asked, t) {
			stray[strayOf(kadm.OffsetResponse{Offset: kadm.Offset{Topic: t}, Err: err})] = nil
		}
	}
	for _, t := range asked {
		if err, ok := resp[t]; !ok || !brokerAnswered(err) {
			missing = append(missing, t)
		}
	}
	return missing, strayNote("topics", stray)
}

// shareDeleteScope checks a delete-offsets plan of a share group: whole
// topics only (DeleteShareGroupOffsets names topics, not partitions), and
// no members (the broker refuses with NON_EMPTY_GROUP; the plan says so
// first, in the dry run too, naming how many).
func shareDeleteScope(p *DeleteOffsetsPlan, g *lag.GroupSnapshot, scope lag.Scope) error {
	p.GroupType = lag.ShareType
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
	var missing []string
	var note string
	if err == nil {
		missing, note = topicGaps(topics, resp)
	}
	unnamed := map[int]bool{}
	for i := range p.Partitions {
		r := &p.Partitions[i]
		// DeleteShareGroupOffsets answers per topic; a failed request
		// answers no row, and an answer that does not name the topic
		// acknowledges none of its rows.
		terr, ok := resp[r.Topic]
		answered := ok && err == nil && !slices.Contains(missing, r.Topic)
		r.setOutcome(err, answered, terr)
		if err == nil && !answered && r.Current != nil {
			r.Error += note
			unnamed[i] = true
		}
	}
	if !p.Executed {
		return nil
	}
	back := lag.FetchShareCommits(ctx, adm, []string{p.Group})[p.Group]
	if back.CommitErr != nil {
		p.Error = fmt.Sprintf("reading back share-group start offsets of group %s: %v", safetext.Arg(p.Group), back.CommitErr)
		p.settleNotNamed(unnamed, nil, false)
		return nil
	}
	p.settleNotNamed(unnamed, shareFetched(back), true)
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
func markShareBackups(snap *lag.Snapshot, pf *PlanFile) {
	if pf == nil {
		return
	}
	for i := range snap.Groups {
		g := &snap.Groups[i]
		if pf.Share[g.Group] && !g.Exists && len(g.Commits) == 0 {
			g.Type, g.State, g.Err, g.CommitErr = lag.ShareType, "Dead", nil, nil
		}
	}
}

// shareFileMismatch refuses a file that backs up a share group (its
// ShareMarker) when the cluster now has a group of another type under that
// name: the start offsets would be committed as consumer offsets
// (OffsetCommit) of that group, which a share consumer of the name never
// reads. Kafka keeps one group per name, so the share group can only come
// back once that group is gone.
func shareFileMismatch(pf *PlanFile, g *lag.GroupSnapshot) error {
	if pf == nil || !pf.Share[g.Group] || !g.Exists || g.IsShare() {
		return nil
	}
	typ := g.Type
	if typ == "" {
		typ = "consumer"
	}
	return exitcode.Usagef("group %s: the file backs up a share group of that name, but the cluster has a %s group %s now; a share group's start offsets are never committed as consumer offsets: delete that group first to restore the share group", safetext.Arg(g.Group), typ, safetext.Arg(g.Group))
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
