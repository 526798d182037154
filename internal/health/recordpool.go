package health

import (
	"sync"

	"github.com/twmb/franz-go/pkg/kgo"
)

// recordPool lends a consumer of the offsets topic (kgo.WithPools) the
// slices it decodes each fetched batch's records into; a batch's slice
// comes back once every record of it is recycled (kgo.Record.Recycle,
// after TailState.Apply, which keeps nothing of a record). A busy fleet's
// tail reads tens of thousands of records a second: without it each batch
// is a fresh slice for the collector. Safe for concurrent use.
type recordPool struct {
	mu   sync.Mutex
	free [][]kgo.Record
}

// poolSlices bounds the slices a recordPool keeps: about a fetch's
// batches, so that a burst (the warm-up) does not stay held.
const poolSlices = 32

// GetRecords returns a free slice that holds n records, or a new one.
func (p *recordPool) GetRecords(n int) []kgo.Record {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, rs := range p.free {
		if cap(rs) >= n {
			last := len(p.free) - 1
			p.free[i], p.free[last] = p.free[last], nil
			p.free = p.free[:last]
			return rs[:n]
		}
	}
	return make([]kgo.Record, n)
}

// PutRecords takes back a slice kgo has zeroed (every record recycled).
func (p *recordPool) PutRecords(rs []kgo.Record) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.free) < poolSlices {
		p.free = append(p.free, rs)
	}
}
