package cli

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/offsetctl/offsetctl/internal/testkit"
	"github.com/offsetctl/offsetctl/replay"
)

// moreLine is the stderr line of a completed checkpointed run that counts
// the records others wrote to the target while it copied.
var moreLine = regexp.MustCompile(`(\d+) more record\(s\) in \S+ may be duplicates: .*; (\d+) possible duplicate\(s\) in all`)

// TestBackfillCheckpointLateRecords (the CI failure of
// TestBackfillCheckpointKillNine on Apache Kafka: a killed run's last
// produce requests were written by the broker after the resumed run had
// listed the target's end offsets, and no count covered them). Records
// are written to the target after a checkpointed run lists the target's
// ends and before its first copy lands, as a killed run's late copies are
// (kfake holds the run's first Produce while another client writes 11).
// "complete": the run completes and counts them on a second line, JSON
// and audit included. "resumed": the run then fails on a later Produce;
// its checkpoint keeps them (others_below) and the resume counts them.
// Either way the target holds the source once plus exactly the possible
// duplicates reported.
func TestBackfillCheckpointLateRecords(t *testing.T) {
	for _, failing := range []bool{false, true} {
		t.Run(map[bool]string{false: "complete", true: "resumed"}[failing], func(t *testing.T) { lateRecords(t, failing) })
	}
}

func lateRecords(t *testing.T, failing bool) {
	c := testkit.New(t, kfake.NumBrokers(1))
	if c.Fake == nil {
		t.Skip("writing between the run's ListOffsets and its first copy needs kfake's ControlKey (the kill -9 tests cover Apache Kafka)")
	}
	// The source in batches of 16 KiB, so that its partitions are read
	// a part at a time.
	src, dst := c.Topic(3, nil), c.Topic(3, nil)
	var recs []*kgo.Record
	for p := int32(0); p < 3; p++ {
		for i := 0; i < 2000; i++ {
			recs = append(recs, &kgo.Record{Topic: src, Partition: p, Key: []byte(fmt.Sprintf("k-%d-%d", p, i)), Value: []byte(strings.Repeat("v", 80))})
		}
	}
	if err := c.Client(kgo.ProducerBatchMaxBytes(16<<10), kgo.RecordPartitioner(kgo.ManualPartitioner())).ProduceSync(t.Context(), recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	want, _, _ := replayJSON(t, c, 0, src, "--payload-digest", "--format", "none", "--no-verify")
	var late []*kgo.Record
	for i, p := range []int32{1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2} {
		late = append(late, &kgo.Record{Topic: dst, Partition: p, Value: []byte(fmt.Sprintf("late-%d", i)),
			Headers: []kgo.RecordHeader{{Key: replay.SourceHeader, Value: []byte(fmt.Sprintf("%s/%d/%d", src, p, 100000+i))}}})
	}
	dstID := topicID(t, c, dst)
	// One broker: the run's produce requests are answered in order.
	var injecting, injected atomic.Bool
	c.Fake.ControlKey(int16(kmsg.Produce), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.Fake.KeepControl()
		pr := req.(*kmsg.ProduceRequest)
		if len(pr.Topics) == 0 || pr.Topics[0].Topic != dst && pr.Topics[0].TopicID != dstID || injecting.Load() {
			return nil, nil, false
		}
		if injected.CompareAndSwap(false, true) {
			// The run's first copies wait for the late records.
			injecting.Store(true)
			c.Fake.SleepControl(func() { c.ProduceRecords(late...) })
			injecting.Store(false)
			return nil, nil, false
		}
		return nil, nil, false
	})
	// "resumed": the source read fails (OFFSET_OUT_OF_RANGE, as when
	// retention deleted under the reader) once the partitions still read
	// are past offset 500, and the run fails with every copy it handed
	// over answered.
	srcID := topicID(t, c, src)
	var reading atomic.Bool
	reading.Store(failing)
	fetched := map[int32]bool{} // src's partitions asked for so far
	c.Fake.ControlKey(int16(kmsg.Fetch), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.Fake.KeepControl()
		fr := req.(*kmsg.FetchRequest)
		if !reading.Load() {
			return nil, nil, false
		}
		// A partition the run has read to its end leaves its requests,
		// sooner or later as the scheduling goes (under load, before the
		// second request: a condition on all three partitions' offsets
		// then never held and the run completed). So the run fails at the
		// first request, after all three were fetched, in which every
		// partition still asked for is past offset 500.
		lowest := int64(math.MaxInt64) // none of src's partitions asked for
		for _, rt := range fr.Topics {
			if rt.Topic == src || rt.TopicID == srcID {
				for _, rp := range rt.Partitions {
					fetched[rp.Partition] = true
					lowest = min(lowest, rp.FetchOffset)
				}
			}
		}
		if len(fetched) < 3 || lowest < 500 || lowest == math.MaxInt64 {
			return nil, nil, false
		}
		resp := outOfRange(fr)
		return resp, nil, true
	})
	ckpt := filepath.Join(t.TempDir(), "bf.ckpt")
	args := []string{src, "--produce-to", dst, "--source-header", "--checkpoint", ckpt, "--format", "none", "--fetch-max-bytes", "64KiB"}
	var dups int64
	if failing {
		res, _, r := replayJSON(t, c, 1, args...)
		if res.Backfill == nil || res.Backfill.Complete || res.Backfill.Checkpoint == nil || res.Backfill.Checkpoint.PossibleDuplicates != 0 || moreLine.MatchString(r.stderr) {
			t.Fatalf("the failing run: %+v\n%s", res.Backfill, r.stderr)
		}
		reading.Store(false)
		data, err := os.ReadFile(ckpt)
		if err != nil || !strings.Contains(string(data), `"others_below": 11`) {
			t.Fatalf("the failed run's checkpoint does not count the 11 late records:\n%s", data)
		}
	}
	res, _, r := replayJSON(t, c, 0, args...)
	ck := res.Backfill.Checkpoint
	if !res.Backfill.Complete || ck == nil || !ck.Complete || ck.Resumed != failing {
		t.Fatalf("the last run: %+v %+v\n%s", res.Backfill, ck, r.stderr)
	}
	dups = ck.PossibleDuplicates
	if m := resumeLine.FindStringSubmatch(r.stderr); failing {
		n, _ := strconv.ParseInt(m[1], 10, 64)
		if m == nil || n != dups || n < 11 || moreLine.MatchString(r.stderr) {
			t.Fatalf("the resume counts %v, the JSON %d (want the same, with the 11 late records):\n%s", m, dups, r.stderr)
		}
	} else if m := moreLine.FindStringSubmatch(r.stderr); m == nil || m[1] != "11" || m[2] != "11" || dups != 11 {
		t.Fatalf("the completed run reports %d possible duplicates, line %v; want 11 on a line of its own:\n%s", dups, m, r.stderr)
	}
	_, total, distinct := dedupCopy(t, c, src, dst)
	t.Logf("source %d records; target %d, %d possible duplicates reported, %d distinct", want.Records, total, dups, distinct)
	if int64(distinct) != want.Records+int64(len(late)) || total-dups != want.Records {
		t.Fatalf("target %d records (%d distinct, %d of them late) - %d possible duplicates: want the source's %d", total, distinct, len(late), dups, want.Records)
	}
}

// td2 is the id of topic.
func topicID(t *testing.T, c *testkit.Cluster, topic string) [16]byte {
	t.Helper()
	td, err := kadm.NewClient(c.Client()).ListTopics(t.Context(), topic)
	if err != nil || td[topic].Err != nil {
		t.Fatalf("topic %s: %v %v", topic, err, td[topic].Err)
	}
	return td[topic].ID
}

// outOfRange answers every partition of fr with OFFSET_OUT_OF_RANGE, as
// when retention deleted the segment under the reader.
func outOfRange(fr *kmsg.FetchRequest) *kmsg.FetchResponse {
	resp := fr.ResponseKind().(*kmsg.FetchResponse)
	for _, rt := range fr.Topics {
		st := kmsg.NewFetchResponseTopic()
		st.Topic, st.TopicID = rt.Topic, rt.TopicID
		for _, rp := range rt.Partitions {
			sp := kmsg.NewFetchResponseTopicPartition()
			sp.Partition, sp.ErrorCode = rp.Partition, kerr.OffsetOutOfRange.Code
			sp.HighWatermark, sp.LastStableOffset, sp.LogStartOffset = -1, -1, -1
			st.Partitions = append(st.Partitions, sp)
		}
		resp.Topics = append(resp.Topics, st)
	}
	return resp
}
