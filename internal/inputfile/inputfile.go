// Package inputfile opens the files offsetctl reads as input (plan files,
// --command-config, the profiles file, password and token files, TLS
// certificates, processed logs) so that no path can make it hang or eat
// the machine's memory:
//
//   - a regular file is read through a size limit: stat says 0 for a
//     device, so the limit is on what is read, not on what stat says;
//   - a pipe (a FIFO, a shell's <(...) or /dev/stdin fed by a pipe) is read
//     through the same limit and with a deadline, and is opened without
//     blocking: a FIFO with no writer is an error at once instead of
//     hanging in open(2) forever (Linux reads a writerless FIFO opened
//     O_NONBLOCK as end of file; a pipe that ends with no byte is refused
//     too, since an empty config read from a pipe is never meant);
//   - anything else (/dev/zero, /dev/urandom, a terminal, a directory, a
//     socket) is refused before reading a byte.
//
// Errors are *fs.PathError, like os.ReadFile's: the caller adds the flag.
package inputfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
	"time"

	"github.com/offsetctl/offsetctl/internal/safetext"
)

// Limits for the kinds of input. Config files are a few KiB; a CA bundle
// is under 1 MiB. A plan names at most every partition of a cluster
// (a million rows of ~60 bytes).
const (
	ConfigLimit = 4 << 20
	PlanLimit   = 256 << 20
	LogLimit    = 1 << 30
)

// ErrNotRegular is the error for a path that is neither a regular file
// nor a pipe.
var ErrNotRegular = errors.New("not a regular file")

// Read returns the contents of path, refusing more than limit bytes, and,
// for a pipe, anything not at its end within wait.
func Read(path string, limit int64, wait time.Duration) ([]byte, error) {
	r, err := Open(path, limit, wait)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return readAll(r)
}

// Chunk sizes of readAll: the first is small (most inputs are a few KiB),
// each next one twice the last, up to maxChunk.
const (
	firstChunk = 4 << 10
	maxChunk   = 1 << 20
)

// readAll reads r to its end into chunks, joined once at the end.
// io.ReadAll doubles one buffer, so an endless pipe refused at a 256 MiB
// limit had cost 605 MB of RSS (the last buffer and the one before it);
// here what is held when the limit refuses it is the limit plus at most
// one chunk.
func readAll(r io.Reader) ([]byte, error) {
	var chunks [][]byte
	size, total := firstChunk, 0
	for {
		buf := make([]byte, size)
		n, err := io.ReadFull(r, buf)
		total += n
		chunks = append(chunks, buf[:n])
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return nil, err
		}
		size = min(2*size, maxChunk)
	}
	if len(chunks) == 1 {
		return chunks[0], nil
	}
	out := make([]byte, 0, total)
	for _, c := range chunks {
		out = append(out, c...)
	}
	return out, nil
}

// Open opens path for reading with Read's rules; reading past limit bytes
// or, for a pipe, past the deadline fails.
func Open(path string, limit int64, wait time.Duration) (io.ReadCloser, error) {
	// O_NONBLOCK: open(2) of a FIFO would otherwise wait for a writer,
	// and no deadline applies to open. For a regular file it is ignored.
	shown := safetext.Arg(path)
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, shorten(err, shown)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, shorten(err, shown)
	}
	switch m := fi.Mode(); {
	case m.IsRegular():
	case m&fs.ModeNamedPipe != 0:
		// The runtime poller owns a non-blocking pipe, so the deadline
		// interrupts a read that waits for a writer that never writes.
		if err := f.SetReadDeadline(time.Now().Add(wait)); err != nil {
			f.Close()
			return nil, &fs.PathError{Op: "read", Path: shown, Err: err}
		}
	default:
		f.Close()
		return nil, &fs.PathError{Op: "read", Path: shown, Err: fmt.Errorf("%w (%s)", ErrNotRegular, kind(m))}
	}
	return &limited{f: f, path: shown, left: limit, limit: limit, wait: wait, pipe: !fi.Mode().IsRegular()}, nil
}

// shorten puts the shown (quoted, cut) path in os's error, which would
// otherwise echo a path of any length and bytes.
func shorten(err error, shown string) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: pe.Op, Path: shown, Err: pe.Err}
	}
	return err
}

func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeCharDevice != 0:
		return "a character device, such as /dev/zero or a terminal"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "a special file"
}

// limited reads f and fails once more than limit bytes came.
type limited struct {
	f           *os.File
	path        string
	left, limit int64
	wait        time.Duration
	pipe        bool
}

func (l *limited) Read(p []byte) (int, error) {
	if int64(len(p)) > l.left+1 {
		p = p[:l.left+1]
	}
	n, err := l.f.Read(p)
	l.left -= int64(n)
	if l.left < 0 {
		return 0, &fs.PathError{Op: "read", Path: l.path, Err: fmt.Errorf("larger than %s: not the file expected here", size(l.limit))}
	}
	if err == io.EOF && l.pipe && l.left == l.limit {
		return n, &fs.PathError{Op: "read", Path: l.path, Err: errors.New("a pipe with no writer, or that ended with no data")}
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return n, &fs.PathError{Op: "read", Path: l.path, Err: fmt.Errorf("a pipe that did not end within %s (--timeout)", l.wait)}
	}
	return n, err
}

func (l *limited) Close() error { return l.f.Close() }

func size(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}
