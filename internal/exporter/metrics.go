package exporter

import (
	"cmp"
	"io"
	"maps"
	"slices"
	"sort"
	"strconv"

	"github.com/offsetctl/offsetctl/internal/lag"
	"github.com/prometheus/client_golang/prometheus"
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

	// Staleness: which values are carried from an earlier gather because
	// this one could not read them (docs/exporter.md).
	famLagStale = &family{"offsetctl_lag_stale",
		"1 for a partition any of whose series keeps the value of an earlier gather, as the latest could not read it: its offset and lag (the partition not read), or only its lag_seconds (its time lag not measured); absent while the partition is read.", lGroupTP}
	famGroupStale = &family{"offsetctl_consumergroup_stale",
		"1 when any value shown for the group (members, state, rates, or a partition's) is carried from an earlier gather because the latest could not read it; else 0.", lGroup}
	famGroupLastOK = &family{"offsetctl_consumergroup_last_success_timestamp_seconds",
		"Unix time of the latest gather that read the whole group (absent until one has).", lGroup}
	famGroupMissing = &family{"offsetctl_consumergroup_missing",
		"For a group named on the command line (GROUP or --group, not --regex or --all-groups): 1 while the latest read of it said it does not exist (a typo, or deleted), which counts in offsetctl_gather_group_errors at every gather but leaves the gather complete (offsetctl_gather_success, offsetctl_snapshot_age_seconds), 0 while it exists; absent before its first read.", lGroup}

	// lagFamilies is the order families are written in.
	lagFamilies = []*family{famCurrentOffset, famLag, famLagSum, famLagSeconds, famMembers, famInfo,
		famConsumeRate, famCatchUp, famBehind, famTopicEnd, famTopicStart, famProduceRate,
		famCurrentOffsetSum, famTopicPartitions, famBrokers, // kafkacompat.go
		famLagStale, famGroupStale, famGroupLastOK, famGroupMissing,
		famGroupStatus, famPartitionStatus} // status.go

	// The gather's own health: few series, read at scrape time (the age
	// changes between gathers), so they stay client_golang metrics.
	descGatherDuration = prometheus.NewDesc("offsetctl_gather_duration_seconds",
		"How long the latest gather took.", nil, nil)
	descGatherErrors = prometheus.NewDesc("offsetctl_gather_errors_total",
		"Gathers that were not complete (failed, cut by the interval, any group or partition not read, or any lagging partition's time lag not measured); what they could not read keeps its last values, marked by offsetctl_lag_stale.", nil, nil)
	descGatherSuccess = prometheus.NewDesc("offsetctl_gather_success",
		"1 when the latest gather read every selected group and partition and measured every lagging partition's time lag, 0 when any read failed or any time lag was not measured. A named group that does not exist does not make it 0 (its read answered; see offsetctl_consumergroup_missing).", nil, nil)
	descLastGather = prometheus.NewDesc("offsetctl_last_gather_timestamp_seconds",
		"Unix time the latest complete gather finished (absent before the first).", nil, nil)
	descAge = prometheus.NewDesc("offsetctl_snapshot_age_seconds",
		"Seconds since the latest complete gather finished: the age of the oldest value that may be served.", nil, nil)
	descGroupErrors = prometheus.NewDesc("offsetctl_gather_group_errors",
		"Groups the latest gather could not read (describe or committed offsets failed, or a group named on the command line does not exist: offsetctl_consumergroup_missing), or did not reach before it was cut.", nil, nil)
	descPartitionErrors = prometheus.NewDesc("offsetctl_gather_partition_errors",
		"Group-partitions whose read failed in the latest gather (committed offset or log offsets).", nil, nil)
	descTimeLagMissed = prometheus.NewDesc("offsetctl_gather_time_lag_missed",
		"Lagging group-partitions whose time lag the latest gather could not measure (not read within its time-lag budget, half the interval, or the read failed); their kafka_consumergroup_lag_seconds keeps its last value, marked by offsetctl_lag_stale (absent if it was never measured), and the gather is not complete.", nil, nil)
)

var descCommitSource = prometheus.NewDesc("offsetctl_commit_source",
	"Where the committed offsets come from (--commit-source): poll (OffsetFetch each gather) or offsets-topic (tailing __consumer_offsets); always 1.", []string{"source"}, nil)

var healthDescs = []*prometheus.Desc{descGatherDuration, descGatherErrors, descGatherSuccess, descLastGather, descAge,
	descGroupErrors, descPartitionErrors, descTimeLagMissed, descCommitSource}

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
	ok, dur, fail, errs, st := c.lastOK, c.lastDur, c.lastFail, c.errors, c.lastStats
	c.mu.Unlock()

	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	gauge(descGatherDuration, dur.Seconds())
	ch <- prometheus.MustNewConstMetric(descGatherErrors, prometheus.CounterValue, errs)
	gauge(descGatherSuccess, b2f(!fail && !ok.IsZero()))
	gauge(descGroupErrors, float64(st.groupErrors))
	gauge(descPartitionErrors, float64(st.partitionErrors))
	gauge(descTimeLagMissed, float64(st.timeLagMissed))
	gauge(descCommitSource, 1, cmp.Or(c.opts.CommitSource, SourcePoll))
	if ok.IsZero() {
		return
	}
	gauge(descLastGather, float64(ok.UnixNano())/1e9)
	gauge(descAge, c.opts.Now().Sub(ok).Seconds())
}

// topicOffsets is the log start and end shown of each partition of the
// written topics, by topic and partition.
type topicOffsets map[string]map[int32]lag.PartitionOffsets

// renderTopicOffsets writes the log start and end of the topics in
// offsets not written yet (a topic read by groups of several batches is
// written with its first batch's offsets) and records them in next. A
// partition whose offsets could not be listed keeps its values of prev
// (the last good ones), as a group's lag does.
func renderTopicOffsets(s *samples, offsets lag.TopicOffsets, written map[string]bool, prev, next topicOffsets) {
	topics := make([]string, 0, len(offsets.Partitions))
	for t := range offsets.Partitions {
		if !written[t] {
			topics = append(topics, t)
			written[t] = true
		}
	}
	sort.Strings(topics)
	for _, t := range topics {
		shown := make(map[int32]lag.PartitionOffsets, len(offsets.Partitions[t]))
		for p, po := range offsets.Partitions[t] {
			if po.Err != nil || po.End < 0 {
				old, ok := prev[t][p]
				if !ok {
					continue
				}
				po = old
			}
			shown[p] = po
		}
		next[t] = shown
		renderTopic(s, t, len(offsets.Partitions[t]), shown)
	}
}

// renderTopic writes one topic's partition count and the offsets shown of
// its partitions.
func renderTopic(s *samples, topic string, partitions int, shown map[int32]lag.PartitionOffsets) {
	s.add(famTopicPartitions, float64(partitions), topic)
	for _, p := range slices.Sorted(maps.Keys(shown)) {
		po := shown[p]
		part := strconv.Itoa(int(p))
		s.add(famTopicEnd, float64(po.End), part, topic)
		s.add(famTopicStart, float64(po.Start), part, topic)
	}
}

// carryTopics writes, for a gather that was not complete, the topics of
// prev it did not write, with their last values: only a complete gather
// may say a topic is no longer used.
func carryTopics(s *samples, written map[string]bool, prev, next topicOffsets) {
	for _, t := range slices.Sorted(maps.Keys(prev)) {
		if !written[t] {
			written[t] = true
			next[t] = prev[t]
			renderTopic(s, t, len(prev[t]), prev[t])
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
	snaps := make([]*snapshot, len(cols))
	for i, c := range cols {
		c.scraping.Add(1)
		defer c.scraping.Add(-1)
		c.mu.Lock()
		snaps[i] = c.last // never changed while it has readers
		if s := snaps[i]; s != nil {
			s.readers.Add(1) // under mu: see Collector.spare
			defer s.readers.Add(-1)
		}
		c.mu.Unlock()
	}
	pw := &pageWriter{w: w, buf: make([]byte, 0, pageFlush+4<<10)}
	for _, f := range lagFamilies {
		pw.family(f)
		for _, s := range snaps {
			if s == nil {
				continue
			}
			pw.cluster = s.text.cluster
			if f == famGroupMissing {
				for _, n := range s.named {
					pw.add(b2f(n.missing), n.group)
				}
				continue
			}
			if !groupFamilies[f] {
				pw.raw(s.text.lines[f])
				continue
			}
			for _, name := range s.groups {
				if pw.err != nil {
					break // the scraper is gone: the rest is for nobody
				}
				writeGroupFamily(pw, f, name, s.state[name])
			}
		}
		pw.flush()
		if pw.err != nil {
			return pw.err
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
