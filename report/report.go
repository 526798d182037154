package report

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/pkg/twwidth"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/offsetctl/offsetctl/internal/safetext"
)

// Format is an output format.
type Format string

// The output formats.
const (
	Table Format = "table"
	JSON  Format = "json"
	CSV   Format = "csv"
)

// ParseFormat parses -o/--output.
func ParseFormat(s string) (Format, error) {
	switch f := Format(strings.ToLower(strings.TrimSpace(s))); f {
	case Table, JSON, CSV:
		return f, nil
	}
	return "", errors.New("want table, json or csv")
}

// WriteJSON writes v as indented JSON and a newline.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(jsonOut(w))
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// jsonOut is where every JSON document or line of this package is written
// (WriteJSON, WriteJSONLine, LagStream, HistoryJSON): DEL, C1 controls,
// format characters (bidi overrides, isolates, marks) and line separators
// in a name from the cluster are written as \u escapes (safetext.JSON),
// on a terminal or not. The JSON decodes to the same strings, so a reader
// of it sees no change; a terminal or pager showing it is not reordered.
func jsonOut(w io.Writer) io.Writer { return safetext.JSON(w) }

// largeTable is the row count above which WriteTable aligns tables itself
// (writeAligned): tablewriter's per-cell width machinery costs about 35 µs
// a row (3.7 s for lag over 100 groups × 1,000 partitions).
const largeTable = 200

// WriteJSONLine writes v as JSON on one line (a stream of documents, e.g.
// one per --watch round).
func WriteJSONLine(w io.Writer, v any) error {
	return json.NewEncoder(jsonOut(w)).Encode(v)
}

// WriteTable writes a plain aligned table (no borders), the style of
// kafka-consumer-groups.sh and kubectl: with tablewriter, or for large
// tables with writeAligned, byte for byte the same layout, display widths
// included (TestWriteAlignedMatchesWriteTable).
//
// Every cell goes through safetext.Name: a name from the cluster with a
// control byte, a bidi override or a line break is shown quoted, so it
// can neither repaint nor split a row (JSON and CSV keep the exact bytes).
// A cell that still has a control character after that (which
// tablewriter renders in its own ways, e.g. a newline as two lines) keeps
// a large table on tablewriter.
func WriteTable(w io.Writer, header []string, rows [][]string) error {
	return writeTable(w, header, rows, -1)
}

// writeTable is WriteTable with column rendered (-1: none) already made
// safe by its caller (a safetext.List of names), so it is not quoted again.
func writeTable(w io.Writer, header []string, rows [][]string, rendered int) error {
	rows = safeCells(rows, rendered)
	if len(rows) > largeTable && !hasControl(header, rows) {
		return writeAligned(w, header, rows)
	}
	return writeTablewriter(w, header, rows)
}

// safeCells returns rows with every cell but column rendered
// safetext.Name'd, copying only when a cell changes (almost never: Name
// returns a plain name as it is).
func safeCells(rows [][]string, rendered int) [][]string {
	var out [][]string
	for i, r := range rows {
		for j, c := range r {
			n := safetext.Name(c)
			if n == c || j == rendered {
				continue
			}
			if out == nil {
				out = append([][]string(nil), rows...)
			}
			if &out[i][0] == &rows[i][0] {
				out[i] = append([]string(nil), r...)
			}
			out[i][j] = n
		}
	}
	if out == nil {
		return rows
	}
	return out
}

func hasControl(header []string, rows [][]string) bool {
	for _, r := range append([][]string{header}, rows...) {
		for _, c := range r {
			for _, ch := range c {
				if unicode.IsControl(ch) {
					return true
				}
			}
		}
	}
	return false
}

// cellWidth is the display width of a cell, as tablewriter measures it
// (twwidth: East Asian wide characters take two columns, combining marks
// none); printable ASCII, nearly every cell, is its length.
func cellWidth(c string) int {
	for i := 0; i < len(c); i++ {
		if c[i] < 0x20 || c[i] > 0x7e {
			return twwidth.Width(c)
		}
	}
	return len(c)
}

func writeTablewriter(w io.Writer, header []string, rows [][]string) error {
	var buf bytes.Buffer
	t := tablewriter.NewTable(&buf,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{
			Borders: tw.BorderNone,
			Settings: tw.Settings{
				Separators: tw.SeparatorsNone,
				Lines:      tw.LinesNone,
			},
		})),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignment(tw.AlignLeft),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithHeaderAutoWrap(tw.WrapNone),
		tablewriter.WithTrimSpace(tw.Off),
		tablewriter.WithPadding(tw.Padding{Left: "", Right: "  ", Overwrite: true}),
	)
	hdr := make([]any, len(header))
	for i, h := range header {
		hdr[i] = h
	}
	t.Header(hdr...)
	if len(rows) > 0 {
		if err := t.Bulk(rows); err != nil {
			return fmt.Errorf("rendering table: %w", err)
		}
	}
	if err := t.Render(); err != nil {
		return fmt.Errorf("rendering table: %w", err)
	}
	// The last column's padding would leave trailing blanks on every line.
	lines := bytes.SplitAfter(buf.Bytes(), []byte("\n"))
	out := make([]byte, 0, buf.Len())
	for _, l := range lines {
		nl := bytes.HasSuffix(l, []byte("\n"))
		out = append(out, bytes.TrimRight(l, " \n")...)
		if nl {
			out = append(out, '\n')
		}
	}
	_, err := w.Write(out)
	return err
}

// TerminalCSV marks w, a terminal, for this package's CSV writers: each
// cell is then written as safetext.Text renders it, so a line break in a
// name from the cluster is written as \n inside its cell. CSV quoting
// keeps a line break raw inside quotes, which a file or a pipe must get
// (RFC 4180: the exact bytes) but which on a terminal draws a forged row
// ("zz\npayments,classic,Stable,..."); a filter on the whole stream
// (safetext.Lines) cannot tell that line break from the record's end.
// Every other writer passes w unchanged: the exact bytes.
func TerminalCSV(w io.Writer) io.Writer { return terminalCSV{w} }

type terminalCSV struct{ io.Writer }

// csvWriter writes the CSV records of this package: all of them, so the
// terminal rule (TerminalCSV) holds for every CSV output.
type csvWriter struct {
	*csv.Writer
	escape bool
}

func newCSVWriter(w io.Writer, escape bool) csvWriter {
	return csvWriter{Writer: csv.NewWriter(w), escape: escape}
}

// escapesCSV reports whether w is marked by TerminalCSV.
func escapesCSV(w io.Writer) bool {
	_, ok := w.(terminalCSV)
	return ok
}

// Write writes one record, its cells escaped for a terminal if so made.
func (c csvWriter) Write(row []string) error {
	if c.escape {
		esc := make([]string, len(row))
		for i, cell := range row {
			esc[i] = safetext.Text(cell)
		}
		row = esc
	}
	return c.Writer.Write(row)
}

// WriteCSV writes a header row and rows.
func WriteCSV(w io.Writer, header []string, rows [][]string) error {
	cw := newCSVWriter(w, escapesCSV(w))
	if header != nil {
		if err := cw.Write(header); err != nil {
			return err
		}
	}
	for _, row := range rows {
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// Rows writes header and rows as a table or CSV.
func Rows(w io.Writer, f Format, header []string, rows [][]string) error {
	if f == CSV {
		return WriteCSV(w, header, rows)
	}
	return WriteTable(w, header, rows)
}

// I64 formats an int64.
func I64(v int64) string { return strconv.FormatInt(v, 10) }

// Opt formats an optional int64: "-" when nil.
func Opt(v *int64) string {
	if v == nil {
		return "-"
	}
	return I64(*v)
}

// Known formats an offset that is -1 when unknown as "-".
func Known(v int64) string {
	if v < 0 {
		return "-"
	}
	return I64(v)
}

// OptCSV formats an optional int64 for CSV: empty when nil, as a CSV
// reader expects of a missing number.
func OptCSV(v *int64) string {
	if v == nil {
		return ""
	}
	return I64(*v)
}

// KnownCSV formats an offset that is -1 when unknown for CSV: empty then.
func KnownCSV(v int64) string {
	if v < 0 {
		return ""
	}
	return I64(v)
}

// Dash returns s, or "-" when empty.
func Dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// writeAligned writes the same layout as writeTablewriter: every column
// as wide as its widest cell (display width) plus two blanks, no blanks at
// the end of a line. A reset or a lag can list hundreds of thousands of
// rows: widths are measured once per cell, and lines are written as they
// are laid out.
func writeAligned(w io.Writer, header []string, rows [][]string) error {
	widths := make([]int, len(header))
	measure := func(r []string) {
		for i, c := range r {
			if i < len(widths) {
				widths[i] = max(widths[i], cellWidth(c))
			}
		}
	}
	measure(header)
	for _, r := range rows {
		measure(r)
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	line := make([]byte, 0, 256)
	for _, r := range append([][]string{header}, rows...) {
		line = line[:0]
		for i, c := range r {
			line = append(line, c...)
			if i < len(r)-1 {
				for n := widths[i] - cellWidth(c) + 2; n > 0; n-- {
					line = append(line, ' ')
				}
			}
		}
		line = append(bytes.TrimRight(line, " "), '\n')
		if _, err := bw.Write(line); err != nil {
			return err
		}
	}
	return bw.Flush()
}
