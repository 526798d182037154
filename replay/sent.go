package replay

import (
	"crypto/sha256"
	"encoding"
	"hash"
	"io"
)

// A record written to a sink (--out, stdout) is done only once the bytes
// holding it were written to the sink without error: only then does it
// count in the partition's position (TO, the resume point, the partition
// reaching its bound), in the record and byte counts and in the digests.
// The records are encoded into one buffer that is written whole, at
// record boundaries, when it holds outFlushAt bytes (and after every fetch
// with --follow, and at the end): a write that took every byte makes every
// record in it done; a failed or short write (EFBIG, ENOSPC, EPIPE, a
// closed stdout, a FIFO whose reader left, any error) leaves every
// partition where the last successful write left it, whatever part of the
// buffer reached the sink. A resume from there may write again records the
// failed write had partly written (the output's last line may be cut): at
// least once, never a record skipped.
//
// The cost is kept off the records: a partition's state is saved once per
// write, when its first record goes into an emptied buffer (sent below),
// and the hasher saves its hash state at that record (partHash.markHere);
// nothing else happens per record, and there is one write per outFlushAt
// bytes, as with the bufio.Writer this replaces.

// outFlushAt is the size at which the encoded records are written.
const outFlushAt = 1 << 20

// outBufCap is the buffer's capacity: the flush size plus room for the
// record that crosses it, so that a usual record does not grow it.
const outBufCap = outFlushAt + 64<<10

// sentState is a partition's state before its first record not yet
// written: what a stop counts as done when that write fails.
type sentState struct {
	next, records, bytes, firstTs, lastTs int64
}

// hold notes that r, about to be counted and encoded for the sink, is
// partition st's first record since the last write: its state is saved
// (sent), and the hasher is told to save its hash state at r.
func (c *consumer) hold(st *pstate, r int64) {
	st.pend = true
	st.sent = sentState{next: r, records: st.records, bytes: st.bytes, firstTs: st.firstTs, lastTs: st.lastTs}
	st.hashMark = r
	c.unsent = append(c.unsent, st)
}

// flush writes the encoded records to the sink. A write that takes every
// byte makes them done; any error (a short write is one) sticks, and
// leaves every partition that had records in the buffer at its state
// before them (see above).
func (c *consumer) flush() error {
	if c.outErr != nil {
		return c.outErr
	}
	if len(c.out) == 0 {
		return nil
	}
	n, err := c.sink.Write(c.out)
	if err == nil && n < len(c.out) {
		err = io.ErrShortWrite
	}
	if err != nil {
		c.outErr = err
		return err
	}
	c.out = c.out[:0]
	if cap(c.out) > 2*outBufCap {
		c.out = make([]byte, 0, outBufCap) // a huge record grew it: let it go
	}
	for _, st := range c.unsent {
		st.pend = false
	}
	c.unsent = c.unsent[:0]
	return nil
}

// markHere saves the hash state before the next record: the digests of a
// partition whose records from there on never reached the sink (rewind).
func (ph *partHash) markHere() {
	ph.atN = ph.n
	ph.atH = appendState(ph.atH[:0], ph.h)
	if ph.payload != nil {
		ph.atPayload = appendState(ph.atPayload[:0], ph.payload)
	}
}

// rewind goes back to the state markHere saved.
func (ph *partHash) rewind() {
	ph.n = ph.atN
	ph.h = restoreState(ph.atH)
	if ph.payload != nil {
		ph.payload = restoreState(ph.atPayload)
	}
}

// appendState appends h's internal state (crypto/sha256 marshals it).
func appendState(b []byte, h hash.Hash) []byte {
	if a, ok := h.(encoding.BinaryAppender); ok {
		if out, err := a.AppendBinary(b); err == nil {
			return out
		}
	}
	m, err := h.(encoding.BinaryMarshaler).MarshalBinary()
	if err != nil {
		panic("replay: SHA-256 state cannot be saved: " + err.Error()) // crypto/sha256 always can
	}
	return append(b, m...)
}

// restoreState is a SHA-256 in the state appendState saved.
func restoreState(b []byte) hash.Hash {
	h := sha256.New()
	if err := h.(encoding.BinaryUnmarshaler).UnmarshalBinary(b); err != nil {
		panic("replay: SHA-256 state cannot be restored: " + err.Error()) // saved by appendState
	}
	return h
}
