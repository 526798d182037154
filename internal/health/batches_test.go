package health

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// tRec is a record to encode: its offset delta in its batch, key and
// value (nil is null), and how many headers it carries.
type tRec struct {
	delta      int32
	key, value []byte
	headers    int
}

func appendVarBytes(dst, b []byte) []byte {
	if b == nil {
		return binary.AppendVarint(dst, -1)
	}
	return append(binary.AppendVarint(dst, int64(len(b))), b...)
}

// encRecords encodes records as a batch holds them.
func encRecords(recs []tRec) []byte {
	var out []byte
	for _, r := range recs {
		body := []byte{0} // attributes
		// The timestamp delta: one byte, or (every third offset delta)
		// several, which the batch reader's inline path leaves to
		// nextRecord.
		ts := int64(7)
		if r.delta%3 == 2 {
			ts = int64(r.delta) << 20
		}
		body = binary.AppendVarint(body, ts)
		body = binary.AppendVarint(body, int64(r.delta))
		body = appendVarBytes(body, r.key)
		body = appendVarBytes(body, r.value)
		body = binary.AppendVarint(body, int64(r.headers))
		for h := range r.headers {
			body = appendVarBytes(body, []byte(fmt.Sprint("h", h)))
			body = appendVarBytes(body, []byte("v"))
		}
		out = append(binary.AppendVarint(out, int64(len(body))), body...)
	}
	return out
}

// encBatch encodes a batch of magic 2 at base, its last offset delta
// lastDelta (past its last record's when compaction removed the end),
// compressed with codec (0 none, 1 gzip, 2 snappy, 3 lz4, 4 zstd).
func encBatch(t testing.TB, base int64, attrs int16, producer int64, lastDelta int32, codec int8, recs []tRec) []byte {
	raw := encRecords(recs)
	if codec != 0 {
		var c kgo.CompressionCodec
		switch codec {
		case 1:
			c = kgo.GzipCompression()
		case 2:
			c = kgo.SnappyCompression()
		case 3:
			c = kgo.Lz4Compression()
		default:
			c = kgo.ZstdCompression()
		}
		comp, err := kgo.DefaultCompressor(c)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ = comp.Compress(new(bytes.Buffer), raw)
		raw = bytes.Clone(raw)
	}
	b := kmsg.RecordBatch{FirstOffset: base, Length: int32(batchLengthMin + len(raw)), Magic: 2,
		Attributes: attrs | int16(codec), LastOffsetDelta: lastDelta, ProducerID: producer, ProducerEpoch: 1,
		FirstSequence: -1, NumRecords: int32(len(recs)), Records: raw}
	out := b.AppendTo(nil)
	binary.BigEndian.PutUint32(out[batchCRCAt:], crc32.Checksum(out[batchAttrsAt:], castagnoli))
	return out
}

// got is a record as a reader gave it.
type got struct {
	offset         int64
	control, txn   bool
	producer       int64
	key, value     string
	keyNil, valNil bool
}

// String prints g's fields (gotFields has no String method: an embedded
// got would make this recurse until the stack overflows, as a failing
// test's message once did).
func (g got) String() string { return fmt.Sprintf("%+v", gotFields(g)) }

type gotFields got

func gotOf(o int64, r TailRecord) got {
	return got{o, r.Control, r.Txn, r.Producer, string(r.Key), string(r.Value), r.Key == nil, r.Value == nil}
}

// readOurs is batchReader's reading of data from from.
func readOurs(data []byte, from int64) ([]got, int64, error) {
	var out []got
	br := batchReader{dec: kgo.DefaultDecompressor()}
	next, err := br.read(7, data, from, func(r *TailRecord) { out = append(out, gotOf(r.Offset, *r)) })
	return out, next, err
}

// readKgo is kgo's reading of the same bytes, as the tail's consumer had
// it: uncommitted, control records kept.
func readKgo(data []byte, from int64) ([]got, int64, error) {
	rp := kmsg.NewFetchResponseTopicPartition()
	rp.Partition, rp.RecordBatches = 7, data
	fp, next := kgo.ProcessFetchPartition(kgo.ProcessFetchPartitionOpts{KeepControlRecords: true, Offset: from,
		IsolationLevel: kgo.ReadUncommitted(), Topic: OffsetsTopic, Partition: 7}, &rp, kgo.DefaultDecompressor(), nil)
	var out []got
	for _, r := range fp.Records {
		out = append(out, gotOf(r.Offset, tailRecord(r)))
	}
	return out, next, fp.Err
}

func sameRecords(t *testing.T, what string, ours, theirs []got) {
	t.Helper()
	if len(ours) != len(theirs) {
		t.Fatalf("%s: %d records, kgo %d\nours %v\nkgo  %v", what, len(ours), len(theirs), ours, theirs)
	}
	for i := range ours {
		if ours[i] != theirs[i] {
			t.Fatalf("%s: record %d: %v, kgo %v", what, i, ours[i], theirs[i])
		}
	}
}

// Every kind of batch the offsets topic holds reads as kgo reads it:
// commits, tombstones (a null value), an empty value (not a tombstone),
// null keys, headers, a transaction's records and its control marker,
// the four codecs, a batch whose last records compaction removed, one
// with no record left, a batch straddling the fetch offset, and a last
// batch cut by the fetch's size.
func TestBatchReaderAgreesWithKgo(t *testing.T) {
	var data []byte
	data = append(data, encBatch(t, 0, 0, -1, 2, 0, []tRec{{0, []byte("k0"), []byte("v0"), 0}, {1, []byte("k1"), nil, 0}, {2, nil, []byte{}, 2}})...)
	data = append(data, encBatch(t, 3, 0x10, 42, 1, 0, []tRec{{0, []byte("tx0"), []byte("a"), 0}, {1, []byte("tx1"), []byte("b"), 0}})...)
	data = append(data, encBatch(t, 5, 0x30, 42, 0, 0, []tRec{{0, []byte{0, 0, 0, 1}, []byte{0, 0, 0, 0, 0, 0}, 0}})...)
	data = append(data, encBatch(t, 6, 0, -1, 9, 0, []tRec{{0, []byte("c0"), []byte("x"), 0}, {4, []byte("c4"), []byte("y"), 0}})...)
	data = append(data, encBatch(t, 16, 0, -1, 3, 0, nil)...)
	for codec := int8(1); codec <= 4; codec++ {
		base := 20 + int64(codec)*10
		data = append(data, encBatch(t, base, 0, -1, 2, codec, []tRec{{0, []byte("z0"), []byte("zz"), 1}, {2, []byte("z2"), nil, 0}})...)
	}
	whole := len(data)
	data = append(data, encBatch(t, 70, 0, -1, 0, 0, []tRec{{0, []byte("cut"), []byte("cut"), 0}})...)
	for _, cut := range []int{len(data), whole + 30, whole + 16, whole + 5, whole} {
		for _, from := range []int64{0, 1, 3, 4, 6, 7, 15, 16, 19, 33, 70} {
			what := fmt.Sprintf("cut %d from %d", cut, from)
			ours, next, err := readOurs(data[:cut], from)
			theirs, knext, kerr := readKgo(data[:cut], from)
			if err != nil || kerr != nil {
				t.Fatalf("%s: errors %v, kgo %v", what, err, kerr)
			}
			sameRecords(t, what, ours, theirs)
			if next != knext {
				t.Fatalf("%s: next %d, kgo %d", what, next, knext)
			}
		}
	}
	// The figures themselves, not only kgo's agreement: 3+2+1+2+0+8+1
	// records from 0, the cut batch included, then offset 71.
	ours, next, _ := readOurs(data, 0)
	if len(ours) != 17 || next != 71 || !ours[1].valNil || ours[2].valNil || !ours[2].keyNil || !ours[5].control || !ours[3].txn || ours[3].producer != 42 || ours[7].offset != 10 {
		t.Fatalf("next %d, records %v", next, ours)
	}
}

// Random logs read alike: batches of random kinds, offsets with gaps, cut
// anywhere, read from anywhere.
func TestBatchReaderRandomAgreesWithKgo(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		var data []byte
		base := rng.Int64N(1000)
		for range 1 + rng.IntN(6) {
			var recs []tRec
			delta := int32(0)
			n := rng.IntN(5)
			if rng.IntN(4) == 0 {
				n = 60 + rng.IntN(20) // offset deltas past 63: two bytes
			}
			for range n {
				var v []byte
				if rng.IntN(3) > 0 {
					v = []byte(fmt.Sprint("v", rng.IntN(1000)))
				}
				k := []byte(fmt.Sprint("k", delta))
				// Keys and values of 64 bytes or more (a length of two
				// bytes) go through nextRecord, in the same batches as
				// the short ones the inline path reads.
				if rng.IntN(4) == 0 {
					k = append(k, bytes.Repeat([]byte("K"), 60+rng.IntN(200))...)
				}
				if v != nil && rng.IntN(4) == 0 {
					v = append(v, bytes.Repeat([]byte("V"), 60+rng.IntN(200))...)
				}
				recs = append(recs, tRec{delta, k, v, rng.IntN(2)})
				delta += 1 + int32(rng.IntN(3))
				if rng.IntN(20) == 0 {
					delta += 9000 // an offset delta of three bytes (compacted away between)
				}
			}
			last := max(delta-1, 0) + int32(rng.IntN(2))
			attrs := []int16{0, 0x10, 0x30}[rng.IntN(3)]
			data = append(data, encBatch(t, base, attrs, rng.Int64N(5), last, int8(rng.IntN(5)), recs)...)
			base += int64(last) + 1
		}
		cut, from := len(data)-rng.IntN(min(len(data), 40)), base-rng.Int64N(base+1)
		ours, next, err := readOurs(data[:cut], from)
		theirs, knext, kerr := readKgo(data[:cut], from)
		what := fmt.Sprintf("log %d cut %d/%d from %d", i, cut, len(data), from)
		if err != nil || kerr != nil {
			t.Fatalf("%s: errors %v, kgo %v", what, err, kerr)
		}
		sameRecords(t, what, ours, theirs)
		if next != knext {
			t.Fatalf("%s: next %d, kgo %d", what, next, knext)
		}
	}
}

// One OffsetCommit of 10,000 partitions is one batch of 10,000 records:
// from the 8,192nd its offset deltas take three bytes, which the inline
// path leaves to nextRecord. Every record reads as kgo reads it (an
// earlier nextRecord indexed b[-1] there, and the exporter's tail would
// have panicked on such a commit).
func TestBatchReaderLargeCommit(t *testing.T) {
	var recs []tRec
	for p := range int32(10_000) {
		recs = append(recs, tRec{p, commitKey(1, "big-group", "big-topic", p), commitValue(4, int64(p), 1_700_000_000_000), 0})
	}
	data := encBatch(t, 100, 0, -1, 9_999, 0, recs)
	ours, next, err := readOurs(data, 100)
	theirs, knext, kerr := readKgo(data, 100)
	if err != nil || kerr != nil || len(ours) != 10_000 || next != 10_100 {
		t.Fatalf("%d records, next %d, err %v (kgo: %d, %d, %v)", len(ours), next, err, len(theirs), knext, kerr)
	}
	sameRecords(t, "10,000 commits", ours, theirs)
}

// A batch whose CRC does not match, or whose length cannot hold its
// header, stops the read with errCorruptBatch after the records before
// it; a bad record in a batch whose CRC matches stops it after the
// records before that record, next past them.
func TestBatchReaderCorrupt(t *testing.T) {
	good := encBatch(t, 0, 0, -1, 0, 0, []tRec{{0, []byte("a"), []byte("b"), 0}})
	bad := encBatch(t, 1, 0, -1, 0, 0, []tRec{{0, []byte("c"), []byte("d"), 0}})
	bad[len(bad)-1] ^= 0xff
	short := bytes.Clone(good)
	binary.BigEndian.PutUint32(short[batchLengthAt:], batchLengthMin-1)
	for _, c := range []struct {
		name string
		data []byte
		n    int
		next int64
	}{{"crc", append(bytes.Clone(good), bad...), 1, 1}, {"length", short, 0, 0}} {
		ours, next, err := readOurs(c.data, 0)
		if !errors.Is(err, errCorruptBatch) || len(ours) != c.n || next != c.next {
			t.Errorf("%s: %d records, next %d, err %v", c.name, len(ours), next, err)
		}
	}
	// A record that runs past its batch (its count says more than it
	// holds), with a CRC that matches.
	over := encBatch(t, 0, 0, -1, 0, 0, []tRec{{0, []byte("a"), []byte("b"), 0}})
	binary.BigEndian.PutUint32(over[batchCountAt:], 2)
	binary.BigEndian.PutUint32(over[batchCRCAt:], crc32.Checksum(over[batchAttrsAt:], castagnoli))
	if ours, next, err := readOurs(over, 0); !errors.Is(err, errCorruptBatch) || len(ours) != 1 || next != 1 {
		t.Errorf("count past the records: %d records, next %d, err %v", len(ours), next, err)
	}
	// Three records, the third one cut short, the CRC matching, after a
	// good batch: the read stops at the third with next past the second,
	// and a read again from there (the next fetch) gives no record twice
	// and stops at the same place. Before, next stayed at the batch's
	// base and every fetch applied its first two records again.
	three := encBatch(t, 10, 0, -1, 2, 0, []tRec{{0, []byte("a"), []byte("b"), 0}, {1, []byte("c"), []byte("d"), 0}, {2, []byte("e"), []byte("f"), 0}})
	three = three[:len(three)-2]
	binary.BigEndian.PutUint32(three[batchLengthAt:], uint32(len(three)-12))
	binary.BigEndian.PutUint32(three[batchCRCAt:], crc32.Checksum(three[batchAttrsAt:], castagnoli))
	data := append(encBatch(t, 9, 0, -1, 0, 0, []tRec{{0, []byte("z"), []byte("y"), 0}}), three...)
	ours, next, err := readOurs(data, 9)
	if !errors.Is(err, errCorruptBatch) || len(ours) != 3 || ours[2].offset != 11 || next != 12 {
		t.Fatalf("a bad third record: %v, next %d, err %v", ours, next, err)
	}
	if again, next2, err := readOurs(data, next); !errors.Is(err, errCorruptBatch) || len(again) != 0 || next2 != 12 {
		t.Fatalf("read again from %d: %v, next %d, err %v (want no record, next 12, the same error)", next, again, next2, err)
	}
}

// A batch with a negative base offset (the fuzzer's find: a log never
// holds one) stops the read as corrupt. Before, ours read its record at
// offset 0, where kgo drops it.
func TestBatchReaderNegativeBase(t *testing.T) {
	data, err := hex.DecodeString("ffffffffffffffff" + "00000047" + "30303030" + "02" + "9f7dd904" + "0000" + "00000001" +
		strings.Repeat("00", 16) + "ffffffffffffffff" + "0001" + "ffffffff" + "00000002" +
		"10000e0002610262" + "00" + "18000e0202630102046830" + "0276")
	if err != nil {
		t.Fatal(err)
	}
	if crc32.Checksum(data[batchAttrsAt:], castagnoli) != binary.BigEndian.Uint32(data[batchCRCAt:]) {
		t.Fatal("the input's CRC does not match: the test would pass for the wrong reason")
	}
	for _, from := range []int64{-66, -1, 0} {
		ours, next, err := readOurs(data, from)
		if !errors.Is(err, errCorruptBatch) || len(ours) != 0 || next != from {
			t.Errorf("from %d: %v, next %d, err %v; want no record, next %d, corrupt", from, ours, next, err, from)
		}
	}
	// The same batch at base 0 (CRC recomputed) is read as kgo reads it.
	good := bytes.Clone(data)
	binary.BigEndian.PutUint64(good, 0)
	ours, next, err := readOurs(good, 0)
	theirs, knext, kerr := readKgo(good, 0)
	if err != nil || kerr != nil || next != knext || len(ours) == 0 {
		t.Fatalf("base 0: ours %v next %d err %v; kgo next %d err %v", ours, next, err, knext, kerr)
	}
	sameRecords(t, "base 0", ours, theirs)
}

// A message set of magic 1 (a log older than Kafka 0.11) is read by kgo.
func TestBatchReaderLegacy(t *testing.T) {
	m := kmsg.MessageV1{Offset: 5, Magic: 1, Key: []byte("k"), Value: []byte("v")}
	m.MessageSize = int32(len(m.AppendTo(nil)) - 12)
	raw := m.AppendTo(nil)
	binary.BigEndian.PutUint32(raw[12:], crc32.ChecksumIEEE(raw[16:]))
	ours, next, err := readOurs(raw, 0)
	if err != nil || len(ours) != 1 || ours[0].offset != 5 || ours[0].key != "k" || ours[0].value != "v" || next != 6 {
		t.Fatalf("legacy: %v next %d err %v", ours, next, err)
	}
}

// FuzzBatchReader: no input panics, and whatever both read without an
// error, kgo and batchReader read alike.
func FuzzBatchReader(f *testing.F) {
	f.Add(encBatch(f, 0, 0, -1, 1, 0, []tRec{{0, []byte("a"), []byte("b"), 0}, {1, []byte("c"), nil, 1}}), int64(0))
	f.Add(encBatch(f, 3, 0x30, 9, 0, 0, []tRec{{0, []byte{0, 0, 0, 1}, []byte{0, 0, 0, 0, 0, 0}, 0}}), int64(3))
	f.Add(encBatch(f, 0, 0, -1, 1, 1, []tRec{{0, []byte("a"), []byte("b"), 0}, {1, []byte("c"), nil, 1}}), int64(1))
	f.Fuzz(func(t *testing.T, data []byte, from int64) {
		ours, next, err := readOurs(data, from)
		theirs, knext, kerr := readKgo(data, from)
		if err == nil && kerr != nil {
			// A record kgo finds bad is never read as a good one.
			t.Fatalf("kgo: %v; ours read it: %v, next %d", kerr, ours, next)
		}
		if err != nil || kerr != nil {
			return
		}
		sameRecords(t, "fuzz", ours, theirs)
		if next != knext {
			t.Fatalf("next %d, kgo %d", next, knext)
		}
	})
}

// BenchmarkBatchReader reads a batch of 1,000 commit records as Apache
// Kafka 4.4 writes them (key version 1, value version 4).
func BenchmarkBatchReader(b *testing.B) {
	var recs []tRec
	for p := range int32(1000) {
		recs = append(recs, tRec{p, commitKey(1, "tail-bench-0001", "tail-bench", p), commitValue(4, int64(p)*7, 1_700_000_000_000), 0})
	}
	data := encBatch(b, 0, 0, -1, 999, 0, recs)
	br := batchReader{dec: kgo.DefaultDecompressor()}
	n := 0
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		br.read(3, data, 0, func(*TailRecord) { n++ })
	}
	if n != 1000*b.N {
		b.Fatalf("%d records", n)
	}
}

// zz reads every varint as binary.Varint does, at any index, including a
// truncated one and one past the end; short agrees where it reads one (one
// and two bytes) and reads every varint of that size.
func TestVarint(t *testing.T) {
	cases := [][]byte{nil, {0x80}, {0xff, 0xff}, {0x80, 0x80, 0x01}}
	for b := range 256 {
		cases = append(cases, []byte{byte(b)}, []byte{byte(b), 0x01}, []byte{byte(b), 0x7f}, []byte{byte(b), 0x80})
	}
	for _, x := range []int64{0, -1, 1, 63, -64, 64, -65, 8191, -8192, 8192, -8193, 1 << 20, -(1 << 40), 1<<63 - 1, -1 << 63} {
		cases = append(cases, binary.AppendVarint(nil, x))
	}
	for _, c := range cases {
		for _, pre := range []int{0, 1, 3} {
			b := append(make([]byte, pre), c...)
			wv, wn := binary.Varint(c)
			gv, gi := zz(b, pre)
			if wn <= 0 && gi != -1 || wn > 0 && (gv != wv || gi != pre+wn) {
				t.Fatalf("zz(%x, %d) = %d, %d; binary.Varint %d, %d", b, pre, gv, gi, wv, wn)
			}
			sv, si := short(b, pre)
			switch {
			case wn == 1 || wn == 2:
				if sv != wv || si != pre+wn {
					t.Fatalf("short(%x, %d) = %d, %d; binary.Varint %d, %d", b, pre, sv, si, wv, wn)
				}
			case si != -1:
				t.Fatalf("short(%x, %d) = %d, %d; binary.Varint %d, %d: not of one or two bytes", b, pre, sv, si, wv, wn)
			}
		}
	}
	if _, i := zz([]byte{1}, 1); i != -1 {
		t.Fatalf("zz at the end: %d", i)
	}
}

// shortBytes reads a one-byte length and its bytes, null for -1, and
// refuses a longer length, a negative one other than -1, and bytes past
// the end; where it reads, varBytes reads the same.
func TestShortBytes(t *testing.T) {
	for _, c := range []struct {
		b    []byte
		v    []byte
		next int
	}{
		{[]byte{0, 0}, []byte{}, 2},
		{[]byte{0, 1, 9}, nil, 2}, // -1: null
		{[]byte{0, 4, 'a', 'b', 'c'}, []byte("ab"), 4},
		{[]byte{0, 4, 'a'}, nil, -1},          // past the end
		{[]byte{0, 3, 'a', 'b'}, nil, -1},     // -2
		{[]byte{0, 0x80, 0x01, 'a'}, nil, -1}, // two bytes: not short
		{[]byte{0}, nil, -1},
	} {
		v, next := shortBytes(c.b, 1)
		if next != c.next || !bytes.Equal(v, c.v) || (c.next >= 0 && (v == nil) != (c.v == nil)) {
			t.Fatalf("shortBytes(%x, 1) = %q, %d; want %q, %d", c.b, v, next, c.v, c.next)
		}
		if next >= 0 {
			if wv, wn, ok := varBytes(c.b, 1); !ok || wn != next || !bytes.Equal(wv, v) || (wv == nil) != (v == nil) {
				t.Fatalf("varBytes(%x, 1) = %q, %d, %v; shortBytes %q, %d", c.b, wv, wn, ok, v, next)
			}
		}
	}
}
