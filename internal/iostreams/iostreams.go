// Package iostreams decides the terminal facts of one invocation once, at
// start-up: whether stdin, stdout and stderr are terminals, whether colour
// is allowed (NO_COLOR), the terminal's width, and whether a progress bar
// may be drawn. Commands ask the value instead of probing a writer, so a
// wrapper put around a stream later (the control-byte filter on stderr, a
// locked writer) cannot change the answer: the replay progress bar was
// never drawn because stderr had been wrapped in a writer without a file
// descriptor before it was probed. Tests set the facts directly.
//
// The model is the GitHub CLI's pkg/iostreams (one value made by System,
// overridable in tests); the code is offsetctl's own.
package iostreams

import (
	"io"

	"golang.org/x/term"
)

// DefaultWidth is the width assumed when stdout is not a terminal or its
// size cannot be read.
const DefaultWidth = 80

// EnvNoColor is the variable of https://no-color.org: set to anything but
// the empty string, no colour is written.
const EnvNoColor = "NO_COLOR"

// IOStreams is one invocation's streams and what is known about them.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	stdinTTY, stdoutTTY, stderrTTY bool
	noColor                        bool
	width                          int
	// stdinFd is stdin's descriptor when it is a terminal (a password
	// prompt reads it without echo); -1 otherwise.
	stdinFd int
}

// System decides the facts from the streams' file descriptors (a writer
// that is not an *os.File, or any value with an Fd method, is not a
// terminal) and from getenv.
func System(in io.Reader, out, errOut io.Writer, getenv func(string) string) *IOStreams {
	s := &IOStreams{In: in, Out: out, ErrOut: errOut, width: DefaultWidth, stdinFd: -1}
	var outFd int
	s.stdoutTTY, outFd = terminal(out)
	s.stderrTTY, _ = terminal(errOut)
	var inFd int
	if s.stdinTTY, inFd = terminal(in); s.stdinTTY {
		s.stdinFd = inFd
	}
	if s.stdoutTTY {
		if w, _, err := term.GetSize(outFd); err == nil && w > 0 {
			s.width = w
		}
	}
	s.noColor = getenv != nil && getenv(EnvNoColor) != ""
	return s
}

// Test returns streams that are not terminals, with the given writers;
// tests turn the facts on with the setters.
func Test(in io.Reader, out, errOut io.Writer) *IOStreams {
	return &IOStreams{In: in, Out: out, ErrOut: errOut, width: DefaultWidth, stdinFd: -1}
}

func terminal(v any) (bool, int) {
	f, ok := v.(interface{ Fd() uintptr })
	if !ok {
		return false, -1
	}
	fd := int(f.Fd())
	return term.IsTerminal(fd), fd
}

// IsStdinTTY reports whether stdin is a terminal.
func (s *IOStreams) IsStdinTTY() bool { return s.stdinTTY }

// IsStdoutTTY reports whether stdout is a terminal.
func (s *IOStreams) IsStdoutTTY() bool { return s.stdoutTTY }

// IsStderrTTY reports whether stderr is a terminal.
func (s *IOStreams) IsStderrTTY() bool { return s.stderrTTY }

// StdinFd is stdin's file descriptor when it is a terminal, else -1.
func (s *IOStreams) StdinFd() int { return s.stdinFd }

// ColorEnabled reports whether colour may be written to stdout: it is a
// terminal and NO_COLOR is unset or empty.
func (s *IOStreams) ColorEnabled() bool { return s.stdoutTTY && !s.noColor }

// TerminalWidth is stdout's width in columns (DefaultWidth when it is not
// a terminal).
func (s *IOStreams) TerminalWidth() int { return s.width }

// ProgressAllowed reports whether a progress bar may be drawn: on stderr,
// so it needs stderr to be a terminal (stdout may be a file or a pipe:
// `replay T | grep x` still shows how far the replay is). A command's own
// --quiet is its own business.
func (s *IOStreams) ProgressAllowed() bool { return s.stderrTTY }

// SetStdinTTY, SetStdoutTTY and SetStderrTTY override what System found
// (tests).
func (s *IOStreams) SetStdinTTY(v bool)  { s.stdinTTY = v }
func (s *IOStreams) SetStdoutTTY(v bool) { s.stdoutTTY = v }
func (s *IOStreams) SetStderrTTY(v bool) { s.stderrTTY = v }

// SetNoColor overrides NO_COLOR (tests).
func (s *IOStreams) SetNoColor(v bool) { s.noColor = v }

// SetWidth overrides the terminal width (tests); 0 or less restores the
// default.
func (s *IOStreams) SetWidth(w int) {
	if w <= 0 {
		w = DefaultWidth
	}
	s.width = w
}
