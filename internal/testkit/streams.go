package testkit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// StreamsMember makes group a Kafka Streams group (KIP-1071) reading
// topic, with one member: it sends the StreamsGroupHeartbeat a Kafka
// Streams 4.x application with group.protocol=streams sends (no Go client
// speaks that protocol), then heartbeats every second. leave sends the
// leaving heartbeat (epoch -1) and returns once the broker took it: the
// group stays, Empty. A member still there when the test ends leaves.
// Real brokers only: kfake has no streams groups.
func (c *Cluster) StreamsMember(group, topic string) (leave func()) {
	c.t.Helper()
	if !Real() {
		c.t.Fatal("StreamsMember needs a real broker: kfake has no streams groups")
	}
	adm := c.Admin()
	coord := adm.FindGroupCoordinators(Ctx(c.t), group)[group]
	if coord.Err != nil {
		c.t.Fatalf("finding the coordinator of %s: %v", group, coord.Err)
	}
	br := adm.Kgo.Broker(int(coord.NodeID))
	id := make([]byte, 8)
	_, _ = rand.Read(id)
	process := "testkit-" + hex.EncodeToString(id)
	req := kmsg.NewPtrStreamsGroupHeartbeatRequest()
	req.Group, req.MemberID, req.ProcessID = group, process, &process
	req.RebalanceTimeoutMillis = 30000
	st := kmsg.NewStreamsGroupHeartbeatRequestTopologySubtopology()
	st.SubtopologyID, st.SourceTopics = "0", []string{topic}
	req.Topology = &kmsg.StreamsGroupHeartbeatRequestTopology{Subtopologies: []kmsg.StreamsGroupHeartbeatRequestTopologySubtopology{st}}
	req.ActiveTasks, req.StandbyTasks, req.WarmupTasks = []kmsg.TaskIDs{}, []kmsg.TaskIDs{}, []kmsg.TaskIDs{}
	var mu sync.Mutex
	beat := func(ctx context.Context) error {
		mu.Lock()
		defer mu.Unlock()
		resp, err := req.RequestWith(ctx, br)
		if err == nil {
			err = kerr.ErrorForCode(resp.ErrorCode)
		}
		if err != nil || req.MemberEpoch < 0 {
			return err
		}
		req.MemberEpoch, req.Topology = resp.MemberEpoch, nil
		if resp.ActiveTasks != nil {
			req.ActiveTasks = resp.ActiveTasks
		}
		return nil
	}
	if err := beat(Ctx(c.t)); err != nil {
		c.t.Fatalf("joining streams group %s: %v", group, err)
	}
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			case <-time.After(time.Second):
				_ = beat(context.Background())
			}
		}
	}()
	var once sync.Once
	leave = func() {
		once.Do(func() {
			close(stop)
			<-done
			mu.Lock()
			req.MemberEpoch = -1
			mu.Unlock()
			if err := beat(Ctx(c.t)); err != nil {
				c.t.Errorf("leaving streams group %s: %v", group, err)
			}
		})
	}
	c.t.Cleanup(leave)
	return leave
}
