package replay

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetctl/offsetctl/internal/safetext"
)

// Format is the record output format.
type Format string

// The record formats.
const (
	// JSONL writes one JSON object per record and line.
	JSONL Format = "jsonl"
	// Raw writes each value followed by a newline.
	Raw Format = "raw"
	// None writes nothing (digest and proof only).
	None Format = "none"
)

// ParseFormat parses --format.
func ParseFormat(s string) (Format, error) {
	switch f := Format(strings.ToLower(strings.TrimSpace(s))); f {
	case JSONL, Raw, None:
		return f, nil
	case "json":
		return JSONL, nil
	}
	return "", errors.New("want jsonl, raw or none")
}

// The JSON lines format, one object per record:
//
//	{"topic":"orders","partition":0,"offset":12,"timestamp":1764486000000,
//	 "key":"order-001","value":"{\"qty\":2}","headers":[{"key":"h","value":"v"}]}
//
// key and value are JSON strings when they are valid UTF-8, otherwise the
// standard base64 of the bytes with "key_encoding":"base64" /
// "value_encoding":"base64" after them; null when the record has none.
// Header keys and values follow the same rule. Decoding with ParseLine
// gives back the exact bytes.

// appendJSONRecord appends r as one JSON line. topicJSON is the topic
// already encoded as a JSON string.
func appendJSONRecord(b []byte, topicJSON []byte, r *kgo.Record) []byte {
	b = append(b, `{"topic":`...)
	b = append(b, topicJSON...)
	b = append(b, `,"partition":`...)
	b = strconv.AppendInt(b, int64(r.Partition), 10)
	b = append(b, `,"offset":`...)
	b = strconv.AppendInt(b, r.Offset, 10)
	b = append(b, `,"timestamp":`...)
	b = strconv.AppendInt(b, r.Timestamp.UnixMilli(), 10)
	b = appendField(b, `,"key":`, `,"key_encoding":"base64"`, r.Key)
	b = appendField(b, `,"value":`, `,"value_encoding":"base64"`, r.Value)
	b = append(b, `,"headers":[`...)
	for i := range r.Headers {
		h := &r.Headers[i]
		if i > 0 {
			b = append(b, ',')
		}
		if utf8.ValidString(h.Key) {
			b = append(b, `{"key":`...)
			b = appendJSONString(b, h.Key)
		} else {
			b = append(b, `{"key":"`...)
			b = base64.StdEncoding.AppendEncode(b, []byte(h.Key))
			b = append(b, `","key_encoding":"base64"`...)
		}
		b = appendField(b, `,"value":`, `,"value_encoding":"base64"`, h.Value)
		b = append(b, '}')
	}
	b = append(b, "]}\n"...)
	return b
}

func appendField(b []byte, name, b64marker string, v []byte) []byte {
	b = append(b, name...)
	switch {
	case v == nil:
		return append(b, "null"...)
	case utf8.Valid(v):
		return appendJSONString(b, v)
	}
	b = append(b, '"')
	b = base64.StdEncoding.AppendEncode(b, v)
	b = append(b, '"')
	return append(b, b64marker...)
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s (valid UTF-8) as a JSON string: quotes,
// backslashes and control characters escaped, and DEL, the C1 controls,
// the format characters (bidi overrides...) and line separators as \u
// escapes, as all of offsetctl's JSON writes them (safetext.JSON): a line
// decodes to the record's exact bytes all the same (docs/replay.md),
// everything else as is.
func appendJSONString[S ~string | ~[]byte](b []byte, s S) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c-0x20 < 0x7f-0x20 && c != '"' && c != '\\' {
			continue // printable ASCII but for the two: nearly every byte
		}
		if c >= 0x7f {
			// A rune decode only after the few bytes that can start
			// an escaped rune.
			r, size := safetext.JSONEscapeAt(s[i:])
			if size == 0 {
				continue
			}
			b = append(b, s[start:i]...)
			b = safetext.AppendJSONEscape(b, r)
			i += size - 1
			start = i + 1
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"':
			b = append(b, '\\', '"')
		case '\\':
			b = append(b, '\\', '\\')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendRaw appends the value and a newline.
func appendRaw(b []byte, r *kgo.Record) []byte {
	b = append(b, r.Value...)
	return append(b, '\n')
}

// Line is one decoded JSON line.
type Line struct {
	Topic     string
	Partition int32
	Offset    int64
	Timestamp int64  // ms
	Key       []byte // nil for null
	Value     []byte // nil for null
	Headers   []kgo.RecordHeader
}

type jsonHeader struct {
	Key           string  `json:"key"`
	KeyEncoding   string  `json:"key_encoding"`
	Value         *string `json:"value"`
	ValueEncoding string  `json:"value_encoding"`
}

type jsonLine struct {
	Topic         string       `json:"topic"`
	Partition     *int32       `json:"partition"`
	Offset        *int64       `json:"offset"`
	Timestamp     *int64       `json:"timestamp"`
	Key           *string      `json:"key"`
	KeyEncoding   string       `json:"key_encoding"`
	Value         *string      `json:"value"`
	ValueEncoding string       `json:"value_encoding"`
	Headers       []jsonHeader `json:"headers"`
}

// ParseLine decodes one line written by the jsonl format back into the
// exact bytes of the record.
func ParseLine(line []byte) (Line, error) {
	var j jsonLine
	if err := json.Unmarshal(line, &j); err != nil {
		return Line{}, fmt.Errorf("not a replay JSON line: %w", err)
	}
	if j.Partition == nil || j.Offset == nil || j.Timestamp == nil {
		return Line{}, fmt.Errorf("replay JSON line lacks partition, offset or timestamp")
	}
	l := Line{Topic: j.Topic, Partition: *j.Partition, Offset: *j.Offset, Timestamp: *j.Timestamp}
	var err error
	if l.Key, err = decodeField(j.Key, j.KeyEncoding, "key"); err != nil {
		return Line{}, err
	}
	if l.Value, err = decodeField(j.Value, j.ValueEncoding, "value"); err != nil {
		return Line{}, err
	}
	for _, h := range j.Headers {
		k := h.Key
		if h.KeyEncoding != "" {
			kb, err := decodeField(&h.Key, h.KeyEncoding, "header key")
			if err != nil {
				return Line{}, err
			}
			k = string(kb)
		}
		v, err := decodeField(h.Value, h.ValueEncoding, "header value")
		if err != nil {
			return Line{}, err
		}
		l.Headers = append(l.Headers, kgo.RecordHeader{Key: k, Value: v})
	}
	return l, nil
}

func decodeField(s *string, enc, what string) ([]byte, error) {
	if s == nil {
		return nil, nil
	}
	switch enc {
	case "":
		return []byte(*s), nil
	case "base64":
		b, err := base64.StdEncoding.DecodeString(*s)
		if err != nil {
			return nil, fmt.Errorf("%s: bad base64: %w", what, err)
		}
		return b, nil
	}
	return nil, fmt.Errorf("%s: unknown encoding %q", what, enc)
}
