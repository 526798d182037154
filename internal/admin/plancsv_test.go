package admin

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParsePlanCSV(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		columns int
		rows    []PlanRow
		backups map[string]int64
		cluster string
		err     string
	}{
		{name: "apache three columns", in: "orders,0,15\norders,1,12\n", columns: 3,
			rows: []PlanRow{{Topic: "orders", Partition: 0, Offset: 15, Line: 1}, {Topic: "orders", Partition: 1, Offset: 12, Line: 2}}},
		{name: "apache four columns, CRLF, trailing blank lines", in: "g1,orders,0,15\r\ng2,orders,0,3\r\n\r\n\n", columns: 4,
			rows: []PlanRow{{Group: "g1", Topic: "orders", Partition: 0, Offset: 15, Line: 1}, {Group: "g2", Topic: "orders", Partition: 0, Offset: 3, Line: 2}}},
		{name: "Excel: byte order mark, CRLF, header, quoted fields", in: "\ufeffgroup,topic,partition,offset\r\n\"g1\",\"orders\",0,15\r\ng1,orders,1,\"3\"\r\n", columns: 4,
			rows: []PlanRow{{Group: "g1", Topic: "orders", Partition: 0, Offset: 15, Line: 2}, {Group: "g1", Topic: "orders", Partition: 1, Offset: 3, Line: 3}}},
		{name: "byte order mark before three columns", in: "\ufefforders,0,15\r\n", columns: 3, rows: []PlanRow{{Topic: "orders", Partition: 0, Offset: 15, Line: 1}}},
		{name: "a byte order mark is stripped only at the start", in: "orders,0,15\n\ufefforders,1,3\n", err: "line 2: topic"},
		{name: "a group's name keeps its byte order mark", in: "g,orders,0,15\n\ufeffg,orders,1,3\n", columns: 4,
			rows: []PlanRow{{Group: "g", Topic: "orders", Partition: 0, Offset: 15, Line: 1}, {Group: "\ufeffg", Topic: "orders", Partition: 1, Offset: 3, Line: 2}}},
		{name: "no final newline", in: "orders,0,15", columns: 3, rows: []PlanRow{{Topic: "orders", Partition: 0, Offset: 15, Line: 1}}},
		{name: "quoted group with a comma", in: "\"a,b\",orders,0,1\n", columns: 4, rows: []PlanRow{{Group: "a,b", Topic: "orders", Partition: 0, Offset: 1, Line: 1}}},
		{name: "header, comments and blank lines (offsetctl only)", in: "# plan\ntopic,partition,offset\n\norders,2,7\n", columns: 3,
			rows: []PlanRow{{Topic: "orders", Partition: 2, Offset: 7, Line: 4}}},
		{name: "backup markers", in: "offsetctl:backup,g1,0,1764496800000\ng1,orders,0,15\noffsetctl:no-commit:g1,orders,1,0\n", columns: 4,
			rows:    []PlanRow{{Group: "g1", Topic: "orders", Partition: 0, Offset: 15, Line: 2}, {Group: "g1", Topic: "orders", Partition: 1, NoCommit: true, Line: 3}},
			backups: map[string]int64{"g1": 1764496800000}},
		{name: "same row twice", in: "orders,0,15\norders,0,15\n", columns: 3, rows: []PlanRow{{Topic: "orders", Partition: 0, Offset: 15, Line: 1}}},
		{name: "conflicting duplicate", in: "orders,0,15\norders,0,16\n", err: "line 2: orders partition 0 listed again"},
		{name: "mixed widths", in: "orders,0,15\ng,orders,1,2\n", err: "line 2: 4 fields"},
		{name: "two fields", in: "orders,0\n", err: "line 1: want topic,partition,offset"},
		{name: "negative offset", in: "orders,0,-1\n", err: "line 1: offset -1 is negative"},
		{name: "bad partition", in: "orders,x,1\n", err: "line 1: partition \"x\""},
		{name: "bad topic", in: "or ders,0,1\n", err: "line 1: topic"},
		{name: "empty group", in: ",orders,0,1\n", err: "empty group"},
		{name: "header after data", in: "orders,0,1\ntopic,partition,offset\n", err: "header line after data"},
		{name: "bare quote", in: "or\"ders,0,1\n", err: "line 1"},
		{name: "bad backup marker", in: "offsetctl:backup,g,0,x\n", err: "bad offsetctl:backup"},
		{name: "empty", in: "", columns: 4},
		// The cluster marker: never a row, never a group (a cluster id
		// is a legal topic name, so it read as a row of group
		// "offsetctl:cluster" before the reader knew it).
		{name: "cluster marker", in: "offsetctl:cluster,MkU3OEVBNTcwNTJENDM2Qk,0,0\noffsetctl:backup,g1,0,1\ng1,orders,0,15\n", columns: 4,
			rows: []PlanRow{{Group: "g1", Topic: "orders", Partition: 0, Offset: 15, Line: 3}}, backups: map[string]int64{"g1": 1}, cluster: "MkU3OEVBNTcwNTJENDM2Qk"},
		{name: "cluster marker alone", in: "offsetctl:cluster,MkU3OEVBNTcwNTJENDM2Qk,0,0\n", columns: 4, cluster: "MkU3OEVBNTcwNTJENDM2Qk"},
		{name: "cluster marker anywhere, the same id again", in: "g1,orders,0,15\noffsetctl:cluster,a-b_c,0,0\n\"offsetctl:cluster\",\"a-b_c\",0,0\r\n", columns: 4,
			rows: []PlanRow{{Group: "g1", Topic: "orders", Partition: 0, Offset: 15, Line: 1}}, cluster: "a-b_c"},
		{name: "cluster id quoted, with a comma", in: "\"offsetctl:cluster\",\"odd, id\",0,0\n", columns: 4, cluster: "odd, id"},
		{name: "cluster id kept as written", in: "offsetctl:cluster, spaced ,0,0\n", columns: 4, cluster: " spaced "},
		{name: "cluster marker after a header", in: "group,topic,partition,offset\noffsetctl:cluster,c1,0,0\ng,t,0,1\n", columns: 4,
			rows: []PlanRow{{Group: "g", Topic: "t", Partition: 0, Offset: 1, Line: 3}}, cluster: "c1"},
		{name: "two clusters", in: "offsetctl:cluster,cluster-a,0,0\ng,t,0,1\noffsetctl:cluster,cluster-b,0,0\n", err: "line 3: offsetctl:cluster names cluster cluster-b, but line 1 named cluster cluster-a: a plan, backup or snapshot holds one cluster's offsets"},
		{name: "cluster marker without an id", in: "offsetctl:cluster,,0,0\n", err: "line 1: bad offsetctl:cluster record"},
		{name: "cluster marker, partition not a number", in: "offsetctl:cluster,c1,x,0\n", err: "line 1: bad offsetctl:cluster record"},
		{name: "cluster marker, offset not a number", in: "offsetctl:cluster,c1,0,\n", err: "line 1: bad offsetctl:cluster record"},
		{name: "cluster marker in three columns", in: "offsetctl:cluster,c1,0\n", err: "line 1: topic"},
		{name: "cluster marker among three-column rows", in: "t,0,1\noffsetctl:cluster,c1,0,0\n", err: "line 2: 4 fields"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pf, err := ParsePlanCSV([]byte(tc.in))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error = %v, want containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if pf.Columns != tc.columns {
				t.Errorf("columns = %d, want %d", pf.Columns, tc.columns)
			}
			if !reflect.DeepEqual(pf.Rows, tc.rows) {
				t.Errorf("rows = %+v\nwant %+v", pf.Rows, tc.rows)
			}
			if tc.backups == nil {
				tc.backups = map[string]int64{}
			}
			if !reflect.DeepEqual(pf.Backups, tc.backups) {
				t.Errorf("backups = %v, want %v", pf.Backups, tc.backups)
			}
			if pf.ClusterID != tc.cluster {
				t.Errorf("cluster = %q, want %q", pf.ClusterID, tc.cluster)
			}
			for _, g := range pf.GroupsIn() {
				if strings.HasPrefix(g, "offsetctl:") {
					t.Errorf("a marker read as group %q", g)
				}
			}
		})
	}
}

func TestWritePlanCSV(t *testing.T) {
	rows := []PlanRow{{Group: "g", Topic: "orders", Partition: 0, Offset: 15}, {Group: "a,b", Topic: "orders", Partition: 1, Offset: 2}}
	var b bytes.Buffer
	if err := WritePlanCSV(&b, rows[:1], false); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != "orders,0,15\n" {
		t.Errorf("three columns = %q", got)
	}
	b.Reset()
	if err := WritePlanCSV(&b, rows, true); err != nil {
		t.Fatal(err)
	}
	if got, want := b.String(), "g,orders,0,15\n\"a,b\",orders,1,2\n"; got != want {
		t.Errorf("four columns = %q, want %q", got, want)
	}
	if err := WritePlanCSV(&b, []PlanRow{{Topic: "t", NoCommit: true}}, false); err == nil {
		t.Error("no-commit row in three columns: want an error")
	}
}

// A backup written and parsed back gives the same rows and marks the group.
func TestBackupRoundTrip(t *testing.T) {
	at := time.UnixMilli(1764496800123)
	groups := []BackupGroup{
		{Group: "g1", Rows: []PlanRow{{Topic: "orders", Partition: 0, Offset: 15}, {Topic: "orders", Partition: 1, NoCommit: true}}},
		{Group: "odd \"name\", really", Rows: []PlanRow{{Topic: "t", Partition: 3, Offset: 0}}},
	}
	var b bytes.Buffer
	if err := WriteBackupCSV(&b, at, "", groups); err != nil {
		t.Fatal(err)
	}
	want := "offsetctl:backup,g1,0,1764496800123\ng1,orders,0,15\noffsetctl:no-commit:g1,orders,1,0\n" +
		"offsetctl:backup,\"odd \"\"name\"\", really\",0,1764496800123\n\"odd \"\"name\"\", really\",t,3,0\n" +
		"offsetctl:end,427097e94620339a542d28c7,0,5\n"
	if b.String() != want {
		t.Fatalf("backup =\n%s\nwant\n%s", b.String(), want)
	}
	pf, err := ParsePlanCSV(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if pf.Columns != 4 || len(pf.Backups) != 2 || pf.Backups["g1"] != at.UnixMilli() {
		t.Fatalf("parsed %+v", pf)
	}
	for _, g := range groups {
		got := pf.RowsFor(g.Group)
		if len(got) != len(g.Rows) {
			t.Fatalf("group %s: %d rows, want %d", g.Group, len(got), len(g.Rows))
		}
		for i, r := range got {
			w := g.Rows[i]
			if r.Topic != w.Topic || r.Partition != w.Partition || r.Offset != w.Offset || r.NoCommit != w.NoCommit {
				t.Errorf("group %s row %d = %+v, want %+v", g.Group, i, r, w)
			}
		}
	}
	if err := WriteBackupCSV(&b, at, "", []BackupGroup{{Group: "a\nb"}}); err == nil {
		t.Error("group with a newline: want an error")
	}
}

// A backup names its cluster on its first line, in the shape of the
// other markers (Apache's --from-file reads it as a record of group
// "offsetctl:cluster" and ignores it), and the id is read back exactly.
// An id no CSV line can hold is left out, as an unknown one is.
func TestBackupClusterMarker(t *testing.T) {
	at := time.UnixMilli(1764496800123)
	groups := []BackupGroup{{Group: "g1", Rows: []PlanRow{{Topic: "orders", Partition: 0, Offset: 15}}}}
	for _, tc := range []struct {
		id, first, back string
	}{
		{id: "MkU3OEVBNTcwNTJENDM2Qk", first: "offsetctl:cluster,MkU3OEVBNTcwNTJENDM2Qk,0,1", back: "MkU3OEVBNTcwNTJENDM2Qk"},
		{id: "a cluster, \"odd\"", first: `offsetctl:cluster,"a cluster, ""odd""",0,1`, back: "a cluster, \"odd\""},
		{id: "", first: "offsetctl:backup,g1,0,1764496800123"},
		{id: "two\nlines", first: "offsetctl:backup,g1,0,1764496800123"},
	} {
		var b bytes.Buffer
		if err := WriteBackupCSV(&b, at, tc.id, groups); err != nil {
			t.Fatal(err)
		}
		if first, _, _ := strings.Cut(b.String(), "\n"); first != tc.first {
			t.Errorf("cluster %q: first line %q, want %q", tc.id, first, tc.first)
		}
		pf, err := ParsePlanCSV(b.Bytes())
		if err != nil {
			t.Fatalf("cluster %q: %v", tc.id, err)
		}
		if pf.ClusterID != tc.back || len(pf.Rows) != 1 || fmt.Sprint(pf.GroupsIn()) != "[g1]" || pf.Backups["g1"] != at.UnixMilli() {
			t.Errorf("cluster %q: read back cluster %q, groups %v, %d rows", tc.id, pf.ClusterID, pf.GroupsIn(), len(pf.Rows))
		}
	}
}

// A backup closes with its end record, which counts the records before
// it: a backup cut anywhere, or edited, is refused rather than restoring
// some of its partitions; one written before the end record existed
// (cluster marker ending in 0) is read as before.
func TestBackupEndRecord(t *testing.T) {
	groups := []BackupGroup{
		{Group: "g1", Rows: []PlanRow{{Topic: "orders", Partition: 0, Offset: 15}, {Topic: "orders", Partition: 1, NoCommit: true}, {Topic: "orders", Partition: 2, Offset: 20}}},
		{Group: " lead", Share: true, Rows: []PlanRow{{Topic: "t", Partition: 3, Offset: 7}}},
	}
	var b bytes.Buffer
	if err := WriteBackupCSV(&b, time.UnixMilli(5), "c1", groups); err != nil {
		t.Fatal(err)
	}
	whole := b.String()
	lines := strings.SplitAfter(strings.TrimSuffix(whole, "\n"), "\n")
	// The digest is pinned: a change to how records are hashed would
	// refuse every backup written before it.
	if last := lines[len(lines)-1]; last != "offsetctl:end,01d264348b91e655e36e74d5,0,8" {
		t.Fatalf("last line %q, want the end record: the digest and the 8 records before it\n%s", last, whole)
	}
	if pf, err := ParsePlanCSV(b.Bytes()); err != nil || len(pf.Rows) != 4 || pf.ClusterID != "c1" {
		t.Fatalf("whole backup: %d rows, cluster %q, %v", len(pf.Rows), pf.ClusterID, err)
	}
	// Cut after every line but the last, and in the middle of a line.
	for k := 1; k < len(lines); k++ {
		cut := strings.Join(lines[:k], "")
		if _, err := ParsePlanCSV([]byte(cut)); err == nil || !strings.Contains(err.Error(), "cut short") {
			t.Errorf("cut after line %d: err = %v, want it refused as cut short", k, err)
		}
	}
	if _, err := ParsePlanCSV([]byte(whole[:len(whole)-3])); err == nil {
		t.Error("end record cut in its count: want an error")
	}
	// Cut inside a line whose start still parses as something else: the
	// error says where the file ends. (The cluster line cut after its
	// id reads as three fields; a row cut in its topic reads as a bad
	// record.)
	for _, cut := range []string{lines[0][:len("offsetctl:cluster,c1")], strings.Join(lines[:2], "") + "g1,ord", strings.Join(lines[:3], "") + "g1,orders,"} {
		if _, err := ParsePlanCSV([]byte(cut)); err == nil || !strings.Contains(err.Error(), "cut short") {
			t.Errorf("cut mid-line %q: err = %v, want it called cut short", cut, err)
		}
	}
	// Only a backup's cut says "cut short": a hand-written plan whose
	// last line is bad and has no line break, or a complete backup with
	// a stray half line after it, is bad input of its own kind.
	for _, in := range []string{"orders,0,15\norders,x", whole + "g1,or"} {
		if _, err := ParsePlanCSV([]byte(in)); err == nil || strings.Contains(err.Error(), "cut short") {
			t.Errorf("%q: err = %v, want an error that does not call it cut short", in, err)
		}
	}
	// A bad line in the middle of a backup is not a cut, even while its
	// end record is still to come.
	if _, err := ParsePlanCSV([]byte(strings.Join(lines[:2], "") + "g1,orders,x,1\n" + strings.Join(lines[2:], ""))); err == nil || strings.Contains(err.Error(), "ends inside") || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("a bad middle line: err = %v", err)
	}
	// A backup cut inside a row (not a marker) with no line break after.
	if _, err := ParsePlanCSV([]byte(strings.Join(lines[:3], "") + "g1,orders,")); err == nil || !strings.Contains(err.Error(), "the file ends inside this line") {
		t.Errorf("cut inside a row: err = %v", err)
	}
	// A backup of no group on a cluster that says no id: the end
	// record alone, counting 0 records.
	b.Reset()
	if err := WriteBackupCSV(&b, time.UnixMilli(5), "", nil); err != nil {
		t.Fatal(err)
	}
	if pf, err := ParsePlanCSV(b.Bytes()); err != nil || len(pf.Rows) != 0 || !strings.HasSuffix(b.String(), ",0,0\n") {
		t.Errorf("empty backup %q: %v", b.String(), err)
	}
	// Two backups saved by a spreadsheet program (a byte order mark
	// first in each) and joined.
	if pf, err := ParsePlanCSV([]byte("\ufeff" + whole + "\ufeff" + whole)); err != nil || len(pf.Rows) != 4 {
		t.Errorf("two BOM-first backups joined: %d rows, %v", len(pf.Rows), err)
	}
	const edited = "it was edited (a line changed, moved, added or removed), so it is not the backup as written"
	for _, tc := range []struct{ name, data, want string }{
		{"a row removed", strings.Replace(whole, "g1,orders,0,15\n", "", 1), "counts 8 records before it, but the file has 7"},
		{"a row added", strings.Replace(whole, "g1,orders,0,15\n", "g1,orders,0,15\ng1,orders,5,3\n", 1), "but the file has 9"},
		{"an offset changed", strings.Replace(whole, "g1,orders,0,15\n", "g1,orders,0,0\n", 1), edited},
		{"two partitions swapped", strings.Replace(strings.Replace(whole, "g1,orders,0,15\n", "g1,orders,2,15\n", 1), "g1,orders,2,20\n", "g1,orders,0,20\n", 1), edited},
		{"a row replaced by a copy of another", strings.Replace(whole, "g1,orders,2,20\n", "g1,orders,0,15\n", 1), edited},
		{"a group's blanks trimmed", strings.Replace(whole, "\" lead\",t,3,7", "lead,t,3,7", 1), edited},
		{"a record after the end", whole + "g1,orders,9,1\n", "a record after the offsetctl:end record on line 9"},
		{"bad end record", strings.Replace(whole, "01d264348b91e655e36e74d5", "records", 1), "bad offsetctl:end record"},
		{"negative count", strings.Replace(whole, ",0,8\n", ",0,-1\n", 1), "bad offsetctl:end record"},
		{"a cluster line neither 0 nor 1", strings.Replace(whole, "c1,0,1", "c1,0,2", 1), "bad offsetctl:cluster record"},
		{"a second backup after a cut one", strings.Join(lines[:4], "") + whole, "the one that started on line 1 has no offsetctl:end record"},
	} {
		if _, err := ParsePlanCSV([]byte(tc.data)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
	// Line endings, a byte order mark and quoting are not edits: the
	// digest is of the fields as read. Two whole backups of one cluster
	// joined are read one after the other.
	crlf := "\ufeff" + strings.ReplaceAll(strings.Replace(whole, "g1,orders,0,15", "\"g1\",\"orders\",0,15", 1), "\n", "\r\n")
	if pf, err := ParsePlanCSV([]byte(crlf)); err != nil || len(pf.Rows) != 4 {
		t.Errorf("CRLF, BOM, quotes: %d rows, %v", len(pf.Rows), err)
	}
	var b2 bytes.Buffer
	if err := WriteBackupCSV(&b2, time.UnixMilli(9), "c1", []BackupGroup{{Group: "g3", Rows: []PlanRow{{Topic: "orders", Partition: 0, Offset: 1}}}}); err != nil {
		t.Fatal(err)
	}
	if pf, err := ParsePlanCSV([]byte(whole + "\n" + b2.String())); err != nil || len(pf.Rows) != 5 {
		t.Errorf("two backups joined: %d rows, %v", len(pf.Rows), err)
	}
	// Edited on purpose: the error says how to restore it, and that works.
	mine := strings.Replace(whole, "g1,orders,0,15\n", "g1,orders,0,9\n", 1)
	_, err := ParsePlanCSV([]byte(mine))
	if err == nil || !strings.Contains(err.Error(), "delete its offsetctl:end line and end its first line in ,0,0 instead of ,0,1") {
		t.Fatalf("edited: err = %v, want the way to restore it as edited", err)
	}
	mine = strings.Replace(mine[:strings.LastIndex(mine, "offsetctl:end,")], "c1,0,1", "c1,0,0", 1)
	if pf, err := ParsePlanCSV([]byte(mine)); err != nil || len(pf.Rows) != 4 || pf.Rows[0].Offset != 9 || pf.ClusterID != "c1" {
		t.Errorf("edited on purpose, as the error says: %+v, %v", pf.Rows, err)
	}
	// Older backups: no end record expected, a cut one reads as before.
	old := "offsetctl:cluster,c1,0,0\noffsetctl:backup,g1,0,5\ng1,orders,0,15\n"
	if pf, err := ParsePlanCSV([]byte(old)); err != nil || len(pf.Rows) != 1 {
		t.Errorf("older backup: %d rows, %v", len(pf.Rows), err)
	}
	// Without a cluster id the end record counts from the file's start.
	b.Reset()
	if err := WriteBackupCSV(&b, time.UnixMilli(5), "", groups[:1]); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(b.String(), ",0,4\n") || !strings.Contains(b.String(), "\noffsetctl:end,") {
		t.Fatalf("backup without a cluster:\n%s", b.String())
	}
	if _, err := ParsePlanCSV(b.Bytes()); err != nil {
		t.Errorf("backup without a cluster: %v", err)
	}
	if _, err := ParsePlanCSV([]byte(strings.Replace(b.String(), "g1,orders,0,15\n", "g1,orders,0,16\n", 1))); err == nil {
		t.Error("backup without a cluster, an offset changed: want an error")
	}
}

func FuzzParsePlanCSV(f *testing.F) {
	for _, s := range []string{
		"orders,0,15\n", "g,orders,0,15\r\n", "offsetctl:backup,g,0,1\ng,t,0,1\noffsetctl:no-commit:g,t,1,0\n",
		"# c\n\ntopic,partition,offset\nt,0,1\n", "\"a,b\",t,0,1\n", "t,0,1\nt,0,2\n", "\"\n",
		"\ufefft,0,1\r\n", "\ufeffgroup,topic,partition,offset\r\ng,t,0,1\r\n",
		"offsetctl:cluster,MkU3OEVBNTcwNTJENDM2Qk,0,0\noffsetctl:backup,g,0,1\ng,t,0,1\n",
		"offsetctl:cluster,a,0,0\noffsetctl:cluster,b,0,0\n", "\"offsetctl:cluster\",\"x, y\",0,0\n",
		"offsetctl:cluster,c,0,1\noffsetctl:backup,g,0,1\ng,t,0,1\noffsetctl:end,a4a7a3f3c1e4f6b8d0e2f4a6,0,3\n",
		"offsetctl:cluster,c,0,1\noffsetctl:backup,g,0,1\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		pf, err := ParsePlanCSV(data)
		if err != nil {
			return
		}
		if pf.Columns != 3 && pf.Columns != 4 {
			t.Fatalf("columns %d", pf.Columns)
		}
		for _, r := range pf.Rows {
			if r.Offset < 0 || r.Partition < 0 || r.Topic == "" {
				t.Fatalf("bad row %+v", r)
			}
			if pf.Columns == 4 && r.Group == "" {
				t.Fatalf("four-column row without group %+v", r)
			}
			// A marker is never a row: its group would be restored.
			if r.Group == ClusterMarker || r.Group == BackupMarker || r.Group == ShareMarker {
				t.Fatalf("marker read as a row %+v", r)
			}
		}
		if pf.ClusterID != "" && pf.Columns != 4 {
			t.Fatalf("cluster %q in a %d-column file", pf.ClusterID, pf.Columns)
		}
		// What we parsed, we can write and parse back to the same rows
		// (groups with line breaks cannot be written).
		for _, r := range pf.Rows {
			if strings.ContainsAny(r.Group, "\r\n") {
				return
			}
		}
		// The cluster goes along, as a backup writes it (an id with a
		// line break cannot be written, and is left out).
		var b bytes.Buffer
		cluster := pf.ClusterID
		if strings.ContainsAny(cluster, "\r\n") {
			cluster = ""
		}
		// An older backup's marker (",0": no end record to expect),
		// since the rows follow it here.
		if cluster != "" {
			fmt.Fprintf(&b, "%s,%s,0,0\n", ClusterMarker, csvField(cluster))
		}
		if err := WritePlanCSV(&b, pf.Rows, pf.Columns == 4); err != nil {
			t.Fatal(err)
		}
		back, err := ParsePlanCSV(b.Bytes())
		if err != nil {
			t.Fatalf("re-parse of %q: %v", b.String(), err)
		}
		if back.ClusterID != cluster {
			t.Fatalf("re-parse: cluster %q, want %q", back.ClusterID, cluster)
		}
		if len(back.Rows) != len(pf.Rows) {
			t.Fatalf("re-parse: %d rows, want %d", len(back.Rows), len(pf.Rows))
		}
		for i := range back.Rows {
			a, b := back.Rows[i], pf.Rows[i]
			if a.Group != b.Group || a.Topic != b.Topic || a.Partition != b.Partition || a.Offset != b.Offset || a.NoCommit != b.NoCommit {
				t.Fatalf("re-parse row %d = %+v, want %+v", i, a, b)
			}
		}
	})
}

// csvField writes fields as Apache's --export (Jackson) does, so exports
// are the same lines: bare unless empty, longer than 24 characters, or
// holding a character below '-'.
func TestCSVFieldLikeApache(t *testing.T) {
	for in, want := range map[string]string{
		"orders":                     "orders",
		"lead-exp.t_1":               "lead-exp.t_1",
		"t-TestProbeExport-853a570c": `"t-TestProbeExport-853a570c"`, // 26 characters: Apache quoted it
		"exactly-twenty-four-char":   "exactly-twenty-four-char",
		"":                           `""`,
		"a b":                        `"a b"`,
		`say "hi"`:                   `"say ""hi"""`,
		"a,b":                        `"a,b"`,
		"ünïcode":                    "ünïcode",
	} {
		if got := csvField(in); got != want {
			t.Errorf("csvField(%q) = %s, want %s", in, got, want)
		}
	}
}

// A backup with its end record reads the topic names the cluster gave (a
// kfake topic outside [a-zA-Z0-9._-]); the same rows in a plan without
// one (hand-written) are held to Kafka's rules, as is a control
// character or an empty name in either.
func TestBackupTopicNamesAsGiven(t *testing.T) {
	var b bytes.Buffer
	groups := []BackupGroup{{Group: "g", Rows: []PlanRow{{Topic: "uni-ñ-日本", Partition: 0, Offset: 3}}}}
	if err := WriteBackupCSV(&b, time.UnixMilli(5), "c1", groups); err != nil {
		t.Fatal(err)
	}
	pf, err := ParsePlanCSV(b.Bytes())
	if err != nil || len(pf.Rows) != 1 || pf.Rows[0].Topic != "uni-ñ-日本" || pf.Rows[0].Offset != 3 {
		t.Fatalf("backup: %+v, %v", pf.Rows, err)
	}
	for _, plan := range []string{"g,uni-ñ-日本,0,3\n", "offsetctl:cluster,c1,0,0\ng,uni-ñ-日本,0,3\n"} {
		if _, err := ParsePlanCSV([]byte(plan)); err == nil || !strings.Contains(err.Error(), "illegal character") {
			t.Errorf("plan %q: err = %v, want Kafka's rules", plan, err)
		}
	}
	pf = PlanFile{sec: backupSection{wantEnd: true}}
	for _, bad := range []string{"", "a\x1bb", strings.Repeat("é", MaxTopicBytes)} {
		if err := pf.checkTopic(bad); err == nil {
			t.Errorf("checkTopic(%q) in a backup: want an error", bad)
		}
	}
	if err := pf.checkTopic("orders"); err != nil {
		t.Errorf("checkTopic(orders): %v", err)
	}
}
