package cli

import (
	"fmt"

	"github.com/offsetctl/offsetctl/internal/safetext"
	"github.com/offsetctl/offsetctl/internal/textlist"
)

// liveOp names what a selection was asked to do, in its messages.
type liveOp int

const (
	resetOp liveOp = iota
	deleteOffsetsOp
	deleteGroupOp
)

// words are the verb, its past participle, and what the selected groups
// had to be worth changing.
func (o liveOp) words() (verb, done, what string) {
	switch o {
	case deleteOffsetsOp:
		return "delete", "deleted", "offsets on these topics"
	case deleteGroupOp:
		return "delete", "deleted", ""
	}
	return "reset", "reset", "something to reset"
}

// skippedLiveError is the failure of a selection (--all-groups, --regex)
// that skipped groups for their live members: what was asked for them was
// not done, so the command exits 1 even when every other group changed,
// and the audit entry names them (outcome partly, or refused when no group
// changed). A script running a fleet change must not read success from it.
type skippedLiveError struct {
	op     liveOp
	groups []string
	dryRun bool // the dry run: --execute would skip them
	none   bool // no other group had anything to change
}

func (e *skippedLiveError) Error() string {
	names := make([]string, len(e.groups))
	for i, g := range e.groups {
		names[i] = safetext.Arg(g)
	}
	list := textlist.Short(names, 10, ", ")
	n := textlist.Count(len(e.groups), "group")
	verb, done, what := e.op.words()
	sel := "every selected group is live"
	if what != "" {
		sel = "every selected group with " + what + " is live"
	}
	switch {
	case e.dryRun && e.none:
		return fmt.Sprintf("%s: --execute would %s nothing (%s skipped: %s); stop their consumers first", sel, verb, n, list)
	case e.dryRun:
		return fmt.Sprintf("--execute would leave %s live and unchanged: %s; stop their consumers first, or leave them out with --exclude", n, list)
	case e.none:
		return fmt.Sprintf("nothing was %s: %s (%s skipped: %s); stop their consumers first", done, sel, n, list)
	}
	return fmt.Sprintf("%s skipped as live, not %s: %s; stop their consumers and run again for them", n, done, list)
}

// withSkippedLiveOp adds the live groups a selection skipped to a change's
// error err (nil when every other group changed as planned); none says no
// other group had anything to change.
func withSkippedLiveOp(op liveOp, err error, live []string, none bool) error {
	if len(live) == 0 {
		return err
	}
	sk := &skippedLiveError{op: op, groups: live, none: none}
	if err == nil {
		return sk
	}
	return fmt.Errorf("%w; and %v", err, sk)
}

// onlySkippedLive reports whether err is a skippedLiveError alone: the
// change itself succeeded.
func onlySkippedLive(err error) bool {
	sk, ok := err.(*skippedLiveError)
	return ok && sk != nil
}
