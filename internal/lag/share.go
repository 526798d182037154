package lag

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

	"github.com/offsetctl/offsetctl/internal/cluster"
	"github.com/offsetctl/offsetctl/internal/safetext"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
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
// coordinator is not available yet (see RetryGroups).
func describeShareGroups(ctx context.Context, adm *cluster.Admin, groups []string) map[string]GroupInfo {
	return RetryGroups(ctx, groups, func(groups []string) map[string]GroupInfo {
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
	return RetryGroups(ctx, groups, func(groups []string) map[string]GroupSnapshot {
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
