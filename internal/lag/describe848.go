package lag

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/offsetctl/offsetctl/internal/cluster"
)

// answer848 is one group's ConsumerGroupDescribe answer, with the
// assignments that name their topic by ID only.
type answer848 struct {
	gi      GroupInfo
	unnamed []unnamedAssignment
}

// unnamedAssignment is a member's assignment of a topic known by ID only.
type unnamedAssignment struct {
	group  string
	member int
	id     [16]byte
	parts  []int32
}

// describedGroup848 turns one group of a ConsumerGroupDescribe response
// into its GroupInfo.
func describedGroup848(rg kmsg.ConsumerGroupDescribeResponseGroup) answer848 {
	gi := GroupInfo{Group: rg.Group, Type: "consumer", State: rg.State, Exists: true}
	if err := kerr.ErrorForCode(rg.ErrorCode); err != nil {
		gi.Err = err
		if rg.ErrorMessage != nil {
			gi.Err = fmt.Errorf("%w: %s", err, *rg.ErrorMessage)
		}
	}
	var unnamed []unnamedAssignment
	for _, rm := range rg.Members {
		m := Member{ID: rm.MemberID, ClientID: rm.ClientID, Host: rm.ClientHost, Assigned: map[string][]int32{}}
		m.InstanceID = rm.InstanceID
		for _, tp := range rm.Assignment.TopicPartitions {
			if tp.Topic == "" {
				unnamed = append(unnamed, unnamedAssignment{rg.Group, len(gi.Members), tp.TopicID, tp.Partitions})
				continue
			}
			m.Assigned[tp.Topic] = append(m.Assigned[tp.Topic], tp.Partitions...)
		}
		gi.Members = append(gi.Members, m)
	}
	return answer848{gi: gi, unnamed: unnamed}
}

// describeConsumerGroups describes KIP-848 groups with ConsumerGroupDescribe
// (sharded to each group's coordinator), retrying the groups whose
// coordinator is not available yet (see retryCoordinator). Assignments may
// name topics only by ID (kfake does; the protocol allows it), so unnamed
// IDs are resolved with one metadata request.
func describeConsumerGroups(ctx context.Context, adm *cluster.Admin, groups []string) (map[string]GroupInfo, error) {
	answers := RetryGroups(ctx, groups, func(groups []string) map[string]answer848 {
		req := kmsg.NewPtrConsumerGroupDescribeRequest()
		req.Groups = groups
		out := make(map[string]answer848, len(groups))
		for _, sh := range adm.Kgo.RequestSharded(ctx, req) {
			if sh.Err != nil {
				for _, g := range sh.Req.(*kmsg.ConsumerGroupDescribeRequest).Groups {
					out[g] = answer848{gi: GroupInfo{Group: g, Type: "consumer", Err: sh.Err}}
				}
				continue
			}
			for _, rg := range sh.Resp.(*kmsg.ConsumerGroupDescribeResponse).Groups {
				a := describedGroup848(rg)
				a.gi.Assignor, a.gi.Coordinator = rg.AssignorName, sh.Meta.NodeID
				out[rg.Group] = a
			}
		}
		return out
	}, func(a *answer848) *error { return &a.gi.Err })
	out := make(map[string]GroupInfo, len(answers))
	var unnamed []unnamedAssignment
	for g, a := range answers {
		out[g] = a.gi
		unnamed = append(unnamed, a.unnamed...)
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
