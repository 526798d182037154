package health

import (
	"encoding/binary"
	"fmt"
	"runtime"
	"runtime/metrics"
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// benchFleet is bench/exporter_tail.md's fleet and load as records of
// __consumer_offsets: 500 groups committed on 1,000 partitions of one
// topic, then every second the 50 busy groups (every 10th) commit all of
// their partitions (key version 1; value version 3, or 4 with the topic
// id as a tag as Apache Kafka 4.4 writes a commit). next rewrites one
// reusable value with the commit's offset and time, so a run reads 50,000
// distinct keys in log order.
type benchFleet struct {
	keys  [][]byte // the busy groups' keys, in commit order
	part  []int32  // their offsets-topic partitions
	value []byte
	tsAt  int   // where the commit timestamp sits in value
	start int64 // the first second's ms
	n     int64 // records made
}

func newBenchFleet(st *TailState, version int16) *benchFleet {
	const groups, parts = 500, 1000
	f := &benchFleet{start: time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC).UnixMilli()}
	v := kmsg.NewOffsetCommitValue()
	v.Version, v.LeaderEpoch = version, 3
	if version >= 4 {
		v.TopicID = [16]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	}
	f.value = v.AppendTo(nil)
	// version, offset, leader epoch, empty metadata (an int16 length; a
	// one-byte compact length in version 4), then the timestamp.
	f.tsAt = 2 + 8 + 4 + 2
	if version >= 4 {
		f.tsAt--
	}
	for g := range groups {
		name := fmt.Sprintf("tail-bench-%04d", g)
		p := OffsetsPartition(name, 3)
		for q := range int32(parts) {
			k := commitKey(1, name, "tail-bench", q)
			val := slices.Clone(f.value)
			binary.BigEndian.PutUint64(val[2:], uint64(g+int(q))%4)
			binary.BigEndian.PutUint64(val[f.tsAt:], uint64(f.start-time.Hour.Milliseconds()))
			st.Apply(TailRecord{Partition: p, Key: k, Value: val})
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
// the fleet (warm state of 500,000 group-partitions; the default cap):
// value version 3 (the benchmark's first records), and 4 (what Apache
// Kafka 4.4 writes: value=4).
func BenchmarkTailApply(b *testing.B) {
	for _, c := range []struct {
		w       time.Duration
		version int16
		name    string
	}{{0, 3, "window=0s"}, {10 * time.Minute, 3, "window=10m0s"}, {0, 4, "window=0s/value=4"}, {10 * time.Minute, 4, "window=10m0s/value=4"}} {
		b.Run(c.name, func(b *testing.B) {
			st := NewTailState(TailOptions{Window: c.w})
			f := newBenchFleet(st, c.version)
			if r := f.next(); !benchDecodes(r.Key, r.Value) {
				b.Fatal("the fleet's value does not decode")
			}
			f.n = 0
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

// benchDecodes is decodeCommit's ok, checking the offset and time it read (a
// benchmark whose records misread would measure the wrong thing).
func benchDecodes(key, value []byte) bool {
	var c offsetCommit
	ok, err := decodeCommit(key, value, &c)
	return ok && err == nil && c.offset == 4 && c.ms > 1e12
}

// BenchmarkTailApplyCold is the exporter's default case (window 0, value
// version 4: the 50 busy groups committing their 1,000 partitions in
// order, second after second) with the caches emptied, untimed, before
// each second of commits: in the exporter a second's 50,000 commits come
// between kgo's fetches (megabytes of record batches) and the rounds (all
// 500,000 partitions read), so the partitions a commit touches are rarely
// still cached as in BenchmarkTailApply, which applies nothing else. The
// 64 MiB read between seconds is twice the largest cache of the machines
// measured (32 MiB).
func BenchmarkTailApplyCold(b *testing.B) {
	st := NewTailState(TailOptions{})
	f := newBenchFleet(st, 4)
	for range len(f.keys) {
		st.Apply(f.next())
	}
	r := f.next()
	var c offsetCommit
	if ok, err := decodeCommit(r.Key, r.Value, &c); !ok || err != nil || c.offset != 5 {
		b.Fatal("the fleet's value does not decode")
	}
	f.n = int64(len(f.keys))
	flush := make([]byte, 64<<20)
	for i := range flush {
		flush[i] = byte(i)
	}
	var sink byte
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if i%len(f.keys) == 0 {
			b.StopTimer()
			for j := 0; j < len(flush); j += 64 {
				sink += flush[j]
			}
			b.StartTimer()
		}
		st.Apply(f.next())
	}
	b.StopTimer()
	runtime.KeepAlive(sink)
	if st.Partitions() != 500_000 {
		b.Fatalf("%d partitions held, not the fleet's 500,000", st.Partitions())
	}
}

// BenchmarkTailStateGC is a full collection with the fleet's state live
// (500,000 group-partitions, window 0 as the exporter keeps them, and
// 10m as lag --watch --status): what the collector spends marking the
// state each cycle, which a slot holding a pointer (a history's slice,
// nil or not) makes it read word by word. gc-cpu-ns/op is the collector's
// CPU per collection (runtime/metrics; an estimate the runtime keeps).
func BenchmarkTailStateGC(b *testing.B) {
	for _, w := range []time.Duration{0, 10 * time.Minute} {
		b.Run("window="+w.String(), func(b *testing.B) {
			st := NewTailState(TailOptions{Window: w})
			newBenchFleet(st, 4)
			runtime.GC()
			b.ReportAllocs()
			m := []metrics.Sample{{Name: "/cpu/classes/gc/total:cpu-seconds"}}
			metrics.Read(m)
			before := m[0].Value.Float64()
			for b.Loop() {
				runtime.GC()
			}
			// The collector's CPU, its workers on every core: a wall time
			// alone depends on whether the other core was free to help.
			metrics.Read(m)
			b.ReportMetric((m[0].Value.Float64()-before)*1e9/float64(b.N), "gc-cpu-ns/op")
			if st.Partitions() != 500_000 {
				b.Fatalf("%d partitions held, not the fleet's 500,000", st.Partitions())
			}
		})
	}
}

// BenchmarkTailFetchApply is the tail's whole per-record path in the
// exporter: record batches as Apache Kafka 4.4 writes an OffsetCommit (one
// batch per busy group and second, its 1,000 commits, key version 1,
// value version 4) read by batchReader and applied to a warm state of
// the fleet's 500,000 group-partitions (window 0). One op is one record.
func BenchmarkTailFetchApply(b *testing.B) {
	st := NewTailState(TailOptions{})
	f := newBenchFleet(st, 4)
	const secs = 4
	type batch struct {
		p    int32
		data []byte
	}
	var batches []batch
	base := int64(0)
	for sec := range secs {
		for g := 0; g < len(f.keys); g += 1000 {
			recs := make([]tRec, 0, 1000)
			for i, k := range f.keys[g : g+1000] {
				recs = append(recs, tRec{int32(i), k, commitValue(4, int64(sec+4), f.start+int64(sec)*1000), 0})
			}
			batches = append(batches, batch{f.part[g], encBatch(b, base, 0, -1, 999, 0, recs)})
			base += 1000
		}
	}
	br := batchReader{dec: kgo.DefaultDecompressor()}
	b.ReportAllocs()
	b.ResetTimer()
	n := 0
	for n < b.N {
		for _, bt := range batches {
			br.read(bt.p, bt.data, 0, st.apply)
			n += 1000
		}
	}
	b.StopTimer()
	// The last second's commit is what the state holds.
	c, ok := st.Commits("tail-bench-0000")
	if got, _ := c.Lookup("tail-bench", 7); !ok || c.Len() != 1000 || got.Offset != secs+3 {
		b.Fatalf("group 0 after the run: %v, %d partitions, partition 7 at %+v", ok, c.Len(), got)
	}
}
