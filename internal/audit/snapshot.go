package audit

import (
	"fmt"
	"sort"

	"github.com/offsetctl/offsetctl/internal/admin"
	"github.com/offsetctl/offsetctl/internal/lag"
)

// SnapshotGroups turns gathered groups into a snapshot in the backup
// format: per group its committed offsets, and a no-commit row for every
// other partition of the topics it has commits on, so that restoring the
// snapshot also removes a commit made later on such a partition. Groups
// that do not exist are listed in missing; a group whose commits could
// not be read is an error (a snapshot with a hole would restore wrongly).
// It does no I/O.
func SnapshotGroups(s *lag.Snapshot, names []string) (out []admin.BackupGroup, missing []string, err error) {
	for _, name := range names {
		g, ok := s.Group(name)
		if !ok || !g.Exists {
			missing = append(missing, name)
			continue
		}
		if g.CommitErr != nil {
			return nil, nil, fmt.Errorf("group %s: reading its offsets: %w", name, g.CommitErr)
		}
		// Marked as share groups' backups are (see admin.ShareMarker).
		bg := admin.BackupGroup{Group: name, Share: g.IsShare()}
		for t, ps := range g.Commits {
			for p, c := range ps {
				if c.Err != nil {
					return nil, nil, fmt.Errorf("group %s topic %s partition %d: %w", name, t, p, c.Err)
				}
				bg.Rows = append(bg.Rows, admin.PlanRow{Group: name, Topic: t, Partition: p, Offset: c.Offset})
			}
			for p := range s.Offsets.Partitions[t] {
				if _, has := ps[p]; !has {
					bg.Rows = append(bg.Rows, admin.PlanRow{Group: name, Topic: t, Partition: p, NoCommit: true})
				}
			}
		}
		sort.Slice(bg.Rows, func(i, j int) bool {
			a, b := bg.Rows[i], bg.Rows[j]
			if a.Topic != b.Topic {
				return a.Topic < b.Topic
			}
			return a.Partition < b.Partition
		})
		out = append(out, bg)
	}
	return out, missing, nil
}
