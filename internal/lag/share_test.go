package lag

import (
	"errors"
	"reflect"
	"slices"
	"strings"
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
	if !slices.Equal(gs.NoStart, []TP{{"t", 1}}) {
		t.Errorf("NoStart %v, want t/1 (listed with start offset -1)", gs.NoStart)
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

func TestJoinNote(t *testing.T) {
	for _, tc := range []struct{ a, b, want string }{
		{"", "", ""},
		{"x", "", "x"},
		{"", "y", "y"},
		{"x", "y", "x; y"},
	} {
		if got := JoinNote(tc.a, tc.b); got != tc.want {
			t.Errorf("JoinNote(%q, %q) = %q, want %q", tc.a, tc.b, got, tc.want)
		}
	}
}

// A selection that changes offsets names the share groups it matched but
// leaves out: every listed share group for --all-groups, those the pattern
// accepts for --regex, never one also named (it is gathered) nor any when
// the request gathers share groups itself (lag, groups); and PlanReset
// lists each as a skipped plan without rows, with a warning.
func TestSkippedShareGroups(t *testing.T) {
	listed := kadmListed(map[string][2]string{
		"c": {"classic", "consumer"}, "k": {"consumer", "consumer"}, "st": {"streams", ""},
		"s2": {"share", ""}, "s1": {"share", ""}, "x-share": {"share", ""},
	})
	match := func(g string) bool { return strings.HasPrefix(g, "s") }
	for _, tc := range []struct {
		name string
		req  GatherRequest
		want []string
	}{
		{"all", GatherRequest{AllGroups: true}, []string{"s1", "s2", "x-share"}},
		{"regex", GatherRequest{AllGroups: true, Match: match}, []string{"s1", "s2"}},
		{"named too", GatherRequest{AllGroups: true, Match: match, Groups: []string{"s2"}}, []string{"s1"}},
		{"gathers share groups", GatherRequest{AllGroups: true, ShareGroups: true}, nil},
		{"named only", GatherRequest{Groups: []string{"s1"}}, nil},
	} {
		if got := SkippedShareGroups(listed, tc.req); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: SkippedShareGroups = %v, want %v", tc.name, got, tc.want)
		}
	}
}
