// Package testkit gives integration tests a cluster: the real brokers in
// KAFKA_BROKERS when set, else a fresh in-process kfake cluster of three
// brokers. The same tests run on both.
package testkit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetctl/offsetctl/internal/cluster"
)

// Cluster is a cluster for one test.
type Cluster struct {
	// Brokers is the bootstrap list to pass to --brokers.
	Brokers []string
	// Fake is the in-process cluster, nil on a real broker.
	Fake *kfake.Cluster
	Cfg  cluster.Config
	t    testing.TB
}

// Real reports whether the tests run against a real broker.
func Real() bool { return os.Getenv("KAFKA_BROKERS") != "" }

// New returns a cluster for t, closed when the test ends.
func New(t testing.TB, opts ...kfake.Opt) *Cluster {
	t.Helper()
	if b := os.Getenv("KAFKA_BROKERS"); b != "" {
		brokers, err := cluster.ParseBrokers(b)
		if err != nil {
			t.Fatalf("KAFKA_BROKERS: %v", err)
		}
		return &Cluster{Brokers: brokers, Cfg: cluster.Config{Brokers: brokers, Timeout: 30 * time.Second}, t: t}
	}
	fake, err := kfake.NewCluster(append([]kfake.Opt{kfake.NumBrokers(3)}, opts...)...)
	if err != nil {
		t.Fatalf("starting kfake: %v", err)
	}
	t.Cleanup(fake.Close)
	brokers := fake.ListenAddrs()
	return &Cluster{Brokers: brokers, Fake: fake, Cfg: cluster.Config{Brokers: brokers, Timeout: 30 * time.Second}, t: t}
}

// NewDetached is New for data a benchmark builds once per process: the
// in-process cluster is not closed when t ends (the process's end frees it).
func NewDetached(t testing.TB, opts ...kfake.Opt) *Cluster {
	t.Helper()
	if Real() {
		return New(t, opts...)
	}
	fake, err := kfake.NewCluster(append([]kfake.Opt{kfake.NumBrokers(3)}, opts...)...)
	if err != nil {
		t.Fatalf("starting kfake: %v", err)
	}
	brokers := fake.ListenAddrs()
	return &Cluster{Brokers: brokers, Fake: fake, Cfg: cluster.Config{Brokers: brokers, Timeout: 30 * time.Second}, t: t}
}

// LagFleet makes a topic of parts partitions with 3 records each and
// groups groups named PREFIX-000, PREFIX-001, ... with a commit on every
// partition (group g at (g+p)%4 on partition p, so every group lags): the
// data of the lag and exporter benchmarks. It returns the topic.
func (c *Cluster) LagFleet(prefix string, groups, parts int) string {
	c.t.Helper()
	topic := c.Topic(int32(parts), nil)
	per := map[int32]int{}
	for p := 0; p < parts; p++ {
		per[int32(p)] = 3
	}
	c.Produce(topic, per, time.Time{})
	adm := c.Admin()
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for g := 0; g < groups; g++ {
		wg.Add(1)
		sem <- struct{}{}
		go func(g int) {
			defer wg.Done()
			defer func() { <-sem }()
			os := make(kadm.Offsets)
			for p := 0; p < parts; p++ {
				os.AddOffset(topic, int32(p), int64((g+p)%4), -1)
			}
			if err := adm.CommitAllOffsets(Ctx(c.t), fmt.Sprintf("%s-%03d", prefix, g), os); err != nil {
				c.t.Error(err)
			}
		}(g)
	}
	wg.Wait()
	return topic
}

// BrokerList is Brokers joined with commas, for --brokers.
func (c *Cluster) BrokerList() string { return strings.Join(c.Brokers, ",") }

// Ctx is a context bounded to a minute and the test.
func Ctx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

var unsafe = regexp.MustCompile(`[^a-zA-Z0-9._-]+`)

// Name returns a name unique to this test run: prefix, the test name and a
// random suffix.
func Name(t testing.TB, prefix string) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	n := unsafe.ReplaceAllString(t.Name(), "-")
	if len(n) > 60 {
		n = n[len(n)-60:]
	}
	return fmt.Sprintf("%s-%s-%s", prefix, strings.Trim(n, "-"), hex.EncodeToString(b[:]))
}

// Admin opens an admin client closed at the end of the test.
func (c *Cluster) Admin() *cluster.Admin {
	c.t.Helper()
	adm, err := c.Cfg.NewAdmin()
	if err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(adm.Close)
	return adm
}

// Client opens a kgo client closed at the end of the test.
func (c *Cluster) Client(opts ...kgo.Opt) *kgo.Client {
	c.t.Helper()
	cl, err := c.Cfg.NewClient(opts...)
	if err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(cl.Close)
	return cl
}

// Topic creates a topic with a unique name and waits until every partition
// has a leader and answers ListOffsets.
func (c *Cluster) Topic(partitions int32, configs map[string]*string) string {
	c.t.Helper()
	name := Name(c.t, "t")
	c.CreateTopic(name, partitions, configs)
	return name
}

// CreateTopic creates topic and waits for its metadata.
func (c *Cluster) CreateTopic(name string, partitions int32, configs map[string]*string) {
	c.t.Helper()
	ctx := Ctx(c.t)
	adm := c.Admin()
	resp, err := adm.CreateTopic(ctx, partitions, 1, configs, name)
	if err == nil {
		err = resp.Err
	}
	if err != nil {
		c.t.Fatalf("creating topic %s: %v", name, err)
	}
	c.WaitTopic(name, partitions)
}

// WaitTopic waits until topic has the given partitions, each listing
// offsets without error.
func (c *Cluster) WaitTopic(name string, partitions int32) {
	c.t.Helper()
	// A broker elects leaders partition by partition: a 1,000-partition
	// topic on a loaded machine takes longer than a small one.
	wait := 30*time.Second + time.Duration(partitions)*50*time.Millisecond
	ctx, cancel := context.WithTimeout(Ctx(c.t), wait)
	defer cancel()
	if err := c.Admin().WaitPartitions(ctx, name, int(partitions)); err != nil {
		c.t.Fatalf("topic %s not ready after %s: %v", name, wait, err)
	}
}

// Produce produces n records to each partition listed, with keys
// "k-P-I" and values "v-P-I", synchronously. Timestamps are the broker's
// append time unless ts is non-zero, in which case record i of a
// partition gets ts + i ms.
func (c *Cluster) Produce(topic string, perPartition map[int32]int, ts time.Time) {
	c.t.Helper()
	cl := c.Client(kgo.RecordPartitioner(kgo.ManualPartitioner()))
	var recs []*kgo.Record
	for p, n := range perPartition {
		for i := 0; i < n; i++ {
			r := &kgo.Record{Topic: topic, Partition: p, Key: []byte(fmt.Sprintf("k-%d-%d", p, i)), Value: []byte(fmt.Sprintf("v-%d-%d", p, i))}
			if !ts.IsZero() {
				r.Timestamp = ts.Add(time.Duration(i) * time.Millisecond)
			}
			recs = append(recs, r)
		}
	}
	if err := cl.ProduceSync(Ctx(c.t), recs...).FirstErr(); err != nil {
		c.t.Fatalf("producing to %s: %v", topic, err)
	}
}

// ProduceRecords produces the given records synchronously (set Topic and
// Partition on each; the partitioner is manual).
func (c *Cluster) ProduceRecords(recs ...*kgo.Record) {
	c.t.Helper()
	cl := c.Client(kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err := cl.ProduceSync(Ctx(c.t), recs...).FirstErr(); err != nil {
		c.t.Fatalf("producing: %v", err)
	}
}

// Commit commits offsets for group on topic, as an admin (generation -1).
func (c *Cluster) Commit(group, topic string, offsets map[int32]int64) {
	c.t.Helper()
	os := make(kadm.Offsets)
	for p, o := range offsets {
		os.AddOffset(topic, p, o, -1)
	}
	// Committing the same offsets again is harmless, so transient errors
	// (a coordinator reloading after a fault test) are waited out.
	c.untilSettled("committing "+group, func() error { return c.Admin().CommitAllOffsets(Ctx(c.t), group, os) })
}

// Committed returns group's committed offsets: topic → partition → offset.
func (c *Cluster) Committed(group string) map[string]map[int32]int64 {
	c.t.Helper()
	// A broker that was just frozen, killed or restarted may answer
	// COORDINATOR_NOT_AVAILABLE or COORDINATOR_LOAD_IN_PROGRESS for a few
	// seconds while it reloads __consumer_offsets (a single-node KRaft
	// broker can even fence itself once on thaw); kgo's own retries can
	// run out before that. Only transient errors are waited out, up to a
	// minute; any other error fails the test at once.
	var out map[string]map[int32]int64
	c.untilSettled("fetching offsets of "+group, func() (err error) {
		out, err = c.committedOnce(group)
		return err
	})
	return out
}

// untilSettled calls fn until it succeeds, waiting out transient errors
// for up to a minute; any other error (or one past the minute) fails the
// test, naming what was done.
func (c *Cluster) untilSettled(what string, fn func() error) {
	c.t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		err := fn()
		if err == nil {
			return
		}
		if !transient(err) || time.Now().After(deadline) {
			c.t.Fatalf("%s: %v", what, err)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// transient: an error a broker gives while it recovers, which kgo's own
// retries can outlast: a retriable Kafka error, or one kgo itself deems
// retriable, e.g. a coordinator that FindCoordinator names but that the
// metadata does not list (a broker fenced for a moment, seen in CI after
// a thaw).
func transient(err error) bool {
	return kerr.IsRetriable(err) || kgo.IsRetryableBrokerErr(err)
}

// committedOnce is one OffsetFetch of group: its commits, or the first
// error (of the request, or of any partition).
func (c *Cluster) committedOnce(group string) (map[string]map[int32]int64, error) {
	resp, err := c.Admin().FetchOffsets(Ctx(c.t), group)
	out := map[string]map[int32]int64{}
	if errors.Is(err, kerr.GroupIDNotFound) {
		return out, nil // an unknown or deleted group has no commits
	}
	if err != nil {
		return nil, err
	}
	for t, ps := range resp {
		for p, o := range ps {
			if o.Err != nil {
				return nil, fmt.Errorf("%s/%d: %w", t, p, o.Err)
			}
			if o.At < 0 {
				continue
			}
			if out[t] == nil {
				out[t] = map[int32]int64{}
			}
			out[t][p] = o.At
		}
	}
	return out, nil
}

// DeleteRecords moves the log start of topic/partition up to offset.
func (c *Cluster) DeleteRecords(topic string, partition int32, offset int64) {
	c.t.Helper()
	os := make(kadm.Offsets)
	os.AddOffset(topic, partition, offset, -1)
	resp, err := c.Admin().DeleteRecords(Ctx(c.t), os)
	if err == nil {
		err = resp.Error()
	}
	if err != nil {
		c.t.Fatalf("deleting records of %s/%d below %d: %v", topic, partition, offset, err)
	}
}

// Consumer starts a group consumer of topic in the background and waits
// until it has been assigned partitions. consumer848 selects the KIP-848
// protocol (ConsumerGroupHeartbeat) instead of the classic one. The
// consumer closes at test end; call the returned stop to close it early.
func (c *Cluster) Consumer(group, topic string, consumer848 bool, extra ...kgo.Opt) (stop func()) {
	c.t.Helper()
	assigned := make(chan struct{}, 1)
	opts := []kgo.Opt{
		kgo.ConsumerGroup(group),
		kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.OnPartitionsAssigned(func(context.Context, *kgo.Client, map[string][]int32) {
			select {
			case assigned <- struct{}{}:
			default:
			}
		}),
	}
	if consumer848 {
		opts = append(opts, kgo.ServerSideBalancer(), kgo.Balancers(kgo.RangeBalancer()))
	}
	cl := c.Client(append(opts, extra...)...)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			cl.PollFetches(ctx)
		}
	}()
	select {
	case <-assigned:
	case <-time.After(45 * time.Second):
		cancel()
		c.t.Fatalf("consumer of group %s was not assigned within 45s", group)
	}
	var stopped bool
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		<-done
		cl.Close()
	}
	c.t.Cleanup(stop)
	return stop
}

// ApacheTool runs Apache's ConsumerGroupCommand (through the script named
// by OFFSETCTL_KAFKA_SCRIPT) with args and returns its stdout. It skips
// the test when not on a real broker.
func (c *Cluster) ApacheTool(args ...string) string {
	c.t.Helper()
	return c.apacheTool([]string{"consumer-groups"}, args)
}

// ApacheShareTool runs Apache's ShareGroupCommand (kafka-share-groups.sh)
// with args, as ApacheTool does.
func (c *Cluster) ApacheShareTool(args ...string) string {
	c.t.Helper()
	return c.apacheTool([]string{"run-class", "org.apache.kafka.tools.consumer.group.ShareGroupCommand"}, args)
}

func (c *Cluster) apacheTool(tool, args []string) string {
	c.t.Helper()
	script := os.Getenv("OFFSETCTL_KAFKA_SCRIPT")
	if !Real() || script == "" {
		c.t.Skip("Apache reference tool needs a real broker (KAFKA_BROKERS and OFFSETCTL_KAFKA_SCRIPT)")
	}
	full := append(append(tool, "--bootstrap-server", c.BrokerList()), args...)
	cmd := exec.Command("bash", append([]string{script}, full...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		c.t.Fatalf("%s %s: %v\nstdout: %s\nstderr: %s", tool[len(tool)-1], strings.Join(args, " "), err, out, stderr.String())
	}
	return string(out)
}

// BeginTxn produces recs (Topic and Partition set) inside a new
// transaction and leaves it open. The returned end commits or aborts it
// and returns once the transaction's markers are in the logs; a
// transaction still open when the test ends is aborted.
func (c *Cluster) BeginTxn(recs ...*kgo.Record) (end func(commit bool)) {
	c.t.Helper()
	cl := c.Client(kgo.TransactionalID(Name(c.t, "txn")), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	ctx := Ctx(c.t)
	if err := cl.BeginTransaction(); err != nil {
		c.t.Fatal(err)
	}
	produced := cl.ProduceSync(ctx, recs...)
	if err := produced.FirstErr(); err != nil {
		c.t.Fatalf("producing in a transaction: %v", err)
	}
	last := map[string]map[int32]int64{} // topic → partition → last offset written
	for _, pr := range produced {
		r := pr.Record
		if last[r.Topic] == nil {
			last[r.Topic] = map[int32]int64{}
		}
		if o, ok := last[r.Topic][r.Partition]; !ok || r.Offset > o {
			last[r.Topic][r.Partition] = r.Offset
		}
	}
	ended := false
	end = func(commit bool) {
		c.t.Helper()
		ended = true
		if err := cl.EndTransaction(Ctx(c.t), kgo.TransactionEndTry(commit)); err != nil {
			c.t.Fatalf("ending the transaction: %v", err)
		}
		c.waitMarkers(last)
	}
	c.t.Cleanup(func() {
		if !ended {
			_ = cl.EndTransaction(context.Background(), kgo.TryAbort)
		}
	})
	return end
}

// waitMarkers waits until the last stable offset of every partition in last
// has passed the offset given, i.e. the commit or abort marker of the
// transaction that wrote it is in the log. Apache Kafka answers EndTxn once
// the transaction is prepared and writes the markers afterwards, so right
// after EndTransaction a read_committed reader (or ListOffsets) may not see
// the outcome yet; kfake writes them before answering.
func (c *Cluster) waitMarkers(last map[string]map[int32]int64) {
	c.t.Helper()
	if len(last) == 0 {
		return
	}
	topics := make([]string, 0, len(last))
	for t := range last {
		topics = append(topics, t)
	}
	adm := c.Admin()
	deadline := time.Now().Add(30 * time.Second)
	for {
		lso, err := adm.ListCommittedOffsets(Ctx(c.t), topics...)
		behind := ""
		if err != nil {
			behind = err.Error()
		} else {
			for t, ps := range last {
				for p, o := range ps {
					if lo, ok := lso.Lookup(t, p); !ok || lo.Err != nil || lo.Offset <= o {
						behind = fmt.Sprintf("%s/%d: last stable offset %d (%v), the transaction wrote up to %d", t, p, lo.Offset, lo.Err, o)
					}
				}
			}
		}
		if behind == "" {
			return
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("transaction markers not written after 30s: %s", behind)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
