package lag

import (
	"fmt"
	"testing"
)

// BenchmarkGroupLagFromRows builds the rows of one batch of
// StreamLagFromCommits: LagBatchGroups groups each committed on every
// partition of one topic of 1,000.
func BenchmarkGroupLagFromRows(b *testing.B) {
	const parts = 1000
	topic := "t"
	offs := TopicOffsets{Partitions: PartitionMap[PartitionOffsets]{}, TopicErr: map[string]error{}}
	for p := int32(0); p < parts; p++ {
		offs.Partitions.Set(topic, p, PartitionOffsets{Start: 0, End: 1000 + int64(p)})
	}
	s := &Snapshot{Offsets: offs}
	rows := make([][]CommitRow, LagBatchGroups)
	groups := make([]GroupSnapshot, LagBatchGroups)
	for g := range rows {
		groups[g] = GroupSnapshot{GroupInfo: GroupInfo{Group: fmt.Sprintf("g%d", g), Exists: true, Type: "classic", State: "Empty"}}
		for p := int32(0); p < parts; p++ {
			rows[g] = append(rows[g], CommitRow{Topic: topic, Partition: p, Offset: int64(g)})
		}
	}
	buf := newBatchRows(rows)
	b.ReportAllocs()
	b.ResetTimer()
	var total int64
	for i := 0; i < b.N; i++ {
		buf.reset()
		for g := range rows {
			gl := groupLagFromRows(s, groups[g], rows[g], rows[g], LagOptions{}, buf)
			total += gl.TotalLag
		}
	}
	if want := int64(b.N) * int64(LagBatchGroups) * (1000*parts + parts*(parts-1)/2 - int64(parts)*int64(LagBatchGroups-1)/2); total != want {
		b.Fatalf("total lag %d, want %d", total, want)
	}
}
