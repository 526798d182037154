package health

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// OffsetsTopic is Kafka's internal topic of group commits.
const OffsetsTopic = "__consumer_offsets"

// Key names a partition of a group's topics.
type Key struct {
	Topic     string
	Partition int32
}

// History is the commits read per group and partition, oldest first.
type History map[string]map[Key][]Commit

// ErrNoAccess is returned when the offsets topic cannot be read: no
// Describe or Read ACL on it (common in managed Kafka), or a cluster that
// does not expose it. The caller falls back to sampling.
var ErrNoAccess = errors.New("the offsets topic cannot be read")

// AccessHint says what to do about err (wrapping ErrNoAccess): grant the
// ACLs, unless the cluster says the topic does not exist, which it also
// says to a user not allowed to describe it (and kfake says always).
func AccessHint(err error) string {
	if errors.Is(err, kerr.UnknownTopicOrPartition) {
		return "the cluster says " + OffsetsTopic + " does not exist (no group has committed on it yet; the cluster keeps commits elsewhere, as the playground's in-process cluster does; or this user may not describe it: then grant Describe and Read on it)"
	}
	return "grant Describe and Read on " + OffsetsTopic
}

// noAccess reports whether err means the topic is not ours to read.
func noAccess(err error) bool {
	return errors.Is(err, kerr.TopicAuthorizationFailed) || errors.Is(err, kerr.ClusterAuthorizationFailed) ||
		errors.Is(err, kerr.UnknownTopicOrPartition) || errors.Is(err, kerr.UnknownTopicID)
}

// TopicReader reads __consumer_offsets: adm for metadata and offsets,
// newClient for the group-less consumer (one per read, closed after).
type TopicReader struct {
	Admin     *kadm.Client
	NewClient func(opts ...kgo.Opt) (*kgo.Client, error)
	// Idle ends a read that got no record for this long before reaching
	// the end (compaction can leave the last offsets empty), three times
	// as long before the first fetch; 0 means 3s.
	Idle time.Duration
}

// Read returns the commits of groups from since to the end of their
// partitions of the offsets topic. Only the partitions that hold those
// groups are read. An error wrapping ErrNoAccess means the topic is not
// readable. It is a Tail's first read (lag --watch --status goes on
// from there).
func (r TopicReader) Read(ctx context.Context, groups []string, since time.Time) (History, error) {
	t := &Tail{Reader: r}
	return t.Read(ctx, groups, since)
}

// bounds lists the offsets of the topic's partitions: the first written
// at or after since, and the ends.
func (r TopicReader) bounds(ctx context.Context, since time.Time) (starts, ends kadm.ListedOffsets, err error) {
	starts, err = r.Admin.ListOffsetsAfterMilli(ctx, since.UnixMilli(), OffsetsTopic)
	if err == nil {
		err = starts.Error()
	}
	if err == nil {
		// The high watermark, not the last stable offset: a
		// transaction left open (a killed producer, until its timeout)
		// would hold a read_committed read back at its first record,
		// hiding every later commit of every group sharing the
		// partition. The transactions are sorted out by TailState
		// instead.
		ends, err = r.Admin.ListEndOffsets(ctx, OffsetsTopic)
	}
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		return nil, nil, r.wrap("listing its offsets", err)
	}
	return starts, ends, nil
}

// count is the topic's partition count.
func (r TopicReader) count(ctx context.Context) (int32, error) {
	td, err := r.Admin.ListTopics(ctx, OffsetsTopic)
	if err != nil {
		return 0, r.wrap("reading its metadata", err)
	}
	d, ok := td[OffsetsTopic]
	if !ok || d.Err != nil || len(d.Partitions) == 0 {
		if d.Err == nil {
			d.Err = kerr.UnknownTopicOrPartition
		}
		return 0, r.wrap("reading its metadata", d.Err)
	}
	return int32(len(d.Partitions)), nil
}

func (r TopicReader) wrap(doing string, err error) error {
	if noAccess(err) {
		return fmt.Errorf("%w (%s: %w)", ErrNoAccess, doing, err)
	}
	return fmt.Errorf("%s %s: %w", OffsetsTopic, doing, err)
}

// tailRecord is what TailState needs of a record kgo read (a message set
// older than Kafka 0.11: batchReader.readLegacy).
func tailRecord(r *kgo.Record) TailRecord {
	return TailRecord{Partition: r.Partition, Offset: r.Offset, Control: r.Attrs.IsControl(), Txn: r.Attrs.IsTransactional(),
		Producer: r.ProducerID, Key: r.Key, Value: r.Value}
}

// readWait is how long a broker may hold a bounded read's fetch: it asks
// for one byte, so a broker holds it only when none of the partitions
// read has anything more, which a read to the ends sees only when it is
// nearly done.
const readWait = 500 * time.Millisecond

// consume reads the partitions from their offsets from until each has
// reached its end in ends (a partition already there is not read),
// applying every record to st. It ends, with what was read as the
// history, when nothing came for Idle (compaction can leave the last
// offsets before an end empty; three times as long before the first
// record, as the first fetch also connects) unless a fetch failed
// meanwhile: then with that error, as a history missing a partition's
// end would be read as commits that stopped. A partition whose offset
// fell out of its log's range is an error too: the caller reads it again
// from the start of its window.
func (r TopicReader) consume(ctx context.Context, from map[int32]int64, ends kadm.ListedOffsets, st *TailState) error {
	e := make(map[int32]int64, len(from))
	for p := range from {
		o, _ := ends.Lookup(OffsetsTopic, p)
		e[p] = o.Offset
	}
	w := NewWarmUp(from, e)
	if w.Done() {
		return nil
	}
	for p := range from {
		if _, ok := w.left[p]; !ok {
			delete(from, p)
		}
	}
	cl, err := r.NewClient()
	if err != nil {
		return err
	}
	defer cl.Close()
	f := newFetcher(cl, from, readWait, 1)
	idle := r.Idle
	if idle <= 0 {
		idle = 3 * time.Second
	}
	wait, last := 3*idle, time.Now()
	var failed error
	for !w.Done() {
		res, err := f.poll(ctx)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil && noAccess(err) {
			return r.wrap("reading it", err)
		}
		if len(res.restart) > 0 {
			return r.wrap("reading it", kerr.OffsetOutOfRange)
		}
		n, aerr := f.apply(res, st.apply)
		for _, fp := range res.parts {
			w.Seen(fp.partition, f.next[fp.partition]-1)
		}
		if failed = cmp.Or(err, aerr, res.err); n > 0 {
			last, wait = time.Now(), idle
		}
		if time.Since(last) >= wait {
			if failed != nil {
				return r.wrap("reading it", failed)
			}
			return nil // nothing more came: what was read is the history
		}
		if failed != nil {
			select { // a leader moving, a broker restarting: try again shortly
			case <-ctx.Done():
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
	return nil
}

// commitMarker reports whether a control record's key is a transaction's
// COMMIT marker: version (int16, 0) then type (int16: 0 abort, 1 commit).
func commitMarker(key []byte) bool {
	return len(key) >= 4 && binary.BigEndian.Uint16(key[2:4]) == 1
}
