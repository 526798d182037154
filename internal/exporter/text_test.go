package exporter

import (
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/offsetctl/offsetctl/internal/cluster"
	"github.com/offsetctl/offsetctl/internal/lag"
)

// Group and topic names are label values as they are: quotes, backslashes
// and UTF-8 come back from Prometheus' own parser byte for byte; a byte
// that is not UTF-8 comes back as the text \xNN (label values must be
// UTF-8), so names that differ only there stay distinct series, never a
// broken scrape. Control characters (a line feed, ESC, DEL, a C1 control)
// come back as the text \xNN or \u00NN: none reaches the page raw.
func TestTextLabelValuesRoundTrip(t *testing.T) {
	names := []string{`a"b`, `back\slash`, "line\nfeed", `line\x0afeed`, "ünïcødé-✓", `\"\n`, "bad\xffutf8", "{x=\"1\"} 2",
		"dup\xffx", "dup\uFFFDx", "bad\xfe", "evil\x1b[2K\x1b[1Gbilling", "tab\tdel\x7f", "nul\x00", "c1\u0085\u009bx"}
	label := map[string]string{"bad\xffutf8": `bad\xffutf8`, "dup\xffx": `dup\xffx`, "bad\xfe": `bad\xfe`,
		"line\nfeed": `line\x0afeed`, "evil\x1b[2K\x1b[1Gbilling": `evil\x1b[2K\x1b[1Gbilling`,
		"tab\tdel\x7f": `tab\x09del\x7f`, "nul\x00": `nul\x00`, "c1\u0085\u009bx": `c1\u0085\u009bx`,
		// A backslash is written as two: the name holding the text \x0a
		// and the one holding a line feed are two series.
		`back\slash`: `back\\slash`, `\"\n`: `\\"\\n`, `line\x0afeed`: `line\\x0afeed`}
	snap := &lag.Snapshot{Offsets: lag.TopicOffsets{Partitions: map[string]map[int32]lag.PartitionOffsets{}}}
	for _, n := range names {
		snap.Offsets.Partitions["t-"+n] = map[int32]lag.PartitionOffsets{0: {Start: 1, End: 9}}
		snap.Groups = append(snap.Groups, lag.GroupSnapshot{
			GroupInfo: lag.GroupInfo{Group: n, Type: "classic", State: "Empty", Exists: true},
			Commits:   map[string]map[int32]lag.Commit{"t-" + n: {0: {Offset: 4}}},
		})
	}
	clock := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	g := &fakeGatherer{snaps: []*lag.Snapshot{snap}}
	c := newTestCollector(&clock, g)
	c.GatherOnce(context.Background(), g)
	var page strings.Builder
	if err := WriteText(&page, c); err != nil {
		t.Fatal(err)
	}
	for i, r := range page.String() {
		if (r < 0x20 && r != '\n') || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			t.Fatalf("control character %U raw on the page at byte %d", r, i)
		}
	}
	fams, err := scraped(c).Gather()
	if err != nil {
		t.Fatalf("the scrape does not parse: %v", err)
	}
	got := map[string]float64{} // group/topic → lag
	for _, mf := range fams {
		if mf.GetName() != "kafka_consumergroup_lag" {
			continue
		}
		for _, m := range mf.Metric {
			l := map[string]string{}
			for _, lp := range m.Label {
				l[lp.GetName()] = lp.GetValue()
			}
			got[l["consumergroup"]+"/"+l["topic"]] = m.GetGauge().GetValue()
		}
	}
	for _, n := range names {
		want := n
		if l, ok := label[n]; ok {
			want = l
		}
		if v, ok := got[want+"/t-"+want]; !ok || v != 5 {
			t.Errorf("group %q: lag series %v (present %v), want 5; got %v", n, v, ok, got)
		}
	}
	if len(got) != len(names) {
		t.Errorf("%d lag series, want %d", len(got), len(names))
	}
}

// Two clusters (--profile a,b): each family is written once, with every
// cluster's lines under it, each line carrying its cluster label; the
// health metrics carry it through the registry as before.
func TestTextTwoClusters(t *testing.T) {
	clock := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	var cols []*Collector
	reg := prometheus.NewPedanticRegistry()
	for i, name := range []string{"east", "west"} {
		g := &fakeGatherer{snaps: []*lag.Snapshot{handSnapshot(int64(40+i*10), 100)}}
		c := New(cluster.Config{}, Options{Interval: 10 * time.Second, Now: func() time.Time { return clock }, Cluster: name})
		c.GatherOnce(context.Background(), g)
		prometheus.WrapRegistererWith(prometheus.Labels{"cluster": name}, reg).MustRegister(c)
		cols = append(cols, c)
	}
	rec := httptest.NewRecorder()
	Handler(reg, cols...).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		t.Errorf("Content-Type %q, want the text format 0.0.4", ct)
	}
	fams, err := parseText(rec.Body)
	if err != nil {
		t.Fatal(err)
	}
	lags := map[string]float64{}
	ages := 0
	for _, mf := range fams {
		for _, m := range mf.Metric {
			l := map[string]string{}
			for _, lp := range m.Label {
				l[lp.GetName()] = lp.GetValue()
			}
			switch mf.GetName() {
			case "kafka_consumergroup_lag":
				lags[l["cluster"]+"/"+l["consumergroup"]] = m.GetGauge().GetValue()
			case "offsetctl_gather_success":
				if l["cluster"] != "" {
					ages++
				}
			}
		}
	}
	want := map[string]float64{"east/billing": 60, "east/idle": 0, "west/billing": 50, "west/idle": 0}
	if len(lags) != len(want) {
		t.Errorf("lag series %v, want %v", lags, want)
	}
	for k, v := range want {
		if lags[k] != v {
			t.Errorf("lag %s = %v, want %v (all: %v)", k, lags[k], v, lags)
		}
	}
	if ages != 2 {
		t.Errorf("%d offsetctl_gather_success series with a cluster label, want 2", ages)
	}
}

// A gather made of batches of one group serves the same series and values
// as one batch of all (rates and ETAs included, over two gathers): a topic
// read by groups of several batches is written once.
func TestTextBatchesEqualOneGather(t *testing.T) {
	text := func(batch int) []string {
		clock := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
		g := &fakeGatherer{snaps: []*lag.Snapshot{handSnapshot(40, 100), handSnapshot(70, 110)}, batch: batch}
		c := newTestCollector(&clock, g)
		c.GatherOnce(context.Background(), g)
		clock = clock.Add(10 * time.Second)
		c.GatherOnce(context.Background(), g)
		var b strings.Builder
		if err := WriteText(&b, c); err != nil {
			t.Fatal(err)
		}
		if _, err := parseText(strings.NewReader(b.String())); err != nil {
			t.Fatalf("batch %d: %v\n%s", batch, err, b.String())
		}
		lines := strings.Split(b.String(), "\n")
		sort.Strings(lines)
		return lines
	}
	whole, single := text(0), text(1)
	if strings.Join(whole, "\n") != strings.Join(single, "\n") {
		t.Errorf("batches of one group:\n%s\nwant (one batch):\n%s", strings.Join(single, "\n"), strings.Join(whole, "\n"))
	}
	if n := strings.Count(strings.Join(single, "\n"), `kafka_topic_partition_current_offset{partition="0",topic="orders"}`); n != 1 {
		t.Errorf("orders/0 log end written %d times, want once", n)
	}
}

// TestAppendValueIntegers: the integer fast path writes what 'g' writes,
// at and around its bounds, for -0 and for fractions next to integers.
func TestAppendValueIntegers(t *testing.T) {
	vals := []float64{0, math.Copysign(0, -1), 1, -1, 7, 42, 999999, -999999, 1e6, -1e6, 1e6 + 1, 123456789, 1 << 40,
		0.5, -0.5, 999999.5, 1e-7, 3.0000001, math.MaxInt64, math.MinInt64}
	for v := -2000.0; v <= 2000; v++ {
		vals = append(vals, v, v*499.0, v*v*0.25)
	}
	for _, v := range vals {
		if got, want := string(appendValue(nil, v)), strconv.FormatFloat(v, 'g', -1, 64); got != want {
			t.Errorf("appendValue(%v) = %q; want %q", v, got, want)
		}
	}
}
