package admin

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/offsetctl/offsetctl/internal/testkit"
)

// TestFillTimeLagSharedOffset: several groups whose next offset on a
// partition is the same need that offset read once; the search must end
// because every offset was resolved, not because its deadline ran out
// (it waited 10s whenever two groups shared an offset). A partition whose
// records all expired (log start = log end) has lag but nothing to read:
// it must not hold the search either. No duration is asserted: the
// context's deadline is an hour, and fillTimeLag says whether it
// resolved everything.
func TestFillTimeLagSharedOffset(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(2, nil)
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	c.Produce(topic, map[int32]int{0: 6, 1: 5}, old)
	c.DeleteRecords(topic, 1, 5) // partition 1: log start 5 = log end 5

	row := func(p int32, committed, start, end int64) PartitionLag {
		pl := PartitionLag{Topic: topic, Partition: p, LogStart: start, LogEnd: end, Committed: &committed}
		pl.Lag, pl.Note = partitionLag(pl.Committed, start, end, ReadUncommitted, AssumeNothing)
		return pl
	}
	rep := LagReport{Groups: []GroupLag{
		{Group: "a", Partitions: []PartitionLag{row(0, 2, 0, 6)}},
		{Group: "b", Partitions: []PartitionLag{row(0, 2, 0, 6), row(1, 1, 5, 5)}},
		{Group: "c", Partitions: []PartitionLag{row(0, 2, 0, 6)}},
		{Group: "d", Partitions: []PartitionLag{row(0, 4, 0, 6), row(1, 5, 5, 5)}},
	}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	now := time.Now()
	complete, err := fillTimeLag(ctx, c.Cfg, &rep, ReadUncommitted, now)
	if err != nil {
		t.Fatal(err)
	}
	if !complete {
		t.Fatalf("the search ended before every offset was resolved (ran out its deadline):\n%s", dumpTimeLag(rep))
	}
	if ctx.Err() != nil {
		t.Fatalf("the hour-long context ended: %v", ctx.Err())
	}
	// Record i of partition 0 was written at old + i ms.
	ago := func(i int) int64 { return now.UnixMilli() - old.Add(time.Duration(i)*time.Millisecond).UnixMilli() }
	for _, want := range []struct {
		group string
		p     int32
		ms    int64
		note  string
	}{
		{"a", 0, ago(2), ""},
		{"b", 0, ago(2), ""},
		{"c", 0, ago(2), ""},
		{"d", 0, ago(4), ""},
		{"b", 1, 0, "nothing left to consume"},
		{"d", 1, 0, ""},
	} {
		var got *PartitionLag
		for gi := range rep.Groups {
			for pi := range rep.Groups[gi].Partitions {
				if p := &rep.Groups[gi].Partitions[pi]; rep.Groups[gi].Group == want.group && p.Partition == want.p {
					got = p
				}
			}
		}
		if got == nil || got.TimeLagMs == nil || *got.TimeLagMs != want.ms || !strings.Contains(got.Note, want.note) {
			t.Errorf("group %s partition %d: want time lag %d ms and a note containing %q; got\n%s", want.group, want.p, want.ms, want.note, dumpTimeLag(rep))
		}
		if got != nil && strings.Contains(got.Note, "unknown") {
			t.Errorf("group %s partition %d: %q", want.group, want.p, got.Note)
		}
	}
}

// TestFillTimeLagUnreadablePartition: a partition kgo reports a
// non-retriable error for (here: not authorized) will not be read; the
// search stops waiting for it and says why, instead of running out its
// deadline.
func TestFillTimeLagUnreadablePartition(t *testing.T) {
	if testkit.Real() {
		t.Skip("injects fetch errors with kfake")
	}
	c := testkit.New(t)
	topic := c.Topic(2, nil)
	c.Produce(topic, map[int32]int{0: 3, 1: 3}, time.Now().Add(-time.Minute))
	hf := c.Fake.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.Fetch}, Topic: topic, Partitions: []int32{1}, Err: kerr.TopicAuthorizationFailed, Count: -1})
	defer hf.Remove()
	committed := int64(1)
	rep := LagReport{Groups: []GroupLag{{Group: "g", Partitions: []PartitionLag{
		{Topic: topic, Partition: 0, LogStart: 0, LogEnd: 3, Committed: &committed, Lag: new(int64(2))},
		{Topic: topic, Partition: 1, LogStart: 0, LogEnd: 3, Committed: &committed, Lag: new(int64(2))},
	}}}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	complete, err := fillTimeLag(ctx, c.Cfg, &rep, ReadUncommitted, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if !complete {
		t.Fatalf("the search ran out its deadline:\n%s", dumpTimeLag(rep))
	}
	p0, p1 := rep.Groups[0].Partitions[0], rep.Groups[0].Partitions[1]
	if p0.TimeLagMs == nil || p0.Note != "" {
		t.Errorf("partition 0 was readable:\n%s", dumpTimeLag(rep))
	}
	if p1.TimeLagMs != nil || !strings.Contains(p1.Note, "time lag unknown: TOPIC_AUTHORIZATION_FAILED") {
		t.Errorf("partition 1 must say why its time lag is unknown:\n%s", dumpTimeLag(rep))
	}
}

func dumpTimeLag(rep LagReport) string {
	var b strings.Builder
	for _, g := range rep.Groups {
		for _, p := range g.Partitions {
			tl := "nil"
			if p.TimeLagMs != nil {
				tl = fmt.Sprint(*p.TimeLagMs)
			}
			fmt.Fprintf(&b, "  group %s partition %d lag %s time-lag %s note %q\n", g.Group, p.Partition, show(p.Lag), tl, p.Note)
		}
	}
	return b.String()
}
