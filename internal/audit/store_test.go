package audit

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/offsetctl/offsetctl/internal/filelock"
)

func ids(t *testing.T, path string) ([]string, Issues) {
	t.Helper()
	var out []string
	is, err := Walk(path, ReadOptions{Explicit: true}, func(e *Entry, _ []byte) error {
		out = append(out, e.ID)
		return nil
	})
	if err != nil {
		t.Fatalf("Walk(%s): %v", path, err)
	}
	return out, is
}

// TestAppendAfterTornLine: a log that ends in a fragment (a write cut
// short) gets the next entry on a line of its own: the QA run's entry
// glued to a torn one was missing from history and undo.
func TestAppendAfterTornLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	first := line("01M8T8W8Y1KCK5XWQG09MTTSDA")
	if err := os.WriteFile(path, []byte(first+first[:40]), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Append(path, Entry{ID: "01M8T8W8Y1KCK5XWQG09MTTSDB", Action: ActReset}); err != nil {
		t.Fatal(err)
	}
	got, is := ids(t, path)
	if fmt.Sprint(got) != "[01M8T8W8Y1KCK5XWQG09MTTSDA 01M8T8W8Y1KCK5XWQG09MTTSDB]" {
		t.Fatalf("ids %v", got)
	}
	if len(is.Torn) != 1 || is.Torn[0].Line != 2 || !strings.Contains(is.Warnings()[0], "not entries") {
		t.Fatalf("issues %+v %v", is, is.Warnings())
	}
	// A log that ends with a newline gets no blank line.
	b, _ := os.ReadFile(path)
	if err := Append(path, Entry{ID: "01M8T8W8Y1KCK5XWQG09MTTSDC", Action: ActReset}); err != nil {
		t.Fatal(err)
	}
	b2, _ := os.ReadFile(path)
	if b2[len(b)] != '{' {
		t.Fatalf("appended %q after a complete line", b2[len(b):len(b)+5])
	}
}

// TestAppendFullDisk: on a full file system (a 64 KiB tmpfs) an append
// fails, maybe leaving a fragment; once space is back the next entry is
// read whole.
func TestAppendFullDisk(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=64k"); err != nil {
		t.Skipf("mounting a tmpfs needs root: %v", err)
	}
	defer syscall.Unmount(dir, 0)
	path := filepath.Join(dir, "audit.jsonl")
	filler := filepath.Join(dir, "filler")
	if err := os.WriteFile(filler, make([]byte, 40<<10), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	big := Entry{ID: "01M8T8W8Y1KCK5XWQG09MTTSD0", Action: ActReset}
	for j := 0; j < 300; j++ {
		big.Changes = append(big.Changes, Change{Group: "g", Topic: "orders", Partition: int32(j), After: p(int64(j))})
	}
	var failed error
	for i := 0; i < 20 && failed == nil; i++ {
		big.ID = fmt.Sprintf("01M8T8W8Y1KCK5XWQG09MTTS%02d", i)
		failed = l.Append(big)
	}
	if failed == nil || !errors.Is(failed, syscall.ENOSPC) {
		t.Fatalf("append on a full disk: %v", failed)
	}
	st, _ := os.Stat(path)
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if err := l.Append(Entry{ID: "01M8T8W8Y1KCK5XWQG09MTTSZZ", Action: ActReset}); err != nil {
		t.Fatal(err)
	}
	got, is := ids(t, path)
	if got[len(got)-1] != "01M8T8W8Y1KCK5XWQG09MTTSZZ" {
		t.Fatalf("the entry after the full disk is not read: %v (issues %+v)", got, is)
	}
	t.Logf("%d entries before the disk was full (%d bytes), %d torn", len(got)-1, st.Size(), len(is.Torn))
}

// stalledFIFO makes a FIFO whose reader opened it and never reads, with
// its buffer already full: any write waits.
func stalledFIFO(t *testing.T) string {
	t.Helper()
	fifo := filepath.Join(t.TempDir(), "audit.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	for { // fill the pipe's buffer
		if _, err := syscall.Write(int(w.Fd()), make([]byte, 4096)); err != nil {
			break
		}
	}
	w.Close()
	return fifo
}

// TestAppendStalledFIFO: an append to a FIFO whose reader stopped
// reading ends at its deadline, or at once when its context is cancelled
// (SIGTERM), never hangs; the QA run blocked forever after its change.
func TestAppendStalledFIFO(t *testing.T) {
	fifo := stalledFIFO(t)
	l, err := OpenWith(fifo, Options{Explicit: true, Deadline: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err = l.Append(Entry{ID: "01M8T8W8Y1KCK5XWQG09MTTSDB", Action: ActReset})
	if err == nil || !strings.Contains(err.Error(), "did not finish within 300ms") || time.Since(start) > 5*time.Second {
		t.Fatalf("append to a stalled FIFO: %v after %s", err, time.Since(start))
	}
	l.Close()

	ctx, cancel := context.WithCancel(context.Background())
	l, err = OpenWith(fifo, Options{Explicit: true, Deadline: time.Hour, Context: ctx})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	time.AfterFunc(200*time.Millisecond, cancel)
	start = time.Now()
	err = l.Append(Entry{ID: "01M8T8W8Y1KCK5XWQG09MTTSDC", Action: ActReset})
	if err == nil || !strings.Contains(err.Error(), "was interrupted") || time.Since(start) > 5*time.Second {
		t.Fatalf("cancelled append to a stalled FIFO: %v after %s", err, time.Since(start))
	}
}

// TestAppendAfterCancel: a context cancelled before the append (a SIGTERM
// during the change) does not stop the record of it.
func TestAppendAfterCancel(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	l, err := OpenWith(path, Options{Context: ctx})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Append(Entry{ID: "01M8T8W8Y1KCK5XWQG09MTTSDB", Action: ActReset}); err != nil {
		t.Fatal(err)
	}
	l.Close()
	if got, _ := ids(t, path); len(got) != 1 {
		t.Fatalf("ids %v", got)
	}
}

// TestOpenRefuses: a symbolic link at the log's path (the target is left
// untouched), another user's file, a FIFO the user did not name, a
// device; reading refuses the same.
func TestOpenRefuses(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "precious")
	if err := os.WriteFile(target, []byte("keep\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "audit.jsonl")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(link); err == nil || !strings.Contains(err.Error(), "a symbolic link: refused") {
		t.Fatalf("Open(symlink) = %v", err)
	}
	if _, err := Walk(link, ReadOptions{Explicit: true}, func(*Entry, []byte) error { return nil }); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("Walk(symlink) = %v", err)
	}
	if b, _ := os.ReadFile(target); string(b) != "keep\n" {
		t.Fatalf("the link's target was written: %q", b)
	}
	// A link at the writers' lock is refused too.
	real := filepath.Join(dir, "real.jsonl")
	if err := os.Symlink(target, real+".lock"); err != nil {
		t.Fatal(err)
	}
	if err := Append(real, Entry{ID: "01M8T8W8Y1KCK5XWQG09MTTSDB"}); err == nil || !strings.Contains(err.Error(), "is not a regular file (a symbolic link?)") {
		t.Fatalf("Append with a link at the lock: %v", err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	r, _ := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	defer r.Close()
	if _, err := OpenWith(fifo, Options{}); err == nil || !strings.Contains(err.Error(), "a FIFO: name it with --audit-log") {
		t.Fatalf("OpenWith(FIFO, not named) = %v", err)
	}
	if _, err := Open("/dev/zero"); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("Open(/dev/zero) = %v", err)
	}
	if os.Geteuid() != 0 {
		t.Log("not root: cannot make a file owned by another user")
		return
	}
	other := filepath.Join(dir, "other.jsonl")
	if err := os.WriteFile(other, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(other, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(other); err == nil || !strings.Contains(err.Error(), "owned by another user") {
		t.Fatalf("Open(another user's file) = %v", err)
	}
	if _, err := Walk(other, ReadOptions{}, func(*Entry, []byte) error { return nil }); err == nil || !strings.Contains(err.Error(), "owned by another user") {
		t.Fatalf("Walk(another user's file) = %v", err)
	}
}

// TestRotation: with a small rotation size and gzip, concurrent writers
// rotate the log many times; every entry is read exactly once from the
// rotated (compressed) files and the current one, the index lists the
// rotated files, and FilesFor narrows an id to few files.
func TestRotation(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	const writers, each = 4, 60
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			l, err := OpenWith(path, Options{RotateSize: 8 << 10, Gzip: w%2 == 0, Warn: func(s string) { t.Error(s) }})
			if err != nil {
				t.Error(err)
				return
			}
			defer l.Close()
			for i := 0; i < each; i++ {
				e := Entry{ID: NewID(time.Now()), Action: ActReset, Groups: []string{fmt.Sprintf("w%d-%d", w, i)}}
				if err := l.Append(e); err != nil {
					t.Error(err)
					return
				}
			}
		}(w)
	}
	wg.Wait()
	got, is := ids(t, path)
	seen := map[string]int{}
	for _, id := range got {
		seen[id]++
	}
	if len(got) != writers*each || len(seen) != writers*each || !is.Empty() {
		t.Fatalf("read %d entries, %d distinct, issues %+v; want %d", len(got), len(seen), is, writers*each)
	}
	files, _ := Files(path)
	idx, err := ReadIndex(path)
	if err != nil || len(idx) != len(files)-1 || len(idx) < 5 {
		t.Fatalf("index %d entries (%v), files %d", len(idx), err, len(files))
	}
	if b, _ := os.ReadFile(indexPath(path)); strings.Contains(string(b), "\n\n") {
		t.Errorf("blank lines in the index:\n%s", b)
	}
	gz := 0
	for _, f := range files {
		if strings.HasSuffix(f, ".gz") {
			gz++
		}
	}
	if gz == 0 {
		t.Fatalf("no gzip'd rotated file in %v", files)
	}
	// Writers at once interleave their ids, so ranges overlap a little;
	// the first rotated file's first id is in few of them.
	few, _ := FilesFor(path, idx[0].First)
	if len(few) >= len(files)-1 {
		t.Errorf("FilesFor(%s) = %d of %d files", idx[0].First, len(few), len(files))
	}
	var found []string
	if _, err := Walk(path, ReadOptions{IDPrefix: idx[0].First[:10]}, func(e *Entry, _ []byte) error {
		found = append(found, e.ID)
		return nil
	}); err != nil || !strings.Contains(fmt.Sprint(found), idx[0].First) {
		t.Errorf("Walk by prefix found %v, %v", found, err)
	}
}

// TestOversizedLine: a line longer than the reader's bound (here a 300 MB
// run of NUL bytes, a hole in a sparse file) is skipped unread and
// reported; the entries around it are read.
func TestOversizedLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	if err := Append(path, Entry{ID: "01M8T8W8Y1KCK5XWQG09MTTSDA", Action: ActReset}); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(path)
	if err := os.Truncate(path, st.Size()+300<<20); err != nil {
		t.Fatal(err)
	}
	if err := Append(path, Entry{ID: "01M8T8W8Y1KCK5XWQG09MTTSDB", Action: ActReset}); err != nil {
		t.Fatal(err)
	}
	got, is := ids(t, path)
	if fmt.Sprint(got) != "[01M8T8W8Y1KCK5XWQG09MTTSDA 01M8T8W8Y1KCK5XWQG09MTTSDB]" || len(is.Oversized) != 1 || is.Oversized[0].Bytes != 300<<20+1 {
		t.Fatalf("ids %v, issues %+v", got, is)
	}
	if w := is.Warnings(); len(w) != 1 || !strings.Contains(w[0], "oversized") {
		t.Fatalf("warnings %v", w)
	}
}

// TestUnknownVersion: an entry of a version this reader does not know is
// read and reported, not taken for a torn line.
func TestUnknownVersion(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	if err := os.WriteFile(path, []byte(`{"v":99,"id":"01M8T8W8Y1KCK5XWQG09MTTSDA","outcome":"teleported"}`+"\n"+line("01M8T8W8Y1KCK5XWQG09MTTSDB")), 0o600); err != nil {
		t.Fatal(err)
	}
	got, is := ids(t, path)
	if len(got) != 2 || len(is.Unknown) != 1 || is.Unknown[0].V != 99 || len(is.Torn) != 0 {
		t.Fatalf("ids %v issues %+v", got, is)
	}
	if !KnownVersion(Version) || KnownVersion(0) || KnownVersion(Version+1) {
		t.Fatal("KnownVersion")
	}
}

// TestSidecar: an entry of more than MaxInlineChanges changes is a short
// line naming a CSV file with its SHA-256; LoadChanges gives the changes
// back and refuses a file edited since.
func TestSidecar(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	e := Entry{ID: "01M8T8W8Y1KCK5XWQG09MTTSDA", Action: ActReset}
	for j := 0; j <= MaxInlineChanges; j++ {
		c := Change{Group: "g,1", Topic: "orders", Partition: int32(j), Before: p(int64(j))}
		if j%3 == 0 {
			c.After, c.Error = p(int64(2*j)), "why \"quoted\""
		}
		e.Changes = append(e.Changes, c)
	}
	if err := Append(path, e); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(path)
	if st.Size() > 4096 {
		t.Fatalf("the entry is %d bytes: its changes were inlined", st.Size())
	}
	es, err := ReadFile(path)
	if err != nil || len(es) != 1 || es[0].ChangesFile == "" || es[0].ChangesCount != len(e.Changes) || len(es[0].Changes) != 0 {
		t.Fatalf("read %+v, %v", es, err)
	}
	full, err := LoadChanges(path, es[0])
	if err != nil || fmt.Sprint(derefAll(full.Changes)) != fmt.Sprint(derefAll(e.Changes)) {
		t.Fatalf("LoadChanges: %v", err)
	}
	side := filepath.Join(filepath.Dir(path), es[0].ChangesFile)
	b, _ := os.ReadFile(side)
	if err := os.WriteFile(side, append(b, "g,orders,1,,,\n"...), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadChanges(path, es[0]); err == nil || !strings.Contains(err.Error(), "has changed since it was written") {
		t.Fatalf("LoadChanges of an edited file: %v", err)
	}
	bad := es[0]
	bad.ChangesFile = "../precious.csv"
	if _, err := LoadChanges(path, bad); err == nil || !strings.Contains(err.Error(), "not a file name") {
		t.Fatalf("LoadChanges outside the log's directory: %v", err)
	}
}

func derefAll(cs []Change) []string {
	var out []string
	for _, c := range cs {
		out = append(out, fmt.Sprintf("%s/%s/%d/%s/%s/%s", c.Group, c.Topic, c.Partition, offsetCell(c.Before), offsetCell(c.After), c.Error))
	}
	return out
}

func FuzzReadChanges(f *testing.F) {
	f.Add("group,topic,partition,before,after,error\ng,t,0,1,,x\n")
	f.Add("group,topic,partition,before,after,error\n\"a\nb\",t,-1,z,,\n")
	f.Fuzz(func(t *testing.T, s string) {
		cs, err := ReadChanges(strings.NewReader(s))
		if err != nil {
			return
		}
		var b strings.Builder
		if err := writeChanges(&b, cs); err != nil {
			t.Fatal(err)
		}
		again, err := ReadChanges(strings.NewReader(b.String()))
		if err != nil || fmt.Sprint(derefAll(again)) != fmt.Sprint(derefAll(cs)) {
			t.Fatalf("round trip: %v", err)
		}
	})
}

// TestSummaryMatchesFull: the summary read (changes cut out by a byte
// loop) gives the same entry as a full read without its changes, for
// names holding brackets, quotes and backslashes.
func TestSummaryMatchesFull(t *testing.T) {
	e := Entry{V: 1, ID: "01M8T8W8Y1KCK5XWQG09MTTSDA", Action: ActReset, Groups: []string{`g]"\[`}, Backup: "b,\"changes\":[x]",
		Changes: []Change{{Group: `]]"}`, Topic: `\\`, Before: p(1)}, {Group: "{[", Error: `"]`}}, Outcome: Applied, Applied: Count(2)}
	b, _ := Marshal(e)
	checkSummary(t, b)
	if _, ok := cutChanges([]byte(`{"id":"x","changes":[{"group":"]`)); ok {
		t.Error("cut an unterminated array")
	}
}

func checkSummary(t *testing.T, line []byte) {
	t.Helper()
	var full Entry
	if json.Unmarshal(bytes.TrimSpace(line), &full) != nil || full.ID == "" {
		return
	}
	if full.V <= Version && (full.Action == "" || full.Kind != "" && full.Kind != KindIntent && full.Kind != KindOutcome) {
		// Not an entry of this version (no action, or a kind it does not
		// know): the reader reports the line and skips it, summary or not.
		return
	}
	full.Changes = nil
	var is Issues
	var got []Entry
	if err := scan(bytes.NewReader(line), "", ReadOptions{Summary: true}, &is, func(e *Entry, _ []byte) error {
		got = append(got, *e)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !reflect.DeepEqual(got[0], full) {
		t.Fatalf("summary of %q:\n%+v\nwant\n%+v", line, got, full)
	}
}

func FuzzSummary(f *testing.F) {
	b, _ := Marshal(Entry{ID: "A", Groups: []string{"]"}, Changes: []Change{{Group: `"]`}}})
	f.Add(b)
	f.Add([]byte(`{"id":"A","changes":[],"changes":[1],"x":{"changes":[2]}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		if bytes.IndexByte(line, '\n') >= 0 {
			return
		}
		checkSummary(t, line)
	})
}

// TestRotationBetweenIntentAndOutcome: a rotation between a change's
// intent and its outcome leaves them in two files; the index still lets
// a search by the intent's id find both.
func TestRotationBetweenIntentAndOutcome(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	at := time.Date(2026, 12, 2, 1, 0, 0, 0, time.UTC)
	l, err := OpenWith(path, Options{RotateSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	in := Entry{V: Version, Kind: KindIntent, ID: NewID(at), Action: ActReset}
	// Later changes fill the files between (each append rotates).
	for i, e := range []Entry{in, {V: Version, ID: NewID(at.Add(time.Hour)), Action: ActReset}, {V: Version, Kind: KindOutcome, ID: NewID(at.Add(2 * time.Hour)), Intent: in.ID, Action: ActReset}} {
		if err := l.Append(e); err != nil {
			t.Fatalf("append %d: %v", i, err)
		}
	}
	var found []string
	if _, err := Walk(path, ReadOptions{IDPrefix: in.ID}, func(e *Entry, _ []byte) error {
		found = append(found, e.Kind)
		return nil
	}); err != nil || fmt.Sprint(found) != "[intent outcome]" {
		t.Fatalf("found %v, %v", found, err)
	}
	few, _ := FilesFor(path, in.ID)
	all, _ := Files(path)
	if len(few) != len(all)-1 {
		t.Fatalf("FilesFor %v of %v: the file between should be ruled out", few, all)
	}
}

// TestRotationNamesOnlyFromIDs: an id not of offsetctl's shape (a
// hand-edited log, "../x") never names the rotated file: it would leave
// the directory, or be a file no reader lists.
func TestRotationNamesOnlyFromIDs(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "log", "audit.jsonl")
	if err := Append(path, Entry{ID: "../../escaped", Action: ActReset}); err != nil {
		t.Fatal(err)
	}
	l, err := OpenWith(path, Options{RotateSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := l.Append(Entry{ID: "01M8T8W8Y1KCK5XWQG09MTTSDB", Action: ActReset}); err != nil {
		t.Fatal(err)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "*escaped*")); len(m) > 0 {
		t.Fatalf("rotated out of the log's directory: %v", m)
	}
	if files, _ := Files(path); len(files) != 2 {
		t.Fatalf("files %v: want one rotated file and the log", files)
	}
	got, _ := ids(t, path)
	if fmt.Sprint(got) != "[../../escaped 01M8T8W8Y1KCK5XWQG09MTTSDB]" {
		t.Fatalf("read %v", got)
	}
}

func FuzzParseIndex(f *testing.F) {
	f.Add([]byte(`{"file":"audit-01M8T8W8Y1KCK5XWQG09MTTSDB.jsonl","first_id":"01M8T8W8Y1KCK5XWQG09MTTSDB","min_id":"0","max_id":"Z"}` + "\n\n{}\nnot json"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, ie := range parseIndex(bytes.NewReader(data)) {
			if ie.File == "" {
				t.Fatalf("an index entry without a file: %+v", ie)
			}
		}
	})
}

// TestDamagedGzip: a rotated file whose gzip stream is damaged (cut short
// by a copy, a bad block) is damage like a torn line: its lines before the
// damage and every other file are read, and the damage is reported. It
// used to stop the whole read, so one bad old file hid every change since.
func TestDamagedGzip(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func([]byte) []byte
		before int // entries of the damaged file still read
	}{
		{"cut short", func(b []byte) []byte { return b[:len(b)*2/3] }, -1},
		{"not gzip", func([]byte) []byte { return []byte("garbage\n") }, 0},
		{"bad checksum", func(b []byte) []byte { b = append([]byte(nil), b...); b[len(b)-8] ^= 0xff; return b }, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "audit.jsonl")
			l, err := OpenWith(path, Options{RotateSize: 2 << 10, Gzip: true})
			if err != nil {
				t.Fatal(err)
			}
			var all []string
			for i := 0; i < 40; i++ {
				e := Entry{ID: NewID(time.Now()), Action: ActReset, Groups: []string{fmt.Sprintf("group-%03d-%s", i, strings.Repeat("x", 100))}}
				if err := l.Append(e); err != nil {
					t.Fatal(err)
				}
				all = append(all, e.ID)
			}
			l.Close()
			files, _ := Files(path)
			if len(files) < 4 || !strings.HasSuffix(files[0], ".gz") {
				t.Fatalf("files: %v", files)
			}
			b, err := os.ReadFile(files[0])
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(files[0], tc.damage(b), 0o600); err != nil {
				t.Fatal(err)
			}
			got, is := ids(t, path)
			if len(is.Damaged) != 1 || is.Damaged[0].File != files[0] || !strings.Contains(strings.Join(is.Warnings(), "\n"), "are damaged") {
				t.Fatalf("issues %+v, warnings %q", is, is.Warnings())
			}
			if got[len(got)-1] != all[len(all)-1] || len(got) < len(all)-15 {
				t.Fatalf("read %d of %d entries, last %s", len(got), len(all), got[len(got)-1])
			}
			if tc.before == 0 && got[0] == all[0] {
				t.Fatalf("the damaged file's entries were read: %v", got[:2])
			}
		})
	}
}

// TestMissingRotatedFile: a rotated file the index lists but that is gone
// (deleted by hand or a cleanup) is reported, with how many entries it
// held: without a word, a change whose outcome was in it read as unknown
// and the changes it held were simply missing from history.
func TestMissingRotatedFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l, err := OpenWith(path, Options{RotateSize: 2 << 10, Gzip: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 40; i++ {
		if err := l.Append(Entry{ID: NewID(time.Now()), Action: ActReset, Groups: []string{strings.Repeat("g", 200)}}); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	if _, is := ids(t, path); !is.Empty() {
		t.Fatalf("issues before: %+v", is)
	}
	idx, _ := ReadIndex(path)
	if len(idx) < 3 {
		t.Fatalf("index: %+v", idx)
	}
	if err := os.Remove(filepath.Join(filepath.Dir(path), idx[1].File+".gz")); err != nil {
		t.Fatal(err)
	}
	got, is := ids(t, path)
	w := strings.Join(is.Warnings(), "\n")
	if len(is.Missing) != 1 || is.Missing[0].File != idx[1].File || !strings.Contains(w, fmt.Sprintf("(first: %s, %d entries)", idx[1].File, idx[1].Entries)) {
		t.Fatalf("issues %+v, warnings %q", is, w)
	}
	if len(got) != 40-idx[1].Entries {
		t.Fatalf("read %d entries, want %d", len(got), 40-idx[1].Entries)
	}
}

// TestUnknownKind: a line of a known format version whose kind is none
// of intent, outcome or empty (an edit: a new kind would bump the
// version) is damage, skipped and reported, never read as a
// self-contained change that undo would act on.
func TestUnknownKind(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	bogus := `{"v":2,"id":"01M8T8W8Y1KCK5XWQG09MTTSDA","kind":"bogus","action":"reset","outcome":"applied","backup":"/b.csv"}`
	if err := os.WriteFile(path, []byte(bogus+"\n"+line("01M8T8W8Y1KCK5XWQG09MTTSDB")), 0o600); err != nil {
		t.Fatal(err)
	}
	got, is := ids(t, path)
	if len(got) != 1 || got[0] != "01M8T8W8Y1KCK5XWQG09MTTSDB" || len(is.Torn) != 1 || is.Torn[0].Line != 1 {
		t.Fatalf("ids %v issues %+v", got, is)
	}
}

// TestEntryWithoutAction: a line of a known format version (or none)
// that decodes and has an id but no action is no entry offsetctl wrote
// (each names its action): it is a line that is not an entry, reported
// with its line number, never a row of zero time and no one (QA finding:
// a junk line showed in history as "0001-01-01T00:00:00Z @"). An entry of
// a newer version is still read as such.
func TestEntryWithoutAction(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	junk := `{"id":"junk"}` + "\n" + `{"v":2,"id":"01M8T8W8Y1KCK5XWQG09MTTSDC","kind":"intent"}` + "\n"
	if err := os.WriteFile(path, []byte(junk+line("01M8T8W8Y1KCK5XWQG09MTTSDB")+`{"v":99,"id":"01M8T8W8Y1KCK5XWQG09MTTSDD"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, is := ids(t, path)
	if fmt.Sprint(got) != "[01M8T8W8Y1KCK5XWQG09MTTSDB 01M8T8W8Y1KCK5XWQG09MTTSDD]" || len(is.Torn) != 2 || is.Torn[0].Line != 1 || is.Torn[1].Line != 2 || len(is.Unknown) != 1 {
		t.Fatalf("ids %v issues %+v", got, is)
	}
	if w := is.Warnings(); !strings.Contains(w[0], "2 line(s) of the audit log are not entries") || !strings.Contains(w[0], "line 1") {
		t.Fatalf("warnings %q", w)
	}
}

// TestFIFOAppendAfterTornWriteOfAnotherProcess: a write to a FIFO cut by
// its deadline leaves a fragment in the pipe, and the run that wrote it
// ends. The next run (another Log, as another process has) knows nothing
// of it: its entry must still start on a line of its own. QA: the second
// run's intent was glued to the fragment, and history, undo and --verify
// could not find the id that run printed as recorded.
func TestFIFOAppendAfterTornWriteOfAnotherProcess(t *testing.T) {
	// The reader opens the pipe and does not read for a while.
	fifo, r := fifoWithReader(t)
	big := Entry{V: Version, ID: "01M8T8W8Y1KCK5XWQG09MTTSD1", Kind: KindIntent, Action: ActReset, Outcome: Unknown}
	for j := 0; j < 1000; j++ { // about 80 KB: more than the pipe holds
		big.Changes = append(big.Changes, Change{Group: "orders-billing", Topic: "orders", Partition: int32(j), After: p(2)})
	}
	first, err := OpenWith(fifo, Options{Explicit: true, Deadline: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Append(big); err == nil || !strings.Contains(err.Error(), "may be missing or cut short") {
		t.Fatalf("append of 80 KB to a pipe nobody reads: %v", err)
	}
	first.Close() // the first run ends
	var got bytes.Buffer
	drain := func() {
		for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
			b, _ := io.ReadAll(r)
			got.Write(b)
			if len(b) == 0 && got.Len() > 0 {
				return
			}
		}
	}
	drain()
	if got.Len() == 0 || bytes.HasSuffix(got.Bytes(), []byte("\n")) {
		t.Fatalf("the first write was not cut short: %d bytes", got.Len())
	}
	// The reader drains; a second run records its intent and outcome.
	second, err := OpenWith(fifo, Options{Explicit: true, Deadline: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	in := Entry{V: Version, ID: "01M8T8W8Y1KCK5XWQG09MTTSD2", Kind: KindIntent, Action: ActReset, Outcome: Unknown,
		Changes: []Change{{Group: "g", Topic: "orders", Partition: 0, Before: p(1), After: p(2)}}}
	out := Entry{V: Version, ID: "01M8T8W8Y1KCK5XWQG09MTTSD3", Kind: KindOutcome, Intent: in.ID, Action: ActReset, Outcome: Applied}
	for _, e := range []Entry{in, out} {
		if err := second.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	second.Close()
	drain()
	es, rerr := Read(bytes.NewReader(got.Bytes()))
	var ce *CorruptError
	if len(es) != 2 || es[0].ID != in.ID || es[1].ID != out.ID || !errors.As(rerr, &ce) || len(ce.Lines) != 1 {
		t.Fatalf("read back %d entries (%v), want the second run's intent and outcome after one torn line", len(es), rerr)
	}
	if j := Join(es); len(j) != 1 || j[0].ID != in.ID || j[0].Outcome != Applied {
		t.Fatalf("joined: %+v", j)
	}
}

// TestTornLineAcrossRotation: the last byte is checked under the lock in
// the file at the log's path, whichever writer rotated it: a writer that
// held the log open before a rotation (gzip'd) starts its entry on a
// fresh line after a fragment another writer left in the new file, and a
// file rotated while it ends in a fragment is ended with a newline first,
// so the rotated files read as one stream (zcat ... | offsetctl
// --audit-log - history) glue no entry to it either.
func TestTornLineAcrossRotation(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	frag := func() {
		t.Helper()
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(line("01M8T8W8Y1KCK5XWQG09MTTSZZ")[:40]); err != nil {
			t.Fatal(err)
		}
	}
	held, err := OpenWith(path, Options{Gzip: true}) // opened before the rotation
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	rot, err := OpenWith(path, Options{Gzip: true, RotateSize: 1, Warn: func(s string) { t.Error(s) }})
	if err != nil {
		t.Fatal(err)
	}
	defer rot.Close()
	want := []string{"01M8T8W8Y1KCK5XWQG09MTTSD1", "01M8T8W8Y1KCK5XWQG09MTTSD2", "01M8T8W8Y1KCK5XWQG09MTTSD3"}
	if err := rot.Append(Entry{V: Version, ID: want[0], Action: ActReset}); err != nil { // rotated at once
		t.Fatal(err)
	}
	frag() // another writer's torn line, in the new file
	if err := held.Append(Entry{V: Version, ID: want[1], Action: ActReset}); err != nil {
		t.Fatal(err)
	}
	// A fragment left between an append and the rotation it makes due.
	frag()
	rot.opt.RotateSize = 1
	rot.rotateIfDue()
	if err := held.Append(Entry{V: Version, ID: want[2], Action: ActReset}); err != nil {
		t.Fatal(err)
	}
	got, is := ids(t, path)
	if fmt.Sprint(got) != fmt.Sprint(want) || len(is.Torn) != 2 {
		t.Fatalf("read %v (issues %+v), want %v and two torn lines", got, is, want)
	}
	files, _ := Files(path)
	var all bytes.Buffer
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(name, ".gz") {
			zr, err := gzip.NewReader(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			if b, err = io.ReadAll(zr); err != nil {
				t.Fatal(err)
			}
		}
		all.Write(b)
	}
	es, _ := Read(&all)
	var cat []string
	for _, e := range es {
		cat = append(cat, e.ID)
	}
	if fmt.Sprint(cat) != fmt.Sprint(want) || len(files) != 3 {
		t.Fatalf("the files %v as one stream: %v, want %v", files, cat, want)
	}
}

// TestAppendWaitingForTheLock: an append that gives up while another
// process holds the writers' lock (flock audit.jsonl.lock sleep 6) says
// so, and that nothing was written: QA's run blamed a stalled disk and
// said the entry may be cut short. The log stays fit for the next
// append, which used to be refused as stuck.
func TestAppendWaitingForTheLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	l, err := OpenWith(path, Options{Deadline: 300 * time.Millisecond, Context: ctx})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	held, err := filelock.TryLock(lockPath(path))
	if err != nil {
		t.Fatal(err)
	}
	err = l.Append(Entry{ID: "01M8T8W8Y1KCK5XWQG09MTTSD1", Action: ActReset})
	if err == nil || !strings.Contains(err.Error(), "the append waited 300ms for the lock another offsetctl holds on it ("+path+".lock): nothing was written") ||
		strings.Contains(err.Error(), "cut short") {
		t.Fatalf("append while another process holds the lock: %v", err)
	}
	l.opt.Deadline = time.Hour
	time.AfterFunc(100*time.Millisecond, cancel)
	err = l.Append(Entry{ID: "01M8T8W8Y1KCK5XWQG09MTTSD2", Action: ActReset})
	if err == nil || !strings.Contains(err.Error(), "was interrupted (context canceled) while it waited for the lock") || !strings.Contains(err.Error(), "nothing was written") {
		t.Fatalf("append cancelled while another process holds the lock: %v", err)
	}
	if st, err := os.Stat(path); err != nil || st.Size() != 0 {
		t.Fatalf("the log after two appends that wrote nothing: %v, %v", st, err)
	}
	held.Unlock()
	if err := l.AppendContext(context.Background(), Entry{ID: "01M8T8W8Y1KCK5XWQG09MTTSD3", Action: ActReset}); err != nil {
		t.Fatalf("append once the lock is free: %v", err)
	}
	if got, _ := ids(t, path); fmt.Sprint(got) != "[01M8T8W8Y1KCK5XWQG09MTTSD3]" {
		t.Fatalf("read %v", got)
	}
}

// fifoWithReader makes a FIFO named audit.fifo in a temporary directory
// and opens its read end (without blocking), closed when t ends; t is
// skipped where FIFOs cannot be made.
func fifoWithReader(t *testing.T) (string, *os.File) {
	t.Helper()
	fifo := filepath.Join(t.TempDir(), "audit.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return fifo, r
}
