package report

import (
	"fmt"
	"io"

	"github.com/offsetctl/offsetctl/internal/admin"
)

// DeleteOffsets renders a delete-offsets plan or outcome.
func DeleteOffsets(w io.Writer, f Format, p admin.DeleteOffsetsPlan) error {
	if f == JSON {
		return WriteJSON(w, p)
	}
	return deleteOffsetsRows(w, f, []admin.DeleteOffsetsPlan{p})
}

// DeleteOffsetsGroups renders the plans or outcomes of several groups:
// JSON {"groups": [plan, ...]}, table and CSV one row per partition.
func DeleteOffsetsGroups(w io.Writer, f Format, ps []admin.DeleteOffsetsPlan) error {
	if f == JSON {
		if ps == nil {
			ps = []admin.DeleteOffsetsPlan{}
		}
		return WriteJSON(w, DeleteOffsetsJSON{ps})
	}
	return deleteOffsetsRows(w, f, ps)
}

func deleteOffsetsRows(w io.Writer, f Format, ps []admin.DeleteOffsetsPlan) error {
	var rows [][]string
	for _, p := range ps {
		rows = append(rows, deleteOffsetsPlanRows(f, p)...)
	}
	header := []string{"GROUP", "TOPIC", "PARTITION", "CURRENT", "STATUS"}
	if f == CSV {
		header = append(header, "ERROR")
	}
	return Rows(w, f, header, rows)
}

func deleteOffsetsPlanRows(f Format, p admin.DeleteOffsetsPlan) [][]string {
	var rows [][]string
	if len(p.Partitions) == 0 && p.Skipped != "" {
		// A group a selection left out unseen (a share group): one row
		// saying why.
		row := []string{p.Group, "-", "-", "-", "skipped: " + p.Skipped}
		if f == CSV {
			row = []string{p.Group, "", "", "", "skipped: " + p.Skipped, ""}
		}
		return [][]string{row}
	}
	for _, r := range p.Partitions {
		status := r.Status
		if f == Table && r.Error != "" {
			status = status + ": " + r.Error
		}
		row := []string{p.Group, r.Topic, I64(int64(r.Partition)), Opt(r.Current), status}
		if f == CSV {
			row[3] = OptCSV(r.Current)
			row = append(row, r.Error)
		}
		rows = append(rows, row)
	}
	return rows
}

// DeleteGroups renders delete-group rows.
func DeleteGroups(w io.Writer, f Format, rows []admin.DeleteGroupRow) error {
	if f == JSON {
		if rows == nil {
			rows = []admin.DeleteGroupRow{}
		}
		return WriteJSON(w, struct {
			Groups []admin.DeleteGroupRow `json:"groups"`
		}{rows})
	}
	var out [][]string
	for _, r := range rows {
		status := r.Status
		if r.Skipped != "" {
			status = "skipped: " + r.Skipped
		}
		if f == Table && r.Error != "" {
			status = status + ": " + r.Error
		}
		row := []string{r.Group, Dash(r.Type), Dash(r.State), fmt.Sprint(r.Members), fmt.Sprint(r.Commits), status}
		if f == CSV {
			row[1], row[2] = r.Type, r.State
			row = append(row, r.Error)
		}
		out = append(out, row)
	}
	header := []string{"GROUP", "TYPE", "STATE", "MEMBERS", "COMMITS", "STATUS"}
	if f == CSV {
		header = append(header, "ERROR")
	}
	return Rows(w, f, header, out)
}

// DeleteOffsetsJSON is the JSON shape of DeleteOffsetsGroups.
type DeleteOffsetsJSON struct {
	Groups []admin.DeleteOffsetsPlan `json:"groups"`
}
