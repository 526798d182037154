package exporter

import (
	"io"
	"maps"
	"slices"
	"sort"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/offsetctl/offsetctl/admin"
)

// Metric names and labels follow danielqsj/kafka_exporter's, so existing
// dashboards and alerts keep working; the series it lacks carry their unit
// in the name.
var (
	lGroupTP = []string{"consumergroup", "partition", "topic"}
	lTP      = []string{"partition", "topic"}
	lGroup   = []string{"consumergroup"}

	famCurrentOffset = &family{"kafka_consumergroup_current_offset",
		"Committed offset of a consumer group on a partition.", lGroupTP}
	famLag = &family{"kafka_consumergroup_lag",
		"Log end minus committed offset. No series for a partition the group never committed.", lGroupTP}
	famLagSum = &family{"kafka_consumergroup_lag_sum",
		"Sum of kafka_consumergroup_lag over a group's partitions of one topic.", []string{"consumergroup", "topic"}}
	famLagSeconds = &family{"kafka_consumergroup_lag_seconds",
		"Age of the next record the group has not consumed, read from the log's own timestamps (0 without lag).", lGroupTP}
	famMembers = &family{"kafka_consumergroup_members",
		"Live members of a consumer group (0 for an Empty group).", lGroup}
	famInfo = &family{"kafka_consumergroup_info",
		"A consumer group's type (classic or consumer), state and protocol type; always 1.", []string{"consumergroup", "protocol", "state", "type"}}
	famConsumeRate = &family{"kafka_consumergroup_consume_rate",
		"Records per second the group commits past, over the rate window.", lGroup}
	famCatchUp = &family{"kafka_consumergroup_catchup_seconds",
		"Estimated seconds until the group's lag reaches zero at the current rates: lag / (consume rate - produce rate). Absent when the group is not catching up.", lGroup}
	famBehind = &family{"kafka_consumergroup_falling_behind",
		"1 when the group has lag and does not consume faster than its partitions grow.", lGroup}
	famTopicEnd = &family{"kafka_topic_partition_current_offset",
		"Log end offset of a partition (the high watermark, or the last stable offset with --isolation committed).", lTP}
	famTopicStart = &family{"kafka_topic_partition_oldest_offset",
		"Log start offset of a partition.", lTP}
	famProduceRate = &family{"kafka_topic_produce_rate",
		"Records per second appended to a topic, over the rate window.", []string{"topic"}}

	// lagFamilies is the order families are written in.
	lagFamilies = []*family{famCurrentOffset, famLag, famLagSum, famLagSeconds, famMembers, famInfo,
		famConsumeRate, famCatchUp, famBehind, famTopicEnd, famTopicStart, famProduceRate,
		famCurrentOffsetSum, famTopicPartitions, famBrokers} // the last three: kafkacompat.go

	// The gather's own health: few series, read at scrape time (the age
	// changes between gathers), so they stay client_golang metrics.
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

var healthDescs = []*prometheus.Desc{descGatherDuration, descGatherErrors, descGatherSuccess, descLastGather, descAge}

// Describe implements prometheus.Collector: the gather's health metrics.
// The lag families are written by WriteText.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range healthDescs {
		ch <- d
	}
}

// Collect implements prometheus.Collector: the health of the latest
// gather, never a call to Kafka.
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
}

// renderGroups writes the group families of one batch's groups.
func renderGroups(s *samples, rep admin.LagReport, protocol map[string]string, views rateViews) {
	gauge := s.add
	for _, g := range rep.Groups {
		if g.Error != "" {
			continue // a group that could not be read has no numbers
		}
		gauge(famMembers, float64(g.Members), g.Group)
		gauge(famInfo, 1, g.Group, protocol[g.Group], g.State, g.Type)
		if r, ok := views.consume[g.Group]; ok {
			gauge(famConsumeRate, r, g.Group)
		}
		if v, ok := views.catchUp[g.Group]; ok {
			gauge(famCatchUp, v, g.Group)
		}
		if v, ok := views.behind[g.Group]; ok {
			gauge(famBehind, v, g.Group)
		}
		sums, offSums := map[string]int64{}, map[string]int64{}
		var order []string
		for _, p := range g.Partitions {
			lag, ok := rowLag(p)
			if !ok {
				continue
			}
			part := strconv.Itoa(int(p.Partition))
			gauge(famCurrentOffset, float64(*p.Committed), g.Group, part, p.Topic)
			gauge(famLag, float64(lag), g.Group, part, p.Topic)
			if p.TimeLagMs != nil {
				gauge(famLagSeconds, float64(*p.TimeLagMs)/1000, g.Group, part, p.Topic)
			}
			if _, seen := sums[p.Topic]; !seen {
				order = append(order, p.Topic)
			}
			sums[p.Topic] += lag
			offSums[p.Topic] += *p.Committed
		}
		for _, t := range order {
			gauge(famLagSum, float64(sums[t]), g.Group, t)
			gauge(famCurrentOffsetSum, float64(offSums[t]), g.Group, t)
		}
	}
}

// renderTopicOffsets writes the log start and end of the topics in
// offsets not written yet (a topic read by groups of several batches is
// written with its first batch's offsets).
func renderTopicOffsets(s *samples, offsets admin.TopicOffsets, written map[string]bool) {
	topics := make([]string, 0, len(offsets.Partitions))
	for t := range offsets.Partitions {
		if !written[t] {
			topics = append(topics, t)
			written[t] = true
		}
	}
	sort.Strings(topics)
	for _, t := range topics {
		parts := make([]int32, 0, len(offsets.Partitions[t]))
		for p := range offsets.Partitions[t] {
			parts = append(parts, p)
		}
		slices.Sort(parts)
		s.add(famTopicPartitions, float64(len(parts)), t)
		for _, p := range parts {
			po := offsets.Partitions[t][p]
			if po.Err != nil || po.End < 0 {
				continue
			}
			part := strconv.Itoa(int(p))
			s.add(famTopicEnd, float64(po.End), part, t)
			s.add(famTopicStart, float64(po.Start), part, t)
		}
	}
}

// renderProduceRates writes the produce rate of each written topic that
// has one (known once the gather's round has ended).
func renderProduceRates(s *samples, topics map[string]bool, rate func(topic string) (float64, bool)) {
	for _, t := range slices.Sorted(maps.Keys(topics)) {
		if r, ok := rate(t); ok {
			s.add(famProduceRate, r, t)
		}
	}
}

// WriteText writes the lag families of every collector's latest gather in
// the Prometheus text format, each family once (HELP, TYPE, then every
// collector's lines), leaving out families without a line.
func WriteText(w io.Writer, cols ...*Collector) error {
	texts := make([]samples, len(cols))
	for i, c := range cols {
		c.mu.Lock()
		if c.last != nil {
			texts[i] = c.last.text
		}
		c.mu.Unlock()
	}
	for _, f := range lagFamilies {
		wrote := false
		for _, t := range texts {
			b := t.lines[f]
			if len(b) == 0 {
				continue
			}
			if !wrote {
				if err := writeHelp(w, f); err != nil {
					return err
				}
				wrote = true
			}
			if _, err := w.Write(b); err != nil {
				return err
			}
		}
	}
	return nil
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
