package lag

import (
	"context"
	"maps"
	"slices"
	"time"

	"github.com/offsetctl/offsetctl/internal/cluster"
)

// StreamLagFromCommits is StreamLag for a caller that knows the groups'
// committed offsets already (the exporter's --commit-source offsets-topic,
// which tails __consumer_offsets): ListGroups (one request per broker)
// selects the groups and gives their type and state; commits hands over
// the committed offsets of the selected groups (a group it leaves out has
// none); then one listing of the log offsets of every topic committed on
// (one ListOffsets per broker and bound), and no DescribeGroups or
// OffsetFetch at all. The groups have no members (nothing describes
// them). The batches are StreamLag's, sharing the one listing.
func StreamLagFromCommits(ctx context.Context, adm *cluster.Admin, req GatherRequest, o LagOptions,
	commits func(groups []string) map[string]PartitionMap[Commit], each func(context.Context, LagBatch) error) error {
	listed, err := ListGroups(ctx, adm)
	if err != nil {
		return ctxErr(ctx, err)
	}
	groups := SelectGroups(listed, req)
	slices.Sort(groups)
	known := commits(groups)
	snaps := make([]GroupSnapshot, len(groups))
	topicSet := map[string]bool{}
	for i, g := range groups {
		gs := GroupSnapshot{GroupInfo: descriptions{}.info(g, listed), Commits: known[g]}
		if gs.Commits == nil {
			gs.Commits = PartitionMap[Commit]{}
		}
		if !gs.Exists && len(gs.Commits) > 0 { // as gatherListed: committed, so it exists
			gs.Exists, gs.Type, gs.State = true, "classic", "Empty"
		}
		for t := range gs.Commits {
			if req.Scope.HasTopic(t) {
				topicSet[t] = true
			}
		}
		snaps[i] = gs
	}
	list := ListOffsets
	if req.NoLeaderWait {
		list = listOffsetsOnce
	}
	offs, err := list(ctx, adm, slices.Sorted(maps.Keys(topicSet)), req.Isolation)
	if err != nil {
		return ctxErr(ctx, err)
	}
	at := time.Now()
	for i := 0; i == 0 || i < len(snaps); i += LagBatchGroups {
		batch := snaps[i:min(i+LagBatchGroups, len(snaps))]
		snap := &Snapshot{Groups: batch, Offsets: offsetsOf(offs, batch, req.Scope), Isolation: req.Isolation, At: at}
		if err := each(ctx, LagBatch{Snapshot: snap, Report: ComputeLagWith(snap, o)}); err != nil {
			return err
		}
	}
	return nil
}

// offsetsOf is the part of all that the groups' commits are on.
func offsetsOf(all TopicOffsets, groups []GroupSnapshot, scope Scope) TopicOffsets {
	out := TopicOffsets{Partitions: PartitionMap[PartitionOffsets]{}, TopicErr: map[string]error{}}
	for _, g := range groups {
		for t := range g.Commits {
			if !scope.HasTopic(t) {
				continue
			}
			if err, ok := all.TopicErr[t]; ok {
				out.TopicErr[t] = err
			}
			if ps, ok := all.Partitions[t]; ok {
				out.Partitions[t] = ps
			}
		}
	}
	return out
}
