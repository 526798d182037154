// Package mirror reads what MirrorMaker 2 (MM2) leaves on a target cluster
// and turns it into offsets: its checkpoints (a source group's committed
// offset and the offset MM2 translated it to on the target) and its offset
// syncs (the upstream/downstream pairs checkpoints are computed from).
//
// The record formats are Kafka's own Schema encoding (big-endian integers,
// strings as an int16 length and UTF-8 bytes), as connect-mirror-client's
// Checkpoint and OffsetSync classes write them:
//
//	checkpoint key:    group STRING, topic STRING, partition INT32
//	checkpoint value:  version INT16 (0), upstream_offset INT64,
//	                   offset INT64 (downstream), metadata STRING
//	offset-sync key:   topic STRING, partition INT32
//	offset-sync value: upstream_offset INT64, offset INT64
//
// The checkpoint's topic is already the target-side name (MM2's
// MirrorCheckpointTask renames it before writing, A.orders under the
// default replication policy), which is also what
// RemoteClusterUtils.translateOffsets returns.
package mirror

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"
)

// Checkpoint is one decoded record of <alias>.checkpoints.internal.
type Checkpoint struct {
	Group     string
	Topic     string // on the target cluster
	Partition int32
	// Upstream is the group's committed offset on the source cluster;
	// Downstream the offset MM2 translated it to on the target.
	Upstream   int64
	Downstream int64
	Metadata   string
	// Time is the record's timestamp (when MM2 emitted it).
	Time time.Time
}

// OffsetSync is one decoded record of mm2-offset-syncs.<alias>.internal.
type OffsetSync struct {
	Topic      string // the source-side name
	Partition  int32
	Upstream   int64
	Downstream int64
}

// checkpointVersion is the only value format MM2 writes (Checkpoint.VERSION).
const checkpointVersion = 0

var errShort = errors.New("truncated")

type reader struct {
	b   []byte
	err error
}

func (r *reader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || len(r.b) < n {
		r.err = errShort
		return nil
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

func (r *reader) i16() int16 {
	b := r.take(2)
	if b == nil {
		return 0
	}
	return int16(binary.BigEndian.Uint16(b))
}

func (r *reader) i32() int32 {
	b := r.take(4)
	if b == nil {
		return 0
	}
	return int32(binary.BigEndian.Uint32(b))
}

func (r *reader) i64() int64 {
	b := r.take(8)
	if b == nil {
		return 0
	}
	return int64(binary.BigEndian.Uint64(b))
}

// str reads a non-nullable STRING: a negative length is an error, as in
// Kafka's Type.STRING.
func (r *reader) str(field string) string {
	n := r.i16()
	if r.err == nil && n < 0 {
		r.err = fmt.Errorf("%s: negative string length %d", field, n)
		return ""
	}
	return string(r.take(int(n)))
}

// DecodeCheckpoint decodes a checkpoint record's key and value. Trailing
// bytes are ignored, as Kafka's Schema.read ignores them; a value version
// other than 0, a negative partition or offset is an error.
func DecodeCheckpoint(key, value []byte) (Checkpoint, error) {
	var c Checkpoint
	k := reader{b: key}
	c.Group = k.str("group")
	c.Topic = k.str("topic")
	c.Partition = k.i32()
	if k.err != nil {
		return c, fmt.Errorf("checkpoint key: %w", k.err)
	}
	v := reader{b: value}
	ver := v.i16()
	if v.err == nil && ver != checkpointVersion {
		return c, fmt.Errorf("checkpoint value: unknown version %d (MM2 writes version 0)", ver)
	}
	c.Upstream = v.i64()
	c.Downstream = v.i64()
	c.Metadata = v.str("metadata")
	if v.err != nil {
		return c, fmt.Errorf("checkpoint value: %w", v.err)
	}
	switch {
	case c.Partition < 0:
		return c, fmt.Errorf("checkpoint key: negative partition %d", c.Partition)
	case c.Upstream < 0 || c.Downstream < 0:
		return c, fmt.Errorf("checkpoint value: negative offset (upstream %d, downstream %d)", c.Upstream, c.Downstream)
	}
	return c, nil
}

// DecodeOffsetSync decodes an offset-sync record's key and value.
func DecodeOffsetSync(key, value []byte) (OffsetSync, error) {
	var s OffsetSync
	k := reader{b: key}
	s.Topic = k.str("topic")
	s.Partition = k.i32()
	if k.err != nil {
		return s, fmt.Errorf("offset-sync key: %w", k.err)
	}
	v := reader{b: value}
	s.Upstream = v.i64()
	s.Downstream = v.i64()
	if v.err != nil {
		return s, fmt.Errorf("offset-sync value: %w", v.err)
	}
	if s.Partition < 0 || s.Upstream < 0 || s.Downstream < 0 {
		return s, fmt.Errorf("offset-sync: negative partition or offset")
	}
	return s, nil
}

func putStr(b []byte, s string) []byte {
	if len(s) > math.MaxInt16 {
		s = s[:math.MaxInt16]
	}
	b = binary.BigEndian.AppendUint16(b, uint16(len(s)))
	return append(b, s...)
}

// EncodeCheckpoint writes c as MM2 does (key, value): for tests and
// for seeding a cluster without MM2.
func EncodeCheckpoint(c Checkpoint) (key, value []byte) {
	key = putStr(putStr(nil, c.Group), c.Topic)
	key = binary.BigEndian.AppendUint32(key, uint32(c.Partition))
	value = binary.BigEndian.AppendUint16(nil, checkpointVersion)
	value = binary.BigEndian.AppendUint64(value, uint64(c.Upstream))
	value = binary.BigEndian.AppendUint64(value, uint64(c.Downstream))
	value = putStr(value, c.Metadata)
	return key, value
}

// EncodeOffsetSync writes s as MM2 does (key, value).
func EncodeOffsetSync(s OffsetSync) (key, value []byte) {
	key = putStr(nil, s.Topic)
	key = binary.BigEndian.AppendUint32(key, uint32(s.Partition))
	value = binary.BigEndian.AppendUint64(nil, uint64(s.Upstream))
	value = binary.BigEndian.AppendUint64(value, uint64(s.Downstream))
	return key, value
}

// CheckpointsTopic is the topic MM2 writes the checkpoints of source alias
// to on the target cluster (DefaultReplicationPolicy.checkpointsTopic).
func CheckpointsTopic(alias string) string { return alias + ".checkpoints.internal" }

// OffsetSyncsTopic is the topic MM2 writes the offset syncs of a flow to
// target alias (by default on the source cluster).
func OffsetSyncsTopic(targetAlias string) string {
	return "mm2-offset-syncs." + targetAlias + ".internal"
}
