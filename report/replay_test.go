package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/offsetctl/offsetctl/replay"
)

func TestRate(t *testing.T) {
	for _, c := range []struct {
		in   float64
		want string
	}{
		{0, "0"},
		{1.0 / 3, "0.3"},
		{1.0 / 60, "0.017"},
		{9.94, "9.9"},
		{10, "10"},
		{26049.4, "26049"},
	} {
		if got := Rate(c.in); got != c.want {
			t.Errorf("Rate(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}

// One record in 3 s is a rate of 0.3 records/s, not 0.
func TestReplaySummaryRate(t *testing.T) {
	var buf bytes.Buffer
	r := &replay.Result{Topic: "t", Isolation: "committed", Records: 1, ElapsedMs: 3000, RecordsPerSec: 1.0 / 3, Stopped: replay.StoppedEnd,
		Partitions: []replay.PartitionResult{{Partition: 0, To: 1, Records: 1}}, Verification: replay.Verification{Skipped: true}}
	if err := Replay(&buf, Table, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "ELAPSED 3s  RATE 0.3 records/s") {
		t.Fatalf("summary:\n%s", buf.String())
	}
}

// TestReplayProofCollapsesUnchanged: on a wide topic each group's
// unchanged rows are one line in the table; rows that changed stay in
// full; -v (allRows), JSON and CSV keep every row.
func TestReplayProofCollapsesUnchanged(t *testing.T) {
	off := func(n int64) *int64 { return &n }
	var rows []replay.Change
	for p := int32(0); p < 2000; p++ {
		c := replay.Change{Group: "wide", Topic: "t", Partition: p, Before: off(5), After: off(5), Status: replay.StatusUnchanged}
		if p == 7 {
			c.After, c.Status = off(9), replay.StatusMovedByConsumers
		}
		rows = append(rows, c)
	}
	for p := int32(0); p < 3; p++ {
		rows = append(rows, replay.Change{Group: "small", Topic: "t", Partition: p, Before: off(1), After: off(1), Status: replay.StatusUnchanged})
	}
	r := &replay.Result{Topic: "t", Isolation: "committed", Stopped: replay.StoppedEnd, Partitions: []replay.PartitionResult{{Partition: 0}},
		Verification: replay.Verification{GroupsChecked: 2, Rows: rows, Changes: []replay.Change{rows[7]}, Groups: []string{"small", "wide"}}}

	var buf bytes.Buffer
	if err := ReplayView(&buf, Table, r, false); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	proof := out[strings.Index(out, "PROOF"):]
	lines := strings.Split(strings.TrimSpace(proof), "\n")
	// PROOF line, header, the wide group's line, its moved row, the small
	// group's 3 rows, the hint.
	if len(lines) != 8 {
		t.Fatalf("%d proof lines, want 8:\n%s", len(lines), proof)
	}
	if f := strings.Fields(lines[2]); strings.Join(f, " ") != "wide t 1999 partitions unchanged" {
		t.Errorf("collapsed line %q", lines[2])
	}
	if f := strings.Fields(lines[3]); strings.Join(f, " ") != "wide t 7 5 9 moved-by-group-consumers" {
		t.Errorf("changed row %q, want it in full", lines[3])
	}
	for i, p := range []string{"0", "1", "2"} {
		if f := strings.Fields(lines[4+i]); strings.Join(f, " ") != "small t "+p+" 1 1 unchanged" {
			t.Errorf("small group's row %q: a group with few rows is shown in full", lines[4+i])
		}
	}
	if !strings.Contains(lines[7], "-v or -o json lists every row") {
		t.Errorf("no hint: %q", lines[7])
	}

	buf.Reset()
	if err := ReplayView(&buf, Table, r, true); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), " unchanged\n"); n != 2002 || strings.Contains(buf.String(), "partitions") {
		t.Errorf("-v: %d unchanged rows, want 2002", n)
	}
	buf.Reset()
	if err := ReplayView(&buf, CSV, r, false); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), ",unchanged\n"); n != 2002 {
		t.Errorf("CSV: %d unchanged rows, want 2002", n)
	}
	// The digest is the replay's product: the last table's one row.
	sections := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n\n")
	if last := sections[len(sections)-1]; len(sections) != 3 || !strings.HasPrefix(last, "TOPIC,ISOLATION,RECORDS,BYTES,STOPPED,DIGEST,PAYLOAD-DIGEST,RESUME-FROM\n") || !strings.Contains(last, "\nt,committed,0,0,end,"+r.Digest+",") {
		t.Errorf("CSV summary (digest %q): %q", r.Digest, sections[len(sections)-1])
	}
	buf.Reset()
	if err := ReplayView(&buf, JSON, r, false); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), `"status": "unchanged"`); n != 2002 {
		t.Errorf("JSON: %d unchanged rows, want 2002", n)
	}
}

// A backfill that keeps its position (a transactional id or a checkpoint)
// continues by running the same command again: the summary says so, not
// --from, which would start another backfill to the target.
func TestReplayBackfillContinueLine(t *testing.T) {
	for _, c := range []struct {
		name      string
		b         replay.BackfillResult
		resume    string
		continue_ string
		state     string
	}{
		{"plain", replay.BackfillResult{Resume: "0=4"}, "0=4", "CONTINUE WITH --from 0=4\n", "INCOMPLETE: resume with --from 0=4\n"},
		{"checkpoint", replay.BackfillResult{Resume: "0=4", Checkpoint: &replay.CheckpointResult{}}, "0=4", "CONTINUE BY RERUNNING THE SAME COMMAND\n", "INCOMPLETE: rerun the same command to resume from the checkpoint\n"},
		{"transactional", replay.BackfillResult{Resume: "0=4", Transactional: true}, "0=4", "CONTINUE BY RERUNNING THE SAME COMMAND\n", "INCOMPLETE: rerun the same command to resume from the committed position\n"},
		{"not yet visible", replay.BackfillResult{Transactional: true, Produced: 4}, "", "", "INCOMPLETE: committed, not yet visible to read_committed readers\n"},
	} {
		b := c.b
		b.Target, b.Partitioner = "dst", "same"
		r := &replay.Result{Topic: "src", Isolation: "committed", Records: 4, Stopped: replay.StoppedInterrupted, ResumeFrom: c.resume, Backfill: &b}
		got := render(t, func(w *bytes.Buffer) error { return Replay(w, Table, r) })
		hasContinue := strings.Contains(got, "CONTINUE")
		if c.continue_ != "" && !strings.Contains(got, c.continue_) || c.continue_ == "" && hasContinue {
			t.Errorf("%s: want the line %q in:\n%s", c.name, c.continue_, got)
		}
		if !strings.Contains(got, ", "+c.state) {
			t.Errorf("%s: want the state %q in:\n%s", c.name, c.state, got)
		}
	}
}
