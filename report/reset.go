package report

import (
	"io"

	"github.com/offsetctl/offsetctl/internal/admin"
	"github.com/offsetctl/offsetctl/internal/safetext"
)

// Reset renders a reset plan (or its outcome after --execute). JSON is one
// object when oneGroup (exactly one GROUP was named on the command line),
// else always an array (--all-groups, several groups, groups taken from a
// plan file), even of zero or one group, so its shape never depends on the
// cluster. The table and CSV print one row per group-partition.
func Reset(w io.Writer, f Format, p admin.Plan, oneGroup bool) error {
	if f == JSON {
		if oneGroup && len(p.Groups) == 1 {
			return WriteJSON(w, p.Groups[0])
		}
		gs := p.Groups
		if gs == nil {
			gs = []admin.GroupPlan{}
		}
		return WriteJSON(w, gs)
	}
	header := []string{"GROUP", "TOPIC", "PARTITION", "LOG-START", "CURRENT", "TARGET", "DELTA", "NOTE"}
	if f == CSV {
		header = []string{"GROUP", "TOPIC", "PARTITION", "LOG-START", "LOG-END", "CURRENT", "TARGET", "DELTA", "NOTE", "ERROR"}
	}
	var rows [][]string
	for _, g := range p.Groups {
		if len(g.Partitions) == 0 {
			note := g.Note
			if g.Error != "" {
				note = "ERROR: " + g.Error
			}
			if note == "" {
				note = "nothing in scope"
			}
			if f == CSV {
				rows = append(rows, []string{g.Group, "", "", "", "", "", "", "", g.Note, g.Error})
			} else {
				rows = append(rows, []string{g.Group, "-", "-", "-", "-", "-", "-", note})
			}
			continue
		}
		notApplied := g.NotApplied()
		for _, pp := range g.Partitions {
			if notApplied != "" && pp.Error == "" && pp.Action != admin.ActSkip {
				pp.Note = joinNote(pp.Note, notApplied)
			}
			target := Opt(pp.Target)
			if pp.Action == admin.ActDelete {
				target = "none"
			}
			delta := Opt(pp.Delta)
			if pp.Delta != nil && *pp.Delta > 0 {
				delta = "+" + delta
			}
			if f == CSV { // missing numbers empty, no '+' on DELTA
				// TARGET is JSON's target: empty (null) also when the
				// commit is deleted, which NOTE says.
				rows = append(rows, []string{g.Group, pp.Topic, I64(int64(pp.Partition)), KnownCSV(pp.LogStart), KnownCSV(pp.LogEnd), OptCSV(pp.Current), OptCSV(pp.Target), OptCSV(pp.Delta), pp.Note, pp.Error})
				continue
			}
			note := pp.Note
			if pp.Error != "" {
				note = "ERROR: " + pp.Error
			}
			rows = append(rows, []string{g.Group, pp.Topic, I64(int64(pp.Partition)), Known(pp.LogStart), Opt(pp.Current), target, delta, Dash(note)})
		}
	}
	if f == CSV {
		return WriteCSV(w, header, rows)
	}
	return WriteTable(w, header, rows)
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// ResetExport writes the plan's targets in Apache's --export CSV: three
// columns for one group, four for several (or when the plan restores
// "no commit" rows, which need the group column).
func ResetExport(w io.Writer, p admin.Plan) error {
	rows := p.ExportRows()
	withGroup := len(p.Groups) != 1
	for _, r := range rows {
		if r.NoCommit {
			withGroup = true
		}
	}
	if escapesCSV(w) {
		// On a terminal, as every CSV of this package (TerminalCSV):
		// a name's control characters and line breaks are escaped.
		for i := range rows {
			rows[i].Group, rows[i].Topic = safetext.Text(rows[i].Group), safetext.Text(rows[i].Topic)
		}
	}
	return admin.WritePlanCSV(w, rows, withGroup)
}
