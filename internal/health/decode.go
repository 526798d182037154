package health

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"time"
	"unsafe"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// OffsetRecord is one offset commit (or its deletion) read from
// __consumer_offsets.
type OffsetRecord struct {
	Group     string
	Topic     string
	Partition int32
	Offset    int64
	// Time is the commit's timestamp as the coordinator wrote it.
	Time time.Time
	// Deleted is a tombstone: the group's offset for the partition was
	// deleted (offsetctl delete, DeleteGroups, or expiry).
	Deleted bool
}

// DecodeOffsetRecord decodes one record of __consumer_offsets. Only
// offset-commit records are wanted: key versions 0 and 1 (group, topic,
// partition); a key of any other version (2 is group metadata, later ones
// the KIP-848 and share group records) is not one and gives ok false with
// no error. A nil value is a tombstone. A record too short or malformed for
// its version is an error.
func DecodeOffsetRecord(key, value []byte) (rec OffsetRecord, ok bool, err error) {
	var c offsetCommit
	ok, err = decodeCommit(key, value, &c)
	// Copied: c's strings alias key.
	rec = OffsetRecord{Group: strings.Clone(c.group), Topic: strings.Clone(c.topic), Partition: c.partition, Offset: c.offset, Deleted: c.deleted}
	if ok && !c.deleted {
		rec.Time = time.UnixMilli(c.ms).UTC()
	}
	return rec, ok, err
}

// offsetCommit is a commit record as decodeCommit reads it: group and
// topic alias the record's key (no copy), so they are valid only while the
// key is; ms is the commit's timestamp.
type offsetCommit struct {
	group, topic string
	partition    int32
	offset, ms   int64
	deleted      bool
	rec          int64 // the record's offset in __consumer_offsets (TailRecord.Offset)
}

// decodeCommit is DecodeOffsetRecord without a copy or an allocation: the
// tail decodes every record of the topic (50,000 a second for a busy
// fleet), and the state looks the group and topic up by the aliased
// strings, copying them only when it keeps a new one. A well-formed key
// and value of the versions Apache Kafka writes for a commit are read by
// hand (quickCommit), in a third of the time kmsg took; anything else goes
// through kmsg (kmsgCommit), which gives the errors.
func decodeCommit(key, value []byte, c *offsetCommit) (ok bool, err error) {
	if quickCommit(key, value, c) {
		return true, nil
	}
	*c, ok, err = kmsgCommit(key, value)
	return ok, err
}

// quickCommit reads a commit record as kmsg would, or gives ok false for
// kmsgCommit to read (or refuse) it: a key of version 0 or 1 (the version,
// group and topic as int16-length strings, the partition) and a nil value
// or one of versions 0 to 4 (the version, the offset, from version 3 the
// leader epoch, the metadata as a string, the commit timestamp, in
// version 1 the expire timestamp, in version 4 the tagged fields: Apache
// Kafka 4.4 writes version 4 with the topic id as tag 0). Bytes past those
// are ignored, as kmsg does. Version 4's lengths and counts are varints:
// only one-byte ones are read here (what a commit with metadata under 127
// bytes has), the others are left to kmsg.
func quickCommit(key, value []byte, c *offsetCommit) (ok bool) {
	if len(key) < 2 || key[0] != 0 || key[1] > 1 {
		return false
	}
	g, rest, ok := quickString(key[2:])
	if !ok {
		return false
	}
	t, rest, ok := quickString(rest)
	if !ok || len(rest) < 4 {
		return false
	}
	*c = offsetCommit{group: g, topic: t, partition: int32(binary.BigEndian.Uint32(rest))}
	if value == nil {
		c.deleted = true
		return true
	}
	if len(value) < 10 || value[0] != 0 || value[1] > 4 {
		return false
	}
	v := value[1]
	c.offset = int64(binary.BigEndian.Uint64(value[2:]))
	rest = value[10:]
	if v >= 3 {
		if len(rest) < 4 {
			return false
		}
		rest = rest[4:] // the leader epoch
	}
	if v == 4 {
		// The metadata as a compact string: its length + 1, one byte.
		if len(rest) < 1 || rest[0] == 0 || rest[0] >= 0x80 || len(rest) < int(rest[0]) {
			return false
		}
		rest = rest[rest[0]:]
	} else if _, rest, ok = quickString(rest); !ok {
		return false
	}
	if len(rest) < 8 || (v == 1 && len(rest) < 16) || (v == 4 && !quickTags(rest[8:])) {
		return false
	}
	c.ms = int64(binary.BigEndian.Uint64(rest))
	return true
}

// quickTags reports whether b starts with tagged fields kmsg reads without
// an error, each count, tag and size one byte: tag 0 (the topic id) holds
// at least its 16 bytes.
func quickTags(b []byte) bool {
	if len(b) < 1 || b[0] >= 0x80 {
		return false
	}
	n := int(b[0])
	b = b[1:]
	for range n {
		if len(b) < 2 || b[0] >= 0x80 || b[1] >= 0x80 || len(b)-2 < int(b[1]) || (b[0] == 0 && b[1] < 16) {
			return false
		}
		b = b[2+int(b[1]):]
	}
	return true
}

// quickString reads an int16-length string at the start of b, aliasing b.
func quickString(b []byte) (s string, rest []byte, ok bool) {
	if len(b) < 2 {
		return "", nil, false
	}
	n := int(int16(binary.BigEndian.Uint16(b)))
	if n < 0 || len(b)-2 < n {
		return "", nil, false
	}
	return unsafe.String(unsafe.SliceData(b[2:]), n), b[2+n:], true
}

// kmsgCommit is decodeCommit by kmsg: every version it knows, and the
// errors.
func kmsgCommit(key, value []byte) (c offsetCommit, ok bool, err error) {
	if len(key) < 2 {
		return c, false, errors.New("offsets topic record: key shorter than its version")
	}
	if v := int16(binary.BigEndian.Uint16(key)); v != 0 && v != 1 {
		return c, false, nil
	}
	var k kmsg.OffsetCommitKey
	if err := k.UnsafeReadFrom(key); err != nil {
		return c, false, fmt.Errorf("offsets topic record: key: %w", err)
	}
	c = offsetCommit{group: k.Group, topic: k.Topic, partition: k.Partition}
	if value == nil {
		c.deleted = true
		return c, true, nil
	}
	if len(value) < 2 {
		return c, false, errors.New("offsets topic record: value shorter than its version")
	}
	// Versions 0 to 4 are what Apache Kafka has written (4 adds tagged
	// fields); a later one may not lay out the offset and timestamp the
	// same way, so it is refused rather than misread.
	if v := int16(binary.BigEndian.Uint16(value)); v < 0 || v > 4 {
		return c, false, fmt.Errorf("offsets topic record: value version %d is not known", v)
	}
	var val kmsg.OffsetCommitValue
	if err := val.UnsafeReadFrom(value); err != nil {
		return c, false, fmt.Errorf("offsets topic record: value: %w", err)
	}
	c.offset, c.ms = val.Offset, val.CommitTimestamp
	return c, true, nil
}

// OffsetsPartition is the partition of __consumer_offsets that holds a
// group's records: abs(hashCode(group)) % partitions, with Java's
// String.hashCode over UTF-16 code units and Kafka's Utils.abs (which
// maps Integer.MIN_VALUE to 0). partitions comes from metadata
// (offsets.topic.num.partitions, 50 by default but set per cluster).
func OffsetsPartition(group string, partitions int32) int32 {
	if partitions <= 0 {
		return 0
	}
	h := javaStringHash(group)
	if h == -1<<31 {
		h = 0
	} else if h < 0 {
		h = -h
	}
	return h % partitions
}

// javaStringHash is java.lang.String.hashCode: s[0]*31^(n-1) + ... over
// the UTF-16 code units, in 32-bit wrapping arithmetic.
func javaStringHash(s string) int32 {
	var h int32
	for _, r := range s {
		if r >= 0x10000 { // a surrogate pair in UTF-16
			r -= 0x10000
			h = 31*h + int32(0xD800+(r>>10))
			h = 31*h + int32(0xDC00+(r&0x3FF))
			continue
		}
		h = 31*h + int32(r)
	}
	return h
}

// DecodeGroupKey reads the group of a group metadata record of
// __consumer_offsets: key version 2 (a classic group's GroupMetadata) or
// 3 (a KIP-848 consumer group's ConsumerGroupMetadata), both the version
// then the group as an int16-length string. Any other key gives ok false.
func DecodeGroupKey(key []byte) (group string, ok bool) {
	g, ok := metadataGroup(key)
	return string(g), ok
}

// metadataGroup is DecodeGroupKey's group as the key's own bytes (no copy).
func metadataGroup(key []byte) ([]byte, bool) {
	if len(key) < 4 {
		return nil, false
	}
	if v := int16(binary.BigEndian.Uint16(key)); v != 2 && v != 3 {
		return nil, false
	}
	n := int(int16(binary.BigEndian.Uint16(key[2:4])))
	if n < 0 || len(key) != 4+n {
		return nil, false
	}
	return key[4:], true
}
