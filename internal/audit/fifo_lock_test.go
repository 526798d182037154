//go:build unix

package audit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/offsetctl/offsetctl/internal/filelock"
)

// fifoWriterEnv makes this test binary, re-executed, a writer of
// TestConcurrentFIFOWriters: it appends fifoWriterEntries entries to the
// FIFO the variable names.
const (
	fifoWriterEnv     = "AUDIT_TEST_FIFO_WRITER"
	fifoWriterEntries = 40
)

// bigEntry is an entry of about 9 to 45 KB: more than PIPE_BUF (4096),
// the most a pipe takes in one piece, and up to most of what the pipe
// holds, so that a write that finds the pipe partly full goes in pieces.
func bigEntry(id string, i int) Entry {
	e := Entry{V: Version, ID: id, Kind: KindIntent, Action: ActReset, Outcome: Unknown}
	for j := 0; j < 100+(i*37)%400; j++ {
		e.Changes = append(e.Changes, Change{Group: "orders-billing", Topic: "orders", Partition: int32(j), Before: p(int64(j)), After: p(int64(j + 1))})
	}
	return e
}

// TestConcurrentFIFOWriters has two child processes (this test binary,
// re-executed, as two offsetctl runs are) append entries larger than
// PIPE_BUF to one FIFO at once while the reader collects: every line
// must be one whole entry. A pipe keeps only writes of up to PIPE_BUF
// whole; a larger one that finds the pipe full goes in pieces, and
// without the writers' lock another process's pieces landed between
// them: two resets logging to one --audit-log FIFO made lines that were
// pieces of two entries, and neither entry was read.
func TestConcurrentFIFOWriters(t *testing.T) {
	if fifo := os.Getenv(fifoWriterEnv); fifo != "" {
		l, err := OpenWith(fifo, Options{Explicit: true, Deadline: time.Minute, Warn: func(s string) { t.Error(s) }})
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		for i := 0; i < fifoWriterEntries; i++ {
			if err := l.Append(bigEntry(fmt.Sprintf("p%d-%d", os.Getpid(), i), i)); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	fifo := filepath.Join(t.TempDir(), "audit.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	got := collectFIFO(t, fifo, 2, nil)
	checkFIFOEntries(t, got, 2)
	if _, err := os.Lstat(lockPath(fifo)); err != nil {
		t.Errorf("the writers' lock beside the FIFO: %v", err)
	}
}

// collectFIFO opens fifo for reading, starts procs writers and reads
// until they have all exited and the pipe is drained. The reader is
// slower than the writers (it reads 1 KiB at a time), so the pipe is
// often full: that is when a large write goes in pieces.
func collectFIFO(t *testing.T, fifo string, procs int, prepare func(i int, cmd *exec.Cmd)) []byte {
	t.Helper()
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	// A write end of the test's own: the reader sees no end of file
	// before the writers have opened the pipe, nor between them.
	keep, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	read := make(chan error, 1)
	go func() {
		buf := make([]byte, 1024)
		for {
			n, err := r.Read(buf)
			got.Write(buf[:n])
			if err != nil {
				if errors.Is(err, io.EOF) {
					err = nil
				}
				read <- err
				return
			}
			time.Sleep(20 * time.Microsecond)
		}
	}()
	var cmds []*exec.Cmd
	for i := 0; i < procs; i++ {
		cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$")
		cmd.Env = append(os.Environ(), fifoWriterEnv+"="+fifo)
		if prepare != nil {
			prepare(i, cmd)
		}
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
		t.Cleanup(func() {
			if t.Failed() && out.Len() > 0 {
				t.Logf("writer %d:\n%s", i, out.String())
			}
		})
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("writer: %v", err)
		}
	}
	keep.Close()
	select {
	case err := <-read:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the reader did not reach the end of the pipe")
	}
	return got.Bytes()
}

// checkFIFOEntries reads what the writers wrote: every non-blank line is
// one of their entries, whole, each once.
func checkFIFOEntries(t *testing.T, got []byte, procs int) {
	t.Helper()
	es, err := Read(bytes.NewReader(got))
	var ce *CorruptError
	if errors.As(err, &ce) {
		lines := strings.Split(string(got), "\n")
		first := lines[ce.Lines[0]-1]
		t.Fatalf("%d of %d line(s) are not one whole entry (%d bytes read, %d entries whole); first, line %d: %.200s...", len(ce.Lines), len(lines), len(got), len(es), ce.Lines[0], first)
	}
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, e := range es {
		pid, i, ok := strings.Cut(strings.TrimPrefix(e.ID, "p"), "-")
		n, _ := strconv.Atoi(i)
		if _, perr := strconv.Atoi(pid); !ok || perr != nil || seen[e.ID] {
			t.Fatalf("entry %q: not one of the writers', or twice", e.ID)
		}
		seen[e.ID] = true
		if want := bigEntry(e.ID, n); len(e.Changes) != len(want.Changes) {
			t.Fatalf("entry %s: %d changes, want %d", e.ID, len(e.Changes), len(want.Changes))
		}
	}
	if len(seen) != procs*fifoWriterEntries {
		t.Fatalf("%d entries read, want %d", len(seen), procs*fifoWriterEntries)
	}
}

// TestConcurrentFIFOWritersWithoutLockFile: a FIFO in a directory its
// writers cannot write (a shared /run/offsetctl/audit.fifo) takes no lock
// file beside it; its writers lock the FIFO itself, and every line is
// still one whole entry. Run as root, one writer is root (it makes
// PATH.lock, mode 0600, and holds it) and the other nobody, who can
// neither make nor open it: the FIFO's own lock, which both take,
// excludes them.
func TestConcurrentFIFOWritersWithoutLockFile(t *testing.T) {
	if fifo := os.Getenv(fifoWriterEnv); fifo != "" {
		TestConcurrentFIFOWriters(t)
		return
	}
	dir, err := os.MkdirTemp("", "offsetctl-fifo-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755); os.RemoveAll(dir) })
	fifo := filepath.Join(dir, "audit.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if err := os.Chmod(fifo, 0o666); err != nil {
		t.Fatal(err)
	}
	prepare := func(int, *exec.Cmd) {}
	if os.Geteuid() == 0 {
		// Root writes any directory: the second writer is nobody, with
		// a copy of this test binary it can run.
		bin := filepath.Join(dir, "audit.test")
		data, err := os.ReadFile(os.Args[0])
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(bin, data, 0o755); err != nil {
			t.Fatal(err)
		}
		prepare = func(i int, cmd *exec.Cmd) {
			cmd.Path, cmd.Args[0] = bin, bin
			if i == 1 {
				cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
			}
		}
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	} else if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	got := collectFIFO(t, fifo, 2, prepare)
	checkFIFOEntries(t, got, 2)
	_, err = os.Lstat(lockPath(fifo))
	if root := os.Geteuid() == 0; root != (err == nil) {
		t.Errorf("the lock file beside the FIFO (root: %v): %v", root, err)
	}
}

// An append to a FIFO that waits for the writers' lock, held by another
// offsetctl, and gives up (the deadline, a SIGTERM) has written nothing,
// says so, and leaves the log fit for the next append: the lock beside
// the FIFO and the FIFO's own flock alike.
func TestFIFOAppendWaitingForTheLock(t *testing.T) {
	fifo, r := fifoWithReader(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	l, err := OpenWith(fifo, Options{Explicit: true, Deadline: 300 * time.Millisecond, Context: ctx})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()

	beside, err := filelock.TryLock(lockPath(fifo))
	if err != nil {
		t.Fatal(err)
	}
	err = l.Append(Entry{ID: "01M8T8W8Y1KCK5XWQG09MTTSD1", Action: ActReset})
	if err == nil || !strings.Contains(err.Error(), "the append waited 300ms for the lock another offsetctl holds on it ("+fifo+".lock): nothing was written") {
		t.Fatalf("append while another process holds the lock beside the FIFO: %v", err)
	}
	beside.Unlock()

	// Another process's descriptor of the FIFO, flocked.
	other, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := filelock.TryLockOpen(other); err != nil {
		t.Skipf("this system cannot lock a FIFO: %v", err)
	}
	err = l.Append(Entry{ID: "01M8T8W8Y1KCK5XWQG09MTTSD2", Action: ActReset})
	if err == nil || !strings.Contains(err.Error(), "the append waited 300ms for the lock another offsetctl holds on it ("+fifo+"): nothing was written") {
		t.Fatalf("append while another process holds the FIFO's flock: %v", err)
	}
	l.opt.Deadline = time.Hour
	time.AfterFunc(100*time.Millisecond, cancel)
	err = l.Append(Entry{ID: "01M8T8W8Y1KCK5XWQG09MTTSD3", Action: ActReset})
	if err == nil || !strings.Contains(err.Error(), "was interrupted (context canceled) while it waited for the lock") || !strings.Contains(err.Error(), "nothing was written") {
		t.Fatalf("append cancelled while another process holds the FIFO's flock: %v", err)
	}
	// What is in the pipe: the writers hold it open, so a read waits
	// for more until its deadline.
	pending := func() []byte {
		_ = r.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
		b, _ := io.ReadAll(r)
		return b
	}
	if b := pending(); len(b) != 0 {
		t.Fatalf("the pipe after three appends that wrote nothing: %q", b)
	}
	if err := filelock.UnlockOpen(other); err != nil {
		t.Fatal(err)
	}
	if err := l.AppendContext(context.Background(), Entry{ID: "01M8T8W8Y1KCK5XWQG09MTTSD4", Action: ActReset}); err != nil {
		t.Fatalf("append once the lock is free: %v", err)
	}
	b := pending()
	if es, err := Read(bytes.NewReader(b)); err != nil || len(es) != 1 || es[0].ID != "01M8T8W8Y1KCK5XWQG09MTTSD4" {
		t.Fatalf("read %+v, %v from %q", es, err, b)
	}
}
