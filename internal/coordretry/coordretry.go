// Package coordretry is offsetctl's one retry policy for requests that go
// to a coordinator (a group's or a transactional id's): OffsetFetch,
// OffsetCommit, TxnOffsetCommit, InitProducerId, AddOffsetsToTxn, EndTxn,
// the group describes, OffsetDelete, DeleteGroups, DescribeTransactions,
// AlterShareGroupOffsets and DeleteShareGroupOffsets.
//
// Why offsetctl retries at all: kgo retries a plain coordinator request
// (InitProducerId, OffsetCommit, ...) whose FindCoordinator or answer says
// the coordinator is not there, up to its own retry limit, but a request
// it shards by coordinator (OffsetFetch, DescribeGroups, DeleteGroups,
// ...) fails at once for the groups whose FindCoordinator failed (seen in
// its debug log: "sharded request req=OffsetFetch destinations=[err]").
// On a freshly started Apache Kafka 4.4 broker the first FindCoordinator
// of a group answers COORDINATOR_NOT_AVAILABLE while the broker creates
// __consumer_offsets and loads its partitions (measured: the first
// transactional backfill on such a broker exited 1 at once reading its
// position; a run a few seconds later worked), and a broker fenced for a
// moment makes kgo fail with "... has broker coordinator N, but did not
// reply with that broker in the broker list" once its retries are spent.
//
// What it retries proves the request was not applied: a coordinator error
// is the broker refusing it, and a coordinator missing from the broker
// list means kgo never sent it. A request whose answer was lost (a dropped
// connection, a deadline) is not retried here: whether it was applied is
// unknown, and the caller's read-back or take-over decides.
package coordretry

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/offsetctl/offsetctl/internal/safetext"
)

// Retriable reports whether err says the coordinator is not there yet or
// has moved: COORDINATOR_NOT_AVAILABLE (a fresh cluster still creating
// __consumer_offsets or __transaction_state), COORDINATOR_LOAD_IN_PROGRESS
// (a broker loading the partition after a restart), NOT_COORDINATOR (it
// moved), or kgo's error for a coordinator that FindCoordinator named but
// the metadata does not list (a broker fenced for a moment). All pass with
// time; kafka-consumer-groups.sh retries the first three too.
func Retriable(err error) bool {
	return errors.Is(err, kerr.CoordinatorNotAvailable) ||
		errors.Is(err, kerr.CoordinatorLoadInProgress) ||
		errors.Is(err, kerr.NotCoordinator) ||
		notInBrokerList(err)
}

// notInBrokerList matches kgo's unexported errUnknownCoordinator by its
// text ("broker replied that group G has broker coordinator N, but did not
// reply with that broker in the broker list"; "txn id" for a transactional
// id): kgo exports no way to tell it apart from its other retriable errors.
func notInBrokerList(err error) bool {
	if err == nil {
		return false
	}
	s := err.Error()
	return strings.Contains(s, "has broker coordinator") && strings.Contains(s, "did not reply with that broker in the broker list")
}

// Backoff is the wait before the retry after try failed ones: 100ms
// doubling up to 1s (the Java admin client's retry.backoff.ms and
// retry.backoff.max.ms).
func Backoff(try int) time.Duration {
	return min(100*time.Millisecond<<min(try, 4), time.Second)
}

// Wait waits d, unless ctx ends first or would end within d: a wait that
// the deadline would cut leaves no time for the retry, so it is not begun.
func Wait(ctx context.Context, d time.Duration) bool {
	if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) <= d {
		return false
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

type logKey struct{}

// WithLog returns ctx with log, which each retry under ctx reports to
// (--verbose): a wait on a coordinator is otherwise silent, and kgo does
// not log FindCoordinator's error codes.
func WithLog(ctx context.Context, log func(msg string)) context.Context {
	return context.WithValue(ctx, logKey{}, log)
}

// Note reports, to ctx's log if it has one, that key's coordinator
// answered err and is retried.
func Note(ctx context.Context, key Key, err error) {
	if log, ok := ctx.Value(logKey{}).(func(string)); ok && log != nil {
		log(fmt.Sprintf("waiting for the coordinator of %s: %v", key, err))
	}
}

// Key names what a coordinator is looked up for.
type Key struct {
	// Kind is "group" or "transactional id".
	Kind string
	Name string
}

// Group is the key of a consumer group's coordinator.
func Group(name string) Key { return Key{Kind: "group", Name: name} }

// Txn is the key of a transactional id's coordinator.
func Txn(id string) Key { return Key{Kind: "transactional id", Name: id} }

func (k Key) String() string { return k.Kind + " " + safetext.Arg(k.Name) }

// GaveUpError is a coordinator error that outlived the retries: the
// command's deadline came first.
type GaveUpError struct {
	Key Key
	// Last is the last coordinator error.
	Last error
	// Tries counts the attempts; Waited is the time from the first to the
	// last.
	Tries  int
	Waited time.Duration
}

// GaveUpText is in every GaveUpError's text, for callers that hold only
// the text of an outcome (a plan's per-group error).
const GaveUpText = "gave up waiting for the coordinator of"

func (e *GaveUpError) Error() string {
	attempts := "attempts"
	if e.Tries == 1 {
		attempts = "attempt"
	}
	return fmt.Sprintf("%v (still, after retrying for %s: %s %s after %d %s within --timeout)",
		e.Last, e.Waited.Round(100*time.Millisecond), GaveUpText, e.Key, e.Tries, attempts)
}

func (e *GaveUpError) Unwrap() error { return e.Last }

// Retry is one run of the policy over a set of keys: Attempt records each
// key's outcome and Next says whether to try again.
type Retry struct {
	ctx   context.Context
	start time.Time
	try   int
}

// New starts a retry run bounded by ctx.
func New(ctx context.Context) *Retry { return &Retry{ctx: ctx, start: time.Now()} }

// Next is called after an attempt that left some coordinator error: it
// counts that attempt, waits the backoff and reports whether there is
// time for another attempt.
func (r *Retry) Next() bool {
	ok := Wait(r.ctx, Backoff(r.try))
	r.try++
	return ok
}

// GaveUp wraps err, the last answer for key, when it is a coordinator
// error: the give-up names the key, the error and how long it was retried.
// Other errors (and nil) are returned as they are.
func (r *Retry) GaveUp(key Key, err error) error {
	if !Retriable(err) {
		return err
	}
	return &GaveUpError{Key: key, Last: err, Tries: max(r.try, 1), Waited: time.Since(r.start)}
}

// Keep reports whether a retry's error next should not replace prev, the
// coordinator error of the attempt before: a retry cut by the deadline
// says less than the error that made it retry.
func Keep(prev, next error) bool {
	return Retriable(prev) && (errors.Is(next, context.DeadlineExceeded) || errors.Is(next, context.Canceled))
}

// Do calls fn until it returns nil or an error that is not a coordinator
// error (see Retriable), waiting Backoff between attempts, or until ctx
// would end before the next attempt: then it returns a *GaveUpError naming
// key and the last coordinator error. fn must be safe to call again after
// a coordinator error (see the package comment).
func Do(ctx context.Context, key Key, fn func() error) error {
	r := New(ctx)
	var last error
	for {
		err := fn()
		if last != nil && Keep(last, err) {
			err = last
		}
		if !Retriable(err) {
			return err
		}
		last = err
		Note(ctx, key, err)
		if !r.Next() {
			return r.GaveUp(key, last)
		}
	}
}
