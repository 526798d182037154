package exporter

import (
	"context"
	"slices"

	"github.com/offsetctl/offsetctl/internal/cluster"
	"github.com/offsetctl/offsetctl/internal/lag"
)

// topicIdentifier is a gatherer that can say the topics' ids (the time-lag
// cache is keyed by topic name: a topic created again under the same name
// must not be served the old one's timestamps).
type topicIdentifier interface {
	topicIDs(ctx context.Context, topics []string) map[string][16]byte
}

func (g adminGatherer) topicIDs(ctx context.Context, topics []string) map[string][16]byte {
	return topicIDsOf(ctx, g.adm, topics)
}

func (g *tailGatherer) topicIDs(ctx context.Context, topics []string) map[string][16]byte {
	return topicIDsOf(ctx, g.adm, topics)
}

// topicIDsOf is the ids of topics the metadata cache answers (at most
// MetadataMinAge old): those named without an error. A failed lookup is no
// answer: the cache is then used as it is for that batch.
func topicIDsOf(ctx context.Context, adm *cluster.Admin, topics []string) map[string][16]byte {
	ids, _ := adm.TopicIDs(ctx, topics, 0)
	return ids
}

// reportTopics is the topics of rep's rows, sorted, each once.
func reportTopics(rep lag.LagReport) []string {
	var out []string
	for _, g := range rep.Groups {
		if len(g.Topics) > 0 || len(g.Partitions) == 0 {
			out = append(out, g.Topics...) // the topics of its rows, each once
			continue
		}
		for _, p := range g.Partitions {
			if n := len(out); n == 0 || out[n-1] != p.Topic {
				out = append(out, p.Topic)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
