package exporter

// kafka_exporter's families that its published Grafana dashboard
// ("Kafka Exporter Overview") and common alerts read and that offsetctl
// computes from what a gather already has: the partition count of each
// listed topic (the same ListOffsets round that gives the log ends), the
// per-topic sum of a group's committed offsets, and the number of brokers
// the client's metadata knows. Names, labels and meaning are
// kafka_exporter's (its README's "Metrics" section); the differences are
// in docs/exporter.md.
var (
	famTopicPartitions = &family{"kafka_topic_partitions",
		"Number of partitions of a topic (topics the exported groups have committed on).", []string{"topic"}}
	famCurrentOffsetSum = &family{"kafka_consumergroup_current_offset_sum",
		"Sum of kafka_consumergroup_current_offset over a group's partitions of one topic.", []string{"consumergroup", "topic"}}
	famBrokers = &family{"kafka_brokers",
		"Number of brokers in the cluster, as the latest metadata response listed them.", nil}
)

// brokerCounter is a gatherer that knows the cluster's brokers.
type brokerCounter interface {
	brokers() int
}

// brokers is the number of brokers of the latest metadata response, which
// the gather's ListOffsets round fetched (no request of its own).
func (g adminGatherer) brokers() int { return len(g.adm.Kgo.DiscoveredBrokers()) }

// renderBrokers writes kafka_brokers when g knows the brokers and some are.
func renderBrokers(s *samples, g gatherer) {
	if bc, ok := g.(brokerCounter); ok {
		if n := bc.brokers(); n > 0 {
			s.add(famBrokers, float64(n))
		}
	}
}
