package report

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/offsetctl/offsetctl/internal/admin"
	"github.com/offsetctl/offsetctl/internal/lag"
)

// forged is a group name that, written raw, draws a row of its own.
const forged = "zz\npayments,classic,Stable,3,payments,0,\n\x1b[2K\r"

// TestTerminalCSVEscapesCells: every CSV this package writes, marked for a
// terminal (TerminalCSV), has each cell escaped as safetext.Text: a line
// break inside a name is \n in its cell, so each record is one line. The
// same writers to a file or a pipe keep the exact bytes (RFC 4180).
func TestTerminalCSVEscapesCells(t *testing.T) {
	lr := lagWhole()
	lr.Groups[0].Group = forged
	renderers := map[string]struct {
		fn      func(w io.Writer) error
		records int
	}{
		"WriteCSV": {func(w io.Writer) error { return WriteCSV(w, []string{"GROUP", "N"}, [][]string{{forged, "1"}}) }, 2},
		"lag":      {func(w io.Writer) error { return Lag(w, CSV, lr) }, 1 + len(lr.Groups[0].Partitions) + countRows(lr, 1)},
		"lag stream": {func(w io.Writer) error {
			s := NewLagStream(w, CSV, lr, LagStreamOptions{})
			for _, g := range lr.Groups {
				if err := s.Group(g); err != nil {
					return err
				}
			}
			return s.Close()
		}, 1 + len(lr.Groups[0].Partitions) + countRows(lr, 1)},
		"lag watch": {func(w io.Writer) error { return LagWatchCSV(w, lr, time.Unix(0, 0), true, nil) }, 1 + len(lr.Groups[0].Partitions) + countRows(lr, 1)},
		"groups":    {func(w io.Writer) error { return Groups(w, CSV, lag.Summarize(lr, nil), false) }, 1 + len(lr.Groups)},
		"members": {func(w io.Writer) error {
			return GroupMembers(w, CSV, []lag.MemberRow{{Group: forged, MemberID: "m", ClientID: forged}})
		}, 2},
		"delete": {func(w io.Writer) error { return DeleteGroups(w, CSV, []admin.DeleteGroupRow{{Group: forged}}) }, 2},
		"reset --export": {func(w io.Writer) error {
			five := int64(5)
			pp := []admin.PartitionPlan{{Topic: "t", Partition: 0, Action: admin.ActCommit, Target: &five}}
			return ResetExport(w, admin.Plan{Groups: []admin.GroupPlan{{Group: forged, Partitions: pp}, {Group: "other", Partitions: pp}}})
		}, 2},
	}
	for name, r := range renderers {
		var tty, pipe bytes.Buffer
		if err := r.fn(TerminalCSV(&tty)); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := r.fn(&pipe); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got := tty.String()
		if n := strings.Count(got, "\n"); n != r.records || strings.ContainsAny(got, "\r\x1b") {
			t.Errorf("%s on a terminal: %d lines, want %d (one per record), or a control byte:\n%s", name, n, r.records, got)
		}
		if !strings.Contains(got, `"zz\npayments,classic,Stable,3,payments,0,\n\x1b[2K\r"`) {
			t.Errorf("%s on a terminal: the name is not escaped in its cell:\n%s", name, got)
		}
		if !strings.Contains(pipe.String(), `"`+forged+`"`) {
			t.Errorf("%s to a pipe: the name's exact bytes are lost:\n%q", name, pipe.String())
		}
	}
	// The whole output, exactly.
	var b bytes.Buffer
	if err := WriteCSV(TerminalCSV(&b), []string{"GROUP", "N"}, [][]string{{"a\nb", "1"}, {"plain", "2"}}); err != nil {
		t.Fatal(err)
	}
	if want := "GROUP,N\n" + `a\nb,1` + "\nplain,2\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

// countRows counts the lag CSV rows of the groups after the first skip.
func countRows(r lag.LagReport, skip int) int {
	n := 0
	for _, g := range r.Groups[skip:] {
		n += max(len(g.Partitions), 1)
	}
	return n
}
