package mirror

import (
	"fmt"
	"slices"
	"strings"

	"github.com/offsetctl/offsetctl/internal/lag"
)

// The statuses of a compared partition.
const (
	DiffSame   = "same"
	DiffDiffer = "differs"
	DiffOnlyA  = "only-a"
	DiffOnlyB  = "only-b"
)

// DiffRow is one group partition compared across two clusters.
type DiffRow struct {
	Group     string `json:"group"`
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	// A and B are the group's commits on the two clusters; Translated,
	// with --translate, the offset MM2 translated A's commit to on B.
	A          *int64 `json:"a_offset"`
	Translated *int64 `json:"translated_offset,omitempty"`
	B          *int64 `json:"b_offset"`
	Status     string `json:"status"`
	Note       string `json:"note,omitempty"`
}

// DiffResult is what a cross-cluster diff prints.
type DiffResult struct {
	A         string    `json:"a"`
	B         string    `json:"b"`
	Translate string    `json:"translate,omitempty"`
	Rows      []DiffRow `json:"rows"`
	// Differences counts the rows that are not the same.
	Differences int `json:"differences"`
}

// Compare sets the commits of groups on cluster a beside those on b, by
// topic name and partition.
func Compare(groups []string, a, b *lag.Snapshot) DiffResult {
	var res DiffResult
	for _, name := range groups {
		ca, ea := commitsOf(a, name)
		cb, eb := commitsOf(b, name)
		if ea != "" || eb != "" {
			res.add(DiffRow{Group: name, Partition: -1, Status: StatusError, Note: joinNote(ea, eb)})
			continue
		}
		var keys []lag.TP
		seen := map[lag.TP]bool{}
		for _, m := range []lag.PartitionMap[lag.Commit]{ca, cb} {
			m.Each(func(t string, p int32, _ lag.Commit) {
				if k := (lag.TP{Topic: t, Partition: p}); !seen[k] {
					seen[k] = true
					keys = append(keys, k)
				}
			})
		}
		slices.SortFunc(keys, lag.CompareTP)
		for _, k := range keys {
			r := DiffRow{Group: name, Topic: k.Topic, Partition: k.Partition, A: offsetOf(ca, k), B: offsetOf(cb, k)}
			switch {
			case r.A == nil:
				r.Status = DiffOnlyB
			case r.B == nil:
				r.Status = DiffOnlyA
			case *r.A == *r.B:
				r.Status = DiffSame
			default:
				r.Status = DiffDiffer
			}
			res.add(r)
		}
	}
	return res
}

// CompareTranslated sets B's commits beside MM2's translation of A's
// commits; A's commit now is shown on the source-side topic name (the
// B topic without alias's prefix under the default replication policy).
func CompareTranslated(a *lag.Snapshot, tr Result) DiffResult {
	res := DiffResult{Translate: tr.SourceAlias}
	for _, g := range tr.Groups {
		ca, ea := commitsOf(a, g.Group)
		if g.Error != "" || ea != "" {
			res.add(DiffRow{Group: g.Group, Partition: -1, Status: StatusError, Note: joinNote(ea, g.Error)})
			continue
		}
		for _, p := range g.Partitions {
			up := strings.TrimPrefix(p.Topic, tr.SourceAlias+".")
			r := DiffRow{Group: g.Group, Topic: p.Topic, Partition: p.Partition, Translated: p.TranslatedOffset, B: p.CurrentOffset,
				A: offsetOf(ca, lag.TP{Topic: up, Partition: p.Partition})}
			switch {
			case p.Status == StatusError:
				r.Status, r.Note = StatusError, p.Error
			case p.Status == StatusNotOnTarget:
				r.Status, r.Note = StatusNotOnTarget, p.Note
			case p.TranslatedOffset == nil:
				r.Status, r.Note = StatusNoCheckpoint, "no checkpoint"
			case p.CurrentOffset != nil && *p.CurrentOffset == *p.TranslatedOffset:
				r.Status = DiffSame
			default:
				r.Status = DiffDiffer
			}
			if r.A != nil && p.SourceOffset != nil && *r.A != *p.SourceOffset {
				r.Note = joinNote(r.Note, fmt.Sprintf("the commit on A moved since the checkpoint (checkpointed %d)", *p.SourceOffset))
			}
			if p.Stale {
				r.Note = joinNote(r.Note, "stale checkpoint")
			}
			res.add(r)
		}
	}
	return res
}

// Uncommitted are the groups with no commits (nor an error) on either
// cluster: a cluster diff of them compares nothing, which a DR drill
// must not read as "the same" (most often a typo, or a file name).
func Uncommitted(groups []string, a, b *lag.Snapshot) []string {
	var out []string
	for _, name := range groups {
		ca, ea := commitsOf(a, name)
		cb, eb := commitsOf(b, name)
		if ea == "" && eb == "" && ca.Len() == 0 && cb.Len() == 0 {
			out = append(out, name)
		}
	}
	return out
}

func (d *DiffResult) add(r DiffRow) {
	d.Rows = append(d.Rows, r)
	if r.Status != DiffSame {
		d.Differences++
	}
}

func commitsOf(s *lag.Snapshot, group string) (lag.PartitionMap[lag.Commit], string) {
	g, ok := s.Group(group)
	if !ok {
		return nil, ""
	}
	if err := firstErr(g.Err, g.CommitErr); err != nil {
		return nil, err.Error()
	}
	return g.Commits, ""
}

func offsetOf(m lag.PartitionMap[lag.Commit], k lag.TP) *int64 {
	c, ok := m.Lookup(k.Topic, k.Partition)
	if !ok || c.Err != nil {
		return nil
	}
	return ptr(c.Offset)
}
