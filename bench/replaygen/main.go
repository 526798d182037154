// Command replaygen loads a topic for the replay benchmark (bench/replay.sh):
// it creates TOPIC with -partitions partitions and produces -n records of
// -size bytes (printable ASCII values, keys "key-N"), spread evenly.
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

func main() {
	brokers := flag.String("brokers", "127.0.0.1:39092", "bootstrap brokers")
	topic := flag.String("topic", "bench", "topic to create and fill")
	partitions := flag.Int("partitions", 3, "partitions")
	n := flag.Int("n", 1_000_000, "records")
	size := flag.Int("size", 100, "value bytes")
	del := flag.Bool("delete", false, "delete the topic instead")
	flag.Parse()
	if *del {
		cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(*brokers, ",")...))
		if err == nil {
			_, err = kadm.NewClient(cl).DeleteTopic(context.Background(), *topic)
			cl.Close()
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "replaygen:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(strings.Split(*brokers, ","), *topic, int32(*partitions), *n, *size); err != nil {
		fmt.Fprintln(os.Stderr, "replaygen:", err)
		os.Exit(1)
	}
}

func run(brokers []string, topic string, partitions int32, n, size int) error {
	ctx := context.Background()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.DefaultProduceTopic(topic),
		kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.ProducerLinger(10*time.Millisecond),
		kgo.ProducerBatchMaxBytes(1<<20), kgo.MaxBufferedRecords(200_000))
	if err != nil {
		return err
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	if _, err := adm.CreateTopic(ctx, partitions, 1, nil, topic); err != nil {
		return fmt.Errorf("creating %s: %w", topic, err)
	}
	time.Sleep(500 * time.Millisecond)
	start := time.Now()
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	// Values are random printable ASCII (base64 alphabet): snappy, the
	// producer's default codec, gains little on them, like on real data.
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < n; i++ {
		v := make([]byte, size)
		for j := range v {
			v[j] = alphabet[rng.IntN(len(alphabet))]
		}
		copy(v, strconv.Itoa(i))
		wg.Add(1)
		cl.Produce(ctx, &kgo.Record{Partition: int32(i % int(partitions)), Key: []byte("key-" + strconv.Itoa(i)), Value: v}, func(_ *kgo.Record, err error) {
			defer wg.Done()
			if err != nil {
				mu.Lock()
				if first == nil {
					first = err
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if first != nil {
		return first
	}
	fmt.Fprintf(os.Stderr, "replaygen: %d records of %d bytes to %s (%d partitions) in %s\n", n, size, topic, partitions, time.Since(start).Round(time.Millisecond))
	return nil
}
