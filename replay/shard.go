package replay

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/offsetctl/offsetctl/internal/exitcode"
	"github.com/offsetctl/offsetctl/internal/safetext"
)

// MaxShards bounds N in --shard I/N: far above any topic's partition count
// worth sharding (Kafka's own guidance stays in the thousands per broker),
// low enough that a typo (--shard 0/30000000) is caught.
const MaxShards = 100_000

// Shard is one share of a sharded replay: Index of Count, 0-based (as
// Kubernetes' JOB_COMPLETION_INDEX, so `--shard "$JOB_COMPLETION_INDEX/3"`
// works as is).
//
// The assignment rule: partition p of the replayed topic belongs to shard
// p mod Count. A replay reads one topic, so the rule is per topic-partition:
// (topic, p) goes to shard p mod Count; with --partitions (or a
// per-partition --from/--until) the shard takes the selected partitions it
// owns. It depends on the partition number only, so every shard computes the
// same cut with no coordination, and a partition added later goes to a
// known shard.
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// String is "I/N".
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Owns reports whether partition p belongs to this shard.
func (s Shard) Owns(p int32) bool { return int(p)%s.Count == s.Index }

// ParseShard parses --shard "I/N": 0 ≤ I < N ≤ MaxShards. The error names
// the value (cut) and what is wanted; the caller adds the flag.
func ParseShard(v string) (Shard, error) {
	shown := safetext.Arg(cut(v, 40))
	i, n, ok := strings.Cut(strings.TrimSpace(v), "/")
	if !ok {
		return Shard{}, fmt.Errorf("%s: want I/N, the 0-based shard index and the number of shards (e.g. 0/3, or \"$JOB_COMPLETION_INDEX/3\")", shown)
	}
	if strings.TrimSpace(i) == "" {
		return Shard{}, fmt.Errorf("%s: the index before / is empty (with \"$JOB_COMPLETION_INDEX/N\": is JOB_COMPLETION_INDEX set? Kubernetes sets it in an Indexed Job)", shown)
	}
	idx, err1 := strconv.Atoi(strings.TrimSpace(i))
	cnt, err2 := strconv.Atoi(strings.TrimSpace(n))
	switch {
	case err1 != nil || err2 != nil || strings.HasPrefix(strings.TrimSpace(i), "+") || strings.HasPrefix(strings.TrimSpace(n), "+"):
		return Shard{}, fmt.Errorf("%s: want I/N with two whole numbers (e.g. 0/3)", shown)
	case cnt < 1 || cnt > MaxShards:
		return Shard{}, fmt.Errorf("%s: the number of shards must be 1 to %d", shown, MaxShards)
	case idx < 0 || idx >= cnt:
		return Shard{}, fmt.Errorf("%s: the index is 0-based: want 0 to %d for %d shards", shown, cnt-1, cnt)
	}
	return Shard{Index: idx, Count: cnt}, nil
}

// cut shortens s to at most n bytes for an error message.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// ShardInfo says which share of the range a sharded replay covered
// (Result.Shard, and the shard digest file).
type ShardInfo struct {
	Shard
	// Selected is every partition the unsharded replay would read (all
	// of the topic's, or those of --partitions).
	Selected []int32 `json:"selected"`
	// Partitions is this shard's share of Selected.
	Partitions []int32 `json:"partitions"`
}

// ShardPlan keeps the partitions of plan that s owns: a pure step between
// MakePlan and consuming. The plan's selection (before the cut) is
// returned with the shard's share.
func ShardPlan(plan Plan, s Shard) (Plan, ShardInfo) {
	info := ShardInfo{Shard: s, Selected: []int32{}, Partitions: []int32{}}
	kept := make([]PartitionPlan, 0, len(plan.Partitions)/s.Count+1)
	for _, pp := range plan.Partitions {
		info.Selected = append(info.Selected, pp.Partition)
		if s.Owns(pp.Partition) {
			kept = append(kept, pp)
			info.Partitions = append(info.Partitions, pp.Partition)
		}
	}
	plan.Partitions = kept
	slices.Sort(info.Selected)
	slices.Sort(info.Partitions)
	return plan, info
}

// checkShard refuses a Shard that ParseShard would not give (a Go caller
// may build one): Count 0 would divide by zero.
func checkShard(s *Shard) error {
	if s == nil {
		return nil
	}
	if s.Count < 1 || s.Count > MaxShards || s.Index < 0 || s.Index >= s.Count {
		return exitcode.Usagef("shard %d/%d: want 0 ≤ I < N ≤ %d", s.Index, s.Count, MaxShards)
	}
	return nil
}
