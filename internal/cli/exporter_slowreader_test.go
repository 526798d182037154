package cli

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/offsetctl/offsetctl/internal/testkit"
)

// stalledReader connects, sends GET /metrics (plain, with header extra
// when not empty) and never reads. With small, its receive buffer is kept
// small, so the exporter's writes block sooner (a buffer smaller than the
// loopback MSS also makes a late reader wait on the sender's zero-window
// probes, so a reader that is to read later keeps the default).
func stalledReader(t *testing.T, addr, extra string, small bool) *net.TCPConn {
	t.Helper()
	raw, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	conn := raw.(*net.TCPConn)
	if small {
		conn.SetReadBuffer(4096)
	}
	t.Cleanup(func() { conn.Close() })
	if _, err := io.WriteString(conn, "GET /metrics HTTP/1.1\r\nHost: exporter\r\n"+extra+"\r\n"); err != nil {
		t.Fatal(err)
	}
	return conn
}

// TestExporterStalledReadersNoLockout: as many stalled readers as
// --web.max-requests, on a page larger than the socket buffers, do not
// keep the page from a well-behaved scraper (they used to hold every slot
// until --web.write-timeout, every other scrape answered 503); and a
// stalled reader that sends X-Prometheus-Scrape-Timeout-Seconds: 2 is cut
// off at about 2 s, not at the 20 s write timeout.
func TestExporterStalledReadersNoLockout(t *testing.T) {
	if testing.Short() {
		t.Skip("a 20 MB page and stalled connections")
	}
	c := testkit.New(t)
	const parts, groups, slots = 100, 10, 4
	topic := c.Topic(parts, nil)
	counts, offsets := map[int32]int{}, map[int32]int64{}
	for p := range int32(parts) {
		counts[p], offsets[p] = 2, 1
	}
	c.Produce(topic, counts, time.Now())
	prefix := testkit.Name(t, "lockout")
	for i := range groups {
		c.Commit(fmt.Sprintf("%s-%d-%s", prefix, i, strings.Repeat("x", 10000)), topic, offsets)
	}
	e := startExporter(t, c, nil, "--interval", "1s", "--time-lag=false", "--web.write-timeout", "20s",
		"--web.max-requests", fmt.Sprint(slots), "--regex", regexp.QuoteMeta(prefix)+"-.*")
	pageBytes := 0
	deadline := time.Now().Add(60 * time.Second)
	for pageBytes == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the exporter did not export every group within 60s")
		}
		if n, members := plainScrape(t, e.url); members == groups {
			pageBytes = n
		} else {
			time.Sleep(200 * time.Millisecond)
		}
	}
	addr := strings.TrimPrefix(e.url, "http://")
	// Every slot taken by a stalled reader: three that send no timeout,
	// and one that asks for 2 s. The stalled allowance has room for all
	// four, so none is cut for want of room: the fourth is closed by its
	// own deadline.
	for range slots - 1 {
		stalledReader(t, addr, "", true)
	}
	timed := stalledReader(t, addr, "X-Prometheus-Scrape-Timeout-Seconds: 2\r\n", false)
	started := time.Now()
	time.Sleep(200 * time.Millisecond) // the readers' requests are in: every slot is held

	// A scraper that reads, as Prometheus does: served, in full, each time.
	client := &http.Client{Timeout: 15 * time.Second}
	for i := range 3 {
		t0 := time.Now()
		req, _ := http.NewRequest("GET", e.url+"/metrics", nil)
		req.Header.Set("Accept-Encoding", "identity")
		req.Header.Set("X-Prometheus-Scrape-Timeout-Seconds", "10")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("scrape %d with %d stalled readers: %v", i, slots, err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		took := time.Since(t0)
		members := strings.Count(string(body), "\nkafka_consumergroup_members{")
		t.Logf("scrape %d: HTTP %d, %d bytes, %d groups, %s", i, resp.StatusCode, len(body), members, took.Round(time.Millisecond))
		if resp.StatusCode != 200 || err != nil || members != groups {
			t.Fatalf("scrape %d with %d stalled readers: HTTP %d (%q...), %d of %d groups, %v; want the whole page", i, slots, resp.StatusCode, string(body[:min(len(body), 60)]), members, groups, err)
		}
		if took > 5*time.Second {
			t.Errorf("scrape %d took %s with stalled readers, want under 5s", i, took)
		}
	}

	// The reader that asked for 2 s: closed by then (allow 3 s more),
	// long before the 20 s write timeout. Reading now drains what the
	// kernel holds, then meets the end of the connection; a connection
	// still served would deliver the whole page and then wait.
	time.Sleep(time.Until(started.Add(5 * time.Second)))
	timed.SetReadDeadline(time.Now().Add(5 * time.Second))
	n, err := io.Copy(io.Discard, timed)
	var ne net.Error
	if err == nil || !errors.As(err, &ne) || !ne.Timeout() {
		err = nil // EOF (io.Copy's nil) or a reset: closed by the exporter
	}
	if err != nil || n >= int64(pageBytes) {
		t.Errorf("the reader that sent a 2 s scrape timeout: %d of the page's %d bytes, then %v, 5 s after its request: want the connection closed part-way", n, pageBytes, err)
	}
}
