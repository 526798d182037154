package replay

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"

	"github.com/twmb/franz-go/pkg/kgo"
)

// SourceHeader is the header --source-header adds to copied records:
// "topic/partition/offset" of the source record.
const SourceHeader = "offsetctl.source"

// DigestVersion names the digest construction below. The construction is a
// public format: anyone can recompute a digest from the replayed records
// (replay/testdata/digest_vectors.py does, from this comment alone, and the
// Go tests check its vectors). Results carry the version beside the digests
// (JSON "digest_version"); any change to the framing or the combine step
// is a new version, so a digest recorded today stays checkable.
const DigestVersion = 1

// The audit digest (v1).
//
// Every replayed record (control markers excluded) is framed as, all
// integers big-endian:
//
//	partition  int32
//	offset     int64
//	timestamp  int64  (milliseconds since the epoch)
//	key        int32 length (-1 for null) + bytes
//	value      int32 length (-1 for null) + bytes
//	headers    int32 count, then per header:
//	             int32 key length + key bytes,
//	             int32 value length (-1 for null) + value bytes
//
// Each partition's frames, in offset order, are hashed with SHA-256 into
// H(p). Partitions are consumed concurrently, so the digest combines the
// per-partition hashes in ascending partition order:
//
//	digest = SHA-256( for each partition p with records, ascending:
//	                  int32 p ‖ int64 records of p ‖ H(p) )
//
// and is printed as 64 hex digits. The same records give the same digest on
// every run; one changed byte changes it.
//
// The payload digest is the same construction with the partition and
// offset left out of each frame and the offsetctl.source header skipped,
// so a copy made by a backfill with --partitioner same (different
// offsets, maybe a --source-header) has the payload digest of its source.

// partHash accumulates one partition's digests.
type partHash struct {
	h       hash.Hash
	payload hash.Hash // nil unless payload digests are wanted
	n       int64
	buf     []byte
	// The state before the first record not yet written to the sink
	// (markHere, rewind in sent.go).
	atN            int64
	atH, atPayload []byte
}

func newPartHash(payload bool) *partHash {
	ph := &partHash{h: sha256.New(), buf: make([]byte, 0, 256)}
	if payload {
		ph.payload = sha256.New()
	}
	return ph
}

func appendBytes(b []byte, v []byte, isNull bool) []byte {
	if isNull {
		return binary.BigEndian.AppendUint32(b, 0xFFFFFFFF)
	}
	return binary.BigEndian.AppendUint32(b, uint32(len(v)))
}

// add hashes one record. Large keys and values are written straight to
// the hash, not copied into the frame buffer.
func (ph *partHash) add(r *kgo.Record) {
	ph.n++
	ph.write(ph.h, r, true)
	if ph.payload != nil {
		ph.write(ph.payload, r, false)
	}
}

const inlineMax = 512

func (ph *partHash) write(h hash.Hash, r *kgo.Record, withPos bool) {
	b := ph.buf[:0]
	if withPos {
		b = binary.BigEndian.AppendUint32(b, uint32(r.Partition))
		b = binary.BigEndian.AppendUint64(b, uint64(r.Offset))
	}
	b = binary.BigEndian.AppendUint64(b, uint64(r.Timestamp.UnixMilli()))
	b = appendBytes(b, r.Key, r.Key == nil)
	if len(r.Key) > inlineMax {
		h.Write(b)
		h.Write(r.Key)
		b = b[:0]
	} else {
		b = append(b, r.Key...)
	}
	b = appendBytes(b, r.Value, r.Value == nil)
	if len(r.Value) > inlineMax {
		h.Write(b)
		h.Write(r.Value)
		b = b[:0]
	} else {
		b = append(b, r.Value...)
	}
	nh := 0
	for i := range r.Headers {
		if withPos || r.Headers[i].Key != SourceHeader {
			nh++
		}
	}
	b = binary.BigEndian.AppendUint32(b, uint32(nh))
	for i := range r.Headers {
		hd := &r.Headers[i]
		if !withPos && hd.Key == SourceHeader {
			continue
		}
		b = binary.BigEndian.AppendUint32(b, uint32(len(hd.Key)))
		b = append(b, hd.Key...)
		b = appendBytes(b, hd.Value, hd.Value == nil)
		b = append(b, hd.Value...)
	}
	h.Write(b)
	ph.buf = b[:0]
}

// combine computes the final digest over per-partition hashes in
// ascending partition order; partitions without records are left out, so
// selecting an extra empty partition does not change the digest. payload
// selects the payload digest ("" when it was not computed).
func combine(parts []int32, hashes map[int32]*partHash, payload bool) string {
	outer := sha256.New()
	var b []byte
	for _, p := range parts {
		ph := hashes[p]
		if ph == nil || ph.n == 0 {
			continue
		}
		var sum []byte
		if payload {
			if ph.payload == nil {
				return ""
			}
			sum = ph.payload.Sum(nil)
		} else {
			sum = ph.h.Sum(nil)
		}
		b = b[:0]
		b = binary.BigEndian.AppendUint32(b, uint32(p))
		b = binary.BigEndian.AppendUint64(b, uint64(ph.n))
		b = append(b, sum...)
		outer.Write(b)
	}
	return hex.EncodeToString(outer.Sum(nil))
}
