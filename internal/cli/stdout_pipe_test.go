package cli

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetctl/offsetctl/internal/audit"
	"github.com/offsetctl/offsetctl/internal/exitcode"
	"github.com/offsetctl/offsetctl/internal/testkit"
)

// TestStdoutClosedEarlyOneRule (issue 27): every command that writes data
// to stdout follows one rule when the reader leaves early (`| head -1` in
// a real bash pipeline, the built binary): no "broken pipe" line, no
// error line, exit 141 (128+SIGPIPE), and the first line did reach the
// reader. Each command writes far more than a pipe holds (64 KiB), so it
// is still writing when head exits. A command with an outcome of its own
// (a missing group: 1, a crossed --fail-if: 4) exits with it and says it,
// and a snapshot still names its file, whatever the pipe held. On Apache
// Kafka with KAFKA_BROKERS.
func TestStdoutClosedEarlyOneRule(t *testing.T) {
	c := testkit.New(t)
	// 1,500 partitions under a 150-character name: a lag table and a
	// reset plan of some 300 KB.
	name := strings.Repeat("pipe-topic-", 13) + testkit.Name(t, "t")
	c.CreateTopic(name, 1500, nil)
	c.WaitTopic(name, 1500)
	offsets := map[int32]int64{}
	for p := int32(0); p < 1500; p++ {
		offsets[p] = 0
	}
	group := testkit.Name(t, "g")
	c.Commit(group, name, offsets)
	// 2 MiB of records for replay.
	val := []byte(strings.Repeat("r", 1000))
	var recs []*kgo.Record
	for i := 0; i < 2000; i++ {
		recs = append(recs, &kgo.Record{Topic: name, Partition: 0, Value: val})
	}
	c.ProduceRecords(recs...)
	// 300 groups with 250-character names: a groups listing of ~90 KB.
	prefix := strings.Repeat("pipe-group-", 22) + testkit.Name(t, "many")
	for i := 0; i < 300; i++ {
		c.Commit(fmt.Sprintf("%s-%03d", prefix, i), name, map[int32]int64{0: 0})
	}
	// 3,000 audit entries: a history of ~1 MB.
	logPath := filepath.Join(t.TempDir(), "audit.log")
	l, err := audit.Open(logPath)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3000; i++ {
		e := audit.Entry{V: 2, ID: fmt.Sprintf("e%05d", i), Time: time.Now().Add(-time.Minute), Action: "reset", User: "u", Host: "h",
			ClusterID: "c", Command: []string{"reset", group}, Groups: []string{group}, Topics: []string{name}, Outcome: "applied"}
		if err := l.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()

	missing := testkit.Name(t, "missing")
	snap := filepath.Join(t.TempDir(), "snap.csv")
	for _, tc := range []struct {
		name  string
		args  []string
		first string // a word of the first line head shows
		code  int    // 0: the quiet 141
		line  string // a stderr line that must be there
	}{
		{"lag missing group", []string{"lag", group, missing}, "GROUP", exitcode.Failure, "offsetctl: group " + missing + ": group does not exist"},
		{"lag threshold", []string{"lag", group, "-o", "json", "--fail-if", "lag>0"}, "{", exitcode.Threshold, "offsetctl: threshold crossed by group "},
		{"groups threshold", []string{"groups", "-r", prefix + "-.*", "--fail-if", "total-lag>0"}, "GROUP", exitcode.Threshold, "offsetctl: threshold crossed by group "},
		{"snapshot", []string{"snapshot", "-r", prefix + "-.*", "--out", snap, "-o", "json"}, "{", 0, "snapshot of 300 group(s) written to " + snap},
		{"lag", []string{"lag", group}, "GROUP", 0, ""},
		{"lag all groups", []string{"lag", "--all-groups", "-o", "json"}, "{", 0, ""},
		{"groups", []string{"groups", "-r", prefix + "-.*"}, "GROUP", 0, ""},
		{"reset dry run", []string{"reset", group, "--all-topics", "--to", "earliest"}, "GROUP", 0, ""},
		{"history", []string{"--audit-log", logPath, "history"}, "TIME", 0, ""},
		{"replay", []string{"replay", name, "--format", "raw", "-q", "--no-verify"}, "rrrr", 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := cmp.Or(tc.code, exitcode.OutputClosed)
			out, errb, status := pipeline(t, c, tc.args...)
			if status != want || !strings.Contains(out, tc.first) {
				t.Fatalf("%s | head -1: status %d, output %.80q; want %d and a line with %q\nstderr: %.600s", strings.Join(tc.args, " "), status, out, want, tc.first, errb)
			}
			if strings.Contains(errb, "broken pipe") || !strings.Contains(errb, tc.line) {
				t.Fatalf("stderr must hold %q and no broken pipe line, but says: %.600s", tc.line, errb)
			}
			if tc.code == 0 && strings.Contains(errb, "offsetctl:") {
				t.Fatalf("the reader leaving is not an error, but stderr says: %.600s", errb)
			}
		})
	}
}

// TestChangeClosedStdoutStaysLoud: a change command whose stdout's reader
// is gone still changes the cluster, says so with the write error (exit
// 1, not the quiet 141 of a read), and prints its backup line on stderr
// (delete-offsets and delete-group used to drop it when the table could
// not be written). A dry run of the same command is the quiet 141.
func TestChangeClosedStdoutStaysLoud(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(2, nil)
	c.Produce(topic, map[int32]int{0: 3, 1: 3}, time.Time{})
	for _, tc := range []struct {
		name string
		args func(g, backup string) []string
	}{
		{"delete-offsets", func(g, backup string) []string {
			return []string{"delete-offsets", g, "--topic", topic + ":0", "--execute", "--backup", backup}
		}},
		{"delete-group", func(g, backup string) []string {
			return []string{"delete-group", g, "--execute", "--backup", backup}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := testkit.Name(t, "g")
			c.Commit(g, topic, map[int32]int64{0: 1, 1: 2})
			backup := filepath.Join(t.TempDir(), "b.csv")
			dry := tc.args(g, backup)
			dry = dry[:len(dry)-3] // no --execute --backup F
			if code, errb := closedStdoutRun(t, c, dry...); code != exitcode.OutputClosed || strings.Contains(errb, "broken pipe") {
				t.Fatalf("dry run with a closed stdout: exit %d, stderr %s", code, errb)
			}
			code, errb := closedStdoutRun(t, c, tc.args(g, backup)...)
			if code != exitcode.Failure || !strings.Contains(errb, "broken pipe") || !strings.Contains(errb, "backup of the ") {
				t.Fatalf("exit %d, want 1 with the write error and the backup line; stderr:\n%s", code, errb)
			}
			if _, ok := c.Committed(g)[topic][0]; ok {
				t.Fatalf("partition 0 of %s still has a commit: the change was not made", g)
			}
		})
	}
}

// closedStdoutRun runs offsetctl in-process with a stdout whose every
// write fails as a closed pipe does (EPIPE).
func closedStdoutRun(t *testing.T, c *testkit.Cluster, args ...string) (int, string) {
	t.Helper()
	errb := newSyncBuffer()
	a := &app{stdout: &failingWriter{}, stderr: errb, stdin: strings.NewReader(""), getenv: testEnv(t, nil), now: time.Now}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	code := a.execute(ctx, append([]string{"--brokers", c.BrokerList()}, args...))
	return code, errb.String()
}
