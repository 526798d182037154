package replay

import (
	"github.com/twmb/franz-go/pkg/kgo"
)

// maxConcurrentFetches bounds the fetches the replay client has in flight
// or buffered at once (kgo.MaxConcurrentFetches). kgo otherwise keeps one
// per broker the topic has leaders on, so resident memory would follow the
// cluster's size: with it, memory is a few times --fetch-max-bytes
// whatever the cluster. Two keep one fetch in flight while the last is
// consumed.
const maxConcurrentFetches = 2

// fetchPools lets the client reuse record slices between fetches
// (kgo.WithPools): the consumer loop recycles every record once it is
// encoded and hashed, so a replay of any size allocates about as much as a
// few fetches and resident memory stays flat. The free list is bounded
// (one slice per fetch that can be held, and one spare) rather than a
// sync.Pool, which keeps every slice put back until two collections pass.
// Decompression buffers are deliberately not pooled: their size follows
// the compression ratio, and pooling them held several times more memory
// than it saved. One per replay, no package state.
type fetchPools struct {
	recs chan []kgo.Record
}

var _ kgo.PoolRecords = (*fetchPools)(nil)

func newFetchPools() *fetchPools {
	return &fetchPools{recs: make(chan []kgo.Record, maxConcurrentFetches+1)}
}

func (fp *fetchPools) GetRecords(n int) []kgo.Record {
	select {
	case s := <-fp.recs:
		if cap(s) >= n {
			return s[:n]
		}
	default:
	}
	return make([]kgo.Record, n)
}

func (fp *fetchPools) PutRecords(s []kgo.Record) {
	select {
	case fp.recs <- s[:cap(s)]:
	default: // the list is full: let the collector have it
	}
}
