package cli

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/offsetctl/offsetctl/internal/testkit"
)

// procKiB reads a field such as VmHWM or VmRSS (kB) of /proc/PID/status.
func procKiB(t *testing.T, pid int, field string) int64 {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^` + field + `:\s+(\d+) kB`).FindSubmatch(data)
	if m == nil {
		t.Fatalf("no %s in /proc/%d/status", field, pid)
	}
	n, _ := strconv.ParseInt(string(m[1]), 10, 64)
	return n
}

// TestExporterStalledReaders: 40 scrapers that connect, send a request
// and never read (each one used to keep a full page alive, for ever) are
// cut off by --web.write-timeout, and the exporter process's peak RSS
// (VmHWM of the child, read from /proc: the test process holds the
// cluster) stays within a few pages of where it was. The page is made
// large with long group names (10 groups × 100 partitions, names of 10,000
// bytes: about 20 MB), larger than the loopback socket buffers, so a
// reader that does not read really stalls the writer; the readers start
// 250 ms apart over 10 s of 1 s gathers, so a reader holding its gather's
// page would hold about ten different ones. The write timeout is 1 s here
// (30 s by default) to keep the test short.
func TestExporterStalledReaders(t *testing.T) {
	if testing.Short() {
		t.Skip("a 20 MB page and 40 stalled connections")
	}
	c := testkit.New(t)
	const parts, groups, readers = 100, 10, 40
	topic := c.Topic(parts, nil)
	counts, offsets := map[int32]int{}, map[int32]int64{}
	for p := range int32(parts) {
		counts[p], offsets[p] = 2, 1
	}
	c.Produce(topic, counts, time.Now())
	prefix := testkit.Name(t, "stall")
	for i := range groups {
		c.Commit(fmt.Sprintf("%s-%d-%s", prefix, i, strings.Repeat("x", 10000)), topic, offsets)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	const writeTimeout = time.Second
	cmd := exec.Command(exe, "--brokers", c.BrokerList(), "exporter", "--web.listen-address", "127.0.0.1:0",
		"--interval", "1s", "--time-lag=false", "--web.write-timeout", writeTimeout.String(),
		"--web.max-requests", "100", "--regex", regexp.QuoteMeta(prefix)+"-.*")
	cmd.Env = append(os.Environ(), semanticsWorkerEnv+"=1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	sc := bufio.NewScanner(stderr)
	url := ""
	for sc.Scan() {
		if m := servingLine.FindStringSubmatch(sc.Text()); m != nil {
			url = m[1]
			break
		}
	}
	if url == "" {
		t.Fatal("the exporter process never said where it serves")
	}
	go io.Copy(io.Discard, stderr)
	// Warm up: every group exported, in two full plain scrapes.
	pageBytes := 0
	deadline := time.Now().Add(60 * time.Second)
	for full := 0; full < 2; {
		if time.Now().After(deadline) {
			t.Fatal("the exporter did not export every group within 60s")
		}
		n, members := plainScrape(t, url)
		if members == groups {
			full++
			pageBytes = n
		} else {
			time.Sleep(200 * time.Millisecond)
		}
	}
	pid := cmd.Process.Pid
	hwm0 := procKiB(t, pid, "VmHWM")
	t.Logf("page %d bytes; before the readers: VmHWM %d KiB, VmRSS %d KiB", pageBytes, hwm0, procKiB(t, pid, "VmRSS"))

	sockets0 := sockets(t, pid)
	addr := strings.TrimPrefix(url, "http://")
	conns := make([]*net.TCPConn, 0, readers)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range readers {
		raw, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		conn := raw.(*net.TCPConn)
		conn.SetReadBuffer(4096) // keep what the kernel takes off the writer small
		conns = append(conns, conn)
		if _, err := io.WriteString(conn, "GET /metrics HTTP/1.1\r\nHost: exporter\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		time.Sleep(250 * time.Millisecond)
	}
	// Each connection is closed by the exporter once the write timeout
	// has passed since its request: the process holds no socket for any of
	// them (it may leave the kernel to drain what it had queued already).
	during := sockets(t, pid)
	time.Sleep(writeTimeout + 2*time.Second)
	after := sockets(t, pid)
	t.Logf("sockets of the exporter: %d before the readers, %d after the last one started, %d a write timeout later", sockets0, during, after)
	if during < sockets0+2 {
		t.Errorf("only %d sockets with stalled readers (%d before): the readers did not stall the writer", during, sockets0)
	}
	if after > sockets0+1 {
		t.Errorf("%d sockets a write timeout after the last reader started, %d before the readers: stalled connections not closed", after, sockets0)
	}
	hwm := procKiB(t, pid, "VmHWM")
	growth := (hwm - hwm0) * 1024
	t.Logf("after %d stalled readers: VmHWM %d KiB (+%d MiB), VmRSS %d KiB; page %d MiB", readers, hwm, growth>>20, procKiB(t, pid, "VmRSS"), pageBytes>>20)
	// Measured, 20 MB page: when each gather's page was kept as text, the
	// readers held one page per gather while they started (+475 MiB
	// without a write timeout, +75 to +122 MiB with 1 s). Since the page is
	// written from the groups' compact state at each scrape, a stalled
	// reader holds its write buffers only: +16 MiB without the timeout, +3
	// MiB with it. The bound, 3 pages, fails on any return to a page per
	// reader.
	if limit := int64(3 * pageBytes); growth > limit {
		t.Errorf("peak RSS grew by %d MiB with %d stalled readers, want at most %d MiB (3 pages)", growth>>20, readers, limit>>20)
	}
	// The exporter still serves a real scraper afterwards.
	if _, members := plainScrape(t, url); members != groups {
		t.Errorf("after the readers: %d groups on the page, want %d", members, groups)
	}
}

// sockets counts the open sockets of process pid.
func sockets(t *testing.T, pid int) int {
	t.Helper()
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range ents {
		if l, err := os.Readlink(dir + "/" + e.Name()); err == nil && strings.HasPrefix(l, "socket:") {
			n++
		}
	}
	return n
}

// plainScrape reads /metrics without compression and returns its size and
// the number of kafka_consumergroup_members lines.
func plainScrape(t *testing.T, url string) (int, int) {
	t.Helper()
	req, _ := http.NewRequest("GET", url+"/metrics", nil)
	req.Header.Set("Accept-Encoding", "identity")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("scrape: %v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("scrape: HTTP %d, %v", resp.StatusCode, err)
	}
	return len(body), strings.Count(string(body), "\nkafka_consumergroup_members{")
}
