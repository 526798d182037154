package cli

import "bytes"

// syncBuffer is a bytes.Buffer behind the lockedWriter the commands use
// for writers shared by goroutines, and a String that takes the same lock,
// for a test reading while the command writes.
type syncBuffer struct {
	*lockedWriter
	b *bytes.Buffer
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
