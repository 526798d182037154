package replay

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

func TestAppendJSONRecord(t *testing.T) {
	r := &kgo.Record{Topic: "orders", Partition: 2, Offset: 41, Timestamp: time.UnixMilli(1796018400123),
		Key: []byte("order-1"), Value: []byte("{\"q\":\"a\\b\"}\n\x01"), Headers: []kgo.RecordHeader{{Key: "h", Value: []byte{0xff}}, {Key: "n", Value: nil}}}
	got := string(appendJSONRecord(nil, []byte(`"orders"`), r))
	want := `{"topic":"orders","partition":2,"offset":41,"timestamp":1796018400123,"key":"order-1","value":"{\"q\":\"a\\b\"}\n\u0001","headers":[{"key":"h","value":"/w==","value_encoding":"base64"},{"key":"n","value":null}]}` + "\n"
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	if !json.Valid([]byte(got)) {
		t.Fatal("not valid JSON")
	}
	if raw := string(appendRaw(nil, r)); raw != string(r.Value)+"\n" {
		t.Fatalf("raw %q", raw)
	}
}

// Format characters, C1 controls and DEL in a key, a value or a header
// are \u escapes in a jsonl line (a terminal or pager showing it is not
// reordered), and the line decodes to the record's exact bytes.
func TestAppendJSONRecordEscapesFormatCharacters(t *testing.T) {
	key := "rtl\u202egnillib"
	value := "c1\u0085\u009b2K del\x7f iso\u2066x\u2069 lrm\u200e alm\u061c tag\U000e0001 ünï 日本"
	r := &kgo.Record{Topic: "t", Key: []byte(key), Value: []byte(value), Headers: []kgo.RecordHeader{{Key: "h\u202e", Value: []byte("v\u200f")}}}
	line := appendJSONRecord(nil, []byte(`"t"`), r)
	for _, esc := range []string{`rtl\u202egnillib`, `c1\u0085\u009b2K del\u007f iso\u2066x\u2069 lrm\u200e alm\u061c tag\udb40\udc01 ünï 日本`, `"h\u202e"`, `"v\u200f"`} {
		if !bytes.Contains(line, []byte(esc)) {
			t.Errorf("line %s lacks %s", line, esc)
		}
	}
	l, err := ParseLine(line)
	if err != nil || string(l.Key) != key || string(l.Value) != value || len(l.Headers) != 1 || l.Headers[0].Key != "h\u202e" || string(l.Headers[0].Value) != "v\u200f" {
		t.Fatalf("round trip: %+v, %v", l, err)
	}
}

func TestParseFormat(t *testing.T) {
	for in, want := range map[string]Format{"jsonl": JSONL, "JSON": JSONL, "raw": Raw, " none ": None} {
		if got, err := ParseFormat(in); err != nil || got != want {
			t.Errorf("ParseFormat(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseFormat("avro"); err == nil {
		t.Error("avro accepted")
	}
}

func FuzzJSONLRoundTrip(f *testing.F) {
	f.Add([]byte("key"), []byte("value"), "h", []byte("hv"), false, false)
	f.Add([]byte{0xff, 0xfe}, []byte{0, 1, 2}, "\xff", []byte(nil), true, false)
	f.Add([]byte("\"\\\n\u2028é"), []byte{}, "", []byte{}, false, true)
	f.Add([]byte("\u202e\u0085\x7f"), []byte("\U000e0001\u2066"), "\u200e", []byte("\u061c"), false, false)
	f.Fuzz(func(t *testing.T, key, value []byte, hk string, hv []byte, nullKey, nullValue bool) {
		if nullKey {
			key = nil
		} else if key == nil {
			key = []byte{}
		}
		if nullValue {
			value = nil
		} else if value == nil {
			value = []byte{}
		}
		r := &kgo.Record{Topic: "t.x-1", Partition: 3, Offset: 99, Timestamp: time.UnixMilli(1234567), Key: key, Value: value,
			Headers: []kgo.RecordHeader{{Key: hk, Value: hv}}}
		line := appendJSONRecord(nil, []byte(`"t.x-1"`), r)
		if !json.Valid(line) || bytes.Count(line, []byte("\n")) != 1 || line[len(line)-1] != '\n' {
			t.Fatalf("not one valid JSON line: %q", line)
		}
		l, err := ParseLine(line)
		if err != nil {
			t.Fatal(err)
		}
		same := func(a, b []byte) bool { return (a == nil) == (b == nil) && bytes.Equal(a, b) }
		if l.Topic != "t.x-1" || l.Partition != 3 || l.Offset != 99 || l.Timestamp != 1234567 || !same(l.Key, key) || !same(l.Value, value) ||
			len(l.Headers) != 1 || l.Headers[0].Key != hk || !same(l.Headers[0].Value, hv) {
			t.Fatalf("round trip: %+v from %q", l, line)
		}
	})
}

func TestParseLineRejects(t *testing.T) {
	for _, bad := range []string{`{`, `{"topic":"t"}`, `{"partition":0,"offset":0,"timestamp":0,"key":"@@","key_encoding":"base64"}`, `{"partition":0,"offset":0,"timestamp":0,"value":"x","value_encoding":"rot13"}`} {
		if _, err := ParseLine([]byte(bad)); err == nil {
			t.Errorf("ParseLine(%s) accepted", bad)
		}
	}
}

func BenchmarkAppendJSONRecord(b *testing.B) {
	r := &kgo.Record{Topic: "bench", Partition: 1, Offset: 123456, Timestamp: time.UnixMilli(1796018400123), Key: []byte("key-123456"), Value: bytes.Repeat([]byte("abcdefghij"), 10)}
	buf := make([]byte, 0, 1024)
	b.SetBytes(int64(len(r.Value)))
	b.ReportAllocs()
	for b.Loop() {
		buf = appendJSONRecord(buf[:0], []byte(`"bench"`), r)
	}
}

func BenchmarkEncodingJSONMarshal(b *testing.B) {
	// The reflection-based baseline appendJSONRecord replaces.
	type line struct {
		Topic     string            `json:"topic"`
		Partition int32             `json:"partition"`
		Offset    int64             `json:"offset"`
		Timestamp int64             `json:"timestamp"`
		Key       string            `json:"key"`
		Value     string            `json:"value"`
		Headers   []json.RawMessage `json:"headers"`
	}
	v := line{Topic: "bench", Partition: 1, Offset: 123456, Timestamp: 1796018400123, Key: "key-123456", Value: string(bytes.Repeat([]byte("abcdefghij"), 10)), Headers: []json.RawMessage{}}
	b.SetBytes(100)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := json.Marshal(v); err != nil {
			b.Fatal(err)
		}
	}
}
