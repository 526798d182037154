package lag

import (
	"reflect"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// A streams member is assigned tasks; each active task is that partition
// of every source topic of its subtopology (repartition topics included),
// standby tasks read nothing, and an error answer keeps no members.
func TestDescribedStreamsGroup(t *testing.T) {
	rg := kmsg.NewStreamsGroupDescribeResponseGroup()
	rg.Group, rg.State = "app", "Stable"
	assignor := "sticky"
	rg.AssignorName = &assignor
	rg.Topology = &kmsg.StreamsGroupDescribeResponseGroupTopology{Subtopologies: []kmsg.StreamsGroupDescribeResponseGroupTopologySubtopology{
		{SubtopologyID: "0", SourceTopics: []string{"in-a", "in-b"}},
		{SubtopologyID: "1", RepartitionSourceTopics: []kmsg.TopicInfo{{Topic: "app-repartition"}}},
	}}
	m := kmsg.NewStreamsGroupDescribeResponseGroupMember()
	m.MemberID, m.ClientID, m.ClientHost = "m1", "c1", "/10.0.0.1"
	m.Assignment.ActiveTasks = []kmsg.TaskIDs{{SubtopologyID: "0", Partitions: []int32{0, 2}}, {SubtopologyID: "1", Partitions: []int32{1}}}
	m.Assignment.StandbyTasks = []kmsg.TaskIDs{{SubtopologyID: "0", Partitions: []int32{1}}}
	idle := kmsg.NewStreamsGroupDescribeResponseGroupMember()
	idle.MemberID = "m2"
	rg.Members = []kmsg.StreamsGroupDescribeResponseGroupMember{m, idle}

	gi := describedStreamsGroup(rg)
	if gi.Type != "streams" || gi.State != "Stable" || gi.Assignor != "sticky" || !gi.Exists || gi.Err != nil || len(gi.Members) != 2 {
		t.Fatalf("describedStreamsGroup = %+v", gi)
	}
	want := map[string][]int32{"in-a": {0, 2}, "in-b": {0, 2}, "app-repartition": {1}}
	if got := gi.Members[0].Assigned; !reflect.DeepEqual(got, want) {
		t.Errorf("member m1 assigned %v, want %v", got, want)
	}
	if got := gi.Members[1].Assigned; len(got) != 0 || gi.Members[1].ID != "m2" {
		t.Errorf("idle member %+v, want no partitions", gi.Members[1])
	}

	bad := kmsg.NewStreamsGroupDescribeResponseGroup()
	bad.Group, bad.ErrorCode = "gone", 69 // GROUP_ID_NOT_FOUND
	bad.Members = rg.Members
	if gi := describedStreamsGroup(bad); gi.Err == nil || len(gi.Members) != 0 {
		t.Errorf("error answer = %+v, want an error and no members", gi)
	}
}

// Streams groups are listed for lag and groups (other) only: commands that
// change offsets never select them, nor share groups.
func TestListedNamesStreams(t *testing.T) {
	listed := kadmListed(map[string][2]string{
		"app": {"streams", "streams"}, "c": {"consumer", "consumer"}, "k": {"classic", "consumer"},
		"w": {"classic", "connect"}, "s": {"share", "share"},
	})
	if got, want := listedNames(listed, true, false), []string{"app", "c", "k", "w"}; !reflect.DeepEqual(got, want) {
		t.Errorf("listedNames(other) = %v, want %v", got, want)
	}
	if got, want := ConsumerGroupNames(listed), []string{"c", "k"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ConsumerGroupNames = %v, want %v", got, want)
	}
}

// kadmListed is a ListGroups answer: name → {group type, protocol type}.
func kadmListed(groups map[string][2]string) kadm.ListedGroups {
	out := kadm.ListedGroups{}
	for g, tp := range groups {
		out[g] = kadm.ListedGroup{Group: g, GroupType: tp[0], ProtocolType: tp[1], State: "Empty"}
	}
	return out
}

// A selection of consumer groups reports the groups it left out for their
// kind (streams; classic of another protocol), never share groups (they
// have their own list), and nothing when it shows every kind (lag) or
// names its groups; CountKinds says how many of each.
func TestSkippedKindGroups(t *testing.T) {
	listed := kadmListed(map[string][2]string{
		"app": {"streams", "streams"}, "app2": {"streams", "streams"}, "c": {"consumer", "consumer"},
		"k": {"classic", "consumer"}, "w": {"classic", "connect"}, "x": {"classic", "sr\u202e"}, "s": {"share", "share"},
	})
	got := SkippedKindGroups(listed, GatherRequest{AllGroups: true, Match: func(string) bool { panic("Match asked") }})
	want := []KindSkipped{{"app", "streams", "streams"}, {"app2", "streams", "streams"}, {"w", "classic", "connect"}, {"x", "classic", "sr\u202e"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("SkippedKindGroups = %v, want %v", got, want)
	}
	if c, w := CountKinds(got), `2 Kafka Streams groups, 1 Kafka Connect worker group and 1 classic group of protocol type "sr\u202e"`; c != w {
		t.Errorf("CountKinds = %q, want %q", c, w)
	}
	if c := CountKinds(got[2:3]); c != "1 Kafka Connect worker group" {
		t.Errorf("CountKinds(one worker) = %q", c)
	}
	for _, req := range []GatherRequest{{AllGroups: true, OtherProtocols: true}, {Groups: []string{"app"}}} {
		if got := SkippedKindGroups(listed, req); got != nil {
			t.Errorf("SkippedKindGroups(%+v) = %v, want none", req, got)
		}
	}
}
