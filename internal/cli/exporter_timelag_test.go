package cli

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/offsetctl/offsetctl/internal/testkit"
)

// TestExporterTimeLagMissedKeepsLastValue is QA's finding on kfake: the
// time-lag reads (Fetch) held for a few rounds, as a frozen cluster holds
// them, while the group's commits move, so no round can measure the new
// positions within its budget. The exporter dropped kafka_consumergroup_
// lag_seconds of those partitions on a page reading offsetctl_gather_
// success 1 with no stale mark (a max() > 300 alert then returns nothing).
// Now every scrape of those rounds keeps each partition's last value,
// never lower than the value scraped before, marked by offsetctl_lag_stale
// and offsetctl_consumergroup_stale, with success 0; the lag series are
// the new commits'. Once the reads answer again, a round measures, and the
// marks go.
func TestExporterTimeLagMissedKeepsLastValue(t *testing.T) {
	if testkit.Real() {
		t.Skip("holds fetch answers with kfake")
	}
	c := testkit.New(t)
	topic, group := c.Topic(3, nil), testkit.Name(t, "tlmiss")
	c.Produce(topic, map[int32]int{0: 40, 1: 40, 2: 40}, time.Now().Add(-20*time.Minute))
	c.Commit(group, topic, map[int32]int64{0: 10, 1: 10, 2: 10})
	var hold atomic.Bool
	release := make(chan struct{})
	released := false
	t.Cleanup(func() {
		if !released {
			close(release)
		}
	})
	c.Fake.ControlKey(int16(kmsg.Fetch), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.Fake.KeepControl()
		if hold.Load() {
			c.Fake.SleepControl(func() { <-release })
		}
		return nil, nil, false
	})
	e := startExporter(t, c, nil, "--interval", "1s", group)
	keys := make([]string, 3)
	for p := range keys {
		keys[p] = fmt.Sprintf("consumergroup=%s,partition=%d,topic=%s", group, p, topic)
	}
	lagsAre := func(f map[string]*dto.MetricFamily, want float64) bool {
		lags := series(f, "kafka_consumergroup_lag")
		for _, k := range keys {
			if v, ok := lags[k]; !ok || v != want {
				return false
			}
		}
		return true
	}
	measured := func(f map[string]*dto.MetricFamily) bool {
		secs, stale := series(f, "kafka_consumergroup_lag_seconds"), series(f, "offsetctl_lag_stale")
		for _, k := range keys {
			if v, ok := secs[k]; !ok || v < 1100 || stale[k] != 0 {
				return false
			}
		}
		return gatheredOK(f)
	}
	before := e.waitScrape(t, "every time lag measured, about 20 minutes", func(f map[string]*dto.MetricFamily) bool {
		return lagsAre(f, 30) && measured(f)
	})
	last := series(before, "kafka_consumergroup_lag_seconds")

	hold.Store(true)
	c.Commit(group, topic, map[int32]int64{0: 20, 1: 20, 2: 20}) // the positions move
	var carried map[string]float64
	for scrape := range 2 {
		if scrape > 0 {
			time.Sleep(2500 * time.Millisecond) // two more rounds, reads still held
		}
		fams := e.waitScrape(t, "a round reading the new commits with its time-lag reads held", func(f map[string]*dto.MetricFamily) bool {
			missed, _ := value(f, "offsetctl_gather_time_lag_missed", "")
			return lagsAre(f, 20) && missed > 0
		})
		secs, stale := series(fams, "kafka_consumergroup_lag_seconds"), series(fams, "offsetctl_lag_stale")
		for _, k := range keys {
			v, ok := secs[k]
			switch {
			case !ok:
				t.Errorf("scrape %d: %s: lag_seconds dropped (it was %v)", scrape, k, last[k])
			case v < last[k]:
				t.Errorf("scrape %d: %s: lag_seconds %v, below the %v served before", scrape, k, v, last[k])
			case carried != nil && v != carried[k]:
				t.Errorf("scrape %d: %s: lag_seconds %v, not the last value measured %v", scrape, k, v, carried[k])
			}
			if stale[k] != 1 {
				t.Errorf("scrape %d: %s: offsetctl_lag_stale %v, want 1", scrape, k, stale[k])
			}
		}
		carried = secs
		if v, _ := value(fams, "offsetctl_consumergroup_stale", "consumergroup="+group); v != 1 {
			t.Errorf("scrape %d: offsetctl_consumergroup_stale %v, want 1", scrape, v)
		}
		if gatheredOK(fams) {
			t.Errorf("scrape %d: offsetctl_gather_success 1 with the time lags not measured", scrape)
		}
		if v, _ := value(fams, "offsetctl_gather_time_lag_missed", ""); v != 3 {
			t.Errorf("scrape %d: offsetctl_gather_time_lag_missed %v, want 3", scrape, v)
		}
		if t.Failed() {
			t.FailNow()
		}
	}

	hold.Store(false)
	close(release)
	released = true
	fams := e.waitScrape(t, "the time lags measured again", func(f map[string]*dto.MetricFamily) bool {
		return lagsAre(f, 20) && measured(f)
	})
	for _, k := range keys {
		if v := series(fams, "kafka_consumergroup_lag_seconds")[k]; v < carried[k] {
			t.Errorf("%s: measured %v, below the %v carried", k, v, carried[k])
		}
	}
	if v, _ := value(fams, "offsetctl_consumergroup_stale", "consumergroup="+group); v != 0 {
		t.Errorf("offsetctl_consumergroup_stale %v after a complete round", v)
	}
}
