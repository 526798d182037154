package cli

// A change whose outcome is unknown (an intent alone: the run was killed,
// or could not write its outcome), then a later change of the same
// partitions: the offsets now are the later change's doing, so history
// --verify and undo decide the earlier one from the later change's intent
// (the offsets it found), never from today's offsets (QA items 2a, 2b).

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/offsetctl/offsetctl/internal/audit"
	"github.com/offsetctl/offsetctl/internal/testkit"
)

// laterFixture is a group on a 3-partition topic of 30 records each, with
// one audit log.
type laterFixture struct {
	c            *testkit.Cluster
	topic, group string
	log, dir     string
	runs         int
	// refuse makes the broker refuse every TxnOffsetCommit: a reset then
	// changes nothing (its transaction aborted). The answer names no
	// topic (v6 carries ids only, and it echoes none), so the engine
	// finds none of its partitions answered and aborts at once
	// (TestResetTxnUnstagedFails); it used to commit the empty
	// transaction and wait 10 s for the read-back.
	refuse *atomic.Bool
}

func newLater(t *testing.T, at map[int32]int64) *laterFixture {
	t.Helper()
	c := kfakeCluster(t)
	f := &laterFixture{c: c, topic: c.Topic(3, nil), group: testkit.Name(t, "g"), dir: t.TempDir(), refuse: &atomic.Bool{}}
	f.log = filepath.Join(f.dir, "audit.jsonl")
	c.Produce(f.topic, map[int32]int{0: 30, 1: 30, 2: 30}, time.Time{})
	c.Commit(f.group, f.topic, at)
	c.Fake.ControlKey(int16(kmsg.TxnOffsetCommit), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.Fake.KeepControl()
		if !f.refuse.Load() {
			return nil, nil, false
		}
		r := req.(*kmsg.TxnOffsetCommitRequest)
		resp := r.ResponseKind().(*kmsg.TxnOffsetCommitResponse)
		for _, rt := range r.Topics {
			st := kmsg.NewTxnOffsetCommitResponseTopic()
			st.Topic = rt.Topic
			for _, rp := range rt.Partitions {
				sp := kmsg.NewTxnOffsetCommitResponseTopicPartition()
				sp.Partition, sp.ErrorCode = rp.Partition, kerr.GroupAuthorizationFailed.Code
				st.Partitions = append(st.Partitions, sp)
			}
			resp.Topics = append(resp.Topics, st)
		}
		return resp, nil, true
	})
	return f
}

// run runs offsetctl with the fixture's log.
func (f *laterFixture) run(t *testing.T, want int, args ...string) result {
	t.Helper()
	return mustRun(t, f.c, want, append([]string{"--audit-log", f.log}, args...)...)
}

// reset runs reset --execute of the group to target (scope: --topic
// scope), and returns its entry's id.
func (f *laterFixture) reset(t *testing.T, want int, scope, target string) string {
	t.Helper()
	f.runs++
	return recordedID(t, f.run(t, want, "reset", f.group, "--topic", scope, "--to", target, "--execute", "--backup", filepath.Join(f.dir, "r"+string(rune('a'+f.runs))+".csv")))
}

// unknown leaves the intent of entry id alone in the log: its outcome
// line is taken out, as a run killed after its intent (kill -9), or one
// whose outcome could not be appended (a full disk), leaves the log.
func (f *laterFixture) unknown(t *testing.T, id string) {
	t.Helper()
	data, err := os.ReadFile(f.log)
	if err != nil {
		t.Fatal(err)
	}
	var kept []byte
	dropped := 0
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		var e audit.Entry
		if json.Unmarshal(line, &e) == nil && e.Kind == audit.KindOutcome && e.Intent == id {
			dropped++
			continue
		}
		kept = append(kept, line...)
	}
	if dropped != 1 {
		t.Fatalf("%d outcome line(s) of %s in the log", dropped, id)
	}
	if err := os.WriteFile(f.log, kept, 0o600); err != nil {
		t.Fatal(err)
	}
	if es := historyOf(t, "--audit-log", f.log); es[len(es)-1].ID != id || es[len(es)-1].Outcome != audit.Unknown {
		t.Fatalf("history: %+v", es)
	}
}

// verify runs history --verify id -o json and decodes it.
func (f *laterFixture) verify(t *testing.T, id string) (audit.Verification, string) {
	t.Helper()
	r := f.run(t, 0, "history", "--verify", id, "-o", "json")
	var v audit.Verification
	decodeJSON(t, r, &v)
	return v, r.stderr
}

func (f *laterFixture) wantAt(t *testing.T, want map[int32]int64) {
	t.Helper()
	wantCommitted(t, f.c, f.group, f.topic, want)
}

// wantLater checks which later change each row of v names (""
// none) and what it found.
func wantLater(t *testing.T, v audit.Verification, later []string, matches string) {
	t.Helper()
	for i, r := range v.Rows {
		switch {
		case later[i] == "" && r.Later != nil:
			t.Errorf("partition %d names a later change: %+v", r.Partition, *r.Later)
		case later[i] != "" && (r.Later == nil || r.Later.ID != later[i] || r.Later.Matches != matches):
			t.Errorf("partition %d: later %+v, want %s finding %s", r.Partition, r.Later, later[i], matches)
		}
	}
}

// TestVerifyUnknownThenSameReset (QA 2a): a reset to 17 that never
// reached the cluster (its transaction refused), its outcome lost; then a
// reset to 17 that did. The offsets now are the planned ones, and they say
// nothing of the first: --verify says what the later reset found (the
// offsets from before), and undo refuses (exit 2, nothing changed, naming
// the later reset) rather than silently reverting it; --force restores
// the backup anyway, and the undo's entry names the change it overrode.
func TestVerifyUnknownThenSameReset(t *testing.T) {
	f := newLater(t, map[int32]int64{0: 4, 1: 4, 2: 4})
	f.refuse.Store(true)
	u := f.reset(t, 1, f.topic, "17")
	f.refuse.Store(false)
	f.wantAt(t, map[int32]int64{0: 4, 1: 4, 2: 4})
	f.unknown(t, u)
	if _, stderr := f.verify(t, u); !strings.Contains(stderr, "every partition (3) holds its offset before the change: it is not applied") {
		t.Fatalf("--verify before any later change:\n%s", stderr)
	}

	c := f.reset(t, 0, f.topic, "17")
	f.wantAt(t, map[int32]int64{0: 17, 1: 17, 2: 17})
	v, stderr := f.verify(t, u)
	wantLater(t, v, []string{c, c, c}, audit.MatchBefore)
	if strings.Contains(stderr, "the change is applied") || !strings.Contains(stderr, "3 partitions (group "+f.group+" topic "+f.topic+" partition 0, 1, 2): cannot tell from today's offsets: "+c+" (reset at ") ||
		!strings.Contains(stderr, "the later change "+c+" at ") || !strings.Contains(stderr, "found the offsets from before "+u+": not applied before "+c) {
		t.Fatalf("--verify after the later reset:\n%s", stderr)
	}
	// The table names the later change and what it found.
	table := f.run(t, 0, "history", "--verify", u).stdout
	if !strings.Contains(table, "LATER") || strings.Count(table, c) != 3 {
		t.Fatalf("--verify table:\n%s", table)
	}
	// The log read from standard input (read once) says the same.
	data, err := os.ReadFile(f.log)
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	a := &app{stdout: &out, stderr: &errb, stdin: bytes.NewReader(data), getenv: testEnv(t, nil), now: time.Now}
	if code := a.execute(context.Background(), []string{"--brokers", f.c.BrokerList(), "--audit-log", "-", "history", "--verify", u}); code != 0 ||
		!strings.Contains(errb.String(), "not applied before "+c) {
		t.Fatalf("--verify from standard input: exit %d\n%s", code, errb.String())
	}

	for _, args := range [][]string{{"undo", u}, {"undo", u, "--execute", "--backup", filepath.Join(f.dir, "refused.csv")}} {
		r := badInput(t, f.c, "entry "+u+" (outcome unknown): 3 of its 3 partition(s) were changed later, by "+c+" (reset at ", append([]string{"--audit-log", f.log}, args...)...)
		// The command to paste reaches the same cluster and log.
		if !strings.Contains(r.stderr, "undo it first (offsetctl --brokers "+f.c.BrokerList()+" --audit-log "+f.log+" undo "+c+"), or add --force") {
			t.Fatalf("%v:\n%s", args, r.stderr)
		}
		f.wantAt(t, map[int32]int64{0: 17, 1: 17, 2: 17})
	}
	if es := historyOf(t, "--audit-log", f.log); len(es) != 2 {
		t.Fatalf("a refused undo is bad input, not recorded: %+v", es)
	}

	r := f.run(t, 0, "undo", u, "--execute", "--force", "--backup", filepath.Join(f.dir, "u.csv"))
	if !strings.Contains(r.stderr, "--force: restoring the backup over that change") {
		t.Fatalf("undo --force:\n%s", r.stderr)
	}
	f.wantAt(t, map[int32]int64{0: 4, 1: 4, 2: 4})
	es := historyOf(t, "--audit-log", f.log)
	if last := es[len(es)-1]; len(es) != 3 || last.Action != audit.ActUndo || last.UndoOf != u || last.Outcome != audit.Applied || strings.Join(last.ForcedOver, " ") != c {
		t.Fatalf("history after undo --force: %+v", es)
	}
}

// TestVerifyUnknownApplied (QA 2b): a reset to 3 that was applied but
// whose outcome was never recorded, then a reset back to 20, the offsets
// from before it. Today's offsets look "not applied"; the later reset
// found the planned offsets, so --verify says applied before it, and undo
// refuses (exit 2) instead of saying the change never reached the
// cluster.
func TestVerifyUnknownApplied(t *testing.T) {
	f := newLater(t, map[int32]int64{0: 20, 1: 20, 2: 20})
	u := f.reset(t, 0, f.topic, "3")
	f.unknown(t, u)
	c := f.reset(t, 0, f.topic, "20")
	f.wantAt(t, map[int32]int64{0: 20, 1: 20, 2: 20})

	v, stderr := f.verify(t, u)
	wantLater(t, v, []string{c, c, c}, audit.MatchPlanned)
	if strings.Contains(stderr, "it is not applied") || !strings.Contains(stderr, "found the planned offsets: applied before "+c) {
		t.Fatalf("--verify:\n%s", stderr)
	}
	r := badInput(t, f.c, "3 of its 3 partition(s) were changed later, by "+c, "--audit-log", f.log, "undo", u, "--execute", "--backup", filepath.Join(f.dir, "refused.csv"))
	if strings.Contains(r.stderr, "nothing to undo") {
		t.Fatalf("undo:\n%s", r.stderr)
	}
	f.wantAt(t, map[int32]int64{0: 20, 1: 20, 2: 20})
}

// TestVerifyUnknownPartlyOverlapped: the later change (itself of unknown
// outcome) touched one partition of three. That one is decided by what
// the later change found; the two it did not touch by the offsets now, as
// before; undo refuses the whole restore, naming it.
func TestVerifyUnknownPartlyOverlapped(t *testing.T) {
	f := newLater(t, map[int32]int64{0: 4, 1: 4, 2: 4})
	f.refuse.Store(true)
	u := f.reset(t, 1, f.topic, "17")
	f.refuse.Store(false)
	f.unknown(t, u)
	c := f.reset(t, 0, f.topic+":0", "17")
	f.unknown(t, c)
	f.wantAt(t, map[int32]int64{0: 17, 1: 4, 2: 4})

	v, stderr := f.verify(t, u)
	wantLater(t, v, []string{c, "", ""}, audit.MatchBefore)
	if !strings.Contains(stderr, "a later change touched 1 of its 3 partitions") ||
		!strings.Contains(stderr, "1 partition (group "+f.group+" topic "+f.topic+" partition 0): cannot tell from today's offsets: "+c+" (reset at ") ||
		!strings.Contains(stderr, ", outcome unknown) changed them later; the later change "+c) || !strings.Contains(stderr, "not applied before "+c) ||
		!strings.Contains(stderr, "2 partitions (group "+f.group+" topic "+f.topic+" partition 1, 2), which no later change touched: they hold their offsets from before the change now: not applied") ||
		strings.Contains(stderr, "planned offset: the change is applied") {
		t.Fatalf("--verify:\n%s", stderr)
	}
	badInput(t, f.c, "1 of its 3 partition(s) were changed later, by "+c, "--audit-log", f.log, "undo", u, "--execute", "--backup", filepath.Join(f.dir, "refused.csv"))
	f.wantAt(t, map[int32]int64{0: 17, 1: 4, 2: 4})
	f.run(t, 0, "undo", u, "--execute", "--force", "--backup", filepath.Join(f.dir, "u.csv"))
	f.wantAt(t, map[int32]int64{0: 4, 1: 4, 2: 4})
}

// TestVerifyUnknownDeleteThenReset: the class holds for delete-offsets: a
// delete whose outcome was lost, then a reset that found no commit (the
// delete's planned state) says the delete was applied before it.
func TestVerifyUnknownDeleteThenReset(t *testing.T) {
	f := newLater(t, map[int32]int64{0: 4, 1: 4, 2: 4})
	f.runs++
	u := recordedID(t, f.run(t, 0, "delete-offsets", f.group, "--topic", f.topic, "--execute", "--backup", filepath.Join(f.dir, "d.csv")))
	f.unknown(t, u)
	c := f.reset(t, 0, f.topic, "4")
	v, stderr := f.verify(t, u)
	wantLater(t, v, []string{c, c, c}, audit.MatchPlanned)
	if !strings.Contains(stderr, "found the planned offsets: applied before "+c) || strings.Contains(stderr, "it is not applied") {
		t.Fatalf("--verify:\n%s", stderr)
	}
	badInput(t, f.c, "were changed later, by "+c, "--audit-log", f.log, "undo", u)
}

// TestVerifyUnknownOtherClusterChange: a change recorded later on another
// cluster (the same group and topic names, its own cluster id) touched
// none of this cluster's partitions: --verify still reads the offsets now
// and undo is not refused for it. One that records no cluster id may be
// of either cluster: it counts, and what it found is no evidence.
func TestVerifyUnknownOtherClusterChange(t *testing.T) {
	f := newLater(t, map[int32]int64{0: 4, 1: 4, 2: 4})
	f.refuse.Store(true)
	u := f.reset(t, 1, f.topic, "17")
	f.refuse.Store(false)
	f.unknown(t, u)
	elsewhere := func(cluster string) string {
		t.Helper()
		e := audit.Entry{V: audit.Version, ID: audit.NewID(time.Now()), Time: time.Now().UTC(), Action: audit.ActReset, ClusterID: cluster,
			Groups: []string{f.group}, Topics: []string{f.topic}, Partitions: 3, Applied: audit.Count(3), Outcome: audit.Applied}
		for p := int32(0); p < 3; p++ {
			before, after := int64(4), int64(17)
			e.Changes = append(e.Changes, audit.Change{Group: f.group, Topic: f.topic, Partition: p, Before: &before, After: &after})
		}
		line, err := audit.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		fh, err := os.OpenFile(f.log, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer fh.Close()
		if _, err := fh.Write(line); err != nil {
			t.Fatal(err)
		}
		return e.ID
	}
	elsewhere("another-cluster")
	v, stderr := f.verify(t, u)
	wantLater(t, v, []string{"", "", ""}, "")
	if !strings.Contains(stderr, "every partition (3) holds its offset before the change: it is not applied") {
		t.Fatalf("--verify:\n%s", stderr)
	}
	if r := f.run(t, 0, "undo", u); !strings.Contains(r.stderr, "nothing to undo") {
		t.Fatalf("undo:\n%s", r.stderr)
	}

	c := elsewhere("")
	v, stderr = f.verify(t, u)
	for _, r := range v.Rows {
		if r.Later == nil || r.Later.ID != c || !r.Later.ClusterUnknown {
			t.Fatalf("partition %d: later %+v, want %s of no cluster id", r.Partition, r.Later, c)
		}
	}
	if !strings.Contains(stderr, c+" or "+u+" records no cluster id, so "+c+" may be another cluster's change: what it found is no evidence: cannot tell") || strings.Contains(stderr, "applied before") {
		t.Fatalf("--verify:\n%s", stderr)
	}
	badInput(t, f.c, "were changed later, by "+c, "--audit-log", f.log, "undo", u)
	f.wantAt(t, map[int32]int64{0: 4, 1: 4, 2: 4})
}

// appendReset appends to the log a reset of every partition of the group
// from one offset to another, recorded on cluster ("" records none) with
// outcome and, per partition, errs (a partition not changed), that never
// reached this cluster, and returns its id.
func (f *laterFixture) appendReset(t *testing.T, cluster, outcome string, errs map[int32]string, from, to int64) string {
	t.Helper()
	e := audit.Entry{V: audit.Version, ID: audit.NewID(time.Now()), Time: time.Now().UTC(), Action: audit.ActReset, ClusterID: cluster,
		Groups: []string{f.group}, Topics: []string{f.topic}, Partitions: 3, Outcome: outcome}
	for p := int32(0); p < 3; p++ {
		before, after := from, to
		e.Changes = append(e.Changes, audit.Change{Group: f.group, Topic: f.topic, Partition: p, Before: &before, After: &after, Error: errs[p]})
	}
	line, err := audit.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	fh, err := os.OpenFile(f.log, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	if _, err := fh.Write(line); err != nil {
		t.Fatal(err)
	}
	return e.ID
}

// clusterID is the cluster id entry id records.
func (f *laterFixture) clusterID(t *testing.T, id string) string {
	t.Helper()
	for _, e := range historyOf(t, "--audit-log", f.log) {
		if e.ID == id {
			if e.ClusterID == "" {
				t.Fatalf("entry %s records no cluster id", id)
			}
			return e.ClusterID
		}
	}
	t.Fatalf("no entry %s", id)
	return ""
}

// TestUndoKnownOverLater: a reset from 4 to 17 whose outcome is on the
// record (applied), then a later change of the same cluster that changed,
// or may have changed, its partitions. The offsets now are the later
// change's doing (in the first case the very offsets the reset left, so
// undo used to restore 4 without a word, silently undoing the later
// reset). undo of the reset refuses, dry run or --execute (exit 2, one
// line naming the later change and what to undo first, nothing changed,
// nothing recorded); --force restores the backup, and its entry names
// the later changes (forced_over).
func TestUndoKnownOverLater(t *testing.T) {
	for _, tc := range []struct {
		name string
		// later makes the later changes after the reset e and returns
		// the ids undo must name, and the one it says to undo first
		// ("": none, e was undone already).
		later func(t *testing.T, f *laterFixture, e string) (named []string, first string)
		words string // also in the refusal
	}{
		{"the same reset again after the group moved back by other means", func(t *testing.T, f *laterFixture, _ string) ([]string, string) {
			f.c.Commit(f.group, f.topic, map[int32]int64{0: 4, 1: 4, 2: 4})
			c := f.reset(t, 0, f.topic, "17")
			f.wantAt(t, map[int32]int64{0: 17, 1: 17, 2: 17})
			return []string{c}, c
		}, ": 3 of its 3 partition(s) were changed later, by "},
		{"a reset of one of its partitions", func(t *testing.T, f *laterFixture, _ string) ([]string, string) {
			c := f.reset(t, 0, f.topic+":1", "9")
			return []string{c}, c
		}, ": 1 of its 3 partition(s) were changed later, by "},
		{"a later change whose outcome is unknown", func(t *testing.T, f *laterFixture, _ string) ([]string, string) {
			c := f.reset(t, 0, f.topic, "9")
			f.unknown(t, c)
			return []string{c}, c
		}, ", outcome unknown)"},
		{"a later change that records no cluster id", func(t *testing.T, f *laterFixture, _ string) ([]string, string) {
			c := f.appendReset(t, "", audit.Applied, nil, 17, 9)
			return []string{c}, c
		}, "restoring its backup would undo that change too"},
		{"a later change recorded as partly, one of its partitions changed", func(t *testing.T, f *laterFixture, e string) ([]string, string) {
			c := f.appendReset(t, f.clusterID(t, e), audit.Partly, map[int32]string{1: "commit: refused", 2: "commit: refused"}, 17, 9)
			return []string{c}, c
		}, ": 1 of its 3 partition(s) were changed later, by "},
		{"its own undo, then the same reset again", func(t *testing.T, f *laterFixture, e string) ([]string, string) {
			u := recordedID(t, f.run(t, 0, "undo", e, "--execute", "--backup", filepath.Join(f.dir, "u1.csv")))
			c := f.reset(t, 0, f.topic, "17")
			return []string{u, c}, c
		}, "restoring its backup would undo "},
		{"its own undo only (undo twice)", func(t *testing.T, f *laterFixture, e string) ([]string, string) {
			u := recordedID(t, f.run(t, 0, "undo", e, "--execute", "--backup", filepath.Join(f.dir, "u1.csv")))
			return []string{u}, ""
		}, "(it was undone already by entry "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newLater(t, map[int32]int64{0: 4, 1: 4, 2: 4})
			e := f.reset(t, 0, f.topic, "17")
			named, first := tc.later(t, f, e)
			at := f.c.Committed(f.group)[f.topic]
			entries := len(historyOf(t, "--audit-log", f.log))
			for _, args := range [][]string{{"undo", e}, {"undo", e, "--execute", "--backup", filepath.Join(f.dir, "refused.csv")}} {
				r := badInput(t, f.c, "entry "+e+" (outcome applied): ", append([]string{"--audit-log", f.log}, args...)...)
				for _, id := range named {
					if !strings.Contains(r.stderr, id+" (") {
						t.Errorf("%v: the refusal does not name %s:\n%s", args, id, r.stderr)
					}
				}
				switch {
				case !strings.Contains(r.stderr, tc.words):
					t.Errorf("%v: no %q:\n%s", args, tc.words, r.stderr)
				case first != "" && !strings.Contains(r.stderr, "undo "+first+"), or add --force to restore the backup anyway"):
					t.Errorf("%v: does not say to undo %s first:\n%s", args, first, r.stderr)
				case first == "" && !strings.HasSuffix(r.stderr, "; add --force to restore the backup again\n"):
					t.Errorf("%v: does not say --force restores it again:\n%s", args, r.stderr)
				}
				f.wantAt(t, at)
			}
			if es := historyOf(t, "--audit-log", f.log); len(es) != entries {
				t.Fatalf("a refused undo is bad input, not recorded: %+v", es)
			}

			r := f.run(t, 0, "undo", e, "--execute", "--force", "--backup", filepath.Join(f.dir, "forced.csv"))
			if !strings.Contains(r.stderr, "--force: restoring the backup over th") {
				t.Errorf("undo --force:\n%s", r.stderr)
			}
			f.wantAt(t, map[int32]int64{0: 4, 1: 4, 2: 4})
			es := historyOf(t, "--audit-log", f.log)
			if last := es[len(es)-1]; len(es) != entries+1 || last.Action != audit.ActUndo || last.UndoOf != e || last.Outcome != audit.Applied || strings.Join(last.ForcedOver, " ") != strings.Join(named, " ") {
				t.Fatalf("history after undo --force (want forced_over %v): %+v", named, es)
			}
		})
	}
}

// TestUndoKnownLaterElsewhere: what a later entry did not change (or
// cannot have changed) of the reset's partitions does not stop its undo:
// a change of another group, or of other partitions, a dry run (not
// recorded), a change recorded on another cluster (same names, its own
// cluster id), a change recorded as failed (its transaction refused:
// nothing changed). The undo restores the reset's partitions and names
// nothing in forced_over.
func TestUndoKnownLaterElsewhere(t *testing.T) {
	for _, tc := range []struct {
		name  string
		scope string // the reset's partitions: "" the whole topic, ":0" partition 0
		later func(t *testing.T, f *laterFixture, e string)
		want  map[int32]int64 // after the undo
	}{
		{"another group", "", func(t *testing.T, f *laterFixture, _ string) {
			h := testkit.Name(t, "h")
			f.c.Commit(h, f.topic, map[int32]int64{0: 4, 1: 4, 2: 4})
			f.run(t, 0, "reset", h, "--topic", f.topic, "--to", "9", "--execute", "--backup", filepath.Join(f.dir, "h.csv"))
			wantCommitted(t, f.c, h, f.topic, map[int32]int64{0: 9, 1: 9, 2: 9})
		}, map[int32]int64{0: 4, 1: 4, 2: 4}},
		{"other partitions", ":0", func(t *testing.T, f *laterFixture, _ string) {
			f.reset(t, 0, f.topic+":1", "9")
		}, map[int32]int64{0: 4, 1: 9, 2: 4}},
		{"a dry run", "", func(t *testing.T, f *laterFixture, _ string) {
			f.run(t, 0, "reset", f.group, "--topic", f.topic, "--to", "9")
		}, map[int32]int64{0: 4, 1: 4, 2: 4}},
		{"another cluster's change", "", func(t *testing.T, f *laterFixture, _ string) {
			f.appendReset(t, "another-cluster", audit.Applied, nil, 17, 9)
		}, map[int32]int64{0: 4, 1: 4, 2: 4}},
		{"a change recorded as failed: nothing changed", "", func(t *testing.T, f *laterFixture, e string) {
			f.appendReset(t, f.clusterID(t, e), audit.Failed, map[int32]string{0: "aborted", 1: "aborted", 2: "aborted"}, 17, 9)
		}, map[int32]int64{0: 4, 1: 4, 2: 4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newLater(t, map[int32]int64{0: 4, 1: 4, 2: 4})
			e := f.reset(t, 0, f.topic+tc.scope, "17")
			tc.later(t, f, e)
			r := f.run(t, 0, "undo", e, "--execute", "--backup", filepath.Join(f.dir, "u.csv"))
			if strings.Contains(r.stderr, "changed later") || strings.Contains(r.stderr, "--force") {
				t.Errorf("undo:\n%s", r.stderr)
			}
			f.wantAt(t, tc.want)
			es := historyOf(t, "--audit-log", f.log)
			if last := es[len(es)-1]; last.Action != audit.ActUndo || last.UndoOf != e || last.Outcome != audit.Applied || last.ForcedOver != nil {
				t.Fatalf("history after the undo: %+v", es)
			}
		})
	}
}

// TestVerifyKnownThenLater: history --verify of a change whose outcome is
// on the record (applied) when a later change touched its partitions.
// The offsets now are the later change's doing: the summary names it and
// what it found there, and never says "the change is applied" of the
// partitions it touched (after the same reset again, that read as if the
// first reset's offsets were still in place); the partitions no later
// change touched are weighed against the record as before.
func TestVerifyKnownThenLater(t *testing.T) {
	f := newLater(t, map[int32]int64{0: 4, 1: 4, 2: 4})
	e := f.reset(t, 0, f.topic, "17")
	if _, stderr := f.verify(t, e); !strings.Contains(stderr, "every partition (3) holds its planned offset: the change is applied") {
		t.Fatalf("--verify before any later change:\n%s", stderr)
	}
	c := f.reset(t, 0, f.topic+":1", "9")
	v, stderr := f.verify(t, e)
	wantLater(t, v, []string{"", c, ""}, audit.MatchPlanned)
	if !strings.Contains(stderr, "entry "+e+" (recorded outcome: applied): a later change touched 1 of its 3 partitions: today's offsets are no evidence of this change there") ||
		!strings.Contains(stderr, "1 partition (group "+f.group+" topic "+f.topic+" partition 1): cannot tell from today's offsets: "+c+" (reset at ") ||
		!strings.Contains(stderr, "the later change "+c+" at ") || !strings.Contains(stderr, " found the planned offsets there\n") ||
		!strings.Contains(stderr, "2 partitions (group "+f.group+" topic "+f.topic+" partition 0, 2), which no later change touched: every partition (2) holds its planned offset: the change is applied") {
		t.Fatalf("--verify after a later reset of one partition:\n%s", stderr)
	}

	// Moved back by other means, then the same reset again: every
	// partition holds the planned offsets, all of them the later reset's.
	f.c.Commit(f.group, f.topic, map[int32]int64{0: 4, 1: 4, 2: 4})
	d := f.reset(t, 0, f.topic, "17")
	v, stderr = f.verify(t, e)
	for i, want := range []struct{ id, matches string }{{d, audit.MatchBefore}, {c, audit.MatchPlanned}, {d, audit.MatchBefore}} {
		if r := v.Rows[i].Later; r == nil || r.ID != want.id || r.Matches != want.matches {
			t.Errorf("partition %d: later %+v, want %s finding %s", i, r, want.id, want.matches)
		}
	}
	if strings.Contains(stderr, "the change is applied") || strings.Contains(stderr, "which no later change touched") ||
		!strings.Contains(stderr, "a later change touched 3 of its 3 partitions") ||
		!strings.Contains(stderr, "2 partitions (group "+f.group+" topic "+f.topic+" partition 0, 2): cannot tell from today's offsets: "+d+" (reset at ") ||
		!strings.Contains(stderr, "found the offsets from before "+e+" there\n") {
		t.Fatalf("--verify after the same reset again:\n%s", stderr)
	}
}

// TestUndoKnownAfterUndoingLater: the way the refusal points, followed: a
// reset to 17, a later reset to 9; undo of the first is refused, saying
// to undo the later one first; once that is undone (the group back at 17),
// the undo of the first goes through. The later reset and its undo are
// no longer there to revert (it once refused again, naming both, and said
// to undo the undo first, which would have redone the later reset).
func TestUndoKnownAfterUndoingLater(t *testing.T) {
	f := newLater(t, map[int32]int64{0: 4, 1: 4, 2: 4})
	e := f.reset(t, 0, f.topic, "17")
	c := f.reset(t, 0, f.topic, "9")
	r := badInput(t, f.c, "entry "+e+" (outcome applied): 3 of its 3 partition(s) were changed later, by "+c+" (reset at ", "--audit-log", f.log, "undo", e, "--execute", "--backup", filepath.Join(f.dir, "refused.csv"))
	if !strings.Contains(r.stderr, " undo "+c+"), or add --force") {
		t.Fatalf("undo:\n%s", r.stderr)
	}
	f.wantAt(t, map[int32]int64{0: 9, 1: 9, 2: 9})
	f.run(t, 0, "undo", c, "--execute", "--backup", filepath.Join(f.dir, "uc.csv"))
	f.wantAt(t, map[int32]int64{0: 17, 1: 17, 2: 17})
	r = f.run(t, 0, "undo", e, "--execute", "--backup", filepath.Join(f.dir, "ue.csv"))
	if strings.Contains(r.stderr, "changed later") || strings.Contains(r.stderr, "--force") {
		t.Fatalf("undo after the later change was undone:\n%s", r.stderr)
	}
	f.wantAt(t, map[int32]int64{0: 4, 1: 4, 2: 4})
	es := historyOf(t, "--audit-log", f.log)
	if last := es[len(es)-1]; len(es) != 4 || last.UndoOf != e || last.Outcome != audit.Applied || last.ForcedOver != nil {
		t.Fatalf("history: %+v", es)
	}
}

// TestUndoOverALaterChangeThatMovedNothing (QA): a reset to 17, then a
// reset --to current that moved nothing (its entry: before = after). The
// undo of the first was refused, naming the second as a later change it
// would revert, and the only way on was --force, which also turns off the
// check for commits made since. It moved nothing, so there is nothing of
// it to revert: the undo goes through. A commit made since is still
// caught, and a later change that moved a partition still refuses.
func TestUndoOverALaterChangeThatMovedNothing(t *testing.T) {
	f := newLater(t, map[int32]int64{0: 4, 1: 4, 2: 4})
	e := f.reset(t, 0, f.topic, "17")
	f.run(t, 0, "reset", f.group, "--topic", f.topic, "--to", "current", "--execute", "--backup", filepath.Join(f.dir, "noop.csv"))
	f.wantAt(t, map[int32]int64{0: 17, 1: 17, 2: 17})
	// A consumer commits since: still refused, as moved since.
	f.c.Commit(f.group, f.topic, map[int32]int64{2: 20})
	r := f.run(t, 1, "undo", e, "--execute", "--backup", filepath.Join(f.dir, "moved.csv"))
	if !strings.Contains(r.stderr, "partition 2: 17 after the change, 20 now") || strings.Contains(r.stderr, "changed later") {
		t.Fatalf("undo with a commit made since:\n%s", r.stderr)
	}
	f.c.Commit(f.group, f.topic, map[int32]int64{2: 17})
	r = f.run(t, 0, "undo", e, "--execute", "--backup", filepath.Join(f.dir, "ue.csv"))
	if strings.Contains(r.stderr, "changed later") || strings.Contains(r.stderr, "--force") {
		t.Fatalf("undo over a change that moved nothing:\n%s", r.stderr)
	}
	f.wantAt(t, map[int32]int64{0: 4, 1: 4, 2: 4})

	// A later change that moved one partition still refuses.
	e2 := f.reset(t, 0, f.topic, "17")
	f.run(t, 0, "reset", f.group, "--topic", f.topic+":1", "--to", "9", "--execute", "--backup", filepath.Join(f.dir, "one.csv"))
	badInput(t, f.c, "entry "+e2+" (outcome applied): 1 of its 3 partition(s) were changed later", "--audit-log", f.log, "undo", e2, "--execute", "--backup", filepath.Join(f.dir, "refused.csv"))
}
