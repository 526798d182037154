package replay

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/offsetctl/offsetctl/internal/cluster"
	"github.com/offsetctl/offsetctl/internal/lag"
)

// backfillToDst plans a replay of topic "t" of cfg's cluster and returns
// it with a backfiller (closed at the test's end) copying to a new topic
// "dst" of partitions partitions with po.
func backfillToDst(ctx context.Context, t *testing.T, cfg cluster.Config, partitions int32, po ProduceOptions) (Plan, *backfiller) {
	t.Helper()
	adm, err := cfg.NewAdmin()
	if err != nil {
		t.Fatal(err)
	}
	defer adm.Close()
	if resp, err := adm.CreateTopic(ctx, partitions, 1, nil, "dst"); err != nil || resp.Err != nil {
		t.Fatalf("creating dst: %v %v", err, resp.Err)
	}
	g, err := Gather(ctx, adm, "t", lag.ReadCommitted, nil, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	plan, err := MakePlan(g, PlanRequest{Now: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	b, err := newBackfiller(ctx, cfg, adm, "t", plan, po) // adm: a transactional id reads the topics' ids (jobOf)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.close)
	return plan, b
}

// slowProduce delays every Produce answer of fake by d.
func slowProduce(fake *kfake.Cluster, d time.Duration) {
	fake.ControlKey(kmsg.Produce.Int16(), func(kmsg.Request) (kmsg.Response, error, bool) {
		fake.KeepControl()
		fake.SleepControl(func() { time.Sleep(d) })
		return nil, nil, false
	})
}

// TestRefusedCopyIsNotReplayed pins the invariant behind every resume
// point: once a copy has failed, the copier refuses the next record, and
// that record must count as neither replayed nor copied. The partition's
// position stays on it, so a partition whose earlier copies were all
// acknowledged resumes at that record, not after it. Here the failure
// comes before any record, so every partition resumes where it started.
func TestRefusedCopyIsNotReplayed(t *testing.T) {
	_, cfg := fakeTopic(t, 3, 20)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	po := ProduceOptions{Topic: "dst"}
	plan, b := backfillToDst(ctx, t, cfg, 3, po)
	// A copy failed (as when the first produce of a partition is
	// answered with an error) before the consumer handed over a record.
	b.fail(errors.New("injected produce failure"), "topic t partition 1 offset 0")

	res, cerr := consume(ctx, cfg, plan, Options{Topic: "t", Format: None, Produce: &po}, b)
	if cerr == nil || !strings.Contains(cerr.Error(), "injected produce failure") {
		t.Fatalf("consume error = %v, want the copy error", cerr)
	}
	for _, pr := range res.Partitions {
		if pr.To != 0 || pr.Records != 0 {
			t.Fatalf("partition %+v: a refused record was counted as replayed", pr)
		}
	}
	br, err := b.finish(ctx, res, cerr)
	if err == nil {
		t.Fatal("finish returned no error for a failed copy")
	}
	want := "acknowledged copies: partition 0 none, partition 1 none, partition 2 none; resume with --from 0=0,1=0,2=0"
	if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "copying topic t partition 1 offset 0 to dst: injected produce failure") {
		t.Fatalf("finish error %q, want it to contain %q", err, want)
	}
	if br.Complete || br.Produced != 0 || br.Resume != "0=0,1=0,2=0" {
		t.Fatalf("backfill result %+v", br)
	}
	for _, bp := range br.Partitions {
		if bp.ResumeFrom != 0 || bp.AckedThrough != nil || bp.Copied != 0 {
			t.Fatalf("partition %+v, want resume from 0 with nothing acknowledged", bp)
		}
	}
}

// TestFinishSaysWhatIsCopiedAgain: copies acknowledged after a failed one
// of the same partition (possible with --partitioner key, or a record the
// producer refuses on its own) are already in the target; the error says
// that the resume copies them again, and the resume point stays on the
// failed record.
func TestFinishSaysWhatIsCopiedAgain(t *testing.T) {
	_, cfg := fakeTopic(t, 1, 0)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	adm, err := cfg.NewAdmin()
	if err != nil {
		t.Fatal(err)
	}
	defer adm.Close()
	if resp, err := adm.CreateTopic(ctx, 1, 1, nil, "dst"); err != nil || resp.Err != nil {
		t.Fatalf("creating dst: %v %v", err, resp.Err)
	}
	plan := Plan{Topic: "t", Partitions: []PartitionPlan{{Partition: 0, From: 5, Bound: 10}}}
	b, err := newBackfiller(ctx, cfg, nil, "t", plan, ProduceOptions{Topic: "dst"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.close()
	acked := int64(6)
	inf := b.parts[0]
	inf.acked, inf.copied, inf.base = &acked, 2, 2
	inf.queue = []slot{{offset: 7, done: true}, {offset: 8, done: true, ok: true}, {offset: 9, done: true, ok: true}}
	b.fail(errors.New("injected"), "topic t partition 0 offset 7")
	res := &Result{Records: 5, Partitions: []PartitionResult{{Partition: 0, From: 5, To: 10, Records: 5}}}
	br, err := b.finish(ctx, res, nil)
	if err == nil || br.AckedBeyondResume != 2 || br.Resume != "0=7" || br.Produced != 2 {
		t.Fatalf("finish: %+v, %v", br, err)
	}
	want := "acknowledged copies: partition 0 through offset 6; resume with --from 0=7 (2 copies acknowledged after the first unacknowledged record of their partition are already in dst and will be copied again)"
	if !strings.HasSuffix(err.Error(), want) {
		t.Fatalf("finish error %q, want suffix %q", err, want)
	}
}

// TestBackfillProducerBufferBounded: copies of large records to a target
// that answers slowly (100 ms a produce) wait once the producer holds
// producerBufferBytes unanswered, instead of piling up in memory (kgo's
// own bound is 50,000 records of any size). 16 MiB of 256 KiB copies are
// all acknowledged, and what the producer held never passed 8 MiB by more
// than one record.
func TestBackfillProducerBufferBounded(t *testing.T) {
	fake, cfg := fakeTopic(t, 1, 1)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, b := backfillToDst(ctx, t, cfg, 1, ProduceOptions{Topic: "dst"})
	limit := int64(producerBufferBytes)
	if got := b.cl.OptValue(kgo.MaxBufferedBytes); got != int64(producerBufferBytes) {
		t.Fatalf("the producer's MaxBufferedBytes is %v, want %d", got, producerBufferBytes)
	}
	slowProduce(fake, 100*time.Millisecond)
	val := make([]byte, 256<<10)
	const n = 64
	done := make(chan error, 1)
	go func() {
		for i := range int64(n) {
			if err := b.copy(&kgo.Record{Partition: 0, Offset: i, Value: val}); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	var most int64
	for copying := true; copying; {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			copying = false
		case <-time.After(2 * time.Millisecond):
		}
		most = max(most, b.cl.BufferedProduceBytes())
	}
	if err := b.cl.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if got := b.acks.Load(); got != n {
		t.Fatalf("%d of %d copies acknowledged", got, n)
	}
	// kgo lets the record that reaches the bound in, and holds the next.
	if most > limit+int64(len(val)) || most < limit/2 {
		t.Fatalf("the producer held at most %d bytes unanswered, want between %d and %d (the bound reached, passed by one record at most)", most, limit/2, limit+int64(len(val)))
	}
	t.Logf("held at most %d of %d bytes", most, limit)
}

// TestBackfillInterruptStopsCopying: Ctrl-C (the replay's context ending)
// stops a backfill at the next record, even inside a fetch. The copies
// wait on the producer's buffer at a slow target's pace (100 ms a
// produce), and one fetch holds the whole source (32 MiB of 256 KiB
// records); before, the loop copied the rest of the fetch before it saw
// the interruption, waiting on the target for each. The replay stops as
// interrupted, having copied at most one record more than when it was
// interrupted, and resumes where its copies stopped.
func TestBackfillInterruptStopsCopying(t *testing.T) {
	fake, cfg := fakeTopic(t, 1, 0)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	val := make([]byte, 256<<10)
	const n = 128
	pcl, err := cfg.NewClient(kgo.DefaultProduceTopic("t"), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	for range n {
		if err := pcl.ProduceSync(ctx, &kgo.Record{Value: val}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	pcl.Close()
	po := ProduceOptions{Topic: "dst"}
	plan, b := backfillToDst(ctx, t, cfg, 1, po)
	slowProduce(fake, 100*time.Millisecond)
	rctx, interrupt := context.WithCancel(ctx)
	var atInterrupt int64
	go func() {
		// Interrupt once the producer's buffer is full: the loop is
		// then waiting on the target inside the fetch.
		for b.cl.BufferedProduceBytes() < producerBufferBytes-int64(len(val)) {
			time.Sleep(time.Millisecond)
		}
		atInterrupt = b.acks.Load() + b.pending.Load()
		interrupt()
	}()
	res, cerr := consume(rctx, cfg, plan, Options{Topic: "t", Format: None, Produce: &po, FetchMaxBytes: 64 << 20}, b)
	if !errors.Is(cerr, context.Canceled) || res.Stopped != StoppedInterrupted {
		t.Fatalf("consume: stopped %q, error %v; want interrupted, context canceled", res.Stopped, cerr)
	}
	if res.Records > atInterrupt+1 || res.Records >= n {
		t.Fatalf("%d records copied, %d when interrupted (of %d): the copying went on after the interruption", res.Records, atInterrupt, n)
	}
	br, ferr := b.finish(ctx, res, cerr)
	if br.Produced != res.Records || br.Resume != fmt.Sprintf("0=%d", res.Records) {
		t.Fatalf("backfill %+v after %d records; want all acknowledged and the resume at %d", br, res.Records, res.Records)
	}
	// The message says why in the user's terms, not "context canceled".
	want := fmt.Sprintf("backfill incomplete: interrupted; acknowledged copies: partition 0 through offset %d; resume with --from 0=%d", res.Records-1, res.Records)
	if ferr == nil || ferr.Error() != want || br.Error != "interrupted" {
		t.Fatalf("finish: %v (result error %q), want %q", ferr, br.Error, want)
	}
	t.Logf("interrupted at %d copies, stopped after %d of %d", atInterrupt, res.Records, n)
}

// TestTxnDueReadsClockByCountOrBytes: the open transaction's age is read
// every txnClockEvery copies, or sooner once the copies since the last
// read hold txnClockBytes (64 copies of 1 MB would take a slow target
// seconds past the interval); between reads the answer is no, whatever the
// clock.
func TestTxnDueReadsClockByCountOrBytes(t *testing.T) {
	old := time.Now().Add(-time.Hour) // every interval has passed
	small := &backfiller{opts: ProduceOptions{TxnInterval: time.Second}, txnStart: old}
	for i := 1; i < txnClockEvery; i++ {
		small.txnSinceBytes += 100
		if small.txnDue() {
			t.Fatalf("small copies: due at copy %d, before the clock is read", i)
		}
	}
	small.txnSinceBytes += 100
	if !small.txnDue() {
		t.Fatalf("small copies: not due at copy %d", txnClockEvery)
	}
	if small.txnSince != 0 || small.txnSinceBytes != 0 {
		t.Fatalf("counters not reset after the clock read: %d copies, %d bytes", small.txnSince, small.txnSinceBytes)
	}
	large := &backfiller{opts: ProduceOptions{TxnInterval: time.Second}, txnStart: old}
	large.txnSinceBytes += txnClockBytes / 2
	if large.txnDue() {
		t.Fatal("large copies: due after half of txnClockBytes")
	}
	large.txnSinceBytes += txnClockBytes / 2
	if !large.txnDue() {
		t.Fatalf("large copies: not due after %d bytes in 2 copies", txnClockBytes)
	}
	young := &backfiller{opts: ProduceOptions{TxnInterval: time.Hour}, txnStart: time.Now()}
	young.txnSinceBytes += txnClockBytes
	if young.txnDue() {
		t.Fatal("a transaction younger than its interval is due")
	}
}

// TestTransactionalInterruptedSaysRerun: an interrupted transactional
// backfill says the open transaction was aborted and that the same
// command continues (its transactional id keeps the position), not a
// --from that would be another backfill.
func TestTransactionalInterruptedSaysRerun(t *testing.T) {
	_, cfg := fakeTopic(t, 1, 5)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, b := backfillToDst(ctx, t, cfg, 1, ProduceOptions{Topic: "dst", TransactionalID: "interrupted-txn"})
	for i := range int64(3) {
		if err := b.copy(&kgo.Record{Partition: 0, Offset: i, Value: []byte("v")}); err != nil {
			t.Fatal(err)
		}
	}
	res := &Result{Topic: "t", Stopped: StoppedInterrupted, Records: 3, Partitions: []PartitionResult{{Partition: 0, From: 0, To: 3, Records: 3}}}
	br, ferr := b.finish(ctx, res, context.Canceled)
	want := "backfill incomplete: interrupted; committed copies (0 transactions committed, the open one was aborted; the position is committed with them, group offsetctl-backfill-interrupted-txn): partition 0 none; resume by rerunning the same command (--from 0=0 would be another backfill to it)"
	if ferr == nil || ferr.Error() != want || br.Complete {
		t.Fatalf("finish: %v\nwant %s", ferr, want)
	}
}

// TestCompleteAfterInterruptWaitsAndSaysWhy: interrupted while copies are
// in flight to a target that does not answer, the backfill's end waits
// --timeout (here 2 s) from the interruption, says after a second what it
// waits for, and then fails naming that limit, not "context canceled".
func TestCompleteAfterInterruptWaitsAndSaysWhy(t *testing.T) {
	fake, cfg := fakeTopic(t, 1, 3)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var mu sync.Mutex
	var warned []string
	po := ProduceOptions{Topic: "dst", Warnf: func(f string, a ...any) {
		mu.Lock()
		defer mu.Unlock()
		warned = append(warned, fmt.Sprintf(f, a...))
	}}
	_, b := backfillToDst(ctx, t, cfg, 1, po)
	slowProduce(fake, 10*time.Second)
	for i := range int64(3) {
		if err := b.copy(&kgo.Record{Partition: 0, Offset: i, Value: []byte("v")}); err != nil {
			t.Fatal(err)
		}
	}
	res := &Result{Topic: "t", Stopped: StoppedInterrupted, Records: 3, Partitions: []PartitionResult{{Partition: 0, From: 0, To: 3, Records: 3}}}
	interrupted, stop := context.WithCancel(ctx)
	stop()
	short := cfg
	short.Timeout = 2 * time.Second
	err := b.complete(interrupted, short, res, context.Canceled)
	mu.Lock()
	defer mu.Unlock()
	if err == nil || !strings.Contains(err.Error(), "waiting for acknowledgements: not acknowledged within 2s of the interruption") {
		t.Fatalf("complete: %v", err)
	}
	if len(warned) != 1 || !strings.HasPrefix(warned[0], "interrupted: waiting up to 2s for the copies in flight") {
		t.Fatalf("warnings %q, want one saying what it waits for", warned)
	}
}
