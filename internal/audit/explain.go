package audit

import (
	"fmt"
	"time"

	"github.com/offsetctl/offsetctl/internal/health"
)

// auditSlack is how far a commit's timestamp (the coordinator's clock)
// may be from the audit entry's time (the offsetctl host's, taken before
// the commit) and still be that entry's commit.
const auditSlack = 5 * time.Second

// RewindExplainer explains (for `lag --status`, internal/health) a rewind
// on the cluster whose id is clusterID by an offsetctl reset or undo in the
// audit log: an entry (joined, not refused or failed) recorded on that
// cluster that set the group's partition to the offset it went back to,
// from shortly before the previous commit to shortly after the rewind.
// Changes kept in a sidecar file (more than MaxInlineChanges) are not read.
//
// Only an entry that records the same cluster id explains a rewind: two
// clusters with the same group and topic names (a DR pair, staging and
// production) are told apart by their ids alone, and a reset on one must
// never hide a consumer's rewind on the other. An entry without an id
// (older logs; its cluster did not answer then) explains nothing, and
// nothing does when clusterID is unknown (""): an unexplained rewind is a
// REWIND to look at, an explained one is hidden for good.
func RewindExplainer(entries []Entry, clusterID string) health.Explainer {
	var joined []Entry
	if clusterID != "" {
		for _, e := range Join(entries) {
			if e.ClusterID == clusterID {
				joined = append(joined, e)
			}
		}
	}
	return func(r health.Rewind) (string, bool) {
		for i := len(joined) - 1; i >= 0; i-- {
			e := joined[i]
			if !explains(e, r) {
				continue
			}
			return fmt.Sprintf("offsetctl %s (audit %s, %s)", e.Action, e.ID, e.Outcome), true
		}
		return "", false
	}
}

func explains(e Entry, r health.Rewind) bool {
	if e.Action != ActReset && e.Action != ActUndo {
		return false
	}
	if e.Outcome == Refused || e.Outcome == Failed {
		return false
	}
	if e.Time.Before(r.From.Time.Add(-auditSlack)) || e.Time.After(r.To.Time.Add(auditSlack)) {
		return false
	}
	for _, c := range e.Changes {
		if c.Group == r.Group && c.Topic == r.Topic && c.Partition == r.Partition && c.Error == "" && c.After != nil && *c.After == r.To.Offset {
			return true
		}
	}
	return false
}
