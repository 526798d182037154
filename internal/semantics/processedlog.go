package semantics

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Entry is one line of a processed log: partition,offset,key,value.
type Entry struct {
	Partition int32
	Offset    int64
	Key       string
	Value     string
}

// FormatEntry renders one processed-log line (with its newline). Keys and
// values are written as they are; the events of the experiment contain no
// newline.
func FormatEntry(partition int32, offset int64, key, value []byte) []byte {
	b := make([]byte, 0, 24+len(key)+len(value))
	b = strconv.AppendInt(b, int64(partition), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, offset, 10)
	b = append(b, ',')
	b = append(b, key...)
	b = append(b, ',')
	b = append(b, value...)
	return append(b, '\n')
}

// ParseLine parses one processed-log line: partition,offset[,key[,value]]
// where partition and offset are non-negative integers; the value may
// contain commas (everything after the third comma is the value). A
// trailing CR is ignored.
func ParseLine(line string) (Entry, error) {
	line = strings.TrimSuffix(line, "\r")
	fields := strings.SplitN(line, ",", 4)
	if len(fields) < 2 {
		return Entry{}, fmt.Errorf("want partition,offset,key,value, got %q", clip(line))
	}
	p, err := parseNumber("partition", fields[0], 32)
	if err != nil {
		return Entry{}, err
	}
	o, err := parseNumber("offset", fields[1], 64)
	if err != nil {
		return Entry{}, err
	}
	e := Entry{Partition: int32(p), Offset: o}
	if len(fields) > 2 {
		e.Key = fields[2]
	}
	if len(fields) > 3 {
		e.Value = fields[3]
	}
	return e, nil
}

// parseNumber parses a partition or offset field: a plain decimal number
// ≥ 0 that fits in bits. A number too large says so rather than "not a
// number".
func parseNumber(what, field string, bits int) (int64, error) {
	s := strings.TrimSpace(field)
	if !allDigits(s) {
		return 0, fmt.Errorf("%s %q is not a number ≥ 0", what, clip(field))
	}
	n, err := strconv.ParseInt(s, 10, bits)
	if err != nil {
		return 0, fmt.Errorf("%s %q is out of range (at most %d)", what, clip(field), uint64(1)<<(bits-1)-1)
	}
	return n, nil
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}

// LineError is a malformed line of a processed log.
type LineError struct {
	Line int
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// maxLine bounds one processed-log line.
const maxLine = 1 << 20

// ReadLog reads a processed log. Blank lines (and so a trailing newline)
// are skipped, CRLF line ends are accepted, a UTF-8 byte-order mark and a
// header line "partition,offset,..." at the top are ignored. A malformed
// line returns a *LineError.
func ReadLog(r io.Reader) ([]Entry, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), maxLine)
	var out []Entry
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if n == 1 {
			line = strings.TrimPrefix(line, "\uFEFF")
			if strings.HasPrefix(strings.ToLower(strings.TrimSpace(line)), "partition,") {
				continue
			}
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		e, err := ParseLine(line)
		if err != nil {
			return out, &LineError{Line: n, Err: err}
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return out, &LineError{Line: n + 1, Err: fmt.Errorf("line longer than %d bytes", maxLine)}
		}
		return out, err
	}
	return out, nil
}

// Count is the experiment's counting step (total, unique offsets,
// duplicates) for one processed log.
type Count struct {
	File          string `json:"file"`
	Total         int    `json:"total"`
	UniqueOffsets int    `json:"unique_offsets"`
	Duplicates    int    `json:"duplicates"`
}

// CountEntries counts total lines, distinct partition,offset pairs and
// duplicates (total - unique).
func CountEntries(file string, entries []Entry) Count {
	type po struct {
		p int32
		o int64
	}
	seen := make(map[po]struct{}, len(entries))
	for _, e := range entries {
		seen[po{e.Partition, e.Offset}] = struct{}{}
	}
	return Count{File: file, Total: len(entries), UniqueOffsets: len(seen), Duplicates: len(entries) - len(seen)}
}

// allDigits reports whether s is a plain decimal number: ParseInt alone
// would also take "+0" and "-0", which the consumer never writes.
func allDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}
