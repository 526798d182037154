package audit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/offsetctl/offsetctl/internal/inputfile"
)

// Environment variables that place the log.
const (
	EnvLog       = "OFFSETCTL_AUDIT_LOG"
	envStateHome = "XDG_STATE_HOME"
)

// DefaultPath is where the log lives when --audit-log is not given:
// $OFFSETCTL_AUDIT_LOG, else $XDG_STATE_HOME/offsetctl/audit.jsonl, else
// $HOME/.local/state/offsetctl/audit.jsonl (the XDG base directory
// default). It is an error when none of them is set.
func DefaultPath(getenv func(string) string) (string, error) {
	if p := getenv(EnvLog); p != "" {
		return p, nil
	}
	if d := getenv(envStateHome); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "offsetctl", "audit.jsonl"), nil
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".local", "state", "offsetctl", "audit.jsonl"), nil
	}
	return "", fmt.Errorf("no place for the audit log: set $%s, $%s or $HOME, or pass --audit-log FILE (or --no-audit)", EnvLog, envStateHome)
}

// Log is the audit log opened for appending.
type Log struct {
	f    *os.File
	path string
}

// Open opens (creating, mode 0600, in a directory created 0700) the log
// at path for appending. Opening proves the log writable before a change
// is made.
func Open(path string) (*Log, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("audit log %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|openNonblock, 0o600)
	if errors.Is(err, errNoReader) {
		return nil, fmt.Errorf("audit log %s: a pipe with no reader", path)
	}
	if err != nil {
		return nil, fmt.Errorf("audit log %s: %w", path, err)
	}
	if st, err := f.Stat(); err == nil && !st.Mode().IsRegular() && st.Mode()&os.ModeNamedPipe == 0 && st.Mode()&os.ModeCharDevice == 0 {
		f.Close()
		return nil, fmt.Errorf("audit log %s: not a regular file", path)
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync() // best effort: a new file's directory entry
		_ = d.Close()
	}
	return &Log{f: f, path: path}, nil
}

// Path is where the log is.
func (l *Log) Path() string { return l.path }

// Append writes e as one line with one write(2) and fsyncs. On a file
// opened O_APPEND, Linux moves the offset to the end and writes under the
// inode's lock in one step, so lines of two processes appending at once
// never interleave (POSIX: "the file offset shall be set to the end of the
// file prior to each write and no intervening file modification operation
// shall occur").
func (l *Log) Append(e Entry) error {
	line, err := Marshal(e)
	if err != nil {
		return err
	}
	n, err := l.f.Write(line)
	if err == nil && n < len(line) {
		err = io.ErrShortWrite
	}
	if err != nil {
		return fmt.Errorf("writing audit log %s: %w", l.path, err)
	}
	// fsync(2) answers EINVAL on a file that cannot be synced (a pipe, a
	// character device such as /dev/null), which Open accepts: the line
	// was written, so that is no failure (it made a reset with
	// --audit-log /dev/null exit 1 after its change, "NOT recorded").
	if err := l.f.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) && !errors.Is(err, syscall.EINVAL) {
		return fmt.Errorf("syncing audit log %s: %w", l.path, err)
	}
	return nil
}

// Close closes the log.
func (l *Log) Close() error { return l.f.Close() }

// Append opens the log at path, appends e and closes it.
func Append(path string, e Entry) error {
	l, err := Open(path)
	if err != nil {
		return err
	}
	if err := l.Append(e); err != nil {
		l.Close()
		return err
	}
	return l.Close()
}

// Marshal encodes e as one log line, newline included. JSON escapes
// control characters, so a line never holds a raw line break.
func Marshal(e Entry) ([]byte, error) {
	if e.V == 0 {
		e.V = Version
	}
	b, err := json.Marshal(e)
	if err != nil {
		return nil, fmt.Errorf("encoding audit entry: %w", err)
	}
	return append(b, '\n'), nil
}

// CorruptError reports complete lines that are not entries. Read returns
// it with every entry it could read.
type CorruptError struct{ Lines []int }

func (e *CorruptError) Error() string {
	return fmt.Sprintf("%d line(s) of the audit log are not entries (first: line %d); they were skipped", len(e.Lines), e.Lines[0])
}

// maxLine bounds one entry (a reset of tens of thousands of partitions
// fits).
const maxLine = 256 << 20

// Read parses a log. A last line without its newline that does not parse
// is a write cut short (a killed writer, or one still writing) and is
// ignored. Other lines that do not parse are skipped and reported in a
// *CorruptError returned with the entries; an I/O error stops the read.
func Read(r io.Reader) ([]Entry, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var out []Entry
	var bad []int
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if len(line) > maxLine {
			return out, fmt.Errorf("line %d: longer than %d bytes", n, maxLine)
		}
		if err != nil && err != io.EOF {
			return out, err
		}
		torn := err == io.EOF
		if t := bytes.TrimSpace(line); len(t) > 0 {
			var e Entry
			switch jerr := json.Unmarshal(t, &e); {
			case jerr == nil && e.ID != "":
				out = append(out, e)
			case !torn:
				bad = append(bad, n)
			}
		}
		if torn {
			break
		}
	}
	if len(bad) > 0 {
		return out, &CorruptError{Lines: bad}
	}
	return out, nil
}

// ReadFile reads the log at path; a log that does not exist yet is empty.
// It is read through inputfile: never from a device, bounded, a pipe only
// for a while.
func ReadFile(path string) ([]Entry, error) {
	f, err := inputfile.Open(path, inputfile.LogLimit, 30*time.Second)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("audit log: %w", err)
	}
	defer f.Close()
	return Read(f)
}
