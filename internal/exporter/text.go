package exporter

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// family is one lag metric family, written in the Prometheus text format
// (0.0.4) by hand: with 500 groups × 1,000 partitions a scrape through
// client_golang's constant metrics built and encoded a million series
// every time (23 s, over 1 GiB; bench/exporter.md), while appending the
// lines to a byte buffer takes 64 ms (the group families, from the
// groups' state at each scrape) and the topic families are written once
// per gather.
type family struct {
	name, help string
	// labels are the label names in the order the values are given,
	// sorted as Prometheus sorts them ("cluster", when set, sorts first).
	labels []string
}

// samples holds the text lines of each family for one gather.
type samples struct {
	cluster string // the cluster label of every line; "" for none
	lines   map[*family][]byte
}

// add appends one sample line to f: name{cluster="..",l1="v1",...} v.
func (s *samples) add(f *family, v float64, values ...string) {
	s.lines[f] = appendSample(s.lines[f], f, s.cluster, v, values...)
}

// appendSample appends one sample line of f to b.
func appendSample(b []byte, f *family, cluster string, v float64, values ...string) []byte {
	b = append(b, f.name...)
	sep := byte('{')
	if cluster != "" {
		b = appendLabel(b, sep, "cluster", cluster)
		sep = ','
	}
	for i, name := range f.labels {
		b = appendLabel(b, sep, name, values[i])
		sep = ','
	}
	if sep == ',' {
		b = append(b, '}')
	}
	b = append(b, ' ')
	b = appendValue(b, v)
	return append(b, '\n')
}

// appendLabel writes name="value" with the text format's escapes
// (backslash, double quote). Label values must be UTF-8: a byte of a group
// or topic name that is not is written as the four characters \xNN, so two
// names that differ only there stay two series (U+FFFD for both would make
// one scrape hold the same series twice, which Prometheus rejects). Apache
// Kafka decodes names as UTF-8, so only a cluster that keeps raw bytes (the
// in-process one) has such names. Control characters (C0 including the line
// feed, DEL, and the C1 runes U+0080-U+009F) are written the same way
// (\x1b, \x0a, \u0085): a group id is anyone's to choose, and a label value
// reaches terminals and dashboards raw, so none may move a cursor or split
// a line there. A backslash of the name is written as two, so that every
// label value reads back as one name only.
func appendLabel(b []byte, sep byte, name, value string) []byte {
	b = append(b, sep)
	b = append(b, name...)
	b = append(b, '=', '"')
	for i := 0; i < len(value); {
		c := value[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(value[i:])
			switch {
			case r == utf8.RuneError && size == 1:
				b = append(b, '\\', '\\', 'x', hexDigit[c>>4], hexDigit[c&15])
			case r < 0xa0: // a C1 control
				b = append(b, '\\', '\\', 'u', '0', '0', hexDigit[r>>4], hexDigit[r&15])
			default:
				b = append(b, value[i:i+size]...)
			}
			i += size
			continue
		}
		switch {
		case c == '\\':
			// Two backslashes in the value: a name's own backslash
			// never reads as the start of one of the escapes below,
			// so a name holding the text \x0a and one holding a line
			// feed stay two series (one series twice in a scrape
			// fails the whole scrape).
			b = append(b, '\\', '\\', '\\', '\\')
		case c == '"':
			b = append(b, '\\', '"')
		case c < 0x20 || c == 0x7f:
			b = append(b, '\\', '\\', 'x', hexDigit[c>>4], hexDigit[c&15])
		default:
			b = append(b, c)
		}
		i++
	}
	return append(b, '"')
}

const hexDigit = "0123456789abcdef"

func appendValue(b []byte, v float64) []byte {
	switch {
	case math.IsInf(v, 1):
		return append(b, "+Inf"...)
	case math.IsInf(v, -1):
		return append(b, "-Inf"...)
	case math.IsNaN(v):
		return append(b, "NaN"...)
	case v > -1e6 && v < 1e6 && v == math.Trunc(v) && (v != 0 || !math.Signbit(v)):
		// Most values of a page are small whole numbers (lags, counts),
		// which 'g' writes as integers below 1e6 (1e6 is "1e+06"); the
		// float formatting was over half of a scrape's CPU at 500 groups x
		// 1,000 partitions.
		return strconv.AppendInt(b, int64(v), 10)
	}
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}

// appendHelp appends f's HELP and TYPE lines (every family is a gauge).
func appendHelp(b []byte, f *family) []byte {
	return append(b, "# HELP "+f.name+" "+escapeHelp(f.help)+"\n# TYPE "+f.name+" gauge\n"...)
}

func escapeHelp(s string) string {
	return strings.NewReplacer(`\`, `\\`, "\n", `\n`).Replace(s)
}
