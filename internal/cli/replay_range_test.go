package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/offsetctl/offsetctl/internal/testkit"
	"github.com/offsetctl/offsetctl/replay"
)

// TestReplayUntilPerPartition: --until takes the per-partition forms of
// --from (offset, time, end), so an exact audit range is one run, and the
// summary says where each partition stopped and why.
func TestReplayUntilPerPartition(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(3, nil)
	base := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
	c.Produce(topic, map[int32]int{0: 30, 1: 30, 2: 30}, base) // record i stamped base+i ms

	until1 := base.Add(25 * time.Millisecond).Format(time.RFC3339Nano)
	res, lines, _ := replayJSON(t, c, 0, topic, "--from", "0=10,1=20", "--until", "0=15,1=time:"+until1)
	if len(res.Partitions) != 2 || res.Records != 10 || len(lines) != 10 || res.Stopped != replay.StoppedEnd {
		t.Fatalf("exact range: %d records, %d lines, partitions %+v", res.Records, len(lines), res.Partitions)
	}
	for p, want := range map[int32][2]int64{0: {10, 15}, 1: {20, 25}} {
		if pr := replayPart(t, res, p); pr.From != want[0] || pr.To != want[1] || pr.Records != 5 || pr.Stop != replay.BoundUntil {
			t.Errorf("partition %d: %+v, want [%d, %d) stopped by until", p, pr, want[0], want[1])
		}
	}
	for _, l := range replayParseLines(t, lines) {
		lo, hi := int64(10), int64(15)
		if l.Partition == 1 {
			lo, hi = 20, 25
		}
		if l.Partition == 2 || l.Offset < lo || l.Offset >= hi {
			t.Fatalf("record outside the range asked for: partition %d offset %d", l.Partition, l.Offset)
		}
	}

	// Mixed: an offset, the log end, and an offset past the end (which
	// the log end comes before).
	res, _, _ = replayJSON(t, c, 0, topic, "--until", "0=15,1=end,2=99")
	for p, want := range map[int32]struct {
		to   int64
		stop string
	}{0: {15, replay.BoundUntil}, 1: {30, replay.BoundEnd}, 2: {30, replay.BoundEnd}} {
		if pr := replayPart(t, res, p); pr.From != 0 || pr.To != want.to || pr.Stop != want.stop {
			t.Errorf("mixed: partition %d: %+v, want to %d stopped by %s", p, pr, want.to, want.stop)
		}
	}

	// --max ends the replay before partition 1's bound (8 < 30): its stop
	// says so; partition 0 stopped by its --until if it got there first
	// (the order of the fetches decides), else by --max too.
	res, _, _ = replayJSON(t, c, 0, topic, "--until", "0=5,1=30", "--max", "8")
	if p1 := replayPart(t, res, 1); res.Records != 8 || p1.Stop != replay.StoppedMax || p1.To >= 30 {
		t.Errorf("--max: %d records, p1 %+v", res.Records, p1)
	}
	if p0 := replayPart(t, res, 0); (p0.To == 5) != (p0.Stop == replay.BoundUntil) || (p0.To < 5 && p0.Stop != replay.StoppedMax) {
		t.Errorf("--max: p0 %+v", p0)
	}

	// The table shows the reason per partition.
	r := mustRun(t, c, 0, "replay", topic, "--until", "0=15,1=end", "--format", "none", "-q", "--no-verify")
	if !strings.Contains(r.stdout, "STOP") || !strings.Contains(r.stdout, "--until") || !strings.Contains(r.stdout, "log end") {
		t.Errorf("table without the stop reasons:\n%s", r.stdout)
	}

	// Bad per-partition ends: one line, exit 2, every partition named.
	r = mustRun(t, c, 2, "replay", topic, "--from", "0=20,1=20", "--until", "0=10,1=5", "-q")
	if !strings.Contains(r.stderr, "partition 0: --until 10 is before the start offset 20: valid ends are 20..30") ||
		!strings.Contains(r.stderr, "partition 1: --until 5 is before the start offset 20") ||
		strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 || r.stdout != "" {
		t.Errorf("bad ends: stdout %q stderr %q", r.stdout, r.stderr)
	}
	r = mustRun(t, c, 2, "replay", topic, "--from", "0=1,1=1", "--until", "0=10,2=5", "-q")
	if !strings.Contains(r.stderr, "the partitions of --from (0,1) and of --until (0,2) differ") {
		t.Errorf("mismatched partitions: %q", r.stderr)
	}
	r = mustRun(t, c, 2, "replay", topic, "--until", "0=10,1", "-q")
	if !strings.Contains(r.stderr, "PARTITION=END") {
		t.Errorf("item without '=': %q", r.stderr)
	}
}

// TestReplayNamesEveryBadPartition: a start outside the log of several
// partitions names all of them with their valid ranges, in one error.
func TestReplayNamesEveryBadPartition(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(3, nil)
	c.Produce(topic, map[int32]int{0: 100, 1: 100, 2: 100}, time.Time{})
	c.DeleteRecords(topic, 1, 100)
	c.DeleteRecords(topic, 2, 20)

	r := mustRun(t, c, 2, "replay", topic, "--from", "10", "-q")
	want := "offsetctl: topic " + topic + ": 2 of the 3 partitions asked for are out of range: " +
		"partition 1: start offset 10 is outside the log: valid start offsets are 100..100 (log start..last stable offset); " +
		"partition 2: start offset 10 is outside the log: valid start offsets are 20..100 (log start..last stable offset)\n"
	if r.stderr != want || r.stdout != "" {
		t.Fatalf("stderr\n%q\nwant\n%q (stdout %q)", r.stderr, want, r.stdout)
	}
	r = mustRun(t, c, 2, "replay", topic, "--partitions", "0,5,9", "-q")
	if !strings.Contains(r.stderr, "has no partitions 5,9 (it has partitions 0..2)") {
		t.Fatalf("unknown partitions: %q", r.stderr)
	}
}
