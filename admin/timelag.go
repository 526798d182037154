package admin

import (
	"context"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetctl/offsetctl/cluster"
)

// nextOffset is the offset a group would consume next on a lagging row:
// its commit, or the log start when it has none or the commit expired.
func nextOffset(p *PartitionLag) int64 {
	if p.Committed != nil && *p.Committed > p.LogStart {
		return *p.Committed
	}
	return p.LogStart
}

// FillTimeLag reads, for every row with lag > 0, the first record at or
// after the next offset its group would consume, and sets TimeLagMs to how
// long before now that record was written (the log's own timestamps).
// Rows without lag get 0. A row whose record could not be read in time
// (e.g. only aborted records or markers remain) keeps a nil TimeLagMs and
// gets a note. Each partition is read once, from the lowest offset any
// group needs.
func FillTimeLag(ctx context.Context, cfg cluster.Config, rep *LagReport, iso Isolation, now time.Time) error {
	need := map[tp][]int64{}
	end := map[tp]int64{}
	for gi := range rep.Groups {
		for pi := range rep.Groups[gi].Partitions {
			p := &rep.Groups[gi].Partitions[pi]
			switch {
			case p.Error != "":
			case p.Lag <= 0:
				zero := int64(0)
				p.TimeLagMs = &zero
			default:
				k := tp{p.Topic, p.Partition}
				need[k] = append(need[k], nextOffset(p))
				end[k] = p.LogEnd
			}
		}
	}
	if len(need) == 0 {
		return nil
	}
	start := map[string]map[int32]kgo.Offset{}
	for k, offs := range need {
		lowest := offs[0]
		for _, o := range offs[1:] {
			lowest = min(lowest, o)
		}
		if start[k.topic] == nil {
			start[k.topic] = map[int32]kgo.Offset{}
		}
		start[k.topic][k.partition] = kgo.NewOffset().At(lowest)
	}
	level := kgo.ReadUncommitted()
	if iso == ReadCommitted {
		level = kgo.ReadCommitted()
	}
	// Control records (transaction markers) come back too: they occupy
	// offsets, and a lag made only of markers must end the search rather
	// than wait for a record that will never come.
	cl, err := cfg.NewClient(kgo.ConsumePartitions(start), kgo.FetchIsolationLevel(level), kgo.FetchMaxWait(200*time.Millisecond), kgo.KeepControlRecords())
	if err != nil {
		return err
	}
	defer cl.Close()

	// found[k][offset] = timestamp (ms) of the first data record at or
	// after offset; markersOnly[k][offset] when none is left before the end.
	found := map[tp]map[int64]int64{}
	markersOnly := map[tp]map[int64]bool{}
	pending := 0
	for k, offs := range need {
		found[k] = map[int64]int64{}
		markersOnly[k] = map[int64]bool{}
		pending += len(offs)
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	for pending > 0 && ctx.Err() == nil {
		cl.PollFetches(ctx).EachRecord(func(r *kgo.Record) {
			k := tp{r.Topic, r.Partition}
			left := 0
			last := r.Offset+1 >= end[k]
			for _, off := range need[k] {
				if _, done := found[k][off]; done || markersOnly[k][off] {
					continue
				}
				switch {
				case r.Offset >= off && !r.Attrs.IsControl():
					found[k][off] = r.Timestamp.UnixMilli()
					pending--
				case last:
					markersOnly[k][off] = true
					pending--
				default:
					left++
				}
			}
			if left == 0 {
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
			k := tp{p.Topic, p.Partition}
			if ts, ok := found[k][nextOffset(p)]; ok {
				p.TimeLagMs = new(max(now.UnixMilli()-ts, 0))
			} else if markersOnly[k][nextOffset(p)] {
				p.TimeLagMs = new(int64(0))
				p.Note = joinNotes(p.Note, "only transaction markers (or aborted records) left: nothing to consume")
			} else if p.Note == "" {
				p.Note = "time lag unknown: no record read in time"
			}
		}
	}
	return nil
}

func joinNotes(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
