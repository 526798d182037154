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
// (Burrow: the group is as bad as its worst partition). The reason names
// the deciding partitions (up to three, then a count) and the first one's
// reason.
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
		if len(g.Partitions) == 0 {
			return "no partitions"
		}
		return fmt.Sprintf("all %d partition(s) OK", len(g.Partitions))
	}
	names := make([]string, 0, maxNamed)
	for i, d := range g.Deciding {
		if i == maxNamed {
			names = append(names, fmt.Sprintf("and %d more", len(g.Deciding)-maxNamed))
			break
		}
		names = append(names, fmt.Sprintf("%s/%d", d.Topic, d.Partition))
	}
	return fmt.Sprintf("%s: %s", strings.Join(names, ", "), g.Deciding[0].Reason)
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
