package mirror

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/offsetctl/offsetctl/internal/admin"
	"github.com/offsetctl/offsetctl/internal/lag"
)

// The statuses of a translated partition.
const (
	// StatusChange: a reset to the translation would move B's commit.
	StatusChange = "change"
	// StatusInSync: B's commit already is the translation.
	StatusInSync = "in-sync"
	// StatusNoCheckpoint: a partition of a mirrored topic on B without a
	// checkpoint for the group: named, never guessed.
	StatusNoCheckpoint = "no-checkpoint"
	// StatusNotOnTarget: a checkpoint for a topic or partition B does
	// not have (MM2's compacted checkpoints topic keeps those of deleted
	// topics): named, left out of a reset, nothing changed for it.
	StatusNotOnTarget = "not-on-target"
	// StatusError: B's offsets could not be read for it.
	StatusError = "error"
)

// Row is one group partition on the target cluster.
type Row struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	// SourceOffset is the group's commit on the source cluster as of the
	// checkpoint; TranslatedOffset the offset MM2 translated it to on B.
	SourceOffset     *int64 `json:"source_offset"`
	TranslatedOffset *int64 `json:"translated_offset"`
	// CurrentOffset is the group's commit on B now (nil: none).
	CurrentOffset *int64 `json:"current_offset"`
	LogStart      *int64 `json:"log_start"`
	LogEnd        *int64 `json:"log_end"`
	// Change is what a reset to the translation would do to the commit:
	// TranslatedOffset minus CurrentOffset (nil without a commit).
	Change *int64 `json:"change"`
	// CheckpointTime is when MM2 emitted the checkpoint; Stale that it is
	// older than --max-age.
	CheckpointTime *time.Time `json:"checkpoint_time"`
	CheckpointAge  string     `json:"checkpoint_age,omitempty"`
	Stale          bool       `json:"stale"`
	Status         string     `json:"status"`
	Note           string     `json:"note,omitempty"`
	Error          string     `json:"error,omitempty"`
	// With --offset-syncs: the newest offset sync at or before the
	// source offset, and how many records before the group's source
	// commit the translation lands (a consumer reads them again).
	SyncUpstream   *int64 `json:"sync_upstream,omitempty"`
	SyncDownstream *int64 `json:"sync_downstream,omitempty"`
	ReadAgain      *int64 `json:"read_again,omitempty"`
}

// Group is the translation of one group.
type Group struct {
	Group string `json:"group"`
	// Error is set when the group cannot be translated at all (no
	// checkpoint, or B could not be read).
	Error      string `json:"error,omitempty"`
	Partitions []Row  `json:"partitions"`
}

// Result is what translate prints.
type Result struct {
	SourceAlias      string `json:"source_alias"`
	CheckpointsTopic string `json:"checkpoints_topic"`
	MaxAge           string `json:"max_age,omitempty"`
	// OffsetSyncs says the rows carry their nearest offset sync.
	OffsetSyncs bool    `json:"offset_syncs,omitempty"`
	Groups      []Group `json:"groups"`
}

// Input is everything Translate needs, gathered beforehand.
type Input struct {
	Alias       string
	Groups      []string
	Checkpoints *Checkpoints
	// Target is the groups' commits and the topics' log offsets on B.
	Target *lag.Snapshot
	MaxAge time.Duration // 0: no age check
	Now    time.Time
}

// Topics are the B-side topics whose log offsets Translate needs: every
// topic a wanted group has a checkpoint on.
func Topics(cps *Checkpoints, groups []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, g := range groups {
		for t := range cps.ByGroup[g] {
			if !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	slices.Sort(out)
	return out
}

// Translate computes, per group, the translated offsets and what a reset
// to them would change. It does no I/O.
func Translate(in Input) Result {
	res := Result{SourceAlias: in.Alias, CheckpointsTopic: in.Checkpoints.Topic}
	if in.MaxAge > 0 {
		res.MaxAge = in.MaxAge.String()
	}
	for _, name := range in.Groups {
		res.Groups = append(res.Groups, translateGroup(in, name))
	}
	return res
}

func translateGroup(in Input, name string) Group {
	g := Group{Group: name, Partitions: []Row{}}
	cps := in.Checkpoints.ByGroup[name]
	if len(cps) == 0 {
		g.Error = fmt.Sprintf("no checkpoint for this group in %s (is the group in MM2's groups filter, and has it committed on %s?)", in.Checkpoints.Topic, in.Alias)
		return g
	}
	gs, ok := in.Target.Group(name)
	var commits lag.PartitionMap[lag.Commit]
	if ok {
		if gs.Err != nil || gs.CommitErr != nil {
			g.Error = fmt.Sprintf("reading the group on the target cluster: %v", firstErr(gs.Err, gs.CommitErr))
			return g
		}
		commits = gs.Commits
	}
	for _, k := range rowKeys(in, cps, commits) {
		g.Partitions = append(g.Partitions, translateRow(in, k, cps, commits))
	}
	return g
}

// rowKeys are the partitions to show: every partition on B of a topic the
// group has a checkpoint on, and its B commits on topics named as mirrored
// from the alias (alias.topic) that have no checkpoint at all.
func rowKeys(in Input, cps map[string]map[int32]Checkpoint, commits lag.PartitionMap[lag.Commit]) []lag.TP {
	seen := map[lag.TP]bool{}
	var keys []lag.TP
	add := func(t string, p int32) {
		k := lag.TP{Topic: t, Partition: p}
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	for t, ps := range cps {
		for p := range ps {
			add(t, p)
		}
		for _, p := range in.Target.Offsets.Partitions.Partitions(t) {
			add(t, p)
		}
	}
	prefix := in.Alias + "."
	commits.Each(func(t string, p int32, _ lag.Commit) {
		if _, ok := cps[t]; ok || strings.HasPrefix(t, prefix) {
			add(t, p)
		}
	})
	slices.SortFunc(keys, lag.CompareTP)
	return keys
}

func translateRow(in Input, k lag.TP, cps map[string]map[int32]Checkpoint, commits lag.PartitionMap[lag.Commit]) Row {
	r := Row{Topic: k.Topic, Partition: k.Partition}
	if c, ok := commits.Lookup(k.Topic, k.Partition); ok {
		if c.Err != nil {
			r.Status, r.Error = StatusError, fmt.Sprintf("committed offset on the target: %v", c.Err)
			return r
		}
		r.CurrentOffset = ptr(c.Offset)
	}
	po, ok, terr := in.Target.Offsets.Lookup(k.Topic, k.Partition)
	absent := false
	switch {
	case terr != nil && errors.Is(terr, kerr.UnknownTopicOrPartition):
		absent = true
		r.Note = "topic not on the target cluster"
	case terr != nil:
		r.Status, r.Error = StatusError, fmt.Sprintf("listing offsets on the target: %v", terr)
		return r
	case !ok:
		absent = true
		r.Note = "partition not on the target cluster"
	case po.Err != nil:
		r.Status, r.Error = StatusError, fmt.Sprintf("listing offsets on the target: %v", po.Err)
		return r
	default:
		r.LogStart, r.LogEnd = ptr(po.Start), ptr(po.End)
	}
	cp, ok := cps[k.Topic][k.Partition]
	if !ok {
		r.Status = StatusNoCheckpoint
		r.Note = joinNote(r.Note, "no checkpoint: left as is, not guessed")
		return r
	}
	r.SourceOffset, r.TranslatedOffset = ptr(cp.Upstream), ptr(cp.Downstream)
	if !cp.Time.IsZero() {
		t := cp.Time.UTC()
		r.CheckpointTime = &t
		age := max(in.Now.Sub(cp.Time), 0).Truncate(time.Second)
		r.CheckpointAge = age.String()
		if in.MaxAge > 0 && age > in.MaxAge {
			r.Stale = true
			r.Note = joinNote(r.Note, "checkpoint older than --max-age")
		}
	}
	if absent {
		r.Status = StatusNotOnTarget
		r.Note = joinNote(r.Note, "left out of a reset")
		return r
	}
	if r.LogEnd != nil && cp.Downstream > *r.LogEnd {
		r.Note = joinNote(r.Note, "translated offset past the log end on the target")
	}
	if r.LogStart != nil && cp.Downstream < *r.LogStart {
		r.Note = joinNote(r.Note, "translated offset below the log start on the target")
	}
	r.Status = StatusChange
	if r.CurrentOffset != nil {
		r.Change = ptr(cp.Downstream - *r.CurrentOffset)
		if *r.Change == 0 {
			r.Status = StatusInSync
		}
	}
	return r
}

// Missing lists, as topic/partition, the rows of g without a checkpoint.
func (g Group) Missing() []string {
	var out []string
	for _, r := range g.Partitions {
		if r.Status == StatusNoCheckpoint {
			out = append(out, fmt.Sprintf("%s/%d", r.Topic, r.Partition))
		}
	}
	return out
}

// NotOnTarget lists, as topic/partition, the rows of g whose checkpoint
// names a topic or partition the target cluster does not have.
func (g Group) NotOnTarget() []string {
	var out []string
	for _, r := range g.Partitions {
		if r.Status == StatusNotOnTarget {
			out = append(out, fmt.Sprintf("%s/%d", r.Topic, r.Partition))
		}
	}
	return out
}

// Stale counts the rows of g whose checkpoint is older than --max-age.
func (g Group) Stale() int {
	n := 0
	for _, r := range g.Partitions {
		if r.Stale {
			n++
		}
	}
	return n
}

// PlanRows are the group,topic,partition,offset rows of a reset to the
// translations (partitions with a checkpoint on the target cluster only),
// for the reset target translated:ALIAS.
func (res Result) PlanRows() []admin.PlanRow {
	var out []admin.PlanRow
	for _, g := range res.Groups {
		for _, r := range g.Partitions {
			if r.TranslatedOffset != nil && r.Status != StatusNotOnTarget {
				out = append(out, admin.PlanRow{Group: g.Group, Topic: r.Topic, Partition: r.Partition, Offset: *r.TranslatedOffset})
			}
		}
	}
	return out
}

func ptr(v int64) *int64 { return &v }

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
