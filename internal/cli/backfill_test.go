package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl/plain"

	"github.com/offsetctl/offsetctl/internal/cluster"
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
	badInput(t, c, "--produce-to "+src+" is the topic being replayed", "replay", src, "--produce-to", src, "--format", "none", "-q")
	badInput(t, c, "--partitioner needs --produce-to", "replay", src, "--partitioner", "key", "--format", "none", "-q")
	// An empty value (an unset shell variable) is not the flag left out.
	badInput(t, c, "--produce-to is empty", "replay", src, "--produce-to", "", "--format", "none", "-q")
	badInput(t, c, "--transactional-id is empty", "replay", src, "--produce-to", small, "--transactional-id", "", "--format", "none", "-q")
	badInput(t, c, "--transactional-id is empty", "replay", src, "--produce-to", small, "--transactional-id", " ", "--format", "none", "-q")
	badInput(t, c, `--partitioner "round-robin": want same or key`, "replay", src, "--produce-to", small, "--partitioner", "round-robin", "--format", "none", "-q")
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
	// On kfake the commit markers are written before EndTransaction
	// returns; a real broker writes them after, so the last stable
	// offset lags. Reproduce that on kfake: the first read_committed
	// ListOffsets of the target answer offset 0 (nothing visible yet).
	var lagging atomic.Int32
	if c.Fake != nil {
		lagging.Store(3)
		c.Fake.ControlKey(kmsg.ListOffsets.Int16(), func(req kmsg.Request) (kmsg.Response, error, bool) {
			c.Fake.KeepControl()
			lr := req.(*kmsg.ListOffsetsRequest)
			if lr.IsolationLevel != 1 || len(lr.Topics) != 1 || lr.Topics[0].Topic != dst || lagging.Add(-1) < 0 {
				return nil, nil, false
			}
			return stableOffsetsZero(lr), nil, true
		})
	}
	res, _, _ := replayJSON(t, c, 0, src, "--produce-to", dst, "--transactional-id", testkit.Name(t, "bf"), "--format", "none")
	if !res.Backfill.Complete || !res.Backfill.Transactional || res.Backfill.Produced != res.Records || res.Records != 65 {
		t.Fatalf("backfill %+v", res.Backfill)
	}
	if c.Fake != nil && lagging.Load() >= 0 {
		t.Fatalf("the backfill did not wait for the last stable offsets (%d lagging answers left)", lagging.Load())
	}
	// "complete" means visible: read_committed right away sees it all
	// (no wait here: waiting is the product's job).
	lso, err := c.Admin().ListCommittedOffsets(testkit.Ctx(t), dst)
	if err != nil {
		t.Fatal(err)
	}
	var visible int64
	lso.Each(func(o kadm.ListedOffset) { visible += o.Offset })
	got, _, _ := replayJSON(t, c, 0, dst, "--isolation", "committed", "--payload-digest", "--format", "none")
	// Each partition holds its copies and one commit marker.
	if visible != res.Records+3 || got.Records != res.Records || got.PayloadDigest != res.PayloadDigest {
		t.Fatalf("read_committed sees %d records (digest %s, last stable offsets sum %d), want %d (%s)", got.Records, got.PayloadDigest, visible, res.Records, res.PayloadDigest)
	}
	badInput(t, c, "--follow cannot be combined with --transactional-id", "replay", src, "--produce-to", dst, "--transactional-id", "x", "--follow", "-q")
}

// stableOffsetsZero answers a ListOffsets request with offset 0 for every
// partition: a last stable offset that has not moved yet.
func stableOffsetsZero(lr *kmsg.ListOffsetsRequest) kmsg.Response {
	resp := lr.ResponseKind().(*kmsg.ListOffsetsResponse)
	for _, rt := range lr.Topics {
		st := kmsg.NewListOffsetsResponseTopic()
		st.Topic = rt.Topic
		for _, rp := range rt.Partitions {
			sp := kmsg.NewListOffsetsResponseTopicPartition()
			sp.Partition = rp.Partition
			sp.Timestamp = -1
			sp.Offset = 0
			sp.LeaderEpoch = -1
			st.Partitions = append(st.Partitions, sp)
		}
		resp.Topics = append(resp.Topics, st)
	}
	return resp
}

// TestBackfillTransactionalNotVisibleInTime: another producer's open
// transaction on the target holds its last stable offsets back, so the
// committed copy is not visible to read_committed consumers within
// --timeout: the backfill is not reported complete (exit 1 saying so, and
// no resume point: a rerun would copy everything again). Once the other
// transaction ends, the copy is visible.
func TestBackfillTransactionalNotVisibleInTime(t *testing.T) {
	c := testkit.New(t)
	src := backfillSource(t, c, 5)
	dst := c.Topic(3, nil)
	var open []*kgo.Record
	for p := int32(0); p < 3; p++ {
		open = append(open, &kgo.Record{Topic: dst, Partition: p, Value: []byte("open")})
	}
	endOther := c.BeginTxn(open...)
	res, _, r := replayJSON(t, c, 1, src, "--produce-to", dst, "--transactional-id", testkit.Name(t, "bf"), "--format", "none", "--timeout", "3s")
	t.Logf("stderr: %s", r.stderr)
	b := res.Backfill
	if b == nil || b.Complete || b.Resume != "" || b.Produced != res.Records || res.Records != 20 || !strings.Contains(b.Error, "do not see all of the copy after 3s") ||
		!strings.HasPrefix(r.stderr, "offsetctl: backfill committed but not yet visible: read_committed consumers of "+dst) || !strings.Contains(r.stderr, "rerunning the same command copies nothing again") {
		t.Fatalf("backfill %+v\nstderr: %s", b, r.stderr)
	}
	endOther(false)
	// It was committed: visible once the other transaction ends.
	backfillWait(t, "the copy to become visible", func() bool {
		got, _, _ := replayJSON(t, c, 0, dst, "--isolation", "committed", "--format", "none")
		return got.Records == res.Records
	})
	got, _, _ := replayJSON(t, c, 0, dst, "--isolation", "committed", "--payload-digest", "--format", "none")
	if got.Records != res.Records || got.PayloadDigest != res.PayloadDigest {
		t.Fatalf("target %d records (%s), want %d (%s)", got.Records, got.PayloadDigest, res.Records, res.PayloadDigest)
	}
}

// smallBatchTarget creates a 3-partition target topic that accepts record
// batches of at most 16 KiB (max.message.bytes): the backfill sizes its
// batches to it, so a copy of thousands of records takes many produce
// requests of at most about 130 records per partition, whatever the
// timing.
func smallBatchTarget(c *testkit.Cluster) string {
	v := "16384"
	return c.Topic(3, map[string]*string{"max.message.bytes": &v})
}

// failProduce builds the response that fails every partition of pr.
func failProduce(pr *kmsg.ProduceRequest, code int16) kmsg.Response {
	resp := pr.ResponseKind().(*kmsg.ProduceResponse)
	for _, rt := range pr.Topics {
		st := kmsg.NewProduceResponseTopic()
		st.Topic, st.TopicID = rt.Topic, rt.TopicID
		for _, rp := range rt.Partitions {
			sp := kmsg.NewProduceResponseTopicPartition()
			sp.Partition = rp.Partition
			sp.ErrorCode = code
			st.Partitions = append(st.Partitions, sp)
		}
		resp.Topics = append(resp.Topics, st)
	}
	return resp
}

// produceRecordCount counts the records of the batches in pr.
func produceRecordCount(t *testing.T, pr *kmsg.ProduceRequest) int64 {
	var n int64
	for _, rt := range pr.Topics {
		for _, rp := range rt.Partitions {
			for data := rp.Records; len(data) > 0; {
				var b kmsg.RecordBatch
				if err := b.ReadFrom(data); err != nil {
					t.Errorf("decoding a produced batch: %v", err)
					return n
				}
				n += int64(b.NumRecords)
				size := 12 + int(b.Length)
				if size > len(data) {
					break
				}
				data = data[size:]
			}
		}
	}
	return n
}

// TestBackfillResumeAfterProduceFailure lets the target accept the first
// requests, up to 3000 records, then answers every produce with
// TOPIC_AUTHORIZATION_FAILED: the backfill fails mid-way (batches are small,
// see smallBatchTarget), reports exactly what was acknowledged and where
// to resume, and the resume completes a digest-equal copy. With at most
// 3000 acknowledged and 10,000 buffered by the producer, the replay loop
// is still copying when the first failure comes back, whatever the timing.
func TestBackfillResumeAfterProduceFailure(t *testing.T) {
	c := testkit.New(t)
	if c.Fake == nil {
		t.Skip("injecting produce failures needs kfake's ControlKey (the stopped-broker variant is a fault test)")
	}
	const perPartition, total, passLimit = 10000, 3*10000 + 5, 3000
	src := backfillSource(t, c, perPartition)
	dst := smallBatchTarget(c)
	var (
		mu       sync.Mutex
		failing  = true
		tripped  bool
		accepted int64 // records of the requests let through
		rejected int   // requests failed
	)
	c.Fake.ControlKey(kmsg.Produce.Int16(), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.Fake.KeepControl()
		pr := req.(*kmsg.ProduceRequest)
		mu.Lock()
		defer mu.Unlock()
		if pr.TransactionID != nil || !failing || !producesTo(pr, dst) {
			return nil, nil, false
		}
		n := produceRecordCount(t, pr)
		if !tripped && accepted+n <= passLimit {
			accepted += n
			return nil, nil, false
		}
		tripped = true
		rejected++
		return failProduce(pr, kerr.TopicAuthorizationFailed.Code), nil, true
	})
	res, _, r := replayJSON(t, c, 1, src, "--produce-to", dst, "--format", "none")
	mu.Lock()
	failing = false
	acc, rej := accepted, rejected
	mu.Unlock()
	t.Logf("failed backfill (%d records let through, %d requests failed), stderr: %s", acc, rej, r.stderr)
	if rej == 0 || acc == 0 {
		t.Fatalf("%d records let through, %d requests failed: the failure was not injected mid-way", acc, rej)
	}
	b := res.Backfill
	if b == nil || b.Complete || b.Resume == "" || b.Error == "" || b.Produced != acc {
		t.Fatalf("failed backfill summary: %+v, want %d acknowledged", b, acc)
	}
	if !strings.HasPrefix(r.stderr, "offsetctl: backfill incomplete: ") || !strings.Contains(r.stderr, "TOPIC_AUTHORIZATION_FAILED") ||
		!strings.Contains(r.stderr, "acknowledged copies: partition 0 ") || !strings.Contains(r.stderr, "; resume with --from "+b.Resume+"\n") {
		t.Fatalf("stderr does not give the acknowledged copies and the resume: %s", r.stderr)
	}
	// The target holds exactly the acknowledged prefix of each partition,
	// and the resume point of each partition follows it.
	mid, _, _ := replayJSON(t, c, 0, dst, "--format", "none")
	if mid.Records != b.Produced {
		t.Fatalf("target has %d records, summary says %d acknowledged", mid.Records, b.Produced)
	}
	resume := map[int32]int64{}
	for _, bp := range b.Partitions {
		resume[bp.Partition] = bp.ResumeFrom
		if got := replayPart(t, mid, bp.Partition).Records; got != bp.Copied || (bp.AckedThrough == nil) != (bp.Copied == 0) ||
			bp.ResumeFrom != bp.Copied || (bp.AckedThrough != nil && *bp.AckedThrough != bp.Copied-1) {
			t.Fatalf("partition %d: target %d records, summary %+v", bp.Partition, got, bp)
		}
		want := fmt.Sprintf("partition %d none", bp.Partition)
		if bp.AckedThrough != nil {
			want = fmt.Sprintf("partition %d through offset %d", bp.Partition, *bp.AckedThrough)
		}
		if !strings.Contains(r.stderr, want) {
			t.Fatalf("stderr does not say %q: %s", want, r.stderr)
		}
	}
	if replay.FormatResume(resume) != b.Resume {
		t.Fatalf("resume %q does not match the partitions %v", b.Resume, resume)
	}

	res2, _, _ := replayJSON(t, c, 0, src, "--produce-to", dst, "--from", b.Resume, "--format", "none")
	// The resume replays exactly what was not acknowledged: together the
	// two runs copied every source record once.
	if !res2.Backfill.Complete || res2.Records+b.Produced != total || res2.Backfill.Produced != res2.Records {
		t.Fatalf("resume: %+v, replayed %d + %d acknowledged before, want %d", res2.Backfill, res2.Records, b.Produced, total)
	}
	full, _, _ := replayJSON(t, c, 0, src, "--payload-digest", "--format", "none")
	copied, _, _ := replayJSON(t, c, 0, dst, "--payload-digest", "--format", "none")
	if copied.Records != total || copied.Records != full.Records || copied.PayloadDigest != full.PayloadDigest {
		t.Fatalf("after resume: target %d records %s, source %d records %s", copied.Records, copied.PayloadDigest, full.Records, full.PayloadDigest)
	}
}

// TestBackfillFirstProduceFails fails every produce from the very first
// one: nothing is acknowledged on any partition, and the error still says
// so per partition and gives the --from that starts over. The source holds
// more records than the producer buffers (kgo's 10,000), so the consumer
// is always still copying when the failure comes back: the path where the
// copy error reaches the replay loop first (it used to hide the resume).
func TestBackfillFirstProduceFails(t *testing.T) {
	c := testkit.New(t)
	if c.Fake == nil {
		t.Skip("injecting produce failures needs kfake's ControlKey")
	}
	src := backfillSource(t, c, 5000)
	dst := smallBatchTarget(c)
	var rejected atomic.Int32
	c.Fake.ControlKey(kmsg.Produce.Int16(), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.Fake.KeepControl()
		pr := req.(*kmsg.ProduceRequest)
		if pr.TransactionID != nil || !producesTo(pr, dst) {
			return nil, nil, false
		}
		rejected.Add(1)
		return failProduce(pr, kerr.TopicAuthorizationFailed.Code), nil, true
	})
	res, _, r := replayJSON(t, c, 1, src, "--produce-to", dst, "--format", "none")
	t.Logf("stderr: %s", r.stderr)
	b := res.Backfill
	if rejected.Load() == 0 || b == nil || b.Complete || b.Produced != 0 || b.Resume != "0=0,1=0,2=0" || !strings.Contains(b.Error, "TOPIC_AUTHORIZATION_FAILED") {
		t.Fatalf("backfill %+v after %d failed requests", b, rejected.Load())
	}
	for _, bp := range b.Partitions {
		if bp.AckedThrough != nil || bp.Copied != 0 || bp.ResumeFrom != 0 {
			t.Fatalf("partition %+v, want nothing acknowledged and resume from 0", bp)
		}
	}
	if !strings.HasPrefix(r.stderr, "offsetctl: backfill incomplete: copying topic "+src+" partition ") ||
		!strings.Contains(r.stderr, "TOPIC_AUTHORIZATION_FAILED") ||
		!strings.HasSuffix(r.stderr, "; acknowledged copies: partition 0 none, partition 1 none, partition 2 none; resume with --from 0=0,1=0,2=0\n") {
		t.Fatalf("stderr: %s", r.stderr)
	}
	if got, _, _ := replayJSON(t, c, 0, dst, "--format", "none"); got.Records != 0 {
		t.Fatalf("the target has %d records, nothing was acknowledged", got.Records)
	}
}

// TestBackfillResumeAfterOversizedRecord is the produce failure that a
// real broker gives without any injection: one record of partition 1 (at
// offset 5000) is larger than the target's max.message.bytes, so the
// target cannot take it. The backfill stops with partition 1 acknowledged
// through exactly offset 4999 and resuming at 5000; once the operator
// raises the target's limit, the resume completes a digest-equal copy.
func TestBackfillResumeAfterOversizedRecord(t *testing.T) {
	c := testkit.New(t)
	const perPartition, more = 5000, 1000
	src := backfillSource(t, c, perPartition)
	ts := time.Now().Add(-30 * time.Minute).Truncate(time.Millisecond)
	recs := []*kgo.Record{{Topic: src, Partition: 1, Key: []byte("big"), Value: bytes.Repeat([]byte("B"), 20000), Timestamp: ts}}
	for p := int32(0); p < 3; p++ {
		for i := perPartition; i < perPartition+more; i++ {
			recs = append(recs, &kgo.Record{Topic: src, Partition: p, Key: []byte(fmt.Sprintf("k-%d-%d", p, i)),
				Value: []byte(strings.Repeat(fmt.Sprintf("v-%d-%d;", p, i), 10)), Timestamp: ts.Add(time.Duration(i) * time.Millisecond)})
		}
	}
	c.ProduceRecords(recs...)
	const total = 5 + 3*(perPartition+more) + 1
	dst := smallBatchTarget(c)

	res, _, r := replayJSON(t, c, 1, src, "--produce-to", dst, "--format", "none")
	t.Logf("failed backfill: %s", r.stderr)
	b := res.Backfill
	if b == nil || b.Complete || b.Produced >= total || !strings.Contains(b.Error, "MESSAGE_TOO_LARGE") || b.AckedBeyondResume != 0 {
		t.Fatalf("backfill %+v", b)
	}
	p1 := b.Partitions[1]
	if p1.Partition != 1 || p1.AckedThrough == nil || *p1.AckedThrough != perPartition-1 || p1.Copied != perPartition || p1.ResumeFrom != perPartition {
		t.Fatalf("partition 1: %+v, want acknowledged through %d and resume at %d", p1, perPartition-1, perPartition)
	}
	if !strings.HasPrefix(r.stderr, fmt.Sprintf("offsetctl: backfill incomplete: copying topic %s partition 1 offset %d to %s: a record of ", src, perPartition, dst)) ||
		!strings.Contains(r.stderr, "(max.message.bytes 16384): MESSAGE_TOO_LARGE") || strings.Contains(r.stderr, "copied again") ||
		!strings.Contains(r.stderr, fmt.Sprintf("partition 1 through offset %d", perPartition-1)) || !strings.HasSuffix(r.stderr, "; resume with --from "+b.Resume+"\n") {
		t.Fatalf("stderr: %s", r.stderr)
	}
	mid, _, _ := replayJSON(t, c, 0, dst, "--format", "none")
	for _, bp := range b.Partitions {
		if got := replayPart(t, mid, bp.Partition).Records; got != bp.Copied || bp.ResumeFrom != bp.Copied {
			t.Fatalf("partition %+v: target has %d", bp, got)
		}
	}

	// The operator raises the target's limit, then resumes.
	limit := "1048588"
	ctx := testkit.Ctx(t)
	ar, err := c.Admin().AlterTopicConfigs(ctx, []kadm.AlterConfig{{Op: kadm.SetConfig, Name: "max.message.bytes", Value: &limit}}, dst)
	if err == nil {
		_, err = ar.On(dst, nil)
	}
	if err != nil {
		t.Fatalf("raising max.message.bytes of %s: %v", dst, err)
	}
	backfillWait(t, "the target's new max.message.bytes", func() bool {
		rcs, err := c.Admin().DescribeTopicConfigs(ctx, dst)
		if err != nil {
			return false
		}
		rc, err := rcs.On(dst, nil)
		if err != nil {
			return false
		}
		for _, cf := range rc.Configs {
			if cf.Key == "max.message.bytes" && cf.Value != nil && *cf.Value == limit {
				return true
			}
		}
		return false
	})
	res2, _, r2 := replayJSON(t, c, 0, src, "--produce-to", dst, "--from", b.Resume, "--format", "none")
	if !res2.Backfill.Complete || res2.Records+b.Produced != total {
		t.Fatalf("resume: %+v, replayed %d + %d acknowledged before, want %d\n%s", res2.Backfill, res2.Records, b.Produced, total, r2.stderr)
	}
	full, _, _ := replayJSON(t, c, 0, src, "--payload-digest", "--format", "none")
	copied, _, _ := replayJSON(t, c, 0, dst, "--payload-digest", "--format", "none")
	if full.Records != total || copied.Records != total || copied.PayloadDigest != full.PayloadDigest {
		t.Fatalf("after resume: target %d records %s, source %d records %s", copied.Records, copied.PayloadDigest, full.Records, full.PayloadDigest)
	}
}

// TestBackfillRespectsTargetMaxMessageBytes copies to a topic whose
// max.message.bytes is far below the producer's default batch size: the
// batches are sized to the topic, so no MESSAGE_TOO_LARGE.
func TestBackfillRespectsTargetMaxMessageBytes(t *testing.T) {
	c := testkit.New(t)
	src := backfillSource(t, c, 2000)
	dst := smallBatchTarget(c)
	res, _, r := replayJSON(t, c, 0, src, "--produce-to", dst, "--format", "none")
	if b := res.Backfill; b == nil || !b.Complete || b.Produced != 3*2000+5 || b.Produced != res.Records {
		t.Fatalf("backfill %+v, stderr %s", b, r.stderr)
	}
	got, _, _ := replayJSON(t, c, 0, dst, "--payload-digest", "--format", "none")
	if got.Records != res.Records || got.PayloadDigest != res.PayloadDigest {
		t.Fatalf("target %d records %s, source %d records %s", got.Records, got.PayloadDigest, res.Records, res.PayloadDigest)
	}
}

// backfillWait polls cond until it holds, failing the test after a
// minute (a bound, not a timing assertion).
func backfillWait(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("still waiting for %s after a minute", what)
		}
		time.Sleep(50 * time.Millisecond)
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
	// Small batches: the one request let through cannot carry the copy.
	dst := smallBatchTarget(c)
	var (
		mu       sync.Mutex
		passed   bool
		accepted int64
	)
	c.Fake.ControlKey(kmsg.Produce.Int16(), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.Fake.KeepControl()
		pr := req.(*kmsg.ProduceRequest)
		if !producesTo(pr, dst) {
			return nil, nil, false
		}
		mu.Lock()
		defer mu.Unlock()
		if !passed {
			passed = true
			accepted = produceRecordCount(t, pr)
			return nil, nil, false
		}
		return nil, nil, true // swallowed: the broker never answers
	})
	res, _, r := replayJSON(t, c, 1, src, "--produce-to", dst, "--format", "none", "--timeout", "2s")
	mu.Lock()
	acc := accepted
	mu.Unlock()
	t.Logf("stalled backfill (%d records let through): %s", acc, r.stderr)
	b := res.Backfill
	if b == nil || b.Complete || b.Resume == "" || b.Produced > acc || b.Produced >= res.Records ||
		!strings.Contains(r.stderr, "no acknowledgement from the target for 2s") || !strings.Contains(r.stderr, "resume with --from "+b.Resume) {
		t.Fatalf("stalled backfill: %+v (%d records let through)\n%s", b, acc, r.stderr)
	}
	mid, _, _ := replayJSON(t, c, 0, dst, "--format", "none")
	for _, bp := range b.Partitions {
		if got := replayPart(t, mid, bp.Partition).Records; bp.ResumeFrom != bp.Copied || got != bp.Copied {
			t.Fatalf("partition %+v: target has %d; resume must follow the acknowledged prefix", bp, got)
		}
	}
}

// selfAddresses are other spellings of c's brokers: every broker's
// advertised address (another broker of the same cluster) and localhost
// for 127.0.0.1.
func selfAddresses(t *testing.T, c *testkit.Cluster) []string {
	t.Helper()
	seen := map[string]bool{c.BrokerList(): true}
	var out []string
	add := func(a string) {
		if !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	for _, b := range c.Brokers {
		add(strings.Replace(b, "127.0.0.1:", "localhost:", 1))
	}
	md, err := c.Admin().BrokerMetadata(testkit.Ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range md.Brokers {
		add(fmt.Sprintf("%s:%d", b.Host, b.Port))
	}
	if len(out) == 0 {
		t.Fatalf("no other address for %v", c.Brokers)
	}
	return out
}

// TestBackfillRefusesTheSameTopicOnTheSameCluster: --target-brokers that
// names the source cluster through another address (another broker,
// localhost for 127.0.0.1) is recognised by cluster id: exit 2, nothing
// copied, also with --follow (which would copy its own copies forever).
// The same topic name on another cluster is a normal backfill.
func TestBackfillRefusesTheSameTopicOnTheSameCluster(t *testing.T) {
	c := testkit.New(t)
	src := backfillSource(t, c, 10)
	for _, addr := range selfAddresses(t, c) {
		for _, follow := range []bool{false, true} {
			args := []string{"replay", src, "--produce-to", src, "--target-brokers", addr, "--format", "none", "-q"}
			if follow {
				args = append(args, "--follow")
			}
			r := mustRun(t, c, 2, args...)
			if !strings.HasPrefix(r.stderr, "offsetctl: --produce-to "+src+" --target-brokers "+addr+": that is the topic being replayed, on the same cluster (cluster id ") ||
				strings.Count(r.stderr, "\n") != 1 || r.stdout != "" {
				t.Fatalf("%v: stdout %q stderr %q", args, r.stdout, r.stderr)
			}
		}
	}
	if res, _, _ := replayJSON(t, c, 0, src, "--format", "none", "--no-verify"); res.Records != 35 {
		t.Fatalf("the source holds %d records after refused self-copies, want 35", res.Records)
	}

	// Another cluster (kfake, whose cluster id is "kfake" like the test
	// cluster's when that is kfake too: the topic ids differ) with a
	// topic of the same name: copied.
	other, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(3, src))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	target := strings.Join(other.ListenAddrs(), ",")
	res, _, r := replayJSON(t, c, 0, src, "--produce-to", src, "--target-brokers", target, "--format", "none")
	if b := res.Backfill; b == nil || !b.Complete || b.Produced != 35 {
		t.Fatalf("copy to the same name on another cluster: %+v\n%s", b, r.stderr)
	}
	copied := mustRun(t, nil, 0, "replay", src, "-b", target, "--format", "none", "--payload-digest", "--no-verify", "-o", "json", "-q")
	var got replay.Result
	decodeJSON(t, copied, &got)
	if got.Records != 35 || got.PayloadDigest != res.PayloadDigest {
		t.Fatalf("other cluster holds %d records (%s), want 35 (%s)", got.Records, got.PayloadDigest, res.PayloadDigest)
	}
	if again, _, _ := replayJSON(t, c, 0, src, "--format", "none", "--no-verify"); again.Records != 35 {
		t.Fatalf("the source holds %d records, want 35", again.Records)
	}
}

// TestBackfillFollowInterruptFlushesCopies: Ctrl-C (the context ends)
// while records still arrive on the source and copies are in flight. The
// follow stops consuming, waits for the copies in flight, and ends
// normally (exit 0) with a complete backfill: the target holds exactly
// the replayed records (count and payload digest re-read from it).
func TestBackfillFollowInterruptFlushesCopies(t *testing.T) {
	c := testkit.New(t)
	src := c.Topic(3, nil)
	dst := c.Topic(3, nil)
	// A producer keeps filling the source until the replay has returned.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var produced atomic.Int64
	wg.Add(1)
	go func() {
		defer wg.Done()
		cl := c.Client(kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.ProducerLinger(time.Millisecond))
		defer cl.Close()
		ctx := testkit.Ctx(t)
		for i := 0; ; i++ {
			select {
			case <-stop:
				_ = cl.Flush(ctx)
				return
			default:
			}
			var batch []*kgo.Record
			for j := 0; j < 300; j++ {
				batch = append(batch, &kgo.Record{Topic: src, Partition: int32(j % 3), Key: []byte(fmt.Sprintf("k%d-%d", i, j)), Value: bytes.Repeat([]byte("v"), 50)})
			}
			if err := cl.ProduceSync(ctx, batch...).FirstErr(); err != nil {
				t.Errorf("producing to the source: %v", err)
				return
			}
			produced.Add(int64(len(batch)))
		}
	}()
	defer func() { close(stop); wg.Wait() }()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan result, 1)
	go func() {
		done <- offsetctlCtx(ctx, t, c, "replay", src, "--follow", "--produce-to", dst, "--format", "none", "-o", "json", "-q")
	}()
	// Cancel once copies have landed and the source is still growing.
	backfillWait(t, "copies in the target", func() bool {
		ends, err := c.Admin().ListEndOffsets(testkit.Ctx(t), dst)
		if err != nil {
			return false
		}
		var n int64
		ends.Each(func(o kadm.ListedOffset) { n += o.Offset })
		return n >= 5000
	})
	before := produced.Load()
	backfillWait(t, "the source to keep growing", func() bool { return produced.Load() > before })
	cancel()
	var r result
	select {
	case r = <-done:
	case <-time.After(time.Minute):
		t.Fatal("the following backfill did not stop after the context ended")
	}
	if r.code != 0 {
		t.Fatalf("interrupted follow backfill: exit %d\nstderr: %s", r.code, r.stderr)
	}
	var res replay.Result
	decodeJSON(t, r, &res)
	b := res.Backfill
	if res.Stopped != replay.StoppedInterrupted || b == nil || !b.Complete || b.Produced != res.Records || res.Records < 5000 || b.Error != "" {
		t.Fatalf("result: stopped %s, records %d, backfill %+v", res.Stopped, res.Records, b)
	}
	got, _, _ := replayJSON(t, c, 0, dst, "--payload-digest", "--format", "none", "--no-verify")
	if got.Records != res.Records || got.PayloadDigest != res.PayloadDigest {
		t.Fatalf("target holds %d records (%s), the summary says %d replayed and copied (%s)", got.Records, got.PayloadDigest, res.Records, res.PayloadDigest)
	}
	t.Logf("interrupted after %d records copied; %d produced to the source so far", res.Records, produced.Load())
}

// saslTarget is a kfake cluster of its own (cluster id "target") that
// takes SASL PLAIN from alice/pw-alice and bob/pw-bob, with a 3-partition
// topic, and records every SASLAuthenticate payload it receives.
func saslTarget(t *testing.T, topic string) (*kfake.Cluster, func() []string) {
	t.Helper()
	k, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.ClusterID("target"), kfake.EnableSASL(),
		kfake.Superuser("PLAIN", "alice", "pw-alice"), kfake.Superuser("PLAIN", "bob", "pw-bob"), kfake.SeedTopics(3, topic))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(k.Close)
	var mu sync.Mutex
	var auths []string
	k.ControlKey(kmsg.SASLAuthenticate.Int16(), func(req kmsg.Request) (kmsg.Response, error, bool) {
		k.KeepControl()
		mu.Lock()
		auths = append(auths, string(req.(*kmsg.SASLAuthenticateRequest).SASLAuthBytes))
		mu.Unlock()
		return nil, nil, false
	})
	return k, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), auths...)
	}
}

// countOn replays topic on the cluster at brokers (with extra connection
// flags) and returns its record count and payload digest.
func countOn(t *testing.T, topic, brokers string, extra ...string) replay.Result {
	t.Helper()
	args := append([]string{"replay", topic, "-b", brokers, "--format", "none", "--payload-digest", "--no-verify", "-o", "json", "-q"}, extra...)
	var res replay.Result
	decodeJSON(t, mustRun(t, nil, 0, args...), &res)
	return res
}

// TestBackfillTargetOwnCredentials: --target-command-config and
// --target-profile give the target cluster its own TLS/SASL settings (here
// SASL PLAIN as bob); the source (the test cluster: kfake or the real
// broker, plaintext) keeps its own. The copy lands in the target.
func TestBackfillTargetOwnCredentials(t *testing.T) {
	c := testkit.New(t)
	src := backfillSource(t, c, 10)
	dst := testkit.Name(t, "dst")
	target, auths := saslTarget(t, dst)
	addr := strings.Join(target.ListenAddrs(), ",")
	dir := t.TempDir()
	props := filepath.Join(dir, "target.properties")
	if err := os.WriteFile(props, []byte("bootstrap.servers="+addr+"\nsecurity.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n"+
		"sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"bob\" password=\"pw-bob\";\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	bobPW := filepath.Join(dir, "bob.pw")
	if err := os.WriteFile(bobPW, []byte("pw-bob\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	res, _, r := replayJSON(t, c, 0, src, "--produce-to", dst, "--target-command-config", props, "--format", "none")
	if b := res.Backfill; b == nil || !b.Complete || b.Produced != 35 || strings.Contains(r.stderr, "is another cluster") {
		t.Fatalf("backfill with --target-command-config: %+v\nstderr: %s", b, r.stderr)
	}
	bobFile := filepath.Join(dir, "bob.properties")
	if err := os.WriteFile(bobFile, []byte("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n"+
		"sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"bob\" password=\"pw-bob\";\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := countOn(t, dst, addr, "--command-config", bobFile); got.Records != 35 || got.PayloadDigest != res.PayloadDigest {
		t.Fatalf("target holds %d records (%s), want 35 (%s)", got.Records, got.PayloadDigest, res.PayloadDigest)
	}

	// --target-profile, with --target-brokers above the profile's brokers
	// (the profile gives only credentials).
	cfgFile := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(cfgFile, []byte("profiles:\n  target:\n    sasl: {mechanism: plain, user: bob, password_file: "+bobPW+"}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	a := &app{stdout: &out, stderr: &errb, stdin: strings.NewReader(""), now: time.Now, getenv: testEnv(t, func(k string) string {
		if k == cluster.EnvConfig {
			return cfgFile
		}
		return ""
	})}
	code := a.execute(testkit.Ctx(t), []string{"--brokers", c.BrokerList(), "replay", src, "--produce-to", dst, "--target-brokers", addr, "--target-profile", "target", "--format", "none", "-o", "json", "-q"})
	var res2 replay.Result
	if code != 0 || strings.Contains(errb.String(), "is another cluster") {
		t.Fatalf("backfill with --target-profile: exit %d\n%s", code, errb.String())
	}
	decodeJSON(t, result{stdout: out.String()}, &res2)
	if b := res2.Backfill; b == nil || !b.Complete || b.Produced != 35 {
		t.Fatalf("backfill with --target-profile: %+v", b)
	}
	if got := countOn(t, dst, addr, "--command-config", bobFile); got.Records != 70 {
		t.Fatalf("target holds %d records after two copies, want 70", got.Records)
	}
	for _, p := range auths() {
		if !strings.Contains(p, "\x00bob\x00pw-bob") {
			t.Fatalf("the target received authentication %q, want bob's only", p)
		}
	}
	if len(auths()) == 0 {
		t.Fatal("the target saw no authentication")
	}

	// Bad target settings are bad input naming the target flag.
	r = mustRun(t, c, 2, "replay", src, "--produce-to", dst, "--target-command-config", filepath.Join(dir, "missing.properties"), "--format", "none", "-q")
	if !strings.HasPrefix(r.stderr, "offsetctl: target cluster: --target-command-config: ") {
		t.Fatalf("stderr: %q", r.stderr)
	}
	badInput(t, c, "--target-profile needs --produce-to", "replay", src, "--target-profile", "target", "--format", "none", "-q")
}

// TestBackfillWarnsWhenSourceCredentialsGoToTarget: a SASL source and
// --target-brokers naming another cluster with neither target flag: the
// source's settings are used for the target (it accepts them here) and a
// one-line warning says the source's credentials are sent to it. With
// --target-command-config, no warning and the source's password never
// reaches the target. (Two kfake clusters: the source needs SASL.)
func TestBackfillWarnsWhenSourceCredentialsGoToTarget(t *testing.T) {
	srcCluster, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.ClusterID("source"), kfake.EnableSASL(),
		kfake.Superuser("PLAIN", "alice", "pw-alice"), kfake.SeedTopics(1, "src"))
	if err != nil {
		t.Fatal(err)
	}
	defer srcCluster.Close()
	target, auths := saslTarget(t, "dst")
	dir := t.TempDir()
	alicePW := filepath.Join(dir, "alice.pw")
	if err := os.WriteFile(alicePW, []byte("pw-alice\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	srcAddr, addr := strings.Join(srcCluster.ListenAddrs(), ","), strings.Join(target.ListenAddrs(), ",")
	srcFlags := []string{"-b", srcAddr, "--sasl-mechanism", "PLAIN", "--sasl-user", "alice", "--sasl-password-file", alicePW}
	cl, err := kgo.NewClient(kgo.SeedBrokers(srcCluster.ListenAddrs()...), kgo.SASL(plain.Auth{User: "alice", Pass: "pw-alice"}.AsMechanism()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	for i := 0; i < 5; i++ {
		if err := cl.ProduceSync(testkit.Ctx(t), &kgo.Record{Topic: "src", Value: []byte(fmt.Sprint(i))}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}

	r := mustRun(t, nil, 0, append([]string{"replay", "src", "--produce-to", "dst", "--target-brokers", addr, "--format", "none", "-q"}, srcFlags...)...)
	want := "offsetctl: warning: --target-brokers " + addr + " is another cluster and neither --target-command-config nor --target-profile was given: the source cluster's SASL PLAIN credentials are sent to it; give the target its own settings with one of them\n"
	// (kfake speaks SASL PLAIN without TLS: the clear-text warning too.)
	if strings.Count(r.stderr, want) != 1 || strings.Count(r.stderr, "is another cluster") != 1 || !strings.Contains(r.stdout, "produced 5, complete") {
		t.Fatalf("stdout %s\nstderr %q, want it to hold %q once", r.stdout, r.stderr, want)
	}
	if got := auths(); len(got) == 0 || !strings.Contains(got[0], "\x00alice\x00pw-alice") {
		t.Fatalf("the target received %q, want alice's (source) credentials", got)
	}
	n := len(auths())

	props := filepath.Join(dir, "target.properties")
	if err := os.WriteFile(props, []byte("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n"+
		"sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"bob\" password=\"pw-bob\";\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r = mustRun(t, nil, 0, append([]string{"replay", "src", "--produce-to", "dst", "--target-brokers", addr, "--target-command-config", props, "--format", "none", "-q"}, srcFlags...)...)
	if strings.Contains(r.stderr, "is another cluster") || !strings.Contains(r.stdout, "produced 5, complete") {
		t.Fatalf("stdout %s\nstderr %s", r.stdout, r.stderr)
	}
	for _, p := range auths()[n:] {
		if strings.Contains(p, "pw-alice") || !strings.Contains(p, "\x00bob\x00pw-bob") {
			t.Fatalf("with --target-command-config the target received %q", p)
		}
	}
	if len(auths()) == n {
		t.Fatal("the target saw no authentication as bob")
	}
}

// A backfill wrote every copied record to stdout too (the default
// --format jsonl): a terminal filled up, and `| head` stopped the copy with
// exit 1. Without --format or --out it now writes none (stdout holds the
// summary); --format jsonl still asks for them.
func TestBackfillWritesNoRecordsByDefault(t *testing.T) {
	c := testkit.New(t)
	src := backfillSource(t, c, 50)
	dst := c.Topic(3, nil)
	r := mustRun(t, c, 0, "replay", src, "--produce-to", dst, "-o", "json", "-q")
	var res replay.Result
	decodeJSON(t, r, &res)
	if res.Backfill == nil || !res.Backfill.Complete || res.Backfill.Produced != 155 || res.Records != 155 {
		t.Fatalf("backfill summary on stdout: %+v", res)
	}
	dst2 := c.Topic(3, nil)
	r = mustRun(t, c, 0, "replay", src, "--produce-to", dst2, "--format", "jsonl", "-o", "json", "-q")
	if n := strings.Count(r.stdout, "\n"); n != 155 || !strings.Contains(r.stderr, `"produced": 155`) {
		t.Fatalf("--format jsonl: %d stdout lines, want 155 records; stderr:\n%s", n, r.stderr)
	}
}
