package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/offsetctl/offsetctl/internal/testkit"
	"github.com/offsetctl/offsetctl/replay"
)

// bigTopic makes a topic of 3 partitions × n records of size bytes in
// uncompressed batches of at most 32 KiB, so a replay with a small --fetch-max-bytes
// needs many fetches (a fetch returns whole batches).
func bigTopic(t *testing.T, c *testkit.Cluster, n, size int) string {
	t.Helper()
	topic := c.Topic(3, nil)
	val := strings.Repeat("x", size)
	var recs []*kgo.Record
	for p := int32(0); p < 3; p++ {
		for i := 0; i < n; i++ {
			recs = append(recs, &kgo.Record{Topic: topic, Partition: p, Key: []byte(fmt.Sprintf("k-%d-%d", p, i)), Value: []byte(val)})
		}
	}
	cl := c.Client(kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.ProducerBatchMaxBytes(32<<10), kgo.ProducerBatchCompression(kgo.NoCompression()))
	if err := cl.ProduceSync(testkit.Ctx(t), recs...).FirstErr(); err != nil {
		t.Fatalf("producing to %s: %v", topic, err)
	}
	return topic
}

// stalledReplay checks the result of a replay whose cluster stopped
// answering: exit 1, one line naming the topic and the brokers, a summary
// that stopped on an error before the end with a resume point.
func stalledReplay(t *testing.T, r result, topic string, total int64) replay.Result {
	t.Helper()
	if r.code != 1 {
		t.Fatalf("replay with the cluster gone: exit %d, want 1\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "topic "+topic+": no records for") || !strings.Contains(r.stderr, "does not answer") {
		t.Fatalf("stderr does not say the cluster stopped answering:\n%s", r.stderr)
	}
	var res replay.Result
	decodeJSON(t, r, &res)
	if res.Stopped != replay.StoppedError || res.ResumeFrom == "" || res.Records <= 0 || res.Records >= total {
		t.Fatalf("summary: stopped %q, resume %q, %d of %d records; want an error stop mid-way with a resume point",
			res.Stopped, res.ResumeFrom, res.Records, total)
	}
	return res
}

// A replay whose cluster freezes mid-way (every request left unanswered,
// like a SIGSTOPped broker) stops after --timeout without records and a
// --timeout without an answer to ListOffsets, instead of waiting forever in
// the fetch loop: exit 1 and a resume point that continues exactly where
// it stopped. A backfill from the frozen cluster to a healthy one stops
// the same way, with one resume point (its acknowledged copies) in the
// summary, the JSON and the error, and the resume completes the copy.
func TestReplayStopsWhenClusterFreezes(t *testing.T) {
	if testkit.Real() {
		t.Skip("freezes an in-process cluster; TestFaultReplayFrozenBroker does it to Apache Kafka")
	}
	for _, backfill := range []bool{false, true} {
		t.Run(fmt.Sprintf("backfill=%v", backfill), func(t *testing.T) {
			c := testkit.New(t)
			const n, size = 3000, 400
			topic := bigTopic(t, c, n, size)
			var target *testkit.Cluster
			var dst string
			args := []string{"replay", topic, "--format", "none", "-q", "-o", "json", "--no-verify", "--fetch-max-bytes", "64KiB"}
			if backfill {
				target = testkit.New(t)
				dst = target.Topic(3, nil)
				args = append(args, "--produce-to", dst, "--target-brokers", target.BrokerList())
			}
			var fetches atomic.Int32
			release := make(chan struct{})
			var once sync.Once
			// Registered after testkit.New: runs before the cluster closes.
			t.Cleanup(func() { once.Do(func() { close(release) }) })
			c.Fake.Control(func(req kmsg.Request) (kmsg.Response, error, bool) {
				c.Fake.KeepControl()
				if req.Key() == kmsg.Fetch.Int16() {
					fetches.Add(1)
				}
				if fetches.Load() > 5 {
					<-release // from the sixth fetch on, the source cluster stops answering
				}
				return nil, nil, false
			})
			done := make(chan result, 1)
			go func() { done <- offsetctl(t, c, append(args, "--timeout", "2s")...) }()
			var r result
			select {
			case r = <-done:
			case <-time.After(90 * time.Second):
				t.Fatal("the replay still waits 90s after its cluster froze")
			}
			once.Do(func() { close(release) })
			res := stalledReplay(t, r, topic, 3*n)
			if backfill {
				b := res.Backfill
				if b == nil || b.Produced <= 0 || b.Produced != res.Records || b.Resume != res.ResumeFrom {
					t.Fatalf("backfill summary: %+v; replay resume %q: want every replayed record copied and one resume point", b, res.ResumeFrom)
				}
				if !strings.Contains(r.stderr, "resume with --from "+res.ResumeFrom+";") && !strings.HasSuffix(strings.TrimSpace(r.stderr), "resume with --from "+res.ResumeFrom) {
					t.Errorf("stderr names another resume point than %s:\n%s", res.ResumeFrom, r.stderr)
				}
			}
			r = offsetctl(t, c, append(args, "--from", res.ResumeFrom)...)
			if r.code != 0 {
				t.Fatalf("resume: exit %d\n%s", r.code, r.stderr)
			}
			var rest replay.Result
			decodeJSON(t, r, &rest)
			if res.Records+rest.Records != 3*n {
				t.Fatalf("stopped after %d records, the resume read %d: want %d in all", res.Records, rest.Records, 3*n)
			}
			if backfill {
				// The copy is whole: the target holds every source record
				// once (same count and payload digest as the source).
				var src, cp replay.Result
				decodeJSON(t, mustRun(t, c, 0, "replay", topic, "--format", "none", "-q", "-o", "json", "--no-verify", "--payload-digest"), &src)
				decodeJSON(t, mustRun(t, target, 0, "replay", dst, "--format", "none", "-q", "-o", "json", "--no-verify", "--payload-digest"), &cp)
				if cp.Records != 3*n || cp.PayloadDigest != src.PayloadDigest {
					t.Fatalf("after the resume the copy has %d records (digest %s); the source %d (%s)", cp.Records, cp.PayloadDigest, src.Records, src.PayloadDigest)
				}
			}
		})
	}
}

// A following replay on a quiet topic with a healthy cluster is not
// stalled: no records for several --timeout periods, then new records,
// and it ends normally at --until.
func TestReplayFollowQuietTopicIsNotAStall(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(1, nil)
	c.Produce(topic, map[int32]int{0: 5}, time.Time{})
	var probes atomic.Int32
	if c.Fake != nil {
		// Count the stall checks: ListOffsets after the replay started
		// fetching (the plan's own listings come before any fetch).
		var fetching atomic.Bool
		c.Fake.Control(func(req kmsg.Request) (kmsg.Response, error, bool) {
			c.Fake.KeepControl()
			switch req.Key() {
			case kmsg.Fetch.Int16():
				fetching.Store(true)
			case kmsg.ListOffsets.Int16():
				if fetching.Load() {
					probes.Add(1)
				}
			}
			return nil, nil, false
		})
	}
	done := make(chan result, 1)
	go func() {
		done <- offsetctl(t, c, "replay", topic, "--follow", "--until", "8", "--format", "none", "-q", "-o", "json", "--no-verify", "--timeout", "2s")
	}()
	// Quiet for at least two stall periods; on kfake, until two checks
	// have found the cluster answering.
	time.Sleep(5 * time.Second)
	if c.Fake != nil {
		waitFor(t, "two stall checks", func() bool { return probes.Load() >= 2 })
	}
	var recs []*kgo.Record
	for i := 5; i < 8; i++ {
		recs = append(recs, &kgo.Record{Topic: topic, Partition: 0, Value: []byte(fmt.Sprint(i))})
	}
	c.ProduceRecords(recs...)
	var r result
	select {
	case r = <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("the following replay did not end at --until")
	}
	if r.code != 0 {
		t.Fatalf("quiet follow: exit %d\n%s", r.code, r.stderr)
	}
	var res replay.Result
	decodeJSON(t, r, &res)
	if res.Records != 8 || res.Stopped != replay.StoppedEnd {
		t.Fatalf("quiet follow: %d records, stopped %q; want 8, end", res.Records, res.Stopped)
	}
}

// TestFaultReplayFrozenBroker: Apache Kafka is frozen with SIGSTOP in the
// middle of a replay. The replay stops with exit 1 and a resume point
// rather than waiting for the broker forever; after SIGCONT the resume
// reads exactly the rest.
func TestFaultReplayFrozenBroker(t *testing.T) {
	b := needSecureBroker(t)
	const n, size = 20000, 200
	topic := bigTopic(t, b.c, n, size)
	// The records go to a named pipe that this test reads: the replay
	// cannot run ahead of the reader, so the broker freezes with most of
	// the topic still unread, however fast the machine.
	out := filepath.Join(t.TempDir(), "out.fifo")
	if err := syscall.Mkfifo(out, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan result, 1)
	go func() {
		done <- offsetctlEnv(t, nil, "replay", topic, "--out", out, "-q", "-o", "json", "--timeout", "3s", "--fetch-max-bytes", "64KiB", "-b", b.plaintext)
	}()
	// Opening a named pipe waits for its writer: open it aside, so a
	// replay that fails before opening --out fails the test instead of
	// hanging it.
	opened := make(chan *os.File, 1)
	go func() {
		if f, err := os.Open(out); err == nil {
			opened <- f
		}
	}()
	var fifo *os.File
	select {
	case fifo = <-opened:
	case r := <-done:
		t.Fatalf("the replay ended before writing: exit %d\n%s", r.code, r.stderr)
	case <-time.After(2 * time.Minute):
		t.Fatal("the replay did not open its output")
	}
	defer fifo.Close()
	if _, err := io.ReadFull(fifo, make([]byte, 1024)); err != nil {
		t.Fatalf("reading the replay's first records: %v", err)
	}
	secureScript(t, b, "freeze")
	go func() { _, _ = io.Copy(io.Discard, fifo) }() // now let it drain what it has
	thawed := false
	thaw := func() {
		if !thawed {
			thawed = true
			secureScript(t, b, "thaw")
		}
	}
	t.Cleanup(thaw)
	var r result
	select {
	case r = <-done:
	case <-time.After(2 * time.Minute):
		thaw()
		t.Fatal("the replay still waits 2 minutes after the broker froze")
	}
	thaw()
	res := stalledReplay(t, r, topic, 3*n)
	r = mustRunEnv(t, nil, 0, "replay", topic, "--from", res.ResumeFrom, "--format", "none", "-q", "-o", "json", "--no-verify", "-b", b.plaintext)
	var rest replay.Result
	decodeJSON(t, r, &rest)
	if res.Records+rest.Records != 3*n {
		t.Fatalf("stopped after %d records, the resume read %d: want %d in all", res.Records, rest.Records, 3*n)
	}
}

// freezeLeaderOf makes the broker leading topic's partition p stop
// answering (each of its requests sleeps until the test ends) once the
// first Fetch reaches the cluster, i.e. after the replay has planned.
func freezeLeaderOf(t *testing.T, c *testkit.Cluster, topic string, p int32) {
	t.Helper()
	node := c.Fake.LeaderFor(topic, p)
	release := make(chan struct{})
	var once sync.Once
	t.Cleanup(func() { once.Do(func() { close(release) }) })
	var frozen atomic.Bool
	c.Fake.Control(func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.Fake.KeepControl()
		if req.Key() == kmsg.Fetch.Int16() {
			frozen.Store(true)
		}
		if frozen.Load() && c.Fake.CurrentNode() == node {
			c.Fake.SleepControl(func() { <-release })
		}
		return nil, nil, false
	})
}

// A following replay whose partition 1 leader freezes stops naming that
// partition (every broker is asked for the leaders, so the frozen one
// cannot hide them); one that does not read partition 1 is not stopped by
// it.
func TestReplayStallNamesTheSilentLeaders(t *testing.T) {
	if testkit.Real() {
		t.Skip("freezes one broker of an in-process cluster")
	}
	cluster := func() (*testkit.Cluster, string) {
		c := testkit.New(t)
		topic := c.Topic(3, nil)
		for p := int32(0); p < 3; p++ {
			if err := c.Fake.MoveTopicPartition(topic, p, p); err != nil {
				t.Fatal(err)
			}
		}
		c.Produce(topic, map[int32]int{0: 5, 1: 5, 2: 5}, time.Time{})
		freezeLeaderOf(t, c, topic, 1)
		return c, topic
	}
	c, topic := cluster()
	r := offsetctl(t, c, "replay", topic, "--follow", "--format", "none", "-q", "-o", "json", "--no-verify", "--timeout", "1s")
	if r.code != 1 || !strings.Contains(r.stderr, "does not answer for partition(s) 1 (") {
		t.Fatalf("exit %d, stderr %q; want 1 and partition 1 named", r.code, r.stderr)
	}

	// Tailing partition 0 only: the probes ask partition 0's leader, which
	// answers, so several quiet periods pass and only the interrupt ends
	// the tail (exit 0, as a Ctrl-C of --follow does).
	c, topic = cluster()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(3500*time.Millisecond, cancel)
	r = offsetctlCtx(ctx, t, c, "replay", topic, "--partitions", "0", "--follow", "--format", "none", "-q", "-o", "json", "--no-verify", "--timeout", "1s")
	if r.code != 0 {
		t.Fatalf("--partitions 0 with partition 1's leader frozen: exit %d, stderr %q", r.code, r.stderr)
	}
	var res replay.Result
	decodeJSON(t, r, &res)
	if res.Records != 5 || res.Stopped != replay.StoppedInterrupted {
		t.Fatalf("--partitions 0: %d records, stopped %q; want 5, interrupted", res.Records, res.Stopped)
	}
}
