package cli

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/twmb/franz-go/pkg/kmsg"
	"golang.org/x/crypto/bcrypt"

	"github.com/offsetctl/offsetctl/internal/lag"
	"github.com/offsetctl/offsetctl/internal/testkit"
)

// runningExporter is an in-process `offsetctl exporter`.
type runningExporter struct {
	url    string // http://host:port
	stderr *syncBuffer
	stop   context.CancelFunc
	code   chan int
}

var servingLine = regexp.MustCompile(`exporter serving (https?://[^/\s]+)/metrics`)

// startExporter runs `offsetctl exporter --listen 127.0.0.1:0 ARGS` in the
// background with env as its environment, and waits for it to serve.
func startExporter(t *testing.T, c *testkit.Cluster, env map[string]string, args ...string) *runningExporter {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	e := &runningExporter{stderr: newSyncBuffer(), stop: cancel, code: make(chan int, 1)}
	full := append([]string{"exporter", "--listen", "127.0.0.1:0"}, args...)
	if c != nil {
		full = append([]string{"--brokers", c.BrokerList()}, full...)
	}
	a := &app{stdout: io.Discard, stderr: e.stderr, stdin: strings.NewReader(""), getenv: func(k string) string { return env[k] }, now: time.Now}
	go func() { e.code <- a.execute(ctx, full) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-e.code:
		case <-time.After(30 * time.Second):
			t.Error("exporter did not stop within 30s of its context ending")
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if m := servingLine.FindStringSubmatch(e.stderr.String()); m != nil {
			e.url = m[1]
			return e
		}
		select {
		case code := <-e.code:
			t.Fatalf("exporter exited %d before serving:\n%s", code, e.stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("exporter did not serve within 30s:\n%s", e.stderr.String())
	return nil
}

// scrape reads /metrics and parses it.
func (e *runningExporter) scrape(t *testing.T) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(e.url + "/metrics")
	if err != nil {
		t.Fatalf("scrape: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("scrape: HTTP %d", resp.StatusCode)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parsing /metrics: %v", err)
	}
	return fams
}

// waitScrape scrapes until ok accepts the metrics (30 s at most).
func (e *runningExporter) waitScrape(t *testing.T, what string, ok func(map[string]*dto.MetricFamily) bool) map[string]*dto.MetricFamily {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		fams := e.scrape(t)
		if ok(fams) {
			return fams
		}
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s: not seen within 30s\nstderr:\n%s", what, e.stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// series maps "name{label=value,...}" (labels sorted) to each value.
func series(fams map[string]*dto.MetricFamily, name string) map[string]float64 {
	out := map[string]float64{}
	f := fams[name]
	if f == nil {
		return out
	}
	for _, m := range f.Metric {
		var labels []string
		for _, l := range m.Label {
			labels = append(labels, l.GetName()+"="+l.GetValue())
		}
		v := m.GetGauge().GetValue()
		if m.Counter != nil {
			v = m.GetCounter().GetValue()
		}
		out[strings.Join(labels, ",")] = v
	}
	return out
}

func value(fams map[string]*dto.MetricFamily, name, labels string) (float64, bool) {
	v, ok := series(fams, name)[labels]
	return v, ok
}

func gatheredOK(fams map[string]*dto.MetricFamily) bool {
	v, ok := value(fams, "offsetctl_gather_success", "")
	return ok && v == 1
}

// TestExporterAgreesWithLag: every value the exporter serves for a
// stable cluster equals `lag -o json`'s, for an Empty classic group with
// a never-committed partition and a live KIP-848 group.
func TestExporterAgreesWithLag(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(3, nil)
	c.Produce(topic, map[int32]int{0: 100, 1: 60, 2: 30}, time.Now().Add(-time.Minute))
	empty := testkit.Name(t, "exp-empty")
	c.Commit(empty, topic, map[int32]int64{0: 10, 1: 60})
	live := testkit.Name(t, "exp-live")
	stop := c.Consumer(live, topic, true)
	defer stop()
	// The live group has caught up (committed every partition's end).
	deadline := time.Now().Add(60 * time.Second)
	for {
		got := c.Committed(live)[topic]
		if got[0] == 100 && got[1] == 60 && got[2] == 30 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("live consumer did not catch up: %v", got)
		}
		time.Sleep(100 * time.Millisecond)
	}

	e := startExporter(t, c, nil, "--interval", "1s", empty, live)
	fams := e.waitScrape(t, "a successful gather with both groups", func(f map[string]*dto.MetricFamily) bool {
		return gatheredOK(f) && len(series(f, "kafka_consumergroup_members")) == 2
	})
	var rep lag.LagReport
	decodeJSON(t, mustRun(t, c, 0, "lag", empty, live, "-o", "json"), &rep)

	checked := 0
	for _, g := range rep.Groups {
		if v, ok := value(fams, "kafka_consumergroup_members", "consumergroup="+g.Group); !ok || v != float64(g.Members) {
			t.Errorf("%s members: exporter %v (%v), lag %d", g.Group, v, ok, g.Members)
		}
		// A group made only by commits has no protocol type; a KIP-848
		// group always speaks the consumer protocol.
		proto := map[string]string{empty: "", live: "consumer"}[g.Group]
		info := fmt.Sprintf("consumergroup=%s,protocol=%s,state=%s,type=%s", g.Group, proto, g.State, g.Type)
		if v, ok := value(fams, "kafka_consumergroup_info", info); !ok || v != 1 {
			t.Errorf("no info series %s in %v", info, series(fams, "kafka_consumergroup_info"))
		}
		sum := map[string]float64{}
		for _, p := range g.Partitions {
			l := fmt.Sprintf("consumergroup=%s,partition=%d,topic=%s", g.Group, p.Partition, p.Topic)
			off, okOff := value(fams, "kafka_consumergroup_current_offset", l)
			lag, okLag := value(fams, "kafka_consumergroup_lag", l)
			if p.Committed == nil {
				if okOff || okLag || p.Lag != nil {
					t.Errorf("%s: never committed, yet exporter offset %v lag %v, lag -o json lag %v", l, okOff, okLag, p.Lag)
				}
				continue
			}
			if p.Lag == nil {
				t.Fatalf("%s: lag -o json has no lag for a committed row", l)
			}
			if !okOff || off != float64(*p.Committed) || !okLag || lag != float64(*p.Lag) {
				t.Errorf("%s: exporter offset %v lag %v, lag -o json committed %d lag %d", l, off, lag, *p.Committed, *p.Lag)
			}
			sum[p.Topic] += float64(*p.Lag)
			tp := fmt.Sprintf("partition=%d,topic=%s", p.Partition, p.Topic)
			if v, _ := value(fams, "kafka_topic_partition_current_offset", tp); v != float64(p.LogEnd) {
				t.Errorf("%s log end: exporter %v, lag %d", tp, v, p.LogEnd)
			}
			if v, _ := value(fams, "kafka_topic_partition_oldest_offset", tp); v != float64(p.LogStart) {
				t.Errorf("%s log start: exporter %v, lag %d", tp, v, p.LogStart)
			}
			checked++
		}
		for tpc, s := range sum {
			if v, _ := value(fams, "kafka_consumergroup_lag_sum", "consumergroup="+g.Group+",topic="+tpc); v != s {
				t.Errorf("%s %s lag_sum: exporter %v, rows add to %v", g.Group, tpc, v, s)
			}
		}
	}
	if checked != 5 {
		t.Fatalf("compared %d committed rows, want 5 (2 of the Empty group, 3 of the live one)", checked)
	}
	// The Empty group lags 90 on p0 (committed 10 of 100): its next record
	// was written a minute ago.
	l := fmt.Sprintf("consumergroup=%s,partition=0,topic=%s", empty, topic)
	if secs, ok := value(fams, "kafka_consumergroup_lag_seconds", l); !ok || secs < 55 || secs > 600 {
		t.Errorf("lag_seconds of the lagging partition = %v (%v), want about 60", secs, ok)
	}
	if v, _ := value(fams, "kafka_consumergroup_members", "consumergroup="+empty); v != 0 {
		t.Errorf("Empty group members = %v", v)
	}
	if v, _ := value(fams, "kafka_consumergroup_members", "consumergroup="+live); v != 1 {
		t.Errorf("live KIP-848 group members = %v, want 1", v)
	}
}

// TestExporterFreshAfterCommit: every gather that starts after a commit
// shows it.
func TestExporterFreshAfterCommit(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(1, nil)
	c.Produce(topic, map[int32]int{0: 50}, time.Now())
	g := testkit.Name(t, "exp-fresh")
	c.Commit(g, topic, map[int32]int64{0: 5})
	e := startExporter(t, c, nil, "--interval", "1s", "--time-lag=false", g)
	l := fmt.Sprintf("consumergroup=%s,partition=0,topic=%s", g, topic)
	e.waitScrape(t, "the first commit", func(f map[string]*dto.MetricFamily) bool {
		v, ok := value(f, "kafka_consumergroup_current_offset", l)
		return ok && v == 5
	})
	committedAt := time.Now()
	c.Commit(g, topic, map[int32]int64{0: 42})
	fams := e.waitScrape(t, "a gather started after the commit", func(f map[string]*dto.MetricFamily) bool {
		last, _ := value(f, "offsetctl_last_gather_timestamp_seconds", "")
		dur, _ := value(f, "offsetctl_gather_duration_seconds", "")
		return last-dur > float64(committedAt.UnixNano())/1e9
	})
	if v, _ := value(fams, "kafka_consumergroup_current_offset", l); v != 42 {
		t.Fatalf("a gather that started after the commit of 42 serves %v", v)
	}
	if v, _ := value(fams, "kafka_consumergroup_lag", l); v != 8 {
		t.Fatalf("lag %v, want 50-42 = 8", v)
	}
}

// TestExporterSelectionAndBadInput: --regex/--exclude select groups; bad
// flags are exit 2 before anything serves.
func TestExporterSelectionAndBadInput(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(1, nil)
	c.Produce(topic, map[int32]int{0: 10}, time.Now())
	base := testkit.Name(t, "exp-sel")
	for _, g := range []string{base + "-billing", base + "-billing-test", base + "-audit"} {
		c.Commit(g, topic, map[int32]int64{0: 3})
	}
	e := startExporter(t, c, nil, "--interval", "1s", "--regex", regexp.QuoteMeta(base)+"-.*", "--exclude", ".*-test")
	fams := e.waitScrape(t, "a gather", gatheredOK)
	got := series(fams, "kafka_consumergroup_members")
	want := map[string]float64{"consumergroup=" + base + "-billing": 0, "consumergroup=" + base + "-audit": 0}
	if len(got) != len(want) {
		t.Fatalf("groups exported %v, want %v", got, want)
	}
	for k := range want {
		if _, ok := got[k]; !ok {
			t.Fatalf("groups exported %v, want %v", got, want)
		}
	}
	secret := "hunter2-" + strings.Repeat("x", 300)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--regex", "a(b"}, "GROUP pattern: item 1 is not an RE2 expression: missing closing )"},
		{[]string{"--regex", "ok", ""}, "empty group name"},
		{[]string{"--regex"}, "--regex needs at least one GROUP pattern"},
		{[]string{"--exclude", "a(b"}, "--exclude: item 1 is not an RE2 expression: missing closing )"},
		{[]string{"g1", "--all-groups"}, "not both"},
		{[]string{"g1", "--exclude", "x"}, "--exclude goes with --all-groups or --regex"},
		{[]string{"--interval", "10ms"}, "--interval must be at least 1s"},
		{[]string{"--web-tls-cert", "x.pem"}, "--web-tls-cert and --web-tls-key go together"},
		{[]string{"--web-basic-auth-file", filepath.Join(t.TempDir(), "nope")}, "--web-basic-auth-file"},
		{[]string{"--regex", "(" + secret}, "GROUP pattern: item 1 is not an RE2 expression"},
		{[]string{"--listen", "hunter2"}, "--listen: want HOST:PORT or :PORT"},
		{[]string{"--listen", "127.0.0.1:hunter2"}, "--listen: the port must be a number"},
		{[]string{"--listen", ":99999"}, "--listen: the port must be a number"},
		{[]string{"--isolation", "x\x1b[2Jsecret=hunter2"}, "--isolation: want uncommitted or committed"},
	} {
		r := mustRun(t, c, 2, append([]string{"exporter", "--listen", "127.0.0.1:0"}, tc.args...)...)
		if !strings.Contains(r.stderr, tc.want) || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
			t.Errorf("%v: stderr %q, want one line with %q", tc.args, r.stderr, tc.want)
		}
		if strings.Contains(r.stderr, "hunter2") {
			t.Errorf("%v: stderr echoes the argument: %q", tc.args, r.stderr)
		}
	}
}

// TestExporterProfilesOneClusterDown: two profiles, one unreachable: the
// live one's series carry cluster="live" and stay; the dead one counts
// failed gathers.
func TestExporterProfilesOneClusterDown(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(1, nil)
	c.Produce(topic, map[int32]int{0: 10}, time.Now())
	g := testkit.Name(t, "exp-prof")
	c.Commit(g, topic, map[int32]int64{0: 4})
	dir := t.TempDir()
	conf := filepath.Join(dir, "config.yaml")
	yaml := fmt.Sprintf("profiles:\n  live:\n    brokers: %q\n  dead:\n    brokers: \"127.0.0.1:1\"\n", c.BrokerList())
	if err := os.WriteFile(conf, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"OFFSETCTL_CONFIG": conf}
	// The flag repeated (--profile live,dead says the same).
	e := startExporter(t, nil, env, "--profile", "live", "--profile", "dead", "--interval", "1s", "--timeout", "500ms", g)
	fams := e.waitScrape(t, "live gathered and dead failed twice", func(f map[string]*dto.MetricFamily) bool {
		ok, _ := value(f, "offsetctl_gather_success", "cluster=live")
		errs, _ := value(f, "offsetctl_gather_errors_total", "cluster=dead")
		return ok == 1 && errs >= 2
	})
	l := fmt.Sprintf("cluster=live,consumergroup=%s,partition=0,topic=%s", g, topic)
	if v, ok := value(fams, "kafka_consumergroup_lag", l); !ok || v != 6 {
		t.Fatalf("live cluster lag %v (%v), want 6; series %v", v, ok, series(fams, "kafka_consumergroup_lag"))
	}
	if v, ok := value(fams, "offsetctl_gather_success", "cluster=dead"); !ok || v != 0 {
		t.Errorf("dead cluster gather_success %v (%v), want 0", v, ok)
	}
	if n := len(series(fams, "offsetctl_last_gather_timestamp_seconds")); n != 1 {
		t.Errorf("%d last-gather timestamps, want only the live cluster's", n)
	}
	// Any other command takes one profile.
	errBuf := newSyncBuffer()
	a := &app{stdout: io.Discard, stderr: errBuf, stdin: strings.NewReader(""), getenv: func(k string) string { return env[k] }, now: time.Now}
	if code := a.execute(testkit.Ctx(t), []string{"lag", g, "--profile", "live,dead"}); code != 2 || errBuf.String() != "offsetctl: --profile: name one profile (only the exporter serves several clusters at once)\n" {
		t.Errorf("lag --profile live,dead: exit %d, stderr %q; want 2 and the one-profile line", code, errBuf.String())
	}
}

// TestExporterOutageIsNotZeroLag: when the cluster stops answering, the
// exporter keeps serving the last values, counts the failed gathers and
// shows their age; it never serves zero lag. (kfake: ListGroups answers
// are dropped; the real-broker version freezes the broker, TestFault*.)
func TestExporterOutageIsNotZeroLag(t *testing.T) {
	if testkit.Real() {
		t.Skip("kfake control functions; on a real broker see TestFaultExporterFrozenBroker")
	}
	c := testkit.New(t)
	topic := c.Topic(1, nil)
	c.Produce(topic, map[int32]int{0: 30}, time.Now())
	g := testkit.Name(t, "exp-outage")
	c.Commit(g, topic, map[int32]int64{0: 10})
	e := startExporter(t, c, nil, "--interval", "1s", "--timeout", "500ms", "--time-lag=false", g)
	l := fmt.Sprintf("consumergroup=%s,partition=0,topic=%s", g, topic)
	e.waitScrape(t, "a first gather", gatheredOK)
	c.Fake.ControlKey(int16(kmsg.ListGroups), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.Fake.KeepControl()
		return nil, errors.New("outage"), true
	})
	fams := e.waitScrape(t, "two failed gathers", func(f map[string]*dto.MetricFamily) bool {
		errs, _ := value(f, "offsetctl_gather_errors_total", "")
		return errs >= 2
	})
	if v, _ := value(fams, "offsetctl_gather_success", ""); v != 0 {
		t.Errorf("gather_success %v during the outage", v)
	}
	if v, ok := value(fams, "kafka_consumergroup_lag", l); !ok || v != 20 {
		t.Errorf("lag during the outage %v (%v), want the last known 20", v, ok)
	}
	if age, _ := value(fams, "offsetctl_snapshot_age_seconds", ""); age < 1 {
		t.Errorf("snapshot age %v s after two failed 1s rounds", age)
	}
}

// TestExporterSIGTERM: a real exporter process stops cleanly on SIGTERM
// with exit 0.
func TestExporterSIGTERM(t *testing.T) {
	c := testkit.New(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "--brokers", c.BrokerList(), "exporter", "--listen", "127.0.0.1:0", "--interval", "1s")
	cmd.Env = append(os.Environ(), semanticsWorkerEnv+"=1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
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
	e := &runningExporter{url: url, stderr: newSyncBuffer()}
	e.waitScrape(t, "a gather", gatheredOK)
	if resp, err := http.Get(url + "/healthz"); err != nil || resp.StatusCode != 200 {
		t.Fatalf("/healthz: %v %v", resp, err)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("exporter after SIGTERM: %v (want exit 0)", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("exporter still running 30s after SIGTERM")
	}
	if _, err := http.Get(url + "/metrics"); err == nil {
		t.Error("still serving after exit")
	}
}

// TestExporterScrapedByPrometheus: a real Prometheus (Debian's package;
// .ci/run installs it) scrapes the exporter, and a PromQL query through its
// HTTP API returns the lag of a known group.
func TestExporterScrapedByPrometheus(t *testing.T) {
	prom, err := exec.LookPath("prometheus")
	if err != nil {
		t.Skip("needs the prometheus binary (apt-get install prometheus; .ci/run installs it)")
	}
	c := testkit.New(t)
	topic := c.Topic(2, nil)
	c.Produce(topic, map[int32]int{0: 40, 1: 40}, time.Now())
	g := testkit.Name(t, "exp-prom")
	c.Commit(g, topic, map[int32]int64{0: 15, 1: 40})
	e := startExporter(t, c, nil, "--interval", "1s", g)
	e.waitScrape(t, "a gather", gatheredOK)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	promAddr := ln.Addr().String()
	ln.Close()
	dir := t.TempDir()
	conf := filepath.Join(dir, "prometheus.yml")
	target := strings.TrimPrefix(e.url, "http://")
	yml := fmt.Sprintf("global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: offsetctl\n    static_configs:\n      - targets: [%q]\n", target)
	if err := os.WriteFile(conf, []byte(yml), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(prom, "--config.file="+conf, "--storage.tsdb.path="+filepath.Join(dir, "data"), "--web.listen-address="+promAddr)
	out := newSyncBuffer()
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })

	query := fmt.Sprintf(`sum(kafka_consumergroup_lag{consumergroup=%q})`, g)
	u := "http://" + promAddr + "/api/v1/query?query=" + url.QueryEscape(query)
	deadline := time.Now().Add(60 * time.Second)
	last := ""
	for time.Now().Before(deadline) {
		time.Sleep(500 * time.Millisecond)
		resp, err := http.Get(u)
		if err != nil {
			last = err.Error()
			continue
		}
		var body struct {
			Status string `json:"status"`
			Data   struct {
				Result []struct {
					Value []any `json:"value"`
				} `json:"result"`
			} `json:"data"`
		}
		err = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if err != nil || body.Status != "success" || len(body.Data.Result) != 1 || len(body.Data.Result[0].Value) != 2 {
			last = fmt.Sprintf("%+v %v", body, err)
			continue
		}
		if v := body.Data.Result[0].Value[1]; v != "25" {
			t.Fatalf("PromQL %s = %v, want 25 (40-15 + 40-40)", query, v)
		}
		return
	}
	t.Fatalf("Prometheus never returned the group's lag; last answer %s\nprometheus output:\n%s", last, out.String())
}

// TestFaultExporterFrozenBroker: the real broker frozen with SIGSTOP. The
// exporter keeps serving the last lag (6, 4, 0), counts the failed gathers
// and reports gather_success 0; after SIGCONT it gathers again. The
// exporter also authenticates with SCRAM over TLS like every command.
func TestFaultExporterFrozenBroker(t *testing.T) {
	b := needSecureBroker(t)
	topic, group := b.fixture(t)
	args := append(b.scram("scram-sha-512"), "--interval", "1s", "--timeout", "800ms", "--time-lag=false", group)
	e := startExporter(t, nil, map[string]string{}, args...)
	want := map[string]float64{}
	for p, lag := range []float64{6, 4, 0} {
		want[fmt.Sprintf("consumergroup=%s,partition=%d,topic=%s", group, p, topic)] = lag
	}
	lagsAre := func(f map[string]*dto.MetricFamily) bool {
		got := series(f, "kafka_consumergroup_lag")
		for k, v := range want {
			if got[k] != v {
				return false
			}
		}
		return len(got) == len(want)
	}
	e.waitScrape(t, "the group's lag over SASL_SSL", func(f map[string]*dto.MetricFamily) bool { return gatheredOK(f) && lagsAre(f) })
	secureScript(t, b, "freeze")
	thawed := false
	t.Cleanup(func() {
		if !thawed {
			secureScript(t, b, "thaw")
		}
	})
	fams := e.waitScrape(t, "two failed gathers while frozen", func(f map[string]*dto.MetricFamily) bool {
		errs, _ := value(f, "offsetctl_gather_errors_total", "")
		return errs >= 2
	})
	if v, _ := value(fams, "offsetctl_gather_success", ""); v != 0 {
		t.Errorf("gather_success %v while the broker is frozen", v)
	}
	if !lagsAre(fams) {
		t.Errorf("lag while frozen %v, want the last known %v", series(fams, "kafka_consumergroup_lag"), want)
	}
	secureScript(t, b, "thaw")
	thawed = true
	e.waitScrape(t, "a successful gather after SIGCONT", func(f map[string]*dto.MetricFamily) bool { return gatheredOK(f) && lagsAre(f) })
}

// TestExporterTimeLagBudget: with every fetch to one broker held
// unanswered, exporter rounds at --interval 2s still read every group (no
// round is cut: no group or partition error, the second batch of groups
// is read after the first one's time-lag search); the time lag the round
// could not read is counted in offsetctl_gather_time_lag_missed, absent
// where it was never measured, and the page does not read complete.
func TestExporterTimeLagBudget(t *testing.T) {
	if testkit.Real() {
		t.Skip("holds fetch answers with kfake")
	}
	c := testkit.New(t)
	prefix := testkit.Name(t, "tlb")
	topic := c.LagFleet(prefix, 30, 40) // two batches of groups
	md, err := c.Admin().Metadata(testkit.Ctx(t), topic)
	if err != nil {
		t.Fatal(err)
	}
	slow := md.Topics[topic].Partitions[0].Leader
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	c.Fake.ControlKey(int16(kmsg.Fetch), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.Fake.KeepControl()
		if c.Fake.CurrentNode() == slow {
			c.Fake.SleepControl(func() { <-release })
		}
		return nil, nil, false
	})
	e := startExporter(t, c, nil, "--interval", "2s", "-r", regexp.QuoteMeta(prefix)+"-.*")
	fams := e.waitScrape(t, "a round reading every group with time lag missed", func(f map[string]*dto.MetricFamily) bool {
		missed, _ := value(f, "offsetctl_gather_time_lag_missed", "")
		groupErrs, _ := value(f, "offsetctl_gather_group_errors", "")
		partErrs, _ := value(f, "offsetctl_gather_partition_errors", "")
		return missed > 0 && groupErrs == 0 && partErrs == 0 && len(series(f, "kafka_consumergroup_lag")) == 30*40
	})
	if gatheredOK(fams) {
		t.Error("gather_success 1 on a page whose time lags were not all measured")
	}
	lags, secs, stale := series(fams, "kafka_consumergroup_lag"), series(fams, "kafka_consumergroup_lag_seconds"), series(fams, "offsetctl_lag_stale")
	unmeasured := 0
	for k, lag := range lags {
		_, ok := secs[k]
		switch {
		case !ok && lag == 0:
			t.Errorf("%s: no lag_seconds without lag", k)
		case !ok || stale[k] == 1:
			unmeasured++ // absent (never measured) or its last value, marked
		}
	}
	if missed, _ := value(fams, "offsetctl_gather_time_lag_missed", ""); float64(unmeasured) != missed {
		t.Errorf("%d lagging series without a measured lag_seconds, offsetctl_gather_time_lag_missed %v", unmeasured, missed)
	}
}

// TestFaultExporterFreezeLongerThanSession: the real broker frozen
// (SIGSTOP) for 12 s, longer than its consumer session timeout (10 s in
// scripts/kafka-secure.sh), during 1 s exporter rounds, with an Empty
// group that lags and a live KIP-848 group. On every scrape, frozen and
// after: no lag or offset series of the last complete gather is missing
// and, until a complete gather says otherwise, none is below its last
// good value; while frozen the groups are marked stale and success is 0;
// after SIGCONT a complete gather clears the marks.
func TestFaultExporterFreezeLongerThanSession(t *testing.T) {
	b := needSecureBroker(t)
	topic, group := b.fixture(t)
	live := testkit.Name(t, "live")
	liveTopic := b.c.Topic(2, nil)
	b.c.Produce(liveTopic, map[int32]int{0: 5, 1: 5}, time.Time{})
	b.c.Consumer(live, liveTopic, true)
	e := startExporter(t, b.c, nil, "--interval", "1s", "--timeout", "800ms", group, live)
	families := []string{"kafka_consumergroup_lag", "kafka_consumergroup_current_offset"}
	good := map[string]float64{}
	complete := func(f map[string]*dto.MetricFamily) bool {
		for _, v := range series(f, "offsetctl_consumergroup_stale") {
			if v != 0 {
				return false
			}
		}
		return gatheredOK(f)
	}
	e.waitScrape(t, "both groups read, the live one caught up", func(f map[string]*dto.MetricFamily) bool {
		lag := series(f, "kafka_consumergroup_lag")
		is := func(g string, p int, tp string, want float64) bool {
			v, ok := lag[fmt.Sprintf("consumergroup=%s,partition=%d,topic=%s", g, p, tp)]
			return ok && v == want
		}
		return complete(f) && is(group, 0, topic, 6) && is(live, 0, liveTopic, 0) && is(live, 1, liveTopic, 0)
	})
	scrapes, staleSeen := 0, false
	check := func(f map[string]*dto.MetricFamily) {
		t.Helper()
		scrapes++
		ok := complete(f)
		for _, name := range families {
			got := series(f, name)
			for k, v := range good {
				if !strings.HasPrefix(k, name+"{") {
					continue
				}
				labels := strings.TrimSuffix(strings.TrimPrefix(k, name+"{"), "}")
				now, present := got[labels]
				switch {
				case !present:
					t.Fatalf("scrape %d: %s{%s} vanished (complete gather: %v)", scrapes, name, labels, ok)
				case now < v && !ok:
					t.Fatalf("scrape %d: %s{%s} = %v below its last good %v in an incomplete gather", scrapes, name, labels, now, v)
				}
			}
			if ok {
				for labels, v := range got {
					good[name+"{"+labels+"}"] = v
				}
			}
		}
		if s, _ := value(f, "offsetctl_consumergroup_stale", "consumergroup="+group); s == 1 {
			staleSeen = true
			if v, _ := value(f, "offsetctl_gather_success", ""); v != 0 {
				t.Fatalf("scrape %d: a stale group with gather_success %v", scrapes, v)
			}
		}
	}
	check(e.scrape(t))
	if len(good) != 2*(3+2) {
		t.Fatalf("last good values %v: want lag and offset of 5 partitions", good)
	}
	secureScript(t, b, "freeze")
	thawed := false
	t.Cleanup(func() {
		if !thawed {
			secureScript(t, b, "thaw")
		}
	})
	for end := time.Now().Add(12 * time.Second); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		check(e.scrape(t))
	}
	secureScript(t, b, "thaw")
	thawed = true
	if !staleSeen {
		t.Errorf("no scrape in 12 s of freeze marked group %s stale", group)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		f := e.scrape(t)
		check(f)
		if complete(f) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no complete gather within 60 s of SIGCONT\nstderr:\n%s", e.stderr.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Logf("%d scrapes checked; stderr:\n%s", scrapes, e.stderr.String())
	if v := good[fmt.Sprintf("kafka_consumergroup_lag{consumergroup=%s,partition=0,topic=%s}", group, topic)]; v != 6 {
		t.Errorf("lag after the freeze %v, want 6", v)
	}
}

// TestExporterExactGroupNames: a group name with a quote and non-ASCII
// text is exported with its exact bytes as the label value (the
// exposition format escapes it; a parser gets it back); its line feed and
// ESC come back as the text \x0a and \x1b, never raw, and its backslash
// as two (so that no other name reads back the same).
func TestExporterExactGroupNames(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(1, nil)
	c.Produce(topic, map[int32]int{0: 9}, time.Now())
	base := testkit.Name(t, "ex")
	g := base + "-\"q\"\\b\nline-\x1b[2Ké"
	c.Commit(g, topic, map[int32]int64{0: 2})
	e := startExporter(t, c, nil, "--interval", "1s", "--time-lag=false", g)
	fams := e.waitScrape(t, "the group", gatheredOK)
	l := fmt.Sprintf("consumergroup=%s,partition=0,topic=%s", base+`-"q"\\b\x0aline-\x1b[2Ké`, topic)
	if v, ok := value(fams, "kafka_consumergroup_lag", l); !ok || v != 7 {
		t.Fatalf("lag of the oddly named group %v (%v); series %v", v, ok, series(fams, "kafka_consumergroup_lag"))
	}
}

// TestExporterTLSAndBasicAuth: with --web-tls-cert/--web-tls-key and
// --web-basic-auth-file the exporter serves HTTPS and answers /metrics
// only to a user of the file (through exporter-toolkit, which guards
// /healthz as well).
func TestExporterTLSAndBasicAuth(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(1, nil)
	c.Produce(topic, map[int32]int{0: 4}, time.Now())
	g := testkit.Name(t, "exp-tls")
	c.Commit(g, topic, map[int32]int64{0: 1})
	dir := t.TempDir()
	certFile, keyFile, pool := selfSigned(t, dir)
	hash, err := bcrypt.GenerateFromPassword([]byte("scrape-pw"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	authFile := filepath.Join(dir, "scrapers.htpasswd")
	if err := os.WriteFile(authFile, []byte("prom:"+string(hash)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	e := startExporter(t, c, nil, "--interval", "1s", "--time-lag=false", "--web-tls-cert", certFile, "--web-tls-key", keyFile, "--web-basic-auth-file", authFile, g)
	if !strings.HasPrefix(e.url, "https://") {
		t.Fatalf("serving %s, want https", e.url)
	}
	cl := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	get := func(path, user, pass string) (int, string) {
		req, _ := http.NewRequest("GET", e.url+path, nil)
		if user != "" {
			req.SetBasicAuth(user, pass)
		}
		resp, err := cl.Do(req)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, _ := get("/metrics", "", ""); code != 401 {
		t.Errorf("/metrics without credentials: %d, want 401", code)
	}
	if code, _ := get("/metrics", "prom", "wrong"); code != 401 {
		t.Errorf("/metrics with a wrong password: %d, want 401", code)
	}
	if code, _ := get("/healthz", "", ""); code != 401 {
		t.Errorf("/healthz without credentials: %d, want 401", code)
	}
	if code, body := get("/healthz", "prom", "scrape-pw"); code != 200 || body != "ok\n" {
		t.Errorf("/healthz: %d %q", code, body)
	}
	want := fmt.Sprintf("kafka_consumergroup_lag{consumergroup=%q,partition=\"0\",topic=%q} 3", g, topic)
	deadline := time.Now().Add(30 * time.Second)
	for {
		code, body := get("/metrics", "prom", "scrape-pw")
		if code == 200 && strings.Contains(body, want) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/metrics with the right password: %d, no %q", code, want)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// A plain-HTTP client gets no metrics from the TLS listener.
	if resp, err := http.Get("http" + strings.TrimPrefix(e.url, "https") + "/metrics"); err == nil && resp.StatusCode == 200 {
		t.Error("plain HTTP served metrics")
	}
	// Bad pairs are bad input before anything listens.
	r := mustRun(t, c, 2, "exporter", "--listen", "127.0.0.1:0", "--web-tls-cert", keyFile, "--web-tls-key", keyFile)
	if !strings.Contains(r.stderr, "--web-tls-cert/--web-tls-key") {
		t.Errorf("bad TLS pair: %q", r.stderr)
	}
	r = mustRun(t, c, 2, "exporter", "--listen", "127.0.0.1:0", "--web-basic-auth-file", certFile)
	if !strings.Contains(r.stderr, "--web-basic-auth-file: line 1") || strings.Contains(r.stderr, "BEGIN") {
		t.Errorf("bad auth file: %q", r.stderr)
	}
}

// selfSigned writes a self-signed certificate for 127.0.0.1 and its key.
func selfSigned(t *testing.T, dir string) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "offsetctl-exporter-test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "web.crt"), filepath.Join(dir, "web.key")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}
