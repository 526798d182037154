package replay

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/offsetctl/offsetctl/internal/durable"
	"github.com/offsetctl/offsetctl/internal/exitcode"
	"github.com/offsetctl/offsetctl/internal/filelock"
	"github.com/offsetctl/offsetctl/internal/inputfile"
	"github.com/offsetctl/offsetctl/internal/safetext"
)

// A checkpoint (--checkpoint FILE, without --transactional-id) makes a
// backfill resumable at least once. The file, version 1, is one JSON
// object:
//
//	format        "offsetctl-backfill-checkpoint"
//	v             1
//	job           what the file belongs to: the source and target cluster
//	              ids, topics and topic ids, the range as typed (--from,
//	              --until, --partitions), --isolation, --partitioner and
//	              --source-header. A run whose job differs refuses the file.
//	written       when it was written (RFC 3339)
//	complete      true once every record of the range was acknowledged
//	ranges        per source partition: from and bound (the range the first
//	              run resolved: a rerun keeps it, so --from ago:1h or the
//	              captured end offsets do not move) and next, the source
//	              offset before which every record's copy was acknowledged
//	target_ends   per target partition: an offset such that every record of
//	              the target at or past it was written after this checkpoint
//	              (a copy of a record at or past next, or another writer's)
//	acked_beyond  copies of records at or past next already acknowledged (or
//	              failed with an unknown outcome) when it was written: they
//	              lie below target_ends and a resume copies them again
//	others_below  records below target_ends (and past the target's end
//	              offsets when the run started) that are not the run's
//	              acknowledged copies: copies of an earlier run, killed
//	              with copies in flight, that the broker wrote after this
//	              run read the target's end offsets, or another writer's
//	              (left out when 0)
//
// A resume counts the possible duplicates as acked_beyond plus
// others_below plus, per target partition, its end offset now minus
// target_ends. A run that completes adds, per target partition, its end
// offset then minus its end offset at the start minus the run's copies
// there (the records others wrote while it copied), and says so on a
// second line. With no other writer to the target, and no copy whose
// failure hid a write, the sum over the runs is exactly the number of
// extra copies the target holds once the copy completes: every record
// of the target lies between one run's start and the next run's, and is
// there either the run's acknowledged copy or counted once.
//
// It is written before the first copy, after every produce answer (one
// write at a time: the answers that arrive during a write are covered by
// the next; --checkpoint-interval spaces the writes out) and at the end.
// The file is replaced, never edited: written to a temporary file in the
// same directory, fsynced, renamed over the old one, and the directory
// fsynced, so a kill -9 or a power loss leaves the old checkpoint or the
// new one, whole. A run holds FILE.lock (LockCheckpoint) from before it
// reads the file until it ends, so two runs never share one checkpoint.

// CheckpointFormat and CheckpointVersion identify the file format.
const (
	CheckpointFormat  = "offsetctl-backfill-checkpoint"
	CheckpointVersion = 1
)

// CheckpointLimit bounds a checkpoint file. A real one holds about 150
// bytes per partition of the source and target topics (a range and a
// target end, indented), so 64 MiB is over 400,000 partitions, far past
// any topic Kafka serves well; a larger file is refused by its size before
// a byte is decoded, which bounds what a hostile file can make offsetctl
// allocate.
const CheckpointLimit = 64 << 20

// DefaultCheckpointInterval is the least time between two checkpoint
// writes by default: none. The acknowledged position is written after
// each produce answer (writes coalesce while one is in flight), so a
// kill -9 loses at most the copies acknowledged during one write; a
// positive interval is an opt-in lower write rate.
const DefaultCheckpointInterval time.Duration = 0

// CheckpointOptions makes a backfill resumable at least once.
type CheckpointOptions struct {
	Path string
	// From, Until and Partitions are the range as typed on the command
	// line: with the topics and clusters they say what the file belongs
	// to.
	From, Until, Partitions string
	// Interval is the least time between the starts of two writes; 0
	// (DefaultCheckpointInterval) writes after every produce answer.
	Interval time.Duration
	// Notef receives the resume line (how many records of the target may
	// be duplicates) before anything is copied.
	Notef func(format string, args ...any)

	isolation string // set by Run: part of the job
}

// CheckpointJob is what a checkpoint belongs to.
type CheckpointJob struct {
	SourceCluster string `json:"source_cluster"`
	SourceTopic   string `json:"source_topic"`
	SourceTopicID string `json:"source_topic_id"`
	From          string `json:"from"`
	Until         string `json:"until"`
	Partitions    string `json:"partitions"`
	Isolation     string `json:"isolation"`
	TargetCluster string `json:"target_cluster"`
	TargetTopic   string `json:"target_topic"`
	TargetTopicID string `json:"target_topic_id"`
	Partitioner   string `json:"partitioner"`
	SourceHeader  bool   `json:"source_header"`
}

// Differs names the first field in which j and o differ ("" when equal),
// in the words of the command line, without either value (they may be
// long or hold anything).
func (j CheckpointJob) Differs(o CheckpointJob) string {
	if d := j.Differences(o); len(d) > 0 {
		return d[0]
	}
	return ""
}

// Differences names every field in which j and o differ, as Differs does.
// A topic's id is named only where its cluster and name are the same
// (another topic has another id: no news).
func (j CheckpointJob) Differences(o CheckpointJob) []string {
	var out []string
	srcSame := j.SourceCluster == o.SourceCluster && j.SourceTopic == o.SourceTopic
	dstSame := j.TargetCluster == o.TargetCluster && j.TargetTopic == o.TargetTopic
	for _, f := range []struct {
		name string
		same bool
	}{
		{"the source cluster", j.SourceCluster == o.SourceCluster},
		{"the source topic", j.SourceTopic == o.SourceTopic},
		{"the source topic's id (recreated since?)", j.SourceTopicID == o.SourceTopicID || !srcSame},
		{"--from", j.From == o.From},
		{"--until", j.Until == o.Until},
		{"--partitions", j.Partitions == o.Partitions},
		{"--isolation", j.Isolation == o.Isolation},
		{"the target cluster", j.TargetCluster == o.TargetCluster},
		{"--produce-to", j.TargetTopic == o.TargetTopic},
		{"the target topic's id (recreated since?)", j.TargetTopicID == o.TargetTopicID || !dstSame},
		{"--partitioner", j.Partitioner == o.Partitioner},
		{"--source-header", j.SourceHeader == o.SourceHeader},
	} {
		if !f.same {
			out = append(out, f.name)
		}
	}
	return out
}

// CheckpointRange is one source partition of a checkpoint.
type CheckpointRange struct {
	Partition int32 `json:"partition"`
	From      int64 `json:"from"`
	Bound     int64 `json:"bound"`
	Next      int64 `json:"next"`
}

// TargetEnd is one target partition of a checkpoint.
type TargetEnd struct {
	Partition int32 `json:"partition"`
	Offset    int64 `json:"offset"`
}

// Checkpoint is the content of a checkpoint file.
type Checkpoint struct {
	Format      string            `json:"format"`
	V           int               `json:"v"`
	Job         CheckpointJob     `json:"job"`
	Written     time.Time         `json:"written"`
	Complete    bool              `json:"complete"`
	Ranges      []CheckpointRange `json:"ranges"`
	TargetEnds  []TargetEnd       `json:"target_ends"`
	AckedBeyond int64             `json:"acked_beyond"`
	OthersBelow int64             `json:"others_below,omitempty"`
}

// CheckpointResult is what a checkpointed backfill reports.
type CheckpointResult struct {
	Path string `json:"path"`
	// Resumed: the run continued from the file.
	Resumed bool `json:"resumed"`
	// PossibleDuplicates counts records of the target that a resume may
	// have duplicated: copies made after the last checkpoint write of the
	// run before, which this one copies again (see checkpoint.go).
	PossibleDuplicates int64 `json:"possible_duplicates"`
	// AlreadyComplete: the file said the range was copied; nothing was
	// done.
	AlreadyComplete bool `json:"already_complete,omitempty"`
	// Complete: the file now says the range is copied.
	Complete bool `json:"complete"`
	// Writes counts checkpoint writes of this run.
	Writes int `json:"writes"`
}

// ParseCheckpoint parses and checks a checkpoint file's content.
func ParseCheckpoint(data []byte) (*Checkpoint, error) {
	return decodeCheckpoint(bytes.NewReader(data))
}

// decodeCheckpoint reads and checks one checkpoint from r.
func decodeCheckpoint(r io.Reader) (*Checkpoint, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	c, err := decodeFields(dec)
	if err != nil {
		return nil, fmt.Errorf("not a backfill checkpoint (%v)", shortJSONErr(err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("not a backfill checkpoint (more than one JSON value)")
	}
	if c.Format != CheckpointFormat {
		return nil, errors.New("not a backfill checkpoint (no \"format\": \"" + CheckpointFormat + "\")")
	}
	if c.V != CheckpointVersion {
		return nil, fmt.Errorf("backfill checkpoint version %d: this offsetctl reads version %d", c.V, CheckpointVersion)
	}
	if c.Job.SourceTopic == "" || c.Job.TargetTopic == "" {
		return nil, errors.New("backfill checkpoint names no source or target topic")
	}
	if err := checkRanges(c.Ranges, c.Complete); err != nil {
		return nil, err
	}
	seen := map[int32]bool{}
	for _, e := range c.TargetEnds {
		if e.Partition < 0 || e.Offset < 0 || seen[e.Partition] {
			return nil, fmt.Errorf("backfill checkpoint: target partition %d: negative or repeated", e.Partition)
		}
		seen[e.Partition] = true
	}
	if c.AckedBeyond < 0 {
		return nil, errors.New("backfill checkpoint: acked_beyond is negative")
	}
	// acked_beyond counts copies of distinct records at or past next, so
	// it is at most the records left in the range; more (up to MaxInt64)
	// would overflow the possible duplicates a resume reports. (A
	// complete checkpoint's is never read.)
	if left := recordsLeft(c.Ranges); !c.Complete && c.AckedBeyond > left {
		return nil, fmt.Errorf("backfill checkpoint: acked_beyond %d is more than the %d record(s) left in its range", c.AckedBeyond, left)
	}
	// others_below counts records below target_ends: at most their sum.
	if below := endsSum(c.TargetEnds); c.OthersBelow < 0 || c.OthersBelow > below {
		return nil, fmt.Errorf("backfill checkpoint: others_below %d is negative or more than the %d record(s) below its target_ends", c.OthersBelow, below)
	}
	return &c, nil
}

// decodeFields decodes the checkpoint object a field at a time, and its
// two arrays an element at a time: json.Decoder.Decode of the whole object
// first buffers all of its text, a second copy of the file, and a
// hostile file of 99 MB (under the old 256 MiB limit) took 440 to 630 MB
// of peak RSS in ReadCheckpoint alone.
// Field names are matched exactly (WriteCheckpoint's), unknown ones
// refused, a repeated one wins last as with encoding/json.
func decodeFields(dec *json.Decoder) (Checkpoint, error) {
	var c Checkpoint
	if err := wantDelim(dec, '{'); err != nil {
		return c, err
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return c, err
		}
		key, _ := t.(string)
		switch key {
		case "format":
			err = dec.Decode(&c.Format)
		case "v":
			err = dec.Decode(&c.V)
		case "job":
			err = dec.Decode(&c.Job)
		case "written":
			err = dec.Decode(&c.Written)
		case "complete":
			err = dec.Decode(&c.Complete)
		case "acked_beyond":
			err = dec.Decode(&c.AckedBeyond)
		case "others_below":
			err = dec.Decode(&c.OthersBelow)
		case "ranges":
			c.Ranges, err = decodeArray[CheckpointRange](dec)
		case "target_ends":
			c.TargetEnds, err = decodeArray[TargetEnd](dec)
		default:
			err = fmt.Errorf("json: unknown field %q", key)
		}
		if err != nil {
			return c, err
		}
	}
	return c, wantDelim(dec, '}')
}

// decodeArray decodes a JSON array (or null) one element at a time.
func decodeArray[T any](dec *json.Decoder) ([]T, error) {
	t, err := dec.Token()
	if err != nil || t == nil {
		return nil, err
	}
	if d, ok := t.(json.Delim); !ok || d != '[' {
		return nil, fmt.Errorf("want an array, got %v", t)
	}
	var out []T
	for dec.More() {
		var v T
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, wantDelim(dec, ']')
}

// wantDelim reads the next token and wants it to be d.
func wantDelim(dec *json.Decoder, d json.Delim) error {
	t, err := dec.Token()
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	if err != nil {
		return err
	}
	if got, ok := t.(json.Delim); !ok || got != d {
		return fmt.Errorf("want %q, got %v", rune(d), t)
	}
	return nil
}

// recordsLeft is the number of offsets from next to bound over rs
// (checked by checkRanges), at most math.MaxInt64.
func recordsLeft(rs []CheckpointRange) int64 {
	var n int64
	for _, r := range rs {
		if d := r.Bound - r.Next; d > 0 {
			n = addSat(n, d)
		}
	}
	return n
}

// endsSum is the sum of the target ends' offsets (at most MaxInt64): no
// more records lie below them.
func endsSum(es []TargetEnd) int64 {
	var n int64
	for _, e := range es {
		n = addSat(n, e.Offset)
	}
	return n
}

// addSat is a+b for non-negative a and b, MaxInt64 where that overflows.
func addSat(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

func checkRanges(rs []CheckpointRange, complete bool) error {
	if len(rs) == 0 {
		return errors.New("backfill checkpoint has no partitions")
	}
	seen := map[int32]bool{}
	for _, r := range rs {
		if r.Partition < 0 || seen[r.Partition] {
			return fmt.Errorf("backfill checkpoint: partition %d: negative or repeated", r.Partition)
		}
		seen[r.Partition] = true
		if r.From < 0 || r.Next < r.From || r.Bound < r.From || r.Next > max(r.Bound, r.From) {
			return fmt.Errorf("backfill checkpoint: partition %d: want 0 ≤ from ≤ next ≤ bound, got from %d, next %d, bound %d", r.Partition, r.From, r.Next, r.Bound)
		}
		if complete && r.Next != r.Bound {
			return fmt.Errorf("backfill checkpoint: marked complete but partition %d is at %d of %d", r.Partition, r.Next, r.Bound)
		}
	}
	return nil
}

// shortJSONErr keeps a decoding error to one short printable line: it
// may quote a field name from the file, which can hold anything.
func shortJSONErr(err error) string {
	s := err.Error()
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return safetext.Text(s)
}

// ReadCheckpoint reads the checkpoint at path: nil, nil when there is none
// yet. Only a regular file is read: the path is replaced by rename at
// every write, which must not consume a pipe's data or replace a device.
// One over CheckpointLimit is refused by its size before it is read, and
// the read itself stops at the limit (a file growing meanwhile).
func ReadCheckpoint(path string, wait time.Duration) (*Checkpoint, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file: a checkpoint is replaced at every write")
	}
	if fi.Size() > CheckpointLimit {
		return nil, fmt.Errorf("%d bytes, larger than a backfill checkpoint can be (%d MiB, over 400,000 partitions): not a checkpoint file", fi.Size(), CheckpointLimit>>20)
	}
	f, err := inputfile.Open(path, CheckpointLimit, wait)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return decodeCheckpoint(&tokenLimit{r: bufio.NewReaderSize(f, 64<<10), max: checkpointTokenLimit})
}

// checkpointTokenLimit bounds one string or number of a checkpoint. The
// longest real one is an argument as typed (--partitions), which Linux
// caps at 128 KiB (MAX_ARG_STRLEN); json.Decoder buffers a whole token,
// so without this one 60 MB string would cost four times that.
const checkpointTokenLimit = 1 << 20

// tokenLimit passes r through, failing once a JSON string or bare token
// (number, true, ...) runs past max bytes. It tracks only whether it is
// inside a string (and after a backslash there), which is enough to tell
// where a token ends.
type tokenLimit struct {
	r           io.Reader
	n, max      int
	inStr, back bool
}

func (t *tokenLimit) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	for _, c := range p[:n] {
		switch {
		case t.inStr:
			t.n++
			switch {
			case t.back:
				t.back = false
			case c == '\\':
				t.back = true
			case c == '"':
				t.inStr, t.n = false, 0
			}
		case c == '"':
			t.inStr, t.n = true, 1
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' || c == ':' || c == '{' || c == '}' || c == '[' || c == ']':
			t.n = 0
		default:
			t.n++
		}
		if t.n > t.max {
			return 0, fmt.Errorf("a string or number longer than %d MiB", t.max>>20)
		}
	}
	return n, err
}

// LockCheckpoint takes the lock of the checkpoint at path for a run: an
// exclusive flock of path+".lock" (the checkpoint itself is replaced by
// rename at every write, so a lock on it would be on the old file). Two
// runs of one checkpoint would both copy the whole range and each count
// only its own duplicates; the kernel drops the lock when the run ends,
// however (kill -9 too). Holding it, nothing else writes this checkpoint,
// so the temporary files of a write killed half-way are removed.
func LockCheckpoint(path string) (*filelock.Lock, error) {
	l, err := filelock.TryLock(path + ".lock")
	if errors.Is(err, filelock.ErrLocked) {
		return nil, fmt.Errorf("another run holds the checkpoint %s (its lock %s): wait for it to end, or stop it; nothing was copied", safetext.Arg(path), safetext.Arg(filepath.Base(path)+".lock"))
	}
	if err != nil {
		return nil, exitcode.Usagef("--checkpoint %s: taking its lock: %v; nothing was copied", safetext.Arg(path), err)
	}
	if err := removeStaleTemps(path); err != nil {
		l.Unlock()
		return nil, fmt.Errorf("--checkpoint %s: removing the temporary files of an interrupted write: %v; nothing was copied", safetext.Arg(path), err)
	}
	return l, nil
}

// removeStaleTemps removes the temporary files WriteCheckpoint leaves when
// killed between creating one and renaming it: "."+base+".tmp-" and the
// digits os.CreateTemp puts for its "*".
func removeStaleTemps(path string) error {
	dir, prefix := filepath.Dir(path), durable.TempPrefix(path)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok || rest == "" || strings.Trim(rest, "0123456789") != "" || !e.Type().IsRegular() {
			continue
		}
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// WriteCheckpoint replaces the file at path with c durably: a temporary
// file in the same directory, fsynced, renamed over path, then the
// directory fsynced (the rename is durable only then).
func WriteCheckpoint(path string, c Checkpoint) error {
	c.Format, c.V = CheckpointFormat, CheckpointVersion
	// Sorted copies: the caller's slices stay as they were.
	c.Ranges, c.TargetEnds = slices.Clone(c.Ranges), slices.Clone(c.TargetEnds)
	slices.SortFunc(c.Ranges, func(a, b CheckpointRange) int { return int(a.Partition - b.Partition) })
	slices.SortFunc(c.TargetEnds, func(a, b TargetEnd) int { return int(a.Partition - b.Partition) })
	data, err := json.MarshalIndent(c, "", " ")
	if err != nil {
		return err
	}
	return durable.Replace(path, func(w io.Writer) error {
		_, err := w.Write(append(data, '\n'))
		return err
	})
}
