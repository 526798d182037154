package cluster

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Property is one key=value entry of a Java properties file.
type Property struct {
	Key, Value string
	// Line is the 1-based line where the entry starts.
	Line int
}

// Properties is a parsed Java properties file: entries in file order, a
// later duplicate key replacing an earlier one (as java.util.Properties).
type Properties struct {
	Entries []Property
}

// Get returns the value of key and whether it is set.
func (p Properties) Get(key string) (string, bool) {
	for i := len(p.Entries) - 1; i >= 0; i-- {
		if p.Entries[i].Key == key {
			return p.Entries[i].Value, true
		}
	}
	return "", false
}

// Map returns the properties as a map (last duplicate wins).
func (p Properties) Map() map[string]string {
	m := make(map[string]string, len(p.Entries))
	for _, e := range p.Entries {
		m[e.Key] = e.Value
	}
	return m
}

// keyLines maps each key to the line of the entry Map keeps for it (the
// last duplicate).
func (p Properties) keyLines() map[string]int {
	m := make(map[string]int, len(p.Entries))
	for _, e := range p.Entries {
		m[e.Key] = e.Line
	}
	return m
}

// utf8BOM is the byte order mark some editors write first in a UTF-8 file.
const utf8BOM = "\uFEFF"

// maxPropertiesSize bounds what ParseProperties reads: client config files
// are a few KiB; anything far larger is not one.
const maxPropertiesSize = 4 << 20

// ParseProperties reads r in the format of java.util.Properties.load:
// key=value, key: value or key value; '#' and '!' comment lines; a trailing
// odd backslash continues a line (the next line's leading blanks dropped);
// escapes \t \n \r \f \uXXXX, and a backslash before any other character
// keeps that character. Input is read as UTF-8 (Java's Reader form).
//
// Errors name the line but never echo its text: values may be passwords.
func ParseProperties(r io.Reader) (Properties, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxPropertiesSize+1))
	if err != nil {
		return Properties{}, err
	}
	if len(data) > maxPropertiesSize {
		return Properties{}, fmt.Errorf("larger than %d MiB: not a client properties file", maxPropertiesSize>>20)
	}
	// A UTF-8 byte order mark, which Windows editors put first, would
	// become part of the first key and drop that line's setting (such as
	// security.protocol=SSL). Java's Properties keeps it; no key starts
	// with one, so it is stripped.
	data = bytes.TrimPrefix(data, []byte(utf8BOM))
	var props Properties
	lines := splitNaturalLines(string(data))
	for i := 0; i < len(lines); i++ {
		start := i + 1
		line := trimLeftBlank(lines[i])
		if line == "" || line[0] == '#' || line[0] == '!' {
			continue
		}
		// Join continuation lines: a line ending in an odd number of
		// backslashes continues on the next, whose leading blanks go.
		logical := line
		for endsWithOddBackslashes(logical) {
			logical = logical[:len(logical)-1]
			if i+1 >= len(lines) {
				break // Java drops a dangling backslash at end of input
			}
			i++
			logical += trimLeftBlank(lines[i])
		}
		key, value, err := splitKeyValue(logical)
		if err != nil {
			return Properties{}, fmt.Errorf("line %d: %w", start, err)
		}
		props.Entries = append(props.Entries, Property{Key: key, Value: value, Line: start})
	}
	return props, nil
}

// splitNaturalLines splits on \n, \r and \r\n.
func splitNaturalLines(s string) []string {
	var out []string
	sc := bufio.NewScanner(strings.NewReader(s))
	sc.Buffer(make([]byte, 64*1024), maxPropertiesSize+1)
	sc.Split(func(data []byte, atEOF bool) (int, []byte, error) {
		for i, c := range data {
			switch c {
			case '\n':
				return i + 1, data[:i], nil
			case '\r':
				if i+1 < len(data) {
					if data[i+1] == '\n' {
						return i + 2, data[:i], nil
					}
					return i + 1, data[:i], nil
				}
				if atEOF {
					return i + 1, data[:i], nil
				}
				return 0, nil, nil // need one more byte to see \r\n
			}
		}
		if atEOF && len(data) > 0 {
			return len(data), data, nil
		}
		return 0, nil, nil
	})
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\f' }

func trimLeftBlank(s string) string {
	i := 0
	for i < len(s) && isBlank(s[i]) {
		i++
	}
	return s[i:]
}

func endsWithOddBackslashes(s string) bool {
	n := 0
	for i := len(s) - 1; i >= 0 && s[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

// splitKeyValue splits a logical line (leading blanks removed) into its
// unescaped key and value.
func splitKeyValue(line string) (string, string, error) {
	// The key ends at the first unescaped '=', ':' or blank.
	end := len(line)
	sepIsBlank := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		if c == '\\' {
			i++
			continue
		}
		if c == '=' || c == ':' {
			end = i
			break
		}
		if isBlank(c) {
			end = i
			sepIsBlank = true
			break
		}
	}
	rawKey := line[:end]
	rest := ""
	if end < len(line) {
		rest = line[end+1:]
		if sepIsBlank {
			// Blanks, then optionally one '=' or ':', then blanks.
			rest = trimLeftBlank(rest)
			if rest != "" && (rest[0] == '=' || rest[0] == ':') {
				rest = rest[1:]
			}
		}
		rest = trimLeftBlank(rest)
	}
	key, err := unescapeProperty(rawKey)
	if err != nil {
		return "", "", fmt.Errorf("key: %w", err)
	}
	value, err := unescapeProperty(rest)
	if err != nil {
		if !plausibleKey(key) {
			// The line number is added by the caller; the key may be
			// a secret (see plausibleKey).
			return "", "", fmt.Errorf("value: %w", err)
		}
		return "", "", fmt.Errorf("value of %s: %w", key, err)
	}
	return key, value, nil
}

// quoteKey quotes a key for an error message, shortened if huge.
func quoteKey(k string) string {
	if len(k) > 80 {
		k = k[:80] + "..."
	}
	return fmt.Sprintf("%q", k)
}

func unescapeProperty(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		i++
		if i >= len(s) {
			break // a lone trailing backslash is dropped
		}
		switch c = s[i]; c {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			if len(s) < i+5 {
				return "", fmt.Errorf(`malformed \uXXXX escape (needs four hex digits)`)
			}
			var r rune
			for _, h := range s[i+1 : i+5] {
				d, ok := hexDigit(h)
				if !ok {
					return "", fmt.Errorf(`malformed \uXXXX escape (needs four hex digits)`)
				}
				r = r<<4 | d
			}
			i += 4
			// Join a UTF-16 surrogate pair written as two escapes.
			if r >= 0xD800 && r < 0xDC00 && len(s) >= i+7 && s[i+1:i+3] == `\u` {
				var lo rune
				ok := true
				for _, h := range s[i+3 : i+7] {
					d, good := hexDigit(h)
					if !good {
						ok = false
						break
					}
					lo = lo<<4 | d
				}
				if ok && lo >= 0xDC00 && lo < 0xE000 {
					r = 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
					i += 6
				}
			}
			if !utf8.ValidRune(r) {
				r = utf8.RuneError
			}
			b.WriteRune(r)
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

func hexDigit(h rune) (rune, bool) {
	switch {
	case h >= '0' && h <= '9':
		return h - '0', true
	case h >= 'a' && h <= 'f':
		return h - 'a' + 10, true
	case h >= 'A' && h <= 'F':
		return h - 'A' + 10, true
	}
	return 0, false
}

// EscapeProperty escapes s so ParseProperties reads it back unchanged, as
// a key (key true) or a value.
func EscapeProperty(s string, key bool) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\\', '=', ':', '#', '!':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\f':
			b.WriteString(`\f`)
		case ' ':
			if key || i == 0 {
				b.WriteString(`\ `)
			} else {
				b.WriteByte(' ')
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
