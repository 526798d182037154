package cli

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/offsetctl/offsetctl/internal/audit"
	"github.com/offsetctl/offsetctl/internal/testkit"
)

// groupStatus is group's current kafka_consumergroup_status: the one
// status whose series is 1 ("" for none, "two statuses" for more).
func groupStatus(f map[string]*dto.MetricFamily, g string) string {
	cur := ""
	for _, s := range []string{"OK", "WARN", "REWIND", "STALL", "STOP"} {
		if v, ok := value(f, "kafka_consumergroup_status", "consumergroup="+g+",status="+s); ok && v == 1 {
			if cur != "" {
				return "two statuses"
			}
			cur = s
		}
	}
	return cur
}

// TestExporterOffsetsTopicStatusApache: on Apache Kafka, `exporter
// --commit-source offsets-topic --status` learns the commits by tailing
// __consumer_offsets and judges scripted consumers, one per state: lagging
// but gaining (OK), committing but falling behind (WARN), committing the
// same offset (STALL, which the polling source cannot tell from STOP),
// stopped (STOP), rewound by a raw OffsetCommit (REWIND), reset backwards
// by offsetctl reset (OK: the audit log explains it), idle at its log end
// (OK). A transaction left open in the offsets-topic partitions of two of
// them throughout, and an aborted one staging offset 0 for them, must
// neither hide their commits nor be taken for one.
func TestExporterOffsetsTopicStatusApache(t *testing.T) {
	if !testkit.Real() {
		t.Skip("needs a real broker (KAFKA_BROKERS): kfake keeps no readable __consumer_offsets")
	}
	c := testkit.New(t)
	busy, quiet := c.Topic(1, nil), c.Topic(1, nil)
	c.Produce(busy, map[int32]int{0: 1000}, time.Time{})
	c.Produce(quiet, map[int32]int{0: 10}, time.Time{})
	name := func(s string) string { return testkit.Name(t, "exp-tail-"+s) }
	gaining, behind, stalled, stopped, rewound, reset, idle := name("gaining"), name("behind"), name("stalled"), name("stopped"), name("rewound"), name("reset"), name("idle")
	groups := []string{gaining, behind, stalled, stopped, rewound, reset, idle}
	c.Commit(idle, quiet, map[int32]int64{0: 10})
	adm := c.Admin()
	commit := func(g string, off int64) error {
		os := make(kadm.Offsets)
		os.AddOffset(busy, 0, off, -1)
		return adm.CommitAllOffsets(context.Background(), g, os)
	}
	endOpen := stageTxnCommit(t, c, busy, 0, sameOffsetsPartition(t, c, gaining), sameOffsetsPartition(t, c, stalled))
	defer endOpen(false)
	for g, off := range map[string]int64{stopped: 10, rewound: 900, reset: 900, stalled: 10, behind: 10, gaining: 10} {
		if err := commit(g, off); err != nil {
			t.Fatal(err)
		}
	}

	// Every 200 ms: 2 records, then each live consumer's commit. Phase 1
	// (after the rewinds) moves rewound and reset from 20 on.
	var phase atomic.Int32
	var k int64 // phase 2's rounds: rewound and reset creep on from 20, never back
	defer keepCommitting(t, 1, 200*time.Millisecond, func(i int64) error {
		c.Produce(busy, map[int32]int{0: 2}, time.Time{})
		offs := map[string]int64{gaining: min(10+6*i, 1000), behind: 10 + i, stalled: 10}
		switch phase.Load() {
		case 0:
			offs[rewound], offs[reset] = 900, 900
		case 2:
			k++
			offs[rewound], offs[reset] = 20+k, 20+k
		}
		for g, off := range offs {
			if err := commit(g, off); err != nil {
				return err
			}
		}
		return nil
	})()

	env := map[string]string{audit.EnvLog: testAuditLog(t)}
	e := startExporter(t, c, env, "--interval", "1s", "--status", "--status-window", "8s", "--status-partitions", "--commit-source", "offsets-topic",
		gaining, behind, stalled, stopped, rewound, reset, idle)
	start := time.Now()
	e.waitScrape(t, "the first judgement", func(f map[string]*dto.MetricFamily) bool { return groupStatus(f, stopped) != "" })
	t.Logf("first judgement %s after start", time.Since(start).Round(time.Millisecond))
	// The stopped group's one commit leaves the 8 s window.
	time.Sleep(time.Until(start.Add(9 * time.Second)))
	phase.Store(1)
	time.Sleep(300 * time.Millisecond) // the loop's round in flight ends
	if err := commit(rewound, 20); err != nil {
		t.Fatal(err)
	}
	mustRun(t, c, 0, "reset", reset, "--topic", busy, "--to", "20", "--execute", "--backup", t.TempDir()+"/b.csv")
	abortedTxnCommit(t, c, busy, 0, gaining, stalled)
	phase.Store(2)

	want := map[string]string{gaining: "OK", behind: "WARN", stalled: "STALL", stopped: "STOP", rewound: "REWIND", reset: "OK", idle: "OK"}
	var last string
	fams := e.waitScrape(t, "every group's expected status", func(f map[string]*dto.MetricFamily) bool {
		var got []string
		ok := true
		for _, g := range groups {
			s := groupStatus(f, g)
			got = append(got, fmt.Sprintf("%s=%s", strings.TrimPrefix(g, t.Name()), s))
			ok = ok && s == want[g]
		}
		last = strings.Join(got, " ")
		return ok
	})
	t.Logf("statuses: %s", last)
	for _, g := range []string{gaining, stalled} {
		if v, ok := value(fams, "kafka_consumergroup_current_offset", "consumergroup="+g+",partition=0,topic="+busy); !ok || v < 10 {
			t.Errorf("%s: current offset %v %v: an aborted or open transaction's offset 0 was taken", g, v, ok)
		}
	}
	l := fmt.Sprintf("consumergroup=%s,partition=0,status=STALL,topic=%s", stalled, busy)
	if v, ok := value(fams, "kafka_consumergroup_partition_status", l); !ok || v != 1 {
		t.Errorf("partition status %s: %v %v", l, v, ok)
	}
	if v, ok := value(fams, "offsetctl_commit_source", "source=offsets-topic"); !ok || v != 1 {
		t.Errorf("offsetctl_commit_source: %v %v", v, ok)
	}
	if n := len(series(fams, "kafka_consumergroup_members")); n != 0 {
		t.Errorf("%d members series: the offsets topic says nothing of members", n)
	}
	if strings.Contains(e.stderr.String(), "audit log cannot be read") {
		t.Errorf("stderr: %s", e.stderr.String())
	}
}

// TestExporterOffsetsTopicAgreesApache: for a stable fleet, the page of
// --commit-source offsets-topic has the same lag series, with the same
// values, as the polling source's (time lag included); also for two groups
// whose transaction committed after a plain commit made while it was open
// (the broker keeps the plain commit, the later record; QA found the
// tail applying the transaction's offset over it).
func TestExporterOffsetsTopicAgreesApache(t *testing.T) {
	if !testkit.Real() {
		t.Skip("needs a real broker (KAFKA_BROKERS): kfake keeps no readable __consumer_offsets")
	}
	c := testkit.New(t)
	topics := []string{c.Topic(3, nil), c.Topic(2, nil)}
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	c.Produce(topics[0], map[int32]int{0: 50, 1: 40, 2: 30}, old)
	c.Produce(topics[1], map[int32]int{0: 50, 1: 40}, old)
	var groups []string
	for i := range 12 {
		g := testkit.Name(t, fmt.Sprintf("exp-agree-%d", i))
		groups = append(groups, g)
		for j, tp := range topics {
			if (i+j)%3 == 2 {
				continue // not every group commits on every topic
			}
			c.Commit(g, tp, map[int32]int64{0: int64(i), 1: int64(40 - i%5)})
		}
	}
	mixed := map[string][3]int64{ // plain, staged, plain made while the transaction is open
		testkit.Name(t, "exp-agree-mix-high"): {10, 45, 5},
		testkit.Name(t, "exp-agree-mix-low"):  {10, 2, 30},
	}
	for g, offs := range mixed {
		groups = append(groups, g)
		c.Commit(g, topics[0], map[int32]int64{0: offs[0]})
		end := stageTxnCommit(t, c, topics[0], offs[1], g)
		c.Commit(g, topics[0], map[int32]int64{0: offs[2]})
		end(true)
	}
	poll := startExporter(t, c, nil, append([]string{"--interval", "2s"}, groups...)...)
	tail := startExporter(t, c, nil, append([]string{"--interval", "2s", "--commit-source", "offsets-topic"}, groups...)...)
	fams := map[string]map[string]*dto.MetricFamily{}
	for n, e := range map[string]*runningExporter{"poll": poll, "offsets-topic": tail} {
		fams[n] = e.waitScrape(t, n+": a complete gather", gatheredOK)
	}
	compared := 0
	for _, f := range []string{"kafka_consumergroup_lag", "kafka_consumergroup_current_offset", "kafka_consumergroup_lag_sum",
		"kafka_consumergroup_current_offset_sum", "kafka_consumergroup_info",
		"kafka_topic_partition_current_offset", "kafka_topic_partition_oldest_offset", "offsetctl_consumergroup_stale"} {
		p, o := series(fams["poll"], f), series(fams["offsets-topic"], f)
		if len(p) == 0 || !maps.Equal(p, o) {
			t.Errorf("%s differs (or is empty):\npoll:          %v\noffsets-topic: %v", f, sorted(p), sorted(o))
		}
		compared += len(p)
	}
	// The time lag is the age of the next record now: the two pages
	// were gathered a moment apart.
	p, o := series(fams["poll"], "kafka_consumergroup_lag_seconds"), series(fams["offsets-topic"], "kafka_consumergroup_lag_seconds")
	if len(p) == 0 || !slices.Equal(slices.Sorted(maps.Keys(p)), slices.Sorted(maps.Keys(o))) {
		t.Errorf("kafka_consumergroup_lag_seconds series differ:\npoll:          %v\noffsets-topic: %v", sorted(p), sorted(o))
	}
	for k, v := range p {
		if d := o[k] - v; d < -10 || d > 10 {
			t.Errorf("kafka_consumergroup_lag_seconds{%s}: poll %g, offsets-topic %g", k, v, o[k])
		}
	}
	for g, offs := range mixed {
		for n, f := range fams {
			if v, ok := value(f, "kafka_consumergroup_current_offset", "consumergroup="+g+",partition=0,topic="+topics[0]); !ok || v != float64(offs[2]) {
				t.Errorf("%s: %s current offset %v %v, want %d (the plain commit made while the transaction was open)", n, g, v, ok, offs[2])
			}
		}
	}
	t.Logf("%d series equal, %d time-lag series within 10 s", compared, len(p))
	// A log of round durations (not a benchmark: a figure to look at).
	for i := 0; i < 4; i++ {
		time.Sleep(2 * time.Second)
		pd, _ := value(poll.scrape(t), "offsetctl_gather_duration_seconds", "")
		td, _ := value(tail.scrape(t), "offsetctl_gather_duration_seconds", "")
		t.Logf("round duration: poll %.1f ms, offsets-topic %.1f ms", pd*1000, td*1000)
	}
}

func sorted(m map[string]float64) []string {
	var out []string
	for k, v := range m {
		out = append(out, fmt.Sprintf("%s=%g", k, v))
	}
	slices.Sort(out)
	return out
}

// TestExporterOffsetsTopicUnreadable: where __consumer_offsets cannot be
// read (kfake keeps none; a cluster without the ACL answers the same
// way), --commit-source offsets-topic does not fall back to polling:
// rounds fail, offsetctl_gather_success is 0, the page says its source,
// and stderr says why once, on one line. A bad --commit-source is exit 2.
func TestExporterOffsetsTopicUnreadable(t *testing.T) {
	if testkit.Real() {
		t.Skip("kfake only: a real broker's offsets topic is readable")
	}
	c := testkit.New(t)
	topic := c.Topic(1, nil)
	g := testkit.Name(t, "exp-tail-unreadable")
	c.Commit(g, topic, map[int32]int64{0: 0})
	e := startExporter(t, c, nil, "--interval", "1s", "--commit-source", "offsets-topic", g)
	fams := e.waitScrape(t, "a failed round", func(f map[string]*dto.MetricFamily) bool {
		v, ok := value(f, "offsetctl_gather_errors_total", "")
		return ok && v >= 2
	})
	if v, ok := value(fams, "offsetctl_gather_success", ""); !ok || v != 0 {
		t.Errorf("offsetctl_gather_success %v %v, want 0", v, ok)
	}
	if v, ok := value(fams, "offsetctl_commit_source", "source=offsets-topic"); !ok || v != 1 {
		t.Errorf("offsetctl_commit_source: %v %v", v, ok)
	}
	if n := len(series(fams, "kafka_consumergroup_lag")); n != 0 {
		t.Errorf("%d lag series: polled after all?", n)
	}
	stderr := e.stderr.String()
	if n := strings.Count(stderr, "the offsets topic cannot be read"); n != 1 {
		t.Errorf("stderr says the offsets topic cannot be read %d times, want once:\n%s", n, stderr)
	}
	t.Logf("stderr: %s", stderr)
	badInput(t, c, "--commit-source", "exporter", "--listen", "127.0.0.1:0", "--commit-source", "kafka")
}
