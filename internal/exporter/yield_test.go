package exporter

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/offsetctl/offsetctl/internal/cluster"
	"github.com/offsetctl/offsetctl/internal/lag"
)

// TestGatherYieldsToScrapes: while a scrape is writing the page a gather
// waits between its batches, at most a quarter of the interval in all,
// and still publishes a complete page; without a scrape it never waits,
// and a finished scrape no longer counts.
func TestGatherYieldsToScrapes(t *testing.T) {
	clock := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	snap := handSnapshot(40, 100)
	g := &fakeGatherer{snaps: []*lag.Snapshot{snap, snap, snap}, batch: 1}
	c := New(cluster.Config{}, Options{Interval: 80 * time.Millisecond, Now: func() time.Time { return clock }})

	c.GatherOnce(context.Background(), g)
	if y := c.lastStats.yielded; y != 0 {
		t.Fatalf("gather without a scrape waited %v; want 0", y)
	}
	var page bytes.Buffer
	if err := WriteText(&page, c); err != nil || c.scraping.Load() != 0 {
		t.Fatalf("after a scrape: err %v, scrapes counted %d; want none", err, c.scraping.Load())
	}

	c.scraping.Add(1) // a scrape writing all along
	c.GatherOnce(context.Background(), g)
	if y := c.lastStats.yielded; y != 20*time.Millisecond {
		t.Fatalf("gather during a scrape waited %v; want 20ms (a quarter of the 80ms interval)", y)
	}
	if !c.Healthy() {
		t.Fatal("a gather that waited for a scrape is not complete")
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	gr := &gatherRound{c: c}
	gr.yieldToScrapes(ctx)
	if gr.st.yielded != 0 {
		t.Fatalf("a round whose context ended waited %v; want 0", gr.st.yielded)
	}
}
