package cli

// A transactional reset whose TxnOffsetCommit did not stage every planned
// partition: the broker refused them, or its answer did not name them (a
// v6 answer naming topic ids that were not asked for). Such a run once
// sent EndTxn(commit) of an empty transaction, waited 10 s for offsets
// that could never appear, printed "verify: committed 4, planned 17" and
// recorded the change as "unverified" (the broker acknowledged every
// planned change) where nothing had changed.

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/offsetctl/offsetctl/internal/audit"
)

// TestResetTxnUnstagedFails: whatever way the TxnOffsetCommit answer
// leaves planned partitions unstaged, the run aborts the transaction
// (one EndTxn, an abort), changes nothing, exits 1 without reading back,
// and its entry's outcome is failed, with nothing applied or written and
// every partition's error the commit's own, never "verify: ".
func TestResetTxnUnstagedFails(t *testing.T) {
	for _, tc := range []struct {
		name string
		// answer builds the answer to a TxnOffsetCommit topic.
		answer func(rt kmsg.TxnOffsetCommitRequestTopic) kmsg.TxnOffsetCommitResponseTopic
		words  string // in the error line
	}{
		{"every partition refused, named as asked", func(rt kmsg.TxnOffsetCommitRequestTopic) kmsg.TxnOffsetCommitResponseTopic {
			st := kmsg.NewTxnOffsetCommitResponseTopic()
			st.Topic, st.TopicID = rt.Topic, rt.TopicID
			for _, rp := range rt.Partitions {
				sp := kmsg.NewTxnOffsetCommitResponseTopicPartition()
				sp.Partition, sp.ErrorCode = rp.Partition, kerr.GroupAuthorizationFailed.Code
				st.Partitions = append(st.Partitions, sp)
			}
			return st
		}, "3 partition(s) refused the transactional commit"},
		{"every partition refused under a topic id not asked for", func(rt kmsg.TxnOffsetCommitRequestTopic) kmsg.TxnOffsetCommitResponseTopic {
			st := kmsg.NewTxnOffsetCommitResponseTopic() // no name, a zero id
			for _, rp := range rt.Partitions {
				sp := kmsg.NewTxnOffsetCommitResponseTopicPartition()
				sp.Partition, sp.ErrorCode = rp.Partition, kerr.GroupAuthorizationFailed.Code
				st.Partitions = append(st.Partitions, sp)
			}
			return st
		}, "the answer to the transactional commit did not name 3 of the partition(s) asked for, so they are not known to be staged (it named partitions not asked for: a topic id not asked for partition 0, 1, 2: GROUP_AUTHORIZATION_FAILED)"},
		{"one partition missing from an answer that staged the others", func(rt kmsg.TxnOffsetCommitRequestTopic) kmsg.TxnOffsetCommitResponseTopic {
			st := kmsg.NewTxnOffsetCommitResponseTopic()
			st.Topic, st.TopicID = rt.Topic, rt.TopicID
			for _, rp := range rt.Partitions {
				if rp.Partition == 1 {
					continue
				}
				sp := kmsg.NewTxnOffsetCommitResponseTopicPartition()
				sp.Partition = rp.Partition
				st.Partitions = append(st.Partitions, sp)
			}
			return st
		}, "the answer to the transactional commit did not name 1 of the partition(s) asked for, so they are not known to be staged; the transaction was aborted: nothing changed for this group"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newLater(t, map[int32]int64{0: 4, 1: 4, 2: 4})
			var answering atomic.Bool
			answering.Store(true)
			f.c.Fake.ControlKey(int16(kmsg.TxnOffsetCommit), func(req kmsg.Request) (kmsg.Response, error, bool) {
				f.c.Fake.KeepControl()
				if !answering.Load() {
					return nil, nil, false
				}
				r := req.(*kmsg.TxnOffsetCommitRequest)
				resp := r.ResponseKind().(*kmsg.TxnOffsetCommitResponse)
				for _, rt := range r.Topics {
					resp.Topics = append(resp.Topics, tc.answer(rt))
				}
				return resp, nil, true
			})
			var mu sync.Mutex
			var ends []bool // EndTxn's commit flags
			f.c.Fake.ControlKey(int16(kmsg.EndTxn), func(req kmsg.Request) (kmsg.Response, error, bool) {
				f.c.Fake.KeepControl()
				mu.Lock()
				defer mu.Unlock()
				ends = append(ends, req.(*kmsg.EndTxnRequest).Commit)
				return nil, nil, false
			})

			r := f.run(t, 1, "reset", f.group, "--topic", f.topic, "--to", "17", "--execute", "--backup", filepath.Join(f.dir, "r.csv"))
			if !strings.Contains(r.stderr, "(outcome: failed)") || !strings.Contains(r.stderr, tc.words) ||
				!strings.Contains(r.stderr, "; the transaction was aborted: nothing changed for this group\n") ||
				!strings.Contains(r.stderr, "(nothing was committed, so there is nothing to undo)") ||
				strings.Contains(r.stderr, "verify:") || strings.Contains(r.stderr, "undo:") {
				t.Fatalf("stderr:\n%s", r.stderr)
			}
			mu.Lock()
			if got := fmt.Sprint(ends); got != "[false]" {
				t.Errorf("EndTxn commit flags %s, want one abort", got)
			}
			mu.Unlock()
			f.wantAt(t, map[int32]int64{0: 4, 1: 4, 2: 4})

			es := historyOf(t, "--audit-log", f.log)
			e := es[len(es)-1]
			if len(es) != 1 || e.Outcome != audit.Failed || e.ExitCode != 1 || e.Applied == nil || *e.Applied != 0 ||
				e.Written == nil || *e.Written != 0 || e.Changed == nil || *e.Changed != 0 || len(e.Changes) != 3 {
				t.Fatalf("entry: %+v", e)
			}
			for _, c := range e.Changes {
				// A partition the answer did not stage has the commit's
				// error; one it staged, the aborted group's.
				if c.Error == "" || strings.HasPrefix(c.Error, "verify: ") || c.Partition == 1 && !strings.HasPrefix(c.Error, "commit: ") {
					t.Errorf("partition %d: error %q, want the commit's or the group's", c.Partition, c.Error)
				}
			}
			// Nothing changed, so there is nothing to undo.
			badInput(t, f.c, "entry "+e.ID+" was failed: it changed nothing, so there is nothing to undo", "--audit-log", f.log, "undo", e.ID)

			// The transactional id is free: the next run commits.
			answering.Store(false)
			f.run(t, 0, "reset", f.group, "--topic", f.topic, "--to", "17", "--execute", "--backup", filepath.Join(f.dir, "r2.csv"))
			f.wantAt(t, map[int32]int64{0: 17, 1: 17, 2: 17})
		})
	}
}
