package cli

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"testing"
)

// TestMain lets the test binary stand in for offsetctl when a command
// re-executes itself (os.Executable is the test binary under go test): a
// child marked by OFFSETCTL_SEMANTICS_WORKER runs the real command tree,
// exactly as main does, instead of the tests. The semantics integration
// tests rely on this to crash real worker processes.
func TestMain(m *testing.M) {
	if os.Getenv(semanticsWorkerEnv) != "" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		code := Run(ctx, os.Args[1:], os.Stdout, os.Stderr)
		stop()
		os.Exit(code)
	}
	os.Exit(m.Run())
}
