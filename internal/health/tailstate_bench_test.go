package health

import (
	"encoding/binary"
	"fmt"
	"testing"
	"time"
)

// benchFleet is bench/exporter_tail.md's fleet and load as records of
// __consumer_offsets: 500 groups committed on 1,000 partitions of one
// topic, then every second the 50 busy groups (every 10th) commit all of
// their partitions (key version 1, value version 3, as Apache Kafka 4.4
// writes a commit). next rewrites one reusable value with the commit's
// offset and time, so a run reads 50,000 distinct keys in log order.
type benchFleet struct {
	keys  [][]byte // the busy groups' keys, in commit order
	part  []int32  // their offsets-topic partitions
	value []byte
	tsAt  int   // where the commit timestamp sits in value
	start int64 // the first second's ms
	n     int64 // records made
}

func newBenchFleet(st *TailState) *benchFleet {
	const groups, parts = 500, 1000
	f := &benchFleet{start: time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC).UnixMilli()}
	f.value = commitValue(3, 0, 0)
	f.tsAt = len(f.value) - 8
	for g := range groups {
		name := fmt.Sprintf("tail-bench-%04d", g)
		p := OffsetsPartition(name, 3)
		for q := range int32(parts) {
			k := commitKey(1, name, "tail-bench", q)
			st.Apply(TailRecord{Partition: p, Key: k, Value: commitValue(3, int64(g+int(q))%4, f.start-time.Hour.Milliseconds())})
			if g%10 == 0 {
				f.keys, f.part = append(f.keys, k), append(f.part, p)
			}
		}
	}
	return f
}

// next is the next busy commit: the fleet's keys in turn, one second later
// each round of them.
func (f *benchFleet) next() TailRecord {
	i := int(f.n % int64(len(f.keys)))
	sec := f.n / int64(len(f.keys))
	f.n++
	binary.BigEndian.PutUint64(f.value[2:], uint64(sec+4))
	binary.BigEndian.PutUint64(f.value[f.tsAt:], uint64(f.start+sec*1000))
	return TailRecord{Partition: f.part[i], Key: f.keys[i], Value: f.value}
}

// BenchmarkTailApply is the exporter's tail applying one commit record of
// the fleet (warm state of 500,000 group-partitions; the default cap).
func BenchmarkTailApply(b *testing.B) {
	for _, w := range []time.Duration{0, 10 * time.Minute} {
		b.Run(fmt.Sprintf("window=%s", w), func(b *testing.B) {
			st := NewTailState(TailOptions{Window: w})
			f := newBenchFleet(st)
			// A first second of commits so a window's slices exist.
			for range len(f.keys) {
				st.Apply(f.next())
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				st.Apply(f.next())
			}
		})
	}
}
