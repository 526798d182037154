package admin

import (
	"context"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetctl/offsetctl/cluster"
)

// FillTimeLag reads, for every partition with lag > 0, the first record at
// or after the next offset the group would consume, and sets TimeLagMs to
// how long before the snapshot it was written (from the log's own
// timestamps). Partitions without lag get 0. Partitions whose record could
// not be read before ctx ends keep a nil TimeLagMs and get a note.
func FillTimeLag(ctx context.Context, cfg cluster.Config, rep *LagReport, iso Isolation, now time.Time) error {
	type key = tp
	want := map[string]map[int32]kgo.Offset{}
	wantKeys := map[key]bool{}
	for gi := range rep.Groups {
		for pi := range rep.Groups[gi].Partitions {
			p := &rep.Groups[gi].Partitions[pi]
			if p.Error != "" {
				continue
			}
			if p.Lag <= 0 {
				zero := int64(0)
				p.TimeLagMs = &zero
				continue
			}
			at := p.LogStart
			if p.Committed != nil && *p.Committed > at {
				at = *p.Committed
			}
			k := key{p.Topic, p.Partition}
			if wantKeys[k] {
				// Several groups may need the same partition at
				// different offsets: read from the lowest.
				if cur := want[p.Topic][p.Partition]; cur.EpochOffset().Offset <= at {
					continue
				}
			}
			wantKeys[k] = true
			if want[p.Topic] == nil {
				want[p.Topic] = map[int32]kgo.Offset{}
			}
			want[p.Topic][p.Partition] = kgo.NewOffset().At(at)
		}
	}
	if len(want) == 0 {
		return nil
	}
	// Per partition, the timestamps of records from the lowest start on,
	// until every group's offset on it is covered.
	need := map[key][]int64{} // offsets each group needs
	for _, g := range rep.Groups {
		for _, p := range g.Partitions {
			if p.Error != "" || p.Lag <= 0 {
				continue
			}
			at := p.LogStart
			if p.Committed != nil && *p.Committed > at {
				at = *p.Committed
			}
			need[key{p.Topic, p.Partition}] = append(need[key{p.Topic, p.Partition}], at)
		}
	}
	isoOpt := kgo.FetchIsolationLevel(kgo.ReadUncommitted())
	if iso == ReadCommitted {
		isoOpt = kgo.FetchIsolationLevel(kgo.ReadCommitted())
	}
	cl, err := cfg.NewClient(kgo.ConsumePartitions(want), isoOpt, kgo.FetchMaxWait(200*time.Millisecond))
	if err != nil {
		return err
	}
	defer cl.Close()
	// found[k][offset] = timestamp of the first record at or after offset.
	found := map[key]map[int64]int64{}
	pending := 0
	for k, offs := range need {
		found[k] = map[int64]int64{}
		pending += len(offs)
		_ = k
	}
	// Aborted transactions and control markers can leave a lagging
	// partition with no readable record: bound the wait.
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	for pending > 0 {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			break
		}
		fs.EachRecord(func(r *kgo.Record) {
			k := key{r.Topic, r.Partition}
			for _, off := range need[k] {
				if _, done := found[k][off]; !done && r.Offset >= off {
					found[k][off] = r.Timestamp.UnixMilli()
					pending--
				}
			}
			if allFound(found[k], need[k]) {
				cl.PauseFetchPartitions(map[string][]int32{r.Topic: {r.Partition}})
			}
		})
	}
	for gi := range rep.Groups {
		for pi := range rep.Groups[gi].Partitions {
			p := &rep.Groups[gi].Partitions[pi]
			if p.Error != "" || p.Lag <= 0 {
				continue
			}
			at := p.LogStart
			if p.Committed != nil && *p.Committed > at {
				at = *p.Committed
			}
			if ts, ok := found[key{p.Topic, p.Partition}][at]; ok {
				ms := now.UnixMilli() - ts
				if ms < 0 {
					ms = 0
				}
				p.TimeLagMs = &ms
			} else if p.Note == "" {
				p.Note = "time lag unknown: no record read in time"
			}
		}
	}
	return nil
}

func allFound(found map[int64]int64, need []int64) bool {
	for _, o := range need {
		if _, ok := found[o]; !ok {
			return false
		}
	}
	return true
}
