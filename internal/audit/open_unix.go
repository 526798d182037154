//go:build unix

package audit

import (
	"io/fs"
	"os"
	"syscall"
)

// openFlags are added to every open of the log and its rotated files.
// O_NONBLOCK makes opening a FIFO with no reader fail at once (ENXIO,
// open(2)) instead of blocking in the kernel until a reader comes: an
// --audit-log FIFO nobody read hung a reset before any change, deaf to
// SIGTERM. On a regular file it changes nothing, and Go's poller makes
// writes to a FIFO wait (under the append's deadline). O_NOFOLLOW makes
// a symbolic link at the log's path fail with ELOOP instead of sending
// the entries (or the reads of undo) to wherever the link points.
const openFlags = syscall.O_NONBLOCK | syscall.O_NOFOLLOW

// errNoReader is what such an open of a FIFO returns.
var errNoReader error = syscall.ENXIO

// errSymlink is what O_NOFOLLOW returns for a link.
var errSymlink error = syscall.ELOOP

// ownedByUs says whether fi belongs to the effective user: a log owned by
// someone else (a file planted in a shared directory) is refused, its
// entries are not ours to trust nor to add to.
func ownedByUs(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return !ok || int(st.Uid) == os.Geteuid()
}

// sameFile says whether a and b are one inode: a writer holding the log
// open finds out that another process rotated it.
func sameFile(a, b fs.FileInfo) bool { return os.SameFile(a, b) }
