package exporter

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/offsetctl/offsetctl/internal/cluster"
	"github.com/offsetctl/offsetctl/internal/lag"
)

// fakeGatherer hands out prepared snapshots (or errors) in turn, each as
// batches of batch groups (all in one when batch is 0), every batch with
// the snapshot's offsets of the topics its groups touch, as
// lag.StreamLag's batches have.
type fakeGatherer struct {
	snaps []*lag.Snapshot
	errs  []error
	batch int
	n     int
	// cutAfter[i], when set, ends gather i with an error after that many
	// batches (a round cut by its deadline).
	cutAfter map[int]int
}

func (f *fakeGatherer) stream(ctx context.Context, req lag.GatherRequest, each func(context.Context, lag.LagBatch) error) error {
	i := f.n
	f.n++
	if i < len(f.errs) && f.errs[i] != nil {
		return f.errs[i]
	}
	s := f.snaps[i]
	size := f.batch
	if size <= 0 {
		size = len(s.Groups)
	}
	for lo := 0; lo < len(s.Groups); lo += size {
		if n, ok := f.cutAfter[i]; ok && lo/size == n {
			return context.DeadlineExceeded
		}
		b := &lag.Snapshot{Groups: s.Groups[lo:min(lo+size, len(s.Groups))], Isolation: s.Isolation, At: s.At,
			Offsets: lag.TopicOffsets{Partitions: map[string]map[int32]lag.PartitionOffsets{}}}
		for _, g := range b.Groups {
			for t := range g.Commits {
				b.Offsets.Partitions[t] = s.Offsets.Partitions[t]
			}
		}
		if err := each(ctx, lag.LagBatch{Snapshot: b, Report: lag.ComputeLagWith(b, lag.LagOptions{Scope: req.Scope})}); err != nil {
			return err
		}
	}
	return nil
}
func (f *fakeGatherer) close() {}

// handSnapshot: group "billing" (Stable, 1 member) on orders p0 committed
// 40 of 100 and p1 assigned but never committed; group "idle" (Empty)
// committed 100 of 100 on orders p0. orders p0 log 10..100, p1 0..50.
func handSnapshot(commit0, end0 int64) *lag.Snapshot {
	c := func(off int64) lag.Commit { return lag.Commit{Offset: off} }
	return &lag.Snapshot{
		Groups: []lag.GroupSnapshot{
			{GroupInfo: lag.GroupInfo{Group: "billing", Type: "classic", State: "Stable", ProtocolType: "consumer", Exists: true,
				Members: []lag.Member{{ID: "m1", ClientID: "c1", Host: "/10.0.0.1", Assigned: map[string][]int32{"orders": {0, 1}}}}},
				Commits: map[string]map[int32]lag.Commit{"orders": {0: c(commit0)}}},
			{GroupInfo: lag.GroupInfo{Group: "idle", Type: "consumer", State: "Empty", ProtocolType: "consumer", Exists: true},
				Commits: map[string]map[int32]lag.Commit{"orders": {0: c(end0)}}},
		},
		Offsets: lag.TopicOffsets{Partitions: map[string]map[int32]lag.PartitionOffsets{
			"orders": {0: {Start: 10, End: end0}, 1: {Start: 0, End: 50}},
		}},
	}
}

func newTestCollector(clock *time.Time, g *fakeGatherer) *Collector {
	c := New(cluster.Config{}, Options{Interval: 10 * time.Second, RateWindow: time.Minute, Now: func() time.Time { return *clock }})
	return c
}

func TestCollectValues(t *testing.T) {
	clock := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	g := &fakeGatherer{snaps: []*lag.Snapshot{handSnapshot(40, 100), handSnapshot(70, 110)}}
	c := newTestCollector(&clock, g)
	c.GatherOnce(context.Background(), g)
	clock = clock.Add(10 * time.Second)
	c.GatherOnce(context.Background(), g)
	clock = clock.Add(3 * time.Second)

	// Second gather: billing committed 70 of 110 on p0 (lag 40); p1 never
	// committed: no offset or lag series. Rates over 10 s: billing
	// consumed 30 (3/s), its partition grew 10 (1/s): ETA 40/(3-1) = 20 s.
	// idle: committed 110 of 110 (its commit follows the end here), lag 0.
	want := `
# HELP kafka_consumergroup_current_offset Committed offset of a consumer group on a partition.
# TYPE kafka_consumergroup_current_offset gauge
kafka_consumergroup_current_offset{consumergroup="billing",partition="0",topic="orders"} 70
kafka_consumergroup_current_offset{consumergroup="idle",partition="0",topic="orders"} 110
# HELP kafka_consumergroup_lag Log end minus committed offset. No series for a partition the group never committed.
# TYPE kafka_consumergroup_lag gauge
kafka_consumergroup_lag{consumergroup="billing",partition="0",topic="orders"} 40
kafka_consumergroup_lag{consumergroup="idle",partition="0",topic="orders"} 0
# HELP kafka_consumergroup_lag_sum Sum of kafka_consumergroup_lag over a group's partitions of one topic.
# TYPE kafka_consumergroup_lag_sum gauge
kafka_consumergroup_lag_sum{consumergroup="billing",topic="orders"} 40
kafka_consumergroup_lag_sum{consumergroup="idle",topic="orders"} 0
# HELP kafka_consumergroup_members Live members of a consumer group (0 for an Empty group).
# TYPE kafka_consumergroup_members gauge
kafka_consumergroup_members{consumergroup="billing"} 1
kafka_consumergroup_members{consumergroup="idle"} 0
# HELP kafka_consumergroup_info A consumer group's type (classic or consumer), state and protocol type; always 1.
# TYPE kafka_consumergroup_info gauge
kafka_consumergroup_info{consumergroup="billing",protocol="consumer",state="Stable",type="classic"} 1
kafka_consumergroup_info{consumergroup="idle",protocol="consumer",state="Empty",type="consumer"} 1
# HELP kafka_consumergroup_consume_rate Records per second the group commits past, over the rate window.
# TYPE kafka_consumergroup_consume_rate gauge
kafka_consumergroup_consume_rate{consumergroup="billing"} 3
kafka_consumergroup_consume_rate{consumergroup="idle"} 1
# HELP kafka_consumergroup_catchup_seconds Estimated seconds until the group's lag reaches zero at the current rates: lag / (consume rate - produce rate). Absent when the group is not catching up.
# TYPE kafka_consumergroup_catchup_seconds gauge
kafka_consumergroup_catchup_seconds{consumergroup="billing"} 20
kafka_consumergroup_catchup_seconds{consumergroup="idle"} 0
# HELP kafka_consumergroup_falling_behind 1 when the group has lag and does not consume faster than its partitions grow.
# TYPE kafka_consumergroup_falling_behind gauge
kafka_consumergroup_falling_behind{consumergroup="billing"} 0
kafka_consumergroup_falling_behind{consumergroup="idle"} 0
# HELP kafka_topic_partition_current_offset Log end offset of a partition (the high watermark, or the last stable offset with --isolation committed).
# TYPE kafka_topic_partition_current_offset gauge
kafka_topic_partition_current_offset{partition="0",topic="orders"} 110
kafka_topic_partition_current_offset{partition="1",topic="orders"} 50
# HELP kafka_topic_partition_oldest_offset Log start offset of a partition.
# TYPE kafka_topic_partition_oldest_offset gauge
kafka_topic_partition_oldest_offset{partition="0",topic="orders"} 10
kafka_topic_partition_oldest_offset{partition="1",topic="orders"} 0
# HELP kafka_topic_produce_rate Records per second appended to a topic, over the rate window.
# TYPE kafka_topic_produce_rate gauge
kafka_topic_produce_rate{topic="orders"} 1
# HELP kafka_consumergroup_current_offset_sum Sum of kafka_consumergroup_current_offset over a group's partitions of one topic.
# TYPE kafka_consumergroup_current_offset_sum gauge
kafka_consumergroup_current_offset_sum{consumergroup="billing",topic="orders"} 70
kafka_consumergroup_current_offset_sum{consumergroup="idle",topic="orders"} 110
# HELP kafka_topic_partitions Number of partitions of a topic (topics the exported groups have committed on).
# TYPE kafka_topic_partitions gauge
kafka_topic_partitions{topic="orders"} 2
# HELP offsetctl_gather_errors_total Gathers that were not complete (failed, cut by the interval, any group or partition not read, or any lagging partition's time lag not measured); what they could not read keeps its last values, marked by offsetctl_lag_stale.
# TYPE offsetctl_gather_errors_total counter
offsetctl_gather_errors_total 0
# HELP offsetctl_gather_success 1 when the latest gather read every selected group and partition and measured every lagging partition's time lag, 0 when any read failed or any time lag was not measured. A named group that does not exist does not make it 0 (its read answered; see offsetctl_consumergroup_missing).
# TYPE offsetctl_gather_success gauge
offsetctl_gather_success 1
# HELP offsetctl_snapshot_age_seconds Seconds since the latest complete gather finished: the age of the oldest value that may be served.
# TYPE offsetctl_snapshot_age_seconds gauge
offsetctl_snapshot_age_seconds 3
`
	names := []string{"kafka_consumergroup_current_offset", "kafka_consumergroup_lag", "kafka_consumergroup_lag_sum",
		"kafka_consumergroup_members", "kafka_consumergroup_info", "kafka_consumergroup_consume_rate",
		"kafka_consumergroup_catchup_seconds", "kafka_consumergroup_falling_behind", "kafka_topic_partition_current_offset",
		"kafka_topic_partition_oldest_offset", "kafka_topic_produce_rate", "kafka_consumergroup_current_offset_sum",
		"kafka_topic_partitions", "kafka_brokers", "offsetctl_gather_errors_total",
		"offsetctl_gather_success", "offsetctl_snapshot_age_seconds"}
	if err := testutil.GatherAndCompare(scraped(c), strings.NewReader(want), names...); err != nil {
		t.Fatal(err)
	}
	if got := testutil.ToFloat64(prometheus.CollectorFunc(func(ch chan<- prometheus.Metric) { c.Collect(filter(ch, "offsetctl_last_gather_timestamp_seconds")) })); got != float64(clock.Add(-3*time.Second).Unix()) {
		t.Errorf("last gather timestamp %v", got)
	}
	problems, err := testutil.GatherAndLint(scraped(c))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		// kafka_exporter's names, kept so existing dashboards work, are
		// the one accepted lint finding.
		if (p.Metric == "kafka_consumergroup_lag_sum" || p.Metric == "kafka_consumergroup_current_offset_sum") && strings.Contains(p.Text, `"_sum" suffix`) {
			continue
		}
		t.Errorf("lint: %s: %s", p.Metric, p.Text)
	}
	if _, err := scraped(c).Gather(); err != nil {
		t.Fatalf("pedantic registry: %v", err)
	}
}

// scraped is what Handler serves for c, read back with Prometheus' own
// text parser: a prometheus.Gatherer for testutil's comparisons. The
// health metrics go through a pedantic registry.
func scraped(c *Collector) prometheus.Gatherer {
	return prometheus.GathererFunc(func() ([]*dto.MetricFamily, error) {
		reg := prometheus.NewPedanticRegistry()
		if err := reg.Register(c); err != nil {
			return nil, err
		}
		rec := httptest.NewRecorder()
		Handler(reg, c).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
		if rec.Code != http.StatusOK {
			return nil, fmt.Errorf("scrape: HTTP %d: %s", rec.Code, rec.Body)
		}
		return parseText(rec.Body)
	})
}

// parseText parses the text format, failing on a family written twice
// (the format allows each family once).
func parseText(r io.Reader) ([]*dto.MetricFamily, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		if name, ok := strings.CutPrefix(line, "# TYPE "); ok {
			name, _, _ = strings.Cut(name, " ")
			if seen[name] {
				return nil, fmt.Errorf("family %s written twice", name)
			}
			seen[name] = true
		}
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	out := make([]*dto.MetricFamily, 0, len(fams))
	for _, mf := range fams {
		out = append(out, mf)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].GetName() < out[j].GetName() })
	return out, nil
}

// filter passes on only the metrics whose description names name.
func filter(out chan<- prometheus.Metric, name string) chan<- prometheus.Metric {
	in := make(chan prometheus.Metric)
	go func() {
		for m := range in {
			if strings.Contains(m.Desc().String(), `"`+name+`"`) {
				out <- m
			}
		}
	}()
	return in
}

func TestFailedGatherKeepsValuesAndCounts(t *testing.T) {
	clock := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	g := &fakeGatherer{snaps: []*lag.Snapshot{handSnapshot(40, 100), nil, nil}, errs: []error{nil, errors.New("broker down"), errors.New("broker down")}}
	c := newTestCollector(&clock, g)
	c.GatherOnce(context.Background(), g)
	for i := 0; i < 2; i++ {
		clock = clock.Add(10 * time.Second)
		c.GatherOnce(context.Background(), g)
	}
	want := `
# HELP offsetctl_gather_errors_total Gathers that were not complete (failed, cut by the interval, any group or partition not read, or any lagging partition's time lag not measured); what they could not read keeps its last values, marked by offsetctl_lag_stale.
# TYPE offsetctl_gather_errors_total counter
offsetctl_gather_errors_total 2
# HELP offsetctl_gather_success 1 when the latest gather read every selected group and partition and measured every lagging partition's time lag, 0 when any read failed or any time lag was not measured. A named group that does not exist does not make it 0 (its read answered; see offsetctl_consumergroup_missing).
# TYPE offsetctl_gather_success gauge
offsetctl_gather_success 0
# HELP offsetctl_snapshot_age_seconds Seconds since the latest complete gather finished: the age of the oldest value that may be served.
# TYPE offsetctl_snapshot_age_seconds gauge
offsetctl_snapshot_age_seconds 20
# HELP kafka_consumergroup_lag Log end minus committed offset. No series for a partition the group never committed.
# TYPE kafka_consumergroup_lag gauge
kafka_consumergroup_lag{consumergroup="billing",partition="0",topic="orders"} 60
kafka_consumergroup_lag{consumergroup="idle",partition="0",topic="orders"} 0
`
	if err := testutil.GatherAndCompare(scraped(c), strings.NewReader(want), "offsetctl_gather_errors_total", "offsetctl_gather_success", "offsetctl_snapshot_age_seconds", "kafka_consumergroup_lag"); err != nil {
		t.Fatal(err)
	}
	if c.Healthy() {
		t.Error("Healthy after a failed gather")
	}
}

func TestGroupThatVanishesLeavesNoSeries(t *testing.T) {
	clock := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	second := handSnapshot(40, 100)
	second.Groups = second.Groups[:1] // "idle" was deleted
	g := &fakeGatherer{snaps: []*lag.Snapshot{handSnapshot(40, 100), second}}
	c := newTestCollector(&clock, g)
	c.GatherOnce(context.Background(), g)
	if n, err := testutil.GatherAndCount(scraped(c), "kafka_consumergroup_members"); err != nil || n != 2 {
		t.Fatalf("%d members series, want 2", n)
	}
	c.GatherOnce(context.Background(), g)
	if n, err := testutil.GatherAndCount(scraped(c), "kafka_consumergroup_members"); err != nil || n != 1 {
		t.Fatalf("%d members series after the group vanished, want 1", n)
	}
}

// TestPartialGatherKeepsLastValuesStale: a gather that could not read a
// partition (its log offsets failed) or a group (describe failed), or
// that was cut before reaching a group, publishes the last good values of
// what it missed, marked stale, never fewer series and never a lower lag;
// its success is 0 and it counts the groups and partitions it missed. A
// complete gather clears the marks; a group goes only when a complete
// gather no longer selects it, or a read says it does not exist.
func TestPartialGatherKeepsLastValuesStale(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	clock := t0
	failing := handSnapshot(70, 110) // billing moved on: lag 40 if read
	failing.Offsets.Partitions["orders"][0] = lag.PartitionOffsets{Start: -1, End: -1, Err: errors.New("NOT_LEADER_OR_FOLLOWER")}
	failing.Groups[1].Err = errors.New("COORDINATOR_NOT_AVAILABLE")
	deleted := handSnapshot(70, 110)
	deleted.Groups[1] = lag.GroupSnapshot{GroupInfo: lag.GroupInfo{Group: "idle", State: "Dead"}}
	unlisted := handSnapshot(70, 110)
	unlisted.Groups = unlisted.Groups[:1]
	g := &fakeGatherer{batch: 1, cutAfter: map[int]int{3: 1},
		snaps: []*lag.Snapshot{handSnapshot(40, 100), failing, handSnapshot(70, 110), handSnapshot(80, 120), unlisted, deleted}}
	c := newTestCollector(&clock, g)
	type want struct {
		success, groupErrs, partErrs float64
		lag                          map[string]float64 // by group, orders p0
		stale                        map[string]float64 // offsetctl_lag_stale by group (absent: 0)
		groupStale                   map[string]float64
		lastOK                       map[string]time.Time
	}
	check := func(round string, w want) {
		t.Helper()
		fams, err := scraped(c).Gather()
		if err != nil {
			t.Fatal(err)
		}
		byName := map[string]*dto.MetricFamily{}
		for _, f := range fams {
			byName[f.GetName()] = f
		}
		values := func(name string) map[string]float64 {
			out := map[string]float64{}
			if f := byName[name]; f != nil {
				for _, m := range f.Metric {
					var group string
					for _, l := range m.Label {
						if l.GetName() == "consumergroup" {
							group = l.GetValue()
						}
					}
					v := m.GetGauge().GetValue()
					if m.Counter != nil {
						v = m.GetCounter().GetValue()
					}
					out[group] = v
				}
			}
			return out
		}
		eq := func(what string, got, want map[string]float64) {
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s: %s = %v, want %v", round, what, got, want)
			}
		}
		eq("gather_success", values("offsetctl_gather_success"), map[string]float64{"": w.success})
		eq("gather_group_errors", values("offsetctl_gather_group_errors"), map[string]float64{"": w.groupErrs})
		eq("gather_partition_errors", values("offsetctl_gather_partition_errors"), map[string]float64{"": w.partErrs})
		eq("kafka_consumergroup_lag", values("kafka_consumergroup_lag"), w.lag)
		eq("offsetctl_lag_stale", values("offsetctl_lag_stale"), w.stale)
		eq("offsetctl_consumergroup_stale", values("offsetctl_consumergroup_stale"), w.groupStale)
		lastOK := map[string]float64{}
		for grp, at := range w.lastOK {
			lastOK[grp] = float64(at.Unix())
		}
		eq("offsetctl_consumergroup_last_success_timestamp_seconds", values("offsetctl_consumergroup_last_success_timestamp_seconds"), lastOK)
		members := values("kafka_consumergroup_members")
		if len(members) != len(w.lag) {
			t.Errorf("%s: members series %v, want one per group of %v", round, members, w.lag)
		}
	}
	gather := func() {
		c.GatherOnce(context.Background(), g)
		clock = clock.Add(10 * time.Second)
	}
	t1, t2, t3, t4 := t0, t0.Add(10*time.Second), t0.Add(20*time.Second), t0.Add(30*time.Second)

	gather()
	check("complete", want{1, 0, 0, map[string]float64{"billing": 60, "idle": 0}, map[string]float64{},
		map[string]float64{"billing": 0, "idle": 0}, map[string]time.Time{"billing": t1, "idle": t1}})
	gather()
	check("partition and group failed", want{0, 1, 1, map[string]float64{"billing": 60, "idle": 0}, map[string]float64{"billing": 1, "idle": 1},
		map[string]float64{"billing": 1, "idle": 1}, map[string]time.Time{"billing": t1, "idle": t1}})
	if c.Healthy() {
		t.Error("Healthy after a gather that missed a group and a partition")
	}
	// The log end of orders p0 could not be listed: its last good value
	// stays; p1's is read (50).
	topicEnds := `
# HELP kafka_topic_partition_current_offset Log end offset of a partition (the high watermark, or the last stable offset with --isolation committed).
# TYPE kafka_topic_partition_current_offset gauge
kafka_topic_partition_current_offset{partition="0",topic="orders"} 100
kafka_topic_partition_current_offset{partition="1",topic="orders"} 50
`
	if err := testutil.GatherAndCompare(scraped(c), strings.NewReader(topicEnds), "kafka_topic_partition_current_offset"); err != nil {
		t.Errorf("partition and group failed: %v", err)
	}
	gather()
	check("complete again", want{1, 0, 0, map[string]float64{"billing": 40, "idle": 0}, map[string]float64{},
		map[string]float64{"billing": 0, "idle": 0}, map[string]time.Time{"billing": t3, "idle": t3}})
	gather()
	check("cut after billing", want{0, 1, 0, map[string]float64{"billing": 40, "idle": 0}, map[string]float64{"idle": 1},
		map[string]float64{"billing": 0, "idle": 1}, map[string]time.Time{"billing": t4, "idle": t3}})
	gather()
	check("complete, idle no longer listed", want{1, 0, 0, map[string]float64{"billing": 40}, map[string]float64{},
		map[string]float64{"billing": 0}, map[string]time.Time{"billing": t4.Add(10 * time.Second)}})
	_ = t2
	if errs := testutil.ToFloat64(prometheus.CollectorFunc(func(ch chan<- prometheus.Metric) { c.Collect(filter(ch, "offsetctl_gather_errors_total")) })); errs != 2 {
		t.Errorf("gather_errors_total %v after 2 incomplete gathers", errs)
	}

	// A gather that fails before any batch keeps every group and topic.
	g.errs = make([]error, 6)
	g.snaps = append(g.snaps, nil)
	g.errs = append(g.errs, errors.New("listing groups: broker down"))
	g.n = 6
	gather()
	if err := testutil.GatherAndCompare(scraped(c), strings.NewReader(`
# HELP kafka_topic_partition_current_offset Log end offset of a partition (the high watermark, or the last stable offset with --isolation committed).
# TYPE kafka_topic_partition_current_offset gauge
kafka_topic_partition_current_offset{partition="0",topic="orders"} 110
kafka_topic_partition_current_offset{partition="1",topic="orders"} 50
`), "kafka_topic_partition_current_offset"); err != nil {
		t.Errorf("a failed gather dropped topic offsets: %v", err)
	}
	if n, err := testutil.GatherAndCount(scraped(c), "offsetctl_lag_stale"); err != nil || n != 1 {
		t.Errorf("%d stale partitions after a failed gather (%v), want billing's 1", n, err)
	}

	// A read that says the group does not exist removes it at once, even
	// in a gather cut later (the third: cut after its first batch, with
	// idle's "does not exist" in that batch).
	c = newTestCollector(&clock, &fakeGatherer{})
	idleFirst := handSnapshot(70, 110)
	idleFirst.Groups = []lag.GroupSnapshot{deleted.Groups[1], idleFirst.Groups[0]}
	g2 := &fakeGatherer{batch: 1, cutAfter: map[int]int{3: 1}, snaps: []*lag.Snapshot{handSnapshot(70, 110), deleted, handSnapshot(70, 110), idleFirst}}
	c.GatherOnce(context.Background(), g2)
	c.GatherOnce(context.Background(), g2)
	if n, err := testutil.GatherAndCount(scraped(c), "kafka_consumergroup_members"); err != nil || n != 1 {
		t.Errorf("%d members series after a read said idle does not exist (%v), want 1", n, err)
	}
	if !c.Healthy() {
		t.Error("a group that does not exist made the gather fail")
	}
	c.GatherOnce(context.Background(), g2) // idle is back
	c.GatherOnce(context.Background(), g2) // idle gone, then cut before billing
	if n, err := testutil.GatherAndCount(scraped(c), "kafka_consumergroup_members"); err != nil || n != 1 {
		t.Errorf("%d members series after a cut gather read that idle does not exist (%v), want billing's 1", n, err)
	}
}

// blockingWriter holds its first Write until release is closed.
type blockingWriter struct {
	started, release chan struct{}
	once             sync.Once
	buf              bytes.Buffer
}

func (w *blockingWriter) Write(b []byte) (int, error) {
	w.once.Do(func() { close(w.started); <-w.release })
	return w.buf.Write(b)
}

// TestRetiredPageRowsRecycled: a gather writes its rows over those of the
// page before the latest only when no scrape is writing that page; a
// scrape that took the page before a gather writes it whole and
// unchanged however many gathers run meanwhile.
func TestRetiredPageRowsRecycled(t *testing.T) {
	clock := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	g := &fakeGatherer{snaps: []*lag.Snapshot{handSnapshot(40, 100), handSnapshot(50, 101), handSnapshot(60, 102),
		handSnapshot(70, 103), handSnapshot(80, 104)}}
	c := newTestCollector(&clock, g)
	gather := func() *groupState {
		c.GatherOnce(context.Background(), g)
		clock = clock.Add(10 * time.Second)
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.last.state["billing"]
	}
	s1 := gather()
	s1rows := &s1.rows[0]
	gather()
	// Gather 3: the page of gather 1 has no reader: its rows are reused.
	if s3 := gather(); &s3.rows[0] != s1rows || s3.rows[0].committed != 60 {
		t.Fatalf("gather 3 did not write over gather 1's unread rows (committed %d)", s3.rows[0].committed)
	}
	// A scrape takes gather 3's page and stalls in its first write.
	w := &blockingWriter{started: make(chan struct{}), release: make(chan struct{})}
	done := make(chan error)
	go func() { done <- WriteText(w, c) }()
	<-w.started
	c.mu.Lock()
	s3 := c.last.state["billing"]
	c.mu.Unlock()
	s3rows := &s3.rows[0]
	gather() // gather 4: retires gather 3's page, still read
	s5 := gather()
	if &s5.rows[0] == s3rows || s3.rows[0].committed != 60 {
		t.Fatalf("gather 5 wrote over the rows of a page a scrape is writing (committed %d)", s3.rows[0].committed)
	}
	close(w.release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if page := w.buf.String(); !strings.Contains(page, `kafka_consumergroup_current_offset{consumergroup="billing",partition="0",topic="orders"} 60`) ||
		!strings.Contains(page, `kafka_consumergroup_lag{consumergroup="billing",partition="0",topic="orders"} 42`) {
		t.Errorf("the stalled scrape's page is not gather 3's:\n%s", page)
	}
}
