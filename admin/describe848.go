package admin

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/offsetctl/offsetctl/cluster"
)

// describeConsumerGroups describes KIP-848 groups with ConsumerGroupDescribe
// (sharded to each group's coordinator), retrying the groups whose
// coordinator is not available yet (see retryCoordinator). Assignments may
// name topics only by ID (kfake does; the protocol allows it), so unnamed
// IDs are resolved with one metadata request.
func describeConsumerGroups(ctx context.Context, adm *cluster.Admin, groups []string) (map[string]GroupInfo, error) {
	out := make(map[string]GroupInfo, len(groups))
	type pending struct {
		group  string
		member int
		id     [16]byte
		parts  []int32
	}
	// unnamedOf[group]: the assignments of the group's latest answer that
	// name their topic by ID only.
	unnamedOf := map[string][]pending{}
	// set records a group's answer, unless it is a retry cut by the
	// deadline after a coordinator error (that error says more); it
	// reports whether the group should be retried.
	set := func(gi GroupInfo, unnamed []pending) bool {
		if prev, ok := out[gi.Group]; ok && keepCoordinatorErr(prev.Err, gi.Err) {
			return false
		}
		out[gi.Group] = gi
		unnamedOf[gi.Group] = unnamed
		return IsCoordinatorErr(gi.Err)
	}
	gaveUp := retryCoordinator(ctx, groups, func(groups []string) []string {
		req := kmsg.NewPtrConsumerGroupDescribeRequest()
		req.Groups = groups
		shards := adm.Kgo.RequestSharded(ctx, req)
		var retry []string
		for _, sh := range shards {
			if sh.Err != nil {
				for _, g := range sh.Req.(*kmsg.ConsumerGroupDescribeRequest).Groups {
					if set(GroupInfo{Group: g, Type: "consumer", Err: sh.Err}, nil) {
						retry = append(retry, g)
					}
				}
				continue
			}
			resp := sh.Resp.(*kmsg.ConsumerGroupDescribeResponse)
			for _, rg := range resp.Groups {
				gi := GroupInfo{Group: rg.Group, Type: "consumer", State: rg.State, Exists: true}
				if err := kerr.ErrorForCode(rg.ErrorCode); err != nil {
					gi.Err = err
					if rg.ErrorMessage != nil {
						gi.Err = fmt.Errorf("%w: %s", err, *rg.ErrorMessage)
					}
				}
				var unnamed []pending
				for _, rm := range rg.Members {
					m := Member{ID: rm.MemberID, ClientID: rm.ClientID, Host: rm.ClientHost, Assigned: map[string][]int32{}}
					if rm.InstanceID != nil {
						m.InstanceID = *rm.InstanceID
					}
					for _, tp := range rm.Assignment.TopicPartitions {
						if tp.Topic == "" {
							unnamed = append(unnamed, pending{rg.Group, len(gi.Members), tp.TopicID, tp.Partitions})
							continue
						}
						m.Assigned[tp.Topic] = append(m.Assigned[tp.Topic], tp.Partitions...)
					}
					gi.Members = append(gi.Members, m)
				}
				if set(gi, unnamed) {
					retry = append(retry, rg.Group)
				}
			}
		}
		return retry
	})
	for g, gi := range out {
		gi.Err = gaveUp(gi.Err)
		out[g] = gi
	}
	var unnamed []pending
	for _, us := range unnamedOf {
		unnamed = append(unnamed, us...)
	}
	if len(unnamed) > 0 {
		md, err := adm.Metadata(ctx)
		if err != nil {
			return nil, fmt.Errorf("resolving topic IDs of consumer-group assignments: %w", err)
		}
		names := map[[16]byte]string{}
		for name, td := range md.Topics {
			names[td.ID] = name
		}
		for _, u := range unnamed {
			name, ok := names[u.id]
			if !ok {
				continue // topic deleted since assignment
			}
			gi := out[u.group]
			gi.Members[u.member].Assigned[name] = append(gi.Members[u.member].Assigned[name], u.parts...)
		}
	}
	return out, nil
}
