package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/offsetctl/offsetctl/internal/testkit"
	"github.com/offsetctl/offsetctl/replay"
)

// TestReplayProofWideTopic: on a wide topic the proof table is one line
// per group ("200 partitions unchanged"), -v lists every row, and JSON
// always carries every row.
func TestReplayProofWideTopic(t *testing.T) {
	c := testkit.New(t)
	const parts = 200
	topic := c.Topic(parts, nil)
	c.Produce(topic, map[int32]int{0: 3, 199: 2}, time.Time{})
	group := testkit.Name(t, "wide")
	offs := map[int32]int64{}
	for p := int32(0); p < parts; p++ {
		offs[p] = 0
	}
	offs[0], offs[199] = 3, 1
	c.Commit(group, topic, offs)

	r := mustRun(t, c, 0, "replay", topic, "--format", "none", "-q", "--verify-groups", group)
	proof := r.stdout[strings.Index(r.stdout, "PROOF"):]
	if !strings.Contains(proof, "all committed offsets unchanged") || strings.Count(proof, "\n") != 4 {
		t.Fatalf("proof is not one line per group:\n%s", proof)
	}
	if f := strings.Fields(strings.Split(proof, "\n")[2]); strings.Join(f[2:], " ") != "200 partitions unchanged" {
		t.Fatalf("collapsed line %v", f)
	}

	r = mustRun(t, c, 0, "replay", topic, "--format", "none", "-q", "--verify-groups", group, "-v")
	// Every row, plus the PROOF line's "all committed offsets unchanged".
	if n := strings.Count(r.stdout, " unchanged\n"); n != parts+1 {
		t.Fatalf("-v: %d unchanged rows, want %d:\n%s", n, parts, r.stdout)
	}
	res, _, _ := replayJSON(t, c, 0, topic, "--format", "none", "--verify-groups", group)
	if len(res.Verification.Rows) != parts || !res.Verification.Unchanged || res.Records != 5 {
		t.Fatalf("JSON: %d rows, unchanged %v, %d records", len(res.Verification.Rows), res.Verification.Unchanged, res.Records)
	}
	for _, row := range res.Verification.Rows {
		if row.Status != replay.StatusUnchanged || row.Before == nil || *row.Before != offs[row.Partition] {
			t.Fatalf("JSON row %+v, want unchanged at %d", row, offs[row.Partition])
		}
	}
}
