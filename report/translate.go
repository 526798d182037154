package report

import (
	"io"
	"strconv"

	"github.com/offsetctl/offsetctl/internal/mirror"
)

// Translate renders a translate result: JSON as the result, or one row per
// group partition (a group that could not be translated: one row with its
// error).
func Translate(w io.Writer, f Format, res mirror.Result) error {
	if res.Groups == nil {
		res.Groups = []mirror.Group{}
	}
	if f == JSON {
		return WriteJSON(w, res)
	}
	opt := Opt
	if f == CSV {
		opt = OptCSV
	}
	header := []string{"GROUP", "TOPIC", "PARTITION", "SOURCE-OFFSET", "TRANSLATED", "CURRENT", "LOG-START", "LOG-END", "CHANGE", "CHECKPOINT-AGE", "STATUS", "NOTE"}
	if res.OffsetSyncs {
		header = append(header[:len(header)-1:len(header)-1], "SYNC", "READ-AGAIN", "NOTE")
	}
	var rows [][]string
	for _, g := range res.Groups {
		if g.Error != "" {
			row := []string{g.Group, "", "", "", "", "", "", "", "", "", mirror.StatusError, g.Error}
			if res.OffsetSyncs {
				row = append(row[:11:11], "", "", g.Error)
			}
			rows = append(rows, row)
			continue
		}
		for _, r := range g.Partitions {
			note := r.Note
			if r.Error != "" {
				note = r.Error
			}
			age := r.CheckpointAge
			if r.Stale {
				age += " (stale)"
			}
			row := []string{g.Group, r.Topic, strconv.Itoa(int(r.Partition)), opt(r.SourceOffset), opt(r.TranslatedOffset),
				opt(r.CurrentOffset), opt(r.LogStart), opt(r.LogEnd), signed(r.Change, opt, f == Table), age, r.Status}
			if res.OffsetSyncs {
				sync := ""
				if r.SyncUpstream != nil {
					sync = I64(*r.SyncUpstream) + "->" + I64(*r.SyncDownstream)
				}
				row = append(row, sync, opt(r.ReadAgain))
			}
			rows = append(rows, append(row, note))
		}
	}
	if f == Table {
		for _, r := range rows {
			for i := 1; i < len(r); i++ {
				r[i] = Dash(r[i])
			}
		}
	}
	return Rows(w, f, header, rows)
}

// signed writes a change with its sign (+3, -2, 0) in the table; CSV
// writes the bare number, as every CSV renderer does (report/reset.go).
func signed(v *int64, opt func(*int64) string, plus bool) string {
	if plus && v != nil && *v > 0 {
		return "+" + I64(*v)
	}
	return opt(v)
}

// CrossDiff renders a comparison of the same groups on two clusters.
func CrossDiff(w io.Writer, f Format, d mirror.DiffResult) error {
	if d.Rows == nil {
		d.Rows = []mirror.DiffRow{}
	}
	if f == JSON {
		return WriteJSON(w, d)
	}
	opt := Opt
	if f == CSV {
		opt = OptCSV
	}
	header := []string{"GROUP", "TOPIC", "PARTITION", "A:" + d.A, "B:" + d.B, "STATUS", "NOTE"}
	if d.Translate != "" {
		header = []string{"GROUP", "TOPIC", "PARTITION", "A:" + d.A, "TRANSLATED", "B:" + d.B, "STATUS", "NOTE"}
	}
	var rows [][]string
	for _, r := range d.Rows {
		row := []string{r.Group, r.Topic, strconv.Itoa(int(r.Partition)), opt(r.A)}
		if d.Translate != "" {
			row = append(row, opt(r.Translated))
		}
		row = append(row, opt(r.B), r.Status, r.Note)
		if r.Partition < 0 {
			row[1], row[2] = "", ""
		}
		rows = append(rows, row)
	}
	if f == Table {
		for _, r := range rows {
			for i := 1; i < len(r); i++ {
				r[i] = Dash(r[i])
			}
		}
	}
	return Rows(w, f, header, rows)
}
