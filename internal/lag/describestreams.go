package lag

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/offsetctl/offsetctl/internal/cluster"
)

// describeStreamsGroups describes Kafka Streams groups (KIP-1071) with
// StreamsGroupDescribe (API 89), retrying the groups whose coordinator is
// not available yet (see RetryGroups). franz-go v1.22 does not route this
// request to a group coordinator (kgo answers "client is too old"), so each
// group goes to the coordinator FindCoordinator names.
func describeStreamsGroups(ctx context.Context, adm *cluster.Admin, groups []string) map[string]GroupInfo {
	return RetryGroups(ctx, groups, func(groups []string) map[string]GroupInfo {
		out := make(map[string]GroupInfo, len(groups))
		byCoord := map[int32][]string{}
		for g, c := range adm.FindGroupCoordinators(ctx, groups...) {
			if c.Err != nil {
				out[g] = GroupInfo{Group: g, Type: "streams", Err: c.Err}
				continue
			}
			byCoord[c.NodeID] = append(byCoord[c.NodeID], g)
		}
		for id, gs := range byCoord {
			req := kmsg.NewPtrStreamsGroupDescribeRequest()
			req.Groups = gs
			resp, err := req.RequestWith(ctx, adm.Kgo.Broker(int(id)))
			if err != nil {
				for _, g := range gs {
					out[g] = GroupInfo{Group: g, Type: "streams", Err: err}
				}
				continue
			}
			for _, rg := range resp.Groups {
				gi := describedStreamsGroup(rg)
				gi.Coordinator = id
				out[rg.Group] = gi
			}
		}
		return out
	}, func(gi *GroupInfo) *error { return &gi.Err })
}

// describedStreamsGroup turns one group of a StreamsGroupDescribe response
// into its GroupInfo. A member is assigned tasks (subtopology, partitions),
// not topic partitions: each active task stands for that partition of
// every source topic of its subtopology, which is what the member reads
// and commits.
func describedStreamsGroup(rg kmsg.StreamsGroupDescribeResponseGroup) GroupInfo {
	gi := GroupInfo{Group: rg.Group, Type: "streams", ProtocolType: "streams", State: rg.State, Exists: true, Coordinator: -1}
	if rg.AssignorName != nil {
		gi.Assignor = *rg.AssignorName
	}
	if err := kerr.ErrorForCode(rg.ErrorCode); err != nil {
		gi.Err = err
		if rg.ErrorMessage != nil {
			gi.Err = fmt.Errorf("%w: %s", err, *rg.ErrorMessage)
		}
		return gi
	}
	sources := map[string][]string{}
	if rg.Topology != nil {
		for _, st := range rg.Topology.Subtopologies {
			sources[st.SubtopologyID] = append(sources[st.SubtopologyID], st.SourceTopics...)
			for _, rt := range st.RepartitionSourceTopics {
				sources[st.SubtopologyID] = append(sources[st.SubtopologyID], rt.Topic)
			}
		}
	}
	for _, rm := range rg.Members {
		m := Member{ID: rm.MemberID, ClientID: rm.ClientID, Host: rm.ClientHost, Assigned: map[string][]int32{}}
		m.InstanceID = rm.InstanceID
		for _, task := range rm.Assignment.ActiveTasks {
			for _, t := range sources[task.SubtopologyID] {
				m.Assigned[t] = append(m.Assigned[t], task.Partitions...)
			}
		}
		gi.Members = append(gi.Members, m)
	}
	return gi
}
