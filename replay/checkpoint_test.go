package replay

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/offsetctl/offsetctl/internal/exitcode"
)

func sampleCheckpoint() Checkpoint {
	return Checkpoint{
		Format: CheckpointFormat, V: CheckpointVersion,
		Job: CheckpointJob{SourceCluster: "c1", SourceTopic: "orders", SourceTopicID: "AAA", From: "earliest", Isolation: "read_committed",
			TargetCluster: "c1", TargetTopic: "orders-copy", TargetTopicID: "BBB", Partitioner: "same"},
		Written:     time.Date(2026, 12, 1, 23, 0, 0, 0, time.UTC),
		Ranges:      []CheckpointRange{{Partition: 0, From: 0, Bound: 100, Next: 40}, {Partition: 1, From: 5, Bound: 5, Next: 5}},
		TargetEnds:  []TargetEnd{{Partition: 0, Offset: 41}, {Partition: 1, Offset: 0}},
		AckedBeyond: 2,
	}
}

func TestParseCheckpoint(t *testing.T) {
	edit := func(f func(*Checkpoint)) string {
		c := sampleCheckpoint()
		f(&c)
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, tc := range []struct {
		name, in, err string
	}{
		{"valid", edit(func(*Checkpoint) {}), ""},
		{"none beyond", edit(func(c *Checkpoint) { c.AckedBeyond = 0 }), ""},
		{"complete", edit(func(c *Checkpoint) { c.Complete, c.Ranges[0].Next = true, 100 }), ""},
		{"complete but behind", edit(func(c *Checkpoint) { c.Complete = true }), "marked complete but partition 0 is at 40 of 100"},
		{"empty", "", "not a backfill checkpoint"},
		{"not json", "hello", "not a backfill checkpoint"},
		{"two values", edit(func(*Checkpoint) {}) + " {}", "more than one JSON value"},
		{"unknown field", strings.Replace(edit(func(*Checkpoint) {}), `"v":1`, `"v":1,"extra":2`, 1), "unknown field"},
		{"other format", edit(func(c *Checkpoint) { c.Format = "offsetctl-backup" }), "not a backfill checkpoint"},
		{"newer version", edit(func(c *Checkpoint) { c.V = 2 }), "version 2"},
		{"no source topic", edit(func(c *Checkpoint) { c.Job.SourceTopic = "" }), "no source or target topic"},
		{"no partitions", edit(func(c *Checkpoint) { c.Ranges = nil }), "no partitions"},
		{"repeated partition", edit(func(c *Checkpoint) { c.Ranges[1].Partition = 0 }), "partition 0: negative or repeated"},
		{"negative partition", edit(func(c *Checkpoint) { c.Ranges[0].Partition = -1 }), "negative or repeated"},
		{"next before from", edit(func(c *Checkpoint) { c.Ranges[0].From = 50 }), "want 0 ≤ from ≤ next ≤ bound"},
		{"next past bound", edit(func(c *Checkpoint) { c.Ranges[0].Next = 101 }), "want 0 ≤ from ≤ next ≤ bound"},
		{"bound before from", edit(func(c *Checkpoint) { c.Ranges[1].Bound = 4 }), "want 0 ≤ from ≤ next ≤ bound"},
		{"negative target end", edit(func(c *Checkpoint) { c.TargetEnds[0].Offset = -1 }), "target partition 0"},
		{"repeated target", edit(func(c *Checkpoint) { c.TargetEnds[1].Partition = 0 }), "target partition 0"},
		{"negative beyond", edit(func(c *Checkpoint) { c.AckedBeyond = -1 }), "acked_beyond is negative"},
		// 60 records are left (40..99 of partition 0): a copy of each
		// acknowledged is the most there can be; one more is no
		// checkpoint's, and MaxInt64 overflowed the duplicates a resume
		// reported (QA: -9223372036854424345 record(s) may be duplicates).
		{"all left beyond", edit(func(c *Checkpoint) { c.AckedBeyond = 60 }), ""},
		{"more beyond than left", edit(func(c *Checkpoint) { c.AckedBeyond = 61 }), "acked_beyond 61 is more than the 60 record(s) left"},
		{"max beyond", edit(func(c *Checkpoint) { c.AckedBeyond = math.MaxInt64 }), "is more than the 60 record(s) left"},
		// others_below counts records below target_ends (41 + 0): at
		// most 41; a file without it (older offsetctl) has none.
		{"others below", edit(func(c *Checkpoint) { c.OthersBelow = 41 }), ""},
		{"more others than below the ends", edit(func(c *Checkpoint) { c.OthersBelow = 42 }), "others_below 42 is negative or more than the 41 record(s) below"},
		{"negative others", edit(func(c *Checkpoint) { c.OthersBelow = -1 }), "others_below -1 is negative"},
		{"max others", edit(func(c *Checkpoint) { c.OthersBelow = math.MaxInt64 }), "more than the 41 record(s) below"},
		{"others below huge ends", edit(func(c *Checkpoint) {
			c.TargetEnds[0].Offset, c.TargetEnds[1].Offset = math.MaxInt64, math.MaxInt64
			c.OthersBelow = math.MaxInt64
		}), ""},
		{"beyond a huge range", edit(func(c *Checkpoint) {
			c.Ranges[0].Bound, c.Ranges[1].Bound = math.MaxInt64, math.MaxInt64
			c.AckedBeyond = math.MaxInt64
		}), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ParseCheckpoint([]byte(tc.in))
			if tc.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				if c.Job != sampleCheckpoint().Job || len(c.Ranges) != 2 || c.AckedBeyond < 0 {
					t.Fatalf("parsed %+v", c)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("error %v, want %q", err, tc.err)
			}
			if strings.ContainsAny(err.Error(), "\n\r") {
				t.Fatalf("error is not one line: %q", err)
			}
		})
	}
}

func TestCheckpointJobDiffers(t *testing.T) {
	base := sampleCheckpoint().Job
	for _, tc := range []struct {
		want string
		edit func(*CheckpointJob)
	}{
		{"", func(*CheckpointJob) {}},
		{"the source cluster", func(j *CheckpointJob) { j.SourceCluster = "c2" }},
		{"the source topic", func(j *CheckpointJob) { j.SourceTopic = "x" }},
		{"the source topic's id (recreated since?)", func(j *CheckpointJob) { j.SourceTopicID = "x" }},
		{"--from", func(j *CheckpointJob) { j.From = "0=5" }},
		{"--until", func(j *CheckpointJob) { j.Until = "100" }},
		{"--partitions", func(j *CheckpointJob) { j.Partitions = "0" }},
		{"--isolation", func(j *CheckpointJob) { j.Isolation = "read_uncommitted" }},
		{"the target cluster", func(j *CheckpointJob) { j.TargetCluster = "c2" }},
		{"--produce-to", func(j *CheckpointJob) { j.TargetTopic = "y" }},
		{"the target topic's id (recreated since?)", func(j *CheckpointJob) { j.TargetTopicID = "y" }},
		{"--partitioner", func(j *CheckpointJob) { j.Partitioner = "key" }},
		{"--source-header", func(j *CheckpointJob) { j.SourceHeader = true }},
		{"--from", func(j *CheckpointJob) { j.From, j.Partitioner = "1", "key" }}, // the first one named
	} {
		j := base
		tc.edit(&j)
		if got := base.Differs(j); got != tc.want {
			t.Errorf("Differs = %q, want %q", got, tc.want)
		}
	}
}

// TestWriteReadCheckpoint: a write replaces the file whole (no temporary
// file left), reads back equal, and only a regular file is read.
func TestWriteReadCheckpoint(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "bf.ckpt")
	if c, err := ReadCheckpoint(path, time.Second); c != nil || err != nil {
		t.Fatalf("missing file: %v, %v", c, err)
	}
	c := sampleCheckpoint()
	c.Format, c.V = "", 0 // the writer sets them
	// Written in partition order whatever the order given.
	c.Ranges = []CheckpointRange{{Partition: 2, Bound: 9, Next: 9}, c.Ranges[0], c.Ranges[1]}
	c.TargetEnds = []TargetEnd{{Partition: 2, Offset: 7}, c.TargetEnds[0], c.TargetEnds[1]}
	for i := 0; i < 3; i++ {
		c.Ranges[1].Next = int64(40 + i)
		if err := WriteCheckpoint(path, c); err != nil {
			t.Fatal(err)
		}
	}
	got, err := ReadCheckpoint(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if got.Ranges[0].Next != 42 || got.Format != CheckpointFormat || got.V != 1 || !got.Written.Equal(c.Written) {
		t.Fatalf("read back %+v", got)
	}
	for i := range got.Ranges {
		if got.Ranges[i].Partition != int32(i) || got.TargetEnds[i].Partition != int32(i) {
			t.Fatalf("not in partition order: %+v %+v", got.Ranges, got.TargetEnds)
		}
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Fatalf("%d files in the directory, want the checkpoint alone", len(ents))
	}
	if _, err := ReadCheckpoint("/dev/null", time.Second); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("/dev/null: %v", err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadCheckpoint(fifo, time.Second); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("fifo: %v", err)
	}
	if err := WriteCheckpoint(filepath.Join(dir, "no", "such", "dir"), c); err == nil {
		t.Fatal("a write into a missing directory succeeded")
	}
	// The rename over a directory fails: an error, and no temporary file
	// is left behind.
	sub := filepath.Join(dir, "sub")
	if err := os.MkdirAll(filepath.Join(sub, "x"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := WriteCheckpoint(sub, c); err == nil {
		t.Fatal("a write over a directory succeeded")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 3 {
		t.Fatalf("%d entries after a failed write, want the checkpoint, the fifo and the directory", len(ents))
	}
}

// A decoding error is cut to 120 bytes and marked, not before.
func TestShortJSONErr(t *testing.T) {
	at := strings.Repeat("x", 120)
	if got := shortJSONErr(errors.New(at)); got != at {
		t.Errorf("120 bytes: %q", got)
	}
	if got := shortJSONErr(errors.New(at + "y")); got != at+"…" {
		t.Errorf("121 bytes: %q", got)
	}
}

func FuzzParseCheckpoint(f *testing.F) {
	b, _ := json.Marshal(sampleCheckpoint())
	f.Add(b)
	f.Add([]byte(`{"format":"offsetctl-backfill-checkpoint","v":1}`))
	f.Add([]byte(`{"ranges":[{"partition":0,"from":-1}]}`))
	f.Add([]byte(`{"format":"offsetctl-backfill-checkpoint","v":1,"\u001b[31m":1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseCheckpoint(data)
		if err != nil {
			if c != nil || strings.IndexFunc(err.Error(), func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0 || len(err.Error()) > 400 {
				t.Fatalf("bad error %q (checkpoint %v)", err, c)
			}
			return
		}
		// What parses holds its invariants and survives a round trip.
		for _, r := range c.Ranges {
			if r.From < 0 || r.Next < r.From || r.Next > max(r.Bound, r.From) {
				t.Fatalf("range %+v", r)
			}
		}
		again, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ParseCheckpoint(again); err != nil {
			t.Fatalf("round trip: %v", err)
		}
	})
}

// TestCheckpointState: what a checkpoint records from the copy state.
// Partition 0 has copies acknowledged through offset 9, then one in
// flight and one acknowledged out of order (--partitioner key) at a target
// offset below the last acknowledged one; partition 1 acknowledged
// nothing yet; partition 2 has a failed copy at its head. The target ends
// are the larger of the start ends and one past the last acknowledged
// copy per target partition.
func TestCheckpointState(t *testing.T) {
	nine := int64(9)
	b := &backfiller{
		plan: Plan{Partitions: []PartitionPlan{{Partition: 0, From: 0, Bound: 100}, {Partition: 1, From: 30, Bound: 50}, {Partition: 2, From: 5, Bound: 8}}},
		parts: map[int32]*inflight{
			0: {acked: &nine, queue: []slot{{offset: 10}, {offset: 11, done: true, ok: true}}},
			1: {},
			2: {queue: []slot{{offset: 5, done: true}, {offset: 6}}},
		},
		// Target partition 0: 27 of the 30 records from 12 to 41 are this
		// run's copies, 3 are others'; partition 3 holds only copies.
		targets: map[int32]*targetAcks{0: {last: 41, n: 27}, 3: {last: 7, n: 8}},
		ck: &checkpointer{
			ranges:   map[int32]CheckpointRange{0: {Partition: 0, From: 0, Bound: 100}, 1: {Partition: 1, From: 20, Bound: 50}, 2: {Partition: 2, From: 5, Bound: 8}},
			baseEnds: map[int32]int64{0: 12, 1: 3, 2: 0, 3: 0},
		},
	}
	c := b.checkpointState(false)
	wantNext := map[int32]int64{0: 10, 1: 30, 2: 5}
	for _, r := range c.Ranges {
		if r.Next != wantNext[r.Partition] {
			t.Errorf("partition %d: next %d, want %d", r.Partition, r.Next, wantNext[r.Partition])
		}
	}
	if c.AckedBeyond != 2 {
		t.Errorf("acked beyond %d, want 2 (one out of order, one failed with an unknown outcome)", c.AckedBeyond)
	}
	if c.OthersBelow != 3 {
		t.Errorf("others below %d, want 3 (records of target partition 0 between its start end and its last copy that are not copies)", c.OthersBelow)
	}
	wantEnds := map[int32]int64{0: 42, 1: 3, 2: 0, 3: 8}
	if len(c.TargetEnds) != len(wantEnds) {
		t.Fatalf("target ends %+v", c.TargetEnds)
	}
	for _, e := range c.TargetEnds {
		if e.Offset != wantEnds[e.Partition] {
			t.Errorf("target partition %d: end %d, want %d", e.Partition, e.Offset, wantEnds[e.Partition])
		}
	}
	done := b.checkpointState(true)
	for _, r := range done.Ranges {
		if r.Next != r.Bound || !done.Complete || done.AckedBeyond != 0 {
			t.Errorf("complete: %+v, beyond %d", r, done.AckedBeyond)
		}
	}
}

// LockCheckpoint: a second lock of the same checkpoint is refused with
// the line naming the file (exit 1: not bad input, the other run is
// real); once released it is granted, and taking it removes the
// temporary files an interrupted WriteCheckpoint left (and no others).
func TestLockCheckpoint(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "bf.ckpt")
	stale := []string{".bf.ckpt.tmp-123", ".bf.ckpt.tmp-4294967295"}
	kept := []string{"bf.ckpt", ".bf.ckpt.tmp-", ".bf.ckpt.tmp-12x", ".other.ckpt.tmp-1", "bf.ckpt.tmp-1"}
	for _, n := range append(append([]string{}, stale...), kept...) {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a, err := LockCheckpoint(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range stale {
		if _, err := os.Stat(filepath.Join(dir, n)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: %v, want it removed", n, err)
		}
	}
	for _, n := range kept {
		if _, err := os.Stat(filepath.Join(dir, n)); err != nil {
			t.Errorf("%s: %v, want it kept", n, err)
		}
	}
	_, err = LockCheckpoint(path)
	if err == nil || exitcode.Code(err) != 1 || !strings.Contains(err.Error(), "another run holds the checkpoint "+path) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("second lock: %v (exit %d), want one line naming the checkpoint, exit 1", err, exitcode.Code(err))
	}
	if err := a.Unlock(); err != nil {
		t.Fatal(err)
	}
	b, err := LockCheckpoint(path)
	if err != nil {
		t.Fatalf("lock after release: %v", err)
	}
	b.Unlock()
}

// A file over CheckpointLimit is refused by its size, unread (a sparse
// file), one string over the token limit as soon as it is read, and both
// errors are one line; a real checkpoint just under neither still reads.
func TestReadCheckpointLimits(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.ckpt")
	if err := os.WriteFile(big, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, CheckpointLimit+1); err != nil {
		t.Fatal(err)
	}
	_, err := ReadCheckpoint(big, time.Second)
	if want := fmt.Sprintf("%d bytes, larger than a backfill checkpoint can be (64 MiB", CheckpointLimit+1); err == nil || !strings.Contains(err.Error(), want) || strings.ContainsAny(err.Error(), "\n\r") {
		t.Fatalf("ReadCheckpoint of %d bytes: %v, want one line with %q", CheckpointLimit+1, err, want)
	}
	long := filepath.Join(dir, "long.ckpt")
	if err := os.WriteFile(long, []byte(`{"job":{"partitions":"`+strings.Repeat("7", checkpointTokenLimit+1)+`"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadCheckpoint(long, time.Second); err == nil || !strings.Contains(err.Error(), "a string or number longer than 1 MiB") {
		t.Fatalf("ReadCheckpoint of a 1 MiB string: %v", err)
	}
	// An escaped quote does not end a string: the token runs on.
	esc := filepath.Join(dir, "esc.ckpt")
	if err := os.WriteFile(esc, []byte(`{"format":"`+strings.Repeat(`\"`, checkpointTokenLimit/2+1)+`"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadCheckpoint(esc, time.Second); err == nil || !strings.Contains(err.Error(), "longer than 1 MiB") {
		t.Fatalf("ReadCheckpoint of escaped quotes: %v", err)
	}
	// Many partitions, each token short: read whole.
	c := sampleCheckpoint()
	c.Ranges = nil
	for p := int32(0); p < 20000; p++ {
		c.Ranges = append(c.Ranges, CheckpointRange{Partition: p, From: 0, Bound: 10, Next: 5})
	}
	ok := filepath.Join(dir, "ok.ckpt")
	if err := WriteCheckpoint(ok, c); err != nil {
		t.Fatal(err)
	}
	got, err := ReadCheckpoint(ok, time.Second)
	if err != nil || len(got.Ranges) != 20000 || got.Ranges[19999] != c.Ranges[19999] || got.Job != c.Job {
		t.Fatalf("ReadCheckpoint of 20,000 partitions: %v", err)
	}
}

// TestParseCheckpointShape: a checkpoint is one JSON object whose ranges
// and target_ends are arrays, and an error says which shape was wrong.
// The bugs (mutants that lived): wantDelim taking any delimiter (or
// checking none), so a JSON array of key, value pairs was accepted as a
// checkpoint; decodeArray taking an object for an array, refused only by
// a misleading "want ']'" further on.
func TestParseCheckpointShape(t *testing.T) {
	b, err := json.Marshal(sampleCheckpoint())
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		t.Fatal(err)
	}
	with := func(key, val string) string {
		m := maps.Clone(fields)
		m[key] = json.RawMessage(val)
		out, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	// The same fields as an array: "format", "offsetctl-...", "v", 1, ...
	var pairs []string
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		pairs = append(pairs, strconv.Quote(k), string(fields[k]))
	}
	for _, tc := range []struct{ name, in, err string }{
		{"object", string(b), ""},
		{"key, value pairs in an array", "[" + strings.Join(pairs, ",") + "]", `want '{', got [`},
		{"ranges an object", with("ranges", `{}`), "want an array, got {"},
		{"ranges an object of ranges", with("ranges", `{"0":{"partition":0}}`), "want an array, got {"},
		{"target_ends an object", with("target_ends", `{}`), "want an array, got {"},
		{"ranges a number", with("ranges", `5`), "want an array, got 5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ParseCheckpoint([]byte(tc.in))
			if tc.err == "" {
				if err != nil || c.Job != sampleCheckpoint().Job || len(c.Ranges) != 2 {
					t.Fatalf("ParseCheckpoint = %+v, %v", c, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), "not a backfill checkpoint ("+tc.err) {
				t.Fatalf("ParseCheckpoint(%.60s...) = %v, want %q", tc.in, err, tc.err)
			}
		})
	}
}

// TestReadCheckpointBoundaries: the two limits hold exactly at their
// values. A file of CheckpointLimit bytes is read (a checkpoint followed
// by a hole: refused for what follows the object, not for its size), one
// byte more is refused unread; a string token of checkpointTokenLimit
// bytes (its opening quote and content) is read, one byte more refused,
// and a number token is bounded like a string. The bugs (mutants that
// lived): >= for > at either limit, and a bare token's bytes not counted
// (a 60 MB number buffered whole by json.Decoder).
func TestReadCheckpointBoundaries(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		size int64
		err  string
	}{
		{CheckpointLimit, "not a backfill checkpoint (more than one JSON value)"},
		{CheckpointLimit + 1, fmt.Sprintf("%d bytes, larger than a backfill checkpoint can be", CheckpointLimit+1)},
	} {
		path := filepath.Join(dir, fmt.Sprint(tc.size))
		if err := WriteCheckpoint(path, sampleCheckpoint()); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(path, tc.size); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadCheckpoint(path, time.Second); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("ReadCheckpoint of %d bytes: %v, want %q", tc.size, err, tc.err)
		}
	}
	for _, n := range []int{checkpointTokenLimit - 1, checkpointTokenLimit} {
		c := sampleCheckpoint()
		c.Job.Partitions = strings.Repeat("7", n) // the token is `"` and n bytes
		path := filepath.Join(dir, fmt.Sprint("str", n))
		if err := WriteCheckpoint(path, c); err != nil {
			t.Fatal(err)
		}
		got, err := ReadCheckpoint(path, time.Second)
		if n+1 <= checkpointTokenLimit {
			if err != nil || got.Job != c.Job {
				t.Errorf("ReadCheckpoint of a %d-byte string token: %v", n+1, err)
			}
		} else if err == nil || !strings.Contains(err.Error(), "a string or number longer than 1 MiB") {
			t.Errorf("ReadCheckpoint of a %d-byte string token: %v, want it refused", n+1, err)
		}
	}
	num := filepath.Join(dir, "num")
	if err := os.WriteFile(num, []byte(`{"acked_beyond":`+strings.Repeat("7", checkpointTokenLimit+1)+`}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadCheckpoint(num, time.Second); err == nil || !strings.Contains(err.Error(), "a string or number longer than 1 MiB") {
		t.Errorf("ReadCheckpoint of a %d-digit number: %v, want it refused", checkpointTokenLimit+1, err)
	}
}
