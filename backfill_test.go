package main

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/offsetctl/offsetctl/internal/testkit"
	"github.com/offsetctl/offsetctl/replay"
)

// backfillSource fills a 3-partition topic with n records per partition,
// with headers and explicit timestamps, plus the awkward binary records
// in partition 0.
func backfillSource(t *testing.T, c *testkit.Cluster, n int) string {
	t.Helper()
	src := c.Topic(3, nil)
	ts := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
	var recs []*kgo.Record
	for _, r := range replayBinaryRecords(src) {
		r.Timestamp = ts
		recs = append(recs, r)
	}
	for p := int32(0); p < 3; p++ {
		for i := 0; i < n; i++ {
			recs = append(recs, &kgo.Record{Topic: src, Partition: p, Key: []byte(fmt.Sprintf("k-%d-%d", p, i)),
				Value:     []byte(strings.Repeat(fmt.Sprintf("v-%d-%d;", p, i), 10)),
				Headers:   []kgo.RecordHeader{{Key: "n", Value: []byte(fmt.Sprint(i))}},
				Timestamp: ts.Add(time.Duration(i) * time.Millisecond)})
		}
	}
	c.ProduceRecords(recs...)
	return src
}

func TestBackfillCopiesWithSameDigest(t *testing.T) {
	c := testkit.New(t)
	src := backfillSource(t, c, 50)
	dst := c.Topic(3, nil)
	res, _, _ := replayJSON(t, c, 0, src, "--produce-to", dst, "--format", "none")
	b := res.Backfill
	if b == nil || !b.Complete || b.Produced != res.Records || res.Records != 155 || b.Resume != "" {
		t.Fatalf("backfill = %+v (records %d)", b, res.Records)
	}
	// Re-read the target: the same payloads, partition by partition.
	srcRes, _, _ := replayJSON(t, c, 0, src, "--payload-digest", "--format", "none")
	dstRes, dstLines, _ := replayJSON(t, c, 0, dst, "--payload-digest")
	if dstRes.Records != srcRes.Records || dstRes.PayloadDigest == "" || dstRes.PayloadDigest != srcRes.PayloadDigest || srcRes.PayloadDigest != res.PayloadDigest {
		t.Fatalf("payload digests: src %s (%d), dst %s (%d), during copy %s", srcRes.PayloadDigest, srcRes.Records, dstRes.PayloadDigest, dstRes.Records, res.PayloadDigest)
	}
	for _, l := range replayParseLines(t, dstLines) {
		if len(l.Headers) > 0 && l.Headers[0].Key == replay.SourceHeader {
			t.Fatalf("source header without --source-header: %+v", l)
		}
	}

	// --source-header: every copy names its source; payloads still match.
	dst2 := c.Topic(3, nil)
	replayJSON(t, c, 0, src, "--produce-to", dst2, "--source-header", "--format", "none")
	res2, lines2, _ := replayJSON(t, c, 0, dst2, "--payload-digest")
	if res2.PayloadDigest != srcRes.PayloadDigest {
		t.Fatalf("payload digest with --source-header %s, want %s", res2.PayloadDigest, srcRes.PayloadDigest)
	}
	// Offsets in dst2 equal those in src (same partitioner, empty target).
	for _, l := range replayParseLines(t, lines2) {
		h := l.Headers[len(l.Headers)-1]
		if want := fmt.Sprintf("%s/%d/%d", src, l.Partition, l.Offset); h.Key != replay.SourceHeader || string(h.Value) != want {
			t.Fatalf("header %s=%q, want %s", h.Key, h.Value, want)
		}
	}
}

func TestBackfillRefusesBadTargets(t *testing.T) {
	c := testkit.New(t)
	src := backfillSource(t, c, 3)
	small := c.Topic(2, nil)
	r := mustRun(t, c, 2, "replay", src, "--produce-to", small, "--format", "none", "-q")
	if !strings.Contains(r.stderr, "target topic "+small+" has 2 partitions but source partition 2") {
		t.Fatalf("stderr: %s", r.stderr)
	}
	r = mustRun(t, c, 2, "replay", src, "--produce-to", testkit.Name(t, "missing"), "--format", "none", "-q")
	if !strings.Contains(r.stderr, "does not exist") {
		t.Fatalf("stderr: %s", r.stderr)
	}
	mustRun(t, c, 2, "replay", src, "--produce-to", src, "--format", "none", "-q")
	mustRun(t, c, 2, "replay", src, "--partitioner", "key", "--format", "none", "-q")
	mustRun(t, c, 2, "replay", src, "--produce-to", small, "--partitioner", "round-robin", "--format", "none", "-q")
	// Nothing was written to the small topic by the refused runs.
	res, _, _ := replayJSON(t, c, 0, small, "--format", "none")
	if res.Records != 0 {
		t.Fatalf("refused backfills wrote %d records", res.Records)
	}
	// --partitioner key spreads by key over any partition count.
	res, _, _ = replayJSON(t, c, 0, src, "--produce-to", small, "--partitioner", "key", "--format", "none")
	back, _, _ := replayJSON(t, c, 0, small, "--format", "none")
	if !res.Backfill.Complete || back.Records != res.Records || res.Records != 14 {
		t.Fatalf("key partitioner: copied %+v, target has %d", res.Backfill, back.Records)
	}
}

func TestBackfillTransactional(t *testing.T) {
	c := testkit.New(t)
	src := backfillSource(t, c, 20)
	dst := c.Topic(3, nil)
	res, _, _ := replayJSON(t, c, 0, src, "--produce-to", dst, "--transactional-id", testkit.Name(t, "bf"), "--format", "none")
	if !res.Backfill.Complete || !res.Backfill.Transactional || res.Backfill.Produced != res.Records {
		t.Fatalf("backfill %+v", res.Backfill)
	}
	got, _, _ := replayJSON(t, c, 0, dst, "--isolation", "committed", "--payload-digest", "--format", "none")
	if got.Records != res.Records || got.PayloadDigest != res.PayloadDigest {
		t.Fatalf("read_committed sees %d records (digest %s), want %d (%s)", got.Records, got.PayloadDigest, res.Records, res.PayloadDigest)
	}
	mustRun(t, c, 2, "replay", src, "--produce-to", dst, "--transactional-id", "x", "--follow", "-q")
}

func TestBackfillResumeAfterProduceFailure(t *testing.T) {
	c := testkit.New(t)
	if c.Fake == nil {
		t.Skip("injecting produce failures needs kfake's ControlKey (the stopped-broker variant is a fault test)")
	}
	src := backfillSource(t, c, 10000)
	dst := c.Topic(3, nil)
	var (
		failing atomic.Bool
		passed  atomic.Int32
		failed  atomic.Int32
	)
	failing.Store(true)
	c.Fake.ControlKey(kmsg.Produce.Int16(), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.Fake.KeepControl()
		pr := req.(*kmsg.ProduceRequest)
		if pr.TransactionID != nil || !failing.Load() || !producesTo(pr, dst) {
			return nil, nil, false
		}
		if passed.Load() < 3 {
			passed.Add(1)
			return nil, nil, false
		}
		failed.Add(1)
		resp := pr.ResponseKind().(*kmsg.ProduceResponse)
		for _, rt := range pr.Topics {
			st := kmsg.NewProduceResponseTopic()
			st.Topic, st.TopicID = rt.Topic, rt.TopicID
			for _, rp := range rt.Partitions {
				sp := kmsg.NewProduceResponseTopicPartition()
				sp.Partition = rp.Partition
				sp.ErrorCode = kerr.TopicAuthorizationFailed.Code
				st.Partitions = append(st.Partitions, sp)
			}
			resp.Topics = append(resp.Topics, st)
		}
		return resp, nil, true
	})
	res, _, r := replayJSON(t, c, 1, src, "--produce-to", dst, "--format", "none")
	if failed.Load() == 0 {
		t.Fatal("no produce request was failed: the copy was too small to inject a failure")
	}
	t.Logf("failed backfill, stderr: %s", r.stderr)
	b := res.Backfill
	if b == nil || b.Complete || b.Resume == "" || b.Error == "" || b.Produced >= res.Records {
		t.Fatalf("failed backfill summary: %+v", b)
	}
	if !strings.Contains(r.stderr, "resume with --from "+b.Resume) || !strings.Contains(r.stderr, "TOPIC_AUTHORIZATION_FAILED") {
		t.Fatalf("stderr does not give the resume: %s", r.stderr)
	}
	// The target holds exactly the acknowledged prefix of each partition.
	mid, _, _ := replayJSON(t, c, 0, dst, "--format", "none")
	if mid.Records != b.Produced {
		t.Fatalf("target has %d records, summary says %d acknowledged", mid.Records, b.Produced)
	}
	for _, bp := range b.Partitions {
		if got := replayPart(t, mid, bp.Partition).Records; got != bp.Copied || (bp.AckedThrough == nil) != (bp.Copied == 0) || bp.ResumeFrom != bp.Copied {
			t.Fatalf("partition %d: target %d records, summary %+v", bp.Partition, got, bp)
		}
	}

	failing.Store(false)
	res2, _, _ := replayJSON(t, c, 0, src, "--produce-to", dst, "--from", b.Resume, "--format", "none")
	// The resume replays exactly what was not acknowledged: together the
	// two runs copied every source record once.
	const total = 3*10000 + 5
	if !res2.Backfill.Complete || res2.Records+b.Produced != total || res2.Backfill.Produced != res2.Records {
		t.Fatalf("resume: %+v, replayed %d + %d acknowledged before, want %d", res2.Backfill, res2.Records, b.Produced, total)
	}
	full, _, _ := replayJSON(t, c, 0, src, "--payload-digest", "--format", "none")
	copied, _, _ := replayJSON(t, c, 0, dst, "--payload-digest", "--format", "none")
	if copied.Records != full.Records || copied.PayloadDigest != full.PayloadDigest {
		t.Fatalf("after resume: target %d records %s, source %d records %s", copied.Records, copied.PayloadDigest, full.Records, full.PayloadDigest)
	}
}

func producesTo(pr *kmsg.ProduceRequest, topic string) bool {
	for _, t := range pr.Topics {
		if t.Topic == topic || t.Topic == "" {
			return true
		}
	}
	return false
}

func TestBackfillStalledTargetEndsWithResume(t *testing.T) {
	c := testkit.New(t)
	if c.Fake == nil {
		t.Skip("a target that stops answering is simulated with kfake's ControlKey (the stopped-broker variant is a fault test)")
	}
	src := backfillSource(t, c, 10000)
	dst := c.Topic(3, nil)
	var passed atomic.Int32
	c.Fake.ControlKey(kmsg.Produce.Int16(), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.Fake.KeepControl()
		if !producesTo(req.(*kmsg.ProduceRequest), dst) || passed.Add(1) <= 1 {
			return nil, nil, false
		}
		return nil, nil, true // swallowed: the broker never answers
	})
	start := time.Now()
	res, _, r := replayJSON(t, c, 1, src, "--produce-to", dst, "--format", "none", "--timeout", "2s")
	t.Logf("stalled backfill ended after %s: %s", time.Since(start).Round(time.Millisecond), r.stderr)
	b := res.Backfill
	if b == nil || b.Complete || b.Resume == "" || !strings.Contains(r.stderr, "no acknowledgement from the target for 2s") || !strings.Contains(r.stderr, "resume with --from "+b.Resume) {
		t.Fatalf("stalled backfill: %+v\n%s", b, r.stderr)
	}
	for _, bp := range b.Partitions {
		if bp.ResumeFrom != bp.Copied {
			t.Fatalf("partition %+v: resume must follow the acknowledged prefix", bp)
		}
	}
}
