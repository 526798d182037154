package replay

import (
	"bytes"
	"encoding/hex"
	"errors"
	"io"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
)

// shortWriter takes at most max bytes of a write and says no error: a
// short write io.Writer's contract forbids, which must not pass as whole.
type shortWriter struct {
	max int
	got bytes.Buffer
}

func (w *shortWriter) Write(p []byte) (int, error) {
	n := min(len(p), w.max)
	w.got.Write(p[:n])
	return n, nil
}

// TestFlushShortWriteSticks: a write that took part of the buffer with no
// error is a failed write (io.ErrShortWrite): it sticks, and the
// partitions of the buffer stay pending at their state before it.
func TestFlushShortWriteSticks(t *testing.T) {
	st := &pstate{}
	w := &shortWriter{max: 3}
	c := &consumer{sink: w, out: []byte("abcdef")}
	c.hold(st, 7)
	if err := c.flush(); !errors.Is(err, io.ErrShortWrite) {
		t.Fatalf("flush of a short write: %v, want io.ErrShortWrite", err)
	}
	if !st.pend || st.sent.next != 7 || len(c.unsent) != 1 {
		t.Errorf("after a short write: pend %v, sent.next %d, unsent %d; want still pending from 7", st.pend, st.sent.next, len(c.unsent))
	}
	if err := c.flush(); !errors.Is(err, io.ErrShortWrite) || w.got.String() != "abc" {
		t.Errorf("second flush: %v, sink got %q; want the error again and nothing written", err, w.got.String())
	}

	// A whole write makes its records done.
	var whole bytes.Buffer
	st2 := &pstate{}
	c2 := &consumer{sink: &whole, out: []byte("xyz")}
	c2.hold(st2, 1)
	if err := c2.flush(); err != nil || st2.pend || len(c2.unsent) != 0 || whole.String() != "xyz" || len(c2.out) != 0 {
		t.Errorf("whole write: %v, pend %v, unsent %d, sink %q, left %d", err, st2.pend, len(c2.unsent), whole.String(), len(c2.out))
	}
}

// TestFlushLetsAHugeBufferGo: a buffer a huge record grew past twice its
// capacity is replaced after its write; one of up to twice is kept.
func TestFlushLetsAHugeBufferGo(t *testing.T) {
	for _, tc := range []struct{ capacity, want int }{
		{3 * outBufCap, outBufCap},
		{2*outBufCap + 1, outBufCap},
		{2 * outBufCap, 2 * outBufCap},
		{outBufCap, outBufCap},
	} {
		c := &consumer{sink: io.Discard, out: append(make([]byte, 0, tc.capacity), "r\n"...)}
		if err := c.flush(); err != nil {
			t.Fatal(err)
		}
		if cap(c.out) != tc.want || len(c.out) != 0 {
			t.Errorf("capacity %d: after the write %d (len %d), want %d", tc.capacity, cap(c.out), len(c.out), tc.want)
		}
	}
}

// TestPartHashRewind: the digests after markHere, more records and rewind
// are those of the records before the mark, with and without the payload
// digest.
func TestPartHashRewind(t *testing.T) {
	rec := func(o int64) *kgo.Record {
		return &kgo.Record{Partition: 0, Offset: o, Key: []byte{byte(o)}, Value: []byte("v")}
	}
	sum := func(ph *partHash) string {
		s := hex.EncodeToString(ph.h.Sum(nil))
		if ph.payload != nil {
			s += "/" + hex.EncodeToString(ph.payload.Sum(nil))
		}
		return s
	}
	for _, payload := range []bool{false, true} {
		want, ph := newPartHash(payload), newPartHash(payload)
		for o := int64(0); o < 3; o++ {
			want.add(rec(o))
			ph.add(rec(o))
		}
		ph.markHere()
		for o := int64(3); o < 6; o++ {
			ph.add(rec(o))
		}
		if sum(ph) == sum(want) {
			t.Fatalf("payload %v: the records after the mark changed nothing", payload)
		}
		ph.rewind()
		if sum(ph) != sum(want) || ph.n != want.n {
			t.Errorf("payload %v: after rewind %s (%d records), want %s (%d)", payload, sum(ph), ph.n, sum(want), want.n)
		}
		// Hashing goes on from the mark as if the cut records never came.
		ph.add(rec(9))
		want.add(rec(9))
		if sum(ph) != sum(want) {
			t.Errorf("payload %v: after rewind and a record: %s, want %s", payload, sum(ph), sum(want))
		}
	}
}
