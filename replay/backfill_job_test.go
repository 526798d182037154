package replay

import (
	"strings"
	"testing"

	"github.com/offsetctl/offsetctl/internal/exitcode"
	"github.com/twmb/franz-go/pkg/kadm"
)

// TestPositionMetadataIsBounded: the job committed with each position
// stays under offset.metadata.max.bytes (4096 by default; a broker
// refuses longer metadata) whatever was typed, and still tells two long
// ranges apart.
func TestPositionMetadataIsBounded(t *testing.T) {
	long := strings.Repeat("0=123456789,", 20000)
	topic := strings.Repeat("t", 249)
	job := CheckpointJob{SourceCluster: strings.Repeat("c", 300), SourceTopic: topic, SourceTopicID: "Zm9vYmFyYmF6cXV4cXV1eA", From: long, Until: long, Partitions: long,
		Isolation: "read_committed", TargetCluster: strings.Repeat("d", 300), TargetTopic: topic, TargetTopicID: "Zm9vYmFyYmF6cXV4cXV1eA", Partitioner: "same", SourceHeader: true}
	n := int64(1 << 62)
	meta := encodePosition(positionJob(job), &n)
	if len(meta) > 2048 {
		t.Fatalf("position metadata of %d bytes", len(meta))
	}
	m, kind := decodePosition(meta)
	if kind != metaOurs || *m.Copied != n || m.Job != positionJob(job) {
		t.Fatalf("decoded %+v (kind %d)", m, kind)
	}
	other := job
	other.From = long + "1=2"
	if what := m.Job.Differs(positionJob(other)); what != "--from" {
		t.Fatalf("a longer --from differs in %q", what)
	}
	for _, s := range []string{"", "x", `{"format":"offsetctl-backfill-position","v":2,"job":{"source_topic":"a"}}`, `{"format":"offsetctl-backfill-position","v":1}`} {
		if _, kind := decodePosition(s); kind == metaOurs {
			t.Errorf("%q read as a position", s)
		}
	}
}

// TestJudgePositions: which positions a transactional backfill resumes
// from, and which it refuses.
func TestJudgePositions(t *testing.T) {
	job := CheckpointJob{SourceTopic: "src", TargetTopic: "dst", Partitioner: "same"}
	b := &backfiller{src: "src", job: job, opts: ProduceOptions{TransactionalID: "id"}}
	n := int64(7)
	ours := encodePosition(job, &n)
	other := job
	other.Until = "100"
	offs := func(es ...kadm.Offset) kadm.OffsetResponses {
		out := kadm.OffsetResponses{}
		for _, e := range es {
			if out[e.Topic] == nil {
				out[e.Topic] = map[int32]kadm.OffsetResponse{}
			}
			out[e.Topic][e.Partition] = kadm.OffsetResponse{Offset: e}
		}
		return out
	}
	st, err := b.judgePositions(offs(kadm.Offset{Topic: "src", Partition: 0, At: 10, Metadata: ours}, kadm.Offset{Topic: "src", Partition: 1, At: 4}, kadm.Offset{Topic: "src", Partition: 2, At: -1}))
	if err != nil || len(st.pos) != 2 || st.pos[0] != 10 || st.pos[1] != 4 || st.copied[0] != 7 || !st.unknown[1] || !st.legacy {
		t.Fatalf("state %+v, err %v", st, err)
	}
	for _, tc := range []struct {
		o    kadm.Offset
		want string
	}{
		{kadm.Offset{Topic: "src", Partition: 0, At: 10, Metadata: encodePosition(other, nil)}, "belongs to another backfill (--until differs)"},
		{kadm.Offset{Topic: "elsewhere", Partition: 0, At: 10}, "belongs to another backfill (the source topic differs)"},
		{kadm.Offset{Topic: "src", Partition: 0, At: 10, Metadata: "note"}, "holds offsets that are not a backfill position"},
	} {
		_, err := b.judgePositions(offs(kadm.Offset{Topic: "src", Partition: 1, At: 3, Metadata: ours}, tc.o))
		if exitcode.Code(err) != exitcode.Usage || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want exit 2 with %q", tc.o, err, tc.want)
		}
	}
}

// TestJobDifferences names every field that differs, a topic's id only
// where the topic is the same one by name and cluster.
func TestJobDifferences(t *testing.T) {
	a := CheckpointJob{SourceCluster: "c", SourceTopic: "src", SourceTopicID: "i1", TargetCluster: "c", TargetTopic: "dst", TargetTopicID: "i2", Until: "0=10"}
	b := a
	b.TargetTopic, b.TargetTopicID, b.Until = "other", "i3", ""
	if got := strings.Join(a.Differences(b), "|"); got != "--until|--produce-to" {
		t.Errorf("differences %q", got)
	}
	b = a
	b.SourceTopicID = "i9"
	if got := strings.Join(a.Differences(b), "|"); got != "the source topic's id (recreated since?)" || a.Differs(b) != got {
		t.Errorf("differences %q", got)
	}
	// Another source topic on the same cluster has another id: no news,
	// the topic alone is named; so on another cluster with the same name.
	b = a
	b.SourceTopic, b.SourceTopicID = "src2", "i8"
	if got := strings.Join(a.Differences(b), "|"); got != "the source topic" {
		t.Errorf("another source topic: differences %q", got)
	}
	b = a
	b.SourceCluster, b.SourceTopicID = "c2", "i8"
	if got := strings.Join(a.Differences(b), "|"); got != "the source cluster" {
		t.Errorf("another source cluster: differences %q", got)
	}
}
