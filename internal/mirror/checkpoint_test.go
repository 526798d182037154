package mirror

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"
)

// A checkpoint as MM2 writes it, byte for byte (Checkpoint.recordKey and
// recordValue for group g1, topic A.orders, partition 1, upstream 115,
// downstream 102, empty metadata).
const (
	mm2Key   = "0002" + "6731" + "0008" + "412e6f7264657273" + "00000001"
	mm2Value = "0000" + "0000000000000073" + "0000000000000066" + "0000"
)

func TestDecodeCheckpoint(t *testing.T) {
	key, _ := hex.DecodeString(mm2Key)
	val, _ := hex.DecodeString(mm2Value)
	tests := []struct {
		name     string
		key, val []byte
		want     Checkpoint
		err      string
	}{
		{"MM2's bytes", key, val, Checkpoint{Group: "g1", Topic: "A.orders", Partition: 1, Upstream: 115, Downstream: 102}, ""},
		{"trailing bytes ignored, as Schema.read does", key, append(append([]byte{}, val...), 9, 9), Checkpoint{Group: "g1", Topic: "A.orders", Partition: 1, Upstream: 115, Downstream: 102}, ""},
		{"metadata", key, append(val[:len(val)-2:len(val)-2], 0, 2, 'h', 'i'), Checkpoint{Group: "g1", Topic: "A.orders", Partition: 1, Upstream: 115, Downstream: 102, Metadata: "hi"}, ""},
		{"empty key", nil, val, Checkpoint{}, "checkpoint key: truncated"},
		{"short key", key[:len(key)-1], val, Checkpoint{}, "checkpoint key: truncated"},
		{"short value", key, val[:10], Checkpoint{}, "checkpoint value: truncated"},
		{"version 1", key, append([]byte{0, 1}, val[2:]...), Checkpoint{}, "unknown version 1"},
		{"negative string length", []byte{0xff, 0xff}, val, Checkpoint{}, "negative string length"},
		{"negative partition", append(key[:len(key)-4:len(key)-4], 0xff, 0xff, 0xff, 0xff), val, Checkpoint{}, "negative partition"},
		{"negative offset", key, append([]byte{0, 0, 0xff}, val[3:]...), Checkpoint{}, "negative offset"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecodeCheckpoint(tt.key, tt.val)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
	// EncodeCheckpoint writes MM2's bytes.
	k, v := EncodeCheckpoint(Checkpoint{Group: "g1", Topic: "A.orders", Partition: 1, Upstream: 115, Downstream: 102})
	if !bytes.Equal(k, key) || !bytes.Equal(v, val) {
		t.Fatalf("EncodeCheckpoint: %x %x", k, v)
	}
}

func TestDecodeOffsetSync(t *testing.T) {
	k, v := EncodeOffsetSync(OffsetSync{Topic: "orders", Partition: 3, Upstream: 101, Downstream: 101})
	got, err := DecodeOffsetSync(k, v)
	if err != nil || got != (OffsetSync{Topic: "orders", Partition: 3, Upstream: 101, Downstream: 101}) {
		t.Fatalf("%+v %v", got, err)
	}
	if _, err := DecodeOffsetSync(k, v[:15]); err == nil {
		t.Fatal("a short value decoded")
	}
}

// FuzzDecodeCheckpoint: any bytes decode or fail without a panic, and
// what decodes re-encodes to bytes that decode the same.
func FuzzDecodeCheckpoint(f *testing.F) {
	key, _ := hex.DecodeString(mm2Key)
	val, _ := hex.DecodeString(mm2Value)
	f.Add(key, val)
	f.Add([]byte{}, []byte{})
	f.Add([]byte{0xff, 0xff}, []byte{0, 1})
	f.Fuzz(func(t *testing.T, key, val []byte) {
		c, err := DecodeCheckpoint(key, val)
		if err != nil {
			return
		}
		if c.Partition < 0 || c.Upstream < 0 || c.Downstream < 0 {
			t.Fatalf("decoded negative values: %+v", c)
		}
		k2, v2 := EncodeCheckpoint(c)
		c2, err := DecodeCheckpoint(k2, v2)
		if err != nil || c2 != c {
			t.Fatalf("round trip: %+v -> %+v, %v", c, c2, err)
		}
	})
}

// FuzzDecodeOffsetSync: any bytes decode or fail without a panic, and
// what decodes round-trips.
func FuzzDecodeOffsetSync(f *testing.F) {
	k, v := EncodeOffsetSync(OffsetSync{Topic: "orders", Partition: 3, Upstream: 101, Downstream: 101})
	f.Add(k, v)
	f.Add([]byte{}, []byte{})
	f.Fuzz(func(t *testing.T, key, val []byte) {
		s, err := DecodeOffsetSync(key, val)
		if err != nil {
			return
		}
		k2, v2 := EncodeOffsetSync(s)
		if s2, err := DecodeOffsetSync(k2, v2); err != nil || s2 != s {
			t.Fatalf("round trip: %+v -> %+v, %v", s, s2, err)
		}
	})
}
