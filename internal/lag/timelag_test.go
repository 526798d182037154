package lag

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
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
	complete, missed, err := fillTimeLag(ctx, c.Cfg, &rep, ReadUncommitted, now)
	if err != nil {
		t.Fatal(err)
	}
	if !complete || missed != 0 {
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
	complete, missed, err := fillTimeLag(ctx, c.Cfg, &rep, ReadUncommitted, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if !complete || missed != 0 {
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

// TestFillTimeLagBudget: the search ends at its context's deadline even
// when fetches to one broker never answer, and counts exactly the rows it
// could not resolve; the others have their time lag. With the deadline
// already past it reads nothing and counts every lagging row (lag 0 and
// nothing-left rows are known without reading and never counted).
func TestFillTimeLagBudget(t *testing.T) {
	if testkit.Real() {
		t.Skip("holds fetch answers with kfake")
	}
	c := testkit.New(t)
	const parts = 60
	topic := c.Topic(parts, nil)
	per := map[int32]int{}
	for p := int32(0); p < parts; p++ {
		per[p] = 3
	}
	c.Produce(topic, per, time.Now().Add(-time.Minute))
	leaders := map[int32]int32{}
	md, err := c.Admin().Metadata(testkit.Ctx(t), topic)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range md.Topics[topic].Partitions {
		leaders[p.Partition] = p.Leader
	}
	slow := leaders[0]
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	c.Fake.ControlKey(int16(kmsg.Fetch), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.Fake.KeepControl()
		if c.Fake.CurrentNode() == slow {
			c.Fake.SleepControl(func() { <-release })
		}
		return nil, nil, false
	})
	report := func() LagReport {
		var rows []PartitionLag
		for p := int32(0); p < parts; p++ {
			committed := int64(p % 3) // p%3 == 0: lag 3; 1, 2: lag 2, 1
			rows = append(rows, PartitionLag{Topic: topic, Partition: p, LogStart: 0, LogEnd: 3, Committed: &committed, Lag: new(3 - committed)})
		}
		rows = append(rows, PartitionLag{Topic: topic, Partition: 0, LogStart: 0, LogEnd: 3, Committed: new(int64(3)), Lag: new(int64(0))})
		return LagReport{Groups: []GroupLag{{Group: "g", Partitions: rows}}}
	}
	onSlow := 0
	for p := int32(0); p < parts; p++ {
		if leaders[p] == slow {
			onSlow++
		}
	}
	if onSlow == 0 || onSlow == parts {
		t.Fatalf("%d of %d partitions led by broker %d: want some", onSlow, parts, slow)
	}

	rep := report()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	start := time.Now()
	complete, missed, err := fillTimeLag(ctx, c.Cfg, &rep, ReadUncommitted, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	// Generous: the held fetches are never answered, so any wait for
	// them would last until the test ends.
	if d := time.Since(start); d > 20*time.Second {
		t.Fatalf("the search took %v with a 2s deadline", d)
	}
	if complete || missed != onSlow {
		t.Fatalf("complete %v, missed %d: want false and the %d rows led by the held broker\n%s", complete, missed, onSlow, dumpTimeLag(rep))
	}
	for _, p := range rep.Groups[0].Partitions {
		if got := p.TimeLagMs != nil; got == (leaders[p.Partition] == slow && *p.Lag > 0) {
			t.Errorf("partition %d (leader %d, lag %d): time lag set %v", p.Partition, leaders[p.Partition], *p.Lag, got)
		}
	}

	rep = report()
	ended, stop := context.WithCancel(context.Background())
	stop()
	complete, missed, err = fillTimeLag(ended, c.Cfg, &rep, ReadUncommitted, time.Now())
	if err != nil || complete || missed != parts {
		t.Fatalf("an ended context: complete %v, missed %d, err %v; want false, %d, nil", complete, missed, err, parts)
	}
	if p := rep.Groups[0].Partitions[parts]; p.TimeLagMs == nil || *p.TimeLagMs != 0 {
		t.Errorf("a row without lag has time lag 0 without reading, got %v", p.TimeLagMs)
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

// TestFillTimeLagFutureStamp: one record stamped decades ahead (a
// producer's clock) set the time lag of the group waiting on it to 0,
// hiding the older records behind it, and --fail-if time-lag passed. Such
// a row's time lag is unknown, with a note saying why; a record a few
// seconds ahead (clock skew between hosts) still counts as just written.
func TestFillTimeLagFutureStamp(t *testing.T) {
	c := testkit.New(t)
	// Kafka 4 refuses records stamped over an hour ahead by default.
	maxAfter := "9223372036854775807"
	topic := c.Topic(1, map[string]*string{"message.timestamp.after.max.ms": &maxAfter})
	now := time.Now()
	for _, ts := range []time.Time{now.Add(-2 * time.Hour), now.AddDate(50, 0, 0), now.Add(-time.Hour), now.Add(20 * time.Second), now.Add(-time.Minute)} {
		c.ProduceRecords(&kgo.Record{Topic: topic, Partition: 0, Value: []byte("v"), Timestamp: ts})
	}
	row := func(committed int64) PartitionLag {
		pl := PartitionLag{Topic: topic, LogStart: 0, LogEnd: 5, Committed: &committed}
		pl.Lag, pl.Note = partitionLag(pl.Committed, 0, 5, ReadUncommitted, AssumeNothing)
		return pl
	}
	rep := LagReport{Groups: []GroupLag{
		{Group: "old", Partitions: []PartitionLag{row(0)}},
		{Group: "future", Partitions: []PartitionLag{row(1)}},
		{Group: "skew", Partitions: []PartitionLag{row(3)}},
	}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	if _, err := FillTimeLag(ctx, c.Cfg, &rep, ReadUncommitted, now); err != nil {
		t.Fatal(err)
	}
	old, future, skew := rep.Groups[0].Partitions[0], rep.Groups[1].Partitions[0], rep.Groups[2].Partitions[0]
	if old.TimeLagMs == nil || *old.TimeLagMs < (2*time.Hour).Milliseconds()-1000 {
		t.Errorf("the group on the 2-hour-old record:\n%s", dumpTimeLag(rep))
	}
	if future.TimeLagMs != nil || !strings.Contains(future.Note, "time lag unknown: the next record is stamped 18262 days after now") &&
		!strings.Contains(future.Note, "time lag unknown: the next record is stamped 18263 days after now") {
		t.Errorf("the group on the record stamped 50 years ahead:\n%s", dumpTimeLag(rep))
	}
	if skew.TimeLagMs == nil || *skew.TimeLagMs != 0 || skew.Note != "" {
		t.Errorf("the group on the record 20 s ahead:\n%s", dumpTimeLag(rep))
	}
	if n := FutureStamped(rep); n != 1 {
		t.Errorf("FutureStamped = %d, want 1", n)
	}
}
