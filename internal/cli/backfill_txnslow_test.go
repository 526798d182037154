package cli

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/offsetctl/offsetctl/internal/testkit"
)

// TestBackfillTransactionsWhileTargetSlow: with slow (250 ms) produce and
// fetch answers a transactional backfill of 24 MiB over three partitions
// commits in several transactions while it runs, so read_committed readers
// of the target see the copy grow: the target's last stable offsets rise
// before the run ends, not only at its end. kfake hands the whole source
// over in a few milliseconds; the copies wait on the producer's buffer
// bound (8 MiB), and the transaction interval ends transactions as they
// go on. Before the bound, only a 16 MiB size bound on each transaction
// cut this copy (it cost a fast backfill five transactions a second);
// without either, it was one transaction, visible only at its end.
func TestBackfillTransactionsWhileTargetSlow(t *testing.T) {
	c := testkit.New(t)
	if c.Fake == nil {
		t.Skip("slow broker answers are staged with kfake's control functions")
	}
	src, dst := c.Topic(3, nil), c.Topic(3, nil)
	val := make([]byte, 256<<10)
	for i := range val {
		val[i] = byte('a' + i%26)
	}
	var recs []*kgo.Record
	for p := int32(0); p < 3; p++ {
		for i := 0; i < 32; i++ {
			recs = append(recs, &kgo.Record{Topic: src, Partition: p, Key: []byte(fmt.Sprintf("k-%d-%d", p, i)), Value: val})
		}
	}
	c.ProduceRecords(recs...)
	slow := func(key int16) {
		c.Fake.ControlKey(key, func(kmsg.Request) (kmsg.Response, error, bool) {
			c.Fake.KeepControl()
			c.Fake.SleepControl(func() { time.Sleep(250 * time.Millisecond) })
			return nil, nil, false
		})
	}
	slow(kmsg.Produce.Int16())
	slow(kmsg.Fetch.Int16())

	done := make(chan struct{})
	// partial is the largest sum of the target's last stable offsets seen
	// below the whole copy (0 < sum < 99): a transaction committed while
	// the run went on. The whole copy's 99 is not counted: the poller can
	// see the final commit after the run's end and before done closes, and
	// keeping the largest sum seen let that hide every earlier partial one
	// (the test failed under load with "99").
	var partial atomic.Int64
	go func() {
		adm := c.Admin()
		for {
			select {
			case <-done:
				return
			case <-time.After(100 * time.Millisecond):
			}
			lso, err := adm.ListCommittedOffsets(testkit.Ctx(t), dst)
			if err != nil {
				continue
			}
			var sum int64
			lso.Each(func(o kadm.ListedOffset) { sum += o.Offset })
			if sum > partial.Load() && sum < 96+3 {
				partial.Store(sum)
			}
		}
	}()
	res, _, _ := replayJSON(t, c, 0, src, "--produce-to", dst, "--transactional-id", testkit.Name(t, "bf"), "--format", "none")
	close(done)
	if !res.Backfill.Complete || res.Records != 96 {
		t.Fatalf("backfill %+v of %d records", res.Backfill, res.Records)
	}
	if got := partial.Load(); got == 0 {
		t.Fatalf("no part of the copy was visible to read_committed readers before its end (want a last stable offsets sum 0 < sum < %d while it ran)", 96+3)
	}
	t.Logf("visible while running: %d of %d", partial.Load(), 96+3)
}
