package exporter

import (
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// family is one lag metric family, written in the Prometheus text format
// (0.0.4) by hand once per gather: with 500 groups × 1,000 partitions a
// scrape through client_golang's constant metrics built and encoded a
// million series every time (23 s, over 1 GiB; bench/exporter.md), while
// the text of one gather is written once and served as bytes.
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
	b := s.lines[f]
	b = append(b, f.name...)
	sep := byte('{')
	if s.cluster != "" {
		b = appendLabel(b, sep, "cluster", s.cluster)
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
	s.lines[f] = append(b, '\n')
}

// appendLabel writes name="value" with the text format's escapes
// (backslash, double quote, line feed). A group or topic name that is not
// valid UTF-8 has its invalid bytes replaced by U+FFFD, as Prometheus
// requires UTF-8 label values.
func appendLabel(b []byte, sep byte, name, value string) []byte {
	b = append(b, sep)
	b = append(b, name...)
	b = append(b, '=', '"')
	if !utf8.ValidString(value) {
		value = strings.ToValidUTF8(value, "\uFFFD")
	}
	for i := 0; i < len(value); i++ {
		switch c := value[i]; c {
		case '\\':
			b = append(b, '\\', '\\')
		case '"':
			b = append(b, '\\', '"')
		case '\n':
			b = append(b, '\\', 'n')
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}

func appendValue(b []byte, v float64) []byte {
	switch {
	case math.IsInf(v, 1):
		return append(b, "+Inf"...)
	case math.IsInf(v, -1):
		return append(b, "-Inf"...)
	case math.IsNaN(v):
		return append(b, "NaN"...)
	}
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}

// writeHelp writes f's HELP and TYPE lines (every family is a gauge).
func writeHelp(w io.Writer, f *family) error {
	_, err := io.WriteString(w, "# HELP "+f.name+" "+escapeHelp(f.help)+"\n# TYPE "+f.name+" gauge\n")
	return err
}

func escapeHelp(s string) string {
	return strings.NewReplacer(`\`, `\\`, "\n", `\n`).Replace(s)
}
