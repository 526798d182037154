package change

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestExecuteOrder: the steps run in the documented order, a failed
// backup or intent stops before anything is applied, and Apply's error
// reaches Outcome and Outcome's reaches Report.
func TestExecuteOrder(t *testing.T) {
	boom := errors.New("boom")
	for _, tc := range []struct {
		name            string
		backup, intent  error
		apply           error
		wantSteps       string
		wantErrContains string
	}{
		{name: "all", wantSteps: "backup intent apply outcome(<nil>) report(<nil>)"},
		{name: "apply fails", apply: boom, wantSteps: "backup intent apply outcome(boom) report(recorded: boom)", wantErrContains: "recorded: boom"},
		{name: "backup fails", backup: boom, wantSteps: "backup", wantErrContains: "boom"},
		{name: "intent fails", intent: boom, wantSteps: "backup intent", wantErrContains: "boom"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var steps []string
			err := Execute(Steps{
				Backup: func() error { steps = append(steps, "backup"); return tc.backup },
				Intent: func() error { steps = append(steps, "intent"); return tc.intent },
				Apply:  func() error { steps = append(steps, "apply"); return tc.apply },
				Outcome: func(err error) error {
					steps = append(steps, fmt.Sprintf("outcome(%v)", err))
					if err != nil {
						return fmt.Errorf("recorded: %w", err)
					}
					return nil
				},
				Report: func(err error) error { steps = append(steps, fmt.Sprintf("report(%v)", err)); return err },
			})
			if got := strings.Join(steps, " "); got != tc.wantSteps {
				t.Fatalf("steps %q, want %q", got, tc.wantSteps)
			}
			if tc.wantErrContains == "" && err != nil || tc.wantErrContains != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErrContains)) {
				t.Fatalf("error %v, want %q", err, tc.wantErrContains)
			}
		})
	}
}
