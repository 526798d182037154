package health

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// The record batch (magic 2) header, as Kafka lays it out: the base
// offset, the length of what follows it, the partition leader epoch, the
// magic, the CRC (Castagnoli, of everything from the attributes on), the
// attributes, the last offset delta, the first and max timestamps, the
// producer id and epoch, the base sequence and the record count; the
// records follow.
const (
	batchLengthAt    = 8
	batchEpochAt     = 12
	batchMagicAt     = 16
	batchCRCAt       = 17
	batchAttrsAt     = 21
	batchLastDeltaAt = 23
	batchProducerAt  = 43
	batchCountAt     = 57
	batchHeaderLen   = 61
	// batchLengthMin is the smallest length field of a batch: its header
	// after the length.
	batchLengthMin = batchHeaderLen - 12
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// errCorruptBatch is a record batch that cannot be read: a bad CRC, a
// length that does not hold its header, a record running past its batch.
var errCorruptBatch = errors.New("corrupt record batch")

// batchReader reads the record batches of a fetched partition of the
// offsets topic into TailRecords, with no kgo.Record and no copy: the
// tail reads every commit of the cluster (50,000 a second for a busy
// fleet), and building a kgo.Record per record was about half of its
// cost. An uncompressed batch of magic 2 (what Kafka writes to the topic
// unless offsets.topic.compression.codec is set) is read in place; a
// compressed one is decompressed first; the message sets of magic 0 and 1
// (a log older than Kafka 0.11 that was never rewritten) are left to kgo
// (kgo.ProcessFetchPartition). It reads uncommitted and keeps control
// records, as TailState applies transactions itself. Not safe for
// concurrent use.
type batchReader struct {
	dec kgo.Decompressor
	// epoch is the partition leader epoch of the last batch whose
	// records read gave to fn (-1 when it gave none, or the batches
	// were of magic 0 or 1): the epoch of the records before next, which
	// a leader change checks the log against (fetcher.validate).
	epoch int32
	// n counts the records given to fn; rec is the one given, reused
	// (fn must not keep it or its Key and Value).
	n   int
	rec TailRecord
}

// read calls fn with each record of data (the RecordBatches of one
// partition p's fetch) at or after offset from, in log order, and returns
// the offset after the last complete batch read (from when there is none:
// a fetch may end inside a batch, which the next fetch returns whole). A
// corrupt batch stops the read with an error wrapping errCorruptBatch;
// the records before it, its own before the bad record included, were
// given to fn and next is past them.
func (b *batchReader) read(p int32, data []byte, from int64, fn func(r *TailRecord)) (next int64, err error) {
	next, b.epoch = from, -1
	for len(data) >= batchMagicAt+1 {
		if data[batchMagicAt] != 2 {
			return b.readLegacy(p, data, next, fn)
		}
		length := int32(binary.BigEndian.Uint32(data[batchLengthAt:]))
		if length < batchLengthMin {
			return next, fmt.Errorf("%w: partition %d at offset %d: length %d", errCorruptBatch, p, int64(binary.BigEndian.Uint64(data)), length)
		}
		size := 12 + int(length)
		if len(data) < size {
			break // the last batch, cut by the fetch's size limit
		}
		batch := data[:size]
		data = data[size:]
		base := int64(binary.BigEndian.Uint64(batch))
		if crc32.Checksum(batch[batchAttrsAt:], castagnoli) != binary.BigEndian.Uint32(batch[batchCRCAt:]) {
			return next, fmt.Errorf("%w: partition %d at offset %d: CRC mismatch", errCorruptBatch, p, base)
		}
		if base < 0 {
			// No log holds a negative offset; a record there would be
			// read at an offset kgo's reader drops (FuzzBatchReader).
			return next, fmt.Errorf("%w: partition %d: negative base offset %d", errCorruptBatch, p, base)
		}
		end := base + int64(int32(binary.BigEndian.Uint32(batch[batchLastDeltaAt:]))) + 1
		if end <= next {
			continue // before from: a batch the previous fetch read
		}
		b.epoch = int32(binary.BigEndian.Uint32(batch[batchEpochAt:]))
		if past, err := b.records(p, batch, next, fn); err != nil {
			// The records read before the bad one were applied: the
			// next fetch starts past them (the broker sends the batch
			// again from its base, and the records before from are
			// skipped), so a retry never applies one twice.
			return min(past, end), err
		}
		next = end
	}
	return next, nil
}

// records calls fn with the records of one whole batch at or after from,
// and returns the offset past the last one given (from when none was),
// also when a bad record stops it.
func (b *batchReader) records(p int32, batch []byte, from int64, fn func(r *TailRecord)) (past int64, err error) {
	base := int64(binary.BigEndian.Uint64(batch))
	attrs := binary.BigEndian.Uint16(batch[batchAttrsAt:])
	tr := &b.rec // passed by reference, not copied per record; b outlives the call
	*tr = TailRecord{Partition: p, Control: attrs&0x20 != 0, Txn: attrs&0x10 != 0,
		Producer: int64(binary.BigEndian.Uint64(batch[batchProducerAt:]))}
	count := int32(binary.BigEndian.Uint32(batch[batchCountAt:]))
	recs := batch[batchHeaderLen:]
	past = from
	if codec := kgo.CompressionCodecType(attrs & 0x07); codec != kgo.CodecNone {
		if recs, err = b.dec.Decompress(recs, codec); err != nil {
			return past, fmt.Errorf("%w: partition %d at offset %d: decompressing: %v", errCorruptBatch, p, base, err)
		}
	}
	for i := int32(0); i < count; i++ {
		// nextRecord, by hand for the common record: varints of one or
		// two bytes, a key and a value shorter than 64 bytes. Any other
		// record (j < 0) is read by nextRecord from its start.
		var delta int64
		length, j := short(recs, 0)
		end := j + int(length)
		var rec []byte
		if j >= 0 && length >= 0 && end <= len(recs) {
			rec, j = recs[j:end], 1 // past the attributes (unused)
		} else {
			j = -1
		}
		if j >= 0 {
			_, j = short(rec, j) // the timestamp delta (unused)
		}
		if j >= 0 {
			delta, j = short(rec, j)
		}
		if j >= 0 {
			tr.Key, j = shortBytes(rec, j)
		}
		if j >= 0 {
			tr.Value, j = shortBytes(rec, j)
		}
		if j >= 0 {
			recs = recs[end:]
		} else {
			var ok bool
			if recs, delta, tr.Key, tr.Value, ok = nextRecord(recs); !ok {
				return past, fmt.Errorf("%w: partition %d at offset %d: record %d of %d runs past its batch", errCorruptBatch, p, base, i, count)
			}
		}
		if o := base + delta; o >= from {
			tr.Offset = o
			b.n++
			fn(tr)
			past = max(past, o+1)
		}
	}
	return past, nil
}

// nextRecord reads the record at the start of recs: its length, the
// attributes, the timestamp and offset deltas, the key and the value (a
// length of -1 is null: a tombstone's value), the headers (skipped with
// the rest of the record, by its length). rest is what follows it.
//
// Varints of one and two bytes (all of a commit record's) are read
// inline; longer ones by binary.Varint.
func nextRecord(recs []byte) (rest []byte, offsetDelta int64, key, value []byte, ok bool) {
	length, i := zz(recs, 0)
	if i < 0 || length < 0 || int64(len(recs)-i) < length {
		return nil, 0, nil, nil, false
	}
	rec, rest := recs[i:i+int(length)], recs[i+int(length):]
	// The attributes (unused), then the timestamp delta (unused).
	if _, i = zz(rec, 1); i < 0 {
		return nil, 0, nil, nil, false
	}
	if offsetDelta, i = zz(rec, i); i < 0 {
		return nil, 0, nil, nil, false
	}
	if key, i, ok = varBytes(rec, i); !ok {
		return nil, 0, nil, nil, false
	}
	if value, _, ok = varBytes(rec, i); !ok {
		return nil, 0, nil, nil, false
	}
	return rest, offsetDelta, key, value, true
}

// varBytes reads the bytes at b[i:] prefixed by their varint length, -1
// for null, and gives the index past them.
func varBytes(b []byte, i int) (v []byte, next int, ok bool) {
	l, j := zz(b, i)
	switch {
	case j < 0 || l < -1 || int64(len(b)-j) < l:
		return nil, 0, false
	case l == -1:
		return nil, j, true
	}
	return b[j : j+int(l) : j+int(l)], j + int(l), true
}

// shortBytes reads the bytes at b[i:] (i >= 0) prefixed by their length
// as a one-byte varint (-1 is null), and gives the index past them, or -1
// when b holds no such bytes there.
func shortBytes(b []byte, i int) ([]byte, int) {
	if i >= len(b) || b[i] >= 0x80 {
		return nil, -1
	}
	l := int(b[i]>>1) ^ -int(b[i]&1)
	i++
	switch {
	case l == -1:
		return nil, i
	case l < 0 || len(b)-i < l:
		return nil, -1
	}
	return b[i : i+l : i+l], i + l
}

// zz reads the zigzag varint at b[i:] (i >= 0, past the end too) and
// gives the index past it, or -1 when b holds none there: those of one
// and two bytes by short, longer ones by binary.Varint.
func zz(b []byte, i int) (int64, int) {
	if x, j := short(b, i); j >= 0 {
		return x, j
	}
	x, n := binary.Varint(b[min(i, len(b)):])
	if n <= 0 {
		return 0, -1
	}
	return x, i + n
}

// short reads a zigzag varint of one or two bytes at b[i:] (i >= 0), and
// gives the index past it, or -1 when b holds no such varint there.
func short(b []byte, i int) (int64, int) {
	if i >= len(b) {
		return 0, -1
	}
	u := uint64(b[i])
	if u >= 0x80 {
		if i+1 >= len(b) || b[i+1] >= 0x80 {
			return 0, -1
		}
		u, i = u&0x7f|uint64(b[i+1])<<7, i+1
	}
	return int64(u>>1) ^ -int64(u&1), i + 1
}

// readLegacy reads message sets of magic 0 or 1 (and whatever follows
// them) with kgo, which knows them.
func (b *batchReader) readLegacy(p int32, data []byte, from int64, fn func(r *TailRecord)) (int64, error) {
	rp := kmsg.NewFetchResponseTopicPartition()
	rp.Partition, rp.RecordBatches = p, data
	fp, next := kgo.ProcessFetchPartition(kgo.ProcessFetchPartitionOpts{KeepControlRecords: true, Offset: from,
		IsolationLevel: kgo.ReadUncommitted(), Topic: OffsetsTopic, Partition: p}, &rp, b.dec, nil)
	for _, r := range fp.Records {
		b.rec = tailRecord(r)
		b.n++
		fn(&b.rec)
	}
	if fp.Err != nil {
		return max(next, from), fmt.Errorf("%w: partition %d: %v", errCorruptBatch, p, fp.Err)
	}
	return max(next, from), nil
}
