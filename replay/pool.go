package replay

import (
	"sync"

	"github.com/twmb/franz-go/pkg/kgo"
)

// fetchPools lets the client reuse record slices between fetches
// (kgo.WithPools): the consumer loop recycles every record once it is
// encoded and hashed, so a replay of any size allocates about as much as a
// few fetches and resident memory stays flat. Decompression buffers are
// deliberately not pooled: their size follows the compression ratio, and
// pooling them held several times more memory than it saved. One per
// replay, no package state.
type fetchPools struct {
	recs sync.Pool // *[]kgo.Record
}

var _ kgo.PoolRecords = (*fetchPools)(nil)

func (fp *fetchPools) GetRecords(n int) []kgo.Record {
	if v, ok := fp.recs.Get().(*[]kgo.Record); ok && cap(*v) >= n {
		return (*v)[:n]
	}
	return make([]kgo.Record, n)
}

func (fp *fetchPools) PutRecords(s []kgo.Record) {
	s = s[:cap(s)]
	fp.recs.Put(&s)
}
