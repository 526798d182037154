package exporter

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/offsetctl/offsetctl/internal/cluster"
	"github.com/offsetctl/offsetctl/internal/health"
	"github.com/offsetctl/offsetctl/internal/lag"
)

// statusSnapshot: each group on its own topic's partition 0, committed
// c of log end e.
func statusSnapshot(rounds map[string][2]int64) *lag.Snapshot {
	s := &lag.Snapshot{Offsets: lag.TopicOffsets{Partitions: map[string]map[int32]lag.PartitionOffsets{}}}
	for _, g := range []string{"behind", "gaining", "idle", "rewound", "stopped"} {
		ce, ok := rounds[g]
		if !ok {
			continue
		}
		s.Groups = append(s.Groups, lag.GroupSnapshot{
			GroupInfo: lag.GroupInfo{Group: g, Type: "classic", State: "Empty", ProtocolType: "consumer", Exists: true},
			Commits:   map[string]map[int32]lag.Commit{"t-" + g: {0: {Offset: ce[0]}}}})
		s.Offsets.Partitions["t-"+g] = map[int32]lag.PartitionOffsets{0: {Start: 0, End: ce[1]}}
	}
	return s
}

// The exporter's status from its own rounds (no request of its own: the
// fake gatherer is all it reads): four rounds 15 s apart, a 10 m window.
// gaining (lag 90, 70, 50, 30) is OK; behind (moves, lag 90..120) WARN;
// stopped (offset 10 under lag) STOP; rewound (40, 50, 60, 20) REWIND;
// idle (at its log end) OK. One series per status, 1 for the current;
// per partition only with StatusPartitions; none without Status.
func TestExporterStatus(t *testing.T) {
	var rounds []*lag.Snapshot
	for i := int64(0); i < 4; i++ {
		rw := 40 + 10*i
		if i == 3 {
			rw = 20
		}
		rounds = append(rounds, statusSnapshot(map[string][2]int64{
			"gaining": {10 + 30*i, 100 + 10*i},
			"behind":  {10 + 10*i, 100 + 20*i},
			"stopped": {10, 100 + 10*i},
			"rewound": {rw, 100},
			"idle":    {5, 5},
		}))
	}
	run := func(opts Options) string {
		clock := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
		opts.Interval, opts.Now = 15*time.Second, func() time.Time { return clock }
		c := New(cluster.Config{}, opts)
		g := &fakeGatherer{snaps: rounds, batch: 2}
		for range rounds {
			c.GatherOnce(context.Background(), g)
			clock = clock.Add(15 * time.Second)
		}
		return pageText(t, c)
	}
	// A 45s window: the stopped group's offset stands for all of it
	// (with samples, STOP waits for that; WARN before).
	page := run(Options{Status: true, StatusWindow: 45 * time.Second})
	want := map[string]string{"gaining": "OK", "behind": "WARN", "stopped": "STOP", "rewound": "REWIND", "idle": "OK"}
	for g, st := range want {
		for _, s := range []string{"OK", "WARN", "REWIND", "STALL", "STOP"} {
			v := "0"
			if s == st {
				v = "1"
			}
			line := `kafka_consumergroup_status{consumergroup="` + g + `",status="` + s + `"} ` + v + "\n"
			if !strings.Contains(page, line) {
				t.Errorf("missing %q", line)
			}
		}
	}
	if strings.Contains(page, "kafka_consumergroup_partition_status") {
		t.Error("partition status without StatusPartitions")
	}
	page = run(Options{Status: true, StatusWindow: 45 * time.Second, StatusPartitions: true})
	for _, line := range []string{
		`kafka_consumergroup_partition_status{consumergroup="stopped",partition="0",status="STOP",topic="t-stopped"} 1`,
		`kafka_consumergroup_partition_status{consumergroup="stopped",partition="0",status="OK",topic="t-stopped"} 0`,
		`kafka_consumergroup_partition_status{consumergroup="rewound",partition="0",status="REWIND",topic="t-rewound"} 1`,
		`kafka_consumergroup_status{consumergroup="behind",status="WARN"} 1`,
	} {
		if !strings.Contains(page, line+"\n") {
			t.Errorf("missing %q", line)
		}
	}
	if page := run(Options{}); strings.Contains(page, "_status") {
		t.Error("status series without Status")
	}
	// A window shorter than the rounds: only the last two rounds are
	// judged, the rewind (round 3) is still in it, the stop too.
	page = run(Options{Status: true, StatusWindow: 20 * time.Second})
	for _, line := range []string{
		`kafka_consumergroup_status{consumergroup="rewound",status="REWIND"} 1`,
		`kafka_consumergroup_status{consumergroup="stopped",status="STOP"} 1`,
		`kafka_consumergroup_status{consumergroup="gaining",status="OK"} 1`,
	} {
		if !strings.Contains(page, line+"\n") {
			t.Errorf("window 20s: missing %q", line)
		}
	}
}

// The history keeps only what is read: a group a complete gather no
// longer reads is forgotten, a failed gather forgets nothing and the
// group's status is carried with its other values.
func TestExporterStatusHistory(t *testing.T) {
	clock := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	c := New(cluster.Config{}, Options{Interval: 15 * time.Second, Now: func() time.Time { return clock }, Status: true, StatusWindow: time.Minute})
	both := statusSnapshot(map[string][2]int64{"stopped": {10, 100}, "idle": {5, 5}})
	g := &fakeGatherer{snaps: []*lag.Snapshot{both, both, nil, statusSnapshot(map[string][2]int64{"stopped": {10, 100}})},
		errs: []error{nil, nil, context.DeadlineExceeded, nil}}
	for i := 0; i < 2; i++ {
		c.GatherOnce(context.Background(), g)
		clock = clock.Add(15 * time.Second)
	}
	k := health.Key{Topic: "t-stopped", Partition: 0}
	if c.hist.Groups() != 2 || c.hist.Len("stopped", k) != 2 {
		t.Fatalf("after two rounds: %v", c.hist)
	}
	c.GatherOnce(context.Background(), g) // fails
	clock = clock.Add(15 * time.Second)
	// WARN: its offset stood 15s of the 1m window (STOP once it stands
	// for the window).
	if c.hist.Groups() != 2 || c.state["stopped"].status.String() != "WARN" || !c.state["stopped"].stale {
		t.Fatalf("after a failed round: %v %+v", c.hist, c.state["stopped"])
	}
	c.GatherOnce(context.Background(), g)
	if c.hist.Len("idle", health.Key{Topic: "t-idle", Partition: 0}) != 0 || c.hist.Groups() != 1 || c.hist.Len("stopped", k) != 3 {
		t.Fatalf("after a complete round without idle: %v", c.hist)
	}
}

// A partition with lag seen in one round only is PENDING (as in lag
// --watch --status): after the first round, the groups with lag have no
// status series, group or partition, while idle (at its log end) is OK at
// once; a group with a pending partition and one judged worse than OK
// shows that status and the judged partition's series only; after the
// second round every group has its series.
func TestExporterStatusPending(t *testing.T) {
	clock := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	// A window of one interval: an offset that stood between two rounds
	// stood for the whole window, STOP.
	c := New(cluster.Config{}, Options{Interval: 15 * time.Second, Now: func() time.Time { return clock }, Status: true, StatusWindow: 15 * time.Second, StatusPartitions: true})
	first := statusSnapshot(map[string][2]int64{"stopped": {10, 100}, "idle": {5, 5}})
	second := statusSnapshot(map[string][2]int64{"stopped": {10, 110}, "idle": {5, 5}})
	// mixed comes in the second round (pending), is STOP in the third,
	// and gains a partition in the fourth.
	second.Groups = append(second.Groups, lag.GroupSnapshot{
		GroupInfo: lag.GroupInfo{Group: "mixed", Type: "classic", State: "Empty", ProtocolType: "consumer", Exists: true},
		Commits:   map[string]map[int32]lag.Commit{"t-mixed": {0: {Offset: 10}, 1: {Offset: 10}}}})
	second.Offsets.Partitions["t-mixed"] = map[int32]lag.PartitionOffsets{0: {End: 100}, 1: {End: 50}}
	third := statusSnapshot(map[string][2]int64{"stopped": {10, 120}, "idle": {5, 5}})
	third.Groups = append(third.Groups, second.Groups[len(second.Groups)-1])
	third.Offsets.Partitions["t-mixed"] = map[int32]lag.PartitionOffsets{0: {End: 100}, 1: {End: 50}}
	fourth := statusSnapshot(map[string][2]int64{"stopped": {10, 130}, "idle": {5, 5}})
	mixed := third.Groups[len(third.Groups)-1]
	mixed.Commits = map[string]map[int32]lag.Commit{"t-mixed": {0: {Offset: 10}, 1: {Offset: 10}, 2: {Offset: 10}}}
	fourth.Groups = append(fourth.Groups, mixed)
	fourth.Offsets.Partitions["t-mixed"] = map[int32]lag.PartitionOffsets{0: {End: 100}, 1: {End: 50}, 2: {End: 70}}
	g := &fakeGatherer{snaps: []*lag.Snapshot{first, second, third, fourth}}
	page := func() string {
		c.GatherOnce(context.Background(), g)
		clock = clock.Add(15 * time.Second)
		return pageText(t, c)
	}
	p := page()
	if strings.Contains(p, `_status{consumergroup="stopped"`) {
		t.Errorf("round 1: status series of a pending group:\n%s", p)
	}
	if !strings.Contains(p, `kafka_consumergroup_status{consumergroup="idle",status="OK"} 1`) ||
		!strings.Contains(p, `kafka_consumergroup_partition_status{consumergroup="idle",partition="0",status="OK",topic="t-idle"} 1`) {
		t.Errorf("round 1: idle not OK at once:\n%s", p)
	}
	if c.state["stopped"].status != health.OK || !c.state["stopped"].pending {
		t.Errorf("round 1: stopped %+v, want pending", c.state["stopped"])
	}
	p = page()
	if !strings.Contains(p, `kafka_consumergroup_status{consumergroup="stopped",status="STOP"} 1`) ||
		!strings.Contains(p, `kafka_consumergroup_partition_status{consumergroup="stopped",partition="0",status="STOP",topic="t-stopped"} 1`) {
		t.Errorf("round 2: stopped not STOP:\n%s", p)
	}
	if strings.Contains(p, `_status{consumergroup="mixed"`) {
		t.Errorf("round 2: status series of mixed, new:\n%s", p)
	}
	p = page()
	if !strings.Contains(p, `kafka_consumergroup_status{consumergroup="mixed",status="STOP"} 1`) {
		t.Errorf("round 3: mixed not STOP:\n%s", p)
	}
	// Round 4: mixed's partition 2 is new (pending) and its others STOP:
	// the group is STOP, partition 2 has no series.
	p = page()
	if !strings.Contains(p, `kafka_consumergroup_status{consumergroup="mixed",status="STOP"} 1`) ||
		!strings.Contains(p, `kafka_consumergroup_partition_status{consumergroup="mixed",partition="1",status="STOP",topic="t-mixed"} 1`) ||
		strings.Contains(p, `consumergroup="mixed",partition="2",status=`) || c.state["mixed"].pending {
		t.Errorf("round 4: mixed with a pending partition:\n%s", p)
	}
}

// pageText is c's page as WriteText writes it.
func pageText(t *testing.T, c *Collector) string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteText(&b, c); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
