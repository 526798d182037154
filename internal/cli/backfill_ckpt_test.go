package cli

import (
	"cmp"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetctl/offsetctl/internal/audit"
	"github.com/offsetctl/offsetctl/internal/testkit"
	"github.com/offsetctl/offsetctl/replay"
)

// resumeLine is the stderr line of a run that resumed from a checkpoint.
var resumeLine = regexp.MustCompile(`resuming the backfill from checkpoint .*: (\d+) record\(s\) already in`)

// ckptSource is a 3-partition source of n records per partition and an
// empty 3-partition target whose max.message.bytes (16 KiB) keeps the
// backfill's batches small: many produce requests, so many points to be
// killed at.
func ckptSource(t *testing.T, c *testkit.Cluster, per int) (src, dst string) {
	t.Helper()
	src = c.Topic(3, nil)
	var recs []*kgo.Record
	for p := int32(0); p < 3; p++ {
		for i := 0; i < per; i++ {
			recs = append(recs, &kgo.Record{Topic: src, Partition: p, Key: []byte(fmt.Sprintf("k-%d-%d", p, i)),
				Value: []byte(strings.Repeat(fmt.Sprintf("v-%d-%d;", p, i), 8))})
		}
	}
	c.ProduceRecords(recs...)
	small := "16384"
	return src, c.Topic(3, map[string]*string{"max.message.bytes": &small})
}

// dedupCopy reads every record of dst (uncommitted: a plain backfill
// writes no transaction), checks each carries the source header, and
// produces the first copy of every source record to a new topic, in the
// source partition and offset order the header names: the deduplicated
// copy, whatever the partitioner. It returns that topic, how many records
// dst holds, and how many distinct source records they copy.
func dedupCopy(t *testing.T, c *testkit.Cluster, src, dst string) (string, int64, int) {
	t.Helper()
	_, lines, _ := replayJSON(t, c, 0, dst, "--isolation", "uncommitted", "--no-verify")
	first := map[[2]int64]*kgo.Record{}
	out := c.Topic(3, nil)
	for _, l := range replayParseLines(t, lines) {
		var from string
		for _, h := range l.Headers {
			if h.Key == replay.SourceHeader {
				from = string(h.Value)
			}
		}
		var p, off int64
		if n, err := fmt.Sscanf(strings.TrimPrefix(from, src+"/"), "%d/%d", &p, &off); err != nil || n != 2 || !strings.HasPrefix(from, src+"/") {
			t.Fatalf("%s/%d@%d has no source header of %s: %q", dst, l.Partition, l.Offset, src, from)
		}
		if _, ok := first[[2]int64{p, off}]; !ok {
			first[[2]int64{p, off}] = &kgo.Record{Topic: out, Partition: int32(p), Key: l.Key, Value: l.Value, Headers: l.Headers, Timestamp: time.UnixMilli(l.Timestamp)}
		}
	}
	keys := make([][2]int64, 0, len(first))
	for k := range first {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b [2]int64) int { return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1])) })
	recs := make([]*kgo.Record, len(keys))
	for i, k := range keys {
		recs[i] = first[k]
	}
	c.ProduceRecords(recs...)
	return out, int64(len(lines)), len(first)
}

// TestBackfillCheckpointKillNine (issue 9): an at-least-once backfill with
// --checkpoint is killed with SIGKILL at eight points of eight successive
// runs of the same command line (before the first copy, with produce
// requests in flight, after acknowledgements, deep in a run), then run to
// the end. Each
// resume reports the records it may duplicate. At the end: every source
// record is in the target at least once; the target holds exactly the
// source count plus the possible duplicates reported (nobody else writes
// to it); the first copy of each source record, in target order, has the
// source's payload digest; a rerun does nothing; the audit log names the
// checkpoint.
func TestBackfillCheckpointKillNine(t *testing.T) {
	for _, partitioner := range []string{"same", "key"} {
		t.Run(partitioner, func(t *testing.T) { checkpointKillNine(t, partitioner) })
	}
}

// checkpointKillNine is TestBackfillCheckpointKillNine with one
// partitioner (with key, copies of one source partition are acknowledged
// out of order across target partitions).
func checkpointKillNine(t *testing.T, partitioner string) {
	c := testkit.New(t)
	const per = 10000
	src, dst := ckptSource(t, c, per)
	ckpt := filepath.Join(t.TempDir(), "bf.ckpt")
	want, _, _ := replayJSON(t, c, 0, src, "--payload-digest", "--format", "none", "--no-verify")
	// The default pacing: a write after each acknowledged batch.
	args := []string{"--audit-log", testAuditLog(t), "replay", src, "--produce-to", dst, "--source-header", "--checkpoint", ckpt,
		"--format", "none", "-q", "--fetch-max-bytes", "64KiB", "--partitioner", partitioner}
	points := [][]string{
		{"read ListOffsets"},
		{"wrote Produce"},
		{"read Produce", "read Produce"},
		{"read Produce", "wrote Produce", "wrote Produce"},
		{"read Produce", "read Produce", "read Produce", "read Produce", "read Produce"},
		{"wrote Produce", "wrote Produce", "wrote Produce", "wrote Produce", "wrote Produce", "wrote Produce"},
		{"read Produce", "read Produce", "read Produce"},
		// Deep in a run, far from its first checkpoint write: written
		// after each acknowledged batch, the checkpoint is behind by
		// the copies in flight, not by everything since the run began.
		slices.Repeat([]string{"read Produce"}, 30),
	}
	var dups int64
	kills := 0
	for _, steps := range points {
		existed := fileExists(ckpt)
		err, reached, stderr := childAtLog(t, c, args, steps, func(cmd *exec.Cmd) { _ = cmd.Process.Kill() })
		if m := resumeLine.FindStringSubmatch(stderr); m != nil {
			n, _ := strconv.ParseInt(m[1], 10, 64)
			dups += n
		} else if existed && !strings.Contains(stderr, "already complete") {
			t.Fatalf("a run after a kill did not say what it may duplicate:\n%s", stderr)
		}
		t.Logf("killed after %q (%v); possible duplicates so far %d; the checkpoint left counts %d record(s) of others below its target ends", steps, reached, dups, othersBelow(t, ckpt))
		if !reached {
			if err != nil {
				t.Fatalf("run not killed but failed: %v\n%s", err, stderr)
			}
			break
		}
		kills++
	}
	if kills < 5 {
		t.Fatalf("only %d runs were killed before the copy completed: make it longer", kills)
	}
	res, _, r := replayJSON(t, c, 0, args[3:]...)
	ck := res.Backfill.Checkpoint
	if !res.Backfill.Complete || ck == nil || !ck.Complete || !ck.Resumed {
		t.Fatalf("the last run: %+v %+v\n%s", res.Backfill, ck, r.stderr)
	}
	dups += ck.PossibleDuplicates
	// The resume line counts what the runs before left; a second line
	// counts what the broker wrote for them after this run started (a
	// killed run's last copies), and the JSON both.
	var resumed, more int64 = -1, 0
	if m := resumeLine.FindStringSubmatch(r.stderr); m != nil {
		resumed, _ = strconv.ParseInt(m[1], 10, 64)
	}
	if m := moreLine.FindStringSubmatch(r.stderr); m != nil {
		more, _ = strconv.ParseInt(m[1], 10, 64)
		if all, _ := strconv.ParseInt(m[2], 10, 64); all != ck.PossibleDuplicates {
			t.Fatalf("the last line gives %d in all, the JSON %d:\n%s", all, ck.PossibleDuplicates, r.stderr)
		}
	}
	t.Logf("the last run: %d possible duplicates on resuming, %d more written while it copied", resumed, more)
	if resumed < 0 || resumed+more != ck.PossibleDuplicates {
		t.Fatalf("the resume line (%d) and the line after (%d) do not add up to the JSON's count %d:\n%s", resumed, more, ck.PossibleDuplicates, r.stderr)
	}
	dedup, total, distinct := dedupCopy(t, c, src, dst)
	t.Logf("source %d records; target %d records, %d possible duplicates reported, %d distinct source records", want.Records, total, dups, distinct)
	if int64(distinct) != want.Records {
		t.Fatalf("the target copies %d distinct source records of %d", distinct, want.Records)
	}
	if total-dups != want.Records {
		t.Fatalf("target %d records - %d possible duplicates = %d, want the source's %d", total, dups, total-dups, want.Records)
	}
	got, _, _ := replayJSON(t, c, 0, dedup, "--payload-digest", "--format", "none", "--no-verify")
	if got.Records != want.Records || got.PayloadDigest != want.PayloadDigest {
		t.Fatalf("deduplicated copy: %d records, digest %s; source %d, %s", got.Records, got.PayloadDigest, want.Records, want.PayloadDigest)
	}

	// Complete: the same command does nothing and says so.
	again, _, r := replayJSON(t, c, 0, args[3:]...)
	if again.Backfill.Produced != 0 || again.Records != 0 || again.Backfill.Checkpoint == nil || !again.Backfill.Checkpoint.AlreadyComplete ||
		!strings.Contains(r.stderr, "backfill already complete according to checkpoint") {
		t.Fatalf("rerun after completion: %+v\n%s", again.Backfill, r.stderr)
	}
	if _, n, _ := dedupCopy(t, c, src, dst); n != total {
		t.Fatalf("the rerun after completion changed the target: %d records, was %d", n, total)
	}
	abs, _ := filepath.Abs(ckpt)
	var last audit.Entry
	for _, e := range readAuditLog(t) {
		if e.Action == audit.ActBackfill {
			last = e // the rerun after completion
		}
	}
	if last.Checkpoint != abs || last.PossibleDuplicates == nil || *last.PossibleDuplicates != 0 {
		t.Fatalf("the audit entry does not name the checkpoint: %+v", last)
	}
}

// TestBackfillCheckpointRefusals: what a checkpoint cannot do is bad input
// (exit 2, one line), and nothing is copied.
func TestBackfillCheckpointRefusals(t *testing.T) {
	c := testkit.New(t)
	src, dst := ckptSource(t, c, 50)
	ckpt := filepath.Join(t.TempDir(), "bf.ckpt")
	base := []string{"replay", src, "--produce-to", dst, "--checkpoint", ckpt, "--format", "none", "-q"}
	oneLine := func(r result, want string) {
		t.Helper()
		if lines := strings.Split(strings.TrimSpace(r.stderr), "\n"); len(lines) != 1 || !strings.Contains(r.stderr, want) {
			t.Fatalf("stderr is not one line with %q:\n%s", want, r.stderr)
		}
	}
	dstCount := func() int64 {
		got, _, _ := replayJSON(t, c, 0, dst, "--isolation", "uncommitted", "--format", "none", "--no-verify")
		return got.Records
	}
	oneLine(mustRun(t, c, 2, append(base, "--transactional-id", "x")...), "--checkpoint and --transactional-id exclude each other")
	oneLine(mustRun(t, c, 2, append(base, "--follow")...), "--checkpoint cannot be combined with --follow")
	oneLine(mustRun(t, c, 2, "replay", src, "--checkpoint", ckpt), "--checkpoint needs --produce-to")
	oneLine(mustRun(t, c, 2, "replay", src, "--produce-to", dst, "--checkpoint-interval", "1s"), "--checkpoint-interval needs --checkpoint")
	oneLine(mustRun(t, c, 2, append(base, "--checkpoint-interval", "-1s")...), "--checkpoint-interval needs --checkpoint and a duration of 0 or more")
	oneLine(mustRun(t, c, 2, "replay", src, "--produce-to", dst, "--checkpoint", "/dev/null"), "not a regular file")
	if err := os.WriteFile(ckpt, []byte("id,offset\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	oneLine(mustRun(t, c, 2, base...), "not a backfill checkpoint")
	// Over the size limit (a sparse file: refused by its size, unread),
	// and one string past the token limit: one line each, exit 2.
	if err := os.Truncate(ckpt, replay.CheckpointLimit+1); err != nil {
		t.Fatal(err)
	}
	oneLine(mustRun(t, c, 2, base...), fmt.Sprintf("--checkpoint %s: %d bytes, larger than a backfill checkpoint can be (64 MiB", ckpt, replay.CheckpointLimit+1))
	if err := os.WriteFile(ckpt, []byte(`{"format":"`+strings.Repeat("A", 2<<20)+`"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	oneLine(mustRun(t, c, 2, base...), "not a backfill checkpoint (a string or number longer than 1 MiB)")
	if n := dstCount(); n != 0 {
		t.Fatalf("%d records copied by refused runs, want none", n)
	}
	if err := os.Remove(ckpt); err != nil {
		t.Fatal(err)
	}
	// Half a run (--until 0=10,...), then another command line with the
	// same file: refused, naming what differs.
	mustRun(t, c, 0, append(base, "--until", "20")...)
	if n := dstCount(); n != 60 {
		t.Fatalf("target has %d records after the first run, want 60", n)
	}
	oneLine(mustRun(t, c, 2, base...), "belongs to another backfill (--until differs)")
	oneLine(mustRun(t, c, 2, append(base, "--until", "20", "--partitioner", "key")...), "belongs to another backfill (--partitioner differs)")
	other := c.Topic(3, nil)
	oneLine(mustRun(t, c, 2, "replay", src, "--produce-to", other, "--checkpoint", ckpt, "--until", "20", "--format", "none", "-q"), "belongs to another backfill (--produce-to differs)")
	if n := dstCount(); n != 60 {
		t.Fatalf("a refused run copied: target has %d records", n)
	}
	r := mustRun(t, c, 0, append(base, "--until", "20")...)
	if !strings.Contains(r.stderr, "already complete") || dstCount() != 60 {
		t.Fatalf("rerun of the complete range:\n%s", r.stderr)
	}
	// A checkpoint at offset 5 of partition 0 whose records were deleted
	// since (the log starts at 10): resuming would leave a gap.
	ck, err := replay.ReadCheckpoint(ckpt, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	ck.Complete = false
	for i := range ck.Ranges {
		if ck.Ranges[i].Partition == 0 {
			ck.Ranges[i].Next = 5
		}
	}
	if err := replay.WriteCheckpoint(ckpt, *ck); err != nil {
		t.Fatal(err)
	}
	c.DeleteRecords(src, 0, 10)
	oneLine(mustRun(t, c, 2, append(base, "--until", "20")...), "partition 0 resumes at offset 5 but the source log now starts at 10")
	if n := dstCount(); n != 60 {
		t.Fatalf("a refused resume copied: target has %d records", n)
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// readAuditLog reads the test's audit log.
func readAuditLog(t *testing.T) []audit.Entry {
	t.Helper()
	f, err := os.Open(testAuditLog(t))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	es, err := audit.Read(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) == 0 {
		t.Fatal("the audit log is empty")
	}
	return es
}

// othersBelow is the others_below of the checkpoint at path (0 when it
// has none, or there is no file yet).
func othersBelow(t *testing.T, path string) int64 {
	t.Helper()
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return 0
	}
	c, err := replay.ParseCheckpoint(data)
	if err != nil {
		t.Fatalf("checkpoint %s: %v", path, err)
	}
	return c.OthersBelow
}
