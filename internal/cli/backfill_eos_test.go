package cli

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"

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
//
// The kill points are counted in requests of the run being killed (its
// Nth EndTxn), never in time: each run needs at most a few transactions
// to reach its point. On kfake a 2 ms transaction holds 2,000-5,000
// records, so 10,000 records a partition were used up before the fifth
// point 5 runs of 6; 30,000 a partition leave about twice what the
// points need.
func TestBackfillExactlyOnceKillNine(t *testing.T) {
	c := testkit.New(t)
	src := c.Topic(3, nil)
	const per = 30000
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
	// committedRead is how the copy is read back with read_committed.
	// On kfake the whole topic is fetched in one response: kfake (the
	// version in go.mod, 01_fetch.go) leaves a partition's aborted
	// transactions out of a fetch answer when the response's MaxBytes
	// is reached inside that partition (its `break full` jumps over the
	// AbortedTransactions lookup), so a read_committed client shows an
	// aborted transaction's records as committed; with 2 MiB fetches
	// this counted 95,789-98,576 records of this 90,000-record copy in
	// about 1 run of 5, while a client fetching 50 MiB at a time read
	// the same log exactly (TestKfakeAbortedTxnsLostAtMaxBytes pins the
	// kfake behaviour). Apache Kafka is read with the defaults.
	committedRead := []string{"--isolation", "committed", "--format", "none", "--no-verify"}
	if c.Fake != nil {
		committedRead = append(committedRead, "--fetch-max-bytes", "64MiB")
	}
	visible := func() int64 {
		got, _, _ := replayJSON(t, c, 0, append([]string{dst}, committedRead...)...)
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
	if !strings.Contains(r.stderr, "resuming the backfill of --transactional-id "+id+" from its position") {
		t.Fatalf("the last run resumed and did not say so:\n%s", r.stderr)
	}
	if v := res.Verification; v.BackfillGroup != replay.PositionGroup(id) || !v.Unchanged {
		t.Fatalf("proof: backfill group %q, unchanged %v, changes %v", v.BackfillGroup, v.Unchanged, v.Changes)
	}
	got, _, _ := replayJSON(t, c, 0, append([]string{dst, "--payload-digest"}, committedRead...)...)
	if got.Records != want.Records || got.PayloadDigest != want.PayloadDigest {
		t.Fatalf("read_committed copy: %d records, digest %s; source: %d, %s", got.Records, got.PayloadDigest, want.Records, want.PayloadDigest)
	}
	// A rerun after completion copies nothing again.
	again, _, _ := replayJSON(t, c, 0, args[1:]...)
	if again.Backfill.Produced != 0 || visible() != want.Records {
		t.Fatalf("a rerun after completion produced %d copies", again.Backfill.Produced)
	}
}
