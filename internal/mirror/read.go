package mirror

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetctl/offsetctl/internal/cluster"
)

// Checkpoints holds the newest checkpoint of each group and target-side
// partition read from a checkpoints topic.
type Checkpoints struct {
	Topic string
	// ByGroup maps group → topic → partition → newest checkpoint.
	ByGroup map[string]map[string]map[int32]Checkpoint
	// Records is how many records were read; Skipped how many of them
	// could not be decoded (MM2's MirrorClient skips them too).
	Records, Skipped int
	// FirstSkipErr says why the first skipped record was skipped.
	FirstSkipErr string
}

// Lookup returns group's checkpoint of topic/partition.
func (c *Checkpoints) Lookup(group, topic string, partition int32) (Checkpoint, bool) {
	cp, ok := c.ByGroup[group][topic][partition]
	return cp, ok
}

// Add folds one checkpoint in: a later one replaces an earlier one, as
// MirrorClient.remoteConsumerOffsets does reading in offset order.
func (c *Checkpoints) Add(cp Checkpoint) {
	if c.ByGroup == nil {
		c.ByGroup = map[string]map[string]map[int32]Checkpoint{}
	}
	g := c.ByGroup[cp.Group]
	if g == nil {
		g = map[string]map[int32]Checkpoint{}
		c.ByGroup[cp.Group] = g
	}
	t := g[cp.Topic]
	if t == nil {
		t = map[int32]Checkpoint{}
		g[cp.Topic] = t
	}
	t[cp.Partition] = cp
}

// ErrNoTopic is returned when the checkpoints topic does not exist.
var ErrNoTopic = errors.New("topic does not exist")

// ReadCheckpoints reads topic from its log start to the end it has when
// the read starts, keeping the newest checkpoint per group and partition
// of the groups keep accepts (nil: all). Memory is bounded by the number of
// kept group-partitions, not by the topic's length.
func ReadCheckpoints(ctx context.Context, cfg cluster.Config, adm *cluster.Admin, topic string, keep func(group string) bool) (*Checkpoints, error) {
	out := &Checkpoints{Topic: topic}
	err := readTopic(ctx, cfg, adm, topic, func(r *kgo.Record) {
		out.Records++
		cp, err := DecodeCheckpoint(r.Key, r.Value)
		if err != nil {
			out.Skipped++
			if out.FirstSkipErr == "" {
				out.FirstSkipErr = fmt.Sprintf("offset %d: %v", r.Offset, err)
			}
			return
		}
		if keep != nil && !keep(cp.Group) {
			return
		}
		cp.Time = r.Timestamp
		out.Add(cp)
	})
	return out, err
}

// readTopic calls each for every data record of topic below the end
// offsets listed at the start (control records are passed over).
func readTopic(ctx context.Context, cfg cluster.Config, adm *cluster.Admin, topic string, each func(*kgo.Record)) error {
	starts, err := adm.ListStartOffsets(ctx, topic)
	if err == nil {
		err = starts.Error()
	}
	if errors.Is(err, kerr.UnknownTopicOrPartition) {
		return fmt.Errorf("%s: %w", topic, ErrNoTopic)
	}
	if err != nil {
		return fmt.Errorf("listing %s: %w", topic, err)
	}
	ends, err := adm.ListEndOffsets(ctx, topic)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		return fmt.Errorf("listing %s: %w", topic, err)
	}
	want := map[int32]kgo.Offset{}
	left := map[int32]int64{}
	ends.Each(func(o kadm.ListedOffset) {
		s, _ := starts.Lookup(topic, o.Partition)
		if o.Offset > s.Offset {
			want[o.Partition] = kgo.NewOffset().At(s.Offset)
			left[o.Partition] = o.Offset
		}
	})
	if len(want) == 0 {
		return nil
	}
	// KeepControlRecords: a transactional writer's last offset is a
	// commit marker, and the read ends when a partition's end is reached.
	cl, err := cfg.NewClient(kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: want}),
		kgo.KeepControlRecords(), kgo.FetchMaxWait(200*time.Millisecond))
	if err != nil {
		return err
	}
	defer cl.Close()
	for len(left) > 0 {
		fs := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("reading %s: %w", topic, err)
		}
		var ferr error
		fs.EachError(func(_ string, _ int32, err error) { ferr = err })
		if ferr != nil {
			return fmt.Errorf("reading %s: %w", topic, ferr)
		}
		fs.EachPartition(func(p kgo.FetchTopicPartition) {
			end, ok := left[p.Partition]
			for _, r := range p.Records {
				if r.Offset >= end {
					break
				}
				if !r.Attrs.IsControl() {
					each(r)
				}
			}
			if ok && len(p.Records) > 0 && p.Records[len(p.Records)-1].Offset+1 >= end {
				delete(left, p.Partition)
			}
		})
	}
	return nil
}
