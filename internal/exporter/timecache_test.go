package exporter

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/offsetctl/offsetctl/internal/cluster"
	"github.com/offsetctl/offsetctl/internal/lag"
)

func TestTimeLagCache(t *testing.T) {
	now := time.UnixMilli(1_000_000)
	var reads [][]int64 // next offsets asked for, per read
	// The log: the record at offset o was written at o*10 ms.
	read := func(_ context.Context, _ cluster.Config, rep *lag.LagReport, _ lag.Isolation, at time.Time) (int, error) {
		var asked []int64
		for gi := range rep.Groups {
			for pi := range rep.Groups[gi].Partitions {
				p := &rep.Groups[gi].Partitions[pi]
				off := nextOffset(p)
				asked = append(asked, off)
				p.TimeLagMs = new(at.UnixMilli() - off*10)
			}
		}
		reads = append(reads, asked)
		return 0, nil
	}
	rep := func(c0, c1 int64) lag.LagReport {
		return lagRep("g", []*int64{i64(c0), i64(c1), nil}, []int64{90_000, 90_000, 90_000})
	}

	var cache timeCache
	cache.begin()
	r1 := rep(100, 200)
	missed := fillTimeLag(context.Background(), read, cluster.Config{}, &r1, lag.ReadUncommitted, now, &cache, nil)
	if missed != 0 {
		t.Fatalf("%d rows missed", missed)
	}
	if len(reads) != 1 || len(reads[0]) != 2 {
		t.Fatalf("first round read %v, want both committed lagging partitions once", reads)
	}
	if got := *r1.Groups[0].Partitions[0].TimeLagMs; got != 1_000_000-1000 {
		t.Fatalf("time lag %d", got)
	}
	if r1.Groups[0].Partitions[2].TimeLagMs != nil {
		t.Error("a never-committed row got a time lag")
	}

	// Second round 5 s later: partition 0 did not move (served from the
	// cache, its age grows by 5 s), partition 1 moved to 300 (read again).
	later := now.Add(5 * time.Second)
	cache.prune()
	cache.begin()
	r2 := rep(100, 300)
	missed = fillTimeLag(context.Background(), read, cluster.Config{}, &r2, lag.ReadUncommitted, later, &cache, nil)
	if missed != 0 {
		t.Fatalf("%d rows missed", missed)
	}
	if len(reads) != 2 || len(reads[1]) != 1 || reads[1][0] != 300 {
		t.Fatalf("second round read %v, want only offset 300", reads)
	}
	if got := *r2.Groups[0].Partitions[0].TimeLagMs; got != 1_005_000-1000 {
		t.Errorf("cached time lag %d, want %d", got, 1_005_000-1000)
	}
	if got := *r2.Groups[0].Partitions[1].TimeLagMs; got != 1_005_000-3000 {
		t.Errorf("re-read time lag %d", got)
	}
	// Pruned after the round, the cache holds its keys only: offset 200
	// is gone.
	cache.prune()
	if cache.has(timeKey{"t", 1, 200}) || cache.len() != 2 {
		t.Errorf("cache of %d, want only offsets 100 and 300", cache.len())
	}

	// A third round with nothing moved reads nothing.
	cache.begin()
	r3 := rep(100, 300)
	if missed := fillTimeLag(context.Background(), read, cluster.Config{}, &r3, lag.ReadUncommitted, later, &cache, nil); missed != 0 {
		t.Fatalf("%d rows missed", missed)
	}
	if len(reads) != 2 {
		t.Errorf("an unchanged round read the log: %v", reads)
	}
}

func i64(v int64) *int64 { return &v }

// lagRep is a one-group, one-topic report with the given committed offsets
// and log ends per partition (nil committed: never committed, no lag).
func lagRep(group string, committed []*int64, ends []int64) lag.LagReport {
	g := lag.GroupLag{Group: group, Type: "classic", State: "Stable"}
	for i := range committed {
		p := lag.PartitionLag{Topic: "t", Partition: int32(i), LogStart: 0, LogEnd: ends[i], Committed: committed[i]}
		if committed[i] != nil {
			p.Lag = new(ends[i] - *committed[i])
		}
		g.Partitions = append(g.Partitions, p)
	}
	return lag.LagReport{Groups: []lag.GroupLag{g}}
}

// TestRoundTimeLagBudget: a time-lag read that would never finish (it
// waits for its context) is cut at the round's time-lag budget (half the
// interval); the round still reads every batch after it. On a first round
// the row left out has no lag_seconds to keep, so its series is absent:
// the page says so, the row counted and the gather not complete (it was
// complete before, so an absent series read as no lag on a page that read
// fresh); the rows without lag still get 0.
func TestRoundTimeLagBudget(t *testing.T) {
	clock := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	g := &fakeGatherer{batch: 1, snaps: []*lag.Snapshot{handSnapshot(40, 100)}}
	c := New(cluster.Config{}, Options{Interval: time.Second, TimeLag: true, Now: func() time.Time { return clock }})
	calls := 0
	c.read = func(ctx context.Context, _ cluster.Config, rep *lag.LagReport, _ lag.Isolation, _ time.Time) (int, error) {
		calls++
		<-ctx.Done()
		n := 0
		for _, g := range rep.Groups {
			n += len(g.Partitions)
		}
		return n, nil
	}
	done := make(chan struct{})
	go func() { c.GatherOnce(context.Background(), g); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the round did not end: the time-lag read held it")
	}
	if calls != 1 {
		t.Errorf("%d time-lag reads, want 1 (billing's lagging partition; idle has no lag)", calls)
	}
	want := `
# HELP kafka_consumergroup_lag_seconds Age of the next record the group has not consumed, read from the log's own timestamps (0 without lag).
# TYPE kafka_consumergroup_lag_seconds gauge
kafka_consumergroup_lag_seconds{consumergroup="idle",partition="0",topic="orders"} 0
# HELP offsetctl_gather_success 1 when the latest gather read every selected group and partition and measured every lagging partition's time lag, 0 when any read failed or any time lag was not measured. A named group that does not exist does not make it 0 (its read answered; see offsetctl_consumergroup_missing).
# TYPE offsetctl_gather_success gauge
offsetctl_gather_success 0
# HELP offsetctl_gather_time_lag_missed Lagging group-partitions whose time lag the latest gather could not measure (not read within its time-lag budget, half the interval, or the read failed); their kafka_consumergroup_lag_seconds keeps its last value, marked by offsetctl_lag_stale (absent if it was never measured), and the gather is not complete.
# TYPE offsetctl_gather_time_lag_missed gauge
offsetctl_gather_time_lag_missed 1
`
	if err := testutil.GatherAndCompare(scraped(c), strings.NewReader(want), "kafka_consumergroup_lag_seconds", "offsetctl_gather_success", "offsetctl_gather_time_lag_missed"); err != nil {
		t.Fatal(err)
	}
	if n, err := testutil.GatherAndCount(scraped(c), "kafka_consumergroup_lag"); err != nil || n != 2 {
		t.Errorf("%d lag series (%v): the batch after the cut search was not read", n, err)
	}
}

// TestTimeLagCacheAcrossBatches: a position read for one batch serves the
// later batches of the same round (groups of a fleet share positions), so
// a round reads it once; a round that failed keeps the positions it did
// not use, and a complete round drops them.
func TestTimeLagCacheAcrossBatches(t *testing.T) {
	clock := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	snap := func(commit int64) *lag.Snapshot {
		s := &lag.Snapshot{Offsets: lag.TopicOffsets{Partitions: map[string]map[int32]lag.PartitionOffsets{"t": {0: {Start: 0, End: 100}}}}}
		for _, name := range []string{"a", "b", "c"} {
			s.Groups = append(s.Groups, lag.GroupSnapshot{GroupInfo: lag.GroupInfo{Group: name, Type: "classic", State: "Empty", ProtocolType: "consumer", Exists: true},
				Commits: map[string]map[int32]lag.Commit{"t": {0: {Offset: commit}}}})
		}
		return s
	}
	g := &fakeGatherer{batch: 1, snaps: []*lag.Snapshot{snap(10), snap(20), snap(10), snap(10)}, errs: []error{nil, context.DeadlineExceeded, nil, nil}}
	c := New(cluster.Config{}, Options{Interval: time.Minute, TimeLag: true, Now: func() time.Time { return clock }})
	var reads []int64
	c.read = func(_ context.Context, _ cluster.Config, rep *lag.LagReport, _ lag.Isolation, at time.Time) (int, error) {
		for gi := range rep.Groups {
			for pi := range rep.Groups[gi].Partitions {
				p := &rep.Groups[gi].Partitions[pi]
				reads = append(reads, nextOffset(p))
				p.TimeLagMs = new(int64(1000))
			}
		}
		return 0, nil
	}
	c.GatherOnce(context.Background(), g)
	if len(reads) != 1 || reads[0] != 10 {
		t.Fatalf("reads %v, want offset 10 once for the 3 batches", reads)
	}
	if !strings.Contains(pageText(t, c), `kafka_consumergroup_lag_seconds{consumergroup="c",partition="0",topic="t"} 1`+"\n") {
		t.Error("the last batch's row has no time lag from the cache")
	}
	c.GatherOnce(context.Background(), g) // failed: nothing used, nothing dropped
	if !c.cache.has(timeKey{"t", 0, 10}) {
		t.Fatal("a failed round dropped the cached position")
	}
	c.GatherOnce(context.Background(), g) // complete, uses offset 10: no read
	if len(reads) != 1 {
		t.Fatalf("reads %v: a cached position read again", reads)
	}
	c.cache.put(timeKey{"t", 0, 99}, 5) // this round's, kept by prune
	c.cache.put(timeKey{"t", 0, 98}, 5)
	c.cache.entries[c.cache.at[posKey{c.cache.topics["t"].n, 0, 98}]].round-- // an earlier round's
	c.cache.prune()
	if c.cache.has(timeKey{"t", 0, 98}) {
		t.Error("prune kept a position of an earlier round")
	}
	if c.cache.len() != 2 {
		t.Errorf("cache of %d, want offsets 10 and 99", c.cache.len())
	}
}

// identify drops the positions of a topic whose id changed (created again)
// and only those; a topic seen first, or with its id unchanged, keeps its
// positions; ids the round did not look up are pruned with the positions.
func TestTimeCacheIdentify(t *testing.T) {
	var c timeCache
	c.begin()
	a1, a2, b1 := [16]byte{1}, [16]byte{2}, [16]byte{3}
	c.put(timeKey{"a", 0, 5}, 100)
	c.identify(map[string][16]byte{"a": a1, "b": b1}) // first seen: kept
	c.put(timeKey{"b", 0, 5}, 200)
	if _, ok := c.get(timeKey{"a", 0, 5}); !ok {
		t.Fatal("a's position dropped when its id was first seen")
	}
	c.begin()
	c.identify(map[string][16]byte{"a": a2, "b": b1})
	if _, ok := c.get(timeKey{"a", 0, 5}); ok {
		t.Error("a was created again (new id) but its old position is still served")
	}
	if ms, ok := c.get(timeKey{"b", 0, 5}); !ok || ms != 200 {
		t.Errorf("b (same id) lost its position: %d %v", ms, ok)
	}
	c.put(timeKey{"a", 0, 5}, 300)
	c.begin()
	c.identify(map[string][16]byte{"a": a2}) // b not looked up this round
	c.get(timeKey{"a", 0, 5})
	c.prune()
	if _, ok := c.ids["b"]; ok {
		t.Error("b's id kept after a round that did not look it up")
	}
	if ms, ok := c.get(timeKey{"a", 0, 5}); !ok || ms != 300 {
		t.Errorf("a's new position: %d %v, want 300", ms, ok)
	}
}

// has reports whether k is cached, without marking it used.
func (c *timeCache) has(k timeKey) bool {
	t, ok := c.topics[k.topic]
	if !ok {
		return false
	}
	_, ok = c.at[posKey{t.n, k.partition, k.offset}]
	return ok
}

// The cache's slots: a position put again keeps its slot; prune frees the
// slots of positions unused, which later puts take; a topic unused by a
// round loses its number, and one created again gets a new number at
// once, its old positions out of reach and then freed; the last-topic
// shortcut never serves a dropped topic.
func TestTimeCacheSlots(t *testing.T) {
	var c timeCache
	c.begin()
	c.put(timeKey{"a", 0, 1}, 10)
	c.put(timeKey{"a", 0, 1}, 11)
	c.put(timeKey{"b", 0, 1}, 20)
	c.put(timeKey{"a", 1, 1}, 30)
	if c.len() != 3 || len(c.entries) != 3 {
		t.Fatalf("%d positions in %d slots, want 3 in 3", c.len(), len(c.entries))
	}
	if ms, ok := c.get(timeKey{"a", 0, 1}); !ok || ms != 11 {
		t.Fatalf("a/0@1 = %d %v, want 11", ms, ok)
	}
	c.begin()
	c.get(timeKey{"a", 1, 1}) // only this one used
	c.prune()
	if c.len() != 1 || len(c.free) != 2 || len(c.topics) != 1 {
		t.Fatalf("after prune: %d positions, %d free, topics %v", c.len(), len(c.free), c.topics)
	}
	c.begin()
	c.put(timeKey{"b", 0, 2}, 40) // b numbered anew, a freed slot reused
	c.put(timeKey{"c", 0, 2}, 50)
	if len(c.entries) != 3 || len(c.free) != 0 {
		t.Fatalf("%d slots, %d free: the freed slots were not reused", len(c.entries), len(c.free))
	}
	if ms, ok := c.get(timeKey{"b", 0, 2}); !ok || ms != 40 {
		t.Fatalf("b/0@2 = %d %v, want 40", ms, ok)
	}
	if _, ok := c.get(timeKey{"b", 0, 1}); ok {
		t.Fatal("b/0@1, pruned, still served")
	}
	c.identify(map[string][16]byte{"c": {1}})
	c.get(timeKey{"c", 0, 2}) // the last topic looked up, then created again:
	c.identify(map[string][16]byte{"c": {2}})
	if _, ok := c.get(timeKey{"c", 0, 2}); ok {
		t.Fatal("c was created again, its old position still served")
	}
	c.get(timeKey{"a", 1, 1})
	c.get(timeKey{"b", 0, 2})
	c.prune()
	if c.len() != 2 || len(c.free) != 1 {
		t.Fatalf("%d positions, %d free, want 2 and c's slot free", c.len(), len(c.free))
	}
	c.begin()
	c.prune()
	if c.len() != 0 || len(c.entries) != 0 || len(c.free) != 0 || len(c.topics) != 0 {
		t.Fatalf("empty round left %d positions, %d slots, %d free, topics %v", c.len(), len(c.entries), len(c.free), c.topics)
	}
}

// TestTimeLagFromPageRows: a row whose commit stayed put takes its time
// lag from the group's row on the page, read nowhere; every other row
// (moved, stale, below the log start, no time lag above 0 on the
// page, a topic created again, a group with no page) is read.
func TestTimeLagFromPageRows(t *testing.T) {
	now := time.UnixMilli(1_000_000)
	var asked []int64
	// The log: the record at offset o was written at o*10 ms.
	read := func(_ context.Context, _ cluster.Config, rep *lag.LagReport, _ lag.Isolation, at time.Time) (int, error) {
		for gi := range rep.Groups {
			for pi := range rep.Groups[gi].Partitions {
				p := &rep.Groups[gi].Partitions[pi]
				asked = append(asked, int64(p.Partition))
				p.TimeLagMs = new(at.UnixMilli() - nextOffset(p)*10)
			}
		}
		return 0, nil
	}
	noRates := func(lag.GroupLag) *lag.Progress { return nil }
	ends := []int64{90_000, 90_000, 90_000, 90_000, 90_000}
	r1 := lagRep("g", []*int64{i64(100), i64(200), i64(300), i64(400), i64(500)}, ends)
	var c1 timeCache
	c1.begin()
	fillTimeLag(context.Background(), read, cluster.Config{}, &r1, lag.ReadUncommitted, now, &c1, nil)
	page, _, _ := mergeGroup(nil, r1.Groups[0], "consumer", noRates, now, nil, true)
	page.rows[2].stale = true  // carried from an earlier gather
	page.rows[4].timeLagMs = 0 // no record past the commit then
	prev := map[string]*groupState{"g": page}

	later := now.Add(5 * time.Second)
	round := func(renamed bool, prev map[string]*groupState) (lag.LagReport, []int64) {
		asked = nil
		r := lagRep("g", []*int64{i64(100), i64(250), i64(300), i64(400), i64(500)}, ends)
		r.Groups[0].Partitions[3].LogStart = 401 // the commit expired: the next offset is the log start
		r.Groups[0].Partitions[0].LogStart = 100 // the commit at the log start: still the next offset
		var c timeCache                          // empty: whatever the page does not give is read
		c.begin()
		if renamed {
			c.renamed = map[string]bool{"t": true}
		}
		if missed := fillTimeLag(context.Background(), read, cluster.Config{}, &r, lag.ReadUncommitted, later, &c, prev); missed != 0 {
			t.Fatalf("%d rows missed", missed)
		}
		return r, asked
	}
	r2, got := round(false, prev)
	if want := []int64{1, 2, 3, 4}; !slices.Equal(got, want) {
		t.Fatalf("read partitions %v, want %v (only partition 0 from the page)", got, want)
	}
	if got := *r2.Groups[0].Partitions[0].TimeLagMs; got != 1_005_000-1000 {
		t.Errorf("partition 0 time lag from the page %d, want %d", got, 1_005_000-1000)
	}
	// The next round's page, built from this round, serves the same rows again.
	page2, _, _ := mergeGroup(page, r2.Groups[0], "consumer", noRates, later, nil, true)
	later = later.Add(5 * time.Second)
	r3, got := round(false, map[string]*groupState{"g": page2})
	if want := []int64{3}; !slices.Equal(got, want) {
		t.Errorf("round 3 read partitions %v, want %v", got, want)
	}
	for p, off := range map[int]int64{0: 100, 1: 250, 2: 300, 4: 500} {
		if got, want := *r3.Groups[0].Partitions[p].TimeLagMs, later.UnixMilli()-off*10; got != want {
			t.Errorf("round 3 partition %d time lag %d, want %d", p, got, want)
		}
	}
	if _, got := round(true, prev); len(got) != 5 {
		t.Errorf("topic created again: read %v, want every partition", got)
	}
	if _, got := round(false, map[string]*groupState{"other": page}); len(got) != 5 {
		t.Errorf("group without a page: read %v, want every partition", got)
	}
	unread := *page
	unread.read = time.Time{}
	if _, got := round(false, map[string]*groupState{"g": &unread}); len(got) != 5 {
		t.Errorf("page without its read time: read %v, want every partition", got)
	}
}

// TestReportTopics: the topics of a report's rows, sorted, each once, from
// each group's Topics, or its rows where a report left Topics out.
func TestReportTopics(t *testing.T) {
	row := func(topic string) lag.PartitionLag { return lag.PartitionLag{Topic: topic} }
	rep := lag.LagReport{Groups: []lag.GroupLag{
		{Group: "a", Topics: []string{"orders", "audit"}, Partitions: []lag.PartitionLag{row("orders"), row("audit")}},
		{Group: "b", Partitions: []lag.PartitionLag{row("billing"), row("billing"), row("zeta")}},
		{Group: "c"},
		{Group: "d", Topics: []string{"orders"}, Partitions: []lag.PartitionLag{row("orders")}},
	}}
	if got, want := reportTopics(rep), []string{"audit", "billing", "orders", "zeta"}; !slices.Equal(got, want) {
		t.Errorf("reportTopics = %v, want %v", got, want)
	}
}
