package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/offsetctl/offsetctl/internal/exitcode"
)

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
			want := "snapshot of 1 group(s) written to " + out + " (restore: offsetctl reset --all-groups --to file:" + out + " --execute)"
			if code != exitcode.OutputClosed || !strings.Contains(errb, want) || strings.Contains(errb, "offsetctl:") {
				t.Fatalf("exit %d, want %d with %q and no error line\nstderr:\n%s", code, exitcode.OutputClosed, want, errb)
			}
			if b, err := os.ReadFile(out); err != nil || !strings.Contains(string(b), g) {
				t.Fatalf("the snapshot file: %v %q", err, b)
			}
		})
	}
}
