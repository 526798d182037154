package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer behind the lockedWriter the commands use
// for writers shared by goroutines, and a String that takes the same lock,
// for a test reading while the command writes.
type syncBuffer struct {
	*lockedWriter
	b *bytes.Buffer
}

// runInBackground runs the command line args (broker flags included)
// until it ends or ctx does; done gets its exit code. The buffers are safe
// to read while it runs.
func runInBackground(ctx context.Context, t *testing.T, args ...string) (out, errb *syncBuffer, done chan int) {
	out, errb, done = newSyncBuffer(), newSyncBuffer(), make(chan int, 1)
	go func() {
		a := &app{stdout: out, stderr: errb, stdin: strings.NewReader(""), getenv: testEnv(t, nil), now: time.Now}
		done <- a.execute(ctx, args)
	}()
	return out, errb, done
}

func newSyncBuffer() *syncBuffer {
	b := new(bytes.Buffer)
	return &syncBuffer{lockedWriter: &lockedWriter{w: b}, b: b}
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
