package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/offsetctl/offsetctl/internal/lag"
)

func TestParseFormat(t *testing.T) {
	for in, want := range map[string]Format{"table": Table, "JSON": JSON, " csv ": CSV} {
		if got, err := ParseFormat(in); err != nil || got != want {
			t.Errorf("ParseFormat(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseFormat("yaml"); err == nil {
		t.Error("yaml accepted")
	}
}

// sample's t/1 has no commit and an unknown lag (issue 11: like Apache's
// "-"; it was end - start = 10 and counted in the total before).
func sample() lag.LagReport {
	c := int64(4)
	return lag.LagReport{Isolation: "uncommitted", Groups: []lag.GroupLag{{
		Group: "g", Type: "classic", State: "Empty", TotalLag: 6,
		Partitions: []lag.PartitionLag{
			{Topic: "t", Partition: 0, LogStart: 0, Committed: &c, LogEnd: 10, Lag: new(int64(6))},
			{Topic: "t", Partition: 1, LogStart: 2, LogEnd: 12, Note: "no committed offset"},
			{Topic: "gone", Partition: 0, LogStart: -1, LogEnd: -1, Error: "topic gone does not exist"},
		},
	}}}
}

func TestLagTable(t *testing.T) {
	var b bytes.Buffer
	if err := Lag(&b, Table, sample()); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	if len(lines) != 5 {
		t.Fatalf("want group line, header, 3 rows; got:\n%s", b.String())
	}
	if !strings.HasPrefix(lines[0], "GROUP g  TYPE classic  STATE Empty  MEMBERS 0  TOTAL-LAG 6") {
		t.Errorf("group line %q", lines[0])
	}
	for _, l := range lines {
		if strings.HasSuffix(l, " ") {
			t.Errorf("trailing blank in %q", l)
		}
	}
	if f := strings.Fields(lines[3]); f[0] != "t" || f[3] != "-" || f[5] != "-" {
		t.Errorf("no-commit row %q: COMMITTED and LAG must be -", lines[3])
	}
	if !strings.Contains(lines[4], "ERROR: topic gone does not exist") || strings.Fields(lines[4])[5] != "-" {
		t.Errorf("error row %q", lines[4])
	}
}

func TestLagJSONAndCSV(t *testing.T) {
	var b bytes.Buffer
	if err := Lag(&b, JSON, sample()); err != nil {
		t.Fatal(err)
	}
	var v struct {
		Groups []struct {
			Group      string `json:"group"`
			TotalLag   int64  `json:"total_lag"`
			Partitions []struct {
				Committed *int64          `json:"committed"`
				Lag       json.RawMessage `json:"lag"`
				Error     string          `json:"error"`
			} `json:"partitions"`
		} `json:"groups"`
	}
	if err := json.Unmarshal(b.Bytes(), &v); err != nil {
		t.Fatal(err)
	}
	ps := v.Groups[0].Partitions
	if v.Groups[0].TotalLag != 6 || *ps[0].Committed != 4 || ps[1].Committed != nil || ps[2].Error == "" {
		t.Errorf("json = %s", b.String())
	}
	if string(ps[0].Lag) != "6" || string(ps[1].Lag) != "null" || string(ps[2].Lag) != "null" {
		t.Errorf("json lags %s %s %s, want 6 null null", ps[0].Lag, ps[1].Lag, ps[2].Lag)
	}
	b.Reset()
	if err := Lag(&b, CSV, sample()); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	if len(lines) != 4 || lines[0] != "GROUP,STATE,TOPIC,PARTITION,LOG-START,COMMITTED,LOG-END,LAG,MEMBER,CLIENT-ID,HOST,NOTE,ERROR" {
		t.Errorf("csv:\n%s", b.String())
	}
	if lines[1] != "g,Empty,t,0,0,4,10,6,,,,," || lines[2] != "g,Empty,t,1,2,,12,,,,,no committed offset," {
		t.Errorf("csv rows %q %q", lines[1], lines[2])
	}
}

// BenchmarkLagTable renders 100 groups × 1,000 partitions as a table; in
// "one-wide-name", one group's name is not ASCII (it used to send the
// whole table back to tablewriter: 3.7 s).
func BenchmarkLagTable(b *testing.B) {
	for _, wide := range []bool{false, true} {
		name := "ascii"
		if wide {
			name = "one-wide-name"
		}
		b.Run(name, func(b *testing.B) {
			rep := lag.LagReport{}
			for g := 0; g < 100; g++ {
				gl := lag.GroupLag{Group: "group-" + strings.Repeat("x", g%7), State: "Empty", Type: "classic"}
				if wide && g == 50 {
					gl.Group = "订单-billing"
				}
				for p := 0; p < 1000; p++ {
					c := int64(p)
					topic := "orders.events.v1"
					if wide && g == 50 && p == 500 {
						topic = "订单"
					}
					gl.Partitions = append(gl.Partitions, lag.PartitionLag{Topic: topic, Partition: int32(p), LogStart: 0, Committed: &c, LogEnd: 5000, Lag: new(5000 - c)})
				}
				rep.Groups = append(rep.Groups, gl)
			}
			for b.Loop() {
				var buf bytes.Buffer
				if err := Lag(&buf, Table, rep); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestLagStreamMatchesEncodingJSON: the streamed JSON is byte for byte
// what encoding/json writes for the whole report (indented, and on one
// line for --watch), whatever fields the report has.
func TestLagStreamMatchesEncodingJSON(t *testing.T) {
	full := sample()
	second := full.Groups[0]
	second.Group, second.Note = "h<&>", "no active members"
	full.Groups = append(full.Groups, second, lag.GroupLag{Group: "nope", State: "Dead", Error: "group does not exist", Partitions: []lag.PartitionLag{}, Topics: []string{}})
	reports := map[string]lag.LagReport{
		"sample":   sample(),
		"three":    full,
		"empty":    {Isolation: "committed", Groups: []lag.GroupLag{}},
		"time":     {Time: "2026-12-01T10:00:00Z", Isolation: "uncommitted", AssumeReset: "earliest", Groups: full.Groups},
		"timeOnly": {Time: "2026-12-01T10:00:00.5Z", Isolation: "uncommitted", Groups: []lag.GroupLag{}},
	}
	for name, r := range reports {
		var want, got bytes.Buffer
		if err := WriteJSON(&want, r); err != nil {
			t.Fatal(err)
		}
		if err := Lag(&got, JSON, r); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("%s: streamed JSON\n%s\nencoding/json\n%s", name, got.String(), want.String())
		}
		want.Reset()
		got.Reset()
		if err := WriteJSONLine(&want, r); err != nil {
			t.Fatal(err)
		}
		s := NewLagStream(&got, JSON, r, LagStreamOptions{OneLine: true})
		for _, g := range r.Groups {
			if err := s.Group(g); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("%s one line: streamed\n%s\nencoding/json\n%s", name, got.String(), want.String())
		}
	}
}

// TestLagStreamCSVTime: a --watch round's CSV has TIME in front of the
// header and of every row, and no header after the first round.
func TestLagStreamCSVTime(t *testing.T) {
	var b bytes.Buffer
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	if err := LagWatchCSV(&b, sample(), at, true, nil); err != nil {
		t.Fatal(err)
	}
	if err := LagWatchCSV(&b, sample(), at.Add(time.Second), false, nil); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	if len(lines) != 7 || !strings.HasPrefix(lines[0], "TIME,GROUP,STATE,TOPIC") || lines[1] != "2026-12-01T10:00:00Z,g,Empty,t,0,0,4,10,6,,,,," || !strings.HasPrefix(lines[4], "2026-12-01T10:00:01Z,g,Empty,t,0,") {
		t.Errorf("watch CSV:\n%s", b.String())
	}
}

// A group that does not exist, whose commits could not be fetched, or
// whose every row failed has no known total lag: it was 0 in every output
// (a false low lag for a dashboard reading total_lag). It is null in JSON
// (streamed, one-line and encoding/json alike), empty in CSV and "-" in
// tables; a group with some rows known keeps their sum.
func TestUnknownTotalLagIsNotZero(t *testing.T) {
	seven := int64(7)
	r := lag.LagReport{Isolation: "uncommitted", Groups: []lag.GroupLag{
		{Group: "nope", State: "Dead", Error: "group does not exist", Partitions: []lag.PartitionLag{}, Topics: []string{}},
		{Group: "unreadable", State: "Stable", Topics: []string{"t"}, Partitions: []lag.PartitionLag{{Topic: "t", LogStart: -1, LogEnd: -1, Error: "NOT_LEADER_OR_FOLLOWER"}}},
		{Group: "part", State: "Stable", TotalLag: 7, Topics: []string{"t"}, Partitions: []lag.PartitionLag{
			{Topic: "t", LogStart: -1, LogEnd: -1, Error: "NOT_LEADER_OR_FOLLOWER"},
			{Topic: "t", Partition: 1, Committed: &seven, LogEnd: 14, Lag: &seven}}},
		{Group: "nocommit", State: "Empty", Topics: []string{"t"}, Partitions: []lag.PartitionLag{{Topic: "t", LogEnd: 3}}},
	}}
	var js, line, std bytes.Buffer
	if err := Lag(&js, JSON, r); err != nil {
		t.Fatal(err)
	}
	s := NewLagStream(&line, JSON, r, LagStreamOptions{OneLine: true})
	for _, g := range r.Groups {
		if err := s.Group(g); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSON(&std, r); err != nil {
		t.Fatal(err)
	}
	want := map[string]*int64{"nope": nil, "unreadable": nil, "part": &seven, "nocommit": new(int64)}
	for name, b := range map[string][]byte{"stream": js.Bytes(), "one-line": line.Bytes(), "encoding/json": std.Bytes()} {
		var doc struct {
			Groups []struct {
				Group    string `json:"group"`
				TotalLag *int64 `json:"total_lag"`
			} `json:"groups"`
		}
		if err := json.Unmarshal(b, &doc); err != nil || len(doc.Groups) != 4 {
			t.Fatalf("%s: %v\n%s", name, err, b)
		}
		for _, g := range doc.Groups {
			if Opt(g.TotalLag) != Opt(want[g.Group]) {
				t.Errorf("%s: group %s total_lag %s, want %s", name, g.Group, Opt(g.TotalLag), Opt(want[g.Group]))
			}
		}
	}
	var tb bytes.Buffer
	if err := Lag(&tb, Table, r); err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{"GROUP nope  TYPE -  STATE Dead  MEMBERS 0  TOTAL-LAG -", "GROUP unreadable  TYPE -  STATE Stable  MEMBERS 0  TOTAL-LAG -", "GROUP part  TYPE -  STATE Stable  MEMBERS 0  TOTAL-LAG 7", "GROUP nocommit  TYPE -  STATE Empty  MEMBERS 0  TOTAL-LAG 0"} {
		if !strings.Contains(tb.String(), l+"\n") && !strings.Contains(tb.String(), l+"  ") {
			t.Errorf("table lacks %q:\n%s", l, tb.String())
		}
	}
	var csv bytes.Buffer
	if err := Groups(&csv, CSV, lag.Summarize(r, nil), false); err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{"nope,,Dead,0,,,group does not exist", "part,,Stable,0,t,7,", "nocommit,,Empty,0,t,0,"} {
		if !strings.Contains(csv.String(), l) {
			t.Errorf("groups CSV lacks %q:\n%s", l, csv.String())
		}
	}
}
