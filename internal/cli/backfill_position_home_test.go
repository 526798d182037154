package cli

import (
	"sync/atomic"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/offsetctl/offsetctl/internal/testkit"
	"github.com/offsetctl/offsetctl/replay"
)

// TestBackfillTxnPositionHome (QA): an exactly-once backfill to another
// cluster keeps its position as the position group's committed offsets
// of the source topic's partitions on the target cluster, which refuses
// offsets of a topic or partition it does not have. Without that topic
// there, every run wrote its first copies (aborted, but seen by
// read_uncommitted readers), failed at its position commit (exit 1),
// and told the user to rerun, which failed the same way. Now refused
// before anything is sent or recorded: exit 2, one line, the target
// empty, the audit log empty. With the topic there (its partitions
// covering the replayed ones), the backfill runs and completes.
func TestBackfillTxnPositionHome(t *testing.T) {
	c := kfakeCluster(t)
	src := backfillSource(t, c, 5)
	target := kfakeCluster(t)
	dst := target.Topic(3, nil)
	id := testkit.Name(t, "bf")
	args := func(tc *testkit.Cluster, to string) []string {
		return []string{"replay", src, "--produce-to", to, "--target-brokers", tc.BrokerList(), "--transactional-id", id, "--format", "none", "-q"}
	}
	ends := func(tc *testkit.Cluster, topic string, committed bool) int64 {
		t.Helper()
		var os kadm.ListedOffsets
		var err error
		if committed {
			os, err = tc.Admin().ListCommittedOffsets(testkit.Ctx(t), topic)
		} else {
			os, err = tc.Admin().ListEndOffsets(testkit.Ctx(t), topic)
		}
		if err != nil {
			t.Fatal(err)
		}
		var n int64
		os.Each(func(o kadm.ListedOffset) { n += o.Offset })
		return n
	}
	untouched := func(what string) {
		t.Helper()
		if n := ends(target, dst, false); n != 0 {
			t.Errorf("%s: the target holds %d offsets (uncommitted copies included), want none", what, n)
		}
		if lines := auditLines(t); len(lines) != 0 {
			t.Errorf("%s: %d audit lines, want none: %+v", what, len(lines), lines)
		}
	}
	badInput(t, c, "on the target cluster, which has no topic "+src+", so the position could never be committed", args(target, dst)...)
	untouched("no source topic on the target")

	target.CreateTopic(src, 2, nil)
	badInput(t, c, "whose topic "+src+" has 2 partitions but source partition 2 is replayed", args(target, dst)...)
	untouched("too few partitions")

	wide := kfakeCluster(t)
	wide.CreateTopic(src, 3, nil)
	dst2 := wide.Topic(3, nil)
	mustRun(t, c, 0, args(wide, dst2)...)
	// Each target partition holds its copies and one commit marker,
	// all visible to read_committed readers.
	want := ends(c, src, false) + 3
	if got := ends(wide, dst2, true); got != want {
		t.Fatalf("the backfill to a target with topic %s: last stable offsets sum %d, want %d", src, got, want)
	}
}

// TestBackfillProofAcrossClusters (QA): the replay's proof reads the
// source cluster, and passed over group offsetctl-backfill-ID there as the
// backfill's own position. With --target-brokers on another cluster the
// position lives on the target, so a commit of that group on the source
// during the run is someone else's change, which the proof must report:
// a group with no live member moved, verification failed (exit 3).
func TestBackfillProofAcrossClusters(t *testing.T) {
	c := kfakeCluster(t, kfake.ClusterID("source"))
	src := backfillSource(t, c, 5)
	target := kfakeCluster(t, kfake.ClusterID("target"))
	target.CreateTopic(src, 3, nil)
	dst := target.Topic(3, nil)
	id := testkit.Name(t, "bf")
	var once atomic.Bool
	target.Fake.ControlKey(int16(kmsg.TxnOffsetCommit), func(kmsg.Request) (kmsg.Response, error, bool) {
		target.Fake.KeepControl()
		if once.CompareAndSwap(false, true) {
			target.Fake.SleepControl(func() {
				c.Commit(replay.PositionGroup(id), src, map[int32]int64{1: 123})
			})
		}
		return nil, nil, false
	})
	res, _, _ := replayJSON(t, c, 3, src, "--produce-to", dst, "--target-brokers", target.BrokerList(), "--transactional-id", id, "--format", "none")
	if !once.Load() {
		t.Fatal("no position was committed on the target")
	}
	v := res.Verification
	if v.Unchanged || v.BackfillGroup != "" || len(v.Changes) != 1 || v.Changes[0].Group != replay.PositionGroup(id) {
		t.Fatalf("proof %+v: want the source-side commit of %s reported as a change", v, replay.PositionGroup(id))
	}
	if !res.Backfill.Complete {
		t.Fatalf("backfill %+v", res.Backfill)
	}
	// --target-brokers naming the source cluster itself: the position is
	// there, and its moves are the backfill's own, as without the flag.
	id2 := testkit.Name(t, "here")
	same := c.Topic(3, nil)
	res, _, _ = replayJSON(t, c, 0, src, "--produce-to", same, "--target-brokers", c.BrokerList(), "--transactional-id", id2, "--format", "none")
	if v := res.Verification; !v.Unchanged || v.BackfillGroup != replay.PositionGroup(id2) {
		t.Fatalf("proof of a backfill within the source cluster: %+v", v)
	}
}
