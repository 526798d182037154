package inputfile

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// prompt is how long a refusal may take: it must not wait for --timeout.
const prompt = 2 * time.Second

func TestReadRegular(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := os.WriteFile(p, []byte("bootstrap.servers=a:9092\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	b, err := Read(p, 100, time.Minute)
	if err != nil || string(b) != "bootstrap.servers=a:9092\n" {
		t.Fatalf("Read = %q, %v", b, err)
	}
	// Exactly the limit is fine; one byte more is refused.
	if _, err := Read(p, int64(len(b)), time.Minute); err != nil {
		t.Fatalf("at the limit: %v", err)
	}
	_, err = Read(p, int64(len(b))-1, time.Minute)
	if err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("over the limit: %v", err)
	}
	if _, err := Read(filepath.Join(dir, "missing"), 100, time.Minute); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing: %v", err)
	}
}

func TestRefusesDevicesAndDirectories(t *testing.T) {
	for _, p := range []string{"/dev/zero", "/dev/urandom", t.TempDir()} {
		if _, err := os.Stat(p); err != nil {
			continue
		}
		start := time.Now()
		_, err := Read(p, ConfigLimit, time.Minute)
		if !errors.Is(err, ErrNotRegular) || time.Since(start) > prompt {
			t.Errorf("%s: %v after %s, want ErrNotRegular at once", p, err, time.Since(start))
		}
		if err != nil && strings.Count(err.Error(), "\n") != 0 {
			t.Errorf("%s: %q is not one line", p, err)
		}
	}
}

func mkfifo(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	return p
}

// A FIFO nobody writes to is an error at once: open(2) would block
// forever without O_NONBLOCK, and no deadline applies to it.
func TestFIFOWithoutWriterReturnsAtOnce(t *testing.T) {
	p := mkfifo(t)
	start := time.Now()
	b, err := Read(p, ConfigLimit, time.Minute)
	if err == nil || !strings.Contains(err.Error(), "no writer") || len(b) != 0 || time.Since(start) > prompt {
		t.Fatalf("Read = %q, %v after %s", b, err, time.Since(start))
	}
}

// A writer that holds the FIFO open and never ends it meets the deadline.
func TestFIFOWriterThatNeverEndsTimesOut(t *testing.T) {
	p := mkfifo(t)
	done := make(chan struct{})
	defer close(done)
	go func() {
		w, err := os.OpenFile(p, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer w.Close()
		_, _ = w.Write([]byte("partial"))
		<-done
	}()
	time.Sleep(50 * time.Millisecond) // let the writer open first
	start := time.Now()
	_, err := Read(p, ConfigLimit, 300*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "did not end within 300ms") || time.Since(start) > prompt {
		t.Fatalf("err = %v after %s", err, time.Since(start))
	}
}

// A FIFO fed and closed by a writer (a shell's <(...)) is read whole, and
// an endless one stops at the limit.
func TestFIFOWithWriter(t *testing.T) {
	p := mkfifo(t)
	go func() {
		w, err := os.OpenFile(p, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		_, _ = w.Write([]byte("secret\n"))
		w.Close()
	}()
	time.Sleep(50 * time.Millisecond)
	b, err := Read(p, ConfigLimit, 5*time.Second)
	if err != nil || string(b) != "secret\n" {
		t.Fatalf("Read = %q, %v", b, err)
	}

	p = mkfifo(t)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		w, err := os.OpenFile(p, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer w.Close()
		buf := make([]byte, 64<<10)
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := w.Write(buf); err != nil {
				return
			}
		}
	}()
	time.Sleep(50 * time.Millisecond)
	start := time.Now()
	_, err = Read(p, 1<<20, time.Minute)
	if err == nil || !strings.Contains(err.Error(), "larger than 1 MiB") || time.Since(start) > prompt {
		t.Fatalf("endless pipe: %v after %s", err, time.Since(start))
	}
}

// Errors never echo a path whole, nor its control bytes.
func TestErrorsShowThePathShortened(t *testing.T) {
	p := "/nonexistent/\x1b[2K" + strings.Repeat("x", 5000)
	_, err := Read(p, 1, time.Second)
	if err == nil || len(err.Error()) > 400 || strings.Contains(err.Error(), "\x1b") || !strings.Contains(err.Error(), "(5017 bytes)") {
		t.Fatalf("%q", err)
	}
}

// FuzzRead: whatever a regular file holds, Read returns exactly its bytes
// when they fit the limit and an error when they do not.
func FuzzRead(f *testing.F) {
	f.Add([]byte("a=b\n"), int64(10))
	f.Add([]byte(""), int64(0))
	f.Add([]byte("0123456789"), int64(9))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte, limit int64) {
		if limit < 0 || limit > 1<<20 {
			return
		}
		p := filepath.Join(dir, "f")
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := Read(p, limit, time.Second)
		if int64(len(data)) <= limit {
			if err != nil || string(got) != string(data) {
				t.Fatalf("%d bytes, limit %d: %q, %v", len(data), limit, got, err)
			}
		} else if err == nil {
			t.Fatalf("%d bytes over a limit of %d accepted", len(data), limit)
		}
	})
}

// An endless pipe is refused at the limit having allocated about the
// limit, not the doubling buffer's twice it or more (605 MB of RSS for
// the 256 MiB plan limit with io.ReadAll). Counted in bytes allocated,
// which only this test's reads and the writer (one buffer) add to.
func TestEndlessPipeMemoryBoundedByLimit(t *testing.T) {
	p := mkfifo(t)
	stop := make(chan struct{})
	defer close(stop)
	buf := make([]byte, 64<<10)
	for i := range buf {
		buf[i] = 'y'
	}
	go func() {
		w, err := os.OpenFile(p, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer w.Close()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := w.Write(buf); err != nil {
				return
			}
		}
	}()
	time.Sleep(50 * time.Millisecond)
	const limit = 16 << 20
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := Read(p, limit, time.Minute)
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "larger than 16 MiB") {
		t.Fatalf("err = %v, want refused past 16 MiB", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > limit+limit/8 {
		t.Fatalf("allocated %d bytes to refuse at a limit of %d: want at most the limit and one chunk", got, limit)
	}
}

// readAll returns what a reader gives, across chunk boundaries and for
// an empty reader, byte for byte.
func TestReadAllChunks(t *testing.T) {
	for _, n := range []int{0, 1, firstChunk - 1, firstChunk, firstChunk + 1, 3*maxChunk + 17} {
		want := make([]byte, n)
		for i := range want {
			want[i] = byte(i * 7)
		}
		got, err := readAll(bytes.NewReader(want))
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("readAll of %d bytes: %d bytes, %v", n, len(got), err)
		}
	}
}
