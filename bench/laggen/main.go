// Command laggen loads a cluster for the lag benchmark (bench/lag.sh): it
// creates TOPIC with -partitions partitions, writes -records records to
// each, and commits -groups groups (PREFIX-0000, ...) on every partition,
// group g at offset (g+p)%4 on partition p (at most -records). -create=false
// only commits the groups on an existing topic; -delete removes the topic
// and the groups instead.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

func main() {
	brokers := flag.String("brokers", "127.0.0.1:39092", "bootstrap brokers")
	topic := flag.String("topic", "lag-bench", "topic to create")
	prefix := flag.String("prefix", "lag-bench", "group name prefix")
	partitions := flag.Int("partitions", 1000, "partitions")
	groups := flag.Int("groups", 100, "groups")
	records := flag.Int("records", 3, "records per partition")
	del := flag.Bool("delete", false, "delete the topic and the groups instead")
	create := flag.Bool("create", true, "create and fill the topic (false: only commit the groups on it)")
	flag.Parse()
	if err := run(strings.Split(*brokers, ","), *topic, *prefix, int32(*partitions), *groups, *records, *del, *create); err != nil {
		fmt.Fprintln(os.Stderr, "laggen:", err)
		os.Exit(1)
	}
}

func groupName(prefix string, g int) string { return fmt.Sprintf("%s-%04d", prefix, g) }

func run(brokers []string, topic, prefix string, partitions int32, groups, records int, del, create bool) error {
	ctx := context.Background()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.DefaultProduceTopic(topic),
		kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.ProducerLinger(10*time.Millisecond))
	if err != nil {
		return err
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	if del {
		names := make([]string, groups)
		for g := range names {
			names[g] = groupName(prefix, g)
		}
		if _, err := adm.DeleteGroups(ctx, names...); err != nil {
			return err
		}
		_, err := adm.DeleteTopic(ctx, topic)
		return err
	}
	if create {
		if err := fill(ctx, cl, adm, topic, partitions, records); err != nil {
			return err
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, groups)
	sem := make(chan struct{}, 8)
	for g := 0; g < groups; g++ {
		wg.Add(1)
		sem <- struct{}{}
		go func(g int) {
			defer wg.Done()
			defer func() { <-sem }()
			os := make(kadm.Offsets)
			for p := int32(0); p < partitions; p++ {
				os.AddOffset(topic, p, int64((g+int(p))%4)%int64(records+1), -1)
			}
			if err := adm.CommitAllOffsets(ctx, groupName(prefix, g), os); err != nil {
				errs <- fmt.Errorf("group %d: %w", g, err)
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	return <-errs
}

func fill(ctx context.Context, cl *kgo.Client, adm *kadm.Client, topic string, partitions int32, records int) error {
	if _, err := adm.CreateTopic(ctx, partitions, 1, nil, topic); err != nil {
		return fmt.Errorf("creating %s: %w", topic, err)
	}
	time.Sleep(time.Second)
	var recs []*kgo.Record
	for p := int32(0); p < partitions; p++ {
		for i := 0; i < records; i++ {
			recs = append(recs, &kgo.Record{Partition: p, Value: []byte("v")})
		}
	}
	// A loaded broker may elect the new topic's leaders after the
	// second above: UNKNOWN_TOPIC_OR_PARTITION until then. Only the
	// records that failed are sent again, so none is written twice.
	for try := 0; ; try++ {
		var failed []*kgo.Record
		var err error
		for _, r := range cl.ProduceSync(ctx, recs...) {
			if r.Err != nil {
				failed, err = append(failed, r.Record), r.Err
			}
		}
		if err == nil || !errors.Is(err, kerr.UnknownTopicOrPartition) || try == 30 {
			return err
		}
		recs = failed
		time.Sleep(time.Second)
	}
}
