package testkit

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestKfakeAbortedTxnsLostAtMaxBytes pins a kfake bug that exactly-once
// tests must step around: a read_committed fetch whose response reaches
// the request's MaxBytes inside a partition returns that partition's
// record batches without its AbortedTransactions (01_fetch.go: `break
// full` leaves the partition loop before the aborted-transaction
// lookup), so a read_committed client shows an aborted transaction's
// records as committed. Apache Kafka lists the aborted transactions of
// every partition it returns data for. When this test fails, kfake has
// fixed it: drop the whole-topic fetch size that
// TestBackfillExactlyOnceKillNine (internal/cli) uses on kfake.
func TestKfakeAbortedTxnsLostAtMaxBytes(t *testing.T) {
	fake, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "t"))
	if err != nil {
		t.Fatal(err)
	}
	defer fake.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(fake.ListenAddrs()...), kgo.DefaultProduceTopic("t"), kgo.TransactionalID("x"))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	for _, end := range []kgo.TransactionEndTry{kgo.TryAbort, kgo.TryCommit} {
		if err := cl.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 2000; i++ {
			if err := cl.ProduceSync(ctx, &kgo.Record{Value: bytes.Repeat([]byte("v"), 100)}).FirstErr(); err != nil {
				t.Fatal(err)
			}
		}
		if err := cl.EndTransaction(ctx, end); err != nil {
			t.Fatal(err)
		}
	}
	meta := kmsg.NewPtrMetadataRequest()
	mt := kmsg.NewMetadataRequestTopic()
	mt.Topic = kmsg.StringPtr("t")
	meta.Topics = append(meta.Topics, mt)
	mresp, err := meta.RequestWith(ctx, cl)
	if err != nil {
		t.Fatal(err)
	}
	// fetch reads partition 0 from offset 0 (the aborted transaction's
	// first record) with read_committed and returns how many aborted
	// transactions were listed with the batches.
	fetch := func(maxBytes int32) int {
		req := kmsg.NewPtrFetchRequest()
		req.ReplicaID, req.IsolationLevel, req.MaxBytes, req.MaxWaitMillis = -1, 1, maxBytes, 10
		rt := kmsg.NewFetchRequestTopic()
		rt.Topic, rt.TopicID = "t", mresp.Topics[0].TopicID
		rp := kmsg.NewFetchRequestTopicPartition()
		rp.FetchOffset, rp.PartitionMaxBytes, rp.CurrentLeaderEpoch = 0, 8<<20, -1
		rt.Partitions = append(rt.Partitions, rp)
		req.Topics = append(req.Topics, rt)
		resp, err := req.RequestWith(ctx, cl)
		if err != nil {
			t.Fatal(err)
		}
		p := resp.Topics[0].Partitions[0]
		if p.ErrorCode != 0 || len(p.RecordBatches) == 0 {
			t.Fatalf("fetch answered error %d with %d bytes", p.ErrorCode, len(p.RecordBatches))
		}
		return len(p.AbortedTransactions)
	}
	if aborted := fetch(8 << 20); aborted != 1 {
		t.Fatalf("a fetch of the whole log lists %d aborted transactions, want 1", aborted)
	}
	if aborted := fetch(16 << 10); aborted != 0 {
		t.Fatalf("a fetch cut by its MaxBytes inside the aborted transaction lists %d aborted transactions: kfake fixed the bug (see this test's comment)", aborted)
	}
}
