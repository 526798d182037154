package lag

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// notConsumerNote is the group note of a classic group of protocol type pt.
func notConsumerNote(pt string) string {
	return fmt.Sprintf("not a consumer group: a classic group of protocol type %s (a Kafka Connect worker group when connect); it keeps no consumer offsets", pt)
}

// TestLagNotesByGroupType: the notes and lags of each group type, side by
// side in one snapshot. A consumer, a streams and a share group keep
// offsets (no "not a consumer group" note); a Connect worker group does
// not. Only a share group reads its commit as a start offset (the
// broker's lag, and how many records past the start are already
// acknowledged) and only its partition without a start offset says where
// the share group starts, unless the user assumes a reset. The bugs: any
// one condition of the "not a consumer group" test or of the two share
// branches of partitionRow dropped or turned (a consumer group noted as a
// share group or a Connect group; a share group's broker lag ignored, or
// its no-start note lost), and the acknowledged count computed as a sum.
func TestLagNotesByGroupType(t *testing.T) {
	const uncommitted = "no committed offset: the consumer starts at the log start or end, as its auto.offset.reset says (--assume-reset for a number)"
	const earliest = "no committed offset: lag assumes auto.offset.reset=earliest (from the log start)"
	snap := &Snapshot{
		Groups: []GroupSnapshot{
			{
				GroupInfo: GroupInfo{Group: "consumer", Type: "consumer", ProtocolType: "consumer", State: "Stable", Exists: true,
					Members: []Member{{ID: "m", Assigned: map[string][]int32{"t": {0, 1}}}}},
				Commits: PartitionMap[Commit]{"t": {0: {Offset: 4}}},
			},
			{
				GroupInfo: GroupInfo{Group: "connect", Type: "classic", ProtocolType: "connect", State: "Stable", Exists: true},
			},
			{
				GroupInfo: GroupInfo{Group: "streams", Type: "streams", ProtocolType: "streams", State: "Stable", Exists: true},
				Commits:   PartitionMap[Commit]{"t": {0: {Offset: 4}}},
			},
			{
				// As ListGroups names it: protocol type share, not consumer.
				GroupInfo: GroupInfo{Group: "share", Type: ShareType, ProtocolType: "share", State: "Stable", Exists: true},
				Commits:   PartitionMap[Commit]{"t": {0: {Offset: 4, ShareLag: i64(2)}}},
				NoStart:   []TP{{"t", 1}},
			},
		},
		Offsets: TopicOffsets{Partitions: PartitionMap[PartitionOffsets]{"t": {0: {Start: 0, End: 10}, 1: {Start: 3, End: 10}}}},
	}
	type row struct {
		lag  *int64
		note string
	}
	for _, tc := range []struct {
		name   string
		assume AssumeReset
		group  string
		note   string
		rows   []row // partitions 0, 1, ... of t
	}{
		{"consumer", AssumeNothing, "consumer", "", []row{{i64(6), ""}, {nil, uncommitted}}},
		{"consumer, earliest", AssumeEarliest, "consumer", "", []row{{i64(6), ""}, {i64(7), earliest}}},
		{"connect", AssumeNothing, "connect", notConsumerNote("connect"), nil},
		{"streams", AssumeNothing, "streams", "", []row{{i64(6), ""}}},
		{"share", AssumeNothing, "share", NoteShareGroup, []row{
			{i64(2), "4 records after the start offset are already acknowledged or archived"},
			{nil, NoteShareNoStart},
		}},
		{"share, earliest", AssumeEarliest, "share", NoteShareGroup, []row{
			{i64(2), "4 records after the start offset are already acknowledged or archived"},
			{i64(7), earliest},
		}},
	} {
		rep := ComputeLagWith(snap, LagOptions{AssumeReset: tc.assume})
		var g *GroupLag
		for i := range rep.Groups {
			if rep.Groups[i].Group == tc.group {
				g = &rep.Groups[i]
			}
		}
		if g == nil {
			t.Fatalf("%s: no group %s in %+v", tc.name, tc.group, rep.Groups)
		}
		if g.Note != tc.note || g.Error != "" {
			t.Errorf("%s: group note %q error %q, want note %q", tc.name, g.Note, g.Error, tc.note)
		}
		if len(g.Partitions) != len(tc.rows) {
			t.Errorf("%s: %d rows %+v, want %d", tc.name, len(g.Partitions), g.Partitions, len(tc.rows))
			continue
		}
		for i, want := range tc.rows {
			p := g.Partitions[i]
			if p.Topic != "t" || p.Partition != int32(i) || p.Error != "" {
				t.Errorf("%s: row %d is %s/%d error %q, want t/%d", tc.name, i, p.Topic, p.Partition, p.Error, i)
			}
			if (p.Lag == nil) != (want.lag == nil) || p.Lag != nil && *p.Lag != *want.lag || p.Note != want.note {
				t.Errorf("%s: t/%d lag %v note %q, want lag %v note %q", tc.name, i, fmtLag(p.Lag), p.Note, fmtLag(want.lag), want.note)
			}
		}
	}
}

func fmtLag(l *int64) string {
	if l == nil {
		return "-"
	}
	return fmt.Sprint(*l)
}

// TestShareCommitsEdges: a share-partition's error is its own (the
// partitions after it are still read); a start offset of 0 is a start
// offset (only -1 means none); a broker lag of 0 is the broker's count
// (only -1, a v0 answer, means none). The bugs: stopping at the first
// failed partition, taking start offset 0 for none, dropping a broker lag
// of 0 (the row would show log end minus start instead).
func TestShareCommitsEdges(t *testing.T) {
	type part struct {
		p          int32
		start, lag int64
		code       int16
	}
	type want struct {
		offset int64
		lag    *int64
		err    error
	}
	for _, tc := range []struct {
		name    string
		parts   []part
		commits map[int32]want
		noStart []TP
	}{
		{"an error before good partitions",
			[]part{{0, 5, 1, kerr.TopicAuthorizationFailed.Code}, {1, 7, 3, 0}, {2, -1, -1, 0}},
			map[int32]want{0: {err: kerr.TopicAuthorizationFailed}, 1: {offset: 7, lag: i64(3)}},
			[]TP{{"t", 2}}},
		{"start offset 0",
			[]part{{0, 0, 4, 0}},
			map[int32]want{0: {offset: 0, lag: i64(4)}}, nil},
		{"broker lag 0",
			[]part{{0, 9, 0, 0}},
			map[int32]want{0: {offset: 9, lag: i64(0)}}, nil},
		{"no broker lag (v0)",
			[]part{{0, 9, -1, 0}},
			map[int32]want{0: {offset: 9}}, nil},
	} {
		rg := kmsg.NewDescribeShareGroupOffsetsResponseGroup()
		rg.GroupID = "g"
		rt := kmsg.NewDescribeShareGroupOffsetsResponseGroupTopic()
		rt.Topic = "t"
		for _, p := range tc.parts {
			rp := kmsg.NewDescribeShareGroupOffsetsResponseGroupTopicPartition()
			rp.Partition, rp.StartOffset, rp.Lag, rp.ErrorCode = p.p, p.start, p.lag, p.code
			rt.Partitions = append(rt.Partitions, rp)
		}
		rg.Topics = []kmsg.DescribeShareGroupOffsetsResponseGroupTopic{rt}
		gs := shareCommits(rg)
		if gs.CommitErr != nil || len(gs.Commits) != 1 || len(gs.Commits["t"]) != len(tc.commits) {
			t.Errorf("%s: commits %+v err %v, want %d partitions of t", tc.name, gs.Commits, gs.CommitErr, len(tc.commits))
			continue
		}
		for p, w := range tc.commits {
			c, ok := gs.Commits["t"][p]
			switch {
			case !ok:
				t.Errorf("%s: no commit of t/%d", tc.name, p)
			case w.err != nil:
				if !errors.Is(c.Err, w.err) {
					t.Errorf("%s: t/%d error %v, want %v", tc.name, p, c.Err, w.err)
				}
			case c.Err != nil || c.Offset != w.offset || (c.ShareLag == nil) != (w.lag == nil) || c.ShareLag != nil && *c.ShareLag != *w.lag:
				t.Errorf("%s: t/%d = offset %d share lag %s err %v, want offset %d share lag %s", tc.name, p, c.Offset, fmtLag(c.ShareLag), c.Err, w.offset, fmtLag(w.lag))
			}
		}
		if fmt.Sprint(gs.NoStart) != fmt.Sprint(tc.noStart) {
			t.Errorf("%s: NoStart %v, want %v", tc.name, gs.NoStart, tc.noStart)
		}
	}
}

// TestRatesUnreadRowBeforeGoodOnes: a row whose log end is unknown (an
// error, or -1) is passed over for the topic's produce rate, and the rows
// after it in the group still count. The bug: the first such row ended
// the group's rows, so the topic had no produce rate at all.
func TestRatesUnreadRowBeforeGoodOnes(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name  string
		first PartitionLag
	}{
		{"listing failed", PartitionLag{Topic: "t", Partition: 0, LogEnd: 50, Error: "listing offsets: NOT_LEADER_OR_FOLLOWER"}},
		{"unknown log end", PartitionLag{Topic: "t", Partition: 0, LogEnd: -1}},
	} {
		rep := func(end int64) LagReport {
			good := PartitionLag{Topic: "t", Partition: 1, LogEnd: end, Committed: i64(0)}
			return LagReport{Groups: []GroupLag{{Group: "g", Partitions: []PartitionLag{tc.first, good}}}}
		}
		r := NewRates(time.Minute)
		r.Observe(rep(100), t0)
		r.Observe(rep(150), t0.Add(10*time.Second))
		if got, ok := r.ProduceRate("t"); !ok || got != 5 {
			t.Errorf("%s: topic produce rate %v, %v; want 50 over 10 s = 5/s from t/1", tc.name, got, ok)
		}
	}
}
