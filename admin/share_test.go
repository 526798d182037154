package admin

import (
	"errors"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func TestShareCommits(t *testing.T) {
	rg := kmsg.NewDescribeShareGroupOffsetsResponseGroup()
	rg.GroupID = "g"
	rt := kmsg.NewDescribeShareGroupOffsetsResponseGroupTopic()
	rt.Topic = "t"
	for _, p := range []struct {
		part       int32
		start, lag int64
	}{{0, 7, 3}, {1, -1, -1}, {2, 4, -1}, {3, -1, -1}} {
		rp := kmsg.NewDescribeShareGroupOffsetsResponseGroupTopicPartition()
		rp.Partition, rp.StartOffset, rp.Lag = p.part, p.start, p.lag
		if p.part == 3 {
			rp.ErrorCode = kerr.TopicAuthorizationFailed.Code
		}
		rt.Partitions = append(rt.Partitions, rp)
	}
	rg.Topics = append(rg.Topics, rt)
	gs := shareCommits(rg)
	if gs.CommitErr != nil || len(gs.Commits["t"]) != 3 {
		t.Fatalf("commits %+v err %v: want partitions 0, 2 and 3's error, not 1 (no start offset)", gs.Commits, gs.CommitErr)
	}
	if c := gs.Commits["t"][0]; c.Offset != 7 || c.ShareLag == nil || *c.ShareLag != 3 {
		t.Errorf("partition 0: %+v, want start 7 and the broker's lag 3", c)
	}
	if c := gs.Commits["t"][2]; c.Offset != 4 || c.ShareLag != nil {
		t.Errorf("partition 2: %+v, want start 4 and no broker lag (v0 answer)", c)
	}
	if c := gs.Commits["t"][3]; !errors.Is(c.Err, kerr.TopicAuthorizationFailed) {
		t.Errorf("partition 3: %+v, want its error", c)
	}

	rg.ErrorCode = kerr.GroupIDNotFound.Code
	if gs := shareCommits(rg); gs.CommitErr != nil {
		t.Errorf("GROUP_ID_NOT_FOUND: %v, want no commits and no error", gs.CommitErr)
	}
	rg.ErrorCode = kerr.CoordinatorNotAvailable.Code
	if gs := shareCommits(rg); !errors.Is(gs.CommitErr, kerr.CoordinatorNotAvailable) {
		t.Errorf("group error: %v, want COORDINATOR_NOT_AVAILABLE", gs.CommitErr)
	}
}

func TestShareLag(t *testing.T) {
	for _, tc := range []struct {
		name      string
		broker    *int64
		computed  *int64
		want      *int64
		wantNoted bool
	}{
		{"broker agrees", new(int64(5)), new(int64(5)), new(int64(5)), false},
		{"acknowledged past the start", new(int64(2)), new(int64(5)), new(int64(2)), true},
		{"no broker lag (v0)", nil, new(int64(5)), new(int64(5)), false},
		{"unknown computed", new(int64(5)), nil, nil, false},
		{"broker counts more (produced since)", new(int64(7)), new(int64(5)), new(int64(7)), false},
	} {
		got, note := shareLag(Commit{ShareLag: tc.broker}, tc.computed)
		if (got == nil) != (tc.want == nil) || got != nil && *got != *tc.want || (note != "") != tc.wantNoted {
			t.Errorf("%s: lag %v note %q, want %v noted %v", tc.name, got, note, tc.want, tc.wantNoted)
		}
	}
}

func TestShareLiveReason(t *testing.T) {
	if r := liveReason(GroupInfo{Group: "s", Type: ShareType, State: "Empty"}); r != "" {
		t.Errorf("empty share group: %q, want resettable", r)
	}
	r := LiveGroupReason(GroupInfo{Group: "s", Type: ShareType, State: "Stable", Members: []Member{{ID: "a"}, {ID: "b"}}})
	if r != "group s is a share group with 2 members (state Stable): its start offsets can only be changed while it has none; stop its share consumers first" {
		t.Errorf("live share group: %q", r)
	}
}
