package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/offsetctl/offsetctl/internal/testkit"
	"github.com/offsetctl/offsetctl/replay"
)

// TestReplayShardMerge: a 12-partition topic replayed as 3 shards
// (--shard I/3, each with its own records, digest file and proof); `digest
// merge` of the three files gives the digest (and payload digest) of one
// unsharded run of the same range, and refuses a missing shard, an
// overlapping shard, a shard count mismatch and a different range with
// exit 2. Runs on kfake, and on Apache Kafka under make test-kafka
// (KAFKA_BROKERS).
func TestReplayShardMerge(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(12, nil)
	base := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
	per := map[int32]int{}
	want := int64(0)
	for p := int32(0); p < 12; p++ {
		if p == 7 {
			continue // an empty partition: left out of the digest
		}
		per[p] = 5 + 3*int(p)
		want += int64(per[p])
	}
	c.Produce(topic, per, base)
	group := testkit.Name(t, "shard-g")
	c.Commit(group, topic, map[int32]int64{0: 2, 5: 4, 10: 1})

	dir := t.TempDir()
	single := filepath.Join(dir, "single.json")
	one, lines, _ := replayJSON(t, c, 0, topic, "--digest-out", single, "--payload-digest")
	if one.Records != want || len(lines) != int(want) || one.DigestFile != single || one.Shard != nil {
		t.Fatalf("single run: %d records, %d lines, digest file %q, shard %+v; want %d", one.Records, len(lines), one.DigestFile, one.Shard, want)
	}

	files := make([]string, 3)
	var sum int64
	var shardLines []replay.Line
	for i := range files {
		files[i] = filepath.Join(dir, fmt.Sprintf("shard-%d.json", i))
		res, lines, _ := replayJSON(t, c, 0, topic, "--shard", fmt.Sprintf("%d/3", i), "--digest-out", files[i], "--payload-digest")
		wantParts := []int32{int32(i), int32(i + 3), int32(i + 6), int32(i + 9)}
		if res.Shard == nil || !slices.Equal(res.Shard.Partitions, wantParts) || len(res.Shard.Selected) != 12 || res.Shard.Index != i || res.Shard.Count != 3 {
			t.Fatalf("shard %d: %+v, want partitions %v of 12", i, res.Shard, wantParts)
		}
		var n int64
		for _, p := range wantParts {
			n += int64(per[p])
		}
		if res.Records != n || len(lines) != int(n) || len(res.Partitions) != 4 || !res.Verification.Unchanged || res.Verification.GroupsChecked < 1 {
			t.Fatalf("shard %d: %d records (%d lines), %d partitions, proof %+v; want %d", i, res.Records, len(lines), len(res.Partitions), res.Verification, n)
		}
		for _, l := range replayParseLines(t, lines) {
			if int(l.Partition)%3 != i {
				t.Fatalf("shard %d wrote a record of partition %d", i, l.Partition)
			}
			shardLines = append(shardLines, l)
		}
		if res.Digest == one.Digest {
			t.Fatalf("shard %d has the whole range's digest", i)
		}
		sum += res.Records
	}
	if sum != want {
		t.Fatalf("the shards hold %d records, the single run %d", sum, want)
	}
	// An independent oracle: the documented digest recomputed from the
	// three shards' records together is the single run's.
	if got := replayDigestOf(shardLines); got != one.Digest {
		t.Fatalf("digest recomputed from the shards' records %s, single run %s", got, one.Digest)
	}

	r := mustRun(t, c, 0, "digest", "merge", files[2], files[0], files[1], "-o", "json")
	var m replay.MergeResult
	decodeJSON(t, r, &m)
	if m.Digest != one.Digest || m.PayloadDigest != one.PayloadDigest || m.Records != want || m.DigestVersion != replay.DigestVersion || len(m.Partitions) != 12 || m.ShardCount != 3 || !m.ProofUnchanged {
		t.Fatalf("merge: digest %s payload %s records %d partitions %d; single run: %s %s %d",
			m.Digest, m.PayloadDigest, m.Records, len(m.Partitions), one.Digest, one.PayloadDigest, want)
	}
	// The single run's own file merges to itself.
	r = mustRun(t, c, 0, "digest", "merge", single)
	if !strings.Contains(r.stdout, "DIGEST "+one.Digest) || !strings.Contains(r.stdout, "SHARDS 1") {
		t.Fatalf("merge of the single run's file:\n%s", r.stdout)
	}
	// The table shows the merged digest and the shards.
	r = mustRun(t, c, 0, append([]string{"digest", "merge"}, files...)...)
	if !strings.Contains(r.stdout, "DIGEST "+one.Digest) || !strings.Contains(r.stdout, "2/3") {
		t.Fatalf("merge table:\n%s", r.stdout)
	}

	// Refusals: one line, exit 2.
	badInput(t, c, "missing shard: 2/3 of 3 not given (partitions 2,5,8,11 of the range are in no file)", "digest", "merge", files[0], files[1])
	dup := filepath.Join(dir, "shard-1-again.json")
	data, err := os.ReadFile(files[1])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dup, data, 0o644); err != nil {
		t.Fatal(err)
	}
	badInput(t, c, "overlapping shards", "digest", "merge", files[0], files[1], dup, files[2])
	four := filepath.Join(dir, "shard-0-of-4.json")
	replayJSON(t, c, 0, topic, "--shard", "0/4", "--digest-out", four)
	badInput(t, c, "shard count mismatch", "digest", "merge", four, files[1], files[2])
	other := filepath.Join(dir, "shard-2-until.json")
	replayJSON(t, c, 0, topic, "--shard", "2/3", "--until", "3", "--digest-out", other)
	badInput(t, c, `--until "" vs "3"`, "digest", "merge", files[0], files[1], other)
	badInput(t, c, "the index is 0-based: want 0 to 2 for 3 shards", "replay", topic, "--shard", "3/3")
	badInput(t, c, "already exists: a digest file is never overwritten", "replay", topic, "--digest-out", single, "--format", "none")

	// With --partitions, the shard takes the selected partitions it owns.
	res, _, _ := replayJSON(t, c, 0, topic, "--partitions", "1,2,7,8", "--shard", "0/2", "--no-verify")
	if res.Shard == nil || !slices.Equal(res.Shard.Partitions, []int32{2, 8}) || !slices.Equal(res.Shard.Selected, []int32{1, 2, 7, 8}) || res.Records != int64(per[2]+per[8]) {
		t.Fatalf("--partitions 1,2,7,8 --shard 0/2: %+v, %d records", res.Shard, res.Records)
	}

	// No group moved: re-read the broker.
	if got := c.Committed(group)[topic]; len(got) != 3 || got[0] != 2 || got[5] != 4 || got[10] != 1 {
		t.Fatalf("the group's commits moved: %v", got)
	}
}
