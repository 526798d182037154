package audit

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/offsetctl/offsetctl/internal/durable"
	"github.com/offsetctl/offsetctl/internal/safetext"
)

// Rotation. Once the log reaches Options.RotateSize, the writer that
// crossed it renames audit.jsonl to audit-<first id>.jsonl (the id of its
// first entry, so names sort by time) under the writers' lock, appends a
// line to the index audit.jsonl.index (the file, its first, lowest and
// highest id, entries and bytes), and, with Options.Gzip, compresses it
// to audit-<first id>.jsonl.gz. The next append creates a new audit.jsonl.
// Readers list the rotated files by name, so a file the index misses (a
// writer killed between the rename and the index) is still read.

// IndexEntry is one line of the index of rotated files.
type IndexEntry struct {
	File    string    `json:"file"`
	First   string    `json:"first_id"`
	Min     string    `json:"min_id"`
	Max     string    `json:"max_id"`
	Entries int       `json:"entries"`
	Bytes   int64     `json:"bytes"`
	Rotated time.Time `json:"rotated"`
}

// indexPath is the index beside the log.
func indexPath(path string) string { return path + ".index" }

// idShape is an id as NewID makes it: what a rotated file is named by.
var idShape = regexp.MustCompile(`^[0-9A-HJKMNP-TV-Z]{26}$`)

// rotatedPattern matches the rotated files of the log at path.
func rotatedPattern(path string) *regexp.Regexp {
	base := filepath.Base(path)
	ext := filepath.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	return regexp.MustCompile("^" + regexp.QuoteMeta(stem) + "-[0-9A-HJKMNP-TV-Z]{26}(-[0-9]+)?" + regexp.QuoteMeta(ext) + `(\.gz)?$`)
}

// Files lists the log's files to read, oldest first: the rotated ones by
// name (a plain file before its .gz twin, which is then left out: a
// compression cut short), then the log itself.
func Files(path string) ([]string, error) {
	dir := filepath.Dir(path)
	des, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, openUsage(safetext.Arg(path), err) // its directory: not one, no permission
	}
	re := rotatedPattern(path)
	plain := map[string]bool{}
	var names []string
	for _, de := range des {
		if n := de.Name(); re.MatchString(n) {
			names = append(names, n)
			plain[n] = true
		}
	}
	sort.Strings(names)
	var out []string
	for _, n := range names {
		if strings.HasSuffix(n, ".gz") && plain[strings.TrimSuffix(n, ".gz")] {
			continue
		}
		out = append(out, filepath.Join(dir, n))
	}
	return append(out, path), nil
}

// FilesFor lists the files that may hold an entry whose id starts with
// prefix: the index rules out rotated files whose ids are all outside it,
// so that undo of any id reads one rotated file and the current log.
func FilesFor(path, prefix string) ([]string, error) {
	all, err := Files(path)
	if err != nil {
		return nil, err
	}
	idx, _ := ReadIndex(path) // no index (or a damaged one): read everything
	ruled := map[string]bool{}
	for _, ie := range idx {
		if ie.Min != "" && ie.Max != "" && (cut(ie.Max, len(prefix)) < prefix || cut(ie.Min, len(prefix)) > prefix) {
			ruled[ie.File] = true
		}
	}
	var out []string
	for _, f := range all {
		if !ruled[strings.TrimSuffix(filepath.Base(f), ".gz")] {
			out = append(out, f)
		}
	}
	return out, nil
}

// FilesAfter lists the files that may hold an entry whose id sorts after
// id: the index rules out rotated files whose ids are all at or before it
// (an outcome's id sorts after its intent's, so a change recorded later
// is in a file whose highest id is after id); without an index, every
// file.
func FilesAfter(path, id string) ([]string, error) {
	all, err := Files(path)
	if err != nil {
		return nil, err
	}
	idx, _ := ReadIndex(path)
	ruled := map[string]bool{}
	for _, ie := range idx {
		if ie.Max != "" && ie.Max <= id {
			ruled[ie.File] = true
		}
	}
	var out []string
	for _, f := range all {
		if !ruled[strings.TrimSuffix(filepath.Base(f), ".gz")] {
			out = append(out, f)
		}
	}
	return out, nil
}

func cut(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// ReadIndex reads the index of rotated files (none: empty). Lines that
// do not parse are skipped: the index only narrows a search.
func ReadIndex(path string) ([]IndexEntry, error) {
	f, err := openRead(indexPath(path), false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parseIndex(f), nil
}

// parseIndex reads index lines; lines that are not index entries (or
// longer than 64 KiB) are skipped.
func parseIndex(r io.Reader) []IndexEntry {
	var out []IndexEntry
	lr := lineReader{br: bufio.NewReader(r), max: 64 << 10}
	for {
		line, _, over, err := lr.next()
		var ie IndexEntry
		if !over && json.Unmarshal(line, &ie) == nil && ie.File != "" {
			out = append(out, ie)
		}
		if err != nil {
			return out
		}
	}
}

// rotateIfDue rotates the log when it has reached RotateSize, under the
// writers' lock and within the deadline. The entry that crossed the size
// is already safe, so what goes wrong here is a warning.
func (l *Log) rotateIfDue() {
	done := make(chan error, 1)
	stop := make(chan struct{})
	go func() { done <- l.rotateLocked(stop) }()
	timer := time.NewTimer(l.opt.Deadline)
	defer timer.Stop()
	var err error
	select {
	case err = <-done:
	case <-timer.C:
		close(stop)
		err = fmt.Errorf("did not finish within %s", l.opt.Deadline)
	}
	if err != nil && l.opt.Warn != nil {
		l.opt.Warn(fmt.Sprintf("audit log %s: rotation: %v (the entry is recorded; the next append tries again)", safetext.Arg(l.path), err))
	}
}

func (l *Log) rotateLocked(stop <-chan struct{}) error {
	lock, err := l.lock(stop)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	st, err := os.Lstat(l.path)
	if err != nil || st.Size() < l.opt.RotateSize {
		return nil // another writer rotated it first
	}
	if err := endLine(l.path, st); err != nil {
		return err
	}
	if st, err = os.Lstat(l.path); err != nil {
		return unwrapPath(err)
	}
	ie, err := idRange(l.path)
	if err != nil {
		return err
	}
	ie.Bytes, ie.Rotated = st.Size(), time.Now().UTC()
	if !idShape.MatchString(ie.First) {
		// A log of torn lines only still rotates; an id not of
		// offsetctl's shape (a hand-edited log) never names a file.
		ie.First = NewID(ie.Rotated)
	}
	dir := filepath.Dir(l.path)
	ext := filepath.Ext(l.path)
	stem := strings.TrimSuffix(filepath.Base(l.path), ext)
	for i := 1; ; i++ {
		ie.File = stem + "-" + ie.First + ext
		if i > 1 {
			ie.File = fmt.Sprintf("%s-%s-%d%s", stem, ie.First, i, ext)
		}
		if _, err := os.Lstat(filepath.Join(dir, ie.File)); errors.Is(err, fs.ErrNotExist) {
			break
		}
		if _, err := os.Lstat(filepath.Join(dir, ie.File+".gz")); i > 100 || err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("no free name for the rotated file")
		}
	}
	rotated := filepath.Join(dir, ie.File)
	if err := os.Rename(l.path, rotated); err != nil {
		return unwrapPath(err)
	}
	durable.SyncDir(dir)
	if err := appendIndex(l.path, ie); err != nil {
		return fmt.Errorf("index: %w", err)
	}
	if l.opt.Gzip {
		return gzipFile(rotated)
	}
	return nil
}

// endLine ends the log at path (st: the file seen under the lock) with
// a newline when a write cut short left a fragment last: a rotated file
// is never appended to again, and read as one stream with the next
// (zcat audit-*.jsonl.gz | offsetctl --audit-log - history) its fragment
// would be glued to the next file's first entry.
func endLine(path string, st fs.FileInfo) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|openFlags, 0)
	if err != nil {
		return unwrapPath(err)
	}
	defer f.Close()
	now, err := f.Stat()
	switch {
	case err != nil:
		return err
	case !sameFile(st, now):
		return errors.New("replaced while it was rotated")
	case endsWithNewline(f, now.Size()):
		return nil
	}
	if err := writeAll(f, []byte{'\n'}); err != nil {
		return err
	}
	return f.Sync()
}

// idRange reads the log's ids: its first, lowest and highest (an
// outcome's intent id counts), and how many entries it holds.
func idRange(path string) (IndexEntry, error) {
	var ie IndexEntry
	_, err := Walk1(path, func(e *Entry) {
		if ie.First == "" {
			ie.First, ie.Min, ie.Max = e.ID, e.ID, e.ID
		}
		ie.Min, ie.Max = min(ie.Min, e.ID), max(ie.Max, e.ID)
		if e.Intent != "" {
			// An outcome is found by its intent's id: a rotation between
			// the two must not rule its file out.
			ie.Min, ie.Max = min(ie.Min, e.Intent), max(ie.Max, e.Intent)
		}
		ie.Entries++
	})
	return ie, err
}

// Walk1 reads one file of the log (not its rotated ones) in summary.
func Walk1(name string, fn func(*Entry)) (Issues, error) {
	var is Issues
	err := walkFile(name, ReadOptions{Summary: true}, &is, func(e *Entry, _ []byte) error {
		fn(e)
		return nil
	})
	return is, err
}

func appendIndex(path string, ie IndexEntry) error {
	b, err := json.Marshal(ie)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(indexPath(path), os.O_RDWR|os.O_APPEND|os.O_CREATE|openFlags, 0o600)
	if err != nil {
		return unwrapPath(err)
	}
	st, err := f.Stat()
	if err == nil {
		_, err = checkKind(st, false)
	}
	if err == nil {
		if !endsWithNewline(f, st.Size()) {
			b = append([]byte{'\n'}, b...)
		}
		err = writeAll(f, append(b, '\n'))
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// gzipFile compresses name to name.gz (durable.Replace: through a
// temporary file, fsynced, renamed) and removes name. Cut short, name is kept and readers skip
// the .gz twin.
func gzipFile(name string) error {
	in, err := openRead(name, false)
	if err != nil {
		return err
	}
	defer in.Close()
	err = durable.Replace(name+".gz", func(w io.Writer) error {
		zw := gzip.NewWriter(w)
		if _, err := io.Copy(zw, in); err != nil {
			return err
		}
		return zw.Close()
	})
	if err != nil {
		return fmt.Errorf("compressing %s: %w", filepath.Base(name), unwrapPath(err))
	}
	return os.Remove(name)
}
