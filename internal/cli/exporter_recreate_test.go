package cli

import (
	"errors"
	"fmt"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/offsetctl/offsetctl/internal/testkit"
)

// TestExporterTimeLagTopicRecreated: a topic deleted and created again
// under its name, with records at the same offsets, and the group
// committed at the same offset again. The exporter's time-lag cache is
// keyed by topic name and offset; it used to serve the old topic's record
// (an hour old) while the group stayed there. Each source (poll, and the
// offsets topic on a real broker: kfake keeps no readable offsets topic)
// must show the new record's age, about a minute.
func TestExporterTimeLagTopicRecreated(t *testing.T) {
	sources := []string{"poll"}
	if testkit.Real() {
		sources = append(sources, "offsets-topic")
	}
	for _, source := range sources {
		t.Run(source, func(t *testing.T) {
			c := testkit.New(t)
			topic, group := c.Topic(1, nil), testkit.Name(t, "recreated")
			c.Produce(topic, map[int32]int{0: 40}, time.Now().Add(-time.Hour))
			c.Commit(group, topic, map[int32]int64{0: 35})
			e := startExporter(t, c, nil, "--interval", "1s", "--commit-source", source, group)
			key := fmt.Sprintf("consumergroup=%s,partition=0,topic=%s", group, topic)
			ageIs := func(lo, hi float64) func(map[string]*dto.MetricFamily) bool {
				return func(f map[string]*dto.MetricFamily) bool {
					v, ok := series(f, "kafka_consumergroup_lag_seconds")[key]
					return ok && v >= lo && v <= hi && series(f, "kafka_consumergroup_lag")[key] == 5
				}
			}
			e.waitScrape(t, "the old topic's time lag, about an hour", ageIs(3500, 3700))

			recreate(t, c, topic)
			c.Produce(topic, map[int32]int{0: 40}, time.Now().Add(-time.Minute))
			c.Commit(group, topic, map[int32]int64{0: 35})
			e.waitScrape(t, "the new topic's time lag, about a minute", ageIs(30, 600))
		})
	}
}

// recreate deletes topic and creates it again with one partition, waiting
// out the broker's deletion (a create right after it answers that the
// topic exists or is being deleted).
func recreate(t *testing.T, c *testkit.Cluster, topic string) {
	t.Helper()
	adm := c.Admin()
	if _, err := adm.DeleteTopics(testkit.Ctx(t), topic); err != nil {
		t.Fatalf("deleting %s: %v", topic, err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		r, err := adm.CreateTopic(testkit.Ctx(t), 1, 1, nil, topic)
		if err == nil {
			err = r.Err
		}
		if err == nil {
			break
		}
		if !errors.Is(err, kerr.TopicAlreadyExists) || time.Now().After(deadline) {
			t.Fatalf("creating %s again: %v", topic, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	c.WaitTopic(topic, 1)
}
