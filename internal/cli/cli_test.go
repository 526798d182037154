package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/offsetctl/offsetctl/internal/testkit"
)

// result is what one in-process run of offsetctl printed and returned.
type result struct {
	stdout, stderr string
	code           int
}

// offsetctl runs the real command tree in-process against c (nil: no
// --brokers flag) and returns what it printed.
func offsetctl(t testing.TB, c *testkit.Cluster, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	return offsetctlCtx(ctx, t, c, args...)
}

func offsetctlCtx(ctx context.Context, t testing.TB, c *testkit.Cluster, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	full := args
	if c != nil {
		full = append([]string{"--brokers", c.BrokerList()}, args...)
	}
	a := &app{stdout: &out, stderr: &errb, stdin: strings.NewReader(""), getenv: testEnv(t, nil), now: time.Now}
	code := a.execute(ctx, full)
	return result{stdout: out.String(), stderr: errb.String(), code: code}
}

// auditLogs holds each test's audit log path: the runs of one test share
// a log (reset, then undo), and no test writes to the real home.
var auditLogs sync.Map

// testAuditLog is t's audit log, in a directory removed after the test.
func testAuditLog(t testing.TB) string {
	if p, ok := auditLogs.Load(t); ok {
		return p.(string)
	}
	p := filepath.Join(t.TempDir(), "state", "audit.jsonl")
	auditLogs.Store(t, p)
	t.Cleanup(func() { auditLogs.Delete(t) })
	return p
}

// testEnv is an environment for in-process runs: get (nil: empty), with
// the test's audit log unless get sets one.
func testEnv(t testing.TB, get func(string) string) func(string) string {
	log := testAuditLog(t)
	return func(k string) string {
		if get != nil {
			if v := get(k); v != "" {
				return v
			}
		}
		if k == "OFFSETCTL_AUDIT_LOG" {
			return log
		}
		return ""
	}
}

// printedBy is how offsetctl starts a command it prints for pasting (an
// undo, a restore, a check) after a run of offsetctl(t, c, ...) with
// flags after the --brokers it adds: the same connection and trail.
func printedBy(c *testkit.Cluster, flags ...string) string {
	return strings.Join(append([]string{"offsetctl", "--brokers", c.BrokerList()}, flags...), " ")
}

// mustRun runs offsetctl and fails the test unless it exits with want.
func mustRun(t testing.TB, c *testkit.Cluster, want int, args ...string) result {
	t.Helper()
	r := offsetctl(t, c, args...)
	if r.code != want {
		t.Fatalf("offsetctl %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.code, want, r.stdout, r.stderr)
	}
	return r
}

// decodeJSON decodes r's stdout into v.
func decodeJSON(t testing.TB, r result, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(r.stdout), v); err != nil {
		t.Fatalf("decoding JSON output: %v\n%s", err, r.stdout)
	}
}

// badInput runs a command that must be refused as bad input: exit 2,
// nothing on stdout, and one stderr line that holds want (the part that
// names the value), so that a wrong message fails as a wrong code does.
func badInput(t testing.TB, c *testkit.Cluster, want string, args ...string) result {
	t.Helper()
	r := mustRun(t, c, 2, args...)
	if r.stdout != "" || strings.Count(r.stderr, "\n") != 1 || !strings.HasSuffix(r.stderr, "\n") || !strings.Contains(r.stderr, want) {
		t.Fatalf("offsetctl %s: stdout %q, stderr %q: want one stderr line holding %q", strings.Join(args, " "), r.stdout, r.stderr, want)
	}
	return r
}
