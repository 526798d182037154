// Package report renders offsetctl's typed results as a table, JSON or CSV.
// It depends on the result types of admin and replay, never the reverse.
// Everything it writes goes to the data stream it is handed (stdout).
package report

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/olekukonko/tablewriter"
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
	return "", fmt.Errorf("%q: want table, json or csv", s)
}

// WriteJSON writes v as indented JSON and a newline.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// largeTable is the row count above which WriteTable aligns printable-ASCII
// tables with text/tabwriter: tablewriter's per-cell width machinery costs
// about 35 µs a row (3.7 s for lag over 100 groups × 1,000 partitions).
const largeTable = 200

// WriteJSONLine writes v as JSON on one line (a stream of documents, e.g.
// one per --watch round).
func WriteJSONLine(w io.Writer, v any) error {
	return json.NewEncoder(w).Encode(v)
}

// WriteTable writes a plain aligned table (no borders), the style of
// kafka-consumer-groups.sh and kubectl: with tablewriter, or for large
// printable-ASCII tables with text/tabwriter, byte for byte the same
// layout (TestWriteAlignedMatchesWriteTable).
//
// Every cell goes through safetext.Name: a name from the cluster with a
// control byte, a bidi override or a line break is shown quoted, so it
// can neither repaint nor split a row (JSON and CSV keep the exact bytes).
func WriteTable(w io.Writer, header []string, rows [][]string) error {
	rows = safeCells(rows)
	if len(rows) > largeTable && printableASCII(header, rows) {
		return writeAligned(w, header, rows)
	}
	return writeTablewriter(w, header, rows)
}

// safeCells returns rows with every cell safetext.Name'd, copying only
// when a cell changes (almost never: Name returns a plain name as it is).
func safeCells(rows [][]string) [][]string {
	var out [][]string
	for i, r := range rows {
		for j, c := range r {
			n := safetext.Name(c)
			if n == c {
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

func printableASCII(header []string, rows [][]string) bool {
	for _, r := range append([][]string{header}, rows...) {
		for _, c := range r {
			for i := 0; i < len(c); i++ {
				if c[i] < 0x20 || c[i] > 0x7e {
					return false
				}
			}
		}
	}
	return true
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

// WriteCSV writes a header row and rows.
func WriteCSV(w io.Writer, header []string, rows [][]string) error {
	cw := csv.NewWriter(w)
	if header != nil {
		if err := cw.Write(header); err != nil {
			return err
		}
	}
	if err := cw.WriteAll(rows); err != nil {
		return err
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

// writeAligned writes the same layout as writeTablewriter for printable
// ASCII cells, with text/tabwriter: a reset or a lag can list tens of
// thousands of partitions.
func writeAligned(w io.Writer, header []string, rows [][]string) error {
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
	for _, r := range append([][]string{header}, rows...) {
		if _, err := io.WriteString(tw, strings.Join(r, "\t")+"\n"); err != nil {
			return err
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	for _, line := range bytes.SplitAfter(buf.Bytes(), []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		if _, err := bw.Write(bytes.TrimRight(line[:len(line)-1], " ")); err != nil {
			return err
		}
		if err := bw.WriteByte('\n'); err != nil {
			return err
		}
	}
	return bw.Flush()
}
