package report

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/offsetctl/offsetctl/admin"
	"github.com/offsetctl/offsetctl/internal/safetext"
)

// Lag renders a lag report. The table prints one block of rows per group,
// with the group's state and total lag above its rows; CSV prints one row
// per group-partition under one header; JSON is the report itself.
func Lag(w io.Writer, f Format, r admin.LagReport) error {
	switch f {
	case JSON:
		return WriteJSON(w, r)
	case CSV:
		return WriteCSV(w, lagHeader(r.TimeLag, true), lagRows(r, true))
	}
	for i, g := range r.Groups {
		if i > 0 {
			if _, err := fmt.Fprintln(w); err != nil {
				return err
			}
		}
		line := fmt.Sprintf("GROUP %s  TYPE %s  STATE %s  MEMBERS %d  TOTAL-LAG %d", safetext.Name(g.Group), Dash(g.Type), Dash(g.State), g.Members, g.TotalLag)
		line += progressText(g.Progress)
		if g.Error != "" {
			line += "  ERROR " + safetext.Text(g.Error)
		} else if g.Note != "" {
			line += "  (" + safetext.Text(g.Note) + ")"
		}
		if _, err := fmt.Fprintln(w, line); err != nil {
			return err
		}
		if len(g.Partitions) == 0 {
			continue
		}
		one := admin.LagReport{TimeLag: r.TimeLag, Groups: []admin.GroupLag{g}}
		if err := WriteTable(w, lagHeader(r.TimeLag, false), lagRows(one, false)); err != nil {
			return err
		}
	}
	return nil
}

// LagWatchCSV writes one --watch round as CSV rows that follow the first
// round's: a TIME column (RFC 3339 UTC, with milliseconds when not whole
// seconds) in front of the usual columns, and the header only on the first
// round, so the whole stream is one CSV. A round that failed (roundErr) is
// one row with its time and the error in the ERROR column.
func LagWatchCSV(w io.Writer, r admin.LagReport, at time.Time, first bool, roundErr error) error {
	header := append([]string{"TIME"}, lagHeader(r.TimeLag, true)...)
	if !first {
		header = nil
	}
	stamp := admin.FormatTime(at)
	if roundErr != nil {
		row := make([]string, len(lagHeader(r.TimeLag, true))+1)
		row[0], row[len(row)-1] = stamp, roundErr.Error()
		return WriteCSV(w, header, [][]string{row})
	}
	rows := lagRows(r, true)
	for i, row := range rows {
		rows[i] = append([]string{stamp}, row...)
	}
	return WriteCSV(w, header, rows)
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

func lagRows(r admin.LagReport, withGroup bool) [][]string {
	var rows [][]string
	for _, g := range r.Groups {
		for _, p := range g.Partitions {
			row := []string{p.Topic, I64(int64(p.Partition)), Known(p.LogStart), Opt(p.Committed), Known(p.LogEnd), Opt(p.Lag)}
			if withGroup { // CSV: a missing number is an empty field
				row[2], row[3], row[4], row[5] = KnownCSV(p.LogStart), OptCSV(p.Committed), KnownCSV(p.LogEnd), OptCSV(p.Lag)
			}
			if r.TimeLag {
				if withGroup { // CSV: milliseconds, like JSON's time_lag_ms
					row = append(row, optMs(p.TimeLagMs))
				} else {
					row = append(row, timeLag(p.TimeLagMs))
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
			row := make([]string, len(lagHeader(r.TimeLag, true)))
			row[0], row[1] = g.Group, g.State
			row[len(row)-1] = g.Error
			rows = append(rows, row)
		}
	}
	return rows
}

func optMs(ms *int64) string {
	if ms == nil {
		return ""
	}
	return I64(*ms)
}

func timeLag(ms *int64) string {
	if ms == nil {
		return "-"
	}
	d := time.Duration(*ms) * time.Millisecond
	if d < time.Second {
		return d.String()
	}
	return d.Truncate(time.Second).String()
}

// Groups renders `groups` rows.
func Groups(w io.Writer, f Format, gs []admin.GroupSummary) error {
	if f == JSON {
		return WriteJSON(w, struct {
			Groups []admin.GroupSummary `json:"groups"`
		}{gs})
	}
	rows := make([][]string, 0, len(gs))
	for _, g := range gs {
		topics := strings.Join(g.Topics, ",")
		if f == Table {
			topics = Dash(topics)
		}
		rows = append(rows, []string{g.Group, g.Type, g.State, fmt.Sprint(g.Members), topics, I64(g.TotalLag), g.Error})
	}
	return Rows(w, f, []string{"GROUP", "TYPE", "STATE", "MEMBERS", "TOPICS", "TOTAL-LAG", "ERROR"}, rows)
}

// progressText is a --watch group line's rates and catch-up ETA: "caught up
// in 4m10s" at a glance for a backfill operator.
func progressText(p *admin.Progress) string {
	if p == nil {
		return ""
	}
	s := fmt.Sprintf("  CONSUMING %.1f/s  PRODUCED %.1f/s", p.ConsumeRate, p.ProduceRate)
	switch {
	case p.FallingBehind:
		return s + "  FALLING BEHIND"
	case *p.CatchUpSeconds == 0:
		return s + "  CAUGHT UP"
	}
	return s + "  CATCH-UP " + time.Duration(*p.CatchUpSeconds*float64(time.Second)).Round(time.Second).String()
}
