package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/offsetctl/offsetctl/internal/admin"
	"github.com/offsetctl/offsetctl/internal/testkit"
)

// TestReplayReversedTimeRange (QA): a range whose start is after its end
// is bad input, exit 2 with one line and nothing recorded, whether both
// ends are times (time:, ago:; refused before the cluster is asked) or a
// time resolves before an offset, as --from 500 --until 100 always was.
// Each of these read nothing and said "end" with the empty digest, exit
// 0, and was recorded as a replay. Equal ends stay an empty range.
func TestReplayReversedTimeRange(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(2, nil)
	base := time.Now().Add(-2 * time.Hour).Truncate(time.Second)
	c.Produce(topic, map[int32]int{0: 100, 1: 100}, base) // record i stamped base+i ms
	at := func(d time.Duration) string { return "time:" + base.Add(d).UTC().Format(time.RFC3339Nano) }
	shown := func(d time.Duration) string { return "time:" + admin.FormatTime(base.Add(d)) } // as the error names it

	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"times", []string{"--from", at(time.Hour), "--until", at(time.Minute)},
			"--from " + shown(time.Hour) + " is after --until " + shown(time.Minute) + ": the range is reversed"},
		{"durations", []string{"--from", "ago:1s", "--until", "ago:1h"}, ": the range is reversed and holds no record; give --from the earlier time"},
		{"per partition", []string{"--from", "0=" + at(50*time.Millisecond) + ",1=" + at(60*time.Millisecond), "--until", "0=" + at(10*time.Millisecond) + ",1=end"},
			"partition 0: --from " + shown(50*time.Millisecond) + " is after --until " + shown(10*time.Millisecond) + ": the range is reversed"},
		{"offset then time", []string{"--from", "50", "--until", at(10 * time.Millisecond)},
			"partition 0: --until " + shown(10*time.Millisecond) + " is at offset 10 (the first record stamped at or after it), before the start offset 50: the range is reversed"},
		{"time then offset", []string{"--from", at(50 * time.Millisecond), "--until", "10"}, "partition 0: --until 10 is before the start offset 50"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"replay", topic, "--format", "none", "-q"}, tc.args...)
			badInput(t, c, tc.want, args...)
			if es := historyOf(t); len(es) != 0 {
				t.Fatalf("a refused replay is on the record: %+v", es)
			}
		})
	}
	// Equal ends: an empty range, not an error (and on the record).
	r := mustRun(t, c, 0, "replay", topic, "--from", at(20*time.Millisecond), "--until", at(20*time.Millisecond), "--format", "none", "-q")
	if !strings.Contains(r.stdout, "RECORDS 0") {
		t.Fatalf("equal ends:\n%s", r.stdout)
	}
	if es := historyOf(t); len(es) != 1 {
		t.Fatalf("history after a real replay: %+v", es)
	}
}
