package audit

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/offsetctl/offsetctl/internal/admin"
	"github.com/offsetctl/offsetctl/internal/lag"
)

func p(v int64) *int64 { return &v }

func TestDiff(t *testing.T) {
	cases := []struct {
		name          string
		before, after State
		want          []Change
	}{
		{"equal", State{"g": {"t": {0: p(5), 1: nil}}}, State{"g": {"t": {0: p(5), 1: nil}}}, nil},
		{"moved", State{"g": {"t": {0: p(5)}}}, State{"g": {"t": {0: p(9)}}},
			[]Change{{Group: "g", Topic: "t", Partition: 0, Before: p(5), After: p(9)}}},
		{"deleted commit", State{"g": {"t": {0: p(5)}}}, State{"g": {"t": {0: nil}}},
			[]Change{{Group: "g", Topic: "t", Partition: 0, Before: p(5), After: nil}}},
		{"missing partition is no commit", State{"g": {"t": {0: nil}}}, State{"g": {}}, nil},
		{"new commit on a partition absent before", State{"g": {}}, State{"g": {"u": {3: p(0)}}},
			[]Change{{Group: "g", Topic: "u", Partition: 3, Before: nil, After: p(0)}}},
		{"group vanished", State{"g": {"t": {1: p(2), 0: p(1)}}}, State{},
			[]Change{{Group: "g", Topic: "t", Partition: 0, Before: p(1)}, {Group: "g", Topic: "t", Partition: 1, Before: p(2)}}},
		{"sorted by group topic partition", State{"b": {"t": {0: p(1)}}, "a": {"z": {2: p(1)}, "y": {0: p(1)}}}, State{},
			[]Change{{Group: "a", Topic: "y", Before: p(1)}, {Group: "a", Topic: "z", Partition: 2, Before: p(1)}, {Group: "b", Topic: "t", Before: p(1)}}},
		{"zero is a commit", State{"g": {"t": {0: nil}}}, State{"g": {"t": {0: p(0)}}},
			[]Change{{Group: "g", Topic: "t", Before: nil, After: p(0)}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Diff(c.before, c.after)
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("Diff = %s, want %s", show(got), show(c.want))
			}
		})
	}
}

func show(cs []Change) string {
	var b strings.Builder
	for _, c := range cs {
		fmt.Fprintf(&b, "[%s %s/%d %s→%s]", c.Group, c.Topic, c.Partition, off(c.Before), off(c.After))
	}
	return b.String()
}

func off(v *int64) string {
	if v == nil {
		return "none"
	}
	return fmt.Sprint(*v)
}

func TestGroupsAndRows(t *testing.T) {
	d := Groups(State{"a": {}, "b": {}}, State{"b": {}, "c": {}})
	if !reflect.DeepEqual(d, GroupDiff{Appeared: []string{"c"}, Vanished: []string{"a"}}) {
		t.Errorf("Groups = %+v", d)
	}
	rows := Rows([]Change{{Before: p(10), After: p(4)}, {Before: nil, After: p(4)}})
	if rows[0].Delta == nil || *rows[0].Delta != -6 || rows[1].Delta != nil {
		t.Errorf("Rows deltas = %v, %v", rows[0].Delta, rows[1].Delta)
	}
}

// TestStateOfPlan: a backup's groups, each present even without rows,
// and no marker as a group: the cluster's (a cluster id is a legal topic
// name) read as group "offsetctl:cluster" would show in every diff as a
// group that appeared or vanished.
func TestStateOfPlan(t *testing.T) {
	var buf bytes.Buffer
	at := time.UnixMilli(1_700_000_000_000)
	err := admin.WriteBackupCSV(&buf, at, "MkU3OEVBNTcwNTJENDM2Qk", []admin.BackupGroup{
		{Group: "g", Rows: []admin.PlanRow{{Topic: "t", Partition: 0, Offset: 7}, {Topic: "t", Partition: 1, NoCommit: true}}},
		{Group: "empty"},
	})
	if err != nil {
		t.Fatal(err)
	}
	pf, err := admin.ParsePlanCSV(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	want := State{"g": {"t": {0: p(7), 1: nil}}, "empty": {}}
	if got := StateOfPlan(pf); !reflect.DeepEqual(got, want) {
		t.Errorf("StateOfPlan = %v, want %v", got, want)
	}
}

func line(id string) string {
	b, _ := Marshal(Entry{ID: id, Action: ActReset, Outcome: Applied})
	return string(b)
}

func TestRead(t *testing.T) {
	cases := []struct {
		name    string
		in      string
		ids     []string
		corrupt []int
	}{
		{"empty", "", nil, nil},
		{"two", line("A") + line("B"), []string{"A", "B"}, nil},
		{"torn last line reported", line("A") + line("B")[:20], []string{"A"}, []int{2}},
		{"last line without newline that parses", line("A") + strings.TrimSuffix(line("B"), "\n"), []string{"A", "B"}, nil},
		{"corrupt middle line skipped and reported", line("A") + "{not json\n" + line("C"), []string{"A", "C"}, []int{2}},
		{"torn line followed by later appends", line("A") + line("B")[:15] + line("C"), []string{"A"}, []int{2}},
		{"blank lines and CRLF", "\n" + strings.TrimSuffix(line("A"), "\n") + "\r\n\n", []string{"A"}, nil},
		{"unknown fields kept compatible", `{"v":1,"id":"X","action":"reset","future":[1,2]}` + "\n", []string{"X"}, nil},
		{"an id without an action is not an entry", `{"v":1,"id":"X"}` + "\n" + line("A"), []string{"A"}, []int{1}},
		{"unknown version read, not torn", `{"v":99,"id":"X"}` + "\n", []string{"X"}, nil},
		{"json without id is not an entry", "{}\n" + line("A"), []string{"A"}, []int{1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			es, err := Read(strings.NewReader(c.in))
			var ids []string
			for _, e := range es {
				ids = append(ids, e.ID)
			}
			if !reflect.DeepEqual(ids, c.ids) {
				t.Errorf("ids = %v, want %v", ids, c.ids)
			}
			var ce *CorruptError
			switch {
			case c.corrupt == nil && err != nil:
				t.Errorf("err = %v", err)
			case c.corrupt != nil && (!errors.As(err, &ce) || !reflect.DeepEqual(ce.Lines, c.corrupt)):
				t.Errorf("err = %v, want corrupt lines %v", err, c.corrupt)
			}
		})
	}
}

func FuzzRead(f *testing.F) {
	f.Add([]byte(line("A") + line("B")))
	f.Add([]byte(line("A")[:10]))
	f.Add([]byte("{}\n\n\r\n{\"id\":\"x\",\"changes\":[{\"before\":null}]}"))
	f.Add([]byte(`{"id":"x","kind":"bogus"}` + "\n" + `{"v":3,"id":"y","kind":"new"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		es, err := Read(bytes.NewReader(data))
		var ce *CorruptError
		if err != nil && !errors.As(err, &ce) {
			t.Fatalf("Read: %v", err)
		}
		// Every entry read survives a write and a second read.
		var buf bytes.Buffer
		for _, e := range es {
			if e.ID == "" {
				t.Fatalf("entry without id: %+v", e)
			}
			b, err := Marshal(e)
			if err != nil {
				t.Fatal(err)
			}
			buf.Write(b)
		}
		again, err := Read(&buf)
		if err != nil || len(again) != len(es) {
			t.Fatalf("re-read %d of %d entries: %v", len(again), len(es), err)
		}
	})
}

func TestNewIDSortsByTime(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 19, 0, 0, 0, time.UTC)
	var ids []string
	for i := 0; i < 50; i++ {
		ids = append(ids, NewID(t0.Add(time.Duration(i)*time.Millisecond)))
	}
	if !sort.StringsAreSorted(ids) {
		t.Errorf("ids do not sort by time: %v", ids)
	}
	if len(ids[0]) != 26 || NewID(t0) == NewID(t0) {
		t.Errorf("id %q: want 26 characters and distinct ids in one millisecond", ids[0])
	}
	if got := encodeID(0, [10]byte{}); got != strings.Repeat("0", 26) {
		t.Errorf("encodeID(0) = %s", got)
	}
	all := [10]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
	if got := encodeID(0, all); got != strings.Repeat("0", 10)+strings.Repeat("Z", 16) {
		t.Errorf("encodeID(all ones) = %s", got)
	}
}

func TestRedactArgs(t *testing.T) {
	in := []string{"reset", "g", "--sasl-password", "hunter22", "--sasl-password=hunter22", "--sasl-password-file", "/pw", "--group", "x-s3cret-y", "--oauth-token=abc", "--"}
	got := RedactArgs(in, []string{"s3cret"})
	want := []string{"reset", "g", "--sasl-password", Redacted, "--sasl-password=" + Redacted, "--sasl-password-file", "/pw", "--group", "x-" + Redacted + "-y", "--oauth-token=" + Redacted, "--"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("RedactArgs = %q\nwant %q", got, want)
	}
	if in[3] != "hunter22" {
		t.Error("RedactArgs changed its input")
	}
}

func TestDefaultPath(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	cases := []struct {
		env  func(string) string
		want string
	}{
		{env("OFFSETCTL_AUDIT_LOG", "/x/a.jsonl", "XDG_STATE_HOME", "/s", "HOME", "/h"), "/x/a.jsonl"},
		{env("XDG_STATE_HOME", "/s", "HOME", "/h"), "/s/offsetctl/audit.jsonl"},
		{env("XDG_STATE_HOME", "relative", "HOME", "/h"), "/h/.local/state/offsetctl/audit.jsonl"},
		{env("HOME", "/h"), "/h/.local/state/offsetctl/audit.jsonl"},
	}
	for _, c := range cases {
		if got, err := DefaultPath(c.env); err != nil || got != c.want {
			t.Errorf("DefaultPath = %q, %v; want %q", got, err, c.want)
		}
	}
	if _, err := DefaultPath(env()); err == nil {
		t.Error("DefaultPath with no environment: want an error")
	}
}

// TestConcurrentAppend has writers with their own file handles append at
// once, entries of very different sizes: every line must parse.
func TestConcurrentAppend(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "audit.jsonl")
	const writers, each = 8, 40
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				e := Entry{ID: fmt.Sprintf("w%d-%d", w, i), Action: ActReset}
				for j := 0; j < (w*97+i*31)%2000; j++ {
					e.Changes = append(e.Changes, Change{Group: "g", Topic: "topic", Partition: int32(j), After: p(int64(j))})
				}
				if err := Append(path, e); err != nil {
					t.Error(err)
					return
				}
			}
		}(w)
	}
	wg.Wait()
	es, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != writers*each {
		t.Fatalf("read %d entries, want %d", len(es), writers*each)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("log mode %v, %v: want 0600", st.Mode().Perm(), err)
	}
	dst, _ := os.Stat(filepath.Dir(path))
	if dst.Mode().Perm() != 0o700 {
		t.Errorf("log directory mode %v: want 0700", dst.Mode().Perm())
	}
}

func TestOpenUnwritable(t *testing.T) {
	// A path under a regular file cannot be created, even by root.
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{filepath.Join(file, "audit.jsonl"), filepath.Dir(file)} {
		if _, err := Open(path); err == nil {
			t.Errorf("Open(%s): want an error", path)
		}
	}
}

func TestOutcome(t *testing.T) {
	boom := errors.New("boom")
	cases := []struct {
		err     error
		refused bool
		applied int
		want    string
	}{
		{nil, false, 3, Applied},
		{nil, false, 0, Applied},
		{boom, true, 0, Refused},
		{boom, false, 0, Failed},
		{boom, false, 2, Partly},
	}
	for _, c := range cases {
		if got := Outcome(c.err, c.refused, c.applied); got != c.want {
			t.Errorf("Outcome(%v, %v, %d) = %s, want %s", c.err, c.refused, c.applied, got, c.want)
		}
	}
}

func TestSelectFindMoved(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	es := []Entry{
		{ID: "01B", Time: t0.Add(time.Hour), Groups: []string{"g1", "g2"}, Topics: []string{"t"}},
		{ID: "01A", Time: t0, Groups: []string{"g1"}, Topics: []string{"u"}},
		{ID: "01B", Time: t0.Add(time.Hour), Groups: []string{"g1", "g2"}, Topics: []string{"t"}},
		{ID: "01C", Time: t0.Add(2 * time.Hour), Groups: []string{"g3"}, Topics: []string{"t"}},
	}
	ids := func(es []Entry) string {
		var s []string
		for _, e := range es {
			s = append(s, e.ID)
		}
		return strings.Join(s, ",")
	}
	cases := []struct {
		f    Filter
		want string
	}{
		{Filter{}, "01A,01B,01C"},
		{Filter{Group: "g1"}, "01A,01B"},
		{Filter{Topic: "t"}, "01B,01C"},
		{Filter{Since: t0.Add(30 * time.Minute)}, "01B,01C"},
		{Filter{Group: "g2", Topic: "u"}, ""},
	}
	for _, c := range cases {
		if got := ids(Select(es, c.f)); got != c.want {
			t.Errorf("Select(%+v) = %s, want %s", c.f, got, c.want)
		}
	}
	long := []Entry{{ID: "01HABCDEF1"}, {ID: "01HABCDEF2"}, {ID: "01HXYZ0000"}}
	if e, err := Find(long, "01hxyz"); err != nil || e.ID != "01HXYZ0000" {
		t.Errorf("Find prefix = %v, %v", e.ID, err)
	}
	if _, err := Find(long, "01HABC"); err == nil || !strings.Contains(err.Error(), "2 audit entries") {
		t.Errorf("Find ambiguous prefix: %v", err)
	}
	if _, err := Find(long, "01H"); err == nil {
		t.Error("Find with a 3-character prefix: want an error")
	}

	e := Entry{Changes: []Change{
		{Group: "g", Topic: "t", Partition: 0, Before: p(9), After: p(1)},
		{Group: "g", Topic: "t", Partition: 1, Before: p(9), After: nil},
		{Group: "g", Topic: "t", Partition: 2, Before: p(9), After: p(3), Error: "commit failed"},
	}}
	if got := Moved(e, State{"g": {"t": {0: p(1), 2: p(9)}}}); got != nil {
		t.Errorf("Moved unchanged = %s", show(got))
	}
	got := Moved(e, State{"g": {"t": {0: p(4), 1: p(0)}}})
	want := []Change{{Group: "g", Topic: "t", Partition: 0, Before: p(1), After: p(4)}, {Group: "g", Topic: "t", Partition: 1, Before: nil, After: p(0)}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Moved = %s, want %s", show(got), show(want))
	}
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	if s, err := ParseSince("24h", now); err != nil || !s.Equal(now.Add(-24*time.Hour)) {
		t.Errorf("ParseSince(24h) = %v, %v", s, err)
	}
	if s, err := ParseSince("2026-11-30T10:00:00Z", now); err != nil || !s.Equal(time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)) {
		t.Errorf("ParseSince(time) = %v, %v", s, err)
	}
	if _, err := ParseSince("yesterday", now); err == nil {
		t.Error("ParseSince(yesterday): want an error")
	}
}

// TestParseSinceRefusesZeroOrLess (QA): --since 0 read as a zero duration
// listed nothing from now on and exited 0; a duration of zero or less is
// refused with the forms to give, while positive durations and times still
// parse.
func TestParseSinceRefusesZeroOrLess(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	for _, s := range []string{"0", "0s", " 0 ", "0d", "PT0S", "-1h", "-2d", "-PT90M", "-0s"} {
		_, err := ParseSince(s, now)
		if err == nil || !strings.Contains(err.Error(), "a duration of zero or less reaches back to no entry: give how far back, such as 24h or 7d, or a time") {
			t.Errorf("ParseSince(%q) = %v, want the zero-or-less refusal", s, err)
		}
	}
	for _, tc := range []struct {
		in   string
		want time.Time
	}{
		{"90m", now.Add(-90 * time.Minute)},
		{"+1h", now.Add(-time.Hour)},
		{"1d12h", now.Add(-36 * time.Hour)},
		{"P1D", now.Add(-24 * time.Hour)},
		{"2026-11-30", time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)},
		{"1764470400000", time.UnixMilli(1764470400000)},
	} {
		if got, err := ParseSince(tc.in, now); err != nil || !got.Equal(tc.want) {
			t.Errorf("ParseSince(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

// TestConcurrentAppendProcesses has real child processes (this test
// binary, re-executed) append to one log at once: every line parses.
func TestConcurrentAppendProcesses(t *testing.T) {
	if path := os.Getenv("AUDIT_TEST_WRITER"); path != "" {
		// One open log per process, rotated every MiB by whichever
		// process crosses it: the others must notice and reopen.
		l, err := OpenWith(path, Options{RotateSize: 1 << 20, Gzip: os.Getpid()%2 == 0, Warn: func(s string) { t.Error(s) }})
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		for i := 0; i < 50; i++ {
			e := Entry{ID: fmt.Sprintf("p%d-%d", os.Getpid(), i), Action: ActReset}
			for j := 0; j < (i*131)%3000; j++ {
				e.Changes = append(e.Changes, Change{Group: "g", Topic: "topic", Partition: int32(j), After: p(int64(j))})
			}
			if err := l.Append(e); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	const procs = 4
	var cmds []*exec.Cmd
	for i := 0; i < procs; i++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestConcurrentAppendProcesses$")
		cmd.Env = append(os.Environ(), "AUDIT_TEST_WRITER="+path)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("writer: %v", err)
		}
	}
	es, err := ReadFile(path)
	seen := map[string]bool{}
	for _, e := range es {
		seen[e.ID] = true
	}
	if files, _ := Files(path); len(files) < 5 {
		t.Errorf("%d files: the log did not rotate", len(files))
	}
	if err != nil || len(es) != procs*50 || len(seen) != procs*50 {
		t.Fatalf("read %d entries, want %d: %v", len(es), procs*50, err)
	}
}

func TestSnapshotGroups(t *testing.T) {
	s := &lag.Snapshot{
		Groups: []lag.GroupSnapshot{
			{GroupInfo: lag.GroupInfo{Group: "g", Exists: true}, Commits: map[string]map[int32]lag.Commit{"t": {2: {Offset: 9}, 0: {Offset: 4}}}},
			{GroupInfo: lag.GroupInfo{Group: "empty", Exists: true}},
			{GroupInfo: lag.GroupInfo{Group: "gone"}},
			{GroupInfo: lag.GroupInfo{Group: "broken", Exists: true}, CommitErr: errors.New("COORDINATOR_NOT_AVAILABLE")},
		},
		Offsets: lag.TopicOffsets{Partitions: map[string]map[int32]lag.PartitionOffsets{"t": {0: {}, 1: {}, 2: {}, 3: {}}}},
	}
	got, missing, err := SnapshotGroups(s, []string{"g", "empty", "gone", "unknown"})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := admin.WriteBackupCSV(&buf, time.UnixMilli(1000), "", got); err != nil {
		t.Fatal(err)
	}
	want := "offsetctl:backup,g,0,1000\ng,t,0,4\noffsetctl:no-commit:g,t,1,0\ng,t,2,9\noffsetctl:no-commit:g,t,3,0\noffsetctl:backup,empty,0,1000\noffsetctl:end,183ad919ca81514772157998,0,6\n"
	if buf.String() != want {
		t.Errorf("snapshot:\n%s\nwant:\n%s", buf.String(), want)
	}
	if fmt.Sprint(missing) != "[gone unknown]" {
		t.Errorf("missing = %v", missing)
	}
	if _, _, err := SnapshotGroups(s, []string{"broken"}); err == nil || !strings.Contains(err.Error(), "COORDINATOR_NOT_AVAILABLE") {
		t.Errorf("broken group: %v", err)
	}
}

// TestOpenFIFOWithoutReader: a FIFO nobody reads is refused at once; the
// open blocked in the kernel until a reader came (QA: a reset with
// --audit-log FIFO hung for ten minutes before any change, and SIGTERM did
// not end it). With a reader, the entry goes through the pipe.
func TestOpenFIFOWithoutReader(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "audit.fifo")
	if err := exec.Command("mkfifo", fifo).Run(); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		l, err := Open(fifo)
		if err == nil {
			l.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "a pipe with no reader") {
			t.Fatalf("Open(FIFO without reader) = %v, want a pipe with no reader", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Open(FIFO without reader) still blocked after 10s")
	}

	read := make(chan []byte, 1)
	r, err := os.OpenFile(fifo, os.O_RDONLY|openFlags, 0)
	if err != nil {
		t.Fatal(err)
	}
	// The reader is non-blocking: until Append opens the FIFO for writing a
	// read finds no writer and ends at once (EOF), so it reads again until
	// the entry came or 10 s passed (a single ReadAll could end before the
	// write began, on a loaded machine).
	go func() {
		var got []byte
		for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
			b, _ := io.ReadAll(r)
			if got = append(got, b...); strings.Contains(string(got), "\n") {
				break
			}
		}
		read <- got
	}()
	if err := Append(fifo, Entry{V: 1, ID: "01M8T8W8Y1KCK5XWQG09MTTSDB", Action: "reset", Groups: []string{"g"}}); err != nil {
		t.Fatal(err)
	}
	select {
	case b := <-read:
		if !strings.Contains(string(b), "01M8T8W8Y1KCK5XWQG09MTTSDB") {
			t.Fatalf("read from the FIFO: %q", b)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("nothing read from the FIFO")
	}
	r.Close()
	// A character device is refused: --no-audit is how to keep no log.
	if err := Append(os.DevNull, Entry{V: 1, ID: "01M8T8W8Y1KCK5XWQG09MTTSDB", Action: "reset"}); err == nil || !strings.Contains(err.Error(), "not a regular file") || !strings.Contains(err.Error(), "--no-audit") {
		t.Fatalf("Append(%s) = %v, want refused", os.DevNull, err)
	}
}
