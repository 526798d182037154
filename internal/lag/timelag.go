package lag

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetctl/offsetctl/internal/cluster"
)

// nextOffset is the offset a group would consume next on a lagging row:
// its commit, or the log start when it has none or the commit expired.
func nextOffset(p *PartitionLag) int64 {
	if p.Committed != nil && *p.Committed > p.LogStart {
		return *p.Committed
	}
	return p.LogStart
}

// timeLagWait bounds the reads of FillTimeLag (the caller's context may
// end them sooner).
const timeLagWait = 10 * time.Second

// FillTimeLag reads, for every row with lag > 0, the first record at or
// after the next offset its group would consume, and sets TimeLagMs to how
// long before now that record was written (the log's own timestamps).
// Rows without lag get 0. A row whose record could not be read in time
// (ctx's deadline, or timeLagWait; e.g. only aborted records or markers
// remain) keeps a nil TimeLagMs and gets a note; missed counts those rows,
// so a caller with a budget can say how much it left out. Each partition
// is read once, from the lowest offset any group needs. The search returns
// by ctx's deadline plus the time to close one client: it never waits for
// an answer past it.
func FillTimeLag(ctx context.Context, cfg cluster.Config, rep *LagReport, iso Isolation, now time.Time) (missed int, err error) {
	_, missed, err = fillTimeLag(ctx, cfg, rep, iso, now)
	return missed, err
}

// timeLagSearch is what FillTimeLag looks for on one partition.
type timeLagSearch struct {
	end int64
	// offs are the distinct offsets the groups would consume next,
	// ascending: several groups at the same offset need it once.
	offs []int64
	// found[offset] = timestamp (ms) of the first data record at or
	// after offset; markersOnly[offset] when none is left before the end;
	// failed[offset] when the partition could not be read.
	found       map[int64]int64
	markersOnly map[int64]bool
	failed      map[int64]error
}

func (s *timeLagSearch) resolved(off int64) bool {
	_, f := s.found[off]
	_, e := s.failed[off]
	return f || e || s.markersOnly[off]
}

// fillTimeLag is FillTimeLag; complete reports whether every offset it
// looked for was resolved (a record found, only markers left, or the
// partition failed) rather than the search being cut by the deadline.
// With ctx already ended no client is made: every row searched is missed.
func fillTimeLag(ctx context.Context, cfg cluster.Config, rep *LagReport, iso Isolation, now time.Time) (complete bool, missed int, err error) {
	search := timeLagSearches(rep)
	if len(search) == 0 {
		return true, 0, nil
	}
	pending := len(search)
	if ctx.Err() == nil {
		if pending, err = search.run(ctx, cfg, iso); err != nil {
			return false, 0, err
		}
	}
	missed = applyTimeLag(rep, search, now)
	return pending == 0, missed, nil
}

// searchSet is the time-lag search of every partition read.
type searchSet map[TP]*timeLagSearch

// timeLagSearches sets the rows whose time lag is known without reading
// (none, or nothing left to read) and returns what to look for on the
// others' partitions.
func timeLagSearches(rep *LagReport) searchSet {
	search := searchSet{}
	for gi := range rep.Groups {
		for pi := range rep.Groups[gi].Partitions {
			p := &rep.Groups[gi].Partitions[pi]
			switch {
			case p.Error != "" || p.Lag == nil:
				// Unknown lag (no commit, nothing assumed): the next
				// offset is unknown too.
			case *p.Lag <= 0:
				p.TimeLagMs = new(int64(0))
			case nextOffset(p) >= p.LogEnd:
				// A commit below a log start that has reached the log
				// end: lag, but nothing left to read. Waiting for a
				// record here would only run out the deadline.
				p.TimeLagMs = new(int64(0))
				p.Note = JoinNote(p.Note, "nothing left to consume")
			default:
				k := TP{p.Topic, p.Partition}
				s := search[k]
				if s == nil {
					s = &timeLagSearch{found: map[int64]int64{}, markersOnly: map[int64]bool{}, failed: map[int64]error{}}
					search[k] = s
				}
				s.end = max(s.end, p.LogEnd)
				if off := nextOffset(p); !slices.Contains(s.offs, off) {
					s.offs = append(s.offs, off)
				}
			}
		}
	}
	return search
}

// run reads every searched partition from its lowest offset until each
// offset is resolved or timeLagWait passes; it returns how many are not.
func (ss searchSet) run(ctx context.Context, cfg cluster.Config, iso Isolation) (pending int, err error) {
	start := PartitionMap[kgo.Offset]{}
	for k, s := range ss {
		slices.Sort(s.offs)
		pending += len(s.offs)
		start.Set(k.Topic, k.Partition, kgo.NewOffset().At(s.offs[0]))
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
		return pending, err
	}
	defer cl.Close()

	ctx, cancel := context.WithTimeout(ctx, timeLagWait)
	defer cancel()
	for pending > 0 && ctx.Err() == nil {
		ss.poll(ctx, cl, &pending)
	}
	return pending, nil
}

// poll takes one PollFetches' answers. The partitions it resolves are
// paused in one call: kgo's PauseFetchPartitions copies the whole paused
// set each time, so a call per partition made 10,000 lagging partitions
// cost ~50M map writes (95 s with --timeout 2s, none of it checking the
// deadline). The deadline is checked between partitions, as one poll may
// hand back many fetches.
func (ss searchSet) poll(ctx context.Context, cl *kgo.Client, pending *int) {
	done := map[string][]int32{}
	fs := cl.PollFetches(ctx)
	fs.EachPartition(func(fp kgo.FetchTopicPartition) {
		k := TP{fp.Topic, fp.Partition}
		s := ss[k]
		if s == nil || ctx.Err() != nil {
			return
		}
		// An error kgo hands back is one it does not retry itself
		// (authorization, topic recreated, ...): the partition will not
		// be read, so stop waiting for it.
		if fp.Err != nil {
			if s.fail(fp.Err, pending) {
				done[k.Topic] = append(done[k.Topic], k.Partition)
			}
			return
		}
		left := -1
		for _, r := range fp.Records {
			if left = s.see(r, pending); left == 0 {
				break
			}
		}
		if left == 0 {
			done[k.Topic] = append(done[k.Topic], k.Partition)
		}
	})
	if len(done) > 0 {
		cl.PauseFetchPartitions(done)
	}
}

// fail marks the unresolved offsets failed by ferr, unless ferr is the
// deadline or informational; it reports whether it did.
func (s *timeLagSearch) fail(ferr error, pending *int) bool {
	if errors.Is(ferr, context.Canceled) || errors.Is(ferr, context.DeadlineExceeded) {
		return false
	}
	var dataLoss *kgo.ErrDataLoss
	if errors.As(ferr, &dataLoss) {
		return false // informational: reading goes on from where it can
	}
	for _, off := range s.offs {
		if !s.resolved(off) {
			s.failed[off] = ferr
			*pending--
		}
	}
	return true
}

// see resolves the offsets r answers: the first data record at or after
// one, or the log end reached with only markers. It returns how many
// offsets are left.
func (s *timeLagSearch) see(r *kgo.Record, pending *int) (left int) {
	last := r.Offset+1 >= s.end
	for _, off := range s.offs {
		if s.resolved(off) {
			continue
		}
		switch {
		case r.Offset >= off && !r.Attrs.IsControl():
			s.found[off] = r.Timestamp.UnixMilli()
			*pending--
		case last:
			s.markersOnly[off] = true
			*pending--
		default:
			left++
		}
	}
	return left
}

// futureSkew is how far after now the next record's timestamp may be and
// still count as "just written" (time lag 0): clocks of producers, brokers
// and this host differ by that much. A record stamped later than that
// says nothing about how long the records behind it have waited, so the
// row's time lag is unknown, with a note, never 0.
const futureSkew = time.Minute

// futureNote starts the note of a row whose next record is stamped after
// now + futureSkew.
const futureNote = "time lag unknown: the next record is stamped "

// FutureStamped counts rep's rows whose time lag is unknown because their
// next record is stamped in the future (futureSkew): the caller says so
// once on stderr, since such a row can cross no time-lag threshold.
func FutureStamped(rep LagReport) int {
	n := 0
	for _, g := range rep.Groups {
		for _, p := range g.Partitions {
			if p.TimeLagMs == nil && strings.Contains(p.Note, futureNote) {
				n++
			}
		}
	}
	return n
}

// aheadText is a time ahead of now, ms milliseconds, for a note: whole
// seconds up to two days, days beyond (a year 2100 timestamp overflows a
// time.Duration's nanoseconds).
func aheadText(ms int64) string {
	if ms < 2*24*3600*1000 {
		return (time.Duration(ms) * time.Millisecond).Round(time.Second).String()
	}
	return fmt.Sprintf("%d days", ms/(24*3600*1000))
}

// applyTimeLag sets each searched row's time lag, or a note saying why
// it is unknown; it returns how many rows were not resolved in time.
func applyTimeLag(rep *LagReport, search searchSet, now time.Time) (missed int) {
	for gi := range rep.Groups {
		for pi := range rep.Groups[gi].Partitions {
			p := &rep.Groups[gi].Partitions[pi]
			off := nextOffset(p)
			s := search[TP{p.Topic, p.Partition}]
			if p.Error != "" || p.Lag == nil || *p.Lag <= 0 || off >= p.LogEnd || s == nil {
				continue
			}
			if ts, ok := s.found[off]; ok {
				if ahead := ts - now.UnixMilli(); ahead > futureSkew.Milliseconds() {
					// A 0 here would hide every older record behind
					// this one: a false low time lag.
					p.Note = JoinNote(p.Note, futureNote+aheadText(ahead)+" after now (its producer's clock?)")
				} else {
					p.TimeLagMs = new(max(-ahead, 0))
				}
			} else if s.markersOnly[off] {
				p.TimeLagMs = new(int64(0))
				p.Note = JoinNote(p.Note, "only transaction markers (or aborted records) left: nothing to consume")
			} else if ferr := s.failed[off]; ferr != nil {
				p.Note = JoinNote(p.Note, fmt.Sprintf("time lag unknown: %v", ferr))
			} else {
				missed++
				if p.Note == "" {
					p.Note = "time lag unknown: no record read in time"
				}
			}
		}
	}
	return missed
}
