package change

import (
	"errors"
	"fmt"
	"strings"
	"sync"
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

// TestEachBound: every index runs exactly once, never more than limit at
// once, and the bound is reached when there is enough work.
func TestEachBound(t *testing.T) {
	for _, tc := range []struct{ n, limit, wantPeak int }{
		{n: 0, limit: 4, wantPeak: 0},
		{n: 1, limit: 4, wantPeak: 1},
		{n: 50, limit: 4, wantPeak: 4},
		{n: 7, limit: 0, wantPeak: 1},
		{n: 3, limit: 10, wantPeak: 3},
	} {
		t.Run(fmt.Sprintf("n%d-limit%d", tc.n, tc.limit), func(t *testing.T) {
			var mu sync.Mutex
			inFlight, peak := 0, 0
			ran := make([]int, tc.n)
			release := make(chan struct{})
			arrived := make(chan struct{}, tc.n)
			go func() {
				// Hold every call until as many as may run have
				// started, so the peak is the bound, not luck.
				for k := 0; k < tc.wantPeak; k++ {
					<-arrived
				}
				close(release)
			}()
			Each(tc.n, tc.limit, func(i int) {
				mu.Lock()
				inFlight++
				peak = max(peak, inFlight)
				ran[i]++
				mu.Unlock()
				arrived <- struct{}{}
				<-release
				mu.Lock()
				inFlight--
				mu.Unlock()
			})
			if tc.n == 0 {
				close(arrived)
			}
			if peak != tc.wantPeak {
				t.Errorf("peak in flight %d, want %d", peak, tc.wantPeak)
			}
			for i, r := range ran {
				if r != 1 {
					t.Errorf("index %d ran %d times", i, r)
				}
			}
		})
	}
}
