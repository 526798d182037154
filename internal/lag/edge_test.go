package lag

import (
	"errors"
	"strings"
	"testing"
)

// Kafka's legal topic characters are [a-zA-Z0-9._-]: the ends of each
// range are legal and the characters right next to them are not.
func TestTopicNameCharacterBoundaries(t *testing.T) {
	for _, ok := range []string{"a", "z", "A", "Z", "0", "9", ".a", "_", "-", "az.AZ_09-", "zZ0", strings.Repeat("z", 249)} {
		if err := CheckTopicName(ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
		if s, err := ParseScope([]string{ok + ":0"}); err != nil || s.Topics[ok] == nil {
			t.Errorf("--topic %q:0 refused: %v", ok, err)
		}
	}
	// '`' '{' '@' '[' '/' ':' are the neighbours of a-z, A-Z and 0-9.
	for _, bad := range []string{"`", "{", "@", "[", "/", ":", "a`", "z{", "A@", "Z[", "0/", "9:", "é", " ", "a b", ",", "+", "~", "\x00", "\x7f"} {
		err := CheckTopicName(bad)
		if err == nil || !strings.Contains(err.Error(), "illegal character") {
			t.Errorf("%q accepted (%v)", bad, err)
		}
	}
	for _, bad := range []string{"", ".", "..", strings.Repeat("z", 250)} {
		if CheckTopicName(bad) == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// Rows of a topic the gather could not read have log start and end
// unknown (-1), an error and no lag; the readable rows beside them have
// their numbers and no error.
func TestComputeLagUnreadableTopicHasUnknownOffsets(t *testing.T) {
	c := func(o int64) Commit { return Commit{Offset: o, LeaderEpoch: -1} }
	snap := &Snapshot{
		Offsets: TopicOffsets{
			Partitions: map[string]map[int32]PartitionOffsets{
				"t": {0: {Start: 10, End: 100}, 1: {Err: errors.New("NOT_LEADER_OR_FOLLOWER")}},
			},
			TopicErr: map[string]error{"secret": errors.New("TOPIC_AUTHORIZATION_FAILED")},
		},
		Groups: []GroupSnapshot{{GroupInfo: GroupInfo{Group: "g", Type: "classic", State: "Empty", Exists: true},
			Commits: map[string]map[int32]Commit{"t": {0: c(40), 1: c(3)}, "secret": {0: c(7)}}}},
	}
	rep := ComputeLag(snap, Scope{})
	g := rep.Groups[0]
	if len(g.Partitions) != 3 || g.TotalLag != 60 || strings.Join(g.Topics, ",") != "secret,t" {
		t.Fatalf("group %+v", g)
	}
	want := []struct {
		topic       string
		part        int32
		start, end  int64
		lag         int64 // -1: null (unknown)
		errContains string
	}{
		{"secret", 0, -1, -1, -1, "TOPIC_AUTHORIZATION_FAILED"},
		{"t", 0, 10, 100, 60, ""},
		{"t", 1, -1, -1, -1, "listing offsets: NOT_LEADER_OR_FOLLOWER"},
	}
	for i, w := range want {
		p := g.Partitions[i]
		lag := int64(-1)
		if p.Lag != nil {
			lag = *p.Lag
		}
		if p.Topic != w.topic || p.Partition != w.part || p.LogStart != w.start || p.LogEnd != w.end || lag != w.lag ||
			(w.errContains == "") != (p.Error == "") || !strings.Contains(p.Error, w.errContains) || p.Committed == nil {
			t.Errorf("row %d: %+v, want %+v", i, p, w)
		}
		if p.Error != "" && p.Note != "" {
			t.Errorf("row %d: an error row has a lag note %q", i, p.Note)
		}
	}
	if errs := rep.Errors(); len(errs) != 2 || errs[0] != "group g topic secret partition 0: TOPIC_AUTHORIZATION_FAILED" {
		t.Errorf("errors %q", errs)
	}
}
