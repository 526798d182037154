package replay

// The proof's I/O: reading the committed offsets and live members of the
// groups before and after a replay. Kept apart from verify.go, whose
// comparison is pure, so that make mutate can mutate the comparison and
// leave this file to the integration tests that run it against a broker
// (internal/cli TestReplayNoGroupRequestsAndProof, TestReplayProof*,
// TestReplayVerifyGroupsMustHaveCommits: on kfake, and on Apache Kafka 4.4
// under make test-kafka).

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/offsetctl/offsetctl/internal/cluster"
	"github.com/offsetctl/offsetctl/internal/coordretry"
	"github.com/offsetctl/offsetctl/internal/lag"
	"github.com/offsetctl/offsetctl/internal/safetext"
)

// takeSnapshot reads, with the admin client (never the replay consumer),
// the committed offsets on topic of every consumer group (or of the named
// groups) and the live-member count of those that have some. It costs a
// constant number of batched requests whatever the group count: one
// ListGroups, one OffsetFetch per coordinator restricted to the topic's
// partitions, and describes of the groups with commits only.
func takeSnapshot(ctx context.Context, adm *cluster.Admin, topic string, partitions []int32, named []string) (proofSnapshot, error) {
	listed, err := lag.ListGroups(ctx, adm)
	if err != nil {
		return nil, fmt.Errorf("proof: %w", err)
	}
	groups := append([]string(nil), named...)
	sort.Strings(groups)
	if len(groups) == 0 {
		groups = lag.ConsumerGroupNames(listed)
	}
	commits, err := fetchTopicCommits(ctx, adm, groups, topic, partitions)
	if err != nil {
		return nil, err
	}
	relevant := make([]string, 0, len(commits))
	for _, g := range groups {
		if len(commits[g]) > 0 || len(named) > 0 {
			relevant = append(relevant, g)
		}
	}
	infos, err := lag.DescribeGroups(ctx, adm, relevant, listed)
	if err != nil {
		return nil, fmt.Errorf("proof: %w", err)
	}
	out := proofSnapshot{}
	for _, g := range relevant {
		info := infos[g]
		if info.Err != nil && !errors.Is(info.Err, kerr.GroupIDNotFound) {
			return nil, fmt.Errorf("proof: describing group %s: %w", safetext.Arg(g), info.Err)
		}
		gs := groupState{members: len(info.Members), commits: commits[g]}
		if gs.commits == nil {
			gs.commits = map[int32]int64{}
		}
		out[g] = gs
	}
	return out, nil
}

// fetchTopicCommits fetches the committed offsets of groups on topic's
// partitions, in one OffsetFetch per coordinator, retrying the whole read
// while a group's coordinator is not available (coordretry: a read, safe
// to repeat). The map is keyed by group, then partition.
func fetchTopicCommits(ctx context.Context, adm *cluster.Admin, groups []string, topic string, partitions []int32) (lag.PartitionMap[int64], error) {
	r := coordretry.New(ctx)
	for {
		out, group, err := fetchTopicCommitsOnce(ctx, adm, groups, topic, partitions)
		if !coordretry.Retriable(err) {
			return out, err
		}
		coordretry.Note(ctx, coordretry.Group(group), err)
		if !r.Next() {
			return nil, r.GaveUp(coordretry.Group(group), err)
		}
	}
}

// fetchTopicCommitsOnce is one round of fetchTopicCommits; on an error it
// also names the group it is about (the first of a failed request's).
func fetchTopicCommitsOnce(ctx context.Context, adm *cluster.Admin, groups []string, topic string, partitions []int32) (_ lag.PartitionMap[int64], group string, _ error) {
	out := make(lag.PartitionMap[int64], len(groups))
	if len(groups) == 0 {
		return out, "", nil
	}
	req := kmsg.NewPtrOffsetFetchRequest()
	for _, g := range groups {
		rg := kmsg.NewOffsetFetchRequestGroup()
		rg.Group = g
		rt := kmsg.NewOffsetFetchRequestGroupTopic()
		rt.Topic = topic
		rt.Partitions = partitions
		rg.Topics = []kmsg.OffsetFetchRequestGroupTopic{rt}
		req.Groups = append(req.Groups, rg)
	}
	for _, shard := range adm.Kgo.RequestSharded(ctx, req) {
		if shard.Err != nil {
			return nil, firstGroup(shard.Req), fmt.Errorf("proof: fetching committed offsets: %w", shard.Err)
		}
		resp := shard.Resp.(*kmsg.OffsetFetchResponse)
		if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
			if errors.Is(err, kerr.GroupIDNotFound) {
				continue // a single group that does not exist: no commits (kfake)
			}
			return nil, firstGroup(shard.Req), fmt.Errorf("proof: fetching committed offsets: %w", err)
		}
		for _, g := range resp.Groups {
			if err := kerr.ErrorForCode(g.ErrorCode); err != nil {
				if errors.Is(err, kerr.GroupIDNotFound) {
					continue // deleted since it was listed: no commits
				}
				return nil, g.Group, fmt.Errorf("proof: fetching committed offsets of group %s: %w", safetext.Arg(g.Group), err)
			}
			for _, t := range g.Topics {
				if t.Topic != topic {
					continue
				}
				for _, p := range t.Partitions {
					if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
						return nil, g.Group, fmt.Errorf("proof: committed offset of group %s topic %s partition %d: %w", safetext.Arg(g.Group), topic, p.Partition, err)
					}
					if p.Offset < 0 {
						continue // no commit
					}
					out.Set(g.Group, p.Partition, p.Offset)
				}
			}
		}
	}
	return out, "", nil
}

// firstGroup names the first group of an OffsetFetch, for an error about
// the whole request.
func firstGroup(req kmsg.Request) string {
	if r, ok := req.(*kmsg.OffsetFetchRequest); ok && len(r.Groups) > 0 {
		return r.Groups[0].Group
	}
	return ""
}
