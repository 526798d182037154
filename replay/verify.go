package replay

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/offsetctl/offsetctl/internal/exitcode"
	"github.com/offsetctl/offsetctl/internal/safetext"
)

// The statuses of a proof row.
const (
	// StatusUnchanged: the committed offset is the same before and after.
	StatusUnchanged = "unchanged"
	// StatusMovedByConsumers: it changed, and the group had live members
	// at one of the snapshots: its own consumers moved it.
	StatusMovedByConsumers = "moved-by-group-consumers"
	// StatusChanged: it changed in a group with no live member. The
	// replay cannot prove it did not cause it: exit 3.
	StatusChanged = "CHANGED"
	// StatusBackfillPosition marks the rows of the exactly-once
	// backfill's own position group: its progress, not a change.
	StatusBackfillPosition = "backfill-position"
)

// Change is one group-partition of the proof: the committed offset before
// and after the replay (nil: no commit).
type Change struct {
	Group     string `json:"group"`
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Before    *int64 `json:"before"`
	After     *int64 `json:"after"`
	Status    string `json:"status"`
	// Members is the largest live-member count of the group seen at
	// either snapshot.
	Members int `json:"members"`
}

// Verification is the proof that the replay moved no committed offset.
type Verification struct {
	// Skipped is set when verification was turned off.
	Skipped bool `json:"skipped,omitempty"`
	// Error says why the proof could not be taken (then nothing is
	// proven).
	Error string `json:"error,omitempty"`
	// GroupsChecked counts the groups compared (those with commits on the
	// topic at either snapshot, or the --verify-groups list).
	GroupsChecked int      `json:"groups_checked"`
	Groups        []string `json:"groups"`
	// Unchanged is true when every compared committed offset is the same
	// before and after.
	Unchanged bool `json:"unchanged"`
	// Changes lists the rows that are not unchanged.
	Changes []Change `json:"changes"`
	// Rows is the whole proof table, one row per group and partition.
	Rows []Change `json:"rows"`
	// BackfillGroup names the exactly-once backfill's own position
	// group when it has commits on the topic: its rows (status
	// StatusBackfillPosition) are the backfill's progress, not a change.
	BackfillGroup string `json:"backfill_group,omitempty"`
}

// Failed lists the changes the replay cannot account for (groups with no
// live member).
func (v Verification) Failed() []Change {
	var out []Change
	for _, c := range v.Changes {
		if c.Status == StatusChanged {
			out = append(out, c)
		}
	}
	return out
}

// groupState is one group as seen by a proof snapshot.
type groupState struct {
	members int
	commits map[int32]int64
}

// proofSnapshot maps group → state, for the groups with commits on the
// topic (or the named groups).
type proofSnapshot map[string]groupState

// namedWithoutCommits lists (sorted, deduplicated) the named groups that
// have no commit on the topic in snap: a group that does not exist, a
// typo, or one that never committed on this topic. Proving such a group
// "unchanged" would prove nothing.
func namedWithoutCommits(snap proofSnapshot, named []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, g := range named {
		if seen[g] {
			continue
		}
		seen[g] = true
		if len(snap[g].commits) == 0 {
			out = append(out, g)
		}
	}
	sort.Strings(out)
	return out
}

// noCommitsError is the exit-2 error for named groups without commits.
func noCommitsError(topic string, groups []string) error {
	what := "group " + groups[0] + " has"
	if len(groups) > 1 {
		what = "groups " + strings.Join(groups, ", ") + " have"
	}
	return exitcode.Usagef("--verify-groups: %s no commits on topic %s (no such group, or it never committed on %s): nothing to compare", what, topic, topic)
}

// compareSnapshots builds the proof table: every group and partition with
// a commit in either snapshot, sorted by group then partition.
//
// own is the backfill's own position group (PositionGroup), "" for none:
// its commits move by design, so its rows are named (StatusBackfillPosition)
// and never count as a change made by the replay.
func compareSnapshots(topic string, before, after proofSnapshot, named []string, own string) Verification {
	v := Verification{Unchanged: true, Changes: []Change{}, Rows: []Change{}, Groups: []string{}}
	if _, ok := before[own]; ok || after[own].commits != nil {
		v.BackfillGroup = own
	}
	set := map[string]bool{}
	for g := range before {
		set[g] = true
	}
	for g := range after {
		set[g] = true
	}
	for _, g := range named {
		set[g] = true
	}
	for g := range set {
		v.Groups = append(v.Groups, g)
	}
	sort.Strings(v.Groups)
	v.GroupsChecked = len(v.Groups)
	for _, g := range v.Groups {
		b, a := before[g], after[g]
		members := max(b.members, a.members)
		ps := slices.Sorted(maps.Keys(b.commits))
		for p := range a.commits {
			if _, ok := b.commits[p]; !ok {
				ps = append(ps, p)
			}
		}
		slices.Sort(ps)
		for _, p := range ps {
			row := Change{Group: g, Topic: topic, Partition: p, Status: StatusUnchanged, Members: members}
			if o, ok := b.commits[p]; ok {
				row.Before = &o
			}
			if o, ok := a.commits[p]; ok {
				row.After = &o
			}
			if g == own && own != "" {
				row.Status = StatusBackfillPosition
				v.Rows = append(v.Rows, row)
				continue
			}
			if !sameOffset(row.Before, row.After) {
				v.Unchanged = false
				if members > 0 {
					row.Status = StatusMovedByConsumers
				} else {
					row.Status = StatusChanged
				}
				v.Changes = append(v.Changes, row)
			}
			v.Rows = append(v.Rows, row)
		}
	}
	return v
}

func sameOffset(a, b *int64) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

// describeFailed renders the unexplained changes for an error message.
func describeFailed(cs []Change) string {
	parts := make([]string, 0, len(cs))
	for _, c := range cs {
		parts = append(parts, fmt.Sprintf("group %s topic %s partition %d: %s -> %s", safetext.Arg(c.Group), c.Topic, c.Partition, optOffset(c.Before), optOffset(c.After)))
	}
	return strings.Join(parts, "; ")
}

func optOffset(v *int64) string {
	if v == nil {
		return "none"
	}
	return fmt.Sprint(*v)
}
