package cli

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/offsetctl/offsetctl/internal/lag"
	"github.com/offsetctl/offsetctl/internal/testkit"
)

// watchGroups are the groups of the lag --watch --status tests on one
// busy topic: stopped commits once and never again (lag 990 and
// growing), gaining commits 10 records past every 50 ms while 2 are
// written (its lag falls by 8 a step, more than a round's reads apart can
// see it rise), idle sits at its log end on a quiet topic.
type watchGroups struct {
	stopped, gaining, idle string
	stop                   func()
}

func newWatchGroups(t *testing.T, c *testkit.Cluster) watchGroups {
	busy, quiet := c.Topic(1, nil), c.Topic(1, nil)
	c.Produce(busy, map[int32]int{0: 1000}, time.Now())
	c.Produce(quiet, map[int32]int{0: 10}, time.Now())
	w := watchGroups{stopped: testkit.Name(t, "watch-stopped"), gaining: testkit.Name(t, "watch-gaining"), idle: testkit.Name(t, "watch-idle")}
	c.Commit(w.stopped, busy, map[int32]int64{0: 10})
	c.Commit(w.gaining, busy, map[int32]int64{0: 10})
	c.Commit(w.idle, quiet, map[int32]int64{0: 10})
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		end := int64(1000)
		for off := int64(10); ctx.Err() == nil; {
			c.Produce(busy, map[int32]int{0: 2}, time.Now())
			end += 2
			off = min(off+10, end)
			c.Commit(w.gaining, busy, map[int32]int64{0: off})
			select {
			case <-ctx.Done():
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	w.stop = func() { stop(); wg.Wait() } // deferred by the test: before the clients close
	return w
}

// watchStatuses reads the JSON lines of a watch: per round, each group's
// status, and its first partition's.
func watchStatuses(t *testing.T, stdout string) []map[string]lag.GroupLag {
	t.Helper()
	var rounds []map[string]lag.GroupLag
	for _, l := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var rep lag.LagReport
		if err := json.Unmarshal([]byte(l), &rep); err != nil || rep.Time == "" {
			t.Fatalf("line %q: %v", l, err)
		}
		m := map[string]lag.GroupLag{}
		for _, g := range rep.Groups {
			m[g.Group] = g
		}
		rounds = append(rounds, m)
	}
	return rounds
}

// lag --watch --status judges each round from the rounds the watch keeps
// (kfake has no readable __consumer_offsets, so auto samples; on Apache
// Kafka sampling is asked for): the first round says PENDING for the
// groups with lag (one sample says nothing of movement) and OK for the
// idle one, never a false OK; from the second the stopped group is WARN,
// and STOP once its offset has stood for the window, and the gaining one
// stays OK, in every round. The source is said once.
// --fail-if status>=STOP under --watch does what the other --fail-if
// thresholds do: each round that crosses warns, the watch goes on, and
// Ctrl-C ends it with exit 4; a PENDING round crosses nothing.
func TestLagWatchStatus(t *testing.T) {
	c := testkit.New(t)
	w := newWatchGroups(t, c)
	defer w.stop()
	mode := "auto"
	if testkit.Real() {
		mode = "sample"
	}
	rounds := func(n int) func(string) bool {
		return func(out string) bool { return strings.Count(out, "\n") >= n }
	}
	r := watchUntil(t, c, rounds(8), "lag", w.stopped, w.gaining, w.idle, "--watch", "200ms", "--status", "--status-source", mode, "--window", "1s", "-o", "json")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	said := "the committed offsets of every round (every 200ms) sampled over the last 1s; a partition with lag is PENDING until its second round"
	if !strings.Contains(r.stderr, said) || strings.Count(r.stderr, "status_source: sample") != 1 {
		t.Errorf("stderr does not say the source once:\n%s", r.stderr)
	}
	if mode == "auto" && !strings.Contains(r.stderr, "the offsets topic cannot be read") {
		t.Errorf("stderr does not say why it samples:\n%s", r.stderr)
	}
	got := watchStatuses(t, r.stdout)
	// The stopped group's offset stands from round 1: WARN while it has
	// stood for less than the 1s window (samples cannot tell it from a
	// consumer that commits less often), then STOP for good: by the 8th
	// round, 1.4s on at the least.
	stoppedAt := len(got)
	for i := 1; i < len(got); i++ {
		if got[i][w.stopped].Status == "STOP" {
			stoppedAt = i
			break
		}
	}
	if stoppedAt == len(got) {
		t.Errorf("the stopped group never STOP in %d rounds", len(got))
	}
	for i, round := range got {
		stoppedWant := "WARN"
		if i >= stoppedAt {
			stoppedWant = "STOP"
		}
		want := map[string]string{w.stopped: stoppedWant, w.gaining: "OK", w.idle: "OK"}
		if i == 0 {
			want[w.stopped], want[w.gaining] = "PENDING", "PENDING"
		}
		for g, st := range want {
			gl, ok := round[g]
			if !ok || gl.Status != st || gl.StatusSource != "sample" || len(gl.Partitions) != 1 || gl.Partitions[0].Status != st {
				t.Errorf("round %d, %s: %+v, want %s from sample", i+1, g, gl, st)
			}
		}
		if i > 0 && !strings.Contains(round[w.stopped].StatusReason, "did not move in") {
			t.Errorf("round %d: stopped reason %q", i+1, round[w.stopped].StatusReason)
		}
	}

	// The table: the group's STATUS line each round; CSV: STATUS columns
	// after the round's TIME.
	r = watchUntil(t, c, func(out string) bool { return strings.Count(out, "STATUS STOP") >= 2 },
		"lag", w.stopped, "--watch", "200ms", "--status", "--status-source", mode, "--window", "1s")
	if r.code != 0 || !strings.Contains(r.stdout, "STATUS PENDING (1 partition(s) with lag seen in one round only") {
		t.Errorf("table: exit %d\n%s", r.code, r.stdout)
	}
	r = watchUntil(t, c, rounds(9), "lag", w.stopped, "--watch", "200ms", "--status", "--status-source", mode, "--window", "1s", "-o", "csv")
	rows, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
	if err != nil || r.code != 0 || len(rows) < 9 {
		t.Fatalf("csv: exit %d %v\n%s", r.code, err, r.stdout)
	}
	h := rows[0]
	if h[0] != "TIME" || h[len(h)-2] != "STATUS" || rows[1][len(h)-2] != "PENDING" || rows[8][len(h)-2] != "STOP" {
		t.Errorf("csv:\n%s", r.stdout)
	}

	// --fail-if status>=STOP: each crossing round warns, exit 4 at the end.
	r = watchUntil(t, c, rounds(9), "lag", w.stopped, w.gaining, "--watch", "200ms", "--status-source", mode, "--window", "1s", "--fail-if", "status>=STOP", "-o", "json")
	if r.code != 4 || strings.Count(r.stderr, "threshold crossed by group "+w.stopped+" status STOP") < 2 || strings.Contains(r.stderr, "group "+w.gaining+" status") {
		t.Errorf("--fail-if status>=STOP: exit %d\n%s", r.code, r.stderr)
	}
	r = watchUntil(t, c, rounds(3), "lag", w.gaining, w.idle, "--watch", "200ms", "--status-source", mode, "--window", "1s", "--fail-if", "status>=WARN", "-o", "json")
	if r.code != 0 || strings.Contains(r.stderr, "threshold crossed") {
		t.Errorf("--fail-if status>=WARN without a stopped group: exit %d\n%s", r.code, r.stderr)
	}
}

// TestLagWatchStatusOffsetsTopicApache: on Apache Kafka, lag --watch
// --status reads the commits from __consumer_offsets once and then only
// each round's new ones (status_source offsets-topic, said once): the
// stopped group, whose one commit is in the window at first, becomes STOP
// once the window has passed it; the gaining one, committing all along,
// is OK in every round; the idle one OK.
func TestLagWatchStatusOffsetsTopicApache(t *testing.T) {
	if !testkit.Real() {
		t.Skip("needs a real broker (KAFKA_BROKERS): kfake keeps no readable __consumer_offsets")
	}
	c := testkit.New(t)
	w := newWatchGroups(t, c)
	defer w.stop()
	// Burrow's STOP rule compares the time since the last commit with the
	// span of the window's commits: let the gaining consumer commit for
	// most of the window first, or a pause of its loop under load (176 ms
	// after 168 ms of commits) reads as STOP.
	time.Sleep(1500 * time.Millisecond)
	start := time.Now()
	r := watchUntil(t, c, func(out string) bool {
		return time.Since(start) > 5*time.Second && strings.Count(out, "\n") >= 4
	}, "lag", w.stopped, w.gaining, w.idle, "--watch", "300ms", "--status", "--status-source", "offsets-topic", "--window", "2s", "-o", "json")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "status: commits read from __consumer_offsets over the last 2s, then each round's new ones (status_source: offsets-topic)") || strings.Count(r.stderr, "status_source") != 1 {
		t.Errorf("stderr does not say the source once:\n%s", r.stderr)
	}
	got := watchStatuses(t, r.stdout)
	if st := got[0][w.stopped].Status; st != "OK" {
		t.Errorf("round 1: stopped %s, want OK (its commit is in the window)", st)
	}
	last := got[len(got)-1]
	if last[w.stopped].Status != "STOP" || !strings.Contains(last[w.stopped].StatusReason, "no commit in the 2s window") {
		t.Errorf("last round: stopped %s %q, want STOP", last[w.stopped].Status, last[w.stopped].StatusReason)
	}
	for i, round := range got {
		for _, g := range []string{w.gaining, w.idle} {
			if gl := round[g]; gl.Status != "OK" || gl.StatusSource != "offsets-topic" {
				t.Errorf("round %d, %s: %s from %q (%s), want OK", i+1, g, gl.Status, gl.StatusSource, gl.StatusReason)
			}
		}
	}
}

// TestLagWatchStatusOffsetsTopicUnreadable: lag --watch --status
// --status-source offsets-topic on a cluster whose __consumer_offsets
// cannot be read (kfake keeps none; as for the one-shot lag --status)
// ends at its first round with exit 1 and one line on stderr saying what
// to grant or which source to use instead, as the one-shot does, rather
// than going on with failed rounds until Ctrl-C. Nothing is written to
// stdout (no round was judged). The default source still falls back to
// sampling (TestLagWatchStatus).
func TestLagWatchStatusOffsetsTopicUnreadable(t *testing.T) {
	if testkit.Real() {
		t.Skip("kfake only: Apache Kafka's __consumer_offsets is readable here (the denied-user case is TestSecureLagStatusSampled)")
	}
	c := testkit.New(t)
	topic := c.Topic(1, nil)
	c.Produce(topic, map[int32]int{0: 20}, time.Now())
	g := testkit.Name(t, "watch-unreadable")
	c.Commit(g, topic, map[int32]int64{0: 10})
	// kfake says the topic does not exist: the hint says so, and what
	// to grant if that is a user not allowed to describe it.
	const hint = "the cluster says __consumer_offsets does not exist (no group has committed on it yet; the cluster keeps commits elsewhere, as the playground's in-process cluster does; or this user may not describe it: then grant Describe and Read on it), or use --status-source sample"
	for _, format := range []string{"json", "csv", "table"} {
		r, ended := watchFor(t, c, 20*time.Second, "lag", g, "--watch", "200ms", "--status", "--status-source", "offsets-topic", "--window", "2s", "-o", format)
		if !ended {
			t.Fatalf("-o %s: still running after 20s (exit %d at Ctrl-C)\nstderr:\n%s", format, r.code, r.stderr)
		}
		lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
		if r.code != 1 || len(lines) != 1 || !strings.Contains(lines[0], "the offsets topic cannot be read") || !strings.Contains(lines[0], hint) || r.stdout != "" {
			t.Errorf("-o %s: exit %d, stdout %q, stderr:\n%s\nwant exit 1, no stdout, one line with %q", format, r.code, r.stdout, r.stderr, hint)
		}
	}
	// The one-shot says the same.
	r := mustRun(t, c, 1, "lag", g, "--status", "--status-source", "offsets-topic")
	if lines := strings.Split(strings.TrimSpace(r.stderr), "\n"); len(lines) != 1 || !strings.Contains(lines[0], hint) {
		t.Errorf("one-shot: stderr:\n%s", r.stderr)
	}
}

// watchFor runs a watch until it ends by itself or limit passes (then it
// is stopped as by Ctrl-C); ended says which.
func watchFor(t *testing.T, c *testkit.Cluster, limit time.Duration, args ...string) (result, bool) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out, errb, done := runInBackground(ctx, t, append([]string{"--brokers", c.BrokerList()}, args...)...)
	ended := true
	var code int
	select {
	case code = <-done:
	case <-time.After(limit):
		ended = false
		cancel()
		code = <-done
	}
	return result{stdout: out.String(), stderr: errb.String(), code: code}, ended
}
