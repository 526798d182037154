package report

import (
	"fmt"
	"io"

	"github.com/offsetctl/offsetctl/internal/lag"
)

// LagByTopic renders `lag --by topic`: one row per group and topic.
func LagByTopic(w io.Writer, f Format, r lag.TopicReport) error {
	if f == JSON {
		return WriteJSON(w, r)
	}
	opt, ms := Opt, timeLagText
	if f == CSV {
		opt, ms = OptCSV, optMs
	}
	header := []string{"GROUP", "STATE", "TOPIC", "PARTITIONS", "LAG", "MAX-LAG"}
	if r.TimeLag {
		header = append(header, map[bool]string{true: "MAX-TIME-LAG-MS", false: "MAX-TIME-LAG"}[f == CSV])
	}
	header = append(header, "ERROR")
	var rows [][]string
	for _, g := range r.Groups {
		if g.Error != "" && len(g.Topics) == 0 {
			row := []string{g.Group, g.State, "", "", "", ""}
			if r.TimeLag {
				row = append(row, "")
			}
			rows = append(rows, append(row, g.Error))
			continue
		}
		for _, t := range g.Topics {
			row := []string{g.Group, g.State, t.Topic, fmt.Sprint(t.Partitions), I64(t.Lag), opt(t.MaxLag)}
			if r.TimeLag {
				row = append(row, ms(t.MaxTimeLagMs))
			}
			e := ""
			if t.Errors > 0 {
				e = fmt.Sprintf("%d partition(s) could not be read", t.Errors)
			}
			rows = append(rows, append(row, e))
		}
	}
	return Rows(w, f, header, rows)
}
