package iostreams

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/creack/pty"
)

// openPTY opens a pseudo-terminal of the given width; the test reads what
// is written to tty from ptm.
func openPTY(t *testing.T, cols uint16) (ptm, tty *os.File) {
	t.Helper()
	ptm, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	t.Cleanup(func() { tty.Close(); ptm.Close() })
	if err := pty.Setsize(ptm, &pty.Winsize{Rows: 24, Cols: cols}); err != nil {
		t.Fatal(err)
	}
	return ptm, tty
}

func TestSystemOnTerminal(t *testing.T) {
	_, tty := openPTY(t, 132)
	s := System(tty, tty, tty, func(string) string { return "" })
	if !s.IsStdinTTY() || !s.IsStdoutTTY() || !s.IsStderrTTY() || !s.ProgressAllowed() || !s.ColorEnabled() {
		t.Errorf("on a pty: stdin %v stdout %v stderr %v progress %v colour %v, want all true",
			s.IsStdinTTY(), s.IsStdoutTTY(), s.IsStderrTTY(), s.ProgressAllowed(), s.ColorEnabled())
	}
	if s.TerminalWidth() != 132 {
		t.Errorf("width %d, want the pty's 132", s.TerminalWidth())
	}
	if s.StdinFd() != int(tty.Fd()) {
		t.Errorf("stdin fd %d, want %d", s.StdinFd(), tty.Fd())
	}
	noColor := System(tty, tty, tty, func(k string) string {
		if k == EnvNoColor {
			return "1"
		}
		return ""
	})
	if noColor.ColorEnabled() || !noColor.IsStdoutTTY() {
		t.Errorf("NO_COLOR=1 on a pty: colour %v, stdout tty %v; want false, true", noColor.ColorEnabled(), noColor.IsStdoutTTY())
	}
}

// A file, a pipe and a buffer are not terminals; the width is the default.
func TestSystemNotTerminal(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "err"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	var buf bytes.Buffer
	s := System(strings.NewReader(""), w, f, nil)
	if s.IsStdinTTY() || s.IsStdoutTTY() || s.IsStderrTTY() || s.ProgressAllowed() || s.ColorEnabled() || s.StdinFd() != -1 {
		t.Errorf("pipe/file: %+v, want no terminal", s)
	}
	if s.TerminalWidth() != DefaultWidth {
		t.Errorf("width %d, want %d", s.TerminalWidth(), DefaultWidth)
	}
	if b := System(r, &buf, &buf, nil); b.IsStdinTTY() || b.IsStdoutTTY() || b.IsStderrTTY() {
		t.Errorf("buffers: %+v, want no terminal", b)
	}
}

// Progress follows stderr only: stdout may be a file or a pipe.
func TestProgressFollowsStderr(t *testing.T) {
	_, tty := openPTY(t, 80)
	var buf bytes.Buffer
	if s := System(nil, &buf, tty, nil); !s.ProgressAllowed() || s.IsStdoutTTY() {
		t.Errorf("stdout a buffer, stderr a pty: progress %v stdout tty %v", s.ProgressAllowed(), s.IsStdoutTTY())
	}
	if s := System(nil, tty, &buf, nil); s.ProgressAllowed() {
		t.Error("stderr a buffer: progress allowed")
	}
}

func TestSetters(t *testing.T) {
	s := Test(nil, nil, nil)
	if s.IsStdoutTTY() || s.ProgressAllowed() || s.ColorEnabled() || s.TerminalWidth() != DefaultWidth {
		t.Fatalf("Test(): %+v", s)
	}
	s.SetStdoutTTY(true)
	s.SetStderrTTY(true)
	s.SetStdinTTY(true)
	s.SetWidth(40)
	if !s.IsStdoutTTY() || !s.IsStderrTTY() || !s.IsStdinTTY() || !s.ProgressAllowed() || !s.ColorEnabled() || s.TerminalWidth() != 40 {
		t.Errorf("after setters: %+v", s)
	}
	s.SetNoColor(true)
	s.SetWidth(0)
	if s.ColorEnabled() || s.TerminalWidth() != DefaultWidth {
		t.Errorf("NO_COLOR set, width 0: colour %v width %d", s.ColorEnabled(), s.TerminalWidth())
	}
}
