package mirror

import (
	"context"
	"fmt"
	"strings"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetctl/offsetctl/internal/cluster"
	"github.com/offsetctl/offsetctl/internal/lag"
)

// SyncWant is, per source-side partition, the upstream offsets whose
// nearest offset sync is wanted (the checkpoints' source offsets).
type SyncWant map[lag.TP]int64

// Syncs holds, per source-side partition, the newest offset sync at or
// before the wanted upstream offset.
type Syncs map[lag.TP]OffsetSync

// SourceTopic is the source-side name of a target topic: without the
// alias's prefix under MM2's default replication policy, unchanged under
// the identity policy.
func SourceTopic(alias, target string) string { return strings.TrimPrefix(target, alias+".") }

// WantedSyncs lists the source partitions and offsets of res's
// checkpoints.
func (res Result) WantedSyncs() SyncWant {
	w := SyncWant{}
	for _, g := range res.Groups {
		for _, r := range g.Partitions {
			if r.SourceOffset != nil {
				w[lag.TP{Topic: SourceTopic(res.SourceAlias, r.Topic), Partition: r.Partition}] = *r.SourceOffset
			}
		}
	}
	return w
}

// ReadOffsetSyncs reads an offset-syncs topic and keeps, per wanted
// partition, the sync with the highest upstream offset at or before the
// wanted one (the later of equal ones): memory is one sync per partition.
func ReadOffsetSyncs(ctx context.Context, cfg cluster.Config, adm *cluster.Admin, topic string, want SyncWant) (Syncs, int, error) {
	out := Syncs{}
	skipped := 0
	err := readTopic(ctx, cfg, adm, topic, func(r *kgo.Record) {
		s, err := DecodeOffsetSync(r.Key, r.Value)
		if err != nil {
			skipped++
			return
		}
		k := lag.TP{Topic: s.Topic, Partition: s.Partition}
		up, ok := want[k]
		if !ok || s.Upstream > up {
			return
		}
		if cur, ok := out[k]; !ok || s.Upstream >= cur.Upstream {
			out[k] = s
		}
	})
	return out, skipped, err
}

// AddSyncs sets each checkpointed row's nearest sync and, when the
// checkpoint is that sync's translation, the records a consumer resuming
// there reads again: MM2 translates an upstream offset past a sync to the
// sync's downstream offset plus one (OffsetSyncStore.translateDownstream),
// so the records between the sync and the commit come again.
func (res *Result) AddSyncs(syncs Syncs) {
	res.OffsetSyncs = true
	for gi := range res.Groups {
		for ri := range res.Groups[gi].Partitions {
			r := &res.Groups[gi].Partitions[ri]
			if r.SourceOffset == nil {
				continue
			}
			s, ok := syncs[lag.TP{Topic: SourceTopic(res.SourceAlias, r.Topic), Partition: r.Partition}]
			if !ok {
				r.Note = joinNote(r.Note, "no offset sync at or before the source offset")
				continue
			}
			r.SyncUpstream, r.SyncDownstream = ptr(s.Upstream), ptr(s.Downstream)
			src, tr := *r.SourceOffset, *r.TranslatedOffset
			switch {
			case src == s.Upstream && tr == s.Downstream:
				r.ReadAgain = ptr(0)
			case src > s.Upstream && tr == s.Downstream+1:
				r.ReadAgain = ptr(src - s.Upstream - 1)
			default:
				r.Note = joinNote(r.Note, fmt.Sprintf("the checkpoint is not the translation of the nearest sync (%d->%d)", s.Upstream, s.Downstream))
			}
		}
	}
}
