package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/offsetctl/offsetctl/internal/audit"
	"github.com/offsetctl/offsetctl/internal/testkit"
)

// auditLines is every line of t's audit log (intents and outcomes apart).
func auditLines(t *testing.T) []audit.Entry {
	t.Helper()
	es, err := audit.ReadFile(testAuditLog(t))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return es
}

// TestBackfillRefusalsAreNotRecorded (QA): a backfill refused as bad
// input (exit 2: nothing was done) leaves nothing in the audit log, as
// docs/audit.md says of bad input. Each of these wrote its intent before
// the checks and then a "backfill ... failed 0/0" outcome: the
// partitioner, the replayed topic as its own target, a missing target
// topic, checkpoints that cannot be used (/dev/null, another version, a
// truncated file), a --verify-groups group without commits. A real
// backfill after them is still one entry, its intent written before its
// first copy and, with --transactional-id, before InitProducerId.
func TestBackfillRefusalsAreNotRecorded(t *testing.T) {
	c := kfakeCluster(t)
	src := backfillSource(t, c, 5)
	dst, small := c.Topic(3, nil), c.Topic(2, nil)
	dir := t.TempDir()
	v2 := filepath.Join(dir, "v2.ckpt")
	if err := os.WriteFile(v2, []byte(`{"format":"offsetctl-backfill-checkpoint","v":2}`), 0o600); err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.ckpt")
	if err := os.WriteFile(cut, []byte(`{"format":"offsetctl-backfill-checkpoint","v":1,"job":{"source_to`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"partitioner", []string{"--produce-to", small}, "--partitioner same: target topic " + small + " has 2 partitions but source partition 2"},
		{"same topic", []string{"--produce-to", src}, "is the topic being replayed"},
		{"missing target", []string{"--produce-to", testkit.Name(t, "missing")}, "does not exist: create it first"},
		{"checkpoint /dev/null", []string{"--produce-to", dst, "--checkpoint", "/dev/null"}, "not a regular file"},
		{"checkpoint v2", []string{"--produce-to", dst, "--checkpoint", v2}, "backfill checkpoint version 2"},
		{"checkpoint truncated", []string{"--produce-to", dst, "--checkpoint", cut}, "not a backfill checkpoint"},
		{"verify group", []string{"--produce-to", dst, "--verify-groups", testkit.Name(t, "nobody")}, "has no commits on topic"},
	} {
		// No subtest: the runs of one test share its audit log.
		badInput(t, c, tc.want, append([]string{"replay", src, "--format", "none", "-q"}, tc.args...)...)
		if es := auditLines(t); len(es) != 0 {
			t.Fatalf("%s: refused, and recorded: %+v", tc.name, es)
		}
	}
	if n := countRecords(t, c, dst); n != 0 {
		t.Fatalf("refused backfills copied %d records", n)
	}

	// A real backfill: its intent is in the log when the transactional
	// id is taken over and when the first copy arrives; one entry.
	intentAt := map[string]*atomic.Bool{}
	for _, k := range []kmsg.Key{kmsg.InitProducerID, kmsg.Produce} {
		ok := &atomic.Bool{}
		intentAt[k.Name()] = ok
		c.Fake.ControlKey(int16(k), func(kmsg.Request) (kmsg.Response, error, bool) {
			c.Fake.KeepControl()
			if es, err := audit.ReadFile(testAuditLog(t)); err == nil && len(es) > 0 && es[len(es)-1].Kind == audit.KindIntent {
				ok.Store(true)
			}
			return nil, nil, false
		})
	}
	mustRun(t, c, 0, "replay", src, "--produce-to", dst, "--transactional-id", testkit.Name(t, "bf"), "--format", "none", "-q")
	for k, ok := range intentAt {
		if !ok.Load() {
			t.Errorf("no intent in the log when the first %s arrived", k)
		}
	}
	es := historyOf(t)
	if len(es) != 1 || es[0].Action != audit.ActBackfill || es[0].Outcome != audit.Applied || es[0].Target != dst || *es[0].Produced != 20 {
		t.Fatalf("history after a real backfill: %+v", es)
	}
	if lines := auditLines(t); len(lines) != 2 || lines[0].Kind != audit.KindIntent || lines[1].Kind != audit.KindOutcome {
		t.Fatalf("log lines: %+v", lines)
	}
	// A run that stops for another reason before changing anything is
	// one self-contained entry naming its target.
	r := mustRun(t, c, 1, "replay", src, "--produce-to", dst, "--target-brokers", "127.0.0.1:1", "--timeout", "1s", "--format", "none", "-q")
	if es := historyOf(t); len(es) != 2 || es[1].Outcome != audit.Failed || es[1].Target != dst || strings.Count(r.stderr, "\n") != 1 {
		t.Fatalf("an unreachable target: %+v\n%s", es, r.stderr)
	}
}

// countRecords counts the records of topic read_uncommitted (every copy
// written, committed or not), leaving no entry in the audit log.
func countRecords(t *testing.T, c *testkit.Cluster, topic string) int64 {
	t.Helper()
	got, _, _ := replayJSON(t, c, 0, topic, "--isolation", "uncommitted", "--format", "none", "--no-verify", "--no-audit")
	return got.Records
}

// TestBackfillOutOpensBeforeItsIntent: a backfill opens --out (a FIFO
// waits there for its reader) once its checks have passed and before its
// first change: stopped while it waits (Ctrl-C), it has sent no
// InitProducerId, copied nothing and written no intent.
func TestBackfillOutOpensBeforeItsIntent(t *testing.T) {
	c := kfakeCluster(t)
	src := backfillSource(t, c, 5)
	dst := c.Topic(3, nil)
	fifo := filepath.Join(t.TempDir(), "records.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFO:", err)
	}
	var inits atomic.Int32
	c.Fake.ControlKey(int16(kmsg.InitProducerID), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.Fake.KeepControl()
		inits.Add(1)
		return nil, nil, false
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	r := offsetctlCtx(ctx, t, c, "replay", src, "--produce-to", dst, "--transactional-id", testkit.Name(t, "bf"), "--out", fifo, "-q")
	if r.code != 1 || !strings.Contains(r.stderr, "interrupted while waiting to open --out") || inits.Load() != 0 {
		t.Fatalf("exit %d, %d InitProducerId\n%s", r.code, inits.Load(), r.stderr)
	}
	for _, e := range auditLines(t) {
		if e.Kind == audit.KindIntent {
			t.Fatalf("an intent was written: %+v", e)
		}
	}
	if n := countRecords(t, c, dst); n != 0 {
		t.Fatalf("%d records copied", n)
	}
}
