// Package report renders offsetctl's typed results as a table, JSON or CSV.
// It depends on the result types of admin and replay, never the reverse.
// Everything it writes goes to the data stream it is handed (stdout).
package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
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
	return "", fmt.Errorf("--output %q: want table, json or csv", s)
}

// WriteJSON writes v as indented JSON and a newline.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// WriteTable writes a plain aligned table (no borders), the style of
// kafka-consumer-groups.sh and kubectl.
func WriteTable(w io.Writer, header []string, rows [][]string) error {
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

// Dash returns s, or "-" when empty.
func Dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
