package cli

// Fault tests: unreachable clusters, coordinators moving, a consumer joining
// between a reset's plan and its commit (kfake, every run), and a real
// broker killed with SIGKILL and restarted during lag, replay and backfill
// (the second real broker of scripts/kafka-secure.sh, in make
// test-kafka-secure; skipped otherwise). No test asserts a duration: short
// --timeouts are passed and a generous guard only catches hangs.

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/offsetctl/offsetctl/internal/admin"
	"github.com/offsetctl/offsetctl/internal/testkit"
	"github.com/offsetctl/offsetctl/replay"
)

// closedPort is a loopback address nothing listens on, for the whole
// test: a TCP socket bound to a free port but never listening, so a
// connection to it is refused and no other listener can take the port
// while the test runs. (Listening on :0 and closing it freed the port for
// anyone: a kfake cluster of a test running in parallel could get it, and
// the "unreachable" cluster answered.)
func closedPort(t *testing.T) string {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	syscall.CloseOnExec(fd)
	t.Cleanup(func() { syscall.Close(fd) })
	// No SO_REUSEADDR: nobody else can bind the port while fd holds it.
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(sa.(*syscall.SockaddrInet4).Port))
}

// blackhole is a loopback listener that accepts connections, reads what
// the client sends and never answers.
func blackhole(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			go func() { _, _ = bytes.NewBuffer(nil).ReadFrom(c) }()
		}
	}()
	return ln.Addr().String()
}

func TestFaultUnreachableCluster(t *testing.T) {
	for name, addr := range map[string]string{"closed port": closedPort(t), "never answers": blackhole(t)} {
		for _, cmd := range [][]string{
			{"lag", "--all-groups"},
			{"lag", "some-group", "-o", "json"},
			{"groups"},
			{"reset", "some-group", "--topic", "t", "--to", "earliest"},
			{"reset", "some-group", "--topic", "t", "--to", "earliest", "--execute"},
			{"replay", "some-topic", "-q"},
		} {
			t.Run(name+"/"+strings.Join(cmd, " "), func(t *testing.T) {
				r := guarded(t, nil, append(cmd, "-b", addr, "--timeout", "2s")...)
				if r.code != 1 {
					t.Fatalf("exit %d, want 1\nstderr: %s", r.code, r.stderr)
				}
				assertOneLine(t, r, addr)
				if !strings.Contains(r.stderr, "did not answer within 2s") && !strings.Contains(r.stderr, "cannot reach cluster") &&
					!strings.Contains(r.stderr, "unable to dial") {
					t.Fatalf("the line does not say the cluster is unreachable: %q", r.stderr)
				}
				if r.stdout != "" {
					t.Fatalf("stdout on failure: %q", r.stdout)
				}
			})
		}
	}
}

// kfakeCluster is a fresh kfake cluster whatever KAFKA_BROKERS says.
func kfakeCluster(t *testing.T, opts ...kfake.Opt) *testkit.Cluster {
	t.Helper()
	t.Setenv("KAFKA_BROKERS", "")
	return testkit.New(t, opts...)
}

// TestFaultCoordinatorMovesDuringLag: the first OffsetFetch and
// DescribeGroups of the run are answered NOT_COORDINATOR while every group
// coordinator is rehashed to another broker; lag still answers correctly.
func TestFaultCoordinatorMovesDuringLag(t *testing.T) {
	c := kfakeCluster(t)
	topic := c.Topic(3, nil)
	c.Produce(topic, map[int32]int{0: 10, 1: 10, 2: 10}, time.Time{})
	var groups []string
	for i := 0; i < 6; i++ {
		g := testkit.Name(t, fmt.Sprintf("g%d", i))
		c.Commit(g, topic, map[int32]int64{0: int64(i), 1: 5, 2: 10})
		groups = append(groups, g)
	}
	before := map[string]int32{}
	for _, g := range groups {
		before[g] = c.Fake.CoordinatorFor(g)
	}
	var rehashes atomic.Int32
	moved := func(kmsg.Request) bool {
		// RehashCoordinators only bumps an atomic generation: safe from
		// the cluster goroutine.
		c.Fake.RehashCoordinators()
		rehashes.Add(1)
		return true
	}
	hf := c.Fake.Fault(
		kfake.Fault{Keys: []kmsg.Key{kmsg.OffsetFetch}, Err: kerr.NotCoordinator, Count: 1, When: moved},
		kfake.Fault{Keys: []kmsg.Key{kmsg.DescribeGroups}, Err: kerr.NotCoordinator, Count: 1, When: moved},
	)
	defer hf.Remove()

	r := mustRun(t, c, 0, append(append([]string{"lag", "-o", "json"}, groups...), "--timeout", "20s")...)
	if hf.Hits() < 1 || rehashes.Load() < 1 {
		t.Fatalf("no NOT_COORDINATOR was injected (hits %d)", hf.Hits())
	}
	changed := 0
	for _, g := range groups {
		if c.Fake.CoordinatorFor(g) != before[g] {
			changed++
		}
	}
	if changed == 0 {
		t.Logf("rehash left every coordinator in place (possible by chance); the NOT_COORDINATOR answers were still retried")
	}
	for i, g := range groups {
		got := secLagOf(t, r, g)
		want := map[int32]int64{0: 10 - int64(i), 1: 5, 2: 0}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("group %s lag %v, want %v", g, got, want)
		}
	}
}

// TestFaultConsumerJoinsBetweenPlanAndCommit: the group is empty when the
// reset plans (--non-atomic: plain OffsetCommits; the transactional path
// is TestExecuteResetTxnConsumerJoinedAborts); the reset's admin commit is held at the broker until a
// consumer has joined, then processed. The broker refuses it per
// partition, the command exits 1 naming every partition, nothing moved,
// and the backup restores.
func TestFaultConsumerJoinsBetweenPlanAndCommit(t *testing.T) {
	for _, kip848 := range []bool{false, true} {
		t.Run(map[bool]string{false: "classic", true: "kip848"}[kip848], func(t *testing.T) {
			c := kfakeCluster(t)
			topic := c.Topic(3, nil)
			c.Produce(topic, map[int32]int{0: 10, 1: 10, 2: 10}, time.Time{})
			group := testkit.Name(t, "g")
			before := map[int32]int64{0: 4, 1: 6, 2: 10}
			c.Commit(group, topic, before)

			var held atomic.Bool
			var stopConsumer func()
			joined := make(chan struct{})
			c.Fake.ControlKey(int16(kmsg.OffsetCommit), func(req kmsg.Request) (kmsg.Response, error, bool) {
				r := req.(*kmsg.OffsetCommitRequest)
				if r.Group != group || r.Generation != -1 || !held.CompareAndSwap(false, true) {
					c.Fake.KeepControl()
					return nil, nil, false
				}
				// Hold the reset's commit until a consumer has joined the
				// group: SleepControl runs this in another goroutine while
				// the cluster serves the consumer's own requests.
				c.Fake.SleepControl(func() {
					defer close(joined)
					stopConsumer = c.Consumer(group, topic, kip848, kgo.DisableAutoCommit())
				})
				return nil, nil, false
			})
			dir := t.TempDir()
			backup := filepath.Join(dir, "backup.csv")
			r := guarded(t, nil, "-b", c.BrokerList(), "reset", group, "--topic", topic, "--to", "earliest", "--execute", "--non-atomic", "--backup", backup, "-o", "json", "--timeout", "30s")
			if !held.Load() {
				t.Fatalf("the reset's commit never reached the broker: exit %d\n%s", r.code, r.stderr)
			}
			<-joined
			if r.code != 1 {
				t.Fatalf("exit %d, want 1\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
			}
			t.Logf("reset refused at commit time:\n%s", r.stderr)
			var gp admin.GroupPlan
			decodeJSON(t, r, &gp)
			for _, pp := range gp.Partitions {
				if pp.Error == "" {
					t.Fatalf("partition %d has no error although the commit was refused: %+v", pp.Partition, pp)
				}
			}
			// The error line has the group's partitions that failed the
			// same way as one item (the JSON has each partition's error).
			line := fmt.Sprintf("group %s: 3 partitions (%s/0, %s/1, %s/2): commit: UNKNOWN_MEMBER_ID", group, topic, topic, topic)
			if !strings.Contains(r.stderr, line) {
				t.Fatalf("stderr does not report the three partitions as one item %q:\n%s", line, r.stderr)
			}
			if len(gp.Partitions) != 3 {
				t.Fatalf("plan has %d partitions", len(gp.Partitions))
			}
			if got := c.Committed(group)[topic]; fmt.Sprint(got) != fmt.Sprint(before) {
				t.Fatalf("half-applied: committed %v, want %v untouched", got, before)
			}
			if _, err := os.Stat(backup); err != nil {
				t.Fatalf("no backup written before the commit: %v", err)
			}
			// Once the consumer is gone, the backup restores.
			stopConsumer()
			waitEmpty(t, c, group)
			mustRun(t, c, 0, "reset", group, "--to", "file:"+backup, "--execute", "--backup", filepath.Join(dir, "backup2.csv"))
			if got := c.Committed(group)[topic]; fmt.Sprint(got) != fmt.Sprint(before) {
				t.Fatalf("after restoring the backup: %v, want %v", got, before)
			}
		})
	}
}

// waitEmpty waits until group has no members.
func waitEmpty(t *testing.T, c *testkit.Cluster, group string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		dg, err := c.Admin().DescribeGroups(testkit.Ctx(t), group)
		if err == nil {
			if g, ok := dg[group]; ok && len(g.Members) == 0 {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("group %s still has members after 60s", group)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// ---- the real broker killed with SIGKILL -----------------------------

// secureScript runs scripts/kafka-secure.sh SUBCOMMAND.
func secureScript(t *testing.T, b *secureBroker, sub string) {
	t.Helper()
	if b.script == "" {
		t.Skip("OFFSETCTL_SECURE_SCRIPT not set")
	}
	cmd := exec.Command("bash", b.script, sub)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("kafka-secure.sh %s: %v\n%s", sub, err, out.String())
	}
}

// killAndRestart kills the broker with SIGKILL and starts it again in the
// background; the returned channel closes once it answers again. The
// broker is always left running at the end of the test.
func killAndRestart(t *testing.T, b *secureBroker) <-chan struct{} {
	t.Helper()
	secureScript(t, b, "kill9")
	t.Cleanup(func() { secureScript(t, b, "start-again") })
	up := make(chan struct{})
	go func() {
		defer close(up)
		cmd := exec.Command("bash", b.script, "start-again")
		_ = cmd.Run()
	}()
	return up
}

// TestFaultLagAcrossBrokerKill: with the only broker killed (SIGKILL), lag
// fails at once with one line and exit 1 (franz-go fails fast on a refused
// bootstrap dial); right after the restart, while the group coordinator
// reloads its offsets, lag answers correctly.
func TestFaultLagAcrossBrokerKill(t *testing.T) {
	b := needSecureBroker(t)
	_, group := b.fixture(t)
	secureScript(t, b, "kill9")
	t.Cleanup(func() { secureScript(t, b, "start-again") })
	r := guarded(t, nil, "lag", group, "-b", b.plaintext, "--timeout", "5s")
	if r.code != 1 {
		t.Fatalf("lag with the broker down: exit %d\n%s", r.code, r.stderr)
	}
	assertOneLine(t, r, b.plaintext)
	secureScript(t, b, "start-again")
	r = guarded(t, nil, "lag", group, "-o", "json", "-b", b.plaintext, "--timeout", "50s")
	if r.code != 0 {
		t.Fatalf("lag right after the restart: exit %d: %s", r.code, r.stderr)
	}
	secWantLag(t, secLagOf(t, r, group))
}

// followUntil starts `replay TOPIC --follow --until N` (plus extra args)
// in the background and returns a function that waits for its result.
func followUntil(t *testing.T, brokers, topic string, until int, out string, extra ...string) func() result {
	t.Helper()
	done := make(chan result, 1)
	args := append([]string{"replay", topic, "--follow", "--until", fmt.Sprint(until), "-o", "json", "--out", out, "-q",
		"-b", brokers, "--timeout", "60s"}, extra...)
	go func() { done <- offsetctlEnv(t, nil, args...) }()
	return func() result {
		select {
		case r := <-done:
			return r
		case <-time.After(3 * time.Minute):
			t.Fatalf("replay across a restart has not returned after 3 minutes")
		}
		return result{}
	}
}

func countLines(path string) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		n++
	}
	return n
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestFaultReplayAcrossBrokerRestart: a following replay has read the
// first half of every partition when the broker is killed with SIGKILL and
// restarted; the second half is produced after the restart. The replay
// completes with the same record count and digest as an undisturbed replay
// of the same range.
func TestFaultReplayAcrossBrokerRestart(t *testing.T) {
	b := needSecureBroker(t)
	topic := b.c.Topic(3, nil)
	b.c.Produce(topic, map[int32]int{0: 50, 1: 50, 2: 50}, time.Time{})
	out := filepath.Join(t.TempDir(), "disturbed.jsonl")
	wait := followUntil(t, b.plaintext, topic, 100, out)
	waitFor(t, "the replay to read the first 150 records", func() bool { return countLines(out) >= 150 })
	up := killAndRestart(t, b)
	<-up
	produceSecond(t, b, topic, 50)
	r := wait()
	if r.code != 0 {
		t.Fatalf("replay across the restart: exit %d\n%s", r.code, r.stderr)
	}
	var disturbed replay.Result
	decodeJSON(t, r, &disturbed)

	r = mustRunEnv(t, nil, 0, "replay", topic, "--until", "100", "-o", "json", "--out", filepath.Join(t.TempDir(), "calm.jsonl"), "-q", "-b", b.plaintext)
	var calm replay.Result
	decodeJSON(t, r, &calm)
	if disturbed.Records != 300 || calm.Records != 300 || disturbed.Digest != calm.Digest {
		t.Fatalf("across a restart: %d records, digest %s; undisturbed: %d records, digest %s",
			disturbed.Records, disturbed.Digest, calm.Records, calm.Digest)
	}
}

// produceSecond produces records 50..50+n-1 of every partition (the
// values testkit's Produce would give them).
func produceSecond(t *testing.T, b *secureBroker, topic string, n int) {
	t.Helper()
	produceRest(t, b.c, topic, n)
}

func produceRest(t *testing.T, c *testkit.Cluster, topic string, n int) {
	t.Helper()
	var recs []*kgo.Record
	for p := int32(0); p < 3; p++ {
		for i := 50; i < 50+n; i++ {
			recs = append(recs, &kgo.Record{Topic: topic, Partition: p, Key: []byte(fmt.Sprintf("k-%d-%d", p, i)), Value: []byte(fmt.Sprintf("v-%d-%d", p, i))})
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cl := c.Client(kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatalf("producing the second half: %v", err)
	}
}

// TestFaultBackfillAcrossBrokerRestart: a following backfill has copied
// the first half when the broker is killed with SIGKILL and restarted. It
// either rides through the restart or stops saying where to resume; after
// a resume if needed, the copy is complete: same count and payload digest
// as the source.
func TestFaultBackfillAcrossBrokerRestart(t *testing.T) {
	b := needSecureBroker(t)
	src := b.c.Topic(3, nil)
	dst := b.c.Topic(3, nil)
	b.c.Produce(src, map[int32]int{0: 50, 1: 50, 2: 50}, time.Time{})
	out := filepath.Join(t.TempDir(), "backfill.jsonl")
	wait := followUntil(t, b.plaintext, src, 100, out, "--produce-to", dst, "--format", "none")
	waitFor(t, "the backfill to copy the first 150 records", func() bool { return endSum(t, b, dst) >= 150 })
	up := killAndRestart(t, b)
	<-up
	produceSecond(t, b, src, 50)
	r := wait()
	if r.code != 0 {
		var res replay.Result
		decodeJSON(t, r, &res)
		if res.Backfill == nil || res.Backfill.Resume == "" {
			t.Fatalf("backfill failed without a resume point: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
		}
		t.Logf("backfill stopped at the restart; resuming with --from %s", res.Backfill.Resume)
		mustRunEnv(t, nil, 0, "replay", src, "--from", res.Backfill.Resume, "--until", "100", "--produce-to", dst, "--format", "none", "-q", "-b", b.plaintext)
	}
	if n := endSum(t, b, dst); n != 300 {
		t.Fatalf("the copy holds %d records, want 300", n)
	}
	digest := func(topic string) replay.Result {
		r := mustRunEnv(t, nil, 0, "replay", topic, "--format", "none", "--payload-digest", "-o", "json", "-q", "-b", b.plaintext)
		var res replay.Result
		decodeJSON(t, r, &res)
		return res
	}
	s, d := digest(src), digest(dst)
	if s.Records != 300 || d.Records != 300 || s.PayloadDigest == "" || s.PayloadDigest != d.PayloadDigest {
		t.Fatalf("source %d records payload %s; copy %d records payload %s", s.Records, s.PayloadDigest, d.Records, d.PayloadDigest)
	}
}

// endSum is the sum of topic's end offsets (its record count here).
func endSum(t *testing.T, b *secureBroker, topic string) int64 {
	t.Helper()
	return endSumOf(t, b.c, topic)
}

func endSumOf(t *testing.T, c *testkit.Cluster, topic string) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ends, err := c.Admin().ListEndOffsets(ctx, topic)
	if err != nil {
		return -1
	}
	var n int64
	ends.Each(func(o kadm.ListedOffset) { n += o.Offset })
	return n
}

// TestFaultReplayAndBackfillAcrossLeaderMoves is the kfake stand-in for a
// broker restart: a following replay and a following backfill have read
// the first half of every partition when every partition leader moves to
// another broker; the second half is produced after the move. Both finish
// with the count and digests of an undisturbed run.
func TestFaultReplayAndBackfillAcrossLeaderMoves(t *testing.T) {
	c := kfakeCluster(t)
	src := c.Topic(3, nil)
	dst := c.Topic(3, nil)
	c.Produce(src, map[int32]int{0: 50, 1: 50, 2: 50}, time.Time{})
	dir := t.TempDir()
	out := filepath.Join(dir, "disturbed.jsonl")
	waitReplay := followUntil(t, c.BrokerList(), src, 100, out)
	waitBackfill := followUntil(t, c.BrokerList(), src, 100, filepath.Join(dir, "backfill.out"), "--produce-to", dst, "--format", "none")
	waitFor(t, "the replay and the backfill to reach the first 150 records", func() bool {
		return countLines(out) >= 150 && endSumOf(t, c, dst) >= 150
	})
	for p := int32(0); p < 3; p++ {
		for _, tp := range []string{src, dst} {
			leader := c.Fake.LeaderFor(tp, p)
			if err := c.Fake.MoveTopicPartition(tp, p, (leader+1)%3); err != nil {
				t.Fatalf("moving %s/%d: %v", tp, p, err)
			}
		}
	}
	produceRest(t, c, src, 50)
	moved := map[string]replay.Result{}
	for name, wait := range map[string]func() result{"replay": waitReplay, "backfill": waitBackfill} {
		r := wait()
		if r.code != 0 {
			t.Fatalf("%s across leader moves: exit %d\n%s", name, r.code, r.stderr)
		}
		var res replay.Result
		decodeJSON(t, r, &res)
		if res.Records != 300 {
			t.Fatalf("%s read %d records, want 300", name, res.Records)
		}
		moved[name] = res
	}
	// An undisturbed replay of the same range has the same digest.
	r := mustRun(t, c, 0, "replay", src, "--until", "100", "-o", "json", "--format", "none", "-q", "--payload-digest")
	var calm replay.Result
	decodeJSON(t, r, &calm)
	if calm.Records != 300 || moved["replay"].Digest != calm.Digest || moved["backfill"].Digest != calm.Digest || countLines(out) != 300 {
		t.Fatalf("digests across the moves %s (replay) %s (backfill), undisturbed %s; %d lines written",
			moved["replay"].Digest, moved["backfill"].Digest, calm.Digest, countLines(out))
	}
	// The copy holds the same payloads.
	r = mustRun(t, c, 0, "replay", dst, "-o", "json", "--format", "none", "-q", "--payload-digest")
	var copied replay.Result
	decodeJSON(t, r, &copied)
	if copied.Records != 300 || copied.PayloadDigest == "" || copied.PayloadDigest != calm.PayloadDigest {
		t.Fatalf("copy: %d records payload %s; source payload %s", copied.Records, copied.PayloadDigest, calm.PayloadDigest)
	}
}
