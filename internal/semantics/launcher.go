package semantics

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
)

// Launcher runs one worker process to its end and returns its exit code.
// The crash of the experiment is the process's own: CrashExitCode.
type Launcher interface {
	Launch(ctx context.Context, spec WorkerSpec) (code int, stderr string, err error)
}

// WorkerInput is what a worker process reads from stdin: its spec and the
// global command-line flags of the parent (connection settings such as TLS
// and SASL files), which stay out of the child's argv.
type WorkerInput struct {
	Spec WorkerSpec `json:"spec"`
	Args []string   `json:"args,omitempty"`
}

// ReadWorkerInput decodes a WorkerInput.
func ReadWorkerInput(r io.Reader) (WorkerInput, error) {
	var in WorkerInput
	dec := json.NewDecoder(io.LimitReader(r, 1<<20))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return in, fmt.Errorf("reading the worker spec from stdin: %w", err)
	}
	return in, nil
}

// ExecLauncher starts Path with Args (for offsetctl: "semantics worker"),
// the environment Env (nil: this process's) and a WorkerInput on stdin.
type ExecLauncher struct {
	Path string
	Args []string
	Env  []string
	// GlobalArgs are sent on stdin as WorkerInput.Args.
	GlobalArgs []string
	// Stderr, when set, also receives the child's stderr as it comes.
	Stderr io.Writer
}

// Launch runs one worker. ctx ending kills the child.
func (l ExecLauncher) Launch(ctx context.Context, spec WorkerSpec) (int, string, error) {
	in, err := json.Marshal(WorkerInput{Spec: spec, Args: l.GlobalArgs})
	if err != nil {
		return -1, "", err
	}
	cmd := exec.CommandContext(ctx, l.Path, l.Args...)
	cmd.Env = l.Env
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Stdin = bytes.NewReader(in)
	var tail tailBuffer
	var errw io.Writer = &tail
	if l.Stderr != nil {
		errw = io.MultiWriter(&tail, l.Stderr)
	}
	cmd.Stderr = errw
	cmd.Stdout = io.Discard
	dieWithParent(cmd)
	err = cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.Exited() {
		return ee.ExitCode(), tail.String(), nil
	}
	if err != nil {
		if ctx.Err() != nil {
			return -1, tail.String(), ctx.Err()
		}
		return -1, tail.String(), fmt.Errorf("running worker %s: %w", l.Path, err)
	}
	return 0, tail.String(), nil
}

// tailBuffer keeps the last 4 KiB written to it.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

const tailMax = 4096

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailMax {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-tailMax:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.buf))
}
