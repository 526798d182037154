package audit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetctl/offsetctl/internal/cluster"
)

// The shared trail is a Kafka topic holding the same entries as the log,
// one record per group an entry involves, keyed by that group: all of a
// group's entries land in one partition, in order, and a compacted or
// retention-limited topic never mixes groups. An entry that names no
// group (a replay of a topic no group commits on) has a null key. The
// value is the entry's JSON (Marshal, without the newline).

// CheckTopic makes sure the trail's topic exists and is described to
// this client (Describe on the topic), before a change is made. It is
// never created here: the team decides its partitions, retention and
// ACLs.
func CheckTopic(ctx context.Context, adm *cluster.Admin, topic string) error {
	td, err := adm.ListTopics(ctx, topic)
	if err != nil {
		return fmt.Errorf("audit topic %s: %w", topic, err)
	}
	d, ok := td[topic]
	switch {
	case !ok || errors.Is(d.Err, kerr.UnknownTopicOrPartition):
		return fmt.Errorf("audit topic %s does not exist: create it first (kafka-topics.sh --create --topic %s ...)", topic, topic)
	case d.Err != nil:
		return fmt.Errorf("audit topic %s: %w", topic, d.Err)
	}
	return nil
}

// Produce writes e to topic, one record per group, and waits until every
// record is acknowledged by all in-sync replicas.
func Produce(ctx context.Context, cl *kgo.Client, topic string, e Entry) error {
	line, err := Marshal(e)
	if err != nil {
		return err
	}
	value := line[:len(line)-1]
	var recs []*kgo.Record
	for _, g := range e.Groups {
		recs = append(recs, &kgo.Record{Topic: topic, Key: []byte(g), Value: value})
	}
	if len(recs) == 0 {
		recs = append(recs, &kgo.Record{Topic: topic, Value: value})
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		return fmt.Errorf("writing audit topic %s: %w", topic, err)
	}
	return nil
}

// ReadTopic reads every entry in topic, from each partition's log start
// to the end it had when the read began. Records that are not entries
// are skipped and counted in a *CorruptError (Lines are then record
// counts, not line numbers).
func ReadTopic(ctx context.Context, cfg cluster.Config, adm *cluster.Admin, topic string) ([]Entry, error) {
	if err := CheckTopic(ctx, adm, topic); err != nil {
		return nil, err
	}
	starts, err := adm.ListStartOffsets(ctx, topic)
	if err != nil {
		return nil, fmt.Errorf("audit topic %s: %w", topic, err)
	}
	ends, err := adm.ListEndOffsets(ctx, topic)
	if err != nil {
		return nil, fmt.Errorf("audit topic %s: %w", topic, err)
	}
	want := map[int32]kgo.Offset{}
	left := map[int32]int64{} // partition → end offset still to reach
	var lerr error
	ends.Each(func(o kadm.ListedOffset) {
		if o.Err != nil {
			lerr = o.Err
			return
		}
		s, _ := starts.Lookup(topic, o.Partition)
		if o.Offset > s.Offset {
			want[o.Partition] = kgo.NewOffset().At(s.Offset)
			left[o.Partition] = o.Offset
		}
	})
	if lerr != nil {
		return nil, fmt.Errorf("audit topic %s: %w", topic, lerr)
	}
	if len(want) == 0 {
		return nil, nil
	}
	// offsetctl writes the trail without transactions, so every offset
	// below the end is a record and the read ends at the last one.
	cl, err := cfg.NewClient(kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: want}))
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	return drain(ctx, cl, left)
}

// drain polls until every partition reached its end offset.
func drain(ctx context.Context, cl *kgo.Client, left map[int32]int64) ([]Entry, error) {
	var out []Entry
	var bad []int
	n := 0
	for len(left) > 0 {
		fs := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			return out, fmt.Errorf("reading the audit topic: %w", err)
		}
		var ferr error
		fs.EachError(func(_ string, _ int32, err error) { ferr = err })
		if ferr != nil {
			return out, fmt.Errorf("reading the audit topic: %w", ferr)
		}
		fs.EachRecord(func(r *kgo.Record) {
			n++
			var e Entry
			if json.Unmarshal(r.Value, &e) == nil && e.ID != "" {
				out = append(out, e)
			} else {
				bad = append(bad, n)
			}
		})
		fs.EachPartition(func(p kgo.FetchTopicPartition) {
			if end, ok := left[p.Partition]; ok && len(p.Records) > 0 && p.Records[len(p.Records)-1].Offset+1 >= end {
				delete(left, p.Partition)
			}
		})
	}
	if len(bad) > 0 {
		return out, &CorruptError{Lines: bad}
	}
	return out, nil
}
