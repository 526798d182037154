package audit

import (
	"sort"

	"github.com/offsetctl/offsetctl/internal/admin"
)

// State is the committed offsets of a set of groups: group → topic →
// partition → offset, nil for a partition known to have no commit (a
// backup's no-commit marker). A group present with no partitions exists
// with no commits.
type State map[string]map[string]map[int32]*int64

// Set records group's offset (nil: no commit) on topic/partition.
func (s State) Set(group, topic string, p int32, off *int64) {
	g := s[group]
	if g == nil {
		g = map[string]map[int32]*int64{}
		s[group] = g
	}
	if topic == "" {
		return
	}
	if g[topic] == nil {
		g[topic] = map[int32]*int64{}
	}
	g[topic][p] = off
}

// StateOfPlan reads a backup or snapshot file: each backed-up group (a
// backup marker) is present even without rows, committed rows carry their
// offset and no-commit rows nil.
func StateOfPlan(pf admin.PlanFile) State {
	s := State{}
	for g := range pf.Backups {
		s.Set(g, "", 0, nil)
	}
	for _, r := range pf.Rows {
		var off *int64
		if !r.NoCommit {
			o := r.Offset
			off = &o
		}
		s.Set(r.Group, r.Topic, r.Partition, off)
	}
	return s
}

// GroupDiff is how a group differs between two states.
type GroupDiff struct {
	// Appeared and Vanished list the groups in only one state.
	Appeared []string `json:"appeared"`
	Vanished []string `json:"vanished"`
}

// DiffRow is one partition that differs, with its delta (after - before,
// nil when either side has no commit).
type DiffRow struct {
	Change
	Delta *int64 `json:"delta"`
}

// Diff lists the partitions whose committed offset differs between before
// and after, sorted by group, topic and partition. A partition missing
// from one side counts as no commit there. It does no I/O.
func Diff(before, after State) []Change {
	var out []Change
	groups := map[string]bool{}
	for g := range before {
		groups[g] = true
	}
	for g := range after {
		groups[g] = true
	}
	for g := range groups {
		seen := map[string]map[int32]bool{}
		visit := func(topic string, p int32) {
			if seen[topic] == nil {
				seen[topic] = map[int32]bool{}
			}
			if seen[topic][p] {
				return
			}
			seen[topic][p] = true
			b, a := before[g][topic][p], after[g][topic][p]
			if !sameOffset(b, a) {
				out = append(out, Change{Group: g, Topic: topic, Partition: p, Before: b, After: a})
			}
		}
		for _, st := range []State{before, after} {
			for t, ps := range st[g] {
				for p := range ps {
					visit(t, p)
				}
			}
		}
	}
	SortChanges(out)
	return out
}

// Groups lists the groups present in only one of the states, sorted.
func Groups(before, after State) GroupDiff {
	d := GroupDiff{Appeared: []string{}, Vanished: []string{}}
	for g := range after {
		if _, ok := before[g]; !ok {
			d.Appeared = append(d.Appeared, g)
		}
	}
	for g := range before {
		if _, ok := after[g]; !ok {
			d.Vanished = append(d.Vanished, g)
		}
	}
	sort.Strings(d.Appeared)
	sort.Strings(d.Vanished)
	return d
}

// Rows adds each change's delta.
func Rows(changes []Change) []DiffRow {
	out := make([]DiffRow, len(changes))
	for i, c := range changes {
		out[i] = DiffRow{Change: c}
		if c.Before != nil && c.After != nil {
			d := *c.After - *c.Before
			out[i].Delta = &d
		}
	}
	return out
}

// SortChanges sorts by group, topic, partition.
func SortChanges(cs []Change) {
	sort.Slice(cs, func(i, j int) bool {
		a, b := cs[i], cs[j]
		if a.Group != b.Group {
			return a.Group < b.Group
		}
		if a.Topic != b.Topic {
			return a.Topic < b.Topic
		}
		return a.Partition < b.Partition
	})
}

func sameOffset(a, b *int64) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}
