package cli

import (
	"context"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// stallEnv, in a worker child, freezes its stderr after the Nth line
// that starts with a prefix: "N|prefix". A kill test sets it so the
// child stops right where the test kills it, instead of racing on to the
// end while the parent reads the line and sends the signal (on a fast
// broker the last groups of a run finished in the ~40 ms between).
// Every writer blocks behind the frozen one, and franz-go logs every
// request it writes or reads, so nothing further reaches the broker.
const stallEnv = "OFFSETCTL_TEST_STALL_AFTER"

type stallWriter struct {
	mu     sync.Mutex
	w      io.Writer
	prefix string
	left   int
}

func (s *stallWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, err := s.w.Write(p)
	for _, line := range strings.Split(string(p), "\n") {
		if strings.HasPrefix(line, s.prefix) {
			if s.left--; s.left == 0 {
				select {} // held until the parent's kill -9
			}
		}
	}
	return n, err
}

// childStderr is os.Stderr, or the stalling writer when stallEnv is set.
func childStderr() io.Writer {
	v := os.Getenv(stallEnv)
	n, prefix, ok := strings.Cut(v, "|")
	k, err := strconv.Atoi(n)
	if !ok || err != nil || k < 1 {
		return os.Stderr
	}
	return &stallWriter{w: os.Stderr, prefix: prefix, left: k}
}

// TestMain lets the test binary stand in for offsetctl when a command
// re-executes itself (os.Executable is the test binary under go test): a
// child marked by OFFSETCTL_SEMANTICS_WORKER runs the real command tree,
// exactly as main does, instead of the tests. The semantics integration
// tests rely on this to crash real worker processes.
func TestMain(m *testing.M) {
	if os.Getenv(semanticsWorkerEnv) != "" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		code := Run(ctx, os.Args[1:], os.Stdout, childStderr())
		stop()
		os.Exit(code)
	}
	os.Exit(m.Run())
}
