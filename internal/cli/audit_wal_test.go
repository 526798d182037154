package cli

// The write-ahead audit trail (issue 21): an intent on the record before
// the first request that can change the cluster, an outcome decided from
// what the broker acknowledged and the read-back, history joining them,
// history --verify, and undo from an intent alone.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/offsetctl/offsetctl/internal/audit"
	"github.com/offsetctl/offsetctl/internal/testkit"
)

// walFixture is a group committed at 1, 2, 3 on a 3-partition topic with
// 10 records each, a log and a backup path.
type walFixture struct {
	c            *testkit.Cluster
	topic, group string
	log, backup  string
}

// newWAL stages faults with kfake's control functions: kfake only.
func newWAL(t *testing.T) walFixture {
	t.Helper()
	c := kfakeCluster(t)
	f := walFixture{c: c, topic: c.Topic(3, nil), group: testkit.Name(t, "g")}
	c.Produce(f.topic, map[int32]int{0: 10, 1: 10, 2: 10}, time.Time{})
	c.Commit(f.group, f.topic, map[int32]int64{0: 1, 1: 2, 2: 3})
	dir := t.TempDir()
	f.log, f.backup = filepath.Join(dir, "audit.jsonl"), filepath.Join(dir, "b.csv")
	return f
}

// reset runs reset --execute to target with the fixture's log and backup.
func (f walFixture) reset(t *testing.T, want int, target string, extra ...string) result {
	t.Helper()
	args := append([]string{"--audit-log", f.log, "reset", f.group, "--topic", f.topic, "--to", target, "--execute", "--backup", f.backup}, extra...)
	return mustRun(t, f.c, want, args...)
}

// raw reads the log's lines as they are (not joined).
func (f walFixture) raw(t *testing.T) []audit.Entry {
	t.Helper()
	es, err := audit.ReadFile(f.log)
	if err != nil {
		t.Fatal(err)
	}
	return es
}

// history is the log's joined entries of the fixture's group.
func (f walFixture) history(t *testing.T) []audit.Entry {
	t.Helper()
	return historyOf(t, "--audit-log", f.log, "--group", f.group)
}

func (f walFixture) wantAt(t *testing.T, want map[int32]int64) {
	t.Helper()
	wantCommitted(t, f.c, f.group, f.topic, want)
}

var walOld = map[int32]int64{0: 1, 1: 2, 2: 3}
var walNew = map[int32]int64{0: 10, 1: 10, 2: 10}

// TestAuditIntentBeforeCommit: when the first TxnOffsetCommit reaches the
// broker, the intent is already in the log (read from the log there),
// with the plan (before → planned) and the backup's SHA-256; the outcome
// follows naming it, and history shows one row. A reset that moves
// nothing writes every partition and changes none, and the console and
// history agree on it.
func TestAuditIntentBeforeCommit(t *testing.T) {
	f := newWAL(t)
	var seen atomic.Pointer[audit.Entry]
	var logErr atomic.Value
	f.c.Fake.ControlKey(int16(kmsg.TxnOffsetCommit), func(kmsg.Request) (kmsg.Response, error, bool) {
		es, err := audit.ReadFile(f.log)
		if err != nil || len(es) == 0 {
			logErr.Store(fmt.Sprintf("log at the first TxnOffsetCommit: %d entries, %v", len(es), err))
			return nil, nil, false
		}
		e := es[len(es)-1]
		seen.Store(&e)
		return nil, nil, false
	})
	r := f.reset(t, 0, "latest")
	if v := logErr.Load(); v != nil {
		t.Fatal(v)
	}
	in := seen.Load()
	if in == nil {
		t.Fatal("no TxnOffsetCommit seen")
	}
	sum, _ := fileSHA256(f.backup)
	if in.Kind != audit.KindIntent || in.V != audit.Version || in.Outcome != audit.Unknown || in.BackupSHA256 != sum || in.BackupSHA256 == "" ||
		fmt.Sprint(changeWords(in.Changes)) != fmt.Sprintf("[%[1]s/0:1→10 %[1]s/1:2→10 %[1]s/2:3→10]", f.topic) {
		t.Fatalf("intent at the first commit request: %+v", *in)
	}
	raw := f.raw(t)
	if len(raw) != 2 || raw[1].Kind != audit.KindOutcome || raw[1].Intent != in.ID || raw[1].Outcome != audit.Applied || len(raw[1].Changes) != 0 {
		t.Fatalf("log: %+v", raw)
	}
	es := f.history(t)
	if len(es) != 1 || es[0].ID != in.ID || es[0].Outcome != audit.Applied || *es[0].Written != 3 || *es[0].Changed != 3 || entryCount(es[0].Applied) != 3 {
		t.Fatalf("history: %+v", es)
	}
	if !strings.Contains(r.stderr, "audit: recorded as "+in.ID) || !strings.Contains(r.stderr, "(outcome: applied)") || !strings.Contains(r.stderr, "3 partition(s) changed, 0 unchanged") {
		t.Fatalf("stderr:\n%s", r.stderr)
	}

	// Again to latest: every partition written, none changed.
	f.backup = filepath.Join(t.TempDir(), "again.csv")
	r = f.reset(t, 0, "latest")
	if !strings.Contains(r.stderr, "0 partition(s) changed, 3 unchanged") {
		t.Fatalf("stderr:\n%s", r.stderr)
	}
	es = f.history(t)
	if len(es) != 2 || *es[1].Written != 3 || *es[1].Changed != 0 {
		t.Fatalf("history of a reset that changes nothing: %+v", es[1])
	}
	table := mustRun(t, nil, 0, "--audit-log", f.log, "history", "--group", f.group).stdout
	if !strings.Contains(table, es[1].ID) || !strings.Contains(strings.Split(table, es[1].ID)[1], " 0/3 ") {
		t.Fatalf("history table:\n%s", table)
	}
}

// TestAuditIntentNotWritten: a log that opens but cannot take the intent
// (on a full file system: a tiny tmpfs, filled) stops the reset before any
// commit (exit 1): nothing changed, and no request that can change the
// group was sent.
func TestAuditIntentNotWritten(t *testing.T) {
	full := t.TempDir()
	if err := syscall.Mount("tmpfs", full, "tmpfs", 0, "size=16k"); err != nil {
		t.Skipf("mounting a tmpfs needs root: %v", err)
	}
	defer syscall.Unmount(full, 0)
	log := filepath.Join(full, "audit.jsonl")
	if err := os.WriteFile(log, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	// Fill it: the log opens, and no line fits.
	_ = os.WriteFile(filepath.Join(full, "filler"), make([]byte, 64<<10), 0o600)
	f := newWAL(t)
	var sent atomic.Int32
	for _, k := range []kmsg.Key{kmsg.TxnOffsetCommit, kmsg.OffsetCommit, kmsg.EndTxn, kmsg.OffsetDelete, kmsg.DeleteGroups} {
		f.c.Fake.ControlKey(int16(k), func(kmsg.Request) (kmsg.Response, error, bool) {
			sent.Add(1)
			f.c.Fake.KeepControl()
			return nil, nil, false
		})
	}
	f.log = log
	r := f.reset(t, 1, "latest")
	f.wantAt(t, walOld)
	if sent.Load() != 0 || !strings.Contains(r.stderr, "nothing was changed: the audit intent could not be written") {
		t.Fatalf("%d change requests sent; stderr:\n%s", sent.Load(), r.stderr)
	}
	r = mustRun(t, f.c, 1, "--audit-log", log, "delete-offsets", f.group, "--topic", f.topic, "--execute", "--backup", filepath.Join(t.TempDir(), "d.csv"))
	f.wantAt(t, walOld)
	if sent.Load() != 0 || !strings.Contains(r.stderr, "nothing was changed: the audit intent could not be written") {
		t.Fatalf("delete-offsets: %d change requests sent; stderr:\n%s", sent.Load(), r.stderr)
	}
}

// TestAuditOutcomeNotWritten: the intent is written, the commit applied,
// and then the log refuses the outcome (a FIFO whose reader left after
// the intent: EPIPE). The run fails loudly (exit 1) saying the change was
// applied; the intent on the record reads as unknown, --verify says the
// planned offsets are there, and undo restores the offsets before.
func TestAuditOutcomeNotWritten(t *testing.T) {
	f := newWAL(t)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "audit.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFO:", err)
	}
	rd, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	var intent []byte
	f.c.Fake.ControlKey(int16(kmsg.TxnOffsetCommit), func(kmsg.Request) (kmsg.Response, error, bool) {
		// The intent is in the pipe; the reader keeps it and leaves.
		buf := make([]byte, 1<<20)
		n, _ := rd.Read(buf)
		intent = buf[:n]
		rd.Close()
		return nil, nil, false
	})
	f.log = fifo
	r := f.reset(t, 1, "latest")
	f.wantAt(t, walNew)
	if !strings.Contains(r.stderr, "outcome applied (3 partition(s) changed), but the outcome of audit entry ") || !strings.Contains(r.stderr, "is NOT recorded") {
		t.Fatalf("stderr:\n%s", r.stderr)
	}
	// Said once, by the error line (QA: it was printed twice).
	if n := strings.Count(r.stderr, "is NOT recorded"); n != 1 || !strings.HasPrefix(lastLine(r.stderr), "offsetctl: outcome applied") {
		t.Fatalf("the unrecorded outcome said %d times:\n%s", n, r.stderr)
	}
	// The intent alone, as a log that lost the outcome holds it.
	f.log = filepath.Join(dir, "audit.jsonl")
	if err := os.WriteFile(f.log, intent, 0o600); err != nil {
		t.Fatal(err)
	}
	es := f.history(t)
	if len(es) != 1 || es[0].Outcome != audit.Unknown || !strings.Contains(es[0].Error, "history --verify "+es[0].ID) {
		t.Fatalf("history of an intent alone: %+v", es)
	}
	if h := mustRun(t, nil, 0, "--audit-log", f.log, "history"); !strings.Contains(h.stdout, " unknown ") ||
		!strings.Contains(h.stderr, "1 change(s) with outcome unknown ("+es[0].ID+"): whether each landed is not recorded; see what the evidence shows with: offsetctl --audit-log "+f.log+" history --verify ID") {
		t.Fatalf("history of an intent alone:\n%s\n%s", h.stdout, h.stderr)
	}
	v := mustRun(t, f.c, 0, "--audit-log", f.log, "history", "--verify", es[0].ID)
	if !strings.Contains(v.stderr, "every partition (3) holds its planned offset: the change is applied") || strings.Count(v.stdout, " planned\n") != 3 {
		t.Fatalf("--verify:\n%s\n%s", v.stdout, v.stderr)
	}
	undo := recordedID(t, mustRun(t, f.c, 0, "--audit-log", f.log, "undo", es[0].ID, "--execute", "--backup", filepath.Join(dir, "u.csv")))
	f.wantAt(t, walOld)
	// Undone completely, the unknown change is settled: history no
	// longer asks for it to be verified.
	if h := mustRun(t, nil, 0, "--audit-log", f.log, "history"); !strings.Contains(h.stdout, " unknown ") || strings.Contains(h.stderr, "with outcome unknown") {
		t.Fatalf("history after the undo of the unknown change:\n%s\n%s", h.stdout, h.stderr)
	}
	// Undone, the intent's groups hold their offsets before: that is the
	// undo's doing, not a sign the change never landed. An undo of the
	// intent again names its undo (exit 2, nothing changed); it once said
	// "did not reach the cluster: nothing to undo".
	u := badInput(t, f.c, "were changed later, by "+undo+" (undo at ", "--audit-log", f.log, "undo", es[0].ID, "--execute", "--backup", filepath.Join(dir, "u2.csv"))
	if strings.Contains(u.stderr, "did not reach the cluster") || !strings.Contains(u.stderr, "(it was undone already by entry "+undo+"); add --force to restore the backup again") {
		t.Fatalf("undo of an intent undone already:\n%s", u.stderr)
	}
	f.wantAt(t, walOld)
}

// TestAuditUnrecordedAfterQuietEnd: a replay whose stdout's reader left
// ends quietly (141), but when its entry cannot be written either (the
// log's FIFO reader left too) that is said, once, and the run fails
// (exit 1): the quiet ending no longer hides it, and the line printed
// beside the error to keep it from being hidden is gone.
func TestAuditUnrecordedAfterQuietEnd(t *testing.T) {
	f := newWAL(t)
	fifo := filepath.Join(t.TempDir(), "audit.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFO:", err)
	}
	rd, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	var once atomic.Bool
	f.c.Fake.ControlKey(int16(kmsg.Fetch), func(kmsg.Request) (kmsg.Response, error, bool) {
		if once.CompareAndSwap(false, true) {
			rd.Close() // the log's reader leaves while the replay reads
		}
		return nil, nil, false
	})
	var errb strings.Builder
	a := &app{stdout: &failingWriter{}, stderr: &errb, stdin: strings.NewReader(""), getenv: testEnv(t, nil), now: time.Now}
	code := a.execute(testkit.Ctx(t), []string{"--brokers", f.c.BrokerList(), "--audit-log", fifo, "replay", f.topic, "--no-verify"})
	stderr := errb.String()
	if code != 1 || strings.Count(stderr, "is NOT recorded") != 1 || !strings.HasPrefix(lastLine(stderr), "offsetctl: the command ran (outcome ") {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
}

// TestAuditBackfillUnknownGuidance: a backfill whose outcome is not on
// the record (here the log's FIFO reader left with its intent) is not
// sent to history --verify, which reads group offsets and refuses a
// backfill (QA: the console, the entry's error and history's hint all
// named it). Each says what does tell: with --checkpoint, rerunning the
// same command, which resumes (here: finds the copy complete). History
// names --verify only for the changes it can verify.
func TestAuditBackfillUnknownGuidance(t *testing.T) {
	f := newWAL(t)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "audit.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFO:", err)
	}
	rd, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	var intent []byte
	var once sync.Once
	f.c.Fake.ControlKey(int16(kmsg.Produce), func(kmsg.Request) (kmsg.Response, error, bool) {
		once.Do(func() { // at the first of the copies' requests
			buf := make([]byte, 1<<20)
			n, _ := rd.Read(buf)
			intent = buf[:n]
			rd.Close()
		})
		f.c.Fake.KeepControl()
		return nil, nil, false
	})
	dst := f.c.Topic(3, nil)
	ckpt := filepath.Join(dir, "bf.ckpt")
	args := []string{"replay", f.topic, "--produce-to", dst, "--checkpoint", ckpt, "--format", "none", "-q"}
	r := mustRun(t, f.c, 1, append([]string{"--audit-log", fifo}, args...)...)
	resume := "finish it by rerunning the same command: it resumes from checkpoint " + ckpt
	if last := lastLine(r.stderr); !strings.Contains(last, "is NOT recorded") || !strings.Contains(last, "30 cop(ies) acknowledged") || !strings.Contains(last, resume) || strings.Contains(r.stderr, "--verify") {
		t.Fatalf("stderr:\n%s", r.stderr)
	}
	// The log as it is: the backfill's intent alone, and a reset's.
	log := filepath.Join(dir, "audit.jsonl")
	reset, _ := audit.Marshal(audit.Entry{V: audit.Version, ID: "01M8T8W8Y1KCK5XWQG09MTTSD1", Kind: audit.KindIntent, Action: audit.ActReset, Outcome: audit.Unknown})
	if err := os.WriteFile(log, append(reset, intent...), 0o600); err != nil {
		t.Fatal(err)
	}
	es := historyOf(t, "--audit-log", log)
	if len(es) != 2 || es[1].Action != audit.ActBackfill || es[1].Outcome != audit.Unknown || !strings.Contains(es[1].Error, resume) || strings.Contains(es[1].Error, "--verify") ||
		!strings.Contains(es[0].Error, "check with: offsetctl history --verify 01M8T8W8Y1KCK5XWQG09MTTSD1") {
		t.Fatalf("history: %+v", es)
	}
	h := mustRun(t, nil, 0, "--audit-log", log, "history")
	if !strings.Contains(h.stderr, "1 change(s) with outcome unknown (01M8T8W8Y1KCK5XWQG09MTTSD1): whether each landed is not recorded; see what the evidence shows with: offsetctl --audit-log "+log+" history --verify ID") ||
		!strings.Contains(h.stderr, "1 backfill(s) with outcome unknown ("+es[1].ID+"): "+resume) || strings.Contains(h.stderr, es[1].ID+", ") {
		t.Fatalf("history's hints:\n%s", h.stderr)
	}
	v := mustRun(t, nil, 2, "--audit-log", log, "history", "--verify", es[1].ID)
	if !strings.Contains(v.stderr, "is a backfill: it moved no consumer group's offsets (a --transactional-id backfill commits only its own position group's), and the records it copied cannot be taken back; "+resume) {
		t.Fatalf("--verify of a backfill:\n%s", v.stderr)
	}
	// What the guidance says does tell: the rerun resumes.
	rr := mustRun(t, f.c, 0, append([]string{"--audit-log", log}, args...)...)
	if !strings.Contains(rr.stderr, "backfill already complete according to checkpoint") {
		t.Fatalf("the rerun:\n%s", rr.stderr)
	}
	// Finished by that rerun (same checkpoint, target and source, outcome
	// applied): history no longer tells to finish it (QA: it did after
	// the job was complete, sending the user to copy again). The reset's
	// hint stays.
	h = mustRun(t, nil, 0, "--audit-log", log, "history")
	if strings.Contains(h.stderr, "backfill(s) with outcome unknown") || !strings.Contains(h.stderr, "1 change(s) with outcome unknown (01M8T8W8Y1KCK5XWQG09MTTSD1)") {
		t.Fatalf("history's hints after the rerun completed the backfill:\n%s", h.stderr)
	}
}

// TestAuditBackfillIntentNamesItsResume: a backfill's intent names its
// --transactional-id or --checkpoint (absolute), so that a run killed
// after it is told how to resume (audit.CheckWords).
func TestAuditBackfillIntentNamesItsResume(t *testing.T) {
	f := newWAL(t)
	dir := t.TempDir()
	id := testkit.Name(t, "bf")
	mustRun(t, f.c, 0, "--audit-log", f.log, "replay", f.topic, "--produce-to", f.c.Topic(3, nil), "--transactional-id", id, "--format", "none", "-q")
	t.Chdir(dir)
	mustRun(t, f.c, 0, "--audit-log", f.log, "replay", f.topic, "--produce-to", f.c.Topic(3, nil), "--checkpoint", "bf.ckpt", "--format", "none", "-q")
	var got []string
	for _, e := range f.raw(t) {
		if e.Kind == audit.KindIntent {
			got = append(got, e.TransactionalID+"|"+e.Checkpoint)
		}
	}
	if want := []string{id + "|", "|" + filepath.Join(dir, "bf.ckpt")}; !slices.Equal(got, want) {
		t.Fatalf("intents name %q, want %q", got, want)
	}
}

// TestAuditIntentBeforeDeleteAndProduce: delete-offsets, delete-group and
// a backfill have their intent in the log when the first OffsetDelete,
// DeleteGroups or Produce reaches the broker; their outcome follows.
func TestAuditIntentBeforeDeleteAndProduce(t *testing.T) {
	f := newWAL(t)
	intentAt := map[kmsg.Key]*atomic.Bool{}
	for _, k := range []kmsg.Key{kmsg.OffsetDelete, kmsg.DeleteGroups, kmsg.Produce} {
		ok := &atomic.Bool{}
		intentAt[k] = ok
		f.c.Fake.ControlKey(int16(k), func(kmsg.Request) (kmsg.Response, error, bool) {
			f.c.Fake.KeepControl()
			if es, err := audit.ReadFile(f.log); err == nil && len(es) > 0 && es[len(es)-1].Kind == audit.KindIntent {
				ok.Store(true)
			}
			return nil, nil, false
		})
	}
	dir := t.TempDir()
	mustRun(t, f.c, 0, "--audit-log", f.log, "delete-offsets", f.group, "--topic", f.topic+":0", "--execute", "--backup", filepath.Join(dir, "d.csv"))
	mustRun(t, f.c, 0, "--audit-log", f.log, "delete-group", f.group, "--execute", "--backup", filepath.Join(dir, "g.csv"))
	dst := f.c.Topic(3, nil)
	mustRun(t, f.c, 0, "--audit-log", f.log, "replay", f.topic, "--produce-to", dst, "--format", "none", "-q")
	for k, ok := range intentAt {
		if !ok.Load() {
			t.Errorf("no intent in the log when the first %s arrived", k.Name())
		}
	}
	es := historyOf(t, "--audit-log", f.log)
	var got []string
	for _, e := range es {
		got = append(got, e.Action+":"+e.Outcome)
	}
	if strings.Join(got, " ") != "delete-offsets:applied delete-group:applied backfill:applied" || *es[0].Changed != 1 || *es[1].Changed != 2 || *es[2].Produced != 30 {
		t.Fatalf("history: %v %+v", got, es)
	}
}

// TestAuditOutcomeLostEndTxn: the EndTxn answer is lost (held past the
// run's --timeout). When the broker then commits, the resolution reads
// the commit back: applied, exit 0. When it never arrives: failed, the
// console and the entry say the same words, and undo refuses (nothing to
// undo). When the resolution gets no answer either: unknown; --verify
// reads which it is, and undo restores the offsets before.
func TestAuditOutcomeLostEndTxn(t *testing.T) {
	for _, tc := range []struct {
		name     string
		arrives  bool
		noSettle bool
		code     int
		outcome  string
		words    string
		at       map[int32]int64
	}{
		{name: "committed", arrives: true, code: 0, outcome: audit.Applied, words: "the commit's answer was lost; read back: the transaction was committed", at: walNew},
		{name: "aborted", code: 1, outcome: audit.Failed, words: "read back: the transaction was aborted, the group is entirely at its old offsets, nothing changed", at: walOld},
		{name: "unsettled", arrives: true, noSettle: true, code: 1, outcome: audit.Unknown, words: "offsetctl could not tell whether the transaction was committed", at: walNew},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newWAL(t)
			var held atomic.Bool
			f.c.Fake.ControlKey(int16(kmsg.EndTxn), func(req kmsg.Request) (kmsg.Response, error, bool) {
				if !req.(*kmsg.EndTxnRequest).Commit || !held.CompareAndSwap(false, true) {
					f.c.Fake.KeepControl()
					return nil, nil, false
				}
				f.c.Fake.SleepControl(func() { time.Sleep(2500 * time.Millisecond) })
				if !tc.arrives {
					return nil, errors.New("dropped"), true
				}
				return nil, nil, false
			})
			var inits atomic.Int32
			if tc.noSettle {
				// The check, the execution, then the resolution's
				// takeover: that one gets no answer within the window.
				f.c.Fake.ControlKey(int16(kmsg.InitProducerID), func(kmsg.Request) (kmsg.Response, error, bool) {
					if inits.Add(1) != 3 {
						f.c.Fake.KeepControl()
						return nil, nil, false
					}
					f.c.Fake.SleepControl(func() { time.Sleep(2500 * time.Millisecond) })
					return nil, errors.New("dropped"), true
				})
			}
			r := f.reset(t, tc.code, "latest", "--timeout", "2s")
			f.wantAt(t, tc.at)
			es := f.history(t)
			if len(es) != 1 || es[0].Outcome != tc.outcome || !strings.Contains(r.stderr, "(outcome: "+tc.outcome+")") {
				t.Fatalf("history %+v\nstderr:\n%s", es, r.stderr)
			}
			e := es[0]
			if !strings.Contains(r.stderr, tc.words) || tc.code != 0 && !strings.Contains(e.Error, tc.words) {
				t.Fatalf("console and entry do not say %q:\nstderr:\n%s\nentry error: %s", tc.words, r.stderr, e.Error)
			}
			// The check it prints reads the cluster that was changed.
			if check := "run `" + printedBy(f.c, "--audit-log", f.log) + " lag " + f.group + "` to see which"; tc.noSettle && !strings.Contains(r.stderr, check) {
				t.Fatalf("no %q in:\n%s", check, r.stderr)
			}
			if tc.outcome == audit.Failed {
				if strings.Contains(r.stderr, "undo:") {
					t.Fatalf("a failed reset prints an undo line:\n%s", r.stderr)
				}
				u := mustRun(t, f.c, 2, "--audit-log", f.log, "undo", e.ID, "--execute")
				if !strings.Contains(u.stderr, "was failed: it changed nothing") {
					t.Fatalf("undo of a failed entry:\n%s", u.stderr)
				}
				return
			}
			if tc.outcome == audit.Unknown {
				if !strings.Contains(r.stderr, "is unknown: check with: "+printedBy(f.c, "--audit-log", f.log)+" history --verify "+e.ID) {
					t.Fatalf("no hint:\n%s", r.stderr)
				}
				v := mustRun(t, f.c, 0, "--audit-log", f.log, "history", "--verify", e.ID)
				if !strings.Contains(v.stderr, "(recorded outcome: unknown): every partition (3) holds its planned offset") {
					t.Fatalf("--verify:\n%s", v.stderr)
				}
				// Applied as --verify says, and history does not say 0:
				// how much of it was applied is not on the record.
				h := mustRun(t, nil, 0, "--audit-log", f.log, "history")
				j := mustRun(t, nil, 0, "--audit-log", f.log, "history", "-o", "json")
				c := mustRun(t, nil, 0, "--audit-log", f.log, "history", "-o", "csv")
				if !regexp.MustCompile(` unknown +\?/3 `).MatchString(h.stdout) || !strings.Contains(j.stdout, `"applied": null`) ||
					!strings.Contains(j.stdout, `"written": 3`) || strings.Contains(j.stdout, `"changed"`) || !strings.Contains(c.stdout, ",unknown,1,3,,,") {
					t.Fatalf("history of an unknown change:\n%s\n%s\n%s", h.stdout, j.stdout, c.stdout)
				}
			}
			mustRun(t, f.c, 0, "--audit-log", f.log, "undo", e.ID, "--execute", "--backup", filepath.Join(t.TempDir(), "u.csv"))
			f.wantAt(t, walOld)
		})
	}
}

// TestAuditUnknownOutcomeNotWritten: the EndTxn answer is lost and
// nothing settles it (outcome unknown), and the log refuses the outcome
// too (its FIFO reader left after the intent). The line saying so does
// not count 0 partitions changed: which changed is not known.
func TestAuditUnknownOutcomeNotWritten(t *testing.T) {
	f := newWAL(t)
	fifo := filepath.Join(t.TempDir(), "audit.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFO:", err)
	}
	rd, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.c.Fake.ControlKey(int16(kmsg.TxnOffsetCommit), func(kmsg.Request) (kmsg.Response, error, bool) {
		_, _ = rd.Read(make([]byte, 1<<20)) // the intent is in the pipe; the reader leaves
		rd.Close()
		return nil, nil, false
	})
	var held atomic.Bool
	f.c.Fake.ControlKey(int16(kmsg.EndTxn), func(req kmsg.Request) (kmsg.Response, error, bool) {
		if !req.(*kmsg.EndTxnRequest).Commit || !held.CompareAndSwap(false, true) {
			f.c.Fake.KeepControl()
			return nil, nil, false
		}
		f.c.Fake.SleepControl(func() { time.Sleep(2500 * time.Millisecond) })
		return nil, nil, false
	})
	var inits atomic.Int32
	f.c.Fake.ControlKey(int16(kmsg.InitProducerID), func(kmsg.Request) (kmsg.Response, error, bool) {
		if inits.Add(1) != 3 {
			f.c.Fake.KeepControl()
			return nil, nil, false
		}
		f.c.Fake.SleepControl(func() { time.Sleep(2500 * time.Millisecond) })
		return nil, errors.New("dropped"), true
	})
	f.log = fifo
	r := f.reset(t, 1, "latest", "--timeout", "2s")
	if last := lastLine(r.stderr); !strings.Contains(last, "outcome unknown (which partitions changed is not known), but the outcome of audit entry ") ||
		!strings.Contains(last, "check with: offsetctl ") || !strings.Contains(last, " history --verify ") || strings.Count(r.stderr, "is NOT recorded") != 1 {
		t.Fatalf("stderr:\n%s", r.stderr)
	}
}

// TestAuditOutcomeReadBackFails: EndTxn is answered, then the read-back's
// OffsetFetch gets no answer. The run fails (exit 1) but the entry and the
// console say applied, with an undo line; undo restores the offsets.
func TestAuditOutcomeReadBackFails(t *testing.T) {
	f := newWAL(t)
	var fetches atomic.Int32
	f.c.Fake.ControlKey(int16(kmsg.OffsetFetch), func(req kmsg.Request) (kmsg.Response, error, bool) {
		// The first require_stable fetch is the re-read before staging;
		// the second is the read-back.
		if !req.(*kmsg.OffsetFetchRequest).RequireStable || fetches.Add(1) != 2 {
			f.c.Fake.KeepControl()
			return nil, nil, false
		}
		f.c.Fake.SleepControl(func() { time.Sleep(2500 * time.Millisecond) })
		return nil, errors.New("dropped"), true
	})
	r := f.reset(t, 1, "latest", "--timeout", "2s")
	f.wantAt(t, walNew)
	es := f.history(t)
	if len(es) != 1 || es[0].Outcome != audit.Applied || *es[0].Changed != 3 || !strings.Contains(r.stderr, "(outcome: applied)") ||
		!strings.Contains(r.stderr, "the transaction was committed (the coordinator acknowledged the commit)") || !strings.Contains(r.stderr, "undo: "+printedBy(f.c, "--audit-log", f.log)+" reset") {
		t.Fatalf("history %+v\nstderr:\n%s", es, r.stderr)
	}
	mustRun(t, f.c, 0, "--audit-log", f.log, "undo", es[0].ID, "--execute", "--backup", filepath.Join(t.TempDir(), "u.csv"))
	f.wantAt(t, walOld)
}

// TestAuditAbortUnanswered: a consumer joins after the plan, so the run
// aborts before EndTxn, and the abort gets no answer: the run says so
// (not "the transaction was aborted") and that nothing changed; failed.
func TestAuditAbortUnanswered(t *testing.T) {
	f := newWAL(t)
	var staged atomic.Bool
	f.c.Fake.ControlKey(int16(kmsg.TxnOffsetCommit), func(kmsg.Request) (kmsg.Response, error, bool) {
		staged.Store(true)
		f.c.Fake.KeepControl()
		return nil, nil, false
	})
	f.c.Fake.ControlKey(int16(kmsg.DescribeGroups), func(kmsg.Request) (kmsg.Response, error, bool) {
		f.c.Fake.KeepControl()
		if staged.Load() {
			// The describe right before EndTxn fails.
			return nil, errors.New("dropped"), true
		}
		return nil, nil, false
	})
	f.c.Fake.ControlKey(int16(kmsg.EndTxn), func(req kmsg.Request) (kmsg.Response, error, bool) {
		if req.(*kmsg.EndTxnRequest).Commit {
			f.c.Fake.KeepControl()
			return nil, nil, false
		}
		f.c.Fake.SleepControl(func() { time.Sleep(2500 * time.Millisecond) })
		return nil, errors.New("dropped"), true
	})
	r := f.reset(t, 1, "latest", "--timeout", "2s")
	f.wantAt(t, walOld)
	if strings.Contains(r.stderr, "the transaction was aborted") || !strings.Contains(r.stderr, "the abort got no answer") || !strings.Contains(r.stderr, "nothing changed for this group") {
		t.Fatalf("stderr:\n%s", r.stderr)
	}
	if es := f.history(t); len(es) != 1 || es[0].Outcome != audit.Failed || !strings.Contains(es[0].Error, "the abort got no answer") {
		t.Fatalf("history: %+v", es)
	}
}

// TestAuditDeleteOffsetsUnanswered: the OffsetDelete reaches the broker,
// which applies it, and its answer is lost. The run does not say
// "nothing was deleted": the entry and the console say unknown, and undo
// restores the offsets.
func TestAuditDeleteOffsetsUnanswered(t *testing.T) {
	f := newWAL(t)
	f.answerLate(kmsg.OffsetDelete)
	dir := t.TempDir()
	r := mustRun(t, f.c, 1, "--audit-log", f.log, "delete-offsets", f.group, "--topic", f.topic, "--execute", "--backup", filepath.Join(dir, "d.csv"), "--timeout", "2s")
	if strings.Contains(r.stderr, "nothing was deleted") || !strings.Contains(r.stderr, "whether 3 offset(s) were deleted is unknown") || !strings.Contains(r.stderr, "(outcome: unknown)") {
		t.Fatalf("stderr:\n%s", r.stderr)
	}
	time.Sleep(time.Second) // the held delete is applied by now
	f.wantAt(t, nil)
	es := f.history(t)
	// Written (sent) 3; how many were applied is not known: null, not 0.
	if len(es) != 1 || es[0].Outcome != audit.Unknown || *es[0].Written != 3 || es[0].Changed != nil || es[0].Applied != nil {
		t.Fatalf("history: %+v", es)
	}
	v := mustRun(t, f.c, 0, "--audit-log", f.log, "history", "--verify", es[0].ID)
	if !strings.Contains(v.stderr, "the change is applied") {
		t.Fatalf("--verify:\n%s", v.stderr)
	}
	mustRun(t, f.c, 0, "--audit-log", f.log, "undo", es[0].ID, "--execute", "--backup", filepath.Join(dir, "u.csv"))
	f.wantAt(t, walOld)
	// Undone completely, the unknown change is settled: history no
	// longer asks for it to be verified.
	if h := mustRun(t, nil, 0, "--audit-log", f.log, "history"); !strings.Contains(h.stdout, " unknown ") || strings.Contains(h.stderr, "with outcome unknown") {
		t.Fatalf("history after the undo of the unknown change:\n%s\n%s", h.stdout, h.stderr)
	}
}

// A DeleteGroups applied but unanswered (the answer comes after the run's
// deadline) is unknown, never "nothing was deleted": the entry says so,
// --verify finds the group gone, and undo restores it exactly.
func TestAuditDeleteGroupUnanswered(t *testing.T) {
	f := newWAL(t)
	f.answerLate(kmsg.DeleteGroups)
	dir := t.TempDir()
	r := mustRun(t, f.c, 1, "--audit-log", f.log, "delete-group", f.group, "--execute", "--backup", filepath.Join(dir, "d.csv"), "--timeout", "2s")
	if strings.Contains(r.stderr, "nothing was deleted") || !strings.Contains(r.stderr, "whether the group was deleted is unknown") || !strings.Contains(r.stderr, "(outcome: unknown)") {
		t.Fatalf("stderr:\n%s", r.stderr)
	}
	time.Sleep(time.Second) // the held delete is applied by now
	f.wantAt(t, nil)
	es := f.history(t)
	if len(es) != 1 || es[0].Outcome != audit.Unknown || *es[0].Written != 3 {
		t.Fatalf("history: %+v", es)
	}
	v := mustRun(t, f.c, 0, "--audit-log", f.log, "history", "--verify", es[0].ID)
	if !strings.Contains(v.stderr, "the change is applied") {
		t.Fatalf("--verify:\n%s", v.stderr)
	}
	mustRun(t, f.c, 0, "--audit-log", f.log, "undo", es[0].ID, "--execute", "--backup", filepath.Join(dir, "u.csv"))
	f.wantAt(t, walOld)
	// Undone completely, the unknown change is settled: history no
	// longer asks for it to be verified.
	if h := mustRun(t, nil, 0, "--audit-log", f.log, "history"); !strings.Contains(h.stdout, " unknown ") || strings.Contains(h.stderr, "with outcome unknown") {
		t.Fatalf("history after the undo of the unknown change:\n%s\n%s", h.stdout, h.stderr)
	}
}

// answerLate applies the first request of key the run sends and answers
// it only after the run's 2 s deadline: applied, its answer lost.
func (f walFixture) answerLate(key kmsg.Key) {
	var held atomic.Bool
	f.c.Fake.ControlKey(int16(key), func(req kmsg.Request) (kmsg.Response, error, bool) {
		if !held.CompareAndSwap(false, true) {
			f.c.Fake.KeepControl()
			return nil, nil, false
		}
		f.c.Fake.SleepControl(func() { time.Sleep(2500 * time.Millisecond) })
		return nil, nil, false
	})
}

// With --audit-topic, the outcome is appended to the local log, then
// produced to the shared trail. When only the produce failed, the error
// said the outcome "is NOT recorded ... its intent is, and reads as
// unknown" while the local log held it: the error named the wrong trail.
// It says the local log has it and the shared trail does not (exit 1).
func TestAuditOutcomeNotInSharedTrail(t *testing.T) {
	f := newWAL(t)
	trail := f.c.Topic(1, nil)
	var produces atomic.Int32
	f.c.Fake.ControlKey(int16(kmsg.Produce), func(req kmsg.Request) (kmsg.Response, error, bool) {
		if produces.Add(1) == 1 {
			return nil, nil, false // the intent goes through
		}
		resp := req.ResponseKind().(*kmsg.ProduceResponse)
		for _, rt := range req.(*kmsg.ProduceRequest).Topics {
			st := kmsg.NewProduceResponseTopic()
			st.Topic, st.TopicID = rt.Topic, rt.TopicID
			for _, rp := range rt.Partitions {
				sp := kmsg.NewProduceResponseTopicPartition()
				sp.Partition = rp.Partition
				sp.ErrorCode = kerr.TopicAuthorizationFailed.Code
				st.Partitions = append(st.Partitions, sp)
			}
			resp.Topics = append(resp.Topics, st)
		}
		return resp, nil, true
	})
	r := f.reset(t, 1, "latest", "--audit-topic", trail)
	f.wantAt(t, walNew)
	last := lastLine(r.stderr)
	if !strings.Contains(last, "is recorded in "+f.log+" but NOT in the shared trail") || !strings.Contains(last, "readers of audit topic "+trail+" see its intent only") {
		t.Fatalf("stderr:\n%s", r.stderr)
	}
	h := f.history(t)
	if len(h) != 1 || h[0].Outcome != audit.Applied {
		t.Fatalf("local history: %+v", h)
	}
}

// An outcome line whose intent was cut from the log (a hand edit, damage)
// was shown by history as an ordinary applied change, with nothing said:
// a trail with a gap hid it. history still shows it, and warns once that
// its intent is missing.
func TestAuditOrphanOutcomeWarned(t *testing.T) {
	f := newWAL(t)
	f.reset(t, 0, "latest")
	raw := f.raw(t)
	if len(raw) != 2 || raw[0].Kind != audit.KindIntent || raw[1].Kind != audit.KindOutcome {
		t.Fatalf("log: %+v", raw)
	}
	data, err := os.ReadFile(f.log)
	if err != nil {
		t.Fatal(err)
	}
	_, rest, _ := strings.Cut(string(data), "\n") // the intent line gone
	if err := os.WriteFile(f.log, []byte(rest), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"table", "json", "csv"} {
		r := mustRun(t, f.c, 0, "--audit-log", f.log, "history", "-o", format)
		want := "offsetctl: warning: outcome " + raw[1].ID + " names intent " + raw[0].ID + ", which is not in the log: the log was cut or edited"
		if !strings.HasPrefix(r.stderr, want) || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stdout, raw[1].ID) {
			t.Errorf("history -o %s:\nstdout:\n%s\nstderr:\n%s", format, r.stdout, r.stderr)
		}
	}
	// A whole log: not a word.
	f2 := newWAL(t)
	f2.reset(t, 0, "latest")
	if r := mustRun(t, f2.c, 0, "--audit-log", f2.log, "history"); r.stderr != "" {
		t.Errorf("history of a whole log warned: %s", r.stderr)
	}
}
