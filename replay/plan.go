package replay

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/offsetctl/offsetctl/admin"
)

// NoBound is the bound of a partition followed with --follow and no
// --until: it never ends by offset.
const NoBound = math.MaxInt64

// PartitionState is what gathering found for one partition when the replay
// started.
type PartitionState struct {
	Partition int32
	LogStart  int64
	// LogEnd is the end for the chosen isolation: the last stable offset
	// for committed, the high watermark for uncommitted.
	LogEnd int64
}

// Gathered is the state of the topic when the replay starts.
type Gathered struct {
	Topic      string
	Partitions map[int32]PartitionState
	// TimeOffsets[ms][p] is the first offset of p stamped at or after ms,
	// or the partition's end when no record is.
	TimeOffsets map[int64]map[int32]int64
	At          time.Time
}

// PartitionPlan is the range to replay from one partition: [From, Bound).
type PartitionPlan struct {
	Partition int32 `json:"partition"`
	LogStart  int64 `json:"log_start"`
	LogEnd    int64 `json:"log_end"`
	From      int64 `json:"from"`
	// Bound is the exclusive end offset; NoBound when following.
	Bound int64 `json:"bound"`
	// StopAtMs, when ≥ 0, ends the partition at its first record stamped
	// at or after it (--follow with --until time:T in the future).
	StopAtMs int64 `json:"-"`
}

// Empty reports whether the range holds no offsets.
func (p PartitionPlan) Empty() bool { return p.Bound <= p.From }

// Plan is a whole replay: the partitions in order.
type Plan struct {
	Topic      string
	Partitions []PartitionPlan
	Follow     bool
	Max        int64
}

// Total is the number of offsets in the plan's ranges (an upper bound on
// the records: control markers, aborted and compacted records occupy
// offsets too); -1 when following without bound.
func (p Plan) Total() int64 {
	var n int64
	for _, pp := range p.Partitions {
		if pp.Bound == NoBound || pp.StopAtMs >= 0 {
			return -1
		}
		if !pp.Empty() {
			n += pp.Bound - pp.From
		}
	}
	if p.Max > 0 && p.Max < n {
		return p.Max
	}
	return n
}

// TimesNeeded lists the timestamps (ms) whose offsets the plan needs.
func TimesNeeded(from StartSpec, until Until) []int64 {
	set := map[int64]bool{}
	add := func(s Start) {
		if s.Kind == StartTime {
			set[s.Time.UnixMilli()] = true
		}
	}
	if from.PerPartition == nil {
		add(from.All)
	}
	for _, s := range from.PerPartition {
		add(s)
	}
	if until.Set && until.IsTime {
		set[until.Time.UnixMilli()] = true
	}
	out := make([]int64, 0, len(set))
	for t := range set {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// PlanRequest is what the user asked for.
type PlanRequest struct {
	Partitions []int32 // nil: every partition (or those of a per-partition --from)
	From       StartSpec
	Until      Until
	Max        int64
	Follow     bool
	Now        time.Time
}

// MakePlan resolves the request against the gathered state and validates
// every start offset against [log start, log end]. It changes nothing; any
// error is bad input (exit 2) naming the partition and the valid range.
func MakePlan(g Gathered, req PlanRequest) (Plan, error) {
	if len(g.Partitions) == 0 {
		return Plan{}, fmt.Errorf("topic %s has no partitions", g.Topic)
	}
	if req.Max < 0 {
		return Plan{}, fmt.Errorf("--max must be ≥ 0, got %d", req.Max)
	}
	all := make([]int32, 0, len(g.Partitions))
	for p := range g.Partitions {
		all = append(all, p)
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })

	sel := req.Partitions
	if per := req.From.Partitions(); per != nil {
		if sel != nil && !equalInt32s(sel, per) {
			return Plan{}, fmt.Errorf("--partitions %s and the partitions of --from (%s) differ: give one or make them equal", joinInt32s(sel), joinInt32s(per))
		}
		sel = per
	}
	if sel == nil {
		sel = all
	}
	for _, p := range sel {
		if _, ok := g.Partitions[p]; !ok {
			return Plan{}, fmt.Errorf("topic %s has no partition %d (it has partitions %s)", g.Topic, p, rangeOf(all))
		}
	}

	plan := Plan{Topic: g.Topic, Follow: req.Follow, Max: req.Max}
	for _, p := range sel {
		ps := g.Partitions[p]
		st, _ := req.From.For(p)
		pp := PartitionPlan{Partition: p, LogStart: ps.LogStart, LogEnd: ps.LogEnd, StopAtMs: -1}
		switch st.Kind {
		case StartEarliest:
			pp.From = ps.LogStart
		case StartOffset:
			if st.Offset < ps.LogStart || st.Offset > ps.LogEnd {
				return Plan{}, fmt.Errorf("topic %s partition %d: start offset %d is outside the log: valid start offsets are %d..%d (log start..log end)",
					g.Topic, p, st.Offset, ps.LogStart, ps.LogEnd)
			}
			pp.From = st.Offset
		case StartTime:
			off, ok := g.TimeOffsets[st.Time.UnixMilli()][p]
			if !ok {
				return Plan{}, fmt.Errorf("topic %s partition %d: no offset listed for time %s", g.Topic, p, admin.FormatTime(st.Time))
			}
			pp.From = clamp(off, ps.LogStart, ps.LogEnd)
		}

		pp.Bound = ps.LogEnd
		if req.Follow {
			pp.Bound = NoBound
		}
		if u := req.Until; u.Set {
			if u.IsTime {
				off, ok := g.TimeOffsets[u.Time.UnixMilli()][p]
				if !ok {
					return Plan{}, fmt.Errorf("topic %s partition %d: no offset listed for --until time %s", g.Topic, p, admin.FormatTime(u.Time))
				}
				switch {
				case off < ps.LogEnd:
					pp.Bound = off // a record at or after T exists: stop before it
				case req.Follow && u.Time.After(req.Now):
					pp.StopAtMs = u.Time.UnixMilli() // T is ahead: stop at the first record stamped ≥ T
				default:
					pp.Bound = ps.LogEnd
				}
				if pp.Bound < pp.From {
					pp.Bound = pp.From
				}
			} else {
				if u.Offset < pp.From {
					return Plan{}, fmt.Errorf("topic %s partition %d: --until %d is before the start offset %d", g.Topic, p, u.Offset, pp.From)
				}
				if req.Follow || u.Offset < ps.LogEnd {
					pp.Bound = u.Offset
				} else {
					pp.Bound = ps.LogEnd
				}
			}
		}
		plan.Partitions = append(plan.Partitions, pp)
	}
	return plan, nil
}

func clamp(v, lo, hi int64) int64 {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}

func equalInt32s(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func joinInt32s(ps []int32) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = fmt.Sprint(p)
	}
	return strings.Join(s, ",")
}

// rangeOf renders sorted partitions as "0..5" when contiguous from 0.
func rangeOf(ps []int32) string {
	if len(ps) > 0 && ps[0] == 0 && int(ps[len(ps)-1]) == len(ps)-1 {
		if len(ps) == 1 {
			return "0"
		}
		return fmt.Sprintf("0..%d", len(ps)-1)
	}
	return joinInt32s(ps)
}
