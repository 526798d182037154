package testkit

import (
	"testing"
	"time"

	"github.com/offsetctl/offsetctl/internal/cluster"
)

// At is a Cluster for a second cluster the test started itself (a second
// kfake cluster, a second Apache Kafka): the same helpers, on brokers.
func At(t testing.TB, brokers []string) *Cluster {
	return &Cluster{Brokers: brokers, Cfg: cluster.Config{Brokers: brokers, Timeout: 30 * time.Second}, t: t}
}
