package cluster

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// EmbeddedOptions configures an in-process cluster.
type EmbeddedOptions struct {
	// Brokers is the number of brokers (default 3).
	Brokers int
	// Listen is host:port for the first broker; the others take the next
	// ports. Empty means random loopback ports.
	Listen string
}

// CheckListen validates a --listen value for n brokers (bad input, before
// anything starts).
func CheckListen(listen string, n int) error {
	_, _, err := parseListen(listen, n)
	return err
}

// parseListen returns the host and, for a non-zero port, the n ports the
// brokers listen on.
func parseListen(listen string, n int) (string, []int, error) {
	host := "127.0.0.1"
	if listen == "" {
		return host, nil, nil
	}
	h, p, err := net.SplitHostPort(listen)
	if err != nil {
		return "", nil, fmt.Errorf("%q is not host:port", listen)
	}
	port, err := strconv.Atoi(p)
	if err != nil || port < 0 || port > 65535 {
		return "", nil, fmt.Errorf("%q has a bad port", listen)
	}
	if port > 65535-(n-1) {
		return "", nil, fmt.Errorf("%q: %d brokers need ports %d to %d, past 65535", listen, n, port, port+n-1)
	}
	if h != "" {
		host = h
	}
	if port == 0 {
		return host, nil, nil
	}
	ports := make([]int, n)
	for i := range ports {
		ports[i] = port + i
	}
	return host, ports, nil
}

// Embedded is an in-process Kafka cluster (franz-go's kfake).
type Embedded struct {
	*kfake.Cluster
}

// StartEmbedded starts an in-process cluster on loopback.
func StartEmbedded(o EmbeddedOptions) (*Embedded, error) {
	n := o.Brokers
	if n <= 0 {
		n = 3
	}
	// Each embedded cluster gets its own id (kfake's default is the same
	// "kfake" for all), so two playgrounds are told apart like two clusters.
	var id [8]byte
	_, _ = rand.Read(id[:])
	opts := []kfake.Opt{kfake.NumBrokers(n), kfake.DefaultNumPartitions(1), kfake.ClusterID("offsetctl-" + hex.EncodeToString(id[:]))}
	host, ports, err := parseListen(o.Listen, n)
	if err != nil {
		return nil, fmt.Errorf("listen address %w", err)
	}
	if ports != nil {
		opts = append(opts, kfake.Ports(ports...))
	}
	opts = append(opts, kfake.ListenFn(func(network, addr string) (net.Listener, error) {
		_, p, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		return net.Listen(network, net.JoinHostPort(host, p))
	}))
	c, err := kfake.NewCluster(opts...)
	if err != nil {
		return nil, fmt.Errorf("starting embedded cluster: %w", err)
	}
	return &Embedded{Cluster: c}, nil
}

// Config returns a client config pointing at the embedded cluster.
func (e *Embedded) Config() Config {
	return Config{Brokers: e.ListenAddrs(), Timeout: 30 * time.Second}
}

// DemoTopic and DemoGroup name what Seed creates.
const (
	DemoTopic      = "orders"
	DemoPartitions = 3
	DemoEvents     = 60
	DemoGroup      = "orders-billing"
)

// Seed creates the demo topic with DemoEvents keyed events spread over its
// partitions and a group "orders-billing" that has consumed part of it, so
// lag has something to show.
func Seed(ctx context.Context, cfg Config) error {
	cl, err := cfg.NewClient(kgo.DefaultProduceTopic(DemoTopic), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		return err
	}
	defer cl.Close()
	adm, err := cfg.NewAdmin()
	if err != nil {
		return err
	}
	defer adm.Close()
	if _, err := adm.CreateTopic(ctx, DemoPartitions, 1, nil, DemoTopic); err != nil {
		return fmt.Errorf("creating topic %s: %w", DemoTopic, err)
	}
	recs := make([]*kgo.Record, 0, DemoEvents)
	for i := 1; i <= DemoEvents; i++ {
		recs = append(recs, &kgo.Record{
			Partition: int32((i - 1) % DemoPartitions),
			Key:       []byte(fmt.Sprintf("order-%03d", i)),
			Value:     []byte(fmt.Sprintf(`{"order":%d,"item":"espresso","qty":%d}`, i, 1+i%3)),
		})
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		return fmt.Errorf("producing demo events: %w", err)
	}
	// orders-billing has processed 15, 12 and 20 of the 20 events in each
	// partition.
	commits := map[int32]int64{0: 15, 1: 12, 2: 20}
	return commitOffsets(ctx, adm, DemoGroup, DemoTopic, commits)
}
