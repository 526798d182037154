package replay

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/offsetctl/offsetctl/internal/admin"
	"github.com/offsetctl/offsetctl/internal/lag"
	"github.com/offsetctl/offsetctl/internal/textlist"
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
	// Isolation is the isolation the ends were listed with: under
	// ReadCommitted a partition's end is its last stable offset.
	Isolation lag.Isolation
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
	// BoundBy says what the bound is: BoundEnd or BoundUntil; "" when
	// following without one.
	BoundBy string `json:"-"`
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

// Why a partition's range ends where it does (PartitionPlan.BoundBy, and
// PartitionResult.Stop once it got there).
const (
	BoundEnd   = "end"   // the log end captured at start (or the until was past it)
	BoundUntil = "until" // its --until offset or time
)

// TimesNeeded lists the timestamps (ms) whose offsets the plan needs.
func TimesNeeded(from StartSpec, until UntilSpec) []int64 {
	set := map[int64]bool{}
	add := func(s Start) {
		if s.Kind == StartTime {
			set[s.Time.UnixMilli()] = true
		}
	}
	addUntil := func(u Until) {
		if u.Set && u.IsTime {
			set[u.Time.UnixMilli()] = true
		}
	}
	if from.PerPartition == nil {
		add(from.All)
	}
	for _, s := range from.PerPartition {
		add(s)
	}
	if until.PerPartition == nil {
		addUntil(until.All)
	}
	for _, u := range until.PerPartition {
		addUntil(u)
	}
	out := make([]int64, 0, len(set))
	for t := range set {
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}

// PlanRequest is what the user asked for.
type PlanRequest struct {
	Partitions []int32 // nil: every partition (or those of a per-partition --from/--until)
	From       StartSpec
	Until      UntilSpec
	Max        int64
	Follow     bool
	Now        time.Time
}

// MakePlan resolves the request against the gathered state and validates
// every start and end against [log start, log end]. It changes nothing; any
// error is bad input (exit 2) naming every partition at fault with its
// valid range, so that one run shows everything to fix.
func MakePlan(g Gathered, req PlanRequest) (Plan, error) {
	if len(g.Partitions) == 0 {
		return Plan{}, fmt.Errorf("topic %s has no partitions", g.Topic)
	}
	if req.Max < 0 {
		return Plan{}, fmt.Errorf("--max must be ≥ 0, got %d", req.Max)
	}
	if err := CheckTimeOrder(req.From, req.Until); err != nil {
		return Plan{}, err
	}
	sel, err := selectPartitions(g, req)
	if err != nil {
		return Plan{}, err
	}
	plan := Plan{Topic: g.Topic, Follow: req.Follow, Max: req.Max}
	var bad []string
	for _, p := range sel {
		pp, problem := planPartition(g, req, p)
		if problem != "" {
			bad = append(bad, problem)
			continue
		}
		plan.Partitions = append(plan.Partitions, pp)
	}
	switch len(bad) {
	case 0:
		return plan, nil
	case 1:
		return Plan{}, fmt.Errorf("topic %s %s", g.Topic, bad[0])
	}
	return Plan{}, fmt.Errorf("topic %s: %d of the %d partitions asked for are out of range: %s",
		g.Topic, len(bad), len(sel), textlist.Short(bad, maxNamed, "; "))
}

// maxNamed is how many partitions one error line names before it counts
// the rest.
const maxNamed = 5

// selectPartitions returns the partitions to replay: those of --partitions,
// a per-partition --from or a per-partition --until (which must agree when
// several are given), else all; every one must exist.
func selectPartitions(g Gathered, req PlanRequest) ([]int32, error) {
	all := make([]int32, 0, len(g.Partitions))
	for p := range g.Partitions {
		all = append(all, p)
	}
	slices.Sort(all)

	sel, selBy := req.Partitions, "--partitions"
	for _, src := range []struct {
		name  string
		parts []int32
	}{{"--from", req.From.Partitions()}, {"--until", req.Until.Partitions()}} {
		if src.parts == nil {
			continue
		}
		if sel != nil && !equalInt32s(sel, src.parts) {
			return nil, fmt.Errorf("the partitions of %s (%s) and of %s (%s) differ: give them once or make them equal",
				selBy, formatParts(sel), src.name, formatParts(src.parts))
		}
		sel, selBy = src.parts, src.name
	}
	if sel == nil {
		return all, nil
	}
	var missing []int32
	for _, p := range sel {
		if _, ok := g.Partitions[p]; !ok {
			missing = append(missing, p)
		}
	}
	if len(missing) == 1 {
		return nil, fmt.Errorf("topic %s has no partition %d (it has partitions %s)", g.Topic, missing[0], rangeOf(all))
	}
	if len(missing) > 1 {
		return nil, fmt.Errorf("topic %s has no partitions %s (it has partitions %s)", g.Topic, formatParts(missing), rangeOf(all))
	}
	return sel, nil
}

// planPartition resolves one partition's range; a non-empty problem
// ("partition 2: ...") says why it cannot be replayed as asked.
func planPartition(g Gathered, req PlanRequest, p int32) (PartitionPlan, string) {
	ps := g.Partitions[p]
	pp := PartitionPlan{Partition: p, LogStart: ps.LogStart, LogEnd: ps.LogEnd, StopAtMs: -1}
	st, _ := req.From.For(p)
	switch st.Kind {
	case StartEarliest:
		pp.From = ps.LogStart
	case StartOffset:
		if st.Offset < ps.LogStart || st.Offset > ps.LogEnd {
			end := "log end"
			if g.Isolation == lag.ReadCommitted {
				end = "last stable offset" // read_committed reads no further
			}
			return pp, fmt.Sprintf("partition %d: start offset %d is outside the log: valid start offsets are %d..%d (log start..%s)",
				p, st.Offset, ps.LogStart, ps.LogEnd, end)
		}
		pp.From = st.Offset
	case StartTime:
		off, ok := g.TimeOffsets[st.Time.UnixMilli()][p]
		if !ok {
			return pp, fmt.Sprintf("partition %d: no offset listed for time %s", p, admin.FormatTime(st.Time))
		}
		pp.From = clamp(off, ps.LogStart, ps.LogEnd)
	}
	u, _ := req.Until.For(p)
	return pp, planBound(g, req, &pp, u)
}

// planBound sets pp's exclusive end from its --until u and says why the
// range ends there (BoundBy).
func planBound(g Gathered, req PlanRequest, pp *PartitionPlan, u Until) string {
	p, end := pp.Partition, pp.LogEnd
	pp.Bound, pp.BoundBy = end, BoundEnd
	if req.Follow {
		pp.Bound, pp.BoundBy = NoBound, ""
	}
	switch {
	case !u.Set:
	case u.IsTime:
		off, ok := g.TimeOffsets[u.Time.UnixMilli()][p]
		if !ok {
			return fmt.Sprintf("partition %d: no offset listed for --until time %s", p, admin.FormatTime(u.Time))
		}
		if off < pp.From {
			// The first record stamped at or after T lies before the
			// start: the range is reversed, as --from 500 --until 100
			// is (it read nothing and said "end", exit 0). A time
			// start is never past a later time end (CheckTimeOrder
			// refuses the earlier one).
			return fmt.Sprintf("partition %d: --until %s is at offset %d (the first record stamped at or after it), before the start offset %d: the range is reversed",
				p, u, off, pp.From)
		}
		switch {
		case off < end:
			pp.Bound, pp.BoundBy = off, BoundUntil // a record at or after T exists: stop before it
		case req.Follow && u.Time.After(req.Now):
			// T is ahead: stop at the first record stamped ≥ T.
			pp.StopAtMs, pp.BoundBy = u.Time.UnixMilli(), BoundUntil
		default:
			pp.Bound, pp.BoundBy = end, BoundEnd // no record stamped ≥ T yet
		}
	default:
		if u.Offset < pp.From {
			return fmt.Sprintf("partition %d: --until %d is before the start offset %d: valid ends are %d..%d",
				p, u.Offset, pp.From, pp.From, max(end, pp.From))
		}
		if req.Follow || u.Offset < end {
			pp.Bound, pp.BoundBy = u.Offset, BoundUntil
		} else {
			pp.Bound, pp.BoundBy = end, BoundEnd // the log ends first
		}
	}
	return ""
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

// rangeOf renders sorted partitions as "0..5" when contiguous from 0.
func rangeOf(ps []int32) string {
	if len(ps) > 0 && ps[0] == 0 && int(ps[len(ps)-1]) == len(ps)-1 {
		if len(ps) == 1 {
			return "0"
		}
		return fmt.Sprintf("0..%d", len(ps)-1)
	}
	return formatParts(ps)
}
