package report

import (
	"fmt"
	"io"
	"strconv"

	"github.com/offsetctl/offsetctl/internal/lag"
)

// GroupStates renders `lag --state`: one row per group with its
// coordinator, assignor, state and member count.
func GroupStates(w io.Writer, f Format, gs []lag.GroupState) error {
	if f == JSON {
		return WriteJSON(w, struct {
			Groups []lag.GroupState `json:"groups"`
		}{gs})
	}
	rows := make([][]string, 0, len(gs))
	for _, g := range gs {
		coord := ""
		if g.Coordinator != nil {
			coord = strconv.Itoa(int(*g.Coordinator))
		}
		typ := g.Type
		if g.ProtocolType != "" && g.ProtocolType != "consumer" {
			typ = g.ProtocolType
		}
		if f == Table {
			coord, typ = Dash(coord), Dash(typ)
		}
		rows = append(rows, []string{g.Group, typ, coord, cell(f, g.Assignor), g.State, fmt.Sprint(g.Members), g.Error})
	}
	return Rows(w, f, []string{"GROUP", "TYPE", "COORDINATOR", "ASSIGNOR", "STATE", "MEMBERS", "ERROR"}, rows)
}

// GroupMembers renders `lag --members`: one row per member, idle members
// (no partitions) included.
func GroupMembers(w io.Writer, f Format, ms []lag.MemberRow) error {
	if f == JSON {
		return WriteJSON(w, struct {
			Members []lag.MemberRow `json:"members"`
		}{ms})
	}
	rows := make([][]string, 0, len(ms))
	for _, m := range ms {
		rows = append(rows, []string{m.Group, m.MemberID, cell(f, deref(m.InstanceID)), m.ClientID, m.Host, fmt.Sprint(m.Partitions)})
	}
	return Rows(w, f, []string{"GROUP", "MEMBER-ID", "INSTANCE-ID", "CLIENT-ID", "HOST", "PARTITIONS"}, rows)
}

// deref is an optional string's text, "" for none.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// cell is a possibly empty table cell: "-" in a table, empty in CSV.
func cell(f Format, s string) string {
	if f == Table {
		return Dash(s)
	}
	return s
}
