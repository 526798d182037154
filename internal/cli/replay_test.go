package cli

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/offsetctl/offsetctl/internal/exitcode"
	"github.com/offsetctl/offsetctl/internal/testkit"
	"github.com/offsetctl/offsetctl/replay"
)

// replayJSON runs `replay ARGS -o json --out FILE` and returns the decoded
// summary and the lines written to FILE.
func replayJSON(t *testing.T, c *testkit.Cluster, wantCode int, args ...string) (replay.Result, []string, result) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "records.out")
	full := append([]string{"replay"}, args...)
	full = append(full, "-o", "json", "--out", out, "-q")
	r := mustRun(t, c, wantCode, full...)
	var res replay.Result
	if strings.TrimSpace(r.stdout) != "" {
		decodeJSON(t, r, &res)
	}
	data, err := os.ReadFile(out)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return res, lines, r
}

func replayParseLines(t *testing.T, lines []string) []replay.Line {
	t.Helper()
	out := make([]replay.Line, 0, len(lines))
	for _, l := range lines {
		pl, err := replay.ParseLine([]byte(l))
		if err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		out = append(out, pl)
	}
	return out
}

func replayPart(t *testing.T, res replay.Result, p int32) replay.PartitionResult {
	t.Helper()
	for _, pr := range res.Partitions {
		if pr.Partition == p {
			return pr
		}
	}
	t.Fatalf("no partition %d in result %+v", p, res.Partitions)
	return replay.PartitionResult{}
}

// replayForbiddenKeys are the requests a group-less replay must never send.
var replayForbiddenKeys = map[int16]string{
	kmsg.OffsetCommit.Int16():           "OffsetCommit",
	kmsg.TxnOffsetCommit.Int16():        "TxnOffsetCommit",
	kmsg.JoinGroup.Int16():              "JoinGroup",
	kmsg.SyncGroup.Int16():              "SyncGroup",
	kmsg.Heartbeat.Int16():              "Heartbeat",
	kmsg.LeaveGroup.Int16():             "LeaveGroup",
	kmsg.ConsumerGroupHeartbeat.Int16(): "ConsumerGroupHeartbeat",
}

// replayReqCounter counts requests per key on kfake, except those of the
// group named allowed (a live group consuming at the same time).
type replayReqCounter struct {
	mu     sync.Mutex
	counts map[string]int
}

func replayCountGroupRequests(c *testkit.Cluster, allowed string) *replayReqCounter {
	rc := &replayReqCounter{counts: map[string]int{}}
	for key, name := range replayForbiddenKeys {
		c.Fake.ControlKey(key, func(req kmsg.Request) (kmsg.Response, error, bool) {
			c.Fake.KeepControl()
			if allowed == "" || replayRequestGroup(req) != allowed {
				rc.mu.Lock()
				rc.counts[name]++
				rc.mu.Unlock()
			}
			return nil, nil, false
		})
	}
	return rc
}

func replayRequestGroup(req kmsg.Request) string {
	switch r := req.(type) {
	case *kmsg.OffsetCommitRequest:
		return r.Group
	case *kmsg.TxnOffsetCommitRequest:
		return r.Group
	case *kmsg.JoinGroupRequest:
		return r.Group
	case *kmsg.SyncGroupRequest:
		return r.Group
	case *kmsg.HeartbeatRequest:
		return r.Group
	case *kmsg.LeaveGroupRequest:
		return r.Group
	case *kmsg.ConsumerGroupHeartbeatRequest:
		return r.Group
	}
	return ""
}

func (rc *replayReqCounter) snapshot() map[string]int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	out := map[string]int{}
	for k, v := range rc.counts {
		out[k] = v
	}
	return out
}

// replayWaitCommitted waits until group's commits on topic equal want.
func replayWaitCommitted(t *testing.T, c *testkit.Cluster, group, topic string, want map[int32]int64) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		got := c.Committed(group)[topic]
		ok := len(got) == len(want)
		for p, o := range want {
			if got[p] != o {
				ok = false
			}
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("group %s commits on %s = %v, want %v", group, topic, got, want)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestReplayNoGroupRequestsAndProof(t *testing.T) {
	for _, live := range []bool{false, true} {
		t.Run(fmt.Sprintf("live-group=%v", live), func(t *testing.T) {
			c := testkit.New(t)
			topic := c.Topic(3, nil)
			c.Produce(topic, map[int32]int{0: 40, 1: 30, 2: 20}, time.Time{})
			idle := testkit.Name(t, "g-idle")
			c.Commit(idle, topic, map[int32]int64{0: 10, 1: 30, 2: 0})
			liveGroup := ""
			if live {
				// A live group consuming the same topic, caught up so its
				// commits are stable, stays connected during the replay.
				liveGroup = testkit.Name(t, "g-live")
				c.Consumer(liveGroup, topic, false, kgo.AutoCommitInterval(100*time.Millisecond))
				replayWaitCommitted(t, c, liveGroup, topic, map[int32]int64{0: 40, 1: 30, 2: 20})
			}
			var rc *replayReqCounter
			if c.Fake != nil {
				rc = replayCountGroupRequests(c, liveGroup)
			}
			before := c.Committed(idle)
			res, lines, _ := replayJSON(t, c, 0, topic)
			if rc != nil {
				if got := rc.snapshot(); len(got) != 0 {
					t.Fatalf("the replay sent group requests: %v", got)
				}
			}
			if res.Records != 90 || len(lines) != 90 {
				t.Fatalf("records = %d, lines = %d, want 90", res.Records, len(lines))
			}
			for p, n := range map[int32]int64{0: 40, 1: 30, 2: 20} {
				pr := replayPart(t, res, p)
				if pr.From != 0 || pr.To != n || pr.Records != n || pr.FirstTs == nil || pr.LastTs == nil {
					t.Errorf("partition %d: %+v, want 0..%d with %d records", p, pr, n, n)
				}
			}
			v := res.Verification
			wantGroups := 1
			if live {
				wantGroups = 2
			}
			if !v.Unchanged || v.GroupsChecked != wantGroups || len(v.Changes) != 0 || len(v.Rows) != 3*wantGroups {
				t.Fatalf("verification = %+v, want %d groups unchanged with %d rows", v, wantGroups, 3*wantGroups)
			}
			for _, row := range v.Rows {
				if row.Status != replay.StatusUnchanged || row.Before == nil || row.After == nil || *row.Before != *row.After {
					t.Errorf("proof row %+v", row)
				}
			}
			// Re-read the broker: the idle group's commits are what they were.
			if after := c.Committed(idle); fmt.Sprint(after) != fmt.Sprint(before) {
				t.Fatalf("idle group commits moved: %v -> %v", before, after)
			}
		})
	}
}

func TestReplayProofReportsLiveGroupMoves(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(1, nil)
	c.Produce(topic, map[int32]int{0: 10}, time.Time{})
	live := testkit.Name(t, "g-live")
	c.Consumer(live, topic, false, kgo.AutoCommitInterval(100*time.Millisecond))
	replayWaitCommitted(t, c, live, topic, map[int32]int64{0: 10})

	ctx := testkit.Ctx(t)
	var once sync.Once
	opts := replay.Options{Topic: topic, Format: replay.None, Progress: func(p replay.Progress) {
		if !p.Done {
			return
		}
		once.Do(func() {
			// While the replay runs, the live group consumes 5 new
			// records and commits.
			c.Produce(topic, map[int32]int{0: 5}, time.Time{})
			replayWaitCommitted(t, c, live, topic, map[int32]int64{0: 15})
		})
	}}
	res, err := replay.Run(ctx, c.Cfg, opts)
	if err != nil {
		t.Fatalf("replay: %v", err)
	}
	v := res.Verification
	if v.Unchanged || len(v.Changes) != 1 || len(v.Failed()) != 0 {
		t.Fatalf("verification = %+v, want one change by the live group", v)
	}
	ch := v.Changes[0]
	if ch.Group != live || ch.Status != replay.StatusMovedByConsumers || *ch.Before != 10 || *ch.After != 15 || ch.Members < 1 {
		t.Fatalf("change = %+v", ch)
	}
}

func TestReplayProofFailsOnIdleGroupChange(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(2, nil)
	c.Produce(topic, map[int32]int{0: 5, 1: 5}, time.Time{})
	idle := testkit.Name(t, "g-idle")
	c.Commit(idle, topic, map[int32]int64{0: 1, 1: 2})
	var once sync.Once
	opts := replay.Options{Topic: topic, Format: replay.None, Progress: func(p replay.Progress) {
		if p.Done {
			// Someone else moves an idle group's offset during the replay.
			once.Do(func() { c.Commit(idle, topic, map[int32]int64{1: 4}) })
		}
	}}
	res, err := replay.Run(testkit.Ctx(t), c.Cfg, opts)
	if exitcode.Code(err) != exitcode.Unverified {
		t.Fatalf("err = %v (exit %d), want exit 3", err, exitcode.Code(err))
	}
	if !strings.Contains(err.Error(), "group "+idle) || !strings.Contains(err.Error(), "partition 1: 2 -> 4") {
		t.Fatalf("error does not name the change: %v", err)
	}
	if res == nil || res.Records != 10 || len(res.Verification.Failed()) != 1 || res.Verification.Failed()[0].Status != replay.StatusChanged {
		t.Fatalf("result = %+v", res)
	}
}

func TestReplayStartOffsets(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(2, nil)
	c.Produce(topic, map[int32]int{0: 20, 1: 10}, time.Time{})
	c.DeleteRecords(topic, 0, 5)

	// earliest is the log start.
	res, lines, _ := replayJSON(t, c, 0, topic)
	if pr := replayPart(t, res, 0); pr.From != 5 || pr.To != 20 || pr.Records != 15 || len(lines) != 25 {
		t.Fatalf("earliest: %+v, %d lines", pr, len(lines))
	}
	// Below the log start, past the end: exit 2 naming partition and range.
	r := mustRun(t, c, 2, "replay", topic, "--from", "0=3,1=0", "-q")
	if !strings.Contains(r.stderr, "partition 0: start offset 3 is outside the log: valid start offsets are 5..20") {
		t.Fatalf("below log start: %s", r.stderr)
	}
	r = mustRun(t, c, 2, "replay", topic, "--from", "11", "--partitions", "1", "-q")
	if !strings.Contains(r.stderr, "partition 1: start offset 11 is outside the log: valid start offsets are 0..10") || r.stdout != "" {
		t.Fatalf("past the end: stdout %q stderr %s", r.stdout, r.stderr)
	}
	// At the end: nothing to read, finishes at once.
	res, lines, _ = replayJSON(t, c, 0, topic, "--from", "0=20,1=10")
	if res.Records != 0 || len(lines) != 0 || replayPart(t, res, 0).To != 20 || replayPart(t, res, 1).To != 10 {
		t.Fatalf("at end: %+v", res)
	}
	// Per partition.
	res, lines, _ = replayJSON(t, c, 0, topic, "--from", "0=18,1=7")
	got := replayParseLines(t, lines)
	if res.Records != 5 || len(got) != 5 {
		t.Fatalf("per partition: %d records", res.Records)
	}
	for _, l := range got {
		if (l.Partition == 0 && l.Offset < 18) || (l.Partition == 1 && l.Offset < 7) {
			t.Fatalf("record before its start: %+v", l)
		}
		if want := fmt.Sprintf("v-%d-%d", l.Partition, l.Offset); string(l.Value) != want {
			t.Fatalf("value %q at %d/%d, want %q", l.Value, l.Partition, l.Offset, want)
		}
	}
	// Unknown partition, conflicting selections.
	badInput(t, c, "topic "+topic+" has no partition 9 (it has partitions 0..1)", "replay", topic, "--partitions", "9", "-q")
	badInput(t, c, "the partitions of --partitions (0) and of --from (1) differ", "replay", topic, "--partitions", "0", "--from", "1=3", "-q")
	// Empty lists are mistakes, not "all": one line, exit 2.
	for _, args := range [][]string{{"--partitions", ""}, {"--verify-groups", ""}, {"--verify-groups", "a,"}} {
		r := mustRun(t, c, 2, append([]string{"replay", topic, "-q"}, args...)...)
		if !strings.Contains(r.stderr, "empty") || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 || r.stdout != "" {
			t.Errorf("%v: stderr %q stdout %q", args, r.stderr, r.stdout)
		}
	}
}

func TestReplayUntilMaxAndTime(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(2, nil)
	base := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
	c.Produce(topic, map[int32]int{0: 30, 1: 30}, base) // record i stamped base+i ms

	res, lines, _ := replayJSON(t, c, 0, topic, "--until", "10")
	if res.Records != 20 || len(lines) != 20 || replayPart(t, res, 0).To != 10 || replayPart(t, res, 1).To != 10 {
		t.Fatalf("--until 10: %+v", res)
	}
	for _, l := range replayParseLines(t, lines) {
		if l.Offset >= 10 {
			t.Fatalf("--until 10 gave offset %d", l.Offset)
		}
	}
	badInput(t, c, "partition 0: --until 10 is before the start offset 12", "replay", topic, "--from", "12", "--until", "10", "-q")

	res, lines, _ = replayJSON(t, c, 0, topic, "--partitions", "1", "--from", "3", "--max", "7")
	if pr := replayPart(t, res, 1); res.Records != 7 || len(lines) != 7 || pr.From != 3 || pr.To != 10 || res.Stopped != replay.StoppedMax || res.ResumeFrom != "1=10" {
		t.Fatalf("--max 7: %+v", res)
	}

	from := base.Add(5 * time.Millisecond).Format(time.RFC3339Nano)
	until := base.Add(25 * time.Millisecond).Format(time.RFC3339Nano)
	res, lines, _ = replayJSON(t, c, 0, topic, "--from", "time:"+from, "--until", "time:"+until)
	if res.Records != 40 || len(lines) != 40 {
		t.Fatalf("time range: %d records, want 40", res.Records)
	}
	for _, l := range replayParseLines(t, lines) {
		if l.Offset < 5 || l.Offset >= 25 || l.Timestamp != base.UnixMilli()+l.Offset {
			t.Fatalf("time range gave %+v", l)
		}
	}
}

func TestReplayFollowStopsWithContext(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(1, nil)
	c.Produce(topic, map[int32]int{0: 3}, time.Time{})
	out := filepath.Join(t.TempDir(), "follow.jsonl")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan result, 1)
	go func() { done <- offsetctlCtx(ctx, t, c, "replay", topic, "--follow", "--out", out, "-o", "json", "-q") }()
	waitLines := func(n int) {
		deadline := time.Now().Add(30 * time.Second)
		for {
			data, _ := os.ReadFile(out)
			if bytes.Count(data, []byte("\n")) >= n {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("follow: %d lines after 30s, want %d", bytes.Count(data, []byte("\n")), n)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	waitLines(3)
	c.Produce(topic, map[int32]int{0: 4}, time.Time{}) // offsets 3..6
	waitLines(7)
	cancel()
	var r result
	select {
	case r = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("follow did not stop after the context ended")
	}
	if r.code != 0 {
		t.Fatalf("follow exit %d: %s", r.code, r.stderr)
	}
	var res replay.Result
	decodeJSON(t, r, &res)
	if res.Records != 7 || res.Stopped != replay.StoppedInterrupted || replayPart(t, res, 0).To != 7 || replayPart(t, res, 0).Bound != -1 || res.ResumeFrom != "0=7" {
		t.Fatalf("follow result %+v", res)
	}
}

// replayProduceTxn produces recs in one transaction, committed or aborted.
func replayProduceTxn(t *testing.T, c *testkit.Cluster, commit bool, recs ...*kgo.Record) {
	t.Helper()
	c.BeginTxn(recs...)(commit)
}

func TestReplayTransactionalTopic(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(2, nil)
	mk := func(p int32, vals ...string) []*kgo.Record {
		var rs []*kgo.Record
		for _, v := range vals {
			rs = append(rs, &kgo.Record{Topic: topic, Partition: p, Value: []byte(v)})
		}
		return rs
	}
	// Partition 0: committed, aborted, committed — ends with a commit
	// marker. Partition 1: committed then aborted — ends with an abort
	// marker after aborted records.
	replayProduceTxn(t, c, true, append(mk(0, "c1", "c2"), mk(1, "c3")...)...)
	replayProduceTxn(t, c, false, append(mk(0, "a1", "a2", "a3"), mk(1, "a4", "a5")...)...)
	replayProduceTxn(t, c, true, mk(0, "c4")...)

	ends := map[int32]int64{}
	lo, err := c.Admin().ListEndOffsets(testkit.Ctx(t), topic)
	if err != nil {
		t.Fatal(err)
	}
	lo.Each(func(o kadm.ListedOffset) { ends[o.Partition] = o.Offset })
	for _, tc := range []struct {
		iso  string
		want map[int32][]string
	}{
		{"committed", map[int32][]string{0: {"c1", "c2", "c4"}, 1: {"c3"}}},
		{"uncommitted", map[int32][]string{0: {"c1", "c2", "a1", "a2", "a3", "c4"}, 1: {"c3", "a4", "a5"}}},
	} {
		res, lines, _ := replayJSON(t, c, 0, topic, "--isolation", tc.iso)
		got := map[int32][]string{}
		for _, l := range replayParseLines(t, lines) {
			got[l.Partition] = append(got[l.Partition], string(l.Value))
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Fatalf("%s: records %v, want %v", tc.iso, got, tc.want)
		}
		for p, end := range ends {
			if pr := replayPart(t, res, p); pr.To != end {
				t.Fatalf("%s: partition %d to %d, want the log end %d (markers included)", tc.iso, p, pr.To, end)
			}
		}
	}
}

func TestReplayCompactedTopic(t *testing.T) {
	c := testkit.New(t)
	cfg := map[string]*string{"cleanup.policy": replayStrPtr("compact")}
	if testkit.Real() {
		cfg["segment.ms"] = replayStrPtr("100")
		cfg["min.cleanable.dirty.ratio"] = replayStrPtr("0.01")
		cfg["delete.retention.ms"] = replayStrPtr("100")
		cfg["min.compaction.lag.ms"] = replayStrPtr("0")
	}
	topic := c.Topic(1, cfg)
	// A unique key at offset 0 (it survives, so gaps open after it), then
	// three rounds over keys k0..k4, one produce (batch) per record.
	c.ProduceRecords(&kgo.Record{Topic: topic, Key: []byte("unique"), Value: []byte("u")})
	for round := 0; round < 3; round++ {
		for k := 0; k < 5; k++ {
			c.ProduceRecords(&kgo.Record{Topic: topic, Key: []byte(fmt.Sprintf("k%d", k)), Value: []byte(fmt.Sprintf("r%d", round))})
		}
	}
	if c.Fake != nil {
		c.Fake.Compact()
	}
	res, lines, _ := replayJSON(t, c, 0, topic)
	recs := replayParseLines(t, lines)
	if replayPart(t, res, 0).To != 16 {
		t.Fatalf("to = %d, want the log end 16", replayPart(t, res, 0).To)
	}
	last := map[string]string{}
	prev := int64(-1)
	for _, l := range recs {
		if l.Offset <= prev {
			t.Fatalf("offsets not increasing: %d after %d", l.Offset, prev)
		}
		prev = l.Offset
		last[string(l.Key)] = string(l.Value)
	}
	for k := 0; k < 5; k++ {
		if last[fmt.Sprintf("k%d", k)] != "r2" {
			t.Fatalf("key k%d: last value %q, want r2", k, last[fmt.Sprintf("k%d", k)])
		}
	}
	if c.Fake != nil {
		// kfake compacted the closed batches: gaps in the offsets.
		if len(recs) >= 16 || recs[0].Offset != 0 || recs[1].Offset == 1 {
			t.Fatalf("compacted: %d records, offsets %d, %d: want gaps after 0", len(recs), recs[0].Offset, recs[1].Offset)
		}
		// From inside a gap starts at the next surviving record; the
		// bound holds whatever survives before it.
		want := 0
		for _, l := range recs {
			if l.Offset == 3 {
				t.Fatal("offset 3 survived compaction: the gap test needs it gone")
			}
			if l.Offset >= 3 && l.Offset < 12 {
				want++
			}
		}
		res, lines, _ = replayJSON(t, c, 0, topic, "--from", "3", "--until", "12")
		if len(lines) != want || replayPart(t, res, 0).To != 12 {
			t.Fatalf("from a gap: %d lines (want %d), %+v", len(lines), want, res.Partitions)
		}
	} else if len(recs) > 16 || len(recs) < 6 {
		// Real compaction runs when the cleaner gets to it: only
		// bounds hold.
		t.Fatalf("%d records", len(recs))
	}
}

func replayStrPtr(s string) *string { return &s }

func TestReplayEmptyPartitions(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(3, nil)
	c.Produce(topic, map[int32]int{1: 4}, time.Time{})
	res, lines, _ := replayJSON(t, c, 0, topic)
	if res.Records != 4 || len(lines) != 4 {
		t.Fatalf("%d records", res.Records)
	}
	for _, p := range []int32{0, 2} {
		if pr := replayPart(t, res, p); pr.From != 0 || pr.To != 0 || pr.Records != 0 || pr.FirstTs != nil {
			t.Fatalf("empty partition %d: %+v", p, pr)
		}
	}
	empty := c.Topic(2, nil)
	res, lines, _ = replayJSON(t, c, 0, empty)
	if res.Records != 0 || len(lines) != 0 || res.Digest != hex.EncodeToString(replaySHA256(nil)) {
		t.Fatalf("empty topic: %+v", res)
	}
}

func replaySHA256(b []byte) []byte { s := sha256.Sum256(b); return s[:] }

// replayBinaryRecords are awkward records: invalid UTF-8, nulls, empties, JSON
// specials, binary headers.
func replayBinaryRecords(topic string) []*kgo.Record {
	return []*kgo.Record{
		{Topic: topic, Key: []byte{0xff, 0x00, 0xfe}, Value: []byte{0x80, 0x81, 0x00, '\n'}},
		{Topic: topic, Key: nil, Value: []byte("plain")},
		{Topic: topic, Key: []byte{}, Value: []byte{}},
		{Topic: topic, Key: []byte("k\"\\\n\t\x01é€😀"), Value: nil},
		{Topic: topic, Key: []byte("h"), Value: []byte(`{"json":true}`), Headers: []kgo.RecordHeader{
			{Key: "bin", Value: []byte{0xc3, 0x28}}, {Key: "null", Value: nil}, {Key: "empty", Value: []byte{}}, {Key: "t", Value: []byte("text")},
		}},
	}
}

func TestReplayBinaryRoundTripsThroughJSONL(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(1, nil)
	recs := replayBinaryRecords(topic)
	c.ProduceRecords(recs...)
	res, lines, _ := replayJSON(t, c, 0, topic)
	got := replayParseLines(t, lines)
	if len(got) != len(recs) || res.Records != int64(len(recs)) {
		t.Fatalf("%d lines, want %d", len(got), len(recs))
	}
	for i, l := range got {
		w := recs[i]
		if !replaySameBytes(l.Key, w.Key) || !replaySameBytes(l.Value, w.Value) || len(l.Headers) != len(w.Headers) || l.Topic != topic || l.Offset != int64(i) {
			t.Fatalf("record %d: got %+v, want key %q value %q", i, l, w.Key, w.Value)
		}
		for j, h := range l.Headers {
			if h.Key != w.Headers[j].Key || !replaySameBytes(h.Value, w.Headers[j].Value) {
				t.Fatalf("record %d header %d: %+v, want %+v", i, j, h, w.Headers[j])
			}
		}
	}
	if !strings.Contains(lines[0], `"key_encoding":"base64"`) || !strings.Contains(lines[1], `"key":null`) || strings.Contains(lines[1], "base64") {
		t.Fatalf("encodings: %s / %s", lines[0], lines[1])
	}
	// The digest follows the documented framing: recompute it from the
	// decoded lines.
	if want := replayDigestOf(got); res.Digest != want || res.DigestVersion != replay.DigestVersion || replay.DigestVersion != 1 {
		t.Fatalf("digest %s version %d, recomputed from the lines %s (v1)", res.Digest, res.DigestVersion, want)
	}
}

// replaySameBytes compares with nil and empty distinct.
func replaySameBytes(a, b []byte) bool {
	return (a == nil) == (b == nil) && bytes.Equal(a, b)
}

// replayDigestOf is an independent implementation of the documented audit
// digest (docs/replay.md, replay/digest.go).
func replayDigestOf(lines []replay.Line) string {
	byPart := map[int32][]replay.Line{}
	for _, l := range lines {
		byPart[l.Partition] = append(byPart[l.Partition], l)
	}
	parts := make([]int, 0, len(byPart))
	for p := range byPart {
		parts = append(parts, int(p))
	}
	sort.Ints(parts)
	be := binary.BigEndian
	lenOrNull := func(b []byte, v []byte) []byte {
		if v == nil {
			return be.AppendUint32(b, 0xffffffff)
		}
		return append(be.AppendUint32(b, uint32(len(v))), v...)
	}
	outer := sha256.New()
	for _, p := range parts {
		ls := byPart[int32(p)]
		sort.Slice(ls, func(i, j int) bool { return ls[i].Offset < ls[j].Offset })
		h := sha256.New()
		for _, l := range ls {
			var b []byte
			b = be.AppendUint32(b, uint32(l.Partition))
			b = be.AppendUint64(b, uint64(l.Offset))
			b = be.AppendUint64(b, uint64(l.Timestamp))
			b = lenOrNull(b, l.Key)
			b = lenOrNull(b, l.Value)
			b = be.AppendUint32(b, uint32(len(l.Headers)))
			for _, hd := range l.Headers {
				b = lenOrNull(b, []byte(hd.Key))
				b = lenOrNull(b, hd.Value)
			}
			h.Write(b)
		}
		var f []byte
		f = be.AppendUint32(f, uint32(p))
		f = be.AppendUint64(f, uint64(len(ls)))
		outer.Write(h.Sum(f))
	}
	return hex.EncodeToString(outer.Sum(nil))
}

func TestReplayDigestStableAndSensitive(t *testing.T) {
	c := testkit.New(t)
	ts := time.Now().Add(-time.Minute).Truncate(time.Millisecond)
	mk := func(topic string, flip bool) []*kgo.Record {
		var rs []*kgo.Record
		for i := 0; i < 30; i++ {
			v := []byte("value-" + strconv.Itoa(i))
			if flip && i == 17 {
				v[0] ^= 1
			}
			rs = append(rs, &kgo.Record{Topic: topic, Partition: int32(i % 3), Key: []byte("k" + strconv.Itoa(i)), Value: v, Timestamp: ts.Add(time.Duration(i) * time.Millisecond)})
		}
		return rs
	}
	a, b, d := c.Topic(3, nil), c.Topic(3, nil), c.Topic(3, nil)
	c.ProduceRecords(mk(a, false)...)
	c.ProduceRecords(mk(b, false)...)
	c.ProduceRecords(mk(d, true)...)
	r1, _, _ := replayJSON(t, c, 0, a)
	r2, _, _ := replayJSON(t, c, 0, a, "--format", "raw")
	rb, _, _ := replayJSON(t, c, 0, b)
	rd, _, _ := replayJSON(t, c, 0, d)
	if len(r1.Digest) != 64 || r1.Digest != r2.Digest || r1.Digest != rb.Digest {
		t.Fatalf("digests of identical data differ: %s %s %s", r1.Digest, r2.Digest, rb.Digest)
	}
	if rd.Digest == r1.Digest {
		t.Fatalf("one flipped bit did not change the digest %s", rd.Digest)
	}
}

func TestReplayOffsetOutOfRangeDuringReplay(t *testing.T) {
	c := testkit.New(t)
	if c.Fake == nil {
		t.Skip("injecting OFFSET_OUT_OF_RANGE needs kfake's ControlKey")
	}
	topic := c.Topic(1, nil)
	c.Produce(topic, map[int32]int{0: 50}, time.Time{})
	// Every fetch answers OFFSET_OUT_OF_RANGE, as when retention deleted
	// the segment under the reader.
	c.Fake.ControlKey(kmsg.Fetch.Int16(), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.Fake.KeepControl()
		return outOfRange(req.(*kmsg.FetchRequest)), nil, true
	})
	r := mustRun(t, c, 1, "replay", topic, "--from", "10", "--out", filepath.Join(t.TempDir(), "x"), "-q")
	if !strings.Contains(r.stderr, "partition 0: offset 10 is out of range (OFFSET_OUT_OF_RANGE)") {
		t.Fatalf("stderr: %s", r.stderr)
	}
}

func TestReplayRecordsDeletedUnderTheReplay(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(1, nil)
	// Many small batches, so that the replay needs many fetches.
	cl := c.Client(kgo.RecordPartitioner(kgo.ManualPartitioner()))
	for chunk := 0; chunk < 50; chunk++ {
		recs := make([]*kgo.Record, 400)
		for i := range recs {
			recs[i] = &kgo.Record{Topic: topic, Value: []byte(strings.Repeat("x", 100))}
		}
		if err := cl.ProduceSync(testkit.Ctx(t), recs...).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	var once sync.Once
	opts := replay.Options{Topic: topic, Format: replay.None, NoVerify: true, FetchMaxBytes: 16 << 10, ProgressEvery: time.Nanosecond,
		Progress: func(p replay.Progress) {
			if p.Records > 0 && !p.Done {
				// Retention (here delete-records) removes everything
				// under the reader after its first fetch.
				once.Do(func() { c.DeleteRecords(topic, 0, 20000) })
			}
		}}
	res, err := replay.Run(testkit.Ctx(t), c.Cfg, opts)
	if err == nil || !strings.Contains(err.Error(), "partition 0: offset ") || !strings.Contains(err.Error(), "OFFSET_OUT_OF_RANGE") {
		t.Fatalf("err = %v, want OFFSET_OUT_OF_RANGE naming partition and offset", err)
	}
	if res == nil || res.Records == 0 || res.Records >= 20000 || res.Stopped != replay.StoppedError {
		t.Fatalf("result %+v", res)
	}
	if pr := replayPart(t, *res, 0); pr.To != pr.Records || !strings.Contains(err.Error(), fmt.Sprintf("offset %d is out of range", pr.To)) {
		t.Fatalf("partition result %+v vs error %v", pr, err)
	}
}

// TestReplayNeedsOneTopic: no TOPIC (or two) is bad usage in the
// product's words, not cobra's "accepts 1 arg(s)".
func TestReplayNeedsOneTopic(t *testing.T) {
	c := testkit.New(t)
	r := mustRun(t, c, 2, "replay")
	if r.stderr != "offsetctl: name the topic to replay: offsetctl replay TOPIC\n" {
		t.Fatalf("stderr: %q", r.stderr)
	}
	r = mustRun(t, c, 2, "replay", "a", "b", "--format", "none")
	if !strings.Contains(r.stderr, "replay takes one topic, got 2 arguments (a b)") {
		t.Fatalf("stderr: %q", r.stderr)
	}
}

// TestReplayUnreachableClusterSaysWhatOthersSay: replay goes through the
// app's shared connection path (a.admin: ping + ExplainConnError), so a
// dead or silent cluster gives the very line lag gives, not "listing
// offsets: unable to dial".
func TestReplayUnreachableClusterSaysWhatOthersSay(t *testing.T) {
	for name, addr := range map[string]string{"closed port": closedPort(t), "never answers": blackhole(t)} {
		t.Run(name, func(t *testing.T) {
			lag := mustRun(t, nil, 1, "lag", "--all-groups", "-b", addr, "--timeout", "2s")
			rep := mustRun(t, nil, 1, "replay", "some-topic", "-q", "-b", addr, "--timeout", "2s")
			if rep.stderr != lag.stderr || !strings.HasPrefix(rep.stderr, "offsetctl: cannot reach cluster at "+addr) &&
				!strings.HasPrefix(rep.stderr, "offsetctl: cluster at "+addr+" did not answer within 2s") {
				t.Fatalf("replay says %q, lag says %q", rep.stderr, lag.stderr)
			}
			if strings.Contains(rep.stderr, "listing offsets") || rep.stdout != "" {
				t.Fatalf("replay: stdout %q stderr %q", rep.stdout, rep.stderr)
			}
		})
	}
}

// TestReplayVerifyGroupsMustHaveCommits: a --verify-groups group that
// does not exist, or has no commits on the topic, is bad input (exit 2,
// one line naming it, nothing read), not a vacuous "unchanged" proof (real
// broker) or a GROUP_ID_NOT_FOUND failure (kfake).
func TestReplayVerifyGroupsMustHaveCommits(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(2, nil)
	other := c.Topic(1, nil)
	c.Produce(topic, map[int32]int{0: 3, 1: 3}, time.Time{})
	c.Produce(other, map[int32]int{0: 3}, time.Time{})
	good := testkit.Name(t, "good")
	elsewhere := testkit.Name(t, "elsewhere") // commits on another topic only
	nobody := testkit.Name(t, "nobody")       // no such group
	c.Commit(good, topic, map[int32]int64{0: 1})
	c.Commit(elsewhere, other, map[int32]int64{0: 2})
	out := filepath.Join(t.TempDir(), "out.jsonl")
	for _, bad := range [][]string{{nobody}, {elsewhere}, {good, nobody}} {
		r := mustRun(t, c, 2, "replay", topic, "--verify-groups", strings.Join(bad, ","), "--out", out, "-q")
		missing := bad[len(bad)-1]
		want := fmt.Sprintf("offsetctl: --verify-groups: group %s has no commits on topic %s (no such group, or it never committed on %s): nothing to compare\n", missing, topic, topic)
		if r.stderr != want || r.stdout != "" {
			t.Fatalf("--verify-groups %v: stdout %q stderr %q, want %q", bad, r.stdout, r.stderr, want)
		}
		if data, err := os.ReadFile(out); err == nil && len(data) > 0 {
			t.Fatalf("--verify-groups %v: records were read: %q", bad, data)
		}
	}
	r := mustRun(t, c, 2, "replay", topic, "--verify-groups", nobody+","+elsewhere, "--format", "none")
	if !strings.Contains(r.stderr, "groups "+elsewhere+", "+nobody+" have no commits on topic "+topic) && !strings.Contains(r.stderr, "groups "+nobody+", "+elsewhere+" have no commits on topic "+topic) {
		t.Fatalf("two missing groups: %q", r.stderr)
	}
	// A group with commits on the topic is proven as before.
	res, _, _ := replayJSON(t, c, 0, topic, "--verify-groups", good)
	if v := res.Verification; res.Records != 6 || v.GroupsChecked != 1 || len(v.Rows) != 1 || v.Rows[0].Group != good || !v.Unchanged {
		t.Fatalf("proof %+v (%d records)", v, res.Records)
	}
}

// TestReplayOutOverwritesAndFormatNoneWritesNothing pins the documented
// --out behaviour: an existing file is replaced (not appended to), and
// --format none neither creates nor touches the file.
func TestReplayOutOverwritesAndFormatNoneWritesNothing(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(1, nil)
	c.Produce(topic, map[int32]int{0: 2}, time.Time{})
	dir := t.TempDir()
	out := filepath.Join(dir, "records.jsonl")
	if err := os.WriteFile(out, []byte("old line 1\nold line 2\nold line 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustRun(t, c, 0, "replay", topic, "--out", out, "-q", "--no-verify")
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte("old line")) || bytes.Count(data, []byte("\n")) != 2 {
		t.Fatalf("--out did not replace the file: %q", data)
	}
	none := filepath.Join(dir, "none.jsonl")
	r := mustRun(t, c, 0, "replay", topic, "--format", "none", "--out", none, "-q", "--no-verify")
	if _, err := os.Stat(none); !os.IsNotExist(err) {
		t.Fatalf("--format none --out created the file (stat: %v)", err)
	}
	if !strings.HasPrefix(r.stdout, "TOPIC "+topic) {
		t.Fatalf("summary not on stdout: %q", r.stdout)
	}
	if err := os.WriteFile(none, []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustRun(t, c, 0, "replay", topic, "--format", "none", "--out", none, "-q", "--no-verify")
	if data, _ := os.ReadFile(none); string(data) != "keep\n" {
		t.Fatalf("--format none touched an existing file: %q", data)
	}
}
