package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetctl/offsetctl/internal/audit"
	"github.com/offsetctl/offsetctl/internal/exitcode"
	"github.com/offsetctl/offsetctl/internal/mirror"
	"github.com/offsetctl/offsetctl/internal/testkit"
)

// TestClosedStdoutKeepsTheOutcome: when stdout's reader has left before
// the first line (every write fails as a closed pipe does), a command
// with an outcome of its own still exits with it and prints its line: a
// missing group or an unreadable one is 1, a crossed --fail-if threshold
// 4, --exit-code with differences 1. 141 is only for a closed pipe that
// is all that went wrong. Before, each of these was a quiet 141, so
// `... | head -1 || [ $? -eq 141 ]` passed them (stdout.go).
func TestClosedStdoutKeepsTheOutcome(t *testing.T) {
	f := newResetFixture(t)
	g := f.group(t) // lag 6, 4 and 10 on the three partitions
	missing := testkit.Name(t, "missing")
	live := f.group(t)
	f.c.Consumer(live, f.topic, false, kgo.DisableAutoCommit())

	snap := filepath.Join(f.dir, "snap.csv")
	mustRun(t, f.c, 0, "snapshot", g, "--out", snap)
	moved := f.group(t)
	movedSnap := filepath.Join(f.dir, "moved.csv")
	mustRun(t, f.c, 0, "snapshot", moved, "--out", movedSnap)
	f.c.Commit(moved, f.topic, map[int32]int64{0: 9})

	alias := testkit.Name(t, "src")
	mirrored := alias + ".orders"
	f.c.CreateTopic(mirrored, 1, nil)
	f.c.WaitTopic(mirrored, 1)
	seedCheckpoints(t, f.c, alias, mirror.Checkpoint{Group: g, Topic: mirrored, Partition: 0, Upstream: 1, Downstream: 0, Time: time.Now()})

	for _, tc := range []struct {
		name string
		args []string
		code int
		line string // in the stderr line that says the outcome
	}{
		{"lag missing group", []string{"lag", g, missing}, exitcode.Failure, "group " + missing + ": group does not exist"},
		{"lag missing group json", []string{"lag", g, missing, "-o", "json"}, exitcode.Failure, "group " + missing + ": group does not exist"},
		{"lag threshold", []string{"lag", g, "--fail-if", "lag>5"}, exitcode.Threshold, "threshold crossed by group " + g},
		{"lag by topic threshold", []string{"lag", g, "--by", "topic", "--fail-if", "lag>5"}, exitcode.Threshold, "threshold crossed by group " + g},
		{"groups threshold", []string{"groups", "-r", regexp.QuoteMeta(g), "--fail-if", "total-lag>5"}, exitcode.Threshold, "threshold crossed by group " + g},
		{"translate no checkpoint", []string{"translate", g, missing, "--source-alias", alias}, exitcode.Failure, "group " + missing + ": "},
		{"diff exit-code", []string{"diff", movedSnap, "--exit-code"}, exitcode.Failure, "1 difference(s)"},
		{"reset dry run refused", []string{"reset", live, "--topic", f.topic, "--to", "latest"}, exitcode.Failure, "nothing was committed"},
		{"delete-group dry run", []string{"delete-group", missing}, exitcode.Failure, "GROUP_ID_NOT_FOUND"},
		{"delete-offsets dry run", []string{"delete-offsets", live, "--topic", f.topic + ":0"}, exitcode.Failure, "GROUP_SUBSCRIBED_TO_TOPIC"},
		{"reset selection skipping a live group", []string{"reset", "-r", regexp.QuoteMeta(live), "--topic", f.topic, "--to", "latest"}, exitcode.Failure, "--execute would reset nothing (1 group skipped: " + live},
		{"delete-group selection skipping a live group", []string{"delete-group", "-r", regexp.QuoteMeta(live)}, exitcode.Failure, "--execute would delete nothing (1 group skipped: " + live},
		// A watch that crossed in the round it could not write: the exit
		// Ctrl-C gives.
		{"lag watch threshold", []string{"lag", g, "--watch", "100ms", "--fail-if", "lag>5"}, exitcode.Threshold, "threshold crossed by group " + g},
		// Nothing but the closed pipe: the quiet 141, and 0 for a watch
		// (it asks for no last round, as replay --follow does).
		{"lag alone", []string{"lag", g}, exitcode.OutputClosed, ""},
		{"diff alone", []string{"diff", snap, "--exit-code"}, exitcode.OutputClosed, ""},
		{"lag watch alone", []string{"lag", g, "--watch", "100ms"}, exitcode.OK, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, errb := closedStdoutRun(t, f.c, tc.args...)
			if code != tc.code || strings.Contains(errb, "broken pipe") {
				t.Fatalf("offsetctl %s with a closed stdout: exit %d, want %d without a broken pipe line\nstderr:\n%s", strings.Join(tc.args, " "), code, tc.code, errb)
			}
			if tc.line == "" {
				if strings.Contains(errb, "offsetctl:") {
					t.Fatalf("only the reader left, but stderr says:\n%s", errb)
				}
				return
			}
			if last := lastLine(errb); !strings.HasPrefix(last, "offsetctl: ") || strings.HasPrefix(last, "offsetctl: warning") || !strings.Contains(last, tc.line) {
				t.Fatalf("last stderr line %q, want the outcome's line holding %q\nstderr:\n%s", last, tc.line, errb)
			}
		})
	}
}

// TestSnapshotConfirmedWhateverStdout: the snapshot file is the
// command's product, so the line naming it (and how to restore it)
// reaches stderr when stdout's reader has left; the exit status is the
// closed pipe's 141, as for any command with nothing else wrong.
func TestSnapshotConfirmedWhateverStdout(t *testing.T) {
	f := newResetFixture(t)
	g := f.group(t)
	for _, format := range []string{"table", "json", "csv"} {
		t.Run(format, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "s.csv")
			code, errb := closedStdoutRun(t, f.c, "snapshot", g, "--out", out, "-o", format)
			want := "snapshot of 1 group(s) written to " + out + " (restore: " + printedBy(f.c) + " reset --all-groups --to file:" + out + " --execute)"
			if code != exitcode.OutputClosed || !strings.Contains(errb, want) || strings.Contains(errb, "offsetctl:") {
				t.Fatalf("exit %d, want %d with %q and no error line\nstderr:\n%s", code, exitcode.OutputClosed, want, errb)
			}
			if b, err := os.ReadFile(out); err != nil || !strings.Contains(string(b), g) {
				t.Fatalf("the snapshot file: %v %q", err, b)
			}
		})
	}
}

// TestLagWatchPipeEndsLikeFollow: `lag G --watch 100ms | head -1` in a
// real pipeline ends at the round after head left, with status 0, as
// `replay T --follow | head -1` does: neither asks for a last record.
func TestLagWatchPipeEndsLikeFollow(t *testing.T) {
	f := newResetFixture(t)
	g := f.group(t)
	out, errb, status := pipeline(t, f.c, "lag", g, "--watch", "100ms")
	if status != exitcode.OK || !strings.Contains(out, "every 100ms") || errb != "" {
		t.Fatalf("lag --watch | head -1: status %d, output %q, stderr %q; want 0, the round header and no stderr", status, out, errb)
	}
}

// TestBackfillOutcomeWhateverStdout (QA): a backfill whose summary could
// not be printed (stdout's reader gone: `| true`) had copied every record,
// but was recorded "partly" (the print failure taken for its own), which
// reads as a copy to finish by rerunning it. Its outcome is what it did:
// applied, every record produced, exit 0 in the entry (a report that
// could not be printed is not in it: docs/audit.md); the run still exits
// 1 and says the summary was lost (a change was made, and its report is
// gone).
func TestBackfillOutcomeWhateverStdout(t *testing.T) {
	c := kfakeCluster(t)
	src := backfillSource(t, c, 5)
	dst := c.Topic(3, nil)
	code, errb := closedStdoutRun(t, c, "replay", src, "--produce-to", dst, "--format", "none", "-q")
	if code != exitcode.Failure || !strings.Contains(errb, "the backfill ended as recorded, but printing its summary failed") {
		t.Fatalf("exit %d, want 1 saying the summary was lost\nstderr:\n%s", code, errb)
	}
	es := historyOf(t)
	want := countRecords(t, c, src)
	if len(es) != 1 || es[0].Outcome != audit.Applied || es[0].Produced == nil || *es[0].Produced != want || es[0].ExitCode != 0 || es[0].Error != "" {
		t.Fatalf("history: %+v, want one applied backfill of %d records (exit 0, no error)", es, want)
	}
	if got := countRecords(t, c, dst); got != want {
		t.Fatalf("the target holds %d records, want %d", got, want)
	}
}
