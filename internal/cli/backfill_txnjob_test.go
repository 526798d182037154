package cli

import (
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/offsetctl/offsetctl/internal/audit"
	"github.com/offsetctl/offsetctl/internal/testkit"
	"github.com/offsetctl/offsetctl/replay"
)

// TestTransactionalIDReuseRefused (QA): a --transactional-id resumes from
// the positions committed under it, which said nothing of the backfill
// they were the position of. Reused with another target or range, it
// started every partition at the first backfill's position and said
// "replayed 30, produced 30, complete" while the new target lacked
// offsets 0-9 of each partition (after a complete first run: "replayed 0,
// complete", nothing copied). The positions now record their job; a run
// of another job under the id is refused (exit 2, one line naming what
// differs, nothing copied, nothing recorded), after a partial first run
// and after a complete one. The same command resumes and says so, with
// the positions and the records already copied.
func TestTransactionalIDReuseRefused(t *testing.T) {
	c := kfakeCluster(t)
	src := backfillSource(t, c, 20) // partition 0 also holds 5 binary records
	dstA, dstB := c.Topic(3, nil), c.Topic(3, nil)
	id := testkit.Name(t, "reuse")
	until := "0=10,1=10,2=10"
	first := []string{"replay", src, "--produce-to", dstA, "--transactional-id", id, "--until", until, "--format", "none", "-q"}
	r := mustRun(t, c, 0, first...)
	if strings.Contains(r.stderr, "resuming") {
		t.Fatalf("a first run says it resumes:\n%s", r.stderr)
	}
	want := "--transactional-id " + id + ": its position (group " + replay.PositionGroup(id) + ") belongs to another backfill (%s differs): this backfill would start where that one stopped; pick a new --transactional-id for it"
	refused := func(what string, args ...string) {
		t.Helper()
		badInput(t, c, strings.Replace(want, "%s", what, 1), args...)
	}
	// Another target, the same range; another range, the same target;
	// another partitioner.
	refused("--produce-to", "replay", src, "--produce-to", dstB, "--transactional-id", id, "--until", until, "--format", "none", "-q")
	refused("--until", "replay", src, "--produce-to", dstA, "--transactional-id", id, "--format", "none", "-q")
	refused("--partitioner", append(first, "--partitioner", "key")...)
	refused("--source-header", append(first, "--source-header")...)
	badInput(t, c, "belongs to another backfill (--until and --produce-to differ)", "replay", src, "--produce-to", dstB, "--transactional-id", id, "--format", "none", "-q")
	if n := countRecords(t, c, dstB); n != 0 {
		t.Fatalf("a refused backfill copied %d records to %s", n, dstB)
	}
	if es := historyOf(t); len(es) != 1 {
		t.Fatalf("refusals are on the record: %+v", es)
	}
	// The same command resumes, and says from where.
	res, _, r := replayJSON(t, c, 0, first[1:]...)
	line := "resuming the backfill of --transactional-id " + id + " from its position (group " + replay.PositionGroup(id) + ") at 0=10,1=10,2=10: 30 record(s) already copied to " + dstA
	if !strings.Contains(r.stderr, line) || res.Backfill.Produced != 0 || !res.Backfill.Complete {
		t.Fatalf("the rerun: %+v\n%s", res.Backfill, r.stderr)
	}

	// After a complete copy, another target is refused too (it was
	// "replayed 0, produced 0, complete").
	id2, dstC, dstD := testkit.Name(t, "full"), c.Topic(3, nil), c.Topic(3, nil)
	mustRun(t, c, 0, "replay", src, "--produce-to", dstC, "--transactional-id", id2, "--format", "none", "-q")
	badInput(t, c, "belongs to another backfill (--produce-to differs)", "replay", src, "--produce-to", dstD, "--transactional-id", id2, "--format", "none", "-q")
	if n := countRecords(t, c, dstD); n != 0 {
		t.Fatalf("a refused backfill copied %d records to %s", n, dstD)
	}
	res, _, r = replayJSON(t, c, 0, src, "--produce-to", dstC, "--transactional-id", id2, "--format", "none")
	if !strings.Contains(r.stderr, "at 0=25,1=20,2=20: 65 record(s) already copied to "+dstC) || res.Backfill.Produced != 0 {
		t.Fatalf("the rerun of a complete copy: %+v\n%s", res.Backfill, r.stderr)
	}
}

// TestTransactionalIDOlderPositions: positions an older offsetctl
// committed carry no job. On the source topic they are resumed with a
// warning (the same command rerun across an upgrade), and the first
// commit records the job, so that another backfill under the id is
// refused from then on. On another topic they are another backfill's;
// offsets with metadata that is not a position are refused.
func TestTransactionalIDOlderPositions(t *testing.T) {
	c := kfakeCluster(t)
	src := backfillSource(t, c, 20)
	dst, other := c.Topic(3, nil), c.Topic(3, nil)
	id := testkit.Name(t, "old")
	c.Commit(replay.PositionGroup(id), src, map[int32]int64{0: 15, 1: 10, 2: 10}) // no metadata, as before
	res, _, r := replayJSON(t, c, 0, src, "--produce-to", dst, "--transactional-id", id, "--format", "none")
	if !strings.Contains(r.stderr, "offsetctl: warning: --transactional-id "+id+": its position (group "+replay.PositionGroup(id)+") was written by an older offsetctl, which recorded no job") ||
		!strings.Contains(r.stderr, "at 0=15,1=10,2=10: how many records earlier runs copied is not recorded") ||
		res.Backfill.Produced != 30 || !res.Backfill.Complete {
		t.Fatalf("resuming older positions: %+v\n%s", res.Backfill, r.stderr)
	}
	badInput(t, c, "belongs to another backfill (--produce-to differs)", "replay", src, "--produce-to", other, "--transactional-id", id, "--format", "none", "-q")

	// Older positions on another topic: another backfill's.
	id2 := testkit.Name(t, "old2")
	c.Commit(replay.PositionGroup(id2), other, map[int32]int64{0: 1})
	badInput(t, c, "belongs to another backfill (the source topic differs)", "replay", src, "--produce-to", dst, "--transactional-id", id2, "--format", "none", "-q")
	// Metadata that is not a position: refused.
	id3 := testkit.Name(t, "foreign")
	offs := kadm.Offsets{}
	offs.Add(kadm.Offset{Topic: src, Partition: 0, At: 3, LeaderEpoch: -1, Metadata: "some consumer's note"})
	if err := c.Admin().CommitAllOffsets(testkit.Ctx(t), replay.PositionGroup(id3), offs); err != nil {
		t.Fatal(err)
	}
	badInput(t, c, "holds offsets that are not a backfill position this offsetctl wrote", "replay", src, "--produce-to", dst, "--transactional-id", id3, "--format", "none", "-q")
	if n := countRecords(t, c, other); n != 0 {
		t.Fatalf("refused backfills copied %d records to %s", n, other)
	}
	es := historyOf(t)
	if len(es) != 1 || es[0].Action != audit.ActBackfill {
		t.Fatalf("history: %+v", es)
	}
}
