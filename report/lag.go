package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/offsetctl/offsetctl/internal/admin"
	"github.com/offsetctl/offsetctl/internal/lag"
	"github.com/offsetctl/offsetctl/internal/safetext"
)

// Lag renders a lag report. The table prints one block of rows per group,
// with the group's state and total lag above its rows; CSV prints one row
// per group-partition under one header; JSON is the report itself.
func Lag(w io.Writer, f Format, r lag.LagReport) error {
	s := NewLagStream(w, f, r, LagStreamOptions{})
	for _, g := range r.Groups {
		if err := s.Group(g); err != nil {
			return err
		}
	}
	return s.Close()
}

// LagStreamOptions shape a LagStream beyond its format.
type LagStreamOptions struct {
	// OneLine writes JSON as one line (a --watch round).
	OneLine bool
	// CSVTime, when set, is a TIME column in front of every CSV row (a
	// --watch round); CSVNoHeader leaves the header out (every round
	// after the first).
	CSVTime     string
	CSVNoHeader bool
}

// LagStream writes a lag report group by group, so that a report of a
// million rows is never held whole, neither as results nor as bytes: the
// caller hands it each group once computed. The bytes are those Lag
// writes for the whole report (TestLagStreamMatchesEncodingJSON).
type LagStream struct {
	w    *bufio.Writer
	f    Format
	meta lag.LagReport // Groups unused
	opt  LagStreamOptions
	cw   *csvWriter // one for the stream: each has a 4 KiB buffer
	// csvEscape: w is a terminal (TerminalCSV); decided before the
	// bufio.Writer hides it.
	csvEscape bool
	groups    int
	err       error
}

// NewLagStream starts a stream; meta gives the report's fields other than
// its groups (isolation, time, assume_reset, whether there is time lag).
// Nothing is written before the first Group or Close.
func NewLagStream(w io.Writer, f Format, meta lag.LagReport, opt LagStreamOptions) *LagStream {
	meta.Groups = nil
	csvEscape := escapesCSV(w)
	if f == JSON {
		// Under the buffer: it writes in 64 KiB chunks, not copies.
		w = jsonOut(w)
	}
	return &LagStream{w: bufio.NewWriterSize(w, 64<<10), f: f, meta: meta, opt: opt, csvEscape: csvEscape}
}

// Group writes one group. The first write error is kept and returned by
// every later call.
func (s *LagStream) Group(g lag.GroupLag) error {
	if s.err != nil {
		return s.err
	}
	if s.groups == 0 {
		s.err = s.begin()
	}
	if s.err == nil {
		s.err = s.group(g, s.groups)
	}
	s.groups++
	return s.err
}

// Close ends the document (JSON's closing brackets) and flushes.
func (s *LagStream) Close() error {
	if s.err != nil {
		return s.err
	}
	if s.groups == 0 {
		s.err = s.begin()
	}
	if s.err == nil {
		s.err = s.end()
	}
	if s.err == nil && s.cw != nil {
		s.cw.Flush()
		s.err = s.cw.Error()
	}
	if s.err == nil {
		s.err = s.w.Flush()
	}
	return s.err
}

func (s *LagStream) begin() error {
	switch s.f {
	case JSON:
		return s.jsonBegin()
	case CSV:
		if s.opt.CSVNoHeader {
			return nil
		}
		return s.csv(statusHeader(s.meta.Status, lagHeader(s.meta.TimeLag, true), true), "TIME")
	}
	return nil
}

func (s *LagStream) group(g lag.GroupLag, i int) error {
	switch s.f {
	case JSON:
		return s.jsonGroup(g, i)
	case CSV:
		for _, row := range statusRows(s.meta.Status, g, lagRows(s.meta.TimeLag, g, true), true) {
			if err := s.csv(row, s.opt.CSVTime); err != nil {
				return err
			}
		}
		return nil
	}
	return lagTableGroup(s.w, s.meta, g, i)
}

func (s *LagStream) end() error {
	if s.f != JSON {
		return nil
	}
	switch {
	case s.opt.OneLine:
		_, err := s.w.WriteString("]}\n")
		return err
	case s.groups == 0:
		_, err := s.w.WriteString("]\n}\n")
		return err
	}
	_, err := s.w.WriteString("\n  ]\n}\n")
	return err
}

// csv writes one CSV record, with the TIME column in front when the
// stream has one (first is then its header or value).
func (s *LagStream) csv(row []string, first string) error {
	if s.opt.CSVTime != "" {
		row = append([]string{first}, row...)
	}
	if s.cw == nil {
		cw := newCSVWriter(s.w, s.csvEscape)
		s.cw = &cw
	}
	return s.cw.Write(row)
}

// jsonBegin writes the report's fields up to the groups' opening bracket
// in the order and indentation encoding/json gives lag.LagReport.
func (s *LagStream) jsonBegin() error {
	head, err := json.Marshal(s.meta) // {"time":...,"isolation":...,"groups":null}
	if err != nil {
		return err
	}
	head = bytes.TrimSuffix(head, []byte(`null}`))
	if s.opt.OneLine {
		head = append(head, '[')
	} else {
		var ind bytes.Buffer
		if err := json.Indent(&ind, append(head, `[]}`...), "", "  "); err != nil {
			return err
		}
		head = bytes.TrimSuffix(ind.Bytes(), []byte("]\n}"))
	}
	_, err = s.w.Write(head)
	return err
}

// jsonGroup writes one group as an element of the groups array.
func (s *LagStream) jsonGroup(g lag.GroupLag, i int) error {
	var b []byte
	var err error
	sep := ","
	if s.opt.OneLine {
		b, err = g.EncodeJSON("", "")
	} else {
		b, err = g.EncodeJSON("    ", "  ")
		sep = ",\n    "
	}
	if err != nil {
		return err
	}
	switch {
	case i > 0:
		_, err = s.w.WriteString(sep)
	case !s.opt.OneLine:
		_, err = s.w.WriteString("\n    ")
	}
	if err == nil {
		_, err = s.w.Write(b)
	}
	return err
}

// lagTableGroup writes one group's block: a blank line between groups,
// the group line, then its rows as a table.
func lagTableGroup(w io.Writer, meta lag.LagReport, g lag.GroupLag, i int) error {
	if i > 0 {
		if _, err := fmt.Fprintln(w); err != nil {
			return err
		}
	}
	line := fmt.Sprintf("GROUP %s  TYPE %s  STATE %s  MEMBERS %d  TOTAL-LAG %s", safetext.Name(g.Group), Dash(g.Type), Dash(g.State), g.Members, Opt(g.OptTotalLag()))
	line += progressText(g.Progress)
	if g.Status != "" {
		line += "  STATUS " + g.Status + " (" + safetext.Text(g.StatusReason) + ")"
	}
	if g.Error != "" {
		line += "  ERROR " + safetext.Text(g.Error)
	} else if g.Note != "" {
		line += "  (" + safetext.Text(g.Note) + ")"
	}
	if _, err := fmt.Fprintln(w, line); err != nil {
		return err
	}
	if len(g.Partitions) == 0 {
		return nil
	}
	return WriteTable(w, statusHeader(meta.Status, lagHeader(meta.TimeLag, false), false), statusRows(meta.Status, g, lagRows(meta.TimeLag, g, false), false))
}

// LagWatchCSV writes one --watch round as CSV rows that follow the first
// round's: a TIME column (RFC 3339 UTC, with milliseconds when not whole
// seconds) in front of the usual columns, and the header only on the first
// round, so the whole stream is one CSV. A round that failed (roundErr) is
// one row with its time and the error in the ERROR column.
func LagWatchCSV(w io.Writer, r lag.LagReport, at time.Time, first bool, roundErr error) error {
	stamp := admin.FormatTime(at)
	if roundErr != nil {
		header := append([]string{"TIME"}, lagHeader(r.TimeLag, true)...)
		if !first {
			header = nil
		}
		row := make([]string, len(lagHeader(r.TimeLag, true))+1)
		row[0], row[len(row)-1] = stamp, roundErr.Error()
		return WriteCSV(w, header, [][]string{row})
	}
	s := NewLagStream(w, CSV, r, LagStreamOptions{CSVTime: stamp, CSVNoHeader: !first})
	for _, g := range r.Groups {
		if err := s.Group(g); err != nil {
			return err
		}
	}
	return s.Close()
}

// statusHeader adds lag --status's columns: STATUS in the table (the
// group line says why), STATUS and STATUS-REASON in CSV.
func statusHeader(status bool, h []string, csv bool) []string {
	if !status {
		return h
	}
	if csv {
		return append(h, "STATUS", "STATUS-REASON")
	}
	return append(h, "STATUS")
}

// statusRows adds the status columns to rows made by lagRows for g (one
// per partition; CSV's row of a group without partitions gets them
// empty).
func statusRows(status bool, g lag.GroupLag, rows [][]string, csv bool) [][]string {
	if !status {
		return rows
	}
	for i := range rows {
		var p lag.PartitionLag
		if i < len(g.Partitions) {
			p = g.Partitions[i]
		}
		if csv {
			rows[i] = append(rows[i], p.Status, p.StatusReason)
		} else {
			rows[i] = append(rows[i], Dash(p.Status))
		}
	}
	return rows
}

func lagHeader(timeLag, withGroup bool) []string {
	h := []string{"TOPIC", "PARTITION", "LOG-START", "COMMITTED", "LOG-END", "LAG"}
	if timeLag && withGroup {
		h = append(h, "TIME-LAG-MS")
	} else if timeLag {
		h = append(h, "TIME-LAG")
	}
	h = append(h, "MEMBER", "CLIENT-ID", "HOST", "NOTE")
	if withGroup {
		h = append([]string{"GROUP", "STATE"}, h...)
		h = append(h, "ERROR")
	}
	return h
}

// lagRows are one group's rows: the table's (withGroup false) or CSV's,
// where a group without rows still gets one row carrying its error.
func lagRows(timeLag bool, g lag.GroupLag, withGroup bool) [][]string {
	rows := make([][]string, 0, len(g.Partitions))
	for _, p := range g.Partitions {
		row := []string{p.Topic, I64(int64(p.Partition)), Known(p.LogStart), Opt(p.Committed), Known(p.LogEnd), Opt(p.Lag)}
		if withGroup { // CSV: a missing number is an empty field
			row[2], row[3], row[4], row[5] = KnownCSV(p.LogStart), OptCSV(p.Committed), KnownCSV(p.LogEnd), OptCSV(p.Lag)
		}
		if timeLag {
			if withGroup { // CSV: milliseconds, like JSON's time_lag_ms
				row = append(row, optMs(p.TimeLagMs))
			} else {
				row = append(row, timeLagText(p.TimeLagMs))
			}
		}
		note := p.Note
		if !withGroup && p.Error != "" {
			note = "ERROR: " + p.Error
		}
		if withGroup {
			row = append(row, p.Member, p.ClientID, p.Host, note, p.Error)
			row = append([]string{g.Group, g.State}, row...)
		} else {
			row = append(row, Dash(p.Member), Dash(p.ClientID), Dash(p.Host), Dash(note))
		}
		rows = append(rows, row)
	}
	if withGroup && len(g.Partitions) == 0 {
		row := make([]string, len(lagHeader(timeLag, true)))
		row[0], row[1] = g.Group, g.State
		row[len(row)-1] = g.Error
		rows = append(rows, row)
	}
	return rows
}

func optMs(ms *int64) string {
	if ms == nil {
		return ""
	}
	return I64(*ms)
}

func timeLagText(ms *int64) string {
	if ms == nil {
		return "-"
	}
	d := time.Duration(*ms) * time.Millisecond
	if d < time.Second {
		return d.String()
	}
	return d.Truncate(time.Second).String()
}

// Groups renders `groups` rows; status (groups --status) adds the STATUS
// and STATUS-REASON columns.
func Groups(w io.Writer, f Format, gs []lag.GroupSummary, status bool) error {
	if f == JSON {
		return WriteJSON(w, struct {
			Groups []lag.GroupSummary `json:"groups"`
		}{gs})
	}
	rows := make([][]string, 0, len(gs))
	for _, g := range gs {
		topics := strings.Join(g.Topics, ",")
		if f == Table {
			topics = Dash(topics)
		}
		typ := g.Type
		if g.ProtocolType != "" {
			typ = g.ProtocolType // a Kafka Connect worker group says so
		}
		total := OptCSV(g.TotalLag)
		if f == Table {
			total = Opt(g.TotalLag)
		}
		row := []string{g.Group, typ, g.State, fmt.Sprint(g.Members), topics, total, g.Error}
		if status {
			row = append(row, Dash(g.Status), g.StatusReason)
		}
		rows = append(rows, row)
	}
	h := []string{"GROUP", "TYPE", "STATE", "MEMBERS", "TOPICS", "TOTAL-LAG", "ERROR"}
	if status {
		h = append(h, "STATUS", "STATUS-REASON")
	}
	return Rows(w, f, h, rows)
}

// progressText is a --watch group line's rates and catch-up ETA: "caught up
// in 4m10s" at a glance for a backfill operator.
func progressText(p *lag.Progress) string {
	if p == nil {
		return ""
	}
	s := fmt.Sprintf("  CONSUMING %.1f/s  PRODUCED %.1f/s", p.ConsumeRate, p.ProduceRate)
	switch {
	case p.FallingBehind && p.ProduceRate > p.ConsumeRate:
		return s + "  FALLING BEHIND"
	case p.FallingBehind && p.ConsumeRate == 0:
		// No commits and no new records: the lag stands still, which is
		// a stalled consumer, not one the producers outrun.
		return s + "  NOT CONSUMING"
	case p.FallingBehind:
		return s + "  NOT GAINING"
	case *p.CatchUpSeconds == 0:
		return s + "  CAUGHT UP"
	}
	return s + "  CATCH-UP " + time.Duration(*p.CatchUpSeconds*float64(time.Second)).Round(time.Second).String()
}
