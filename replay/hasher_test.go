package replay

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetctl/offsetctl/internal/cluster"
	"github.com/offsetctl/offsetctl/internal/lag"
)

// txnTopic seeds topic "t" (3 partitions) with three committed
// transactions (so the log holds control markers between the records),
// keys, values and headers varying.
func txnTopic(t *testing.T) cluster.Config {
	t.Helper()
	fake, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(3, "t"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fake.Close)
	cfg := cluster.Config{Brokers: fake.ListenAddrs(), Timeout: 30 * time.Second}
	cl, err := cfg.NewClient(kgo.DefaultProduceTopic("t"), kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.TransactionalID("seed"))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx := context.Background()
	seq := 0
	batch := func(n int) {
		var wg sync.WaitGroup
		for i := 0; i < n; i++ {
			for p := int32(0); p < 3; p++ {
				seq++
				r := &kgo.Record{Partition: p, Key: []byte(fmt.Sprintf("k%d", seq)), Value: bytes.Repeat([]byte{byte('a' + seq%26)}, 20+seq%300)}
				if seq%7 == 0 {
					r.Headers = []kgo.RecordHeader{{Key: "h", Value: []byte(fmt.Sprint(seq))}}
				}
				wg.Add(1)
				cl.Produce(ctx, r, func(_ *kgo.Record, err error) {
					defer wg.Done()
					if err != nil {
						t.Error(err)
					}
				})
			}
		}
		wg.Wait()
	}
	for _, commit := range []kgo.TransactionEndTry{kgo.TryCommit, kgo.TryCommit, kgo.TryCommit} {
		if err := cl.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		batch(150)
		if err := cl.EndTransaction(ctx, commit); err != nil {
			t.Fatal(err)
		}
	}
	return cfg
}

// directDigests reads the topic with a plain client and digests, with
// partHash in one goroutine, the records below each partition's To.
func directDigests(t *testing.T, cfg cluster.Config, res *Result) (string, string) {
	t.Helper()
	to := map[int32]int64{}
	var want int64
	for _, pr := range res.Partitions {
		to[pr.Partition] = pr.To
		want += pr.Records
	}
	cl, err := cfg.NewClient(kgo.ConsumeTopics("t"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	hashes := map[int32]*partHash{0: newPartHash(true), 1: newPartHash(true), 2: newPartHash(true)}
	var got int64
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for got < want {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("read %d of %d records", got, want)
		}
		fs.EachRecord(func(r *kgo.Record) {
			if r.Offset < to[r.Partition] {
				hashes[r.Partition].add(r)
				got++
			}
		})
	}
	return combine([]int32{0, 1, 2}, hashes, false), combine([]int32{0, 1, 2}, hashes, true)
}

// TestPipelinedDigestIsTheDirectDigest checks that the digests computed
// off the consume loop (one hasher per partition, many small fetches) are
// those of partHash over the same records in one goroutine: for a whole
// topic with transaction markers, for --max cutting a fetch, and for an
// --until bound.
func TestPipelinedDigestIsTheDirectDigest(t *testing.T) {
	cfg := txnTopic(t)
	cases := []struct {
		name    string
		opts    Options
		records int64 // 0: not checked
	}{
		{"whole", Options{Format: Raw, Sink: &bytes.Buffer{}}, 1350},
		{"max", Options{Format: JSONL, Sink: &bytes.Buffer{}, Max: 1001}, 1001},
		{"until", Options{Format: None, Until: mustUntil(t, "200")}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.opts
			o.Topic, o.NoVerify, o.PayloadDigest, o.FetchMaxBytes, o.Isolation = "t", true, true, 4096, lag.ReadCommitted
			res, err := Run(context.Background(), cfg, o)
			if err != nil {
				t.Fatal(err)
			}
			if tc.records > 0 && res.Records != tc.records {
				t.Fatalf("%d records, want %d", res.Records, tc.records)
			}
			if res.Records == 0 || res.Records >= 1350 && tc.name != "whole" {
				t.Fatalf("%d records: the case does not cut the replay", res.Records)
			}
			d, pd := directDigests(t, cfg, res)
			if res.Digest != d || res.PayloadDigest != pd {
				t.Fatalf("digest %s payload %s, want %s %s", res.Digest, res.PayloadDigest, d, pd)
			}
		})
	}
}

func mustUntil(t *testing.T, s string) UntilSpec {
	t.Helper()
	u, err := ParseUntil(s, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return u
}
