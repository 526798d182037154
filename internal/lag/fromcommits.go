package lag

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/offsetctl/offsetctl/internal/cluster"
)

// CommitRow is one committed offset of a group, as a caller that knows the
// commits hands it to StreamLagFromCommits: no map per group.
type CommitRow struct {
	Topic     string
	Partition int32
	Offset    int64
}

// StreamLagFromCommits is StreamLag for a caller that knows the groups'
// committed offsets already (the exporter's --commit-source offsets-topic,
// which tails __consumer_offsets): ListGroups (one request per broker)
// selects the groups and gives their type and state; commits hands over
// the committed offsets of the selected groups (a group it leaves out has
// none; the rows in any order, one per partition; StreamLagFromCommits
// may reorder them); then one listing of the log offsets of every topic
// committed on (one ListOffsets per broker and bound), and no
// DescribeGroups or OffsetFetch at all. The groups have no members
// (nothing describes them). The batches are StreamLag's, sharing the one
// listing, with this difference: their snapshots' groups carry no Commits
// (the report's rows have them), as building a map per group was most of
// a round at 500 groups x 1,000 partitions (bench/exporter_tail.md); and
// the rows of a batch's report (its groups' Partitions and what their
// pointers point to) are valid only until each returns: the next batch
// writes its rows over them (batchRows). A share group (KIP-932) is the
// exception to "no OffsetFetch": its start offsets are kept by the share
// coordinator, not in __consumer_offsets, so they are asked as lag asks
// them (FetchShareCommits: one DescribeShareGroupOffsets per coordinator,
// only when a selected group is a share group) and its snapshot carries
// them as Commits; commits is not asked about it.
func StreamLagFromCommits(ctx context.Context, adm *cluster.Admin, req GatherRequest, o LagOptions,
	commits func(groups []string) map[string][]CommitRow, each func(context.Context, LagBatch) error) error {
	listed, err := ListGroups(ctx, adm)
	if err != nil {
		return ctxErr(ctx, err)
	}
	groups := SelectGroups(listed, req)
	slices.Sort(groups)
	consumer, share := splitShare(groups, listed)
	known := commits(consumer)
	shared := FetchShareCommits(ctx, adm, share)
	snaps := make([]GroupSnapshot, len(groups))
	rows := make([][]CommitRow, len(groups))
	topicSet := map[string]bool{}
	for i, g := range groups {
		gs := GroupSnapshot{GroupInfo: descriptions{}.info(g, listed)}
		if lg, ok := listed[g]; ok {
			gs.Coordinator = lg.Coordinator // the broker that answered ListGroups for it
		}
		if sc, ok := shared[g]; ok {
			gs.Commits, gs.CommitErr, gs.NoStart = sc.Commits, sc.CommitErr, sc.NoStart
			eachShareTopic(gs, o.Scope, func(t string) { topicSet[t] = true })
			snaps[i] = gs
			continue
		}
		all := sortRows(known[g])
		rows[i] = inScope(all, o.Scope)
		if !gs.Exists && len(all) > 0 { // as gatherListed: committed, so it exists
			gs.Exists, gs.Type, gs.State = true, "classic", "Empty"
		}
		eachTopic(all, o.Scope, func(t string) { topicSet[t] = true })
		snaps[i] = gs
	}
	list := ListOffsets
	if req.NoLeaderWait {
		list = listOffsetsOnce
	}
	offs, err := list(ctx, adm, slices.Sorted(maps.Keys(topicSet)), req.Isolation)
	if err != nil {
		return ctxErr(ctx, err)
	}
	at := time.Now()
	buf := newBatchRows(rows)
	for i := 0; i == 0 || i < len(snaps); i += LagBatchGroups {
		end := min(i+LagBatchGroups, len(snaps))
		snap := &Snapshot{Groups: snaps[i:end], Offsets: offsetsOf(offs, snaps[i:end], known, o.Scope), Isolation: req.Isolation, At: at}
		rep := LagReport{Isolation: snap.Isolation.String(), AssumeReset: string(o.AssumeReset), Groups: []GroupLag{}}
		buf.reset()
		for j, g := range snap.Groups {
			rep.Groups = append(rep.Groups, groupLagFromRows(snap, g, known[g.Group], rows[i+j], o, buf))
		}
		if err := each(ctx, LagBatch{Snapshot: snap, Report: rep}); err != nil {
			return err
		}
	}
	return nil
}

// sortRows sorts rows by topic and partition, in place.
func sortRows(rows []CommitRow) []CommitRow {
	if !placeDense(rows) {
		slices.SortFunc(rows, compareRows)
	}
	return rows
}

// placeDense sorts rows in place in one pass when they are one topic's
// partitions 0 to len(rows)-1 (a group consuming the whole of one topic:
// the usual case), each row swapped to its partition's index, and reports
// whether it did; otherwise rows are left in some order for the caller to
// sort.
func placeDense(rows []CommitRow) bool {
	placed := true // every row at its partition's index already (the tail's rows of a dense topic are)
	for i, r := range rows {
		if r.Topic != rows[0].Topic || r.Partition < 0 || int(r.Partition) >= len(rows) {
			return false
		}
		placed = placed && int(r.Partition) == i
	}
	if placed {
		return true
	}
	for i := range rows {
		for p := rows[i].Partition; int(p) != i; p = rows[i].Partition {
			if rows[p].Partition == p {
				return false // two rows of one partition
			}
			rows[i], rows[p] = rows[p], rows[i]
		}
	}
	return true
}

// compareRows orders rows by topic, then partition. The topics of a
// group's rows are mostly one (the same string, whose equality is one
// pointer compare), so they are compared for equality first.
func compareRows(a, b CommitRow) int {
	if a.Topic != b.Topic {
		return strings.Compare(a.Topic, b.Topic)
	}
	return cmp.Compare(a.Partition, b.Partition)
}

// inScope is the rows in scope: rows itself for an empty scope, else a
// copy (rows stays whole).
func inScope(rows []CommitRow, scope Scope) []CommitRow {
	if scope.Empty() {
		return rows
	}
	var out []CommitRow
	for _, r := range rows {
		if scope.Has(r.Topic, r.Partition) {
			out = append(out, r)
		}
	}
	return out
}

// eachTopic calls fn with each topic of rows (sorted) that has a
// partition in scope, once. Rows whose first and last topic are one are
// that topic's alone (a group consuming one topic: the usual case), and
// not read one by one.
func eachTopic(rows []CommitRow, scope Scope, fn func(topic string)) {
	if n := len(rows); n > 0 && rows[0].Topic == rows[n-1].Topic {
		rows = rows[:1]
	}
	for i, r := range rows {
		if (i == 0 || rows[i-1].Topic != r.Topic) && scope.HasTopic(r.Topic) {
			fn(r.Topic)
		}
	}
}

// batchRows lends the rows of one batch's report from arrays that every
// batch of a StreamLagFromCommits writes again: 500 groups x 1,000
// partitions made 500,000 new PartitionLag rows (88 MB) a round, and
// zeroing them and the GC's work on them were most of the round's CPU
// (bench/exporter_tail.md). It also holds the batch's topics' offsets by
// partition (offsetsByPartition), a slice index per row, not a map lookup.
type batchRows struct {
	rows  []PartitionLag
	vals  []int64 // two per row: its committed offset and its lag
	used  int     // rows lent this batch
	dense map[string][]PartitionOffsets
}

// newBatchRows has room for the rows of the largest batch of groups (by
// group, in batch order, LagBatchGroups to a batch).
func newBatchRows(rows [][]CommitRow) *batchRows {
	most, n := 0, 0
	for i, r := range rows {
		if i%LagBatchGroups == 0 { // a batch's first group
			n = 0
		}
		n += len(r)
		most = max(most, n)
	}
	return &batchRows{rows: make([]PartitionLag, most), vals: make([]int64, 2*most), dense: map[string][]PartitionOffsets{}}
}

// reset starts a batch: its rows are lent again from the start.
func (b *batchRows) reset() {
	b.used = 0
	clear(b.dense)
}

// take lends n rows (length 0, capacity n) and their 2n values: new
// arrays without b, or when b has no room left.
func (b *batchRows) take(n int) ([]PartitionLag, []int64) {
	if b == nil || b.used+n > len(b.rows) {
		return make([]PartitionLag, 0, n), make([]int64, 2*n)
	}
	rows, vals := b.rows[b.used:b.used:b.used+n], b.vals[2*b.used:2*(b.used+n)]
	b.used += n
	return rows, vals
}

// offsetsByPartition is parts (one topic's listed offsets) as a slice
// indexed by partition when its partitions are 0 to len(parts)-1, as a
// topic's are; nil otherwise (and without b), for parts to be looked up.
// Made once per topic and batch.
func (b *batchRows) offsetsByPartition(topic string, parts map[int32]PartitionOffsets) []PartitionOffsets {
	if b == nil {
		return nil
	}
	if d, ok := b.dense[topic]; ok {
		return d
	}
	d := make([]PartitionOffsets, len(parts))
	for p, po := range parts {
		if p < 0 || int(p) >= len(d) {
			b.dense[topic] = nil
			return nil
		}
		d[p] = po
	}
	b.dense[topic] = d
	return d
}

// partitionOffsets is partition's offsets, from dense when it is there
// (offsetsByPartition), else from parts.
func partitionOffsets(dense []PartitionOffsets, parts map[int32]PartitionOffsets, partition int32) (PartitionOffsets, bool) {
	if partition >= 0 && int(partition) < len(dense) {
		return dense[partition], true
	}
	po, ok := parts[partition]
	return po, ok
}

// groupLagFromRows is computeGroupLag for a group known by its commit
// rows (in scope, sorted): the same report, built without a map per
// group, its rows lent by buf (nil: new ones). A scope naming partitions
// (rows for those without a commit) and a share group (its lag is not end
// - commit) take computeGroupLag's path over the commits as a map: all
// (every commit) and rows (those in scope).
func groupLagFromRows(s *Snapshot, g GroupSnapshot, all, rows []CommitRow, o LagOptions, buf *batchRows) GroupLag {
	if g.IsShare() && g.Commits != nil {
		return computeGroupLag(s, g, o) // its start offsets, as FetchShareCommits read them
	}
	if len(o.Scope.Named) > 0 || g.IsShare() {
		g.Commits = PartitionMap[Commit]{}
		for _, r := range all {
			g.Commits.Set(r.Topic, r.Partition, Commit{Offset: r.Offset})
		}
		return computeGroupLag(s, g, o)
	}
	gl := groupLagRows(s, g, o) // the group's fields; no commits: no rows
	if !g.Exists && g.Err == nil && g.CommitErr == nil {
		return gl // "group does not exist", no rows
	}
	var vals []int64 // the rows' committed offsets and lags
	gl.Partitions, vals = buf.take(len(rows))
	var terr error
	var parts map[int32]PartitionOffsets
	var dense []PartitionOffsets
	gl.Partitions = gl.Partitions[:len(rows)] // each row written in place, whole
	for i, r := range rows {
		if i == 0 || rows[i-1].Topic != r.Topic { // a run of the topic's rows: looked up once
			gl.Topics = append(gl.Topics, r.Topic)
			terr, parts = s.Offsets.TopicErr[r.Topic], s.Offsets.Partitions[r.Topic]
			dense = buf.offsetsByPartition(r.Topic, parts)
		}
		pl := &gl.Partitions[i]
		vals[2*i] = r.Offset
		po, ok := partitionOffsets(dense, parts, r.Partition)
		if terr == nil && ok && po.Err == nil {
			// The usual row, written field by field (a whole row from a
			// literal was a copy of 176 bytes through the stack).
			l, note := po.End-r.Offset, ""
			if r.Offset > po.End || r.Offset < po.Start {
				l, note = committedLag(r.Offset, po.Start, po.End, s.Isolation)
			}
			vals[2*i+1] = l
			gl.TotalLag += l
			pl.Topic, pl.Partition, pl.LogStart, pl.LogEnd = r.Topic, r.Partition, po.Start, po.End
			pl.Committed, pl.Lag, pl.TimeLagMs = &vals[2*i], &vals[2*i+1], nil
			pl.Member, pl.ClientID, pl.Host, pl.Note, pl.Error, pl.Status, pl.StatusReason = "", "", "", note, "", "", ""
			continue
		}
		*pl = PartitionLag{Topic: r.Topic, Partition: r.Partition, LogStart: -1, LogEnd: -1, Committed: &vals[2*i]}
		pl.Error = offsetsError(r.Topic, r.Partition, po, ok, terr)
	}
	noteNothingOnTopics(&gl, g, o)
	return gl
}

// offsetsOf is the part of all that the groups' commits (by group, rows
// sorted) are on.
func offsetsOf(all TopicOffsets, groups []GroupSnapshot, commits map[string][]CommitRow, scope Scope) TopicOffsets {
	out := TopicOffsets{Partitions: PartitionMap[PartitionOffsets]{}, TopicErr: map[string]error{}}
	add := func(t string) {
		if err, ok := all.TopicErr[t]; ok {
			out.TopicErr[t] = err
		}
		if ps, ok := all.Partitions[t]; ok {
			out.Partitions[t] = ps
		}
	}
	for _, g := range groups {
		eachTopic(commits[g.Group], scope, add)
		eachShareTopic(g, scope, add)
	}
	return out
}

// eachShareTopic calls fn with each topic in scope of a share group's
// start offsets (those without one included), as gatherListed lists them;
// none for another group (its Commits are nil here).
func eachShareTopic(g GroupSnapshot, scope Scope, fn func(topic string)) {
	for t := range g.Commits {
		if scope.HasTopic(t) {
			fn(t)
		}
	}
	for _, k := range g.NoStart {
		if scope.HasTopic(k.Topic) {
			fn(k.Topic)
		}
	}
}
