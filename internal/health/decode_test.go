package health

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// Java's String.hashCode and Kafka's partitionFor: every value below was
// computed by jshell with Apache Kafka 4.4's kafka-clients on the class
// path, as String.hashCode() and Utils.abs(hashCode) % n (Utils.abs maps
// Integer.MIN_VALUE to 0, where Math.abs would leave it negative).
func TestOffsetsPartition(t *testing.T) {
	for _, c := range []struct {
		group string
		hash  int32
		n     int32
		want  int32
	}{
		{"", 0, 50, 0},
		{"a", 97, 50, 47},
		{"a", 97, 7, 6},
		{"abc", 96354, 50, 4},
		{"abc", 96354, 3, 0},
		{"polygenelubricants", -2147483648, 50, 0}, // Integer.MIN_VALUE
		{"polygenelubricants", -2147483648, 7, 0},
		{"console-consumer-12345", 158455506, 50, 6},
		{"orders-billing", -2070039661, 50, 11},
		{"orders-billing", -2070039661, 7, 4},
		{"orders-billing", -2070039661, 3, 1},
		{"\U0001F600", 1772899, 50, 49}, // one code point, two UTF-16 units
		{"\U0001F600", 1772899, 7, 2},
		{"é", 233, 50, 33},
		{"é", 233, 3, 2},
	} {
		if got := javaStringHash(c.group); got != c.hash {
			t.Fatalf("hash %q = %d, want %d", c.group, got, c.hash)
		}
		if got := OffsetsPartition(c.group, c.n); got != c.want {
			t.Fatalf("partition %q of %d = %d, want %d", c.group, c.n, got, c.want)
		}
	}
	if OffsetsPartition("a", 0) != 0 {
		t.Fatal("0 partitions")
	}
}

func commitKey(v int16, g, topic string, p int32) []byte {
	k := kmsg.OffsetCommitKey{Version: v, Group: g, Topic: topic, Partition: p}
	return k.AppendTo(nil)
}

func commitValue(v int16, off, ms int64) []byte {
	val := kmsg.NewOffsetCommitValue()
	val.Version, val.Offset, val.CommitTimestamp, val.LeaderEpoch = v, off, ms, 3
	return val.AppendTo(nil)
}

func TestDecodeOffsetRecord(t *testing.T) {
	ms := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC).UnixMilli()
	for v := int16(0); v <= 4; v++ {
		rec, ok, err := DecodeOffsetRecord(commitKey(v%2, "g", "orders", 7), commitValue(v, 42, ms))
		if err != nil || !ok || rec != (OffsetRecord{Group: "g", Topic: "orders", Partition: 7, Offset: 42, Time: time.UnixMilli(ms).UTC()}) {
			t.Fatalf("value v%d: %+v %v %v", v, rec, ok, err)
		}
	}
	rec, ok, err := DecodeOffsetRecord(commitKey(1, "g", "orders", 7), nil)
	if err != nil || !ok || !rec.Deleted || rec.Topic != "orders" {
		t.Fatalf("tombstone: %+v %v %v", rec, ok, err)
	}
	// A group metadata record (key v2) is not a commit.
	meta := append([]byte{0, 2}, commitKey(0, "g", "x", 0)[2:]...)
	if _, ok, err := DecodeOffsetRecord(meta, []byte{0, 3}); ok || err != nil {
		t.Fatalf("v2 key: %v %v", ok, err)
	}
	for name, kv := range map[string][2][]byte{
		"empty key":        {nil, nil},
		"short key":        {[]byte{0, 1, 0, 5, 'a'}, nil},
		"empty value":      {commitKey(1, "g", "t", 0), {}},
		"short value":      {commitKey(1, "g", "t", 0), {0, 1, 0, 0}},
		"future value":     {commitKey(1, "g", "t", 0), commitValue(5, 1, ms)},
		"negative version": {commitKey(1, "g", "t", 0), {0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 1}},
	} {
		if _, ok, err := DecodeOffsetRecord(kv[0], kv[1]); ok || err == nil {
			t.Fatalf("%s: ok %v err %v", name, ok, err)
		}
	}
}

// FuzzDecodeOffsetRecord: any bytes decode or fail, never panic, and a
// record decoded re-encodes to a key that decodes the same.
func FuzzDecodeOffsetRecord(f *testing.F) {
	f.Add(commitKey(1, "g", "orders", 7), commitValue(3, 42, 1), false)
	f.Add(commitKey(0, "g", "t", 0), commitValue(0, 1, 1), false)
	f.Add(commitKey(1, "g", "t", 0), []byte(nil), true)
	f.Add([]byte{0, 2, 0, 1, 'g'}, []byte{0, 3}, false)
	f.Fuzz(func(t *testing.T, key, value []byte, tomb bool) {
		if tomb {
			value = nil
		}
		rec, ok, err := DecodeOffsetRecord(key, value)
		if err != nil && ok {
			t.Fatal("ok with an error")
		}
		if !ok {
			return
		}
		again, ok2, err2 := DecodeOffsetRecord(commitKey(0, rec.Group, rec.Topic, rec.Partition), nil)
		if err2 != nil || !ok2 || again.Group != rec.Group || again.Topic != rec.Topic || again.Partition != rec.Partition || !again.Deleted {
			t.Fatalf("re-encoded key: %+v %v %v", again, ok2, err2)
		}
	})
}

// A TailState of a reader of some groups (TopicReader.Read, Tail): plain
// commits of the groups asked for count at once; other groups' never; a
// transaction's staged commits only at its COMMIT marker (after the plain
// commits made while it was open, as the coordinator applies them); an
// aborted or still open transaction's never; every commit kept (Window
// and MaxCommits < 0); a tombstone forgets; every record counted.
func TestTailStateWant(t *testing.T) {
	ms := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC).UnixMilli()
	s := NewTailState(TailOptions{Window: -1, MaxCommits: -1, Want: func(g string) bool { return g == "g" }})
	plain := func(g string, off int64) TailRecord {
		return TailRecord{Producer: -1, Key: commitKey(1, g, "t", 0), Value: commitValue(3, off, ms+off*60_000)}
	}
	staged := func(pid, off int64) TailRecord {
		r := plain("g", off)
		r.Txn, r.Producer = true, pid
		return r
	}
	marker := func(pid int64, commit bool) TailRecord {
		typ := byte(0)
		if commit {
			typ = 1
		}
		return TailRecord{Control: true, Producer: pid, Key: []byte{0, 0, 0, typ}, Value: []byte{0, 0, 0, 0, 0, 0}}
	}
	for _, r := range []TailRecord{
		plain("g", 10),
		plain("other", 900), // another group in the partition
		staged(7, 0),        // aborted below
		plain("g", 20),
		marker(7, false),
		staged(8, 5), // committed below, but the plain 30 came after it: 30 stays
		plain("g", 30),
		plain("other", 1),
		marker(8, true),
		plain("g", 40),
		staged(10, 45), // committed below: applied
		marker(10, true),
		staged(9, 1), // never ended
		{Producer: -1, Key: []byte{0, 2, 0, 1, 'g'}, Value: []byte{0, 3}}, // group metadata
	} {
		r.Offset = int64(s.Records) // the records at offsets 0, 1, ...
		s.Apply(r)
	}
	var got []int64
	for _, c := range s.History("g")[Key{"t", 0}] {
		got = append(got, c.Offset)
	}
	if fmt.Sprint(got) != "[10 20 30 40 45]" || s.History("other") != nil || s.Records != 14 {
		t.Fatalf("history %v (other %v, %d records counted, want 14)", got, s.History("other"), s.Records)
	}
	s.Apply(TailRecord{Producer: -1, Key: commitKey(1, "g", "t", 0)}) // tombstone
	if len(s.History("g")[Key{"t", 0}]) != 0 {
		t.Fatalf("after a tombstone: %v", s.History("g"))
	}
}

// quickCommit reads what kmsg reads, or leaves the record to it: every
// version of key and value, with metadata, an expire timestamp, a leader
// epoch, bytes past the end, cut short at every length, and a few
// versions it must not read.
func TestQuickCommitAgreesWithKmsg(t *testing.T) {
	var keys, values [][]byte
	for v := int16(0); v <= 2; v++ {
		keys = append(keys, commitKey(v, "grp", "orders", 7), commitKey(v, "", "", -1), commitKey(v, "g", "t", 1<<30))
	}
	keys = append(keys, append(commitKey(1, "g", "t", 3), 9, 9), []byte{1, 0, 0, 1, 'g', 0, 1, 't', 0, 0, 0, 1},
		[]byte{0, 1, 0xff, 0xff, 0, 1, 't', 0, 0, 0, 1}, []byte{0, 1, 0, 1, 'g', 0xff, 0xff, 0, 0, 0, 1})
	for v := int16(0); v <= 5; v++ {
		val := kmsg.NewOffsetCommitValue()
		val.Version, val.Offset, val.CommitTimestamp, val.LeaderEpoch = v, 1<<40+3, 1<<41+5, 9
		val.ExpireTimestamp, val.Metadata = 1<<42, "meta"
		values = append(values, val.AppendTo(nil), commitValue(v, -1, -2))
		val.TopicID = [16]byte{1, 2, 3, 15: 4}
		values = append(values, val.AppendTo(nil))
		val.UnknownTags.Set(7, []byte{5, 6})
		values = append(values, val.AppendTo(nil))
		val.Metadata = strings.Repeat("m", 200) // a two-byte varint length in v4
		values = append(values, val.AppendTo(nil))
	}
	// Version 4 with: no tags byte; tag 0 shorter than a topic id; a
	// zero compact-string length (null); two-byte tag counts and sizes.
	v4 := func(tail ...byte) []byte {
		return append([]byte{0, 4, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 8}, tail...)
	}
	values = append(values, v4(), v4(1, 0, 15, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
		v4(1, 0, 16, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16), v4(0), v4(2, 1, 0, 2, 1, 9),
		v4(0x81, 0), v4(1, 0x81, 0, 0), v4(1, 1, 0x81, 0, 9), v4(2, 1, 1, 7),
		[]byte{0, 4, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 8, 0},
		// A null metadata, a timestamp of 0 and no tags (misread, the
		// tags would seem to be there); a tag's two-byte key cut short.
		[]byte{0, 4, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, v4(1, 0x81, 0),
		// 128 tags (a two-byte count; the first one a topic id too short,
		// read with the count's second byte as a tag of its own).
		append(v4(0x80, 1, 0), slices.Repeat([]byte{1, 0}, 127)...),
		// Two tags, the first of 129 bytes (a two-byte size), the second
		// cut short; misread as one byte, the size would end a byte early
		// on what looks like a whole second tag.
		append(append(v4(2, 1, 0x81, 1), make([]byte, 128)...), 5, 0),
		// Version 5 laid out as version 3: kmsg refuses it.
		[]byte{0, 5, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 8})
	// Metadata of 127 bytes: its length + 1 is 0x80 0x01.
	long := kmsg.NewOffsetCommitValue()
	long.Version, long.Offset, long.Metadata = 4, 7, strings.Repeat("m", 127)
	values = append(values, long.AppendTo(nil))
	values = append(values, nil, append(commitValue(3, 4, 5), 1, 2, 3), []byte{1, 3, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1},
		[]byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 1})
	quick := 0
	for _, key := range keys {
		for _, value := range values {
			for kn := 0; kn <= len(key); kn++ {
				for vn := 0; vn <= len(value); vn++ {
					k, v := key[:kn], value[:vn]
					if value == nil {
						v = nil
					}
					var c offsetCommit
					ok := quickCommit(k, v, &c)
					if !ok {
						continue
					}
					quick++
					want, wok, err := kmsgCommit(k, v)
					if !wok || err != nil || c != want {
						t.Fatalf("key %x value %x: quick %+v, kmsg %+v %v %v", k, v, c, want, wok, err)
					}
				}
			}
		}
	}
	if quick < 100 {
		t.Fatalf("only %d records read by hand", quick)
	}
	// What Apache Kafka writes is read by hand.
	apache := kmsg.NewOffsetCommitValue()
	apache.Version, apache.Offset, apache.CommitTimestamp, apache.TopicID = 4, 1, 2, [16]byte{9, 15: 9}
	for v := int16(0); v <= 4; v++ {
		if ok := quickCommit(commitKey(1, "g", "t", 0), commitValue(v, 1, 2), new(offsetCommit)); !ok {
			t.Fatalf("value v%d not read by hand", v)
		}
	}
	for _, v := range [][]byte{apache.AppendTo(nil), v4(1, 0, 16, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16), v4(2, 1, 0, 2, 1, 9)} {
		var c offsetCommit
		if ok := quickCommit(commitKey(1, "g", "t", 0), v, &c); !ok || c.offset != 9 && c.offset != 1 {
			t.Fatalf("value %x not read by hand: %+v", v, c)
		}
	}
	if ok := quickCommit(commitKey(1, "g", "t", 0), nil, new(offsetCommit)); !ok {
		t.Fatal("a tombstone not read by hand")
	}
}

// FuzzQuickCommit: quickCommit never reads a record otherwise than kmsg.
func FuzzQuickCommit(f *testing.F) {
	f.Add(commitKey(1, "g", "orders", 7), commitValue(3, 42, 1), false)
	f.Add(commitKey(0, "g", "t", 0), commitValue(1, 1, 1), false)
	f.Add(commitKey(1, "g", "t", 0), []byte(nil), true)
	v4 := kmsg.NewOffsetCommitValue()
	v4.Version, v4.TopicID = 4, [16]byte{1, 15: 1}
	v4.UnknownTags.Set(3, []byte{1})
	f.Add(commitKey(1, "g", "t", 0), v4.AppendTo(nil), false)
	f.Fuzz(func(t *testing.T, key, value []byte, tomb bool) {
		if tomb {
			value = nil
		}
		var c offsetCommit
		ok := quickCommit(key, value, &c)
		if !ok {
			return
		}
		if want, wok, err := kmsgCommit(key, value); !wok || err != nil || c != want {
			t.Fatalf("quick %+v, kmsg %+v %v %v", c, want, wok, err)
		}
	})
}
