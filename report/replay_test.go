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
