package exporter

import (
	"sort"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
)

// Metric names and labels follow danielqsj/kafka_exporter's, so existing
// dashboards and alerts keep working; the series it lacks carry their unit
// in the name.
var (
	lGroupTP = []string{"consumergroup", "topic", "partition"}
	lTP      = []string{"topic", "partition"}

	descCurrentOffset = prometheus.NewDesc("kafka_consumergroup_current_offset",
		"Committed offset of a consumer group on a partition.", lGroupTP, nil)
	descLag = prometheus.NewDesc("kafka_consumergroup_lag",
		"Log end minus committed offset. No series for a partition the group never committed.", lGroupTP, nil)
	descLagSum = prometheus.NewDesc("kafka_consumergroup_lag_sum",
		"Sum of kafka_consumergroup_lag over a group's partitions of one topic.", []string{"consumergroup", "topic"}, nil)
	descLagSeconds = prometheus.NewDesc("kafka_consumergroup_lag_seconds",
		"Age of the next record the group has not consumed, read from the log's own timestamps (0 without lag).", lGroupTP, nil)
	descMembers = prometheus.NewDesc("kafka_consumergroup_members",
		"Live members of a consumer group (0 for an Empty group).", []string{"consumergroup"}, nil)
	descInfo = prometheus.NewDesc("kafka_consumergroup_info",
		"A consumer group's type (classic or consumer), state and protocol type; always 1.", []string{"consumergroup", "type", "state", "protocol"}, nil)
	descConsumeRate = prometheus.NewDesc("kafka_consumergroup_consume_rate",
		"Records per second the group commits past, over the rate window.", []string{"consumergroup"}, nil)
	descCatchUp = prometheus.NewDesc("kafka_consumergroup_catchup_seconds",
		"Estimated seconds until the group's lag reaches zero at the current rates: lag / (consume rate - produce rate). Absent when the group is not catching up.", []string{"consumergroup"}, nil)
	descBehind = prometheus.NewDesc("kafka_consumergroup_falling_behind",
		"1 when the group has lag and does not consume faster than its partitions grow.", []string{"consumergroup"}, nil)
	descTopicEnd = prometheus.NewDesc("kafka_topic_partition_current_offset",
		"Log end offset of a partition (the high watermark, or the last stable offset with --isolation committed).", lTP, nil)
	descTopicStart = prometheus.NewDesc("kafka_topic_partition_oldest_offset",
		"Log start offset of a partition.", lTP, nil)
	descProduceRate = prometheus.NewDesc("kafka_topic_produce_rate",
		"Records per second appended to a topic, over the rate window.", []string{"topic"}, nil)

	descGatherDuration = prometheus.NewDesc("offsetctl_gather_duration_seconds",
		"How long the latest gather took.", nil, nil)
	descGatherErrors = prometheus.NewDesc("offsetctl_gather_errors_total",
		"Gathers that failed; the metrics keep the last successful gather's values meanwhile.", nil, nil)
	descGatherSuccess = prometheus.NewDesc("offsetctl_gather_success",
		"1 when the latest gather succeeded, 0 when it failed.", nil, nil)
	descLastGather = prometheus.NewDesc("offsetctl_last_gather_timestamp_seconds",
		"Unix time the latest successful gather finished (absent before the first).", nil, nil)
	descAge = prometheus.NewDesc("offsetctl_snapshot_age_seconds",
		"Seconds since the latest successful gather finished: how old the values served are.", nil, nil)
)

var allDescs = []*prometheus.Desc{
	descCurrentOffset, descLag, descLagSum, descLagSeconds, descMembers, descInfo, descConsumeRate,
	descCatchUp, descBehind, descTopicEnd, descTopicStart, descProduceRate,
	descGatherDuration, descGatherErrors, descGatherSuccess, descLastGather, descAge,
}

// Describe implements prometheus.Collector.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range allDescs {
		ch <- d
	}
}

// Collect implements prometheus.Collector: constant metrics from the
// latest gather, never a call to Kafka.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	s, ok, dur, fail, errs := c.last, c.lastOK, c.lastDur, c.lastFail, c.errors
	c.mu.Unlock()

	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	gauge(descGatherDuration, dur.Seconds())
	ch <- prometheus.MustNewConstMetric(descGatherErrors, prometheus.CounterValue, errs)
	gauge(descGatherSuccess, b2f(!fail && s != nil))
	if s == nil {
		return
	}
	gauge(descLastGather, float64(ok.UnixNano())/1e9)
	gauge(descAge, c.opts.Now().Sub(ok).Seconds())
	collectGroups(s, gauge)
	collectTopics(s, gauge)
}

type gaugeFunc func(d *prometheus.Desc, v float64, labels ...string)

func collectGroups(s *snapshot, gauge gaugeFunc) {
	for _, g := range s.rep.Groups {
		if g.Error != "" {
			continue // a group that could not be read has no numbers
		}
		gauge(descMembers, float64(g.Members), g.Group)
		gauge(descInfo, 1, g.Group, g.Type, g.State, s.protocol[g.Group])
		if r, ok := s.views.consume[g.Group]; ok {
			gauge(descConsumeRate, r, g.Group)
		}
		if v, ok := s.views.catchUp[g.Group]; ok {
			gauge(descCatchUp, v, g.Group)
		}
		if v, ok := s.views.behind[g.Group]; ok {
			gauge(descBehind, v, g.Group)
		}
		sums := map[string]int64{}
		var order []string
		for _, p := range g.Partitions {
			lag, ok := rowLag(p)
			if !ok {
				continue
			}
			part := strconv.Itoa(int(p.Partition))
			gauge(descCurrentOffset, float64(*p.Committed), g.Group, p.Topic, part)
			gauge(descLag, float64(lag), g.Group, p.Topic, part)
			if p.TimeLagMs != nil {
				gauge(descLagSeconds, float64(*p.TimeLagMs)/1000, g.Group, p.Topic, part)
			}
			if _, seen := sums[p.Topic]; !seen {
				order = append(order, p.Topic)
			}
			sums[p.Topic] += lag
		}
		for _, t := range order {
			gauge(descLagSum, float64(sums[t]), g.Group, t)
		}
	}
}

func collectTopics(s *snapshot, gauge gaugeFunc) {
	topics := make([]string, 0, len(s.topics.Partitions))
	for t := range s.topics.Partitions {
		topics = append(topics, t)
	}
	sort.Strings(topics)
	for _, t := range topics {
		for p, po := range s.topics.Partitions[t] {
			if po.Err != nil || po.End < 0 {
				continue
			}
			part := strconv.Itoa(int(p))
			gauge(descTopicEnd, float64(po.End), t, part)
			gauge(descTopicStart, float64(po.Start), t, part)
		}
		if r, ok := s.views.produce[t]; ok {
			gauge(descProduceRate, r, t)
		}
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
