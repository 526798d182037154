package exporter

import (
	"context"
	"time"

	"github.com/offsetctl/offsetctl/internal/cluster"
	"github.com/offsetctl/offsetctl/internal/lag"
)

// timeKey names the first record at or after an offset of a partition.
type timeKey struct {
	topic     string
	partition int32
	offset    int64
}

// timeCache maps a timeKey to the record's timestamp (Unix ms). A record's
// timestamp never changes, so while a group's next offset stays put its
// time lag is now − that timestamp with no read at all: a gather reads the
// log only for partitions whose next offset moved (at most one search per
// lagging partition and interval, and none for a stuck group).
type timeCache map[timeKey]int64

// readTimeLag is lag.FillTimeLag; a variable of the collector so tests
// can count reads.
type readTimeLag func(ctx context.Context, cfg cluster.Config, rep *lag.LagReport, iso lag.Isolation, now time.Time) (missed int, err error)

// nextOffset is the offset a lagging row's group reads next: its commit, or
// the log start once the commit has expired (lag.FillTimeLag's rule).
func nextOffset(p lag.PartitionLag) int64 {
	if p.Committed != nil && *p.Committed > p.LogStart {
		return *p.Committed
	}
	return p.LogStart
}

// fillTimeLag sets TimeLagMs on rep's committed, lagging rows: from cache
// where the next offset is known, else by one lag.FillTimeLag over the
// rows that missed, within ctx. It returns the positions read this round
// (the cache's part for rep: it never outgrows the report) and how many
// rows got no time lag: not read in time, or the read failed (their
// series is absent; the round goes on).
func fillTimeLag(ctx context.Context, read readTimeLag, cfg cluster.Config, rep *lag.LagReport, iso lag.Isolation, now time.Time, cache timeCache) (next timeCache, missed int) {
	next = timeCache{}
	miss := lag.LagReport{Isolation: rep.Isolation}
	type at struct{ g, p int }
	var back []at
	for gi, g := range rep.Groups {
		var rows []lag.PartitionLag
		for pi, p := range g.Partitions {
			lag, ok := rowLag(p)
			if !ok {
				continue // no lag series for these (see metrics.go)
			}
			if lag <= 0 {
				rep.Groups[gi].Partitions[pi].TimeLagMs = new(int64(0))
				continue
			}
			k := timeKey{p.Topic, p.Partition, nextOffset(p)}
			if ts, ok := cache[k]; ok {
				next[k] = ts
				rep.Groups[gi].Partitions[pi].TimeLagMs = new(max(now.UnixMilli()-ts, 0))
				continue
			}
			rows = append(rows, p)
			back = append(back, at{gi, pi})
		}
		if len(rows) > 0 {
			miss.Groups = append(miss.Groups, lag.GroupLag{Group: g.Group, Partitions: rows})
		}
	}
	if len(back) == 0 {
		return next, 0
	}
	missed, err := read(ctx, cfg, &miss, iso, now)
	if err != nil {
		return next, len(back)
	}
	i := 0
	for _, g := range miss.Groups {
		for _, p := range g.Partitions {
			dst := &rep.Groups[back[i].g].Partitions[back[i].p]
			i++
			dst.TimeLagMs, dst.Note = p.TimeLagMs, p.Note
			// Only a record actually found has a timestamp worth keeping;
			// 0 may also mean "only markers left", which a new record can
			// change.
			if p.TimeLagMs != nil && *p.TimeLagMs > 0 {
				next[timeKey{p.Topic, p.Partition, nextOffset(p)}] = now.UnixMilli() - *p.TimeLagMs
			}
		}
	}
	return next, missed
}
