package exporter

import (
	"strconv"
	"time"

	"github.com/offsetctl/offsetctl/internal/health"
	"github.com/offsetctl/offsetctl/internal/lag"
)

// Health statuses (issue 23, docs/health.md): with Options.Status the
// exporter judges every group from its own rounds, the committed offset
// and log end each gather already reads (no extra request), kept over
// Options.StatusWindow. They are samples, not commits: a consumer that
// commits the same offset again looks like one that commits nothing, so
// from rounds an offset that does not move under lag is STOP, never STALL
// (health.Partition.Sampled).

var (
	famGroupStatus = &family{"kafka_consumergroup_status",
		"1 for a consumer group's current health status (OK, WARN, REWIND, STALL or STOP, its worst partition's, judged from the exporter's rounds over --status-window as Burrow does; docs/health.md), 0 for the others. Absent until --status is set, and while the group is PENDING (a partition with lag seen in one round only).", []string{"consumergroup", "status"}}
	famPartitionStatus = &family{"kafka_consumergroup_partition_status",
		"1 for a group-partition's current health status, 0 for the others (--status-partitions); absent while PENDING.", []string{"consumergroup", "partition", "status", "topic"}}
)

// statusOptions are a judgement's inputs besides the round's rows.
type statusOptions struct {
	explain health.Explainer
	// real: the commits are the group's real ones (the offsets topic),
	// commits their history by partition; else the rounds' committed
	// offsets are samples of them (health.Partition.Sampled).
	real    bool
	commits map[health.Key][]health.Commit
}

// judgeStatus adds this round's rows of g to the history (health.Rounds,
// shared with lag --watch --status) and writes the judgement into next
// (g's state this round): the group's status and each row's. A row whose
// read failed keeps its observations and its last status (carried,
// stale); a partition no longer read is forgotten. A partition with lag
// seen in one round only is health.Pending, as in lag --watch --status:
// it has no status series until its second round, and neither has its
// group while no partition is judged worse than OK (writeStatus). With
// commits (the offsets topic), the rows are judged from the group's real
// commits (JudgeCommits: never pending), the rounds giving the log ends.
func judgeStatus(h *health.Rounds, g lag.GroupLag, next *groupState, now time.Time, o statusOptions) {
	if next == nil || g.Error != "" {
		return // carried whole, status included
	}
	h.Add(g, now)
	var rs health.RoundsStatus
	if o.real {
		rs = h.JudgeCommits(g, now, o.explain, o.commits)
	} else {
		rs = h.Judge(g, now, o.explain)
	}
	gs := rs.GroupStatus
	pending := make(map[health.Key]bool, len(rs.Pending))
	for _, k := range rs.Pending {
		pending[k] = true
	}
	next.status, next.judged = gs.Status, true
	next.eachTopic(func(topic string, rows []rowState) {
		for i := range rows {
			switch r, ok := gs.Lookup(topic, rows[i].partition); {
			case rows[i].stale:
				if rows[i].status != statusPending {
					next.status = max(next.status, health.Status(rows[i].status))
				}
			case pending[health.Key{Topic: topic, Partition: rows[i].partition}]:
				rows[i].status = statusPending
			case ok:
				rows[i].status = uint8(r.Status)
			}
		}
	})
	next.pending = len(rs.Pending) > 0 && next.status == health.OK
}

// statusPending is the status of a row not judged yet (health.Pending):
// no series is written for it.
const statusPending = uint8(255)

// writeStatus writes group name's status lines of f: one series per
// status, 1 for the current one (the kube-state-metrics way, so an alert
// is `kafka_consumergroup_status{status="STOP"} == 1`).
func writeStatus(pw *pageWriter, f *family, name string, g *groupState, partitions bool) {
	if !g.judged {
		return
	}
	switch f {
	case famGroupStatus:
		if g.pending {
			return
		}
		for _, s := range health.Statuses() {
			pw.add(b2f(s == g.status), name, s.String())
		}
	case famPartitionStatus:
		if !partitions {
			return
		}
		g.eachTopic(func(topic string, rows []rowState) {
			for _, r := range rows {
				if r.status == statusPending {
					continue
				}
				part := strconv.Itoa(int(r.partition))
				for _, s := range health.Statuses() {
					pw.add(b2f(uint8(s) == r.status), name, part, s.String(), topic)
				}
			}
		})
	}
}
