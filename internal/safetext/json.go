package safetext

import (
	"io"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// JSON, unlike a table, keeps a name's characters: encoding/json escapes
// the C0 controls, but writes DEL, the C1 controls and the format
// characters raw, so a group named "x\u202eyfed" reached a terminal (or a
// pager, or an editor) from `lag -o json` as a bidi override that reorders
// what follows it. Written as a \u escape instead, the text is still valid
// JSON and decodes to the identical string, so no consumer sees a change.

// jsonEscaped reports whether r is written as a \u escape in offsetctl's
// JSON: DEL, a C1 control (U+0080–U+009F), a format character (Unicode Cf:
// the bidi marks, embeddings, overrides and isolates U+061C, U+200E/F,
// U+202A–E, U+2066–9; zero-width characters, the BOM, tags) or a line or
// paragraph separator (U+2028/9, which encoding/json escapes too).
func jsonEscaped(r rune) bool {
	return r == 0x7f || r >= 0x80 && r <= 0x9f || r == 0x2028 || r == 0x2029 || unicode.Is(unicode.Cf, r)
}

// jsonLead reports whether c can start the UTF-8 encoding of a rune
// jsonEscaped escapes: the scans decode a rune only after one of these,
// so text without them (ASCII, most scripts) costs a byte compare.
// TestJSONLeadBytes checks the list against Unicode's tables.
func jsonLead(c byte) bool {
	switch c {
	case 0x7f, 0xc2, 0xd8, 0xdb, 0xdc, 0xe0, 0xe1, 0xe2, 0xef, 0xf0, 0xf3:
		return true
	}
	return false
}

// JSONEscapeAt returns the rune that s starts with and its size when
// offsetctl's JSON writes it as a \u escape (AppendJSONEscape), else size
// 0. Invalid UTF-8 is never escaped here (encoding/json writes none).
func JSONEscapeAt[S ~string | ~[]byte](s S) (r rune, size int) {
	if len(s) == 0 || !jsonLead(s[0]) {
		return 0, 0
	}
	if s[0] == 0x7f {
		return 0x7f, 1
	}
	r, size = utf8.DecodeRuneInString(string(s[:min(len(s), utf8.UTFMax)]))
	if size <= 1 || !jsonEscaped(r) {
		return 0, 0
	}
	return r, size
}

const hexDigits = "0123456789abcdef"

// AppendJSONEscape appends r as a JSON \u escape: \u202e, or the UTF-16
// surrogate pair JSON spells a rune above U+FFFF with (\udb40\udc01).
func AppendJSONEscape(dst []byte, r rune) []byte {
	if r > 0xffff {
		r1, r2 := utf16.EncodeRune(r)
		return AppendJSONEscape(AppendJSONEscape(dst, r1), r2)
	}
	return append(dst, '\\', 'u', hexDigits[r>>12&0xf], hexDigits[r>>8&0xf], hexDigits[r>>4&0xf], hexDigits[r&0xf])
}

// jsonChunk bounds what a JSON writer gathers before writing: runs longer
// than that are written straight from the caller's slice.
const jsonChunk = 4 << 10

// JSON wraps w, which is given JSON text, so that every rune JSONEscapeAt
// names reaches w as its \u escape. JSON has such runes only inside
// strings (outside, it is ASCII without DEL), where the escape means the
// same character. It streams: a Write with nothing to escape goes to w as
// it is, and one with escapes is written in runs of at most a few KiB
// besides the caller's own slices, so a document of many MB is never
// copied whole. A rune split between two Writes (a bufio.Writer's chunks)
// is held, at most 3 bytes, until the next Write completes it: the text
// must be valid UTF-8, as encoding/json's always is.
func JSON(w io.Writer) io.Writer { return &jsonWriter{w: w} }

type jsonWriter struct {
	w    io.Writer
	held []byte // the start of a rune the last Write split
	buf  []byte // escapes and short runs, written at the end of a Write
}

func (j *jsonWriter) Write(p []byte) (int, error) {
	n := len(p)
	if len(j.held) > 0 {
		need := seqLen(j.held[0]) - len(j.held)
		if len(p) < need && allCont(p) {
			j.held = append(j.held, p...)
			return n, nil
		}
		take := 0
		for take < need && take < len(p) && p[take]&0xc0 == 0x80 {
			take++
		}
		piece := append(j.held, p[:take]...)
		j.held = nil
		if err := j.scan(piece, true); err != nil {
			return 0, err
		}
		p = p[take:]
	}
	if err := j.scan(p, false); err != nil {
		return 0, err
	}
	return n, j.flush()
}

// scan writes p with its escapes; unless final, an incomplete rune at
// its end that may need escaping is held for the next Write.
func (j *jsonWriter) scan(p []byte, final bool) error {
	start := 0
	for i := 0; i < len(p); i++ {
		if !jsonLead(p[i]) {
			continue
		}
		if l := seqLen(p[i]); !final && i+l > len(p) && allCont(p[i+1:]) {
			if err := j.emit(p[start:i]); err != nil {
				return err
			}
			j.held = append(j.held[:0], p[i:]...)
			return nil
		}
		r, size := JSONEscapeAt(p[i:])
		if size == 0 {
			continue
		}
		if err := j.emit(p[start:i]); err != nil {
			return err
		}
		j.buf = AppendJSONEscape(j.buf, r)
		i += size - 1
		start = i + 1
	}
	if start == 0 && len(j.buf) == 0 {
		_, err := j.w.Write(p) // the common case: nothing escaped
		return err
	}
	return j.emit(p[start:])
}

// emit gathers b in buf, or writes a long run straight from the caller's
// slice.
func (j *jsonWriter) emit(b []byte) error {
	if len(j.buf)+len(b) <= jsonChunk {
		j.buf = append(j.buf, b...)
		return nil
	}
	if err := j.flush(); err != nil {
		return err
	}
	if len(b) > jsonChunk {
		_, err := j.w.Write(b)
		return err
	}
	j.buf = append(j.buf, b...)
	return nil
}

func (j *jsonWriter) flush() error {
	if len(j.buf) == 0 {
		return nil
	}
	_, err := j.w.Write(j.buf)
	j.buf = j.buf[:0]
	return err
}

// seqLen is the length of the UTF-8 sequence lead byte c starts (1 for
// ASCII and for a byte that starts none).
func seqLen(c byte) int {
	switch {
	case c >= 0xf0:
		return 4
	case c >= 0xe0:
		return 3
	case c >= 0xc0:
		return 2
	}
	return 1
}

// allCont reports whether every byte of b is a UTF-8 continuation byte.
func allCont(b []byte) bool {
	for _, c := range b {
		if c&0xc0 != 0x80 {
			return false
		}
	}
	return true
}
