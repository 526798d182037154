package replay

import (
	"bytes"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

func digestRecords(recs []*kgo.Record, payload bool) string {
	hashes := map[int32]*partHash{}
	var parts []int32
	for _, r := range recs {
		ph := hashes[r.Partition]
		if ph == nil {
			ph = newPartHash(true)
			hashes[r.Partition] = ph
			parts = append(parts, r.Partition)
		}
		ph.add(r)
	}
	for i := range parts { // ascending
		for j := i + 1; j < len(parts); j++ {
			if parts[j] < parts[i] {
				parts[i], parts[j] = parts[j], parts[i]
			}
		}
	}
	return combine(parts, hashes, payload)
}

func sampleRecords() []*kgo.Record {
	ts := time.UnixMilli(1796018400000)
	var out []*kgo.Record
	for p := int32(0); p < 3; p++ {
		for o := int64(0); o < 5; o++ {
			out = append(out, &kgo.Record{Partition: p, Offset: o * 2, Timestamp: ts.Add(time.Duration(o) * time.Millisecond),
				Key: []byte{byte('a' + p)}, Value: bytes.Repeat([]byte{byte(o)}, 600), Headers: []kgo.RecordHeader{{Key: "h", Value: []byte("v")}}})
		}
	}
	return out
}

func TestDigestStableAndSensitive(t *testing.T) {
	base := digestRecords(sampleRecords(), false)
	if base != digestRecords(sampleRecords(), false) || len(base) != 64 {
		t.Fatalf("digest not stable: %s", base)
	}
	// Interleaving across partitions (concurrent consumption) does not
	// matter; order within a partition is offsets.
	recs := sampleRecords()
	var inter []*kgo.Record
	for i := 0; i < 5; i++ {
		inter = append(inter, recs[10+i], recs[i], recs[5+i])
	}
	if got := digestRecords(inter, false); got != base {
		t.Fatalf("interleaved %s, want %s", got, base)
	}
	mutations := map[string]func(r *kgo.Record){
		"value byte":   func(r *kgo.Record) { r.Value = append([]byte{}, r.Value...); r.Value[599] ^= 1 },
		"key":          func(r *kgo.Record) { r.Key = []byte("z") },
		"null key":     func(r *kgo.Record) { r.Key = nil },
		"timestamp":    func(r *kgo.Record) { r.Timestamp = r.Timestamp.Add(time.Millisecond) },
		"offset":       func(r *kgo.Record) { r.Offset++ },
		"header value": func(r *kgo.Record) { r.Headers = []kgo.RecordHeader{{Key: "h", Value: []byte("w")}} },
		"no header":    func(r *kgo.Record) { r.Headers = nil },
	}
	for name, mut := range mutations {
		recs := sampleRecords()
		mut(recs[7])
		if got := digestRecords(recs, false); got == base {
			t.Errorf("%s changed but the digest did not", name)
		}
	}
	// Empty vs null values differ.
	a := []*kgo.Record{{Value: []byte{}}}
	b := []*kgo.Record{{Value: nil}}
	if digestRecords(a, false) == digestRecords(b, false) {
		t.Error("empty and null values hash alike")
	}
}

func TestPayloadDigestIgnoresPositionAndSourceHeader(t *testing.T) {
	src := sampleRecords()
	dst := sampleRecords()
	for i, r := range dst {
		r.Offset += 1000
		r.Headers = append(r.Headers, kgo.RecordHeader{Key: SourceHeader, Value: []byte("t/0/" + string(rune('0'+i)))})
	}
	if digestRecords(src, true) != digestRecords(dst, true) {
		t.Fatal("payload digest depends on offsets or the source header")
	}
	if digestRecords(src, false) == digestRecords(dst, false) {
		t.Fatal("audit digest ignores offsets")
	}
}

func BenchmarkDigest(b *testing.B) {
	r := &kgo.Record{Partition: 1, Offset: 123456, Timestamp: time.UnixMilli(1796018400123), Key: []byte("key-123456"), Value: bytes.Repeat([]byte("abcdefghij"), 10)}
	ph := newPartHash(false)
	b.SetBytes(int64(len(r.Value)))
	b.ReportAllocs()
	for b.Loop() {
		ph.add(r)
	}
}
