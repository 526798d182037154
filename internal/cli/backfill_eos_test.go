package cli

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetctl/offsetctl/internal/testkit"
	"github.com/offsetctl/offsetctl/replay"
)

// TestBackfillExactlyOnceKillNine (issue 9): one exactly-once backfill
// (--transactional-id, short transactions) is killed with SIGKILL at
// seven points of seven successive runs of the same command line (a
// produce in flight, the position being added to or staged in the
// transaction, EndTxn sent, EndTxn answered, right after taking the id
// over), then run to the end. read_committed readers see the copy grow
// between the runs, and at the end they see every source record exactly
// once: the same count and the same payload digest as the source. The
// replay proof names the backfill's position group instead of counting it.
func TestBackfillExactlyOnceKillNine(t *testing.T) {
	c := testkit.New(t)
	src := c.Topic(3, nil)
	const per = 10000
	var recs []*kgo.Record
	for p := int32(0); p < 3; p++ {
		for i := 0; i < per; i++ {
			recs = append(recs, &kgo.Record{Topic: src, Partition: p, Key: []byte(fmt.Sprintf("k-%d-%d", p, i)),
				Value: []byte(strings.Repeat(fmt.Sprintf("v-%d-%d;", p, i), 8))})
		}
	}
	c.ProduceRecords(recs...)
	dst := c.Topic(3, nil)
	id := testkit.Name(t, "bf")
	want, _, _ := replayJSON(t, c, 0, src, "--payload-digest", "--format", "none", "--no-verify")
	args := []string{"replay", src, "--produce-to", dst, "--transactional-id", id, "--transaction-interval", "2ms", "--format", "none", "-q", "--fetch-max-bytes", "64KiB"}
	visible := func() int64 {
		got, _, _ := replayJSON(t, c, 0, dst, "--isolation", "committed", "--format", "none", "--no-verify")
		return got.Records
	}
	points := [][]string{
		{"wrote Produce", "wrote Produce", "wrote Produce"},
		{"read EndTxn", "wrote AddOffsetsToTxn"},
		{"read EndTxn", "read EndTxn", "wrote TxnOffsetCommit"},
		{"read EndTxn", "read TxnOffsetCommit"},
		{"read EndTxn", "wrote EndTxn"},
		{"read EndTxn", "read EndTxn", "read EndTxn"},
		{"read InitProducerID"},
	}
	kills, last, grew := 0, int64(0), false
	for _, steps := range points {
		err, reached, stderr := childAtLog(t, c, args, steps, func(cmd *exec.Cmd) { _ = cmd.Process.Kill() })
		n := visible()
		t.Logf("killed after %q (%v): read_committed sees %d of %d", steps, reached, n, 3*per)
		if !reached {
			if err != nil {
				t.Fatalf("run not killed but failed: %v\n%s", err, stderr)
			}
			break // the copy finished before this point
		}
		kills++
		if n < last || n > 3*per {
			t.Fatalf("read_committed count went from %d to %d", last, n)
		}
		if n > 0 && n < 3*per {
			grew = true
		}
		last = n
	}
	if kills < 5 {
		t.Fatalf("only %d runs were killed before the copy completed: make it longer", kills)
	}
	if !grew {
		t.Fatal("read_committed readers never saw a partial copy: the progress is not visible while it runs")
	}
	res, _, r := replayJSON(t, c, 0, args[1:]...)
	if !res.Backfill.Complete {
		t.Fatalf("the last run did not complete: %+v\n%s", res.Backfill, r.stderr)
	}
	if v := res.Verification; v.BackfillGroup != replay.PositionGroup(id) || !v.Unchanged {
		t.Fatalf("proof: backfill group %q, unchanged %v, changes %v", v.BackfillGroup, v.Unchanged, v.Changes)
	}
	got, _, _ := replayJSON(t, c, 0, dst, "--isolation", "committed", "--payload-digest", "--format", "none", "--no-verify")
	if got.Records != want.Records || got.PayloadDigest != want.PayloadDigest {
		t.Fatalf("read_committed copy: %d records, digest %s; source: %d, %s", got.Records, got.PayloadDigest, want.Records, want.PayloadDigest)
	}
	// A rerun after completion copies nothing again.
	again, _, _ := replayJSON(t, c, 0, args[1:]...)
	if again.Backfill.Produced != 0 || visible() != want.Records {
		t.Fatalf("a rerun after completion produced %d copies", again.Backfill.Produced)
	}
	_ = time.Second
}
