package audit

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/offsetctl/offsetctl/internal/safetext"
)

// DefaultMaxLine bounds one line a reader holds: an entry keeps at most
// MaxInlineChanges changes inline (about 2 MiB with long names), so a
// longer line is not one offsetctl wrote, and it is skipped (reported as
// oversized) rather than read into memory.
const DefaultMaxLine = 32 << 20

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

// KnownVersion says whether this reader knows format version v. An entry
// of another version is shown as such and never acted on.
func KnownVersion(v int) bool { return v >= 1 && v <= Version }

// Spot is a line of one of the log's files.
type Spot struct {
	File  string `json:"file"`
	Line  int    `json:"line"`
	Bytes int64  `json:"bytes"`
	V     int    `json:"v,omitempty"`
}

func (s Spot) String() string { return fmt.Sprintf("%s line %d", safetext.Arg(s.File), s.Line) }

// Issues are the lines a read skipped or could not vouch for; the read
// goes on past each.
type Issues struct {
	// Torn lines are not entries: a write cut short (full disk, kill -9)
	// or a damaged line.
	Torn []Spot
	// Oversized lines are longer than the reader's bound: skipped unread.
	Oversized []Spot
	// Unknown entries are of a format version this reader does not know:
	// shown, never acted on.
	Unknown []Spot
	// Damaged compressed files end in a stream that does not decompress
	// (cut short, a bad block): what came before is read, the rest not.
	Damaged []Spot
	// Missing rotated files are listed in the index but gone (Line is
	// the entries the index says each held): their entries are not read.
	Missing []Spot
}

// Empty says nothing was skipped or doubtful.
func (i *Issues) Empty() bool {
	return len(i.Torn)+len(i.Oversized)+len(i.Unknown)+len(i.Damaged)+len(i.Missing) == 0
}

// Warnings are one line per kind of issue, for stderr.
func (i *Issues) Warnings() []string {
	var out []string
	if n := len(i.Torn); n > 0 {
		out = append(out, fmt.Sprintf("%d line(s) of the audit log are not entries (torn writes or damage; first: %s): skipped, the entries after them are read", n, i.Torn[0]))
	}
	if n := len(i.Oversized); n > 0 {
		out = append(out, fmt.Sprintf("%d line(s) of the audit log are oversized (first: %s, %d bytes): skipped unread", n, i.Oversized[0], i.Oversized[0].Bytes))
	}
	if n := len(i.Damaged); n > 0 {
		out = append(out, fmt.Sprintf("%d compressed file(s) of the audit log are damaged (first: %s, after %d line(s)): the rest of each is not read, the other files are", n, safetext.Arg(i.Damaged[0].File), i.Damaged[0].Line))
	}
	if n := len(i.Missing); n > 0 {
		out = append(out, fmt.Sprintf("%d rotated file(s) the index lists are missing (first: %s, %d entries): their entries are not read, so a change whose outcome was in one reads as unknown (deleted on purpose? remove its line from the index beside the log)", n, safetext.Arg(i.Missing[0].File), i.Missing[0].Line))
	}
	if n := len(i.Unknown); n > 0 {
		out = append(out, fmt.Sprintf("%d entr(ies) of the audit log are in a format this offsetctl does not know (first: %s, version %d; it knows 1 to %d): shown as read, never undone", n, i.Unknown[0], i.Unknown[0].V, Version))
	}
	return out
}

// CorruptError reports lines that are not entries (Read returns it with
// every entry it could read).
type CorruptError struct {
	Lines     []int
	Oversized []int
}

func (e *CorruptError) Error() string {
	if len(e.Lines) == 0 {
		return fmt.Sprintf("%d line(s) of the audit log are oversized (first: line %d); they were skipped", len(e.Oversized), e.Oversized[0])
	}
	return fmt.Sprintf("%d line(s) of the audit log are not entries (first: line %d); they were skipped", len(e.Lines), e.Lines[0])
}

// ReadOptions say how a log is read.
type ReadOptions struct {
	// MaxLine bounds a line; 0 is DefaultMaxLine.
	MaxLine int
	// Summary decodes entries without their changes: history's table
	// needs only the counts, and skipping them keeps memory flat.
	Summary bool
	// Explicit: the user named the path, so a FIFO (or "-": Stdin) is
	// read, for PipeWait at most.
	Explicit bool
	Stdin    io.Reader
	PipeWait time.Duration
	// IDPrefix, when set, reads only the files that may hold an entry
	// whose id starts with it (FilesFor), and decodes only the lines that
	// contain it: undo finds one entry in any log in about a second.
	IDPrefix string
	// After, when set, reads only the files that may hold an entry whose
	// id sorts after it (FilesAfter); Needles, when set, decodes only the
	// lines that contain one of them. Together they find the changes
	// recorded after one entry to its groups (NameNeedles) without
	// decoding the rest of the log.
	After   string
	Needles [][]byte
}

// NameNeedles are the byte strings a line naming one of names holds: each
// name as a JSON string, quotes included, as Marshal writes it.
func NameNeedles(names []string) [][]byte {
	var out [][]byte
	for _, n := range names {
		if b, err := json.Marshal(n); err == nil {
			out = append(out, b)
		}
	}
	return out
}

func containsAny(t []byte, needles [][]byte) bool {
	for _, n := range needles {
		if bytes.Contains(t, n) {
			return true
		}
	}
	return false
}

// Read parses one log stream with the default bound. Lines that are not
// entries (torn or damaged) and oversized lines are skipped and reported
// in a *CorruptError returned with the entries; an I/O error stops the
// read.
func Read(r io.Reader) ([]Entry, error) {
	var out []Entry
	var is Issues
	err := scan(r, "", ReadOptions{}, &is, func(e *Entry, _ []byte) error {
		out = append(out, *e)
		return nil
	})
	if err != nil {
		return out, err
	}
	if len(is.Torn)+len(is.Oversized) > 0 {
		ce := &CorruptError{}
		for _, s := range is.Torn {
			ce.Lines = append(ce.Lines, s.Line)
		}
		for _, s := range is.Oversized {
			ce.Oversized = append(ce.Oversized, s.Line)
		}
		return out, ce
	}
	return out, nil
}

// ReadFile reads every file of the log at path (rotated ones included);
// a log that does not exist yet is empty.
func ReadFile(path string) ([]Entry, error) {
	var out []Entry
	is, err := Walk(path, ReadOptions{Explicit: true}, func(e *Entry, _ []byte) error {
		out = append(out, *e)
		return nil
	})
	if err == nil && len(is.Torn)+len(is.Oversized) > 0 {
		err = &CorruptError{Lines: []int{firstLine(is)}}
	}
	return out, err
}

func firstLine(is Issues) int {
	if len(is.Torn) > 0 {
		return is.Torn[0].Line
	}
	return is.Oversized[0].Line
}

// Walk reads every file of the log at path, oldest first (Files), and
// calls fn with each entry and its line (valid during the call only).
// Memory is bounded by the longest line read (at most MaxLine). Issues
// say what was skipped; an error means a file could not be read (or fn
// failed), and the walk stops there.
func Walk(path string, o ReadOptions, fn func(e *Entry, line []byte) error) (Issues, error) {
	var is Issues
	if path == Stdio {
		if !o.Explicit || o.Stdin == nil {
			return is, errors.New("audit log -: standard input is read only when --audit-log - is given")
		}
		return is, scan(o.Stdin, "-", o, &is, fn)
	}
	files, err := Files(path)
	switch {
	case o.IDPrefix != "":
		files, err = FilesFor(path, o.IDPrefix)
	case o.After != "":
		files, err = FilesAfter(path, o.After)
	}
	if err != nil {
		return is, err
	}
	for _, name := range files {
		if err := walkFile(name, o, &is, fn); err != nil {
			return is, err
		}
	}
	if o.IDPrefix == "" && o.After == "" {
		is.Missing = missing(path, files)
	}
	return is, nil
}

// missing lists the rotated files the index names that are in neither
// form (plain nor .gz) among files.
func missing(path string, files []string) []Spot {
	idx, _ := ReadIndex(path) // no index (or a damaged one): nothing to compare
	have := map[string]bool{}
	for _, f := range files {
		have[strings.TrimSuffix(filepath.Base(f), ".gz")] = true
	}
	var out []Spot
	for _, ie := range idx {
		if have[ie.File] || exists(filepath.Join(filepath.Dir(path), ie.File)) {
			continue // read, or rotated during this read (its lines were read from the log)
		}
		out = append(out, Spot{File: ie.File, Line: ie.Entries, Bytes: ie.Bytes})
	}
	return out
}

func exists(name string) bool {
	_, err := os.Lstat(name)
	_, gzErr := os.Lstat(name + ".gz")
	return err == nil || gzErr == nil
}

func walkFile(name string, o ReadOptions, is *Issues, fn func(*Entry, []byte) error) error {
	f, err := openRead(name, o.Explicit)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // rotated (or compressed) since it was listed
	}
	if err != nil {
		return err
	}
	defer f.Close()
	if o.PipeWait > 0 {
		_ = f.SetReadDeadline(time.Now().Add(o.PipeWait)) // a FIFO's writer that never ends
	}
	var r io.Reader = f
	if st, err := f.Stat(); err == nil && st.Mode()&fs.ModeNamedPipe != 0 {
		r = &nonEmpty{r: f}
	}
	var dr *damageReader
	if strings.HasSuffix(name, ".gz") {
		zr, err := gzip.NewReader(bufio.NewReaderSize(f, 64<<10))
		if isDamage(err) {
			is.Damaged = append(is.Damaged, Spot{File: name})
			return nil
		}
		if err != nil {
			return fmt.Errorf("audit log %s: %w", safetext.Arg(name), err)
		}
		defer zr.Close()
		dr = &damageReader{r: zr}
		r = dr
	}
	if err := scan(r, name, o, is, fn); err != nil {
		return fmt.Errorf("audit log %s: %w", safetext.Arg(name), err)
	}
	if dr != nil && dr.damaged {
		is.Damaged = append(is.Damaged, Spot{File: name, Line: dr.lines, Bytes: dr.n})
	}
	return nil
}

// isDamage says err is a compressed stream that does not decompress, as
// opposed to a file that cannot be read (an I/O error stops the read).
func isDamage(err error) bool {
	var ce flate.CorruptInputError
	return errors.Is(err, gzip.ErrHeader) || errors.Is(err, gzip.ErrChecksum) || errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, &ce)
}

// damageReader ends a damaged stream as if it ended there, so its lines
// before the damage are read like the rest, and remembers it.
type damageReader struct {
	r       io.Reader
	n       int64 // bytes and whole lines read before the damage
	lines   int
	damaged bool
}

func (d *damageReader) Read(p []byte) (int, error) {
	k, err := d.r.Read(p)
	d.n += int64(k)
	d.lines += bytes.Count(p[:k], []byte{'\n'})
	if isDamage(err) {
		d.damaged = true
		return k, io.EOF
	}
	return k, err
}

// nonEmpty fails a pipe that ends before its first byte: a FIFO with no
// writer (opened O_NONBLOCK, it reads as end of file at once) is a log
// nobody is writing, not an empty one.
type nonEmpty struct {
	r    io.Reader
	seen bool
}

func (n *nonEmpty) Read(p []byte) (int, error) {
	k, err := n.r.Read(p)
	if k > 0 {
		n.seen = true
	}
	if err == io.EOF && !n.seen {
		return k, pathUsage(errors.New("a pipe with no writer, or that ended with no data"))
	}
	return k, err
}

// openRead opens one of the log's files for reading under the writer's
// rules: no symbolic link, a regular file owned by the user, a FIFO only
// when named.
func openRead(name string, explicit bool) (*os.File, error) {
	shown := safetext.Arg(name)
	f, err := os.OpenFile(name, os.O_RDONLY|openFlags, 0)
	switch {
	case errors.Is(err, errSymlink):
		return nil, pathUsage(fmt.Errorf("audit log %s: a symbolic link: refused (the log is never reached through a link; name the file itself)", shown))
	case errors.Is(err, fs.ErrNotExist):
		return nil, err
	case err != nil:
		return nil, openUsage(shown, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("audit log %s: %w", shown, unwrapPath(err))
	}
	if _, err := checkKind(st, explicit); err != nil {
		f.Close()
		return nil, pathUsage(fmt.Errorf("audit log %s: %w", shown, err))
	}
	return f, nil
}

// scan reads lines of r: each that parses as an entry (it has an id) goes
// to fn; the others are counted in is. Lines longer than the bound are
// passed over without being held.
func scan(r io.Reader, name string, o ReadOptions, is *Issues, fn func(*Entry, []byte) error) error {
	max := o.MaxLine
	if max <= 0 {
		max = DefaultMaxLine
	}
	lr := lineReader{br: bufio.NewReaderSize(r, 64<<10), max: max}
	for n := 1; ; n++ {
		line, size, over, err := lr.next()
		if err == io.EOF && size == 0 {
			return nil
		}
		if err != nil && err != io.EOF {
			return pipeErr(err, o.PipeWait)
		}
		spot := Spot{File: name, Line: n, Bytes: size}
		switch t := bytes.TrimSpace(line); {
		case over:
			is.Oversized = append(is.Oversized, spot)
		case len(t) == 0:
		case o.IDPrefix != "" && !bytes.Contains(t, []byte(o.IDPrefix)):
		case len(o.Needles) > 0 && !containsAny(t, o.Needles):
		default:
			if ferr := decodeLine(t, o.Summary, spot, is, fn); ferr != nil {
				return ferr
			}
		}
		if err == io.EOF {
			return nil
		}
	}
}

func decodeLine(t []byte, summary bool, spot Spot, is *Issues, fn func(*Entry, []byte) error) error {
	var e Entry
	var err error
	if summary {
		var s summaryEntry
		if cut, ok := cutChanges(t); ok && json.Unmarshal(cut, &s) == nil {
			e = s.Entry
		} else {
			s = summaryEntry{}
			err = json.Unmarshal(t, &s)
			e = s.Entry
		}
	} else {
		err = json.Unmarshal(t, &e)
	}
	// A kind this version does not have is an edit or damage (a new kind
	// would bump the version): not read as a self-contained change. Nor
	// is a line without an action, which every entry of these versions
	// has: a junk line with an id ({"id":"x"}) read as an entry of zero
	// time by no one.
	if err != nil || e.ID == "" || e.V <= Version && (e.Action == "" || e.Kind != "" && e.Kind != KindIntent && e.Kind != KindOutcome) {
		is.Torn = append(is.Torn, spot)
		return nil
	}
	if !KnownVersion(e.V) {
		spot.V = e.V
		is.Unknown = append(is.Unknown, spot)
	}
	return fn(&e, t)
}

// summaryEntry decodes an entry but its changes: the outer field wins
// over Entry's, and skipping costs a scan, not an allocation per change.
type summaryEntry struct {
	Entry
	Changes skipJSON `json:"changes"`
}

type skipJSON struct{}

// changesKey starts the changes of an entry. Inside a JSON string a quote
// is always escaped, so these bytes are a key wherever they appear; a
// line where they are not the top level's (a future nested field) fails
// to decode once cut, and is decoded whole instead.
var changesKey = []byte(`,"changes":[`)

// cutChanges returns the line without its changes array (most of a big
// entry's bytes): decoding the rest is what history's table needs, and a
// byte loop over the array is several times faster than the JSON scanner
// going through it.
func cutChanges(line []byte) ([]byte, bool) {
	i := bytes.Index(line, changesKey)
	if i < 0 {
		return nil, false
	}
	start := i + len(changesKey) - 1 // the '['
	depth, inString := 0, false
	for j := start; j < len(line); j++ {
		c := line[j]
		switch {
		case inString && c == '\\':
			j++
		case c == '"':
			inString = !inString
		case inString:
		case c == '[' || c == '{':
			depth++
		case c == ']' || c == '}':
			depth--
			if depth == 0 {
				out := make([]byte, 0, len(line)-(j-i))
				out = append(out, line[:i]...)
				return append(out, line[j+1:]...), true
			}
		}
	}
	return nil, false
}

func (*skipJSON) UnmarshalJSON([]byte) error { return nil }

func pipeErr(err error, wait time.Duration) error {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return fmt.Errorf("a pipe that did not end within %s", wait)
	}
	return err
}

// lineReader returns lines up to max bytes; a longer line is consumed and
// counted but not kept.
type lineReader struct {
	br  *bufio.Reader
	buf []byte
	max int
}

// next returns the next line without its newline (nothing and over when
// it was longer than the bound), its size in bytes, and io.EOF with the last line when the
// input ends (a line without a newline: still returned).
func (r *lineReader) next() ([]byte, int64, bool, error) {
	if cap(r.buf) > 4<<20 {
		r.buf = nil // give back the buffer of an exceptionally long line
	}
	r.buf = r.buf[:0]
	var size int64
	over := false
	for {
		chunk, err := r.br.ReadSlice('\n')
		size += int64(len(chunk))
		if !over && len(r.buf)+len(chunk) > r.max+1 {
			over, r.buf = true, r.buf[:0]
		}
		if !over {
			r.buf = append(r.buf, chunk...)
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err != nil && err != io.EOF:
			return nil, size, over, err
		}
		return bytes.TrimSuffix(r.buf, []byte{'\n'}), size, over, err
	}
}
