//go:build !unix

package audit

import "errors"

// openNonblock: no FIFOs to guard against here (see open_unix.go).
const openNonblock = 0

// errNoReader never happens here.
var errNoReader = errors.New("no reader")
