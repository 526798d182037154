package audit

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/offsetctl/offsetctl/internal/durable"
	"github.com/offsetctl/offsetctl/internal/exitcode"
	"github.com/offsetctl/offsetctl/internal/safetext"
)

// A log that cannot be used for what its path is (a device, a directory,
// a socket, a symbolic link, a FIFO not named as the log or with nobody
// at its other end, another user's file, no such directory, no
// permission) is bad input, exit 2, for every command that reads or
// writes it: the path is the user's to fix (--audit-log, the variable, the
// state directory), and nothing was read or changed because of it, as
// docs/bad-input.md says of any file input at /dev/zero. A log that fails
// while it is used (a full disk, an I/O error, an append past its
// deadline, another offsetctl holding its lock) is an operational
// failure, exit 1.

// pathUsage marks err, about the log's path, as bad input.
func pathUsage(err error) error { return exitcode.AsUsage(err) }

// openUsage words an error of opening (or making the directory of) the
// log file name: bad input when the path is its cause (durable.UserPath),
// else the machine's.
func openUsage(shown string, err error) error {
	err = fmt.Errorf("audit log %s: %w", shown, unwrapPath(err))
	if durable.UserPath(err) {
		return pathUsage(err)
	}
	return err
}

// CheckPath says, without creating or reading anything, whether the log
// at path could be used as one: nothing there yet, or a regular file of
// the user's (a FIFO when explicit), not reached through a link. Its
// error is bad input, worded as opening the log to read or (write) to
// append words it: for the commands that append, before any request, and
// for those that read the log only to explain something (lag --status),
// which refuse a log named on their command line at once.
func CheckPath(path string, explicit, write bool) error {
	if path == Stdio {
		return nil
	}
	shown := safetext.Arg(path)
	st, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return openUsage(shown, err)
	case st.Mode()&fs.ModeSymlink != 0:
		return pathUsage(fmt.Errorf("audit log %s: a symbolic link: refused (the log is never reached through a link; name the file itself)", shown))
	}
	if _, err := checkKind(st, explicit); err != nil {
		if write && errors.Is(err, errNotRegular) {
			return pathUsage(fmt.Errorf("audit log %s: %w; to keep no log use --no-audit", shown, err)) // as opening it says
		}
		return pathUsage(fmt.Errorf("audit log %s: %w", shown, err))
	}
	return nil
}
