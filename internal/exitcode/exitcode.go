// Package exitcode classifies errors into the process exit codes offsetctl
// promises: 0 ok, 1 operational failure, 2 bad usage or input, 3 replay
// verification failed, 4 a --fail-if threshold crossed, 141 stdout's
// reader went away early.
//
// Bad input has one convention. A library package (admin, replay, ...) that
// finds input it cannot act on returns Usagef/AsUsage, naming the value, not
// a flag; the command layer puts the flag in front (Flag) and Code maps the
// chain to exit 2.
package exitcode

import (
	"errors"
	"fmt"
	"strings"
)

// The exit codes.
const (
	OK         = 0
	Failure    = 1
	Usage      = 2
	Unverified = 3
	// Threshold: lag or groups printed their report, and a row or group
	// crossed a --fail-if threshold (a check for cron, CI, Kubernetes).
	Threshold = 4
	// OutputClosed: the reader of stdout (`| head`) went away before
	// everything asked for was written (any command that only reads: lag,
	// groups, history, a dry run, replay), and nothing else went wrong: a
	// command's own outcome (1, 3, 4) wins over it. It is 128+SIGPIPE, the
	// status a shell shows for cat or kcat ended by the same closed pipe,
	// so `set -o pipefail` scripts can tell it from a failure (1).
	OutputClosed = 141
)

// Error carries an exit code with an error.
type Error struct {
	Code int
	Err  error
	// Quiet: the command has said all there is (its summary); no error
	// line is printed.
	Quiet bool
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Usagef returns a bad-usage error (exit 2).
func Usagef(format string, args ...any) error {
	return &Error{Code: Usage, Err: fmt.Errorf(format, args...)}
}

// AsUsage marks err as bad usage (exit 2); nil stays nil.
func AsUsage(err error) error {
	if err == nil {
		return nil
	}
	return &Error{Code: Usage, Err: err}
}

// Flag marks a library's bad-input error as bad usage (exit 2) and puts the
// flag it came from in front: libraries name the value ("\"x\": want
// earliest, ..."), only the command layer knows the flag (--to). An error
// that does not name the value, only what is wanted ("want partition,
// topic or group", for a value that is not echoed), follows a colon, as
// pflag's own values do: "--by: want ...". nil stays nil.
func Flag(flag string, err error) error {
	if err == nil {
		return nil
	}
	if strings.HasPrefix(err.Error(), "want ") {
		return &Error{Code: Usage, Err: fmt.Errorf("%s: %w", flag, err)}
	}
	return &Error{Code: Usage, Err: fmt.Errorf("%s %w", flag, err)}
}

// Unverifiedf returns a verification failure (exit 3).
func Unverifiedf(format string, args ...any) error {
	return &Error{Code: Unverified, Err: fmt.Errorf(format, args...)}
}

// Code returns the exit code for err: 0 for nil, the code of the outermost
// *Error in the chain, else 1.
func Code(err error) int {
	if err == nil {
		return OK
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return Failure
}
