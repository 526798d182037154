package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetctl/offsetctl/internal/testkit"
)

// TestReplayStartPastLastStable: under --isolation committed a start
// offset is checked against the last stable offset, and the error says
// that is the end of the valid range (an open transaction holds it below
// the log end); under uncommitted it is the log end.
func TestReplayStartPastLastStable(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(1, nil)
	c.Produce(topic, map[int32]int{0: 14}, time.Time{})
	c.BeginTxn(&kgo.Record{Topic: topic, Partition: 0, Value: []byte("open")}) // offset 14, open
	badInput(t, c, "partition 0: start offset 15 is outside the log: valid start offsets are 0..14 (log start..last stable offset)",
		"replay", topic, "--from", "0=15", "--format", "none", "-q")
	badInput(t, c, "partition 0: start offset 16 is outside the log: valid start offsets are 0..15 (log start..log end)",
		"replay", topic, "--from", "0=16", "--isolation", "uncommitted", "--format", "none", "-q")
}

// TestReplayBackfillMessages: the PROOF line names the backfill's own
// position group, made of --transactional-id, escaped as the proof table
// escapes a group (no raw control byte reaches a terminal); an illegal
// --produce-to name is quoted; a count of one partition is singular.
func TestReplayBackfillMessages(t *testing.T) {
	c := testkit.New(t)
	src := c.Topic(2, nil)
	c.Produce(src, map[int32]int{0: 3, 1: 3}, time.Time{})
	dst := c.Topic(2, nil)
	id := "x\x1b]0;T\x07y"
	r := mustRun(t, c, 0, "replay", src, "--produce-to", dst, "--format", "none", "-q", "--transactional-id", id)
	var proof string
	for _, l := range strings.Split(r.stdout, "\n") {
		if strings.HasPrefix(l, "PROOF") {
			proof = l
		}
	}
	if proof == "" || strings.ContainsAny(proof, "\x1b\x07") || !strings.Contains(proof, `(group "offsetctl-backfill-x\x1b]0;T\ay" is this backfill's own position`) {
		t.Fatalf("PROOF line %q: want the group quoted, no raw control byte", proof)
	}

	badInput(t, c, `--produce-to "bad topic": topic name has illegal character ' '`, "replay", src, "--produce-to", "bad topic", "--format", "none", "-q")
	one := c.Topic(1, nil)
	badInput(t, c, "target topic "+one+" has 1 partition but source partition 1 is replayed", "replay", src, "--produce-to", one, "--format", "none", "-q")
}
