package change

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/offsetctl/offsetctl/internal/admin"
)

// TestDeleteStopsBeforeApply: a delete whose backup or intent fails
// sends nothing (no Admin is set: an apply would panic), records no
// outcome and prints nothing; a failed backup says nothing was deleted,
// and a written backup's path reaches the hooks after it.
func TestDeleteStopsBeforeApply(t *testing.T) {
	boom := errors.New("boom")
	for _, tc := range []struct {
		name           string
		backup, intent error
		wantSteps      string
		wantErr        string
	}{
		{name: "backup fails", backup: boom, wantSteps: "backup", wantErr: "nothing was deleted: boom"},
		{name: "intent fails", intent: boom, wantSteps: "backup intent(b.csv)", wantErr: "boom"},
	} {
		for _, kind := range []string{"offsets", "groups"} {
			t.Run(tc.name+"/"+kind, func(t *testing.T) {
				var steps []string
				writeBackup := func(groups []admin.BackupGroup) (string, error) {
					steps = append(steps, "backup")
					if len(groups) != 1 || groups[0].Group != "g" {
						t.Errorf("backup of %+v, want group g", groups)
					}
					return "b.csv", tc.backup
				}
				outcome := func(error) error { steps = append(steps, "outcome"); return nil }
				report := func(err error) error { steps = append(steps, "report"); return err }
				var err error
				if kind == "offsets" {
					plans := []admin.DeleteOffsetsPlan{{Group: "g"}}
					eng := &DeleteOffsets{Plans: plans, WriteBackup: writeBackup, Outcome: outcome, Report: report}
					eng.Intent = func() error { steps = append(steps, "intent("+plans[0].Backup+")"); return tc.intent }
					err = eng.Execute(context.Background())
				} else {
					eng := &DeleteGroups{Rows: []admin.DeleteGroupRow{{Group: "g"}}, Groups: []admin.BackupGroup{{Group: "g"}}, WriteBackup: writeBackup, Outcome: outcome, Report: report}
					eng.Intent = func() error { steps = append(steps, "intent("+eng.Backup+")"); return tc.intent }
					err = eng.Execute(context.Background())
				}
				if got := strings.Join(steps, " "); got != tc.wantSteps {
					t.Fatalf("steps %q, want %q", got, tc.wantSteps)
				}
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
			})
		}
	}
}

// TestDeleteGroupErrs: one line per failed group; a dry run adds the
// failures --execute would meet.
func TestDeleteGroupErrs(t *testing.T) {
	rows := []admin.DeleteGroupRow{{Group: "a", Error: "NON_EMPTY_GROUP"}, {Group: "b", WouldFail: "live"}, {Group: "c"}}
	for _, tc := range []struct {
		planned bool
		want    string
	}{
		{false, "group a: NON_EMPTY_GROUP"},
		{true, "2 errors: group a: NON_EMPTY_GROUP; group b: live"},
	} {
		if err := DeleteGroupErrs(rows, tc.planned); err == nil || err.Error() != tc.want {
			t.Errorf("planned=%v: %v, want %q", tc.planned, err, tc.want)
		}
	}
	if err := DeleteGroupErrs(rows[2:], true); err != nil {
		t.Errorf("no failure: %v", err)
	}
}
