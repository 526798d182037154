//go:build linux

package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/offsetctl/offsetctl/internal/testkit"
)

// replayWithStderr runs `replay` in-process with stderr on w (a terminal,
// a file) as main hands it in: the terminal facts are decided from the
// streams before stderr is wrapped in the control-byte filter.
func replayWithStderr(t *testing.T, c *testkit.Cluster, w io.Writer, args ...string) (int, string) {
	t.Helper()
	var out bytes.Buffer
	a := &app{stdout: &out, stderr: w, stdin: strings.NewReader(""), getenv: testEnv(t, nil), now: time.Now}
	code := a.execute(context.Background(), append([]string{"--brokers", c.BrokerList(), "replay"}, args...))
	return code, out.String()
}

// TestReplayProgressBarOnPTY: the replay progress bar is drawn on a real
// pseudo-terminal, and not with -q, nor when stderr is a file or a pipe.
// (It was never drawn: stderr was wrapped in a writer without a file
// descriptor before the terminal check, which therefore always failed.)
func TestReplayProgressBarOnPTY(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(2, nil)
	c.Produce(topic, map[int32]int{0: 200, 1: 150}, time.Time{})

	onPTY := func(args ...string) (int, string, string) {
		ptm, tty, err := pty.Open()
		if err != nil {
			t.Skipf("no pseudo-terminal here: %v", err)
		}
		defer ptm.Close()
		got := make(chan []byte, 1)
		go func() { b, _ := io.ReadAll(ptm); got <- b }()
		code, out := replayWithStderr(t, c, tty, args...)
		tty.Close()
		// The terminal turns each line feed into CR LF (onlcr): what is
		// left of a CR is the bar's own.
		return code, out, strings.ReplaceAll(string(<-got), "\r\n", "\n")
	}

	code, out, term := onPTY(topic, "--format", "none")
	if code != 0 || !strings.Contains(out, "350") {
		t.Fatalf("replay on a pty: exit %d, summary %q (want 350 records)", code, out)
	}
	// The bar: its description, its count of the 350 records, redrawn in
	// place with carriage returns (raw, not escaped to the text `\r`).
	if !strings.Contains(term, "replay") || !strings.Contains(term, "350") || !strings.Contains(term, "records") || !strings.Contains(term, "\r") || strings.Contains(term, `\r`) {
		t.Errorf("stderr on a pty shows no progress bar: %q", term)
	}
	t.Logf("stderr on a pty: %q", term)

	code, out, term = onPTY(topic, "--format", "none", "-q")
	if code != 0 || !strings.Contains(out, "350") {
		t.Fatalf("replay -q on a pty: exit %d, summary %q", code, out)
	}
	if strings.Contains(term, "records") || strings.Contains(term, "\r") {
		t.Errorf("-q: stderr on a pty still shows a bar: %q", term)
	}

	// stderr a file, then a pipe: no bar, no carriage return.
	f, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	code, _ = replayWithStderr(t, c, f, topic, "--format", "none")
	f.Close()
	b, _ := os.ReadFile(f.Name())
	if code != 0 || strings.Contains(string(b), "\r") || strings.Contains(string(b), "records") {
		t.Errorf("stderr a file: exit %d, it holds %q; want no bar", code, b)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan []byte, 1)
	go func() { b, _ := io.ReadAll(r); got <- b }()
	code, _ = replayWithStderr(t, c, w, topic, "--format", "none")
	w.Close()
	piped := <-got
	r.Close()
	if code != 0 || strings.Contains(string(piped), "\r") || strings.Contains(string(piped), "records") {
		t.Errorf("stderr a pipe: exit %d, it got %q; want no bar", code, piped)
	}
}
