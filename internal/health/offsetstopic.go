package health

import (
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

// Add records one decoded record of a group asked for: a commit is
// appended, a deletion forgets the partition's commits so far.
func (h History) Add(r OffsetRecord) {
	ps := h[r.Group]
	if ps == nil {
		return
	}
	k := Key{r.Topic, r.Partition}
	if r.Deleted {
		delete(ps, k)
		return
	}
	ps[k] = append(ps[k], Commit{Offset: r.Offset, Time: r.Time})
}

// ErrNoAccess is returned when the offsets topic cannot be read: no
// Describe or Read ACL on it (common in managed Kafka), or a cluster that
// does not expose it. The caller falls back to sampling.
var ErrNoAccess = errors.New("the offsets topic cannot be read")

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
// readable.
func (r TopicReader) Read(ctx context.Context, groups []string, since time.Time) (History, error) {
	parts, err := r.partitions(ctx, groups)
	if err != nil {
		return nil, err
	}
	h := make(History, len(groups))
	for _, g := range groups {
		h[g] = map[Key][]Commit{}
	}
	starts, ends, err := r.bounds(ctx, since)
	if err != nil {
		return nil, err
	}
	want := map[int32]kgo.Offset{}
	left := map[int32]int64{}
	for p := range parts {
		s, _ := starts.Lookup(OffsetsTopic, p)
		e, _ := ends.Lookup(OffsetsTopic, p)
		if s.Offset < e.Offset {
			want[p], left[p] = kgo.NewOffset().At(s.Offset), e.Offset
		}
	}
	if len(want) == 0 {
		return h, nil
	}
	return h, r.consume(ctx, want, left, &txnFilter{h: h, pending: map[int64][]OffsetRecord{}})
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
		// partition. The transactions are sorted out here instead
		// (txnFilter).
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

// partitions is the set of offsets-topic partitions holding groups, from
// the topic's real partition count.
func (r TopicReader) partitions(ctx context.Context, groups []string) (map[int32]bool, error) {
	n, err := r.count(ctx)
	if err != nil {
		return nil, err
	}
	out := map[int32]bool{}
	for _, g := range groups {
		out[OffsetsPartition(g, n)] = true
	}
	return out, nil
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
		return fmt.Errorf("%w (%s: %v)", ErrNoAccess, doing, err)
	}
	return fmt.Errorf("%s %s: %w", OffsetsTopic, doing, err)
}

// consume reads the partitions from their start offsets until each has
// reached its end (a group-less consumer that keeps control records, so
// the last offset before the end is always seen, and reads uncommitted:
// txnFilter keeps only what committed transactions staged).
func (r TopicReader) consume(ctx context.Context, want map[int32]kgo.Offset, left map[int32]int64, f *txnFilter) error {
	cl, err := r.NewClient(
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{OffsetsTopic: want}),
		kgo.FetchIsolationLevel(kgo.ReadUncommitted()),
		kgo.KeepControlRecords(),
	)
	if err != nil {
		return err
	}
	defer cl.Close()
	idle := r.Idle
	if idle <= 0 {
		idle = 3 * time.Second
	}
	wait := 3 * idle // the first fetch also connects and finds the leaders
	for len(left) > 0 {
		pctx, cancel := context.WithTimeout(ctx, wait)
		fs := cl.PollFetches(pctx)
		cancel()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if pctx.Err() != nil && fs.NumRecords() == 0 {
			return nil // nothing more came: what was read is the history
		}
		if err := fetchError(fs); err != nil {
			return r.wrap("reading it", err)
		}
		wait = idle
		fs.EachRecord(func(rec *kgo.Record) {
			if end, ok := left[rec.Partition]; ok && rec.Offset+1 >= end {
				delete(left, rec.Partition)
			}
			f.add(logRecord{control: rec.Attrs.IsControl(), txn: rec.Attrs.IsTransactional(), producer: rec.ProducerID, key: rec.Key, value: rec.Value})
		})
	}
	return nil
}

// fetchError is the first error of a poll that is not the poll's own
// deadline.
func fetchError(fs kgo.Fetches) error {
	var first error
	fs.EachError(func(_ string, _ int32, err error) {
		if first == nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
			first = err
		}
	})
	return first
}

// txnFilter adds the records of __consumer_offsets to a History as the
// group coordinator applies them: a plain commit at once; one staged by a
// transaction (TxnOffsetCommit) only when that producer's COMMIT marker
// comes, at the marker's place in the log (where the coordinator makes it
// the group's offset); one whose transaction aborted (an offsetctl reset
// that failed leaves such records) or is still open at the end, never.
// Records of other groups sharing the partition are dropped first.
type txnFilter struct {
	h       History
	pending map[int64][]OffsetRecord // staged, by producer id
	records int                      // records taken in, every group's
}

// logRecord is what txnFilter needs of a record of the offsets topic.
type logRecord struct {
	control, txn bool // a transaction marker; staged by a transaction
	producer     int64
	key, value   []byte
}

func (f *txnFilter) add(rec logRecord) {
	f.records++
	if rec.control {
		staged := f.pending[rec.producer]
		delete(f.pending, rec.producer)
		if commitMarker(rec.key) {
			for _, or := range staged {
				f.h.Add(or)
			}
		}
		return
	}
	or, ok, err := DecodeOffsetRecord(rec.key, rec.value)
	if !ok || err != nil {
		return
	}
	if _, wanted := f.h[or.Group]; !wanted {
		return
	}
	if rec.txn {
		f.pending[rec.producer] = append(f.pending[rec.producer], or)
		return
	}
	f.h.Add(or)
}

// commitMarker reports whether a control record's key is a transaction's
// COMMIT marker: version (int16, 0) then type (int16: 0 abort, 1 commit).
func commitMarker(key []byte) bool {
	return len(key) >= 4 && binary.BigEndian.Uint16(key[2:4]) == 1
}
