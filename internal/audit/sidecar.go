package audit

import (
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/offsetctl/offsetctl/internal/durable"
	"github.com/offsetctl/offsetctl/internal/safetext"
)

// MaxInlineChanges is the most partition changes an entry holds inline;
// beyond it they go to a sidecar file (ChangesFile), so that one entry of
// a 100,000-partition reset is a line of a few hundred bytes and a reader
// never holds more than a bounded line.
const MaxInlineChanges = 10000

// sidecarHeader is the first row of a changes file.
var sidecarHeader = []string{"group", "topic", "partition", "before", "after", "error"}

// encode makes e's line, moving its changes to a sidecar file beside a
// regular log when there are too many to inline.
func (l *Log) encode(e Entry) ([]byte, error) {
	if len(e.Changes) > MaxInlineChanges && l.kind == kindFile {
		name, sum, err := writeSidecar(filepath.Dir(l.path), sidecarStem(l.path)+"-changes-"+e.ID, e.Changes)
		if err != nil {
			return nil, fmt.Errorf("changes file of entry %s: %w", e.ID, err)
		}
		e.ChangesFile, e.ChangesSHA256, e.ChangesCount, e.Changes = name, sum, len(e.Changes), nil
	}
	return Marshal(e)
}

func sidecarStem(path string) string {
	base := filepath.Base(path)
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// writeSidecar writes changes as CSV to a new file in dir (never over
// another: O_EXCL, with -2, -3... when the name is taken), fsyncs it and
// its directory, and returns its name and SHA-256.
func writeSidecar(dir, stem string, changes []Change) (string, string, error) {
	f, path, err := durable.CreateNumbered(filepath.Join(dir, stem), ".csv", 100)
	if err != nil {
		return "", "", unwrapPath(err)
	}
	h := sha256.New()
	err = durable.Finish(f, path, func(w io.Writer) error { return writeChanges(io.MultiWriter(w, h), changes) })
	var de *durable.Error
	if errors.As(err, &de) {
		err = de.Err // a cut-short file must not pass for the changes: Finish removed it
	}
	if err != nil {
		return "", "", err
	}
	return filepath.Base(path), hex.EncodeToString(h.Sum(nil)), nil
}

func writeChanges(w io.Writer, changes []Change) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(sidecarHeader); err != nil {
		return err
	}
	for _, c := range changes {
		if err := cw.Write([]string{c.Group, c.Topic, strconv.Itoa(int(c.Partition)), offsetCell(c.Before), offsetCell(c.After), c.Error}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func offsetCell(v *int64) string {
	if v == nil {
		return ""
	}
	return strconv.FormatInt(*v, 10)
}

// LoadChanges fills e.Changes from its changes file, found beside the log
// at logPath, after checking the file's SHA-256 and row count against the
// entry. An entry without a changes file is returned as it is.
func LoadChanges(logPath string, e Entry) (Entry, error) {
	if e.ChangesFile == "" {
		return e, nil
	}
	shown := safetext.Arg(e.ChangesFile)
	if filepath.Base(e.ChangesFile) != e.ChangesFile {
		return e, fmt.Errorf("changes file %s of entry %s: not a file name in the log's directory", shown, e.ID)
	}
	f, err := openRead(filepath.Join(filepath.Dir(logPath), e.ChangesFile), false)
	if err != nil {
		return e, fmt.Errorf("changes file of entry %s: %w", e.ID, err)
	}
	defer f.Close()
	h := sha256.New()
	changes, err := ReadChanges(io.TeeReader(f, h))
	if err != nil {
		return e, fmt.Errorf("changes file %s of entry %s: %w", shown, e.ID, err)
	}
	if _, err := io.Copy(h, f); err != nil {
		return e, fmt.Errorf("changes file %s of entry %s: %w", shown, e.ID, err)
	}
	if sum := hex.EncodeToString(h.Sum(nil)); sum != e.ChangesSHA256 {
		return e, fmt.Errorf("changes file %s of entry %s has changed since it was written (SHA-256 %s, recorded %s)", shown, e.ID, sum, e.ChangesSHA256)
	}
	if len(changes) != e.ChangesCount {
		return e, fmt.Errorf("changes file %s of entry %s has %d rows, the entry says %d", shown, e.ID, len(changes), e.ChangesCount)
	}
	e.Changes = changes
	return e, nil
}

// ReadChanges parses a changes file (CSV: the header, then group, topic,
// partition, before, after, error; an empty offset is no commit).
func ReadChanges(r io.Reader) ([]Change, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = len(sidecarHeader)
	cr.ReuseRecord = true
	head, err := cr.Read()
	if err != nil || strings.Join(head, ",") != strings.Join(sidecarHeader, ",") {
		return nil, errors.New("not a changes file (want the header " + strings.Join(sidecarHeader, ",") + ")")
	}
	var out []Change
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		line, _ := cr.FieldPos(0)
		c := Change{Group: rec[0], Topic: rec[1], Error: rec[5]}
		p, err := strconv.ParseInt(rec[2], 10, 32)
		if err != nil || p < 0 {
			return nil, fmt.Errorf("line %d: partition %s is not a partition number", line, safetext.Arg(rec[2]))
		}
		c.Partition = int32(p)
		if c.Before, err = parseOffsetCell(rec[3]); err != nil {
			return nil, fmt.Errorf("line %d: before: %w", line, err)
		}
		if c.After, err = parseOffsetCell(rec[4]); err != nil {
			return nil, fmt.Errorf("line %d: after: %w", line, err)
		}
		out = append(out, c)
	}
}

func parseOffsetCell(s string) (*int64, error) {
	if s == "" {
		return nil, nil
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("%s is not an offset", safetext.Arg(s))
	}
	return &v, nil
}
