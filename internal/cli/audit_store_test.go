package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/offsetctl/offsetctl/internal/audit"
	"github.com/offsetctl/offsetctl/internal/filelock"
	"github.com/offsetctl/offsetctl/internal/testkit"
)

// recordedID is the id of "audit: recorded as ID" in a run's stderr.
func recordedID(t *testing.T, r result) string {
	t.Helper()
	m := regexp.MustCompile(`recorded as ([0-9A-Z]{26})`).FindStringSubmatch(r.stderr)
	if m == nil {
		t.Fatalf("no 'recorded as' line in:\n%s", r.stderr)
	}
	return m[1]
}

// TestAuditFullDisk: a reset whose log is on a full file system (a tiny
// tmpfs) fails loudly (exit 1, the change's state named); once there is
// space again, the next reset's entry is read whole by history and undo
// restores it, though the first run may have left a torn fragment.
func TestAuditFullDisk(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=64k"); err != nil {
		t.Skipf("mounting a tmpfs needs root: %v", err)
	}
	defer syscall.Unmount(dir, 0)
	c := testkit.New(t)
	topic := c.Topic(400, nil) // an entry of 400 changes: about 40 KB
	group := testkit.Name(t, "g")
	ends := map[int32]int{}
	for p := int32(0); p < 400; p++ {
		ends[p] = 10
	}
	c.Produce(topic, ends, time.Time{})
	c.Commit(group, topic, map[int32]int64{0: 2})
	log := filepath.Join(dir, "audit.jsonl")
	filler := filepath.Join(dir, "filler")
	if err := os.WriteFile(filler, make([]byte, 36<<10), 0o600); err != nil {
		t.Fatal(err)
	}
	backups := t.TempDir()
	r := mustRun(t, c, 1, "--audit-log", log, "reset", group, "--topic", topic, "--to", "latest", "--execute", "--backup", filepath.Join(backups, "1.csv"))
	last := lastLine(r.stderr)
	if !strings.Contains(last, "no space left on device") || !(strings.Contains(last, "nothing was changed") || strings.Contains(last, "NOT recorded")) {
		t.Fatalf("full disk: stderr\n%s", r.stderr)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	before := c.Committed(group)[topic]
	r = mustRun(t, c, 0, "--audit-log", log, "reset", group, "--topic", topic+":0", "--to", "5", "--execute", "--backup", filepath.Join(backups, "2.csv"))
	id := recordedID(t, r)
	es := historyOf(t, "--audit-log", log, "--group", group)
	if len(es) == 0 || es[len(es)-1].ID != id {
		t.Fatalf("history after the full disk: %+v, want %s last", es, id)
	}
	wantCommitted(t, c, group, topic, withOffset(before, 0, 5))
	mustRun(t, c, 0, "--audit-log", log, "undo", id, "--execute", "--backup", filepath.Join(backups, "3.csv"))
	wantCommitted(t, c, group, topic, before)
}

func withOffset(m map[int32]int64, p int32, off int64) map[int32]int64 {
	out := map[int32]int64{}
	for k, v := range m {
		out[k] = v
	}
	out[p] = off
	return out
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// stalledFIFO is a FIFO whose reader opened it and stopped reading, its
// buffer full: every write to it waits.
func stalledFIFO(t *testing.T) string {
	t.Helper()
	fifo := filepath.Join(t.TempDir(), "audit.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for {
		if _, err := syscall.Write(int(w.Fd()), make([]byte, 4096)); err != nil {
			return fifo
		}
	}
}

// TestAuditStalledFIFO: with --audit-log on a FIFO whose reader stalls, a
// reset ends with exit 1 at the append's deadline (--timeout), naming
// what the change did, instead of hanging; a cancellation (SIGTERM) ends
// the wait at once. What the cluster holds matches what was said.
func TestAuditStalledFIFO(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(2, nil)
	group := testkit.Name(t, "g")
	c.Produce(topic, map[int32]int{0: 10, 1: 10}, time.Time{})
	c.Commit(group, topic, map[int32]int64{0: 2, 1: 3})
	dir := t.TempDir()
	check := func(r result, took time.Duration, why string) {
		t.Helper()
		last := lastLine(r.stderr)
		if r.code != 1 || took > 20*time.Second || !strings.Contains(last, why) {
			t.Fatalf("exit %d after %s, stderr:\n%s", r.code, took, r.stderr)
		}
		got := c.Committed(group)[topic]
		switch {
		case strings.Contains(last, "nothing was changed"):
			if got[0] != 2 {
				t.Fatalf("said nothing was changed, group holds %v", got)
			}
		case strings.Contains(last, "the change was made"):
			if got[0] != 10 {
				t.Fatalf("said the change was made, group holds %v", got)
			}
		default:
			t.Fatalf("the change's state is not named: %s", last)
		}
	}
	start := time.Now()
	r := offsetctl(t, c, "--audit-log", stalledFIFO(t), "--timeout", "2s", "reset", group, "--topic", topic, "--to", "latest", "--execute", "--backup", filepath.Join(dir, "1.csv"))
	check(r, time.Since(start), "did not finish within 2s")

	c.Commit(group, topic, map[int32]int64{0: 2, 1: 3})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { // cancel once the change is visible (or after 5 s: then the wait is before it)
		for i := 0; i < 50 && c.Committed(group)[topic][0] != 10; i++ {
			time.Sleep(100 * time.Millisecond)
		}
		time.Sleep(200 * time.Millisecond)
		cancel()
	}()
	start = time.Now()
	r = offsetctlCtx(ctx, t, c, "--audit-log", stalledFIFO(t), "--timeout", "60s", "reset", group, "--topic", topic, "--to", "latest", "--execute", "--backup", filepath.Join(dir, "2.csv"))
	check(r, time.Since(start), "was interrupted")
}

// TestAuditLogRefused: the log is never reached through a symbolic link
// and must be a regular file of the user's: every command that reads or
// writes it (history, undo, reset, delete-offsets, delete-group, replay,
// lag --status) gives the same exit code, 2 (bad input: the path is the
// user's to fix, as any file input at /dev/zero is), and one line for a
// log it cannot use, and changes nothing. It was exit 1, which scripts
// read as a failure worth retrying.
func TestAuditLogRefused(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(1, nil)
	group := testkit.Name(t, "g")
	c.Produce(topic, map[int32]int{0: 10}, time.Time{})
	c.Commit(group, topic, map[int32]int64{0: 2})
	dir := t.TempDir()
	target := filepath.Join(dir, "precious")
	if err := os.WriteFile(target, []byte("keep\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "audit.jsonl")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	logs := map[string]string{"symlink": link, "directory": dir, "device": "/dev/zero"}
	if os.Geteuid() == 0 {
		other := filepath.Join(dir, "other.jsonl")
		if err := os.WriteFile(other, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(other, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		logs["another user's"] = other
	}
	// A FIFO nobody reads (the writers) or writes (the readers).
	fifo := filepath.Join(dir, "audit.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err == nil {
		logs["FIFO"] = fifo
	}
	want := map[string]string{"symlink": "a symbolic link: refused", "directory": "not a regular file", "device": "not a regular file", "another user's": "owned by another user", "FIFO": "a pipe with no "}
	for kind, log := range logs {
		for _, args := range [][]string{
			{"history"},
			{"history", "-o", "json"},
			{"history", "--verify", "01M8T8W8Y1KCK5XWQG09MTTSDB"},
			{"undo", "01M8T8W8Y1KCK5XWQG09MTTSDB"},
			{"reset", group, "--topic", topic, "--to", "latest", "--execute", "--backup", filepath.Join(t.TempDir(), "b.csv")},
			{"delete-offsets", group, "--topic", topic, "--execute", "--backup", filepath.Join(t.TempDir(), "b.csv")},
			{"delete-group", group, "--execute", "--backup", filepath.Join(t.TempDir(), "b.csv")},
			{"replay", topic, "--format", "none"},
			{"lag", group, "--status", "--status-source", "sample", "--sample", "1s"},
		} {
			if kind == "FIFO" && args[0] == "lag" {
				continue // a FIFO named as the log is a log: read only to explain a rewind
			}
			r := offsetctl(t, c, append([]string{"--audit-log", log}, args...)...)
			if r.code != 2 || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, want[kind]) || r.stdout != "" {
				t.Errorf("%s log, %s: exit %d, stdout %q, stderr %q", kind, strings.Join(args, " "), r.code, r.stdout, r.stderr)
			}
		}
	}
	// The commands that append check the log before any request: the
	// same line with the cluster unreachable (a FIFO's reader can only be
	// known by opening it, once the change is planned).
	for kind, log := range logs {
		if kind == "FIFO" {
			continue
		}
		for _, args := range [][]string{
			{"reset", group, "--topic", topic, "--to", "latest", "--execute", "--backup", filepath.Join(t.TempDir(), "b.csv")},
			{"delete-offsets", group, "--topic", topic, "--execute"},
			{"delete-group", group, "--execute"},
			{"replay", topic, "--format", "none"},
		} {
			r := offsetctl(t, nil, append([]string{"--brokers", "127.0.0.1:1", "--timeout", "3s", "--audit-log", log}, args...)...)
			if r.code != 2 || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, "nothing was changed: the audit log cannot be written") || !strings.Contains(r.stderr, want[kind]) {
				t.Errorf("%s log, %s, cluster unreachable: exit %d, stderr %q", kind, args[0], r.code, r.stderr)
			}
		}
	}
	wantCommitted(t, c, group, topic, map[int32]int64{0: 2})
	if b, _ := os.ReadFile(target); string(b) != "keep\n" {
		t.Fatalf("the link's target was written: %q", b)
	}
}

// TestAuditHistoryOversizedLine: a 300 MB line (a hole in a sparse file:
// NUL bytes) does not make history fail: it is reported as oversized and
// skipped, and the entries around it are listed and can be undone.
func TestAuditHistoryOversizedLine(t *testing.T) {
	c, topic, group, log, dir := undoFixture(t)
	first := recordedID(t, mustRun(t, c, 0, "--audit-log", log, "reset", group, "--topic", topic, "--to", "5", "--execute", "--backup", filepath.Join(dir, "1.csv")))
	st, err := os.Stat(log)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(log, st.Size()+300<<20); err != nil {
		t.Fatal(err)
	}
	second := recordedID(t, mustRun(t, c, 0, "--audit-log", log, "reset", group, "--topic", topic, "--to", "7", "--execute", "--backup", filepath.Join(dir, "2.csv")))
	r := mustRun(t, c, 0, "--audit-log", log, "history")
	if !strings.Contains(r.stdout, first) || !strings.Contains(r.stdout, second) || !strings.Contains(r.stderr, "1 line(s) of the audit log are oversized") || !strings.Contains(r.stderr, "line 3") { // after the first reset's intent and outcome
		t.Fatalf("history:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	}
	mustRun(t, c, 0, "--audit-log", log, "undo", second, "--execute", "--backup", filepath.Join(dir, "3.csv"))
	wantCommitted(t, c, group, topic, map[int32]int64{0: 5})
}

// TestAuditRotation: with a small --audit-rotate-size and --audit-gzip,
// resets rotate the log into gzip'd files beside it, with an index;
// history lists every entry once and undo finds one in a rotated file.
func TestAuditRotation(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(1, nil)
	group := testkit.Name(t, "g")
	c.Produce(topic, map[int32]int{0: 100}, time.Time{})
	c.Commit(group, topic, map[int32]int64{0: 0})
	logDir := t.TempDir()
	log := filepath.Join(logDir, "audit.jsonl")
	dir := t.TempDir()
	var recorded []string
	for i := 1; i <= 8; i++ {
		r := mustRun(t, c, 0, "--audit-log", log, "--audit-rotate-size", "1KiB", "--audit-gzip", "reset", group, "--topic", topic, "--to", fmt.Sprint(i), "--execute", "--backup", filepath.Join(dir, fmt.Sprintf("%d.csv", i)))
		recorded = append(recorded, recordedID(t, r))
	}
	gz, _ := filepath.Glob(filepath.Join(logDir, "audit-*.jsonl.gz"))
	idx, err := audit.ReadIndex(log)
	if len(gz) < 2 || err != nil || len(idx) != len(gz) {
		t.Fatalf("rotated: %v, index %+v (%v)", gz, idx, err)
	}
	var ids []string
	for _, e := range historyOf(t, "--audit-log", log, "--group", group) {
		ids = append(ids, e.ID)
	}
	if fmt.Sprint(ids) != fmt.Sprint(recorded) {
		t.Fatalf("history ids %v, recorded %v", ids, recorded)
	}
	// The first reset (from 0 to 1) is in a rotated, compressed file.
	mustRun(t, c, 0, "--audit-log", log, "undo", recorded[0], "--force", "--execute", "--backup", filepath.Join(dir, "undo.csv"))
	wantCommitted(t, c, group, topic, map[int32]int64{0: 0})
	r := offsetctl(t, c, "--audit-log", log, "--audit-rotate-size", "lots", "history")
	if r.code != 2 || !strings.Contains(r.stderr, `--audit-rotate-size "lots": want a size`) {
		t.Fatalf("bad size: exit %d, %s", r.code, r.stderr)
	}
}

// TestAuditUnknownVersion: an entry of a format version this offsetctl
// does not know is listed as such by history, with a warning, and never
// acted on by undo (exit 1).
func TestAuditUnknownVersion(t *testing.T) {
	c := testkit.New(t)
	log := filepath.Join(t.TempDir(), "audit.jsonl")
	future := fmt.Sprintf(`{"v":%d,"id":"01M8T8W8Y1KCK5XWQG09MTTSDB","action":"reset","groups":["g"],"outcome":"applied","backup":"/nonexistent.csv","changes":[{"group":"g","topic":"t","partition":0,"before":1,"after":2}],"teleport":true}`, audit.Version+1)
	if err := os.WriteFile(log, []byte(future+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := mustRun(t, c, 0, "--audit-log", log, "history")
	if !strings.Contains(r.stdout, fmt.Sprintf("format-v%d?", audit.Version+1)) || !strings.Contains(r.stderr, "in a format this offsetctl does not know") {
		t.Fatalf("history:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	}
	r = mustRun(t, c, 1, "--audit-log", log, "undo", "01M8T8W8Y1KCK5XWQG09MTTSDB", "--execute")
	if !strings.Contains(lastLine(r.stderr), fmt.Sprintf("is in audit format version %d, which this offsetctl does not know", audit.Version+1)) {
		t.Fatalf("undo stderr:\n%s", r.stderr)
	}
}

// TestAuditSidecarUndo: an entry whose changes are in a sidecar file is
// undone from it; a sidecar edited since is refused.
func TestAuditSidecarUndo(t *testing.T) {
	c, topic, group, log, dir := undoFixture(t)
	id := recordedID(t, mustRun(t, c, 0, "--audit-log", log, "reset", group, "--topic", topic, "--to", "8", "--execute", "--backup", filepath.Join(dir, "1.csv")))
	es, err := audit.ReadFile(log)
	if err != nil || len(es) != 2 || es[0].ID != id { // its intent and outcome
		t.Fatalf("log: %+v, %v", es, err)
	}
	// The same change padded past the inline bound with changes that
	// failed (undo compares and restores only the ones made).
	big := audit.JoinPair(es[0], es[1])
	big.Kind, big.ID = "", audit.NewID(time.Now()) // one self-contained entry
	for p := 1; p <= audit.MaxInlineChanges; p++ {
		big.Changes = append(big.Changes, audit.Change{Group: group, Topic: topic, Partition: int32(p), Error: "padding"})
	}
	if err := audit.Append(log, big); err != nil {
		t.Fatal(err)
	}
	es, _ = audit.ReadFile(log)
	if es[2].ChangesFile == "" || len(es[2].Changes) != 0 {
		t.Fatalf("the big entry inlined its changes: %d, file %q", len(es[2].Changes), es[2].ChangesFile)
	}
	side := filepath.Join(filepath.Dir(log), es[2].ChangesFile)
	b, _ := os.ReadFile(side)
	if err := os.WriteFile(side, append(b, []byte(group+","+topic+",0,9,9,\n")...), 0o600); err != nil {
		t.Fatal(err)
	}
	r := mustRun(t, c, 1, "--audit-log", log, "undo", big.ID, "--execute")
	if !strings.Contains(r.stderr, "has changed since it was written") {
		t.Fatalf("tampered sidecar: %s", r.stderr)
	}
	if err := os.WriteFile(side, b, 0o600); err != nil {
		t.Fatal(err)
	}
	mustRun(t, c, 0, "--audit-log", log, "undo", big.ID, "--execute", "--backup", filepath.Join(dir, "2.csv"))
	wantCommitted(t, c, group, topic, map[int32]int64{0: 2})
}

// TestAuditLogStdio: --audit-log - writes a change's entries to stderr
// (stdout keeps the command's data), and history reads a log from
// standard input (e.g. `zcat old.jsonl.gz | offsetctl --audit-log - history`).
func TestAuditLogStdio(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(1, nil)
	group := testkit.Name(t, "g")
	c.Produce(topic, map[int32]int{0: 10}, time.Time{})
	c.Commit(group, topic, map[int32]int64{0: 2})
	r := mustRun(t, c, 0, "--audit-log", "-", "reset", group, "--topic", topic, "--to", "latest", "--execute", "--backup", filepath.Join(t.TempDir(), "b.csv"), "-o", "json")
	var line string
	for _, l := range strings.Split(r.stderr, "\n") {
		if strings.HasPrefix(l, "{") {
			line = l
		}
	}
	es, err := audit.Read(strings.NewReader(line + "\n"))
	if err != nil || len(es) != 1 || es[0].Groups[0] != group || strings.Contains(r.stdout, es[0].ID+`"`) {
		t.Fatalf("entry on stderr: %v %+v\nstdout:\n%s\nstderr:\n%s", err, es, r.stdout, r.stderr)
	}
	var out, errb strings.Builder
	a := &app{stdout: &out, stderr: &errb, stdin: strings.NewReader(line + "\n"), getenv: testEnv(t, nil), now: time.Now}
	if code := a.execute(context.Background(), []string{"--audit-log", "-", "history", "-o", "json"}); code != 0 || !strings.Contains(out.String(), es[0].ID) || !strings.Contains(out.String(), `"changes": [`) {
		t.Fatalf("history from stdin: exit %d\n%s\n%s", code, out.String(), errb.String())
	}
}

// TestAuditStalledFIFOSIGTERM: the real process, blocked on an append to
// a FIFO whose reader stalled (--timeout 60s), ends on SIGTERM within
// seconds, exit 1, naming the change's state; QA's run was deaf to it.
func TestAuditStalledFIFOSIGTERM(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(2, nil)
	group := testkit.Name(t, "g")
	c.Produce(topic, map[int32]int{0: 10, 1: 10}, time.Time{})
	c.Commit(group, topic, map[int32]int64{0: 2, 1: 3})
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "--brokers", c.BrokerList(), "--audit-log", stalledFIFO(t), "--timeout", "60s",
		"reset", group, "--topic", topic, "--to", "latest", "--execute", "--backup", filepath.Join(t.TempDir(), "b.csv"))
	cmd.Env = append(os.Environ(), semanticsWorkerEnv+"=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	// Once the change is visible the process is in its append; if it
	// never shows, the append before the change is what waits.
	for i := 0; i < 50 && c.Committed(group)[topic][0] != 10; i++ {
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond)
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	sent := time.Now()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(20 * time.Second):
		t.Fatalf("still running 20s after SIGTERM; stderr:\n%s", stderr.String())
	}
	last := lastLine(stderr.String())
	if cmd.ProcessState.ExitCode() != 1 || !strings.Contains(last, "was interrupted") {
		t.Fatalf("exit %v after %s, stderr:\n%s", err, time.Since(sent), stderr.String())
	}
	t.Logf("ended %s after SIGTERM: %s", time.Since(sent).Round(time.Millisecond), last)
	got := c.Committed(group)[topic][0]
	if !(strings.Contains(last, "nothing was changed") && got == 2 || strings.Contains(last, "the change was made") && got == 10) {
		t.Fatalf("the state said (%s) is not the group's (%d)", last, got)
	}
}

// TestAuditSidecarJoin: an intent whose plan is in a sidecar, joined with
// its outcome naming a partition not changed: undo and --verify read the
// plan from the sidecar with that partition's error, as for an inline one.
func TestAuditSidecarJoin(t *testing.T) {
	log := filepath.Join(t.TempDir(), "audit.jsonl")
	at := time.Now()
	in := audit.Entry{V: audit.Version, Kind: audit.KindIntent, ID: audit.NewID(at), Time: at, Action: audit.ActReset, Groups: []string{"g"}, Outcome: audit.Unknown}
	for p := 0; p <= audit.MaxInlineChanges; p++ {
		before, after := int64(p), int64(p+1)
		in.Changes = append(in.Changes, audit.Change{Group: "g", Topic: "t", Partition: int32(p), Before: &before, After: &after})
	}
	out := audit.Entry{V: audit.Version, Kind: audit.KindOutcome, ID: audit.NewID(at.Add(time.Second)), Intent: in.ID, Action: audit.ActReset, Outcome: audit.Partly,
		Changes: []audit.Change{{Group: "g", Topic: "t", Partition: 7, Error: "refused by the broker"}}}
	for _, e := range []audit.Entry{in, out} {
		if err := audit.Append(log, e); err != nil {
			t.Fatal(err)
		}
	}
	a := &app{stdout: io.Discard, stderr: io.Discard, stdin: strings.NewReader(""), getenv: testEnv(t, nil), now: time.Now, auditLog: log, timeout: time.Minute}
	es, err := a.readTrail(context.Background(), false, in.ID)
	if err != nil || len(es) != 1 || len(es[0].Changes) != len(in.Changes) || es[0].Outcome != audit.Partly {
		t.Fatalf("readTrail: %v, %d entries", err, len(es))
	}
	for _, c := range es[0].Changes {
		if (c.Partition == 7) != (c.Error == "refused by the broker") {
			t.Fatalf("partition %d: error %q", c.Partition, c.Error)
		}
	}
}

// TestAuditHistoryJSONAgrees: history -o json (which reads the log a
// second time to stream the changes) lists the same changes with the
// same outcomes as the table, on logs a hand or a cleanup has damaged:
// an outcome whose intent is gone (its rotated file deleted), an intent
// with two outcomes (the first, the one its run wrote, counts), and an
// outcome placed before its intent (files concatenated out of order).
func TestAuditHistoryJSONAgrees(t *testing.T) {
	c := testkit.New(t)
	log := filepath.Join(t.TempDir(), "audit.jsonl")
	ent := func(id, kind, intent, outcome string) string {
		return fmt.Sprintf(`{"v":2,"id":%q,"kind":%q,"intent":%q,"action":"reset","groups":["g"],"topics":["t"],"partitions":1,"outcome":%q,"backup":"/b.csv","changes":[{"group":"g","topic":"t","partition":0,"before":1,"after":2}]}`, id, kind, intent, outcome)
	}
	lines := []string{
		ent("01M8T8W8Y1KCK5XWQG09MTTSD1", "outcome", "01M8T8W8Y1KCK5XWQG09MTTSD0", "applied"), // its intent is gone
		ent("01M8T8W8Y1KCK5XWQG09MTTSD2", "intent", "", "unknown"),
		ent("01M8T8W8Y1KCK5XWQG09MTTSD3", "outcome", "01M8T8W8Y1KCK5XWQG09MTTSD2", "applied"),
		ent("01M8T8W8Y1KCK5XWQG09MTTSD4", "outcome", "01M8T8W8Y1KCK5XWQG09MTTSD2", "failed"), // a second outcome
		ent("01M8T8W8Y1KCK5XWQG09MTTSD6", "outcome", "01M8T8W8Y1KCK5XWQG09MTTSD5", "partly"), // before its intent
		ent("01M8T8W8Y1KCK5XWQG09MTTSD5", "intent", "", "unknown"),
	}
	if err := os.WriteFile(log, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	want := "01M8T8W8Y1KCK5XWQG09MTTSD1:applied 01M8T8W8Y1KCK5XWQG09MTTSD2:applied 01M8T8W8Y1KCK5XWQG09MTTSD5:partly"
	var table []string
	for _, row := range strings.Split(strings.TrimSpace(mustRun(t, c, 0, "--audit-log", log, "history", "-o", "csv").stdout), "\n")[1:] {
		f := strings.Split(row, ",")
		table = append(table, f[0]+":"+f[9])
	}
	if got := strings.Join(table, " "); got != want {
		t.Fatalf("history -o csv: %s, want %s", got, want)
	}
	var doc struct {
		Entries []audit.Entry `json:"entries"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, c, 0, "--audit-log", log, "history", "-o", "json").stdout), &doc); err != nil {
		t.Fatal(err)
	}
	var js []string
	for _, e := range doc.Entries {
		js = append(js, e.ID+":"+e.Outcome)
	}
	if got := strings.Join(js, " "); got != want {
		t.Fatalf("history -o json: %s, want %s (as the table)", got, want)
	}
}

// TestAuditReusedID: a log holding two different entries with one id
// (an edit: ids are 80 random bits) is never acted on, as either one
// could restore the wrong offsets: undo and --verify refuse, naming the
// id; an identical copy (a file concatenated twice) is still one entry.
func TestAuditReusedID(t *testing.T) {
	c := testkit.New(t)
	log := filepath.Join(t.TempDir(), "audit.jsonl")
	ent := func(before int) string {
		return fmt.Sprintf(`{"v":2,"id":"01M8T8W8Y1KCK5XWQG09MTTSD2","kind":"intent","action":"reset","groups":["g"],"topics":["t"],"partitions":1,"outcome":"unknown","backup":"/nonexistent.csv","changes":[{"group":"g","topic":"t","partition":0,"before":%d,"after":9}]}`, before)
	}
	if err := os.WriteFile(log, []byte(ent(1)+"\n"+ent(1)+"\n"+ent(5)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"undo", "01M8T8W8Y1KCK5XWQG09MTTSD2"}, {"history", "--verify", "01M8T8W8Y1KCK5XWQG09MTTSD2"}} {
		r := offsetctl(t, c, append([]string{"--audit-log", log}, args...)...)
		if r.code == 0 || !strings.Contains(r.stderr, "two different entries with id 01M8T8W8Y1KCK5XWQG09MTTSD2") {
			t.Fatalf("%v: exit %d, stderr:\n%s", args, r.code, r.stderr)
		}
	}
	if err := os.WriteFile(log, []byte(ent(1)+"\n"+ent(1)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := mustRun(t, c, 1, "--audit-log", log, "undo", "01M8T8W8Y1KCK5XWQG09MTTSD2")
	if strings.Contains(r.stderr, "two different entries") || !strings.Contains(r.stderr, "nonexistent.csv") {
		t.Fatalf("an identical copy: %s", r.stderr)
	}
}

// TestAuditIDBadInput: an id too short to be a prefix, or empty, is bad
// input named as such, for undo and --verify alike: "01M8W" (a prefix of
// every id of a day) said only "no audit entry 01M8W", and --verify's
// line read "--verify no audit entry".
func TestAuditIDBadInput(t *testing.T) {
	c := testkit.New(t)
	log := filepath.Join(t.TempDir(), "audit.jsonl")
	line := `{"v":2,"id":"01M8T8W8Y1KCK5XWQG09MTTSD2","kind":"intent","action":"reset","groups":["g"],"outcome":"unknown"}`
	if err := os.WriteFile(log, []byte(line+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	badInput(t, c, "offsetctl: no audit entry 01M8T (an id prefix needs at least 6 characters)", "--audit-log", log, "undo", "01M8T")
	badInput(t, c, "offsetctl: --verify: no audit entry 01M8T (an id prefix needs at least 6 characters)", "--audit-log", log, "history", "--verify", "01m8t")
	badInput(t, c, "offsetctl: --verify: no audit entry ZZZZZZZZ\n", "--audit-log", log, "history", "--verify", "zzzzzzzz")
	badInput(t, c, "offsetctl: the audit entry id is empty", "--audit-log", log, "undo", " ")
}

// TestAuditHistoryJSONVersion1: a version-1 entry's outcome "partial"
// reads as "partly" in history -o json as in the table (docs/audit.md):
// the streamed JSON wrote it as recorded.
func TestAuditHistoryJSONVersion1(t *testing.T) {
	c := testkit.New(t)
	log := filepath.Join(t.TempDir(), "audit.jsonl")
	line := `{"v":1,"id":"01M8T8W8Y1KCK5XWQG09MTTSD2","action":"reset","groups":["g"],"topics":["t"],"partitions":2,"applied":1,"outcome":"partial","backup":"/b.csv","changes":[{"group":"g","topic":"t","partition":0,"before":1,"after":2}]}`
	if err := os.WriteFile(log, []byte(line+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := mustRun(t, c, 0, "--audit-log", log, "history", "-o", "csv"); !strings.Contains(r.stdout, ",reset,g,t,partly,") {
		t.Fatalf("csv: %s", r.stdout)
	}
	var doc struct {
		Entries []audit.Entry `json:"entries"`
	}
	decodeJSON(t, mustRun(t, c, 0, "--audit-log", log, "history", "-o", "json"), &doc)
	if len(doc.Entries) != 1 || doc.Entries[0].Outcome != audit.Partly || len(doc.Entries[0].Changes) != 1 {
		t.Fatalf("json: %+v", doc.Entries)
	}
}

// TestAuditVerifyNothingPlanned: --verify of an entry that records no
// partition (a refused undo) says there is nothing to verify; it said
// "every partition (0) holds its planned offset: the change is applied".
func TestAuditVerifyNothingPlanned(t *testing.T) {
	c := testkit.New(t)
	log := filepath.Join(t.TempDir(), "audit.jsonl")
	line := `{"v":2,"id":"01M8T8W8Y1KCK5XWQG09MTTSD2","action":"undo","groups":["g"],"topics":["t"],"outcome":"refused","exit_code":1,"changes":[]}`
	if err := os.WriteFile(log, []byte(line+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := mustRun(t, c, 0, "--audit-log", log, "history", "--verify", "01M8T8W8Y1KCK5XWQG09MTTSD2")
	if !strings.Contains(r.stderr, "(recorded outcome: refused): the entry records no partition it changed or planned: there is nothing to verify") || strings.Contains(r.stderr, "applied") {
		t.Fatalf("stderr: %s", r.stderr)
	}
}

// TestAuditVerifyMovedBack: a change recorded as applied whose groups
// were moved back since (by a consumer: no later entry names the
// partition) reads "before" now; --verify says the groups moved back, not
// "it is not applied", which contradicted the record (and a failed change
// whose planned offsets another change left). A later audited change of
// the partition is named instead (TestVerifyKnownThenLater).
func TestAuditVerifyMovedBack(t *testing.T) {
	c, topic, group, log, dir := undoFixture(t)
	id := recordedID(t, mustRun(t, c, 0, "--audit-log", log, "reset", group, "--topic", topic, "--to", "8", "--execute", "--backup", filepath.Join(dir, "1.csv")))
	c.Commit(group, topic, map[int32]int64{0: 2})
	r := mustRun(t, c, 0, "--audit-log", log, "history", "--verify", id)
	if !strings.Contains(r.stderr, "holds its offset before the change, but the change was recorded as applied: the groups moved back since") {
		t.Fatalf("stderr: %s", r.stderr)
	}
	// The last entry by id, whatever the clock: no later change.
	failedID := audit.NewID(time.Now())
	failed := fmt.Sprintf(`{"v":2,"id":%q,"action":"reset","groups":[%q],"topics":[%q],"partitions":1,"outcome":"failed","exit_code":1,"changes":[{"group":%q,"topic":%q,"partition":0,"before":5,"after":2,"error":"aborted"}]}`, failedID, group, topic, group, topic)
	f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(failed + "\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	r = mustRun(t, c, 0, "--audit-log", log, "history", "--verify", failedID)
	if !strings.Contains(r.stderr, "holds its planned offset, but the change was recorded as failed: another change left the same offsets since") {
		t.Fatalf("stderr: %s", r.stderr)
	}
}

// TestAuditUndoTwice: undoing a change a second time is refused (exit 2,
// nothing changed, as for any change recorded later of its partitions),
// and the line names the undo that already restored it, with --force to
// restore it again, rather than "undo it first".
func TestAuditUndoTwice(t *testing.T) {
	c, topic, group, log, dir := undoFixture(t)
	id := recordedID(t, mustRun(t, c, 0, "--audit-log", log, "reset", group, "--topic", topic, "--to", "8", "--execute", "--backup", filepath.Join(dir, "1.csv")))
	u := recordedID(t, mustRun(t, c, 0, "--audit-log", log, "undo", id, "--execute", "--backup", filepath.Join(dir, "2.csv")))
	r := badInput(t, c, "(it was undone already by entry "+u+"); add --force to restore the backup again", "--audit-log", log, "undo", id[:10], "--execute", "--backup", filepath.Join(dir, "3.csv"))
	if strings.Contains(r.stderr, "undo it first") {
		t.Fatalf("second undo: %s", r.stderr)
	}
	wantCommitted(t, c, group, topic, map[int32]int64{0: 2})
	if es := historyOf(t, "--audit-log", log); len(es) != 2 {
		t.Fatalf("the refused undo is recorded: %+v", es)
	}
}

// TestAuditHistoryJunkLine: a line with an id and nothing else is not
// listed as an entry of zero time by no one ("0001-01-01T00:00:00Z @", a
// QA finding): history names it on stderr as a line that is not an entry,
// with its line number, and lists the real entries.
func TestAuditHistoryJunkLine(t *testing.T) {
	log := filepath.Join(t.TempDir(), "audit.jsonl")
	real, err := audit.Marshal(audit.Entry{ID: "01M8T8W8Y1KCK5XWQG09MTTSDB", Time: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), Action: audit.ActReset, User: "ann", Host: "h", Outcome: audit.Applied})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(log, append(real, `{"id":"junk"}`+"\n"...), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"table", "json", "csv"} {
		r := mustRun(t, nil, 0, "--audit-log", log, "history", "-o", format)
		if strings.Contains(r.stdout, "junk") || strings.Contains(r.stdout, "0001-01-01") || !strings.Contains(r.stdout, "01M8T8W8Y1KCK5XWQG09MTTSDB") ||
			!strings.Contains(r.stderr, "1 line(s) of the audit log are not entries") || !strings.Contains(r.stderr, "line 2") {
			t.Errorf("-o %s:\n%s\nstderr:\n%s", format, r.stdout, r.stderr)
		}
	}
}

// TestAuditFIFOTornByAnEarlierRun: QA's run, in process. With a FIFO as
// --audit-log and a reader that opened it and does not read, a reset
// whose 100 KB intent the deadline cuts after 64 KiB changes nothing
// (exit 1) and leaves a fragment in the pipe; the reader drains, and the
// next reset's intent and outcome are read whole: history lists the id
// that run printed as recorded, with its outcome. The second run's
// intent was glued to the fragment.
func TestAuditFIFOTornByAnEarlierRun(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(1000, nil) // an intent of 1,000 changes: about 100 KB
	group := testkit.Name(t, "g")
	ends := map[int32]int{}
	for p := int32(0); p < 1000; p++ {
		ends[p] = 3
	}
	c.Produce(topic, ends, time.Time{})
	c.Commit(group, topic, map[int32]int64{0: 1})
	dir := t.TempDir()
	fifo := filepath.Join(dir, "audit.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	rd, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	var piped []byte
	drain := func() {
		for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
			b, _ := io.ReadAll(rd)
			piped = append(piped, b...)
			if len(b) == 0 && len(piped) > 0 {
				return
			}
		}
	}
	r := mustRun(t, c, 1, "--audit-log", fifo, "--timeout", "2s", "reset", group, "--topic", topic, "--to", "2", "--execute", "--backup", filepath.Join(dir, "1.csv"))
	if !strings.Contains(r.stderr, "nothing was changed: the audit intent could not be written") {
		t.Fatalf("first run:\n%s", r.stderr)
	}
	wantCommitted(t, c, group, topic, map[int32]int64{0: 1})
	drain()
	if len(piped) < 60<<10 || piped[len(piped)-1] == '\n' {
		t.Fatalf("the first run's intent was not cut short: %d bytes in the pipe", len(piped))
	}
	r = mustRun(t, c, 0, "--audit-log", fifo, "reset", group, "--topic", topic+":0", "--to", "2", "--execute", "--backup", filepath.Join(dir, "2.csv"))
	id := recordedID(t, r)
	drain()
	log := filepath.Join(dir, "captured.jsonl")
	if err := os.WriteFile(log, piped, 0o600); err != nil {
		t.Fatal(err)
	}
	h := mustRun(t, nil, 0, "--audit-log", log, "history", "-o", "json")
	var out struct {
		Entries []audit.Entry `json:"entries"`
	}
	decodeJSON(t, h, &out)
	if len(out.Entries) != 1 || out.Entries[0].ID != id || out.Entries[0].Outcome != audit.Applied || !strings.Contains(h.stderr, "1 line(s) of the audit log are not entries") {
		t.Fatalf("history of the pipe's capture, want %s applied:\n%s\n%s", id, h.stdout, h.stderr)
	}
}

// TestAuditLockHeldByAnother: with the writers' lock held by another
// process (flock audit.jsonl.lock sleep 6), reset --timeout 2s changes
// nothing and says it waited for that lock and wrote nothing; QA's run
// blamed a stalled disk and said the entry may be missing or cut short.
func TestAuditLockHeldByAnother(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(1, nil)
	group := testkit.Name(t, "g")
	c.Produce(topic, map[int32]int{0: 10}, time.Time{})
	c.Commit(group, topic, map[int32]int64{0: 2})
	dir := t.TempDir()
	log := filepath.Join(dir, "audit.jsonl")
	held, err := filelock.TryLock(log + ".lock")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Unlock()
	r := mustRun(t, c, 1, "--audit-log", log, "--timeout", "2s", "reset", group, "--topic", topic, "--to", "latest", "--execute", "--backup", filepath.Join(dir, "b.csv"))
	want := "offsetctl: nothing was changed: the audit intent could not be written (writing audit log " + log + ": the append waited 2s for the lock another offsetctl holds on it (" + log + ".lock): nothing was written)"
	if !strings.HasPrefix(lastLine(r.stderr), want) || strings.Contains(r.stderr, "cut short") || strings.Contains(r.stderr, "stalled") {
		t.Fatalf("stderr:\n%s\nwant a last line starting %q", r.stderr, want)
	}
	wantCommitted(t, c, group, topic, map[int32]int64{0: 2})
}

// TestAuditUndoBackupPathEndsInSpace: undo restores the bytes it checked
// even when the backup's path ends in white space, which --to's parsing
// trims: the restoring reset read the trimmed name again (another file,
// unchecked, or none).
func TestAuditUndoBackupPathEndsInSpace(t *testing.T) {
	c, topic, group, log, dir := undoFixture(t)
	backup := filepath.Join(dir, "b.csv ")
	// A file under the trimmed name holds other offsets: never restored.
	if err := os.WriteFile(filepath.Join(dir, "b.csv"), []byte(group+","+topic+",0,9\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	id := recordedID(t, mustRun(t, c, 0, "--audit-log", log, "reset", group, "--topic", topic, "--to", "8", "--execute", "--backup", backup))
	mustRun(t, c, 0, "--audit-log", log, "undo", id, "--execute", "--backup", filepath.Join(dir, "2.csv"))
	wantCommitted(t, c, group, topic, map[int32]int64{0: 2})
}

// undoFixture is the cluster of the undo tests: a topic of one partition
// with 10 records, a group committed at 2 on it, an audit log and a
// directory for backups.
func undoFixture(t *testing.T) (c *testkit.Cluster, topic, group, log, dir string) {
	t.Helper()
	c = testkit.New(t)
	topic = c.Topic(1, nil)
	group = testkit.Name(t, "g")
	c.Produce(topic, map[int32]int{0: 10}, time.Time{})
	c.Commit(group, topic, map[int32]int64{0: 2})
	return c, topic, group, filepath.Join(t.TempDir(), "audit.jsonl"), t.TempDir()
}
