package health

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// fetcher reads partitions of the offsets topic with Fetch requests of
// its own, one per partition leader at a time, and no session: a kgo
// consumer builds a kgo.Record per record and hands each fetch across
// goroutines, which was about half of the tail's cost at 50,000 commits a
// second (bench/exporter_tail.md). It reads uncommitted (a transaction
// left open must not hold back every later commit of its partition) and
// keeps control records: TailState applies the transactions. The bytes
// of a fetch are read by batchReader. Not safe for concurrent use.
type fetcher struct {
	cl    *kgo.Client
	adm   *kadm.Client // metadata and log starts, through cl
	topic string       // OffsetsTopic but in tests
	next  map[int32]int64
	// leaders is each partition's leader, nil when it must be looked up
	// (at the start, and after a fetch said the leader moved).
	leaders map[int32]int32
	// epochs is each partition's leader epoch as the last lookup found
	// it, sent with each fetch (a leader of another epoch refuses it,
	// and the leaders are looked up again). lastEpoch is the leader
	// epoch of the last batch read per partition. unchecked holds the
	// partitions whose leader epoch changed since they were last read:
	// before they are fetched again, the new leader is asked where the
	// epoch of what was read ends in its log (KIP-320); a log that ends
	// it before next was truncated under the reader, and the partition
	// is read again from its log start, as after an offset out of range.
	epochs, lastEpoch map[int32]int32
	unchecked         map[int32]bool
	id                kadm.TopicID
	count             int32 // the topic's partitions
	maxWait           time.Duration
	minBytes          int32
	br                batchReader
}

// fetchPartBytes and fetchMaxBytes bound a fetch as kgo's defaults do:
// at most 1 MiB per partition, 50 MiB per response.
const (
	fetchPartBytes = 1 << 20
	fetchMaxBytes  = 50 << 20
)

func newFetcher(cl *kgo.Client, from map[int32]int64, maxWait time.Duration, minBytes int32) *fetcher {
	next := make(map[int32]int64, len(from))
	for p, o := range from {
		next[p] = o
	}
	return &fetcher{cl: cl, adm: kadm.NewClient(cl), topic: OffsetsTopic, next: next, maxWait: maxWait, minBytes: minBytes,
		lastEpoch: map[int32]int32{}, unchecked: map[int32]bool{}, br: batchReader{dec: kgo.DefaultDecompressor()}}
}

// fetched is one partition's answer to a fetch.
type fetched struct {
	partition int32
	from      int64
	data      []byte
}

// fetchResult is one poll: the partitions' bytes, and the partitions that
// must be read again from their log start (their fetch offset was out of
// range: the log was truncated or its start moved past it), whose state
// must be forgotten before the bytes are applied.
type fetchResult struct {
	parts   []fetched
	restart map[int32]bool
	err     error // a partition that could not be read this time (retried)
}

// poll sends one fetch to each leader of the partitions read and waits
// for all the answers (each broker holds its answer up to maxWait for
// minBytes). An error returned means the topic cannot be read at all
// (it wraps an authorization error or an unknown topic, as noAccess
// tells); a partition that failed for a reason that may pass is in the
// result's err and is fetched again at the next poll.
func (f *fetcher) poll(ctx context.Context) (fetchResult, error) {
	if f.leaders == nil {
		if err := f.lookup(ctx); err != nil {
			return fetchResult{}, err
		}
	}
	var res fetchResult
	if len(f.unchecked) > 0 {
		if err := f.validate(ctx, &res); err != nil {
			if denied(err) {
				return res, err
			}
			res.err = err // the unchecked partitions wait: asked again next poll
		}
	}
	byLeader := map[int32][]int32{}
	for p := range f.next {
		if f.unchecked[p] {
			continue
		}
		if l, ok := f.leaders[p]; ok && l >= 0 {
			byLeader[l] = append(byLeader[l], p)
		} else {
			// Offline (a broker restarting that was its only
			// replica in sync): an error until it has a leader
			// again, looked up at every poll, never passed over.
			res.err = fmt.Errorf("partition %d: %w", p, kerr.LeaderNotAvailable)
		}
	}
	if res.err != nil {
		defer func() { f.leaders = nil }()
	}
	if len(byLeader) == 0 {
		return res, nil
	}
	type answer struct {
		resp *kmsg.FetchResponse
		err  error
	}
	answers := make([]answer, 0, len(byLeader))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for leader, parts := range byLeader {
		req := f.request(parts)
		wg.Go(func() {
			resp, err := req.RequestWith(ctx, f.cl.Broker(int(leader)))
			mu.Lock()
			answers = append(answers, answer{resp, err})
			mu.Unlock()
		})
	}
	wg.Wait()
	for _, a := range answers {
		if a.err != nil {
			f.leaders, res.err = nil, a.err // the broker may be gone: look the leaders up again
			continue
		}
		if err := f.take(ctx, a.resp, &res); err != nil {
			return res, err
		}
	}
	return res, nil
}

// request is a sessionless fetch of parts from their next offsets.
func (f *fetcher) request(parts []int32) *kmsg.FetchRequest {
	req := kmsg.NewPtrFetchRequest()
	req.MaxWaitMillis = int32(f.maxWait.Milliseconds())
	req.MinBytes = f.minBytes
	req.MaxBytes = fetchMaxBytes
	req.IsolationLevel = 0 // read uncommitted: see fetcher
	t := kmsg.NewFetchRequestTopic()
	t.Topic, t.TopicID = f.topic, f.id
	for _, p := range parts {
		rp := kmsg.NewFetchRequestTopicPartition()
		rp.Partition, rp.FetchOffset, rp.PartitionMaxBytes = p, f.next[p], fetchPartBytes
		if e, ok := f.epochs[p]; ok {
			rp.CurrentLeaderEpoch = e
		}
		t.Partitions = append(t.Partitions, rp)
	}
	req.Topics = append(req.Topics, t)
	return req
}

// take sorts one broker's answer into res: the bytes of the partitions
// read, the partitions to read again from their start, the errors.
func (f *fetcher) take(ctx context.Context, resp *kmsg.FetchResponse, res *fetchResult) error {
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		if denied(err) {
			return err
		}
		f.leaders, res.err = nil, err
		return nil
	}
	for _, t := range resp.Topics {
		if t.Topic != f.topic && t.TopicID != f.id {
			continue
		}
		for i := range t.Partitions {
			rp := &t.Partitions[i]
			from, ok := f.next[rp.Partition]
			if !ok {
				continue
			}
			err := kerr.ErrorForCode(rp.ErrorCode)
			switch {
			case err == nil:
				res.parts = append(res.parts, fetched{partition: rp.Partition, from: from, data: rp.RecordBatches})
			case denied(err):
				return err
			case errors.Is(err, kerr.OffsetOutOfRange):
				if err := f.restart(ctx, rp.Partition, res); err != nil {
					res.err = err
				}
			default:
				// A leader moved or is not ready; an unknown topic or
				// partition from a broker whose metadata is behind
				// (kgo retries those too): look again.
				f.leaders, res.err = nil, err
			}
		}
	}
	return nil
}

// restart moves partition p's next offset to its log start, for its
// state to be read again: an offset out of range means the log no longer
// holds what was read up to it (an unclean leader's truncation) or the
// next records are gone; going on from wherever the log is now would
// apply old commits over the ones read.
func (f *fetcher) restart(ctx context.Context, p int32, res *fetchResult) error {
	starts, err := f.adm.ListStartOffsets(ctx, f.topic)
	if err != nil {
		return err
	}
	o, ok := starts.Lookup(f.topic, p)
	if !ok || o.Err != nil {
		return fmt.Errorf("listing the start of partition %d: %v", p, o.Err)
	}
	f.next[p] = o.Offset
	delete(f.lastEpoch, p)
	delete(f.unchecked, p)
	if res.restart == nil {
		res.restart = map[int32]bool{}
	}
	res.restart[p] = true
	return nil
}

// lookup finds the topic's id and each partition's leader.
func (f *fetcher) lookup(ctx context.Context) error {
	td, err := f.adm.ListTopics(ctx, f.topic)
	if err != nil {
		return err
	}
	d, ok := td[f.topic]
	if !ok || d.Err != nil {
		if d.Err == nil {
			d.Err = kerr.UnknownTopicOrPartition
		}
		return d.Err
	}
	f.id, f.count = d.ID, int32(len(d.Partitions))
	f.leaders = make(map[int32]int32, len(d.Partitions))
	epochs := make(map[int32]int32, len(d.Partitions))
	for p, pd := range d.Partitions {
		if f.leaders[p] = pd.Leader; pd.Err != nil {
			f.leaders[p] = -1 // no leader to fetch from
		}
		epochs[p] = pd.LeaderEpoch
		// A partition read under another epoch is checked before it
		// is fetched again; one not read yet has nothing to check.
		if _, read := f.lastEpoch[p]; read && f.epochs[p] != pd.LeaderEpoch {
			f.unchecked[p] = true
		}
	}
	f.epochs = epochs
	return nil
}

// validate asks the leaders of the unchecked partitions where the leader
// epoch of the last batch read ends in their log (OffsetForLeaderEpoch):
// an end before the partition's next offset means the log was truncated
// under the reader (an unclean leader election), and what was read past
// it may be gone; the partition is then read again from its log start
// (res.restart, as after an offset out of range). An error leaves the
// partitions unchecked: they are not fetched until it passes.
func (f *fetcher) validate(ctx context.Context, res *fetchResult) error {
	// Asked of each leader directly, as the fetches are: a request routed
	// by the client's cached metadata would wait for it to be refreshed
	// (kgo's metadata minimum age, 5 s) after the move that made the
	// check due.
	byLeader := map[int32]*kmsg.OffsetForLeaderEpochRequest{}
	for p := range f.unchecked {
		l, ok := f.leaders[p]
		if !ok || l < 0 {
			continue // no leader yet: checked once it has one
		}
		req := byLeader[l]
		if req == nil {
			req = kmsg.NewPtrOffsetForLeaderEpochRequest()
			req.ReplicaID = -1
			t := kmsg.NewOffsetForLeaderEpochRequestTopic()
			t.Topic = f.topic
			req.Topics = append(req.Topics, t)
			byLeader[l] = req
		}
		rp := kmsg.NewOffsetForLeaderEpochRequestTopicPartition()
		rp.Partition, rp.CurrentLeaderEpoch, rp.LeaderEpoch = p, f.epochs[p], f.lastEpoch[p]
		req.Topics[0].Partitions = append(req.Topics[0].Partitions, rp)
	}
	var ferr error
	fail := func(err error) { f.leaders, ferr = nil, cmp.Or(ferr, err) }
	for l, req := range byLeader {
		resp, err := req.RequestWith(ctx, f.cl.Broker(int(l)))
		if err != nil {
			fail(err)
			continue
		}
		for _, t := range resp.Topics {
			for _, rp := range t.Partitions {
				if !f.unchecked[rp.Partition] || t.Topic != f.topic {
					continue
				}
				p := rp.Partition
				switch err := kerr.ErrorForCode(rp.ErrorCode); {
				case err != nil:
					fail(fmt.Errorf("partition %d: checking its leader epoch: %w", p, err))
				case rp.EndOffset >= 0 && rp.EndOffset < f.next[p]:
					if err := f.restart(ctx, p, res); err != nil {
						fail(err)
					}
				default:
					delete(f.unchecked, p)
				}
			}
		}
	}
	return ferr
}

// apply reads the bytes of one poll into fn, partition by partition, and
// moves each partition's next offset past what was read. A corrupt batch
// stops its partition there (it is fetched again, and fails again: the
// error is kept for Status) while the others go on.
func (f *fetcher) apply(res fetchResult, fn func(r *TailRecord)) (records int, err error) {
	n0 := f.br.n
	defer func() { records = f.br.n - n0 }()
	for _, fp := range res.parts {
		next, perr := f.br.read(fp.partition, fp.data, fp.from, fn)
		f.next[fp.partition] = max(f.next[fp.partition], next)
		if f.br.epoch >= 0 {
			f.lastEpoch[fp.partition] = f.br.epoch
		}
		if perr != nil && err == nil {
			err = perr
		}
	}
	return records, err
}

// denied reports whether a fetch's error means the principal may not read
// the topic: an unknown topic or partition in a fetch is retried instead
// (a broker whose metadata is behind), the metadata decides that one.
func denied(err error) bool {
	return errors.Is(err, kerr.TopicAuthorizationFailed) || errors.Is(err, kerr.ClusterAuthorizationFailed)
}
