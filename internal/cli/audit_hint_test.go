package cli

import (
	"testing"

	"github.com/offsetctl/offsetctl/internal/audit"
)

// TestResumedLater: an unknown backfill counts as finished only by a later
// applied run of the same job: the same --transactional-id or
// --checkpoint, target topic, source topic, source cluster and target
// cluster flags (a --transactional-id's position lives on the target
// cluster, so the same id to another cluster is another job).
func TestResumedLater(t *testing.T) {
	unknown := audit.Entry{ID: "01A", Action: audit.ActBackfill, Outcome: audit.Unknown, TransactionalID: "x",
		Target: "dst", Topics: []string{"src"}, ClusterID: "c1", Command: []string{"replay", "src", "--produce-to", "dst", "--target-brokers", "b:9092", "--transactional-id", "x"}}
	later := func(edit func(*audit.Entry)) audit.Entry {
		l := unknown
		l.ID, l.Outcome = "01B", audit.Applied
		l.Command = append([]string(nil), unknown.Command...)
		edit(&l)
		return l
	}
	for _, tc := range []struct {
		name string
		l    audit.Entry
		want bool
	}{
		{"same job completed", later(func(*audit.Entry) {}), true},
		{"same job, flag spelled with =", later(func(l *audit.Entry) {
			l.Command = []string{"replay", "src", "--produce-to", "dst", "--target-brokers=b:9092", "--transactional-id", "x"}
		}), true},
		{"not applied", later(func(l *audit.Entry) { l.Outcome = audit.Partly }), false},
		{"earlier", later(func(l *audit.Entry) { l.ID = "019" }), false},
		{"another id", later(func(l *audit.Entry) { l.TransactionalID = "y" }), false},
		{"another target topic", later(func(l *audit.Entry) { l.Target = "dst2" }), false},
		{"another source", later(func(l *audit.Entry) { l.Topics = []string{"src2"} }), false},
		{"another source cluster", later(func(l *audit.Entry) { l.ClusterID = "c2" }), false},
		{"another target cluster", later(func(l *audit.Entry) { l.Command[5] = "other:9092" }), false},
		{"target cluster given as a profile", later(func(l *audit.Entry) { l.Command[4] = "--target-profile" }), false},
	} {
		if got := resumedLater(unknown, []audit.Entry{unknown, tc.l}); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	noResume := unknown
	noResume.TransactionalID = ""
	if resumedLater(noResume, []audit.Entry{noResume, later(func(l *audit.Entry) { l.TransactionalID = "" })}) {
		t.Error("a backfill without a resume point counted as finished by a later copy")
	}
}
