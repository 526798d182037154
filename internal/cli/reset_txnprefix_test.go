package cli

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/offsetctl/offsetctl/internal/testkit"
)

// TestResetTxnPrefixBadInput: a --transactional-id-prefix with a control
// character, a blank at an end or over the limit is bad input (exit 2, one
// stderr line, the value not echoed) before any request: the group is not
// changed and no backup is written.
func TestResetTxnPrefixBadInput(t *testing.T) {
	c := testkit.New(t)
	topic, group := c.Topic(2, nil), testkit.Name(t, "txnprefix")
	c.Produce(topic, map[int32]int{0: 5, 1: 5}, time.Time{})
	c.Commit(group, topic, map[int32]int64{0: 1, 1: 2})
	for _, tc := range []struct {
		prefix, want string
	}{
		{"x\x1b[2Jhunter2-", "--transactional-id-prefix must be printable text"},
		{"bell\ahunter2-", "--transactional-id-prefix must be printable text"},
		{" hunter2-", "--transactional-id-prefix must be printable text"},
		{"hunter2-\n", "--transactional-id-prefix must be printable text"},
		{"hunter2-" + strings.Repeat("x", 121), "--transactional-id-prefix is 129 bytes long: at most 128"},
	} {
		backup := filepath.Join(t.TempDir(), "b.csv")
		r := mustRun(t, c, 2, "reset", group, "--all-topics", "--to", "latest", "--execute", "--transactional-id-prefix", tc.prefix, "--backup", backup)
		if !strings.Contains(r.stderr, tc.want) || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
			t.Errorf("prefix %q: stderr %q, want one line with %q", tc.prefix, r.stderr, tc.want)
		}
		if strings.Contains(r.stderr, "hunter2") || r.stdout != "" {
			t.Errorf("prefix %q: echoes the value or prints a plan: stdout %q stderr %q", tc.prefix, r.stdout, r.stderr)
		}
		if got := c.Committed(group)[topic]; got[0] != 1 || got[1] != 2 {
			t.Errorf("prefix %q: group changed to %v", tc.prefix, got)
		}
		if m, _ := filepath.Glob(backup); len(m) != 0 {
			t.Errorf("prefix %q: a backup was written", tc.prefix)
		}
	}
	// At the limit, printable: accepted.
	ok := strings.Repeat("p", 128)
	mustRun(t, c, 0, "reset", group, "--all-topics", "--to", "latest", "--execute", "--transactional-id-prefix", ok, "--backup", filepath.Join(t.TempDir(), "b.csv"))
	if got := c.Committed(group)[topic]; got[0] != 5 || got[1] != 5 {
		t.Errorf("a 128-byte prefix: group at %v, want 5,5", got)
	}
}
