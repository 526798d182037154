// Command replayfloor is the bare franz-go floor of the replay and backfill
// benchmarks (bench/replay.sh, bench/backfill_ckpt.sh): the least a Go
// program built on kgo does to read a whole topic and write the same
// output as `offsetctl replay`, or copy it as `offsetctl replay
// --produce-to` does, with none of offsetctl's work around it (no proof,
// no digest, no resume bookkeeping, no checkpoint).
//
//	replayfloor -brokers B -topic T -format raw   > out   # value + "\n" per record
//	replayfloor -brokers B -topic T -format jsonl > out   # offsetctl's JSON lines
//	replayfloor -brokers B -topic T -copy-to DST          # copy, same partition
//
// It reads every partition from its start to the end offset (last stable
// offset, read_committed) found when it starts, and prints the records read
// (and copied) on stderr. The fetch bound defaults to offsetctl's own
// (-fetch-max-bytes 2 MiB per fetch and per partition, two fetches in
// flight), so that the comparison is of the work, not of buffer sizes; the
// copy's producer has offsetctl's settings (acks=all, idempotent, 5 ms
// linger, the source partition).
package main

import (
	"bufio"
	"context"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

func main() {
	brokers := flag.String("brokers", "127.0.0.1:39092", "bootstrap brokers")
	topic := flag.String("topic", "", "topic to read")
	format := flag.String("format", "raw", "raw, jsonl or none")
	copyTo := flag.String("copy-to", "", "copy every record to this topic (same partition) instead of writing it")
	fetchMax := flag.Int("fetch-max-bytes", 2<<20, "fetch bound, per fetch and per partition (offsetctl's default)")
	flag.Parse()
	n, err := run(strings.Split(*brokers, ","), *topic, *format, *copyTo, int32(*fetchMax))
	if err != nil {
		fmt.Fprintln(os.Stderr, "replayfloor:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "records %d\n", n)
}

func run(brokers []string, topic, format, copyTo string, fetchMax int32) (int64, error) {
	ctx := context.Background()
	seed := kgo.SeedBrokers(brokers...)
	acl, err := kgo.NewClient(seed)
	if err != nil {
		return 0, err
	}
	adm := kadm.NewClient(acl)
	starts, err := adm.ListStartOffsets(ctx, topic)
	if err == nil {
		var ends kadm.ListedOffsets
		ends, err = adm.ListCommittedOffsets(ctx, topic)
		acl.Close()
		if err == nil {
			return consume(ctx, seed, topic, format, copyTo, fetchMax, starts, ends)
		}
	}
	acl.Close()
	return 0, err
}

func consume(ctx context.Context, seed kgo.Opt, topic, format, copyTo string, fetchMax int32, starts, ends kadm.ListedOffsets) (int64, error) {
	want := map[int32]kgo.Offset{}
	end := map[int32]int64{}
	starts.Each(func(o kadm.ListedOffset) {
		e, _ := ends.Lookup(topic, o.Partition)
		if e.Offset > o.Offset {
			want[o.Partition] = kgo.NewOffset().At(o.Offset)
			end[o.Partition] = e.Offset
		}
	})
	cl, err := kgo.NewClient(seed,
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: want}),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.FetchMaxBytes(fetchMax), kgo.FetchMaxPartitionBytes(fetchMax),
		kgo.MaxConcurrentFetches(2))
	if err != nil {
		return 0, err
	}
	defer cl.Close()
	var prod *kgo.Client
	if copyTo != "" {
		prod, err = kgo.NewClient(seed, kgo.DefaultProduceTopic(copyTo),
			kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.ProducerLinger(5*time.Millisecond))
		if err != nil {
			return 0, err
		}
		defer prod.Close()
	}
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	topicJSON := strconv.AppendQuote(nil, topic)
	var (
		n, acked atomic.Int64
		wg       sync.WaitGroup
		mu       sync.Mutex
		perr     error
	)
	for open := len(want); open > 0; {
		fs := cl.PollFetches(ctx)
		if err := fs.Err0(); err != nil {
			return n.Load(), err
		}
		fs.EachPartition(func(p kgo.FetchTopicPartition) {
			last := end[p.Partition]
			for _, r := range p.Records {
				if r.Offset >= last {
					break
				}
				n.Add(1)
				switch {
				case prod != nil:
					wg.Add(1)
					out := &kgo.Record{Key: r.Key, Value: r.Value, Timestamp: r.Timestamp, Partition: r.Partition, Headers: r.Headers}
					prod.Produce(ctx, out, func(_ *kgo.Record, err error) {
						defer wg.Done()
						if err != nil {
							mu.Lock()
							perr = errors.Join(perr, err)
							mu.Unlock()
							return
						}
						acked.Add(1)
					})
				case format == "raw":
					b := append(w.AvailableBuffer(), r.Value...)
					w.Write(append(b, '\n'))
				case format == "jsonl":
					w.Write(appendJSON(w.AvailableBuffer(), topicJSON, r))
				}
				if r.Offset+1 == last {
					open--
				}
			}
		})
	}
	if err := w.Flush(); err != nil {
		return n.Load(), err
	}
	if prod != nil {
		wg.Wait()
		if perr != nil {
			return n.Load(), perr
		}
		fmt.Fprintf(os.Stderr, "acknowledged %d\n", acked.Load())
	}
	return n.Load(), nil
}

// appendJSON writes offsetctl's JSON line (docs/replay.md): the same bytes
// for every record, written here without looking at offsetctl's encoder.
func appendJSON(b, topicJSON []byte, r *kgo.Record) []byte {
	b = append(b, `{"topic":`...)
	b = append(b, topicJSON...)
	b = append(b, `,"partition":`...)
	b = strconv.AppendInt(b, int64(r.Partition), 10)
	b = append(b, `,"offset":`...)
	b = strconv.AppendInt(b, r.Offset, 10)
	b = append(b, `,"timestamp":`...)
	b = strconv.AppendInt(b, r.Timestamp.UnixMilli(), 10)
	b = field(b, `,"key":`, `,"key_encoding":"base64"`, r.Key)
	b = field(b, `,"value":`, `,"value_encoding":"base64"`, r.Value)
	b = append(b, `,"headers":[`...)
	for i, h := range r.Headers {
		if i > 0 {
			b = append(b, ',')
		}
		b = field(b, `{"key":`, `,"key_encoding":"base64"`, []byte(h.Key))
		b = field(b, `,"value":`, `,"value_encoding":"base64"`, h.Value)
		b = append(b, '}')
	}
	return append(b, "]}\n"...)
}

func field(b []byte, name, marker string, v []byte) []byte {
	b = append(b, name...)
	switch {
	case v == nil:
		return append(b, "null"...)
	case !utf8.Valid(v):
		b = append(b, '"')
		b = base64.StdEncoding.AppendEncode(b, v)
		return append(append(b, '"'), marker...)
	}
	b = append(b, '"')
	for _, c := range v {
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c == '\t':
			b = append(b, '\\', 't')
		case c < 0x20:
			b = append(b, fmt.Sprintf(`\u%04x`, c)...)
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}
