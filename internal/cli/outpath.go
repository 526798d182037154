package cli

import (
	"errors"
	"io/fs"

	"github.com/offsetctl/offsetctl/internal/durable"
	"github.com/offsetctl/offsetctl/internal/exitcode"
	"github.com/offsetctl/offsetctl/internal/safetext"
)

// checkOut checks, before any request, the file a flag names for writing
// (durable.CheckNew, CheckWrite, CheckReplace or CheckDir): a path that
// cannot be written (no such directory, a directory where a file goes,
// no permission, a read-only file system) is bad input, exit 2, with
// nothing read or changed; so is one that exists, for a file that is
// never overwritten, said with exists ("a snapshot never overwrites").
// cannot is what the path cannot be ("cannot be created", "cannot be
// written").
func checkOut(flag, path string, check func(string) error, cannot, exists string) error {
	err := check(path)
	if err == nil {
		return nil
	}
	if errors.Is(err, fs.ErrExist) && exists != "" {
		return exitcode.Usagef("%s %s already exists: %s; choose another name", flag, safetext.Arg(path), exists)
	}
	if durable.UserPath(err) {
		return exitcode.Usagef("%s %s %s: %v", flag, safetext.Arg(path), cannot, err)
	}
	return err // the machine's (an I/O error): exit 1
}
