package cli

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/offsetctl/offsetctl/internal/testkit"
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
