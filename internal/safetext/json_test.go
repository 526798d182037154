package safetext

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// jsonHostile are strings with every class of rune the JSON writer
// escapes, beside ones it keeps.
var jsonHostile = []string{
	"rtl\u202egnillib", "lri\u2066x\u2067y\u2068z\u2069", "lrm\u200e\u200frlm", "alm\u061c",
	"c1\u0080\u0085\u009b2K\u009f", "del\x7f", "shy\u00ad", "bom\ufeff", "zw\u200b\u200c\u200d",
	"ls\u2028ps\u2029", "tag\U000e0001\U000e0041", "emoji😀 ünïcödé 日本 עברית عربي",
	"nb\u00a0sp", "plain",
}

// Every rune jsonEscaped escapes starts with a byte jsonLead lists (the
// scan decodes only after those), and no other rune is escaped.
func TestJSONLeadBytes(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if !utf8.ValidRune(r) {
			continue
		}
		var b [utf8.UTFMax]byte
		n := utf8.EncodeRune(b[:], r)
		want := r == 0x7f || r >= 0x80 && r <= 0x9f || r == 0x2028 || r == 0x2029 || unicode.Is(unicode.Cf, r)
		if want && !jsonLead(b[0]) {
			t.Fatalf("U+%04X is escaped but its lead byte %#x is not listed", r, b[0])
		}
		if _, size := JSONEscapeAt(b[:n]); (size != 0) != want || want && size != n {
			t.Fatalf("JSONEscapeAt(U+%04X) size %d, want escaped %v", r, size, want)
		}
	}
}

// JSON's output has no raw format character, C1 control or DEL, whatever
// the Write boundaries (a bufio.Writer may split a rune), and decodes to
// the strings encoding/json was given.
func TestJSONWriterEscapesAndRoundTrips(t *testing.T) {
	doc, err := json.Marshal(map[string][]string{"names": jsonHostile})
	if err != nil {
		t.Fatal(err)
	}
	for step := 1; step <= len(doc); step++ {
		var out bytes.Buffer
		w := JSON(&out)
		for i := 0; i < len(doc); i += step {
			if n, err := w.Write(doc[i:min(i+step, len(doc))]); err != nil || n != min(step, len(doc)-i) {
				t.Fatalf("step %d: Write = %d, %v", step, n, err)
			}
		}
		for _, r := range out.String() {
			if r == 0x7f || r >= 0x80 && r <= 0x9f || r == 0x2028 || r == 0x2029 || unicode.Is(unicode.Cf, r) {
				t.Fatalf("step %d: U+%04X raw in %s", step, r, out.String())
			}
		}
		var back map[string][]string
		if err := json.Unmarshal(out.Bytes(), &back); err != nil {
			t.Fatalf("step %d: not JSON: %v\n%s", step, err, out.String())
		}
		for i, s := range jsonHostile {
			if back["names"][i] != s {
				t.Fatalf("step %d: decoded %q, want %q", step, back["names"][i], s)
			}
		}
		if step == len(doc) {
			for _, esc := range []string{`\u202e`, `\u2066`, `\u200e`, `\u061c`, `\u0085`, `\u007f`, `\udb40\udc01`} {
				if !strings.Contains(out.String(), esc) {
					t.Errorf("no %s in %s", esc, out.String())
				}
			}
			for _, keep := range []string{"emoji😀 ünïcödé 日本 עברית عربي", "nb\u00a0sp"} {
				if !strings.Contains(out.String(), keep) {
					t.Errorf("%q was escaped: %s", keep, out.String())
				}
			}
		}
	}
}

// Text with nothing to escape reaches w in the same Write, untouched; a
// long document with escapes is written in runs, never copied whole.
func TestJSONWriterStreams(t *testing.T) {
	var c countWriter
	plain := bytes.Repeat([]byte(`{"group":"payments-ü"},`), 10000)
	if _, err := JSON(&c).Write(plain); err != nil || c.writes != 1 || c.max != len(plain) {
		t.Fatalf("plain text: %d writes (largest %d), %v; want it in 1", c.writes, c.max, err)
	}
	c = countWriter{}
	hostile := bytes.Repeat([]byte(`{"group":"x`+"\u202e"+`y"},`), 10000)
	w := JSON(&c)
	if _, err := w.Write(hostile); err != nil {
		t.Fatal(err)
	}
	if c.max > jsonChunk || c.total != len(hostile)+10000*(6-3) {
		t.Errorf("largest write %d (want ≤ %d), %d bytes (want %d)", c.max, jsonChunk, c.total, len(hostile)+10000*3)
	}
}

type countWriter struct{ writes, max, total int }

func (c *countWriter) Write(p []byte) (int, error) {
	c.writes++
	c.max = max(c.max, len(p))
	c.total += len(p)
	return len(p), nil
}
