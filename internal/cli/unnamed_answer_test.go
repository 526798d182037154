package cli

// A request answered per partition (OffsetCommit, OffsetDelete,
// AlterShareGroupOffsets) or per topic (DeleteShareGroupOffsets) whose
// answer leaves a planned partition out, and may name one not asked for.
// Such a partition is not acknowledged: its row carries an error saying
// so, the read-back decides whether it changed, and the outcome is never
// applied or unverified (the broker acknowledged every planned change).

import (
	"errors"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/offsetctl/offsetctl/internal/admin"
	"github.com/offsetctl/offsetctl/internal/audit"
	"github.com/offsetctl/offsetctl/internal/testkit"
)

// answerOnce makes kfake hand the first request of key for group to
// answer: answer edits the request in place and returns nil (kfake then
// answers the edited request), or returns the answer itself. It runs
// while kfake serves other requests (SleepControl), so it may change the
// cluster first. Requests of other groups, and later ones, pass.
func answerOnce[R kmsg.Request](c *testkit.Cluster, key kmsg.Key, group func(R) string, want string, answer func(R) kmsg.Response) {
	var done atomic.Bool
	c.Fake.ControlKey(key.Int16(), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.Fake.KeepControl()
		r := req.(R)
		if group(r) != want || !done.CompareAndSwap(false, true) {
			return nil, nil, false
		}
		var resp kmsg.Response
		c.Fake.SleepControl(func() { resp = answer(r) })
		return resp, nil, resp != nil
	})
}

func commitGroup(r *kmsg.OffsetCommitRequest) string { return r.Group }
func deleteGroup(r *kmsg.OffsetDeleteRequest) string { return r.Group }

// movePartition edits a request's partitions of topic: partition from
// becomes to (a partition the run did not ask for), so the answer leaves
// from out and names to instead.
func movePartition[P any](ps []P, num func(*P) *int32, from, to int32) {
	for i := range ps {
		if n := num(&ps[i]); *n == from {
			*n = to
		}
	}
}

// claimsAll says whether a run's stderr claims that the broker
// acknowledged every planned change.
func claimsAll(stderr string) bool {
	return strings.Contains(stderr, "(outcome: applied)") || strings.Contains(stderr, "(outcome: unverified)") ||
		strings.Contains(stderr, "acknowledged every")
}

// TestResetNonAtomicUnnamedPartition: a --non-atomic reset whose
// OffsetCommit answer does not name planned partitions. Each is an error
// row ("not known to be committed", with what the answer named instead
// and what the read-back found), the run exits 1, and the outcome is
// partly or failed by what the read-back shows, never applied or
// unverified.
func TestResetNonAtomicUnnamedPartition(t *testing.T) {
	const notNamed = "commit: the broker's answer did not name it: not known to be committed"
	for _, tc := range []struct {
		name   string
		answer func(f *laterFixture, r *kmsg.OffsetCommitRequest) kmsg.Response
		at     map[int32]int64
		// outcome and the entry's counts
		outcome                   string
		written, changed, applied int
		errs                      map[int32]string // each partition's error, "" none
		// written: the partitions the entry records as written though
		// not acknowledged (read back as planned): no error in the
		// entry, so that undo restores them and a later change of them
		// is seen; the run's JSON still says they were not acknowledged.
		unackedWritten bool
	}{
		{"one partition left out, one not asked for named instead", func(f *laterFixture, r *kmsg.OffsetCommitRequest) kmsg.Response {
			for i := range r.Topics {
				movePartition(r.Topics[i].Partitions, func(p *kmsg.OffsetCommitRequestTopicPartition) *int32 { return &p.Partition }, 1, 7)
			}
			return nil
		}, map[int32]int64{0: 17, 1: 4, 2: 17}, audit.Partly, 2, 2, 2, map[int32]string{
			1: notNamed + " (it named partitions not asked for: topic {topic} partition 7: UNKNOWN_TOPIC_OR_PARTITION); read back: unchanged (committed 4)",
		}, false},
		{"none named, nothing committed", func(f *laterFixture, r *kmsg.OffsetCommitRequest) kmsg.Response {
			resp := r.ResponseKind().(*kmsg.OffsetCommitResponse)
			for _, rt := range r.Topics {
				st := kmsg.NewOffsetCommitResponseTopic() // no name, a zero id
				for _, rp := range rt.Partitions {
					sp := kmsg.NewOffsetCommitResponseTopicPartition()
					sp.Partition = rp.Partition
					st.Partitions = append(st.Partitions, sp)
				}
				resp.Topics = append(resp.Topics, st)
			}
			return resp
		}, map[int32]int64{0: 4, 1: 4, 2: 4}, audit.Failed, 0, 0, 0, map[int32]string{
			0: notNamed + " (it named partitions not asked for: a topic id not asked for partition 0, 1, 2: no error); read back: unchanged (committed 4)",
			1: notNamed + " (it named partitions not asked for: a topic id not asked for partition 0, 1, 2: no error); read back: unchanged (committed 4)",
			2: notNamed + " (it named partitions not asked for: a topic id not asked for partition 0, 1, 2: no error); read back: unchanged (committed 4)",
		}, false},
		{"none named, committed all the same", func(f *laterFixture, r *kmsg.OffsetCommitRequest) kmsg.Response {
			f.c.Commit(f.group, f.topic, map[int32]int64{0: 17, 1: 17, 2: 17})
			return r.ResponseKind() // names no topic
		}, map[int32]int64{0: 17, 1: 17, 2: 17}, audit.Partly, 3, 3, 3, map[int32]string{
			0: notNamed + "; read back: it holds what was planned (committed 17) all the same",
			1: notNamed + "; read back: it holds what was planned (committed 17) all the same",
			2: notNamed + "; read back: it holds what was planned (committed 17) all the same",
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newLater(t, map[int32]int64{0: 4, 1: 4, 2: 4})
			answerOnce(f.c, kmsg.OffsetCommit, commitGroup, f.group, func(r *kmsg.OffsetCommitRequest) kmsg.Response { return tc.answer(f, r) })
			r := f.run(t, 1, "reset", f.group, "--topic", f.topic, "--to", "17", "--execute", "--non-atomic", "-o", "json", "--backup", filepath.Join(f.dir, "r.csv"))
			if claimsAll(r.stderr) || !strings.Contains(r.stderr, "(outcome: "+tc.outcome+")") || !strings.Contains(r.stderr, "not known to be committed") {
				t.Fatalf("stderr:\n%s", r.stderr)
			}
			var gp admin.GroupPlan
			decodeJSON(t, r, &gp)
			if gp.Outcome != tc.outcome {
				t.Errorf("JSON outcome %q, want %s", gp.Outcome, tc.outcome)
			}
			f.wantAt(t, tc.at)

			es := historyOf(t, "--audit-log", f.log)
			e := es[len(es)-1]
			if len(es) != 1 || e.Outcome != tc.outcome || e.ExitCode != 1 || entryCount(e.Written) != tc.written ||
				entryCount(e.Changed) != tc.changed || entryCount(e.Applied) != tc.applied || len(e.Changes) != 3 {
				t.Fatalf("entry: outcome %s exit %d written %d changed %d applied %d, want %s 1 %d %d %d: %+v",
					e.Outcome, e.ExitCode, entryCount(e.Written), entryCount(e.Changed), entryCount(e.Applied),
					tc.outcome, tc.written, tc.changed, tc.applied, e)
			}
			for _, c := range e.Changes {
				want := strings.ReplaceAll(tc.errs[c.Partition], "{topic}", f.topic)
				inEntry := want
				if tc.unackedWritten {
					inEntry = ""
				}
				if c.Error != inEntry || gp.Partitions[c.Partition].Error != want {
					t.Errorf("partition %d: error %q (JSON %q), want %q (JSON %q)", c.Partition, c.Error, gp.Partitions[c.Partition].Error, inEntry, want)
				}
			}
			if tc.unackedWritten {
				// A later change of the partitions it changed without
				// the broker's word is seen: undo is refused (it
				// restored the whole backup over the later change),
				// and undone in turn it lets the first be undone.
				f.run(t, 0, "reset", f.group, "--topic", f.topic, "--to", "30", "--execute", "--backup", filepath.Join(f.dir, "later.csv"))
				later := historyOf(t, "--audit-log", f.log)
				lid := later[len(later)-1].ID
				u := f.run(t, 2, "undo", e.ID, "--execute", "--backup", filepath.Join(f.dir, "u0.csv"))
				if !strings.Contains(u.stderr, lid) {
					t.Fatalf("undo over a later change: stderr does not name %s:\n%s", lid, u.stderr)
				}
				f.wantAt(t, map[int32]int64{0: 30, 1: 30, 2: 30})
				f.run(t, 0, "undo", lid, "--execute", "--backup", filepath.Join(f.dir, "u1.csv"))
				f.wantAt(t, tc.at)
			}
			if tc.outcome == audit.Failed {
				badInput(t, f.c, "entry "+e.ID+" was failed: it changed nothing, so there is nothing to undo", "--audit-log", f.log, "undo", e.ID)
				return
			}
			// What changed is undone from the backup.
			f.run(t, 0, "undo", e.ID, "--execute", "--backup", filepath.Join(f.dir, "u.csv"))
			f.wantAt(t, map[int32]int64{0: 4, 1: 4, 2: 4})
		})
	}
}

// TestResetRestoreNoCommitUnnamedDelete: a restore to "no commit" (the
// undo of a reset that committed where the group had none) deletes with
// OffsetDelete, in a transactional reset (after the transaction) and a
// --non-atomic one alike. An OffsetDelete answer that leaves a planned
// partition out, naming one not asked for instead, makes that partition
// an error row ("not known to be deleted"), and the outcome partly, by
// the read-back: it used to count as deleted, and the read-back finding
// it still committed recorded "unverified" (the broker acknowledged every
// planned change).
func TestResetRestoreNoCommitUnnamedDelete(t *testing.T) {
	for _, mode := range []string{"transactional", "non-atomic"} {
		t.Run(mode, func(t *testing.T) {
			f := newLater(t, map[int32]int64{0: 4})
			backup := filepath.Join(f.dir, "first.csv")
			f.run(t, 0, "reset", f.group, "--topic", f.topic, "--to", "17", "--execute", "--backup", backup)
			f.wantAt(t, map[int32]int64{0: 17, 1: 17, 2: 17})

			answerOnce(f.c, kmsg.OffsetDelete, deleteGroup, f.group, func(r *kmsg.OffsetDeleteRequest) kmsg.Response {
				for i := range r.Topics {
					movePartition(r.Topics[i].Partitions, func(p *kmsg.OffsetDeleteRequestTopicPartition) *int32 { return &p.Partition }, 2, 7)
				}
				return nil
			})
			args := []string{"reset", f.group, "--to", "file:" + backup, "--execute", "-o", "json", "--backup", filepath.Join(f.dir, "restore.csv")}
			if mode == "non-atomic" {
				args = append(args, "--non-atomic")
			}
			start := time.Now()
			r := f.run(t, 1, args...)
			if claimsAll(r.stderr) || !strings.Contains(r.stderr, "(outcome: partly)") {
				t.Fatalf("stderr:\n%s", r.stderr)
			}
			// The read-back does not wait for a delete not acknowledged
			// (it waited its whole 10 s, as for a commit marker).
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("the restore took %s", d)
			}
			f.wantAt(t, map[int32]int64{0: 4, 2: 17})
			var gp admin.GroupPlan
			decodeJSON(t, r, &gp)
			want := "delete: the broker's answer did not name it: not known to be deleted (it named partitions not asked for: topic " + f.topic + " partition 7: no error); read back: unchanged (committed 17)"
			es := historyOf(t, "--audit-log", f.log)
			e := es[len(es)-1]
			if gp.Outcome != audit.Partly || e.Outcome != audit.Partly || e.ExitCode != 1 || entryCount(e.Written) != 2 || entryCount(e.Changed) != 2 || entryCount(e.Applied) != 2 {
				t.Fatalf("JSON outcome %s, entry: %+v", gp.Outcome, e)
			}
			for _, c := range e.Changes {
				if w := map[int32]string{2: want}[c.Partition]; c.Error != w || gp.Partitions[c.Partition].Error != w {
					t.Errorf("partition %d: error %q (JSON %q), want %q", c.Partition, c.Error, gp.Partitions[c.Partition].Error, w)
				}
			}
		})
	}
}

// TestDeleteOffsetsUnnamedPartition: a delete-offsets whose OffsetDelete
// answer leaves planned partitions out. Each is an error row ("not known
// to be deleted"), judged by the read-back: one still committed failed
// (the outcome is partly when others were deleted); one the read-back
// finds gone may have been deleted by it, so it is never "failed", which
// would say the offset is still there and leave it out of the restore
// line (it used to be "failed: missing from the broker's response",
// "nothing was deleted", whatever the read-back showed).
func TestDeleteOffsetsUnnamedPartition(t *testing.T) {
	for _, tc := range []struct {
		name    string
		answer  func(f *laterFixture, r *kmsg.OffsetDeleteRequest) kmsg.Response
		at      map[int32]int64
		outcome string
		written int
		status  map[int32]string // each row's status and error
		line    string           // in the backup line
	}{
		{"one partition left out, one not asked for named instead", func(f *laterFixture, r *kmsg.OffsetDeleteRequest) kmsg.Response {
			for i := range r.Topics {
				movePartition(r.Topics[i].Partitions, func(p *kmsg.OffsetDeleteRequestTopicPartition) *int32 { return &p.Partition }, 1, 7)
			}
			return nil
		}, map[int32]int64{1: 4}, audit.Partly, 2, map[int32]string{
			0: "deleted ",
			1: "failed the broker's answer did not name it: not known to be deleted (it named partitions not asked for: topic {topic} partition 7: no error); read back: still committed at 4",
			2: "deleted ",
		}, "(undo of what was deleted: "},
		{"none named, deleted all the same", func(f *laterFixture, r *kmsg.OffsetDeleteRequest) kmsg.Response {
			set := kadm.TopicsSet{}
			set.Add(f.topic, 0, 1, 2)
			if _, err := f.c.Admin().DeleteOffsets(testkit.Ctx(t), f.group, set); err != nil {
				t.Error(err)
			}
			return r.ResponseKind() // names no topic
		}, map[int32]int64{}, audit.Unknown, 3, map[int32]string{
			0: "failed the broker's answer did not name it: not known to be deleted; read back: no commit now, so it may have been deleted all the same",
			1: "failed the broker's answer did not name it: not known to be deleted; read back: no commit now, so it may have been deleted all the same",
			2: "failed the broker's answer did not name it: not known to be deleted; read back: no commit now, so it may have been deleted all the same",
		}, "(whether 3 offset(s) were deleted is unknown: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newLater(t, map[int32]int64{0: 4, 1: 4, 2: 4})
			answerOnce(f.c, kmsg.OffsetDelete, deleteGroup, f.group, func(r *kmsg.OffsetDeleteRequest) kmsg.Response { return tc.answer(f, r) })
			r := f.run(t, 1, "delete-offsets", f.group, "--topic", f.topic, "--execute", "-o", "json", "--backup", filepath.Join(f.dir, "d.csv"))
			if claimsAll(r.stderr) || !strings.Contains(r.stderr, "(outcome: "+tc.outcome+")") || !strings.Contains(r.stderr, tc.line) ||
				strings.Contains(r.stderr, "nothing was deleted") {
				t.Fatalf("stderr:\n%s", r.stderr)
			}
			f.wantAt(t, tc.at)
			var p admin.DeleteOffsetsPlan
			decodeJSON(t, r, &p)
			for _, row := range p.Partitions {
				if got, want := row.Status+" "+row.Error, strings.ReplaceAll(tc.status[row.Partition], "{topic}", f.topic); got != want {
					t.Errorf("partition %d: %q, want %q", row.Partition, got, want)
				}
			}
			es := historyOf(t, "--audit-log", f.log)
			if e := es[len(es)-1]; len(es) != 1 || e.Outcome != tc.outcome || e.ExitCode != 1 || entryCount(e.Written) != tc.written {
				t.Fatalf("entry: %+v", e)
			}
		})
	}
}

func alterShareGroup(r *kmsg.AlterShareGroupOffsetsRequest) string   { return r.GroupID }
func deleteShareGroup(r *kmsg.DeleteShareGroupOffsetsRequest) string { return r.GroupID }

// TestShareResetUnnamedPartition: a share-group reset whose
// AlterShareGroupOffsets answer leaves a planned partition out, naming
// one not asked for instead. That partition is an error row ("not known
// to be set"), the outcome is partly (the others were set), and the entry
// counts what changed; it used to record "applied", the read-back's
// mismatch on that partition notwithstanding.
func TestShareResetUnnamedPartition(t *testing.T) {
	c := kfakeCluster(t)
	f := newShareFixture(t, c)
	answerOnce(c, kmsg.AlterShareGroupOffsets, alterShareGroup, f.group, func(r *kmsg.AlterShareGroupOffsetsRequest) kmsg.Response {
		for i := range r.Topics {
			movePartition(r.Topics[i].Partitions, func(p *kmsg.AlterShareGroupOffsetsRequestTopicPartition) *int32 { return &p.Partition }, 1, 7)
		}
		return nil
	})
	log := filepath.Join(t.TempDir(), "audit.jsonl")
	gp, r := shareReset(t, c, 1, "--audit-log", log, f.group, "--topic", f.topic, "--to", "earliest", "--execute", "--backup", tempBackup(t))
	if claimsAll(r.stderr) || !strings.Contains(r.stderr, "(outcome: partly)") || gp.Outcome != audit.Partly {
		t.Fatalf("JSON outcome %q, stderr:\n%s", gp.Outcome, r.stderr)
	}
	if got := c.ShareOffsets(f.group)[f.topic]; len(got) != 3 || got[0] != 0 || got[1] != 5 || got[2] != 0 {
		t.Fatalf("start offsets %v, want 0 5 0", got)
	}
	want := "commit: the broker's answer did not name it: not known to be set (it named partitions not asked for: topic " + f.topic + " partition 7: "
	es := historyOf(t, "--audit-log", log)
	e := es[len(es)-1]
	if len(es) != 1 || e.Outcome != audit.Partly || e.ExitCode != 1 || entryCount(e.Written) != 2 || entryCount(e.Changed) != 2 || entryCount(e.Applied) != 2 {
		t.Fatalf("entry: %+v", e)
	}
	for _, ch := range e.Changes {
		got := ch.Error
		if ch.Partition != 1 && got != "" || ch.Partition == 1 && (!strings.HasPrefix(got, want) || !strings.HasSuffix(got, "; read back: unchanged (start offset 5)")) {
			t.Errorf("partition %d: error %q", ch.Partition, got)
		}
	}
}

// TestShareDeleteOffsetsUnnamedTopic: a share group's delete-offsets
// whose DeleteShareGroupOffsets answer does not name the topic asked for.
// Its rows are error rows ("not known to be deleted") judged by the
// read-back: still there, failed; gone, maybe deleted by it (unknown),
// never "failed" with "nothing was deleted" as it used to be.
func TestShareDeleteOffsetsUnnamedTopic(t *testing.T) {
	for _, gone := range []bool{false, true} {
		t.Run(map[bool]string{false: "start offsets still there", true: "deleted all the same"}[gone], func(t *testing.T) {
			c := kfakeCluster(t)
			f := newShareFixture(t, c)
			answerOnce(c, kmsg.DeleteShareGroupOffsets, deleteShareGroup, f.group, func(r *kmsg.DeleteShareGroupOffsetsRequest) kmsg.Response {
				if gone {
					if _, err := c.Admin().DeleteShareGroupOffsets(testkit.Ctx(t), f.group, f.topic); err != nil {
						t.Error(err)
					}
				}
				return r.ResponseKind() // names no topic
			})
			log := filepath.Join(t.TempDir(), "audit.jsonl")
			r := mustRun(t, c, 1, "--audit-log", log, "delete-offsets", f.group, "--topic", f.topic, "--execute", "-o", "json", "--backup", tempBackup(t))
			outcome, status, found := audit.Failed, "failed", map[int32]string{0: "start offset still 2", 1: "start offset still 5", 2: "start offset still 10"}
			if gone {
				outcome, found = audit.Unknown, map[int32]string{0: "no start offset now, so it may have been deleted all the same", 1: "no start offset now, so it may have been deleted all the same", 2: "no start offset now, so it may have been deleted all the same"}
			}
			if claimsAll(r.stderr) || !strings.Contains(r.stderr, "(outcome: "+outcome+")") || gone && strings.Contains(r.stderr, "nothing was deleted") {
				t.Fatalf("stderr:\n%s", r.stderr)
			}
			var p admin.DeleteOffsetsPlan
			decodeJSON(t, r, &p)
			for _, row := range p.Partitions {
				if want := status + " the broker's answer did not name it: not known to be deleted; read back: " + found[row.Partition]; row.Status+" "+row.Error != want {
					t.Errorf("partition %d: %q, want %q", row.Partition, row.Status+" "+row.Error, want)
				}
			}
			if es := historyOf(t, "--audit-log", log); len(es) != 1 || es[0].Outcome != outcome || es[0].ExitCode != 1 {
				t.Fatalf("entries: %+v", es)
			}
			if got := c.ShareOffsets(f.group)[f.topic]; gone && len(got) != 0 || !gone && len(got) != 3 {
				t.Fatalf("start offsets %v", got)
			}
		})
	}
}

// TestUndoChecksARefusedPartition: a --non-atomic reset whose commit the
// broker refused for one partition (partly changed) left that partition
// as it was, but undo's restore writes the backup over it too. A commit
// made there since (a consumer, Apache's tool) is a move the undo must
// see: it was skipped (the entry's change of it carries the refusal), and
// the restore silently put the backed-up offset back over it.
func TestUndoChecksARefusedPartition(t *testing.T) {
	f := newLater(t, map[int32]int64{0: 4, 1: 4, 2: 4})
	answerOnce(f.c, kmsg.OffsetCommit, commitGroup, f.group, func(r *kmsg.OffsetCommitRequest) kmsg.Response {
		resp := r.ResponseKind().(*kmsg.OffsetCommitResponse)
		for _, rt := range r.Topics {
			st := kmsg.NewOffsetCommitResponseTopic()
			st.Topic = rt.Topic
			for _, rp := range rt.Partitions {
				sp := kmsg.NewOffsetCommitResponseTopicPartition()
				sp.Partition = rp.Partition
				if rp.Partition == 1 {
					sp.ErrorCode = kerr.OffsetMetadataTooLarge.Code
				} else {
					f.c.Commit(f.group, f.topic, map[int32]int64{rp.Partition: rp.Offset})
				}
				st.Partitions = append(st.Partitions, sp)
			}
			resp.Topics = append(resp.Topics, st)
		}
		return resp
	})
	f.run(t, 1, "reset", f.group, "--topic", f.topic, "--to", "17", "--execute", "--non-atomic", "--backup", filepath.Join(f.dir, "r.csv"))
	f.wantAt(t, map[int32]int64{0: 17, 1: 4, 2: 17})
	es := historyOf(t, "--audit-log", f.log)
	e := es[len(es)-1]
	if e.Outcome != audit.Partly {
		t.Fatalf("outcome %s, want partly", e.Outcome)
	}
	f.c.Commit(f.group, f.topic, map[int32]int64{1: 25}) // a consumer, since
	u := f.run(t, 1, "undo", e.ID, "--execute", "--backup", filepath.Join(f.dir, "u.csv"))
	if !strings.Contains(u.stderr, "partition 1") || !strings.Contains(u.stderr, "25 now") {
		t.Fatalf("undo over a commit made since on the refused partition: stderr does not name it:\n%s", u.stderr)
	}
	f.wantAt(t, map[int32]int64{0: 17, 1: 25, 2: 17})
	// --force restores the backup, as for any partition moved since.
	f.run(t, 0, "undo", e.ID, "--execute", "--force", "--backup", filepath.Join(f.dir, "u2.csv"))
	f.wantAt(t, map[int32]int64{0: 4, 1: 4, 2: 4})
}

// TestRestoreNoCommitDeleteUnanswered: a restore to "no commit" (the
// undo of a reset that committed where the group had none) whose
// OffsetDelete is carried out but never answered (the connection drops,
// every retry too, until --timeout). It was recorded as refused ("delete:
// <the timeout>", outcome failed), so undo of the restore said it changed
// nothing while every commit was gone. Now the read-back judges it as a
// partition an answer left out: written, the outcome not failed, and the
// restore can be undone.
func TestRestoreNoCommitDeleteUnanswered(t *testing.T) {
	f := newLater(t, map[int32]int64{})
	backup := filepath.Join(f.dir, "first.csv")
	f.run(t, 0, "reset", f.group, "--topic", f.topic, "--to", "17", "--execute", "--backup", backup)
	f.wantAt(t, map[int32]int64{0: 17, 1: 17, 2: 17})

	var inner, done atomic.Bool
	f.c.Fake.ControlKey(int16(kmsg.OffsetDelete), func(req kmsg.Request) (kmsg.Response, error, bool) {
		f.c.Fake.KeepControl()
		r := req.(*kmsg.OffsetDeleteRequest)
		if r.Group != f.group || inner.Load() {
			return nil, nil, false
		}
		f.c.Fake.SleepControl(func() {
			if done.CompareAndSwap(false, true) {
				// Carried out (by another client here), then its
				// answer is lost.
				set := kadm.TopicsSet{}
				for _, rt := range r.Topics {
					for _, rp := range rt.Partitions {
						set.Add(rt.Topic, rp.Partition)
					}
				}
				inner.Store(true)
				if _, err := f.c.Admin().DeleteOffsets(testkit.Ctx(t), f.group, set); err != nil {
					t.Error(err)
				}
				inner.Store(false)
			}
			time.Sleep(300 * time.Millisecond)
		})
		return nil, errors.New("dropped"), true
	})
	r := f.run(t, 1, "reset", f.group, "--to", "file:"+backup, "--execute", "-o", "json", "--timeout", "2s", "--backup", filepath.Join(f.dir, "restore.csv"))
	f.wantAt(t, map[int32]int64{})
	if !done.Load() {
		t.Fatal("no OffsetDelete was sent")
	}
	es := historyOf(t, "--audit-log", f.log)
	e := es[len(es)-1]
	if e.Outcome == audit.Failed || e.Outcome == audit.Applied || e.Outcome == audit.Unverified || claimsAll(r.stderr) {
		t.Fatalf("outcome %s: want neither failed (the commits are gone) nor acknowledged\nstderr:\n%s", e.Outcome, r.stderr)
	}
	for _, c := range e.Changes {
		if c.Error != "" {
			t.Errorf("partition %d recorded as not written: %s", c.Partition, c.Error)
		}
	}
	f.run(t, 0, "undo", e.ID, "--execute", "--backup", filepath.Join(f.dir, "u.csv"))
	f.wantAt(t, map[int32]int64{0: 17, 1: 17, 2: 17})
}

// TestUndoUnverifiedPartition (review): a reset the broker acknowledged
// whose read-back found another offset on a partition ("verify: ...", the
// outcome unverified: a late commit marker, another writer) wrote that
// partition. Undo keeps it as the entry's change: it is not checked as a
// partition the change left as it was (which refused the undo, saying it
// moved from its backed-up offset, once it held the planned one).
func TestUndoUnverifiedPartition(t *testing.T) {
	f := newLater(t, map[int32]int64{0: 4, 1: 4, 2: 4})
	answerOnce(f.c, kmsg.OffsetCommit, commitGroup, f.group, func(r *kmsg.OffsetCommitRequest) kmsg.Response {
		for i := range r.Topics {
			for j := range r.Topics[i].Partitions {
				if p := &r.Topics[i].Partitions[j]; p.Partition == 1 {
					p.Offset = 20 // acknowledged, but read back as another offset
				}
			}
		}
		return nil
	})
	r := f.run(t, 1, "reset", f.group, "--topic", f.topic, "--to", "17", "--execute", "--non-atomic", "--backup", filepath.Join(f.dir, "r.csv"))
	es := historyOf(t, "--audit-log", f.log)
	e := es[len(es)-1]
	if e.Outcome != audit.Unverified || !strings.Contains(r.stderr, "(outcome: unverified)") {
		t.Fatalf("outcome %s, want unverified\nstderr:\n%s", e.Outcome, r.stderr)
	}
	f.c.Commit(f.group, f.topic, map[int32]int64{1: 17}) // the planned offset, at last
	f.run(t, 0, "undo", e.ID, "--execute", "--backup", filepath.Join(f.dir, "u.csv"))
	f.wantAt(t, map[int32]int64{0: 4, 1: 4, 2: 4})
}

// TestShareRestoreAlterRefusedAfterDelete (review): a share-group restore
// that deletes one topic's start offsets (no start offset in the backup)
// and sets another's. When AlterShareGroupOffsets is refused after the
// delete, the group is partly changed: the entry is partly, counts the
// deleted start offsets alone as written, and the refused ones carry the
// refusal. It recorded "applied", the refused start offsets as written.
func TestShareRestoreAlterRefusedAfterDelete(t *testing.T) {
	c := kfakeCluster(t)
	f := newShareFixture(t, c) // start offsets 2, 5, 10 on f.topic
	other := c.Topic(3, nil)
	c.Produce(other, map[int32]int{0: 10, 1: 10, 2: 10}, f.base)
	backup := filepath.Join(t.TempDir(), "b.csv")
	log := filepath.Join(t.TempDir(), "audit.jsonl")
	shareReset(t, c, 0, "--audit-log", log, f.group, "--topic", f.topic, "--topic", other, "--to", "earliest", "--execute", "--backup", backup)
	if got := c.ShareOffsets(f.group)[other]; len(got) != 3 {
		t.Fatalf("start offsets of %s after the reset: %v", other, got)
	}
	answerOnce(c, kmsg.AlterShareGroupOffsets, alterShareGroup, f.group, func(r *kmsg.AlterShareGroupOffsetsRequest) kmsg.Response {
		resp := r.ResponseKind().(*kmsg.AlterShareGroupOffsetsResponse)
		resp.ErrorCode = kerr.GroupAuthorizationFailed.Code
		return resp
	})
	gp, r := shareReset(t, c, 1, "--audit-log", log, f.group, "--to", "file:"+backup, "--execute", "--backup", tempBackup(t))
	if !strings.Contains(r.stderr, "(outcome: partly)") || gp.Outcome != audit.Partly {
		t.Fatalf("JSON outcome %q, stderr:\n%s", gp.Outcome, r.stderr)
	}
	if got := c.ShareOffsets(f.group); len(got[other]) != 0 || len(got[f.topic]) != 3 || got[f.topic][1] != 0 {
		t.Fatalf("start offsets %v: want %s's deleted and %s's left at 0", got, other, f.topic)
	}
	es := historyOf(t, "--audit-log", log)
	e := es[len(es)-1]
	if e.Outcome != audit.Partly || entryCount(e.Written) != 3 {
		t.Fatalf("entry: outcome %s written %d, want partly 3 (the deleted start offsets): %+v", e.Outcome, entryCount(e.Written), e)
	}
	for _, ch := range e.Changes {
		refused := strings.HasPrefix(ch.Error, "commit: ")
		if ch.Topic == f.topic && !refused || ch.Topic == other && ch.Error != "" {
			t.Errorf("topic %s partition %d: error %q", ch.Topic, ch.Partition, ch.Error)
		}
	}
}
