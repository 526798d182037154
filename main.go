// Command offsetctl inspects and moves Kafka consumer-group offsets: lag,
// reset with an exact undo, group-less replay with proof, and the
// commit-semantics experiment. The commands live in internal/cli; main only
// wires the process (signals, streams, exit code) to them.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/offsetctl/offsetctl/internal/cli"
)

// version is the release version, stamped by release builds with
// -ldflags "-X main.version=v1.2.3" (goreleaser, make build). Empty, the
// version comes from the build info: see internal/buildinfo. It is a var
// because -X can only set package-level string variables.
var version string

func main() {
	// A closed stdout (`offsetctl ... | head`) must not kill the process
	// silently, possibly after a reset was committed: writes fail with
	// EPIPE instead, and the command reports it on stderr.
	signal.Ignore(syscall.SIGPIPE)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// The first Ctrl-C (or SIGTERM) asks the command to stop cleanly;
	// then the signals get their default action back, so a second one
	// ends the process at once (what a kill leaves is safe: see
	// docs/atomicity.md and the audit log's write-ahead order).
	context.AfterFunc(ctx, stop)
	code := cli.Run(ctx, os.Args[1:], os.Stdout, os.Stderr, cli.WithVersion(version))
	stop()
	os.Exit(code)
}
