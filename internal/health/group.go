package health

import (
	"fmt"
	"strings"
)

// PartitionStatus is one partition's judgement.
type PartitionStatus struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Result
}

// GroupStatus is a group's judgement: its worst partition's status, and
// the partitions that decided it.
type GroupStatus struct {
	Group      string
	Status     Status
	Reason     string
	Deciding   []PartitionStatus
	Partitions []PartitionStatus
}

// maxNamed bounds how many deciding partitions a group's reason names.
const maxNamed = 3

// EvaluateGroup judges every partition of a group and takes the worst
// (Burrow: the group is as bad as its worst partition). The reason is the
// first deciding partition's, then names the other deciding ones (up to
// two more, then a count).
func EvaluateGroup(group string, ps []Partition, o Options) GroupStatus {
	g := GroupStatus{Group: group, Status: OK}
	if explain := o.Explain; explain != nil {
		o.Explain = func(r Rewind) (string, bool) {
			r.Group = group
			return explain(r)
		}
	}
	for _, p := range ps {
		r := PartitionStatus{Topic: p.Topic, Partition: p.Partition, Result: Evaluate(p, o)}
		g.Partitions = append(g.Partitions, r)
		switch {
		case r.Status > g.Status:
			g.Status, g.Deciding = r.Status, []PartitionStatus{r}
		case r.Status == g.Status && r.Status != OK:
			g.Deciding = append(g.Deciding, r)
		}
	}
	g.Reason = groupReason(g)
	return g
}

func groupReason(g GroupStatus) string {
	if len(g.Deciding) == 0 {
		none := 0
		for _, p := range g.Partitions {
			if p.Reason == NoCommit {
				none++
			}
		}
		switch {
		case len(g.Partitions) == 0:
			return "no partitions"
		case none == len(g.Partitions):
			return fmt.Sprintf("no committed partitions (%d without a commit to judge)", none)
		case none > 0:
			return fmt.Sprintf("all %d partition(s) OK (%d without a commit to judge)", len(g.Partitions), none)
		}
		return fmt.Sprintf("all %d partition(s) OK", len(g.Partitions))
	}
	// The first deciding partition with its own reason, then the others
	// only named: their numbers differ, so they must not read as sharing
	// the first one's.
	d := g.Deciding[0]
	reason := fmt.Sprintf("%s/%d: %s", d.Topic, d.Partition, d.Reason)
	if len(g.Deciding) == 1 {
		return reason
	}
	names := make([]string, 0, maxNamed)
	for i, o := range g.Deciding[1:] {
		if i == maxNamed-1 {
			names = append(names, fmt.Sprintf("%d more", len(g.Deciding)-maxNamed))
			break
		}
		names = append(names, fmt.Sprintf("%s/%d", o.Topic, o.Partition))
	}
	return fmt.Sprintf("%s; also %s: %s", reason, g.Status, strings.Join(names, ", "))
}

// Lookup is the status of one partition of the group, false when the
// group has no such partition.
func (g GroupStatus) Lookup(topic string, partition int32) (PartitionStatus, bool) {
	for _, p := range g.Partitions {
		if p.Topic == topic && p.Partition == partition {
			return p, true
		}
	}
	return PartitionStatus{}, false
}
