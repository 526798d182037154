package replay

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetctl/offsetctl/internal/cluster"
)

// pinnedTopic seeds topic "pin" (4 partitions) with the same 4,000
// records on every call: fixed timestamps, null and empty keys, values
// from empty to 3 KiB (past the hash's inline bound), headers with null
// values and the offsetctl.source header every 11th record. Produced in
// order per partition, so the offsets are the same too.
func pinnedTopic(t *testing.T) cluster.Config {
	t.Helper()
	fake, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(4, "pin"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fake.Close)
	cfg := cluster.Config{Brokers: fake.ListenAddrs(), Timeout: 30 * time.Second}
	cl, err := cfg.NewClient(kgo.DefaultProduceTopic("pin"), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	base := time.UnixMilli(1_700_000_000_000)
	var recs []*kgo.Record
	for i := 0; i < 4000; i++ {
		r := &kgo.Record{Partition: int32(i % 4), Timestamp: base.Add(time.Duration(i) * time.Millisecond)}
		switch i % 5 {
		case 0: // null key
		case 1:
			r.Key = []byte{}
		default:
			r.Key = []byte(fmt.Sprintf("key-%d", i))
		}
		switch i % 7 {
		case 0:
			r.Value = nil
		case 1:
			r.Value = []byte{}
		case 2:
			r.Value = []byte(strings.Repeat(fmt.Sprintf("big-%d;", i), 3072/8))
		default:
			r.Value = bytes.Repeat([]byte{byte('a' + i%26)}, 10+i%200)
		}
		if i%3 == 0 {
			r.Headers = []kgo.RecordHeader{{Key: "h", Value: []byte(fmt.Sprint(i))}, {Key: "nil"}}
		}
		if i%11 == 0 {
			r.Headers = append(r.Headers, kgo.RecordHeader{Key: SourceHeader, Value: []byte(fmt.Sprintf("src/0/%d", i))})
		}
		recs = append(recs, r)
	}
	if err := cl.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestDigestPinned pins the digests of a replay of pinnedTopic to the
// bytes the replay computed when every record was hashed in the consume
// loop (before the hashing moved to a goroutine per partition), read in
// many small fetches, whole and up to an --until offset: the digest is a public
// format (DigestVersion) and moving its computation must not change it.
func TestDigestPinned(t *testing.T) {
	cfg := pinnedTopic(t)
	cases := []struct {
		name            string
		opts            Options
		records         int64
		digest, payload string
	}{
		{"raw whole", Options{Format: Raw}, 4000,
			"ce42ef0d4eadfe9046ce27457f3697958b8435d5568ed7323e665322e047e5a4", "9ad7ecb031d151ff7c6dd56bb351d283017addf7634dad909649ef3ca2b21d7e"},
		{"jsonl until offset 700", Options{Format: JSONL, Until: mustUntil(t, "700")}, 2800,
			"c3c3f023740dab4e6443922087c30c7a0ee4cec184ab297c6f9a198e3ed1d73d", "e522b518b1aee8dd3feaf59cd090fa2ce03ca0a3f48f88bad0a216b0ae33aa8e"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.opts
			var out bytes.Buffer
			o.Topic, o.Sink, o.NoVerify, o.PayloadDigest, o.FetchMaxBytes = "pin", &out, true, true, 64<<10
			res, err := Run(context.Background(), cfg, o)
			if err != nil {
				t.Fatal(err)
			}
			if res.Records != tc.records || res.Digest != tc.digest || res.PayloadDigest != tc.payload {
				t.Fatalf("%d records, digest %s, payload digest %s; pinned: %d, %s, %s", res.Records, res.Digest, res.PayloadDigest, tc.records, tc.digest, tc.payload)
			}
		})
	}
}

// TestLargestFetchSize: the largest --fetch-max-bytes (256 MiB) makes a
// client that reads (kgo refuses a fetch above its 100 MiB default
// broker read size unless that is raised too).
func TestLargestFetchSize(t *testing.T) {
	cfg := pinnedTopic(t)
	res, err := Run(context.Background(), cfg, Options{Topic: "pin", NoVerify: true, Format: None, FetchMaxBytes: 256 << 20})
	if err != nil || res.Records != 4000 {
		t.Fatalf("%v records, %v", res, err)
	}
}
