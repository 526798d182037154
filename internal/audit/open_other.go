//go:build !unix

package audit

import (
	"errors"
	"io/fs"
	"os"
)

// openFlags: no FIFOs nor O_NOFOLLOW here (see open_unix.go).
const openFlags = 0

// errNoReader and errSymlink never happen here.
var (
	errNoReader = errors.New("no reader")
	errSymlink  = errors.New("symbolic link")
)

func ownedByUs(fs.FileInfo) bool { return true }

func sameFile(a, b fs.FileInfo) bool { return os.SameFile(a, b) }
