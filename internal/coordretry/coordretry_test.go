package coordretry

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
)

// kgo's error for a coordinator FindCoordinator named but the metadata
// does not list (errUnknownCoordinator, unexported), as it reads.
var notListed = errors.New("broker replied that group g1 has broker coordinator 3, but did not reply with that broker in the broker list")

func TestRetriable(t *testing.T) {
	for _, err := range []error{
		kerr.CoordinatorNotAvailable, kerr.CoordinatorLoadInProgress, kerr.NotCoordinator,
		fmt.Errorf("reading: %w", kerr.NotCoordinator),
		notListed,
		errors.New("broker replied that txn id x has broker coordinator 1, but did not reply with that broker in the broker list"),
		&GaveUpError{Key: Group("g"), Last: kerr.CoordinatorLoadInProgress},
	} {
		if !Retriable(err) {
			t.Errorf("%v: want retried", err)
		}
	}
	for _, err := range []error{
		nil, kerr.GroupIDNotFound, kerr.GroupAuthorizationFailed, kerr.ConcurrentTransactions,
		kerr.UnknownServerError, context.DeadlineExceeded, errors.New("connection reset by peer"),
		// the controller's variant is not a coordinator's
		errors.New("broker replied that the controller broker is 3, but did not reply with that broker in the broker list"),
	} {
		if Retriable(err) {
			t.Errorf("%v: want not retried", err)
		}
	}
}

func TestBackoff(t *testing.T) {
	want := []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond, time.Second, time.Second, time.Second}
	for try, w := range want {
		if got := Backoff(try); got != w {
			t.Errorf("backoff after %d failed tries = %s, want %s", try, got, w)
		}
	}
	if Backoff(1000) != time.Second {
		t.Errorf("no cap on a long run of retries: %s", Backoff(1000))
	}
}

// TestWaitBoundedByDeadline: a backoff the deadline would cut is not
// begun (the context is still live when Wait says no), one that fits is
// waited, and a cancelled context stops at once.
func TestWaitBoundedByDeadline(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if Wait(ctx, 2*time.Minute) {
		t.Error("Wait agreed to a backoff past the deadline")
	}
	if ctx.Err() != nil {
		t.Error("Wait slept instead of giving up at once")
	}
	if !Wait(ctx, time.Millisecond) {
		t.Error("Wait refused a backoff well within the deadline")
	}
	if !Wait(context.Background(), time.Millisecond) {
		t.Error("Wait refused a backoff without a deadline")
	}
	cctx, ccancel := context.WithCancel(context.Background())
	ccancel()
	if Wait(cctx, time.Hour) {
		t.Error("Wait went on after cancellation")
	}
}

func TestDoRetriesUntilAnswered(t *testing.T) {
	errs := []error{kerr.CoordinatorNotAvailable, notListed, kerr.CoordinatorLoadInProgress, kerr.NotCoordinator, nil}
	calls := 0
	var logged []string
	ctx := WithLog(context.Background(), func(msg string) { logged = append(logged, msg) })
	err := Do(ctx, Group("g"), func() error {
		calls++
		return errs[calls-1]
	})
	if err != nil || calls != len(errs) {
		t.Fatalf("Do = %v after %d calls, want nil after %d", err, calls, len(errs))
	}
	// Each wait is reported to the log, naming the key and the error.
	if len(logged) != len(errs)-1 || !strings.HasPrefix(logged[0], "waiting for the coordinator of group g: COORDINATOR_NOT_AVAILABLE") || !strings.Contains(logged[1], "broker list") {
		t.Errorf("logged %q", logged)
	}
	Note(context.Background(), Group("g"), kerr.NotCoordinator) // no log: nothing happens
}

func TestDoStopsOnOtherErrors(t *testing.T) {
	calls := 0
	err := Do(context.Background(), Group("g"), func() error {
		calls++
		if calls == 1 {
			return kerr.CoordinatorNotAvailable
		}
		return kerr.GroupAuthorizationFailed
	})
	if !errors.Is(err, kerr.GroupAuthorizationFailed) || calls != 2 {
		t.Fatalf("Do = %v after %d calls, want GROUP_AUTHORIZATION_FAILED after 2", err, calls)
	}
	var gu *GaveUpError
	if errors.As(err, &gu) {
		t.Errorf("a non-coordinator error was wrapped as a give-up: %v", err)
	}
}

// TestDoGivesUp: a coordinator that never comes ends the retries before
// the deadline; the error names the key, the last coordinator error (not
// the deadline that cut a retry) and the attempts.
func TestDoGivesUp(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	calls := 0
	err := Do(ctx, Txn("vis-3"), func() error {
		calls++
		if calls == 3 {
			return fmt.Errorf("cut: %w", context.DeadlineExceeded)
		}
		if calls%2 == 0 {
			return kerr.NotCoordinator
		}
		return kerr.CoordinatorNotAvailable
	})
	if ctx.Err() != nil {
		t.Error("Do ran into the deadline instead of giving up before it")
	}
	var gu *GaveUpError
	if !errors.As(err, &gu) {
		t.Fatalf("Do = %v, want a *GaveUpError", err)
	}
	if gu.Key != Txn("vis-3") || gu.Tries != calls || calls < 3 {
		t.Errorf("gave up as %+v after %d calls", gu, calls)
	}
	// 100+200+400+800 ms of backoff do not fit 1.5 s: 4 calls at most.
	if calls > 4 {
		t.Errorf("%d calls: the backoff was not respected", calls)
	}
	msg := err.Error()
	for _, want := range []string{"transactional id vis-3", "COORDINATOR_NOT_AVAILABLE", "after retrying for", fmt.Sprintf("after %d attempts", calls)} {
		if calls%2 == 0 && want == "COORDINATOR_NOT_AVAILABLE" {
			want = "NOT_COORDINATOR"
		}
		if !strings.Contains(msg, want) {
			t.Errorf("give-up message %q does not say %q", msg, want)
		}
	}
	if strings.Contains(msg, "\n") || strings.Contains(msg, "deadline") {
		t.Errorf("give-up message %q: want one line naming the coordinator error, not the deadline", msg)
	}
}

func TestRetryGaveUp(t *testing.T) {
	r := New(context.Background())
	if err := r.GaveUp(Group("g"), nil); err != nil {
		t.Errorf("GaveUp(nil) = %v", err)
	}
	if err := r.GaveUp(Group("g"), kerr.GroupIDNotFound); err != kerr.GroupIDNotFound {
		t.Errorf("GaveUp of another error = %v, want it as it was", err)
	}
	err := r.GaveUp(Group("a\x1bb"), kerr.NotCoordinator)
	if !errors.Is(err, kerr.NotCoordinator) || strings.Contains(err.Error(), "\x1b") || !strings.Contains(err.Error(), "group ") || !strings.Contains(err.Error(), "after 1 attempt within") {
		t.Errorf("GaveUp = %q", err)
	}
}

func TestKeep(t *testing.T) {
	if !Keep(kerr.NotCoordinator, context.DeadlineExceeded) || !Keep(kerr.CoordinatorNotAvailable, fmt.Errorf("x: %w", context.Canceled)) {
		t.Error("a retry cut by the deadline replaced the coordinator error")
	}
	if Keep(kerr.NotCoordinator, kerr.GroupIDNotFound) || Keep(kerr.GroupIDNotFound, context.DeadlineExceeded) || Keep(nil, context.DeadlineExceeded) {
		t.Error("Keep kept what it should not")
	}
}
