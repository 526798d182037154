package cli

import (
	"errors"
	"io"
	"syscall"

	"github.com/offsetctl/offsetctl/internal/exitcode"
)

// The rule for stdout's reader going away (`offsetctl lag --all-groups |
// head -1`), the same for every command, applied here and in execute:
//
//   - a command's own outcome wins: an operational failure (1), a
//     --fail-if threshold crossed (4), a replay whose verification failed
//     (3) exit with that code and print their line on stderr, as without
//     the pipe. A command whose report could not be written keeps
//     computing it (every batch of groups gathered, every row checked)
//     and returns withOutput(outcome, renderErr), so the exit status
//     never depends on whether the output fitted the pipe's buffer;
//   - when the closed pipe is all that is wrong, a command that only reads
//     (lag, groups, translate, diff, history, snapshot's table, a dry
//     run, replay) ends quietly, with no "broken pipe" line, with exit
//     141 (128+SIGPIPE, what a shell shows for cat or kcat ended by the
//     same closed pipe), or 0 when everything it was asked for had been
//     written (replay --max N: replay decides that itself);
//   - an endless mode asks for no last record (lag --watch, replay
//     --follow with no --until or --max): its reader leaving ends it as
//     Ctrl-C does, with the status Ctrl-C gives (0, or 1/4 for a failed
//     or crossing round);
//   - a command that changed a cluster (reset, delete-offsets and
//     delete-group with --execute, a backfill) says so and exits 1: the
//     change happened and the record of it on stdout was lost (the undo
//     line is on stderr either way). A file a command wrote (snapshot
//     --out) is confirmed on stderr whatever became of stdout.
//
// main ignores SIGPIPE, so a closed pipe reaches the writer as EPIPE
// instead of killing the process, possibly after a commit.

// outputWriter is stdout as every command sees it: a write that fails
// because the reader went away returns an *outputClosedError (wrapping
// the write's error, so errors.Is(err, syscall.EPIPE) still holds).
type outputWriter struct{ w io.Writer }

func (o outputWriter) Write(p []byte) (int, error) {
	n, err := o.w.Write(p)
	if err != nil && readerGone(err) {
		return n, &outputClosedError{err}
	}
	return n, err
}

// Fd is the file descriptor under the writer (for the terminal checks),
// or an invalid one when it is not a file.
func (o outputWriter) Fd() uintptr {
	if f, ok := o.w.(interface{ Fd() uintptr }); ok {
		return f.Fd()
	}
	return ^uintptr(0)
}

// readerGone: EPIPE from a pipe or socket whose reader exited, or
// io.ErrClosedPipe from an io.Pipe.
func readerGone(err error) bool {
	return errors.Is(err, syscall.EPIPE) || errors.Is(err, io.ErrClosedPipe)
}

// outputClosedError is a write to stdout whose reader went away.
type outputClosedError struct{ err error }

func (e *outputClosedError) Error() string { return e.err.Error() }
func (e *outputClosedError) Unwrap() error { return e.err }

// stdoutClosed reports whether err is the command stopping because its
// stdout's reader went away, and nothing else: an error that carries its
// own exit code (a failure a change command made loud, a usage error, a
// replay's 141) keeps it.
func stdoutClosed(err error) bool {
	var oc *outputClosedError
	var ee *exitcode.Error
	return errors.As(err, &oc) && !errors.As(err, &ee)
}

// loudAfterChange keeps a change command's closed stdout a failure
// (exit 1, with its line): the cluster was changed, and what was printed
// of it is lost.
func loudAfterChange(err error) error {
	if stdoutClosed(err) {
		return &exitcode.Error{Code: exitcode.Failure, Err: err}
	}
	return err
}

// withOutput is a command's own outcome (nil, a failure, a threshold, a
// failed verification) together with the error of writing its report to
// stdout. The outcome wins over a reader that left: the closed pipe adds
// nothing to it, and alone it is execute's quiet 141. Any other failed
// write is an operational failure, said beside the outcome.
func withOutput(outcome, write error) error {
	switch {
	case write == nil:
		return outcome
	case outcome == nil:
		return write
	case stdoutClosed(write):
		return outcome
	}
	return &exitcode.Error{Code: exitcode.Failure, Err: errors.Join(outcome, write)}
}
