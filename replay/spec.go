package replay

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/offsetctl/offsetctl/internal/admin"
	"github.com/offsetctl/offsetctl/internal/textlist"
)

// StartKind says how a start position is given.
type StartKind int8

const (
	// StartEarliest is the log start of the partition.
	StartEarliest StartKind = iota
	// StartOffset is an exact offset.
	StartOffset
	// StartTime is the first record stamped at or after a time.
	StartTime
)

// Start is one start position.
type Start struct {
	Kind   StartKind
	Offset int64     // StartOffset
	Time   time.Time // StartTime (ago:D is resolved against now)
}

func (s Start) String() string {
	switch s.Kind {
	case StartOffset:
		return strconv.FormatInt(s.Offset, 10)
	case StartTime:
		return "time:" + admin.FormatTime(s.Time)
	}
	return "earliest"
}

// PartSpec is a parsed --from or --until: one value for every selected
// partition (All) or one value per listed partition (PerPartition). The
// two flags take the same two shapes, so an exact per-partition range is
// one run.
type PartSpec[T any] struct {
	All          T
	PerPartition map[int32]T
}

// StartSpec is a parsed --from.
type StartSpec = PartSpec[Start]

// UntilSpec is a parsed --until.
type UntilSpec = PartSpec[Until]

// Partitions returns the partitions of a per-partition spec, sorted; nil
// for a spec that applies to all partitions.
func (s PartSpec[T]) Partitions() []int32 {
	if s.PerPartition == nil {
		return nil
	}
	out := make([]int32, 0, len(s.PerPartition))
	for p := range s.PerPartition {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// For returns the value for partition p.
func (s PartSpec[T]) For(p int32) (T, bool) {
	if s.PerPartition == nil {
		return s.All, true
	}
	v, ok := s.PerPartition[p]
	return v, ok
}

// ParseStart parses --from: "earliest" (also "beginning", "start"), an
// offset N, "time:T" (admin.ParseTime: RFC 3339, YYYY-MM-DD[THH:MM[:SS]]
// in UTC, or Unix milliseconds), "ago:D" (admin.ParseDuration: 90s, 2h,
// 3d, 1d12h, PT90M; positive, before now), or a
// per-partition list "0=120,2=time:...,3=earliest". An empty value, for
// all partitions or one ("0="), is an error, as for --until: read as
// earliest it would silently replay a whole topic (issue 11).
func ParseStart(s string, now time.Time) (StartSpec, error) {
	s = strings.TrimSpace(s)
	if !strings.Contains(s, "=") {
		st, err := parseOneStart(s, now)
		if err != nil {
			return StartSpec{}, fmt.Errorf("%q: %w", s, err)
		}
		return StartSpec{All: st}, nil
	}
	spec := StartSpec{PerPartition: map[int32]Start{}}
	for _, item := range strings.Split(s, ",") {
		ps, v, ok := strings.Cut(strings.TrimSpace(item), "=")
		if !ok {
			return StartSpec{}, fmt.Errorf("%q: %q is not PARTITION=START (give every partition a start, e.g. 0=120,2=300)", s, item)
		}
		p, err := parsePartition(ps)
		if err != nil {
			return StartSpec{}, fmt.Errorf("%q: %w", s, err)
		}
		if _, dup := spec.PerPartition[p]; dup {
			return StartSpec{}, fmt.Errorf("%q: partition %d given twice", s, p)
		}
		st, err := parseOneStart(v, now)
		if err != nil {
			return StartSpec{}, fmt.Errorf("%q: partition %d: %w", s, p, err)
		}
		spec.PerPartition[p] = st
	}
	return spec, nil
}

func parseOneStart(v string, now time.Time) (Start, error) {
	v = strings.TrimSpace(v)
	switch strings.ToLower(v) {
	case "":
		return Start{}, errors.New("empty: give earliest, an offset ≥ 0, time:T or ago:D")
	case "earliest", "beginning", "start", "oldest":
		return Start{Kind: StartEarliest}, nil
	}
	if t, ok := strings.CutPrefix(v, "time:"); ok {
		tm, err := parseTimeArg(t)
		if err != nil {
			return Start{}, err
		}
		return Start{Kind: StartTime, Time: tm}, nil
	}
	if d, ok := strings.CutPrefix(v, "ago:"); ok {
		dur, err := parseAgoArg(d)
		if err != nil {
			return Start{}, err
		}
		return Start{Kind: StartTime, Time: agoTime(now, dur)}, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		// The value is named by the caller (the whole --from, or its
		// partition): naming it here echoed it twice.
		return Start{}, errors.New("want earliest, an offset ≥ 0, time:T or ago:D")
	}
	return Start{Kind: StartOffset, Offset: n}, nil
}

// parseTimeArg parses the T of time:T with the grammar reset shares
// (admin.ParseTime: Unix ms, RFC 3339, YYYY-MM-DD[THH:MM[:SS]] in UTC).
func parseTimeArg(s string) (time.Time, error) {
	ms, err := admin.ParseTime(s)
	if err != nil {
		return time.Time{}, err
	}
	return time.UnixMilli(ms).UTC(), nil
}

// parseAgoArg parses the D of ago:D with the grammar reset shares
// (admin.ParseDuration: 90s, 2h, 3d, 1d12h, PT90M, P1D; not negative).
// ago:0s is now, as for reset: --from ago:0s --follow tails from now.
func parseAgoArg(s string) (time.Duration, error) {
	return admin.ParseDuration(s)
}

// agoTime is now minus d, clamped to 1970 (a negative timestamp means
// latest or earliest to ListOffsets), as reset's ago: does.
func agoTime(now time.Time, d time.Duration) time.Time {
	t := now.Add(-d)
	if t.Before(time.UnixMilli(0)) || d > time.Duration(now.UnixNano()) {
		return time.UnixMilli(0).UTC()
	}
	return t
}

// Until is one --until bound: an exclusive end offset or time. The zero
// value is no bound of its own (stop at the end offset captured at start;
// none with --follow): the default, and a partition's "end" in a
// per-partition --until.
type Until struct {
	Set    bool
	IsTime bool
	Offset int64
	Time   time.Time
}

func (u Until) String() string {
	switch {
	case !u.Set:
		return "end"
	case u.IsTime:
		return "time:" + admin.FormatTime(u.Time)
	}
	return strconv.FormatInt(u.Offset, 10)
}

// ParseUntil parses --until: an offset N (exclusive), "time:T" or "ago:D"
// (records stamped before that time), "end" (the default bound), or a
// per-partition list "0=50,1=time:...,2=end" with the same forms as
// --from's. The empty string is no bound of its own.
func ParseUntil(s string, now time.Time) (UntilSpec, error) {
	s = strings.TrimSpace(s)
	if !strings.Contains(s, "=") {
		u, err := parseOneUntil(s, now)
		if err != nil {
			return UntilSpec{}, fmt.Errorf("%q: %w", s, err)
		}
		return UntilSpec{All: u}, nil
	}
	spec := UntilSpec{PerPartition: map[int32]Until{}}
	for _, item := range strings.Split(s, ",") {
		ps, v, ok := strings.Cut(strings.TrimSpace(item), "=")
		if !ok {
			return UntilSpec{}, fmt.Errorf("%q: %q is not PARTITION=END (give every partition an end, e.g. 0=50,2=time:2026-11-30T06:00:00Z)", s, item)
		}
		p, err := parsePartition(ps)
		if err != nil {
			return UntilSpec{}, fmt.Errorf("%q: %w", s, err)
		}
		if _, dup := spec.PerPartition[p]; dup {
			return UntilSpec{}, fmt.Errorf("%q: partition %d given twice", s, p)
		}
		if strings.TrimSpace(v) == "" {
			return UntilSpec{}, fmt.Errorf("%q: partition %d has no end (an offset, time:T, ago:D or end)", s, p)
		}
		u, err := parseOneUntil(v, now)
		if err != nil {
			return UntilSpec{}, fmt.Errorf("%q: partition %d: %w", s, p, err)
		}
		spec.PerPartition[p] = u
	}
	return spec, nil
}

func parseOneUntil(v string, now time.Time) (Until, error) {
	v = strings.TrimSpace(v)
	switch strings.ToLower(v) {
	case "", "end":
		return Until{}, nil
	}
	if t, ok := strings.CutPrefix(v, "time:"); ok {
		tm, err := parseTimeArg(t)
		if err != nil {
			return Until{}, err
		}
		return Until{Set: true, IsTime: true, Time: tm}, nil
	}
	if d, ok := strings.CutPrefix(v, "ago:"); ok {
		dur, err := parseAgoArg(d)
		if err != nil {
			return Until{}, err
		}
		return Until{Set: true, IsTime: true, Time: agoTime(now, dur)}, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return Until{}, fmt.Errorf("want an offset ≥ 0, time:T, ago:D or end")
	}
	return Until{Set: true, Offset: n}, nil
}

// ParsePartitions parses --partitions "0,2,5": sorted, deduplicated. The
// empty string is nil (every partition).
func ParsePartitions(s string) ([]int32, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	seen := map[int32]bool{}
	var out []int32
	fields := strings.Split(s, ",")
	for _, f := range fields {
		p, err := parsePartition(f)
		if err != nil && len(fields) == 1 {
			// One item is the whole value: name it once.
			return nil, fmt.Errorf("%q is not a non-negative integer", s)
		}
		if err != nil {
			return nil, fmt.Errorf("%q: %w", s, err)
		}
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out, nil
}

func parsePartition(f string) (int32, error) {
	f = strings.TrimSpace(f)
	p, err := strconv.ParseInt(f, 10, 32)
	if err != nil || p < 0 {
		return 0, fmt.Errorf("partition %q is not a non-negative integer", f)
	}
	return int32(p), nil
}

// FormatResume renders per-partition next offsets as a --from value
// ("0=120,2=300"), partitions in order.
func FormatResume(next map[int32]int64) string {
	ps := make([]int32, 0, len(next))
	for p := range next {
		ps = append(ps, p)
	}
	slices.Sort(ps)
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatInt(int64(p), 10))
		b.WriteByte('=')
		b.WriteString(strconv.FormatInt(next[p], 10))
	}
	return b.String()
}

// CheckTimeOrder refuses a range whose start and end are both times
// (time:T or ago:D) with the start after the end, for every partition or
// one of a per-partition --from/--until: no record is stamped at or after
// the start and before the end, and the replay read nothing and said
// "end" with the empty digest, exit 0, where --from 500 --until 100 is
// exit 2. It needs no cluster: both times are known once parsed (ago:
// against the same now). Every partition at fault is named in one error.
// A time against an offset is checked once resolved (MakePlan).
func CheckTimeOrder(from StartSpec, until UntilSpec) error {
	if from.PerPartition == nil && until.PerPartition == nil {
		if reversed(from.All, until.All) {
			return fmt.Errorf("--from %s is after --until %s: the range is reversed and holds no record; give --from the earlier time", from.All, until.All)
		}
		return nil
	}
	parts := map[int32]bool{}
	for _, p := range from.Partitions() {
		parts[p] = true
	}
	for _, p := range until.Partitions() {
		parts[p] = true
	}
	var bad []string
	for _, p := range slices.Sorted(maps.Keys(parts)) {
		// A partition one side does not name gets that side's zero
		// value, which is never a time: not reversed.
		st, _ := from.For(p)
		u, _ := until.For(p)
		if reversed(st, u) {
			bad = append(bad, fmt.Sprintf("partition %d: --from %s is after --until %s", p, st, u))
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return fmt.Errorf("%s: the range is reversed and holds no record; give --from the earlier time", textlist.Short(bad, maxNamed, "; "))
}

// reversed reports a start time after an end time.
func reversed(st Start, u Until) bool {
	return st.Kind == StartTime && u.Set && u.IsTime && st.Time.After(u.Time)
}
