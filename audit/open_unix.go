//go:build unix

package audit

import "syscall"

// openNonblock makes opening a FIFO with no reader fail at once (ENXIO,
// open(2)) instead of blocking in the kernel until a reader comes: an
// --audit-log FIFO nobody read hung a reset before any change, deaf to
// SIGTERM. On a regular file it changes nothing, and Go's poller makes
// writes to a FIFO wait as usual.
const openNonblock = syscall.O_NONBLOCK

// errNoReader is what such an open returns.
var errNoReader error = syscall.ENXIO
