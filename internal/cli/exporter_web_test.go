package cli

import (
	"bytes"
	"compress/gzip"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"golang.org/x/crypto/bcrypt"

	"github.com/offsetctl/offsetctl/internal/testkit"
)

// writeWebConfig writes a --web.config.file into dir.
func writeWebConfig(t *testing.T, dir, yaml string) string {
	t.Helper()
	p := filepath.Join(dir, "web-config.yml")
	if err := os.WriteFile(p, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// bcryptHash is a hash of pw at the toolkit's cost for unknown users (10).
func bcryptHash(t *testing.T, pw string) string {
	t.Helper()
	h, err := bcrypt.GenerateFromPassword([]byte(pw), 10)
	if err != nil {
		t.Fatal(err)
	}
	return string(h)
}

// TestExporterWebConfig: --web.config.file (exporter-toolkit's YAML, with
// paths relative to it) serves HTTPS with basic auth; the page is gzipped
// for a scraper that accepts gzip and plain for one that does not; a
// cost-10 hash draws no warning.
func TestExporterWebConfig(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(1, nil)
	c.Produce(topic, map[int32]int{0: 4}, time.Now())
	g := testkit.Name(t, "exp-web")
	c.Commit(g, topic, map[int32]int64{0: 1})
	dir := t.TempDir()
	certFile, keyFile, pool := selfSigned(t, dir)
	cfg := writeWebConfig(t, dir, fmt.Sprintf("tls_server_config:\n  cert_file: %s\n  key_file: %s\nbasic_auth_users:\n  prom: %s\n",
		filepath.Base(certFile), filepath.Base(keyFile), bcryptHash(t, "scrape-pw")))
	e := startExporter(t, c, nil, "--interval", "1s", "--time-lag=false", "--web.config.file", cfg, g)
	if !strings.HasPrefix(e.url, "https://") {
		t.Fatalf("serving %s, want https", e.url)
	}
	cl := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	get := func(user, pass, encoding string) (int, string, string) {
		req, _ := http.NewRequest("GET", e.url+"/metrics", nil)
		if user != "" {
			req.SetBasicAuth(user, pass)
		}
		req.Header.Set("Accept-Encoding", encoding)
		resp, err := cl.Do(req)
		if err != nil {
			t.Fatalf("GET /metrics: %v", err)
		}
		defer resp.Body.Close()
		var body io.Reader = resp.Body
		if resp.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(resp.Body)
			if err != nil {
				t.Fatalf("gzip: %v", err)
			}
			body = zr
		}
		b, err := io.ReadAll(body)
		if err != nil {
			t.Fatalf("reading /metrics: %v", err)
		}
		return resp.StatusCode, resp.Header.Get("Content-Encoding"), string(b)
	}
	if code, _, _ := get("", "", "identity"); code != 401 {
		t.Errorf("without credentials: %d, want 401", code)
	}
	if code, _, _ := get("prom", "wrong", "identity"); code != 401 {
		t.Errorf("wrong password: %d, want 401", code)
	}
	want := fmt.Sprintf("kafka_consumergroup_lag{consumergroup=%q,partition=\"0\",topic=%q} 3", g, topic)
	deadline := time.Now().Add(30 * time.Second)
	for {
		code, enc, body := get("prom", "scrape-pw", "gzip, deflate")
		if code == 200 && strings.Contains(body, want) {
			if enc != "gzip" {
				t.Errorf("Accept-Encoding gzip: Content-Encoding %q", enc)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("right password: %d, no %q", code, want)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if code, enc, body := get("prom", "scrape-pw", "identity"); code != 200 || enc != "" || !strings.Contains(body, want) {
		t.Errorf("Accept-Encoding identity: %d, Content-Encoding %q, lag line there: %v", code, enc, strings.Contains(body, want))
	}
	if strings.Contains(e.stderr.String(), "warning") {
		t.Errorf("a cost-10 hash drew a warning:\n%s", e.stderr.String())
	}
}

// TestExporterWebConfigBadInput: a bcrypt line of cost 31 (one request
// against it would pin a core for hours) is refused at start with one
// line and exit 2, in the web config and in the older htpasswd file, as
// are a config the toolkit rejects and flags given twice under two names.
func TestExporterWebConfigBadInput(t *testing.T) {
	c := testkit.New(t)
	dir := t.TempDir()
	cost31 := "$2y$31$" + strings.Repeat("A", 53)
	cfg31 := writeWebConfig(t, t.TempDir(), "basic_auth_users:\n  prom: "+cost31+"\n")
	htpasswd := filepath.Join(dir, "scrapers.htpasswd")
	if err := os.WriteFile(htpasswd, []byte("prom:"+cost31+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	unknownKey := writeWebConfig(t, dir, "basic_auth_users: {}\nnot_a_key: secret-value\n")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--web.config.file", cfg31}, `offsetctl: --web.config.file: basic_auth_users: user "prom": bcrypt cost 31 is over 14: checking one password would take hours and pin a core`},
		{[]string{"--web-basic-auth-file", htpasswd}, "offsetctl: --web-basic-auth-file: line 1: bcrypt cost 31 is over 14"},
		{[]string{"--web.config.file", unknownKey}, "offsetctl: --web.config.file: yaml: unmarshal errors: line 2: field not_a_key not found"},
		{[]string{"--web.config.file", cfg31, "--web-basic-auth-file", htpasswd}, "--web.config.file replaces --web-tls-cert, --web-tls-key and --web-basic-auth-file"},
		{[]string{"--web.listen-address", "127.0.0.1:0"}, "--listen is the older name of --web.listen-address: give one of them"},
		{[]string{"--web.write-timeout", "-1s"}, "offsetctl: --web.write-timeout must be positive, got -1s"},
		// net/http takes 0 for no timeout: the slow-client guard would go (QA).
		{[]string{"--web.read-timeout", "0s"}, "offsetctl: --web.read-timeout must be positive, got 0s"},
		{[]string{"--web.write-timeout", "0"}, "offsetctl: --web.write-timeout must be positive, got 0s"},
		{[]string{"--web.idle-timeout", "0s"}, "offsetctl: --web.idle-timeout must be positive, got 0s"},
		{[]string{"--web.max-requests", "-1"}, "offsetctl: --web.max-requests must not be negative, got -1"},
	} {
		r := mustRun(t, c, 2, append([]string{"exporter", "--listen", "127.0.0.1:0"}, tc.args...)...)
		lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
		if len(lines) != 1 || !strings.Contains(lines[0], tc.want) {
			t.Errorf("%v: stderr %q, want one line with %q", tc.args, r.stderr, tc.want)
		}
		if strings.Contains(r.stderr, "AAAA") || strings.Contains(r.stderr, "secret-value") {
			t.Errorf("%v: stderr echoes the file: %q", tc.args, r.stderr)
		}
	}
	// The new name's own errors name it.
	for _, tc := range []struct{ addr, want string }{
		{"hunter2", "offsetctl: --web.listen-address: want HOST:PORT or :PORT"},
		{"127.0.0.1:99999", "offsetctl: --web.listen-address: the port must be a number from 0 to 65535"},
	} {
		r := mustRun(t, c, 2, "exporter", "--web.listen-address", "127.0.0.1:0", "--web.listen-address", tc.addr)
		if !strings.HasPrefix(r.stderr, tc.want) || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
			t.Errorf("--web.listen-address %s: stderr %q, want %q", tc.addr, r.stderr, tc.want)
		}
		if strings.Contains(r.stderr, "hunter2") {
			t.Errorf("the address is echoed: %q", r.stderr)
		}
	}
}

// TestExporterBasicAuthTiming: a wrong password for a known user answers
// within 2x the time of an unknown user and the other way round (medians
// of 9 tries each, interleaved, every password new so the toolkit's cache
// of checked passwords never answers); a right password, once checked, is
// answered from that cache without a bcrypt comparison.
func TestExporterBasicAuthTiming(t *testing.T) {
	c := testkit.New(t)
	cfg := writeWebConfig(t, t.TempDir(), "basic_auth_users:\n  prom: "+bcryptHash(t, "scrape-pw")+"\n")
	e := startExporter(t, c, nil, "--interval", "1m", "--web.config.file", cfg)
	try := func(user, pass string) time.Duration {
		req, _ := http.NewRequest("GET", e.url+"/healthz", nil)
		req.SetBasicAuth(user, pass)
		start := time.Now()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		d := time.Since(start)
		if want := 401; pass == "scrape-pw" && user == "prom" {
			want = 200
			if resp.StatusCode != want {
				t.Fatalf("%s with the right password: %d", user, resp.StatusCode)
			}
		} else if resp.StatusCode != want {
			t.Fatalf("%s with a wrong password: %d, want 401", user, resp.StatusCode)
		}
		return d
	}
	var known, unknown, cached []time.Duration
	for i := range 9 {
		known = append(known, try("prom", fmt.Sprintf("wrong-%d", i)))
		unknown = append(unknown, try(fmt.Sprintf("nobody-%d", i), fmt.Sprintf("wrong-%d", i)))
	}
	try("prom", "scrape-pw")
	for range 9 {
		cached = append(cached, try("prom", "scrape-pw"))
	}
	median := func(d []time.Duration) time.Duration { slices.Sort(d); return d[len(d)/2] }
	k, u, ca := median(known), median(unknown), median(cached)
	t.Logf("medians: known user, wrong password %v; unknown user %v; right password, cached %v", k, u, ca)
	if k > 2*u || u > 2*k {
		t.Errorf("known user with a wrong password %v, unknown user %v: more than 2x apart", k, u)
	}
	if ca*2 > k {
		t.Errorf("a cached right password took %v, half a bcrypt check is %v: not served from the cache", ca, k/2)
	}
}

// TestExporterKafkaExporterFamilies: the kafka_exporter families its
// dashboard reads hold kafka_exporter's meaning: kafka_brokers the
// brokers of the cluster (three in-process, one on the single-node Apache
// Kafka), kafka_topic_partitions every partition of a consumed topic
// (one the group never committed on included), and
// kafka_consumergroup_current_offset_sum the sum of the group's committed
// offsets on the topic.
func TestExporterKafkaExporterFamilies(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(3, nil)
	c.Produce(topic, map[int32]int{0: 9, 1: 7, 2: 5}, time.Now())
	g := testkit.Name(t, "exp-kx")
	c.Commit(g, topic, map[int32]int64{0: 4, 1: 6})
	e := startExporter(t, c, nil, "--interval", "1s", "--time-lag=false", g)
	fams := e.waitScrape(t, "the group", gatheredOK)
	brokers := 3.0
	if testkit.Real() {
		brokers = 1
	}
	for _, tc := range []struct {
		name, labels string
		want         float64
	}{
		{"kafka_brokers", "", brokers},
		{"kafka_topic_partitions", "topic=" + topic, 3},
		{"kafka_consumergroup_current_offset_sum", "consumergroup=" + g + ",topic=" + topic, 10},
		{"kafka_consumergroup_lag_sum", "consumergroup=" + g + ",topic=" + topic, 6},
		{"kafka_topic_partition_current_offset", "partition=2,topic=" + topic, 5},
		{"kafka_topic_partition_oldest_offset", "partition=2,topic=" + topic, 0},
	} {
		if v, ok := value(fams, tc.name, tc.labels); !ok || v != tc.want {
			t.Errorf("%s{%s} = %v (present %v), want %v; series %v", tc.name, tc.labels, v, ok, tc.want, series(fams, tc.name))
		}
	}
}

// promtoolLint is the one finding `promtool check metrics` has on the
// page: kafka_exporter's two names with a _sum suffix on a gauge, kept so
// its dashboards and alerts work (docs/exporter.md).
var promtoolLint = regexp.MustCompile(`^kafka_consumergroup_(lag|current_offset)_sum non-histogram and non-summary metrics should not have "_sum" suffix$`)

// TestExporterPromtoolCheckMetrics pipes a real scrape (every family with
// a line: a lagging group, rates from the second gather on) through
// Prometheus' `promtool check metrics`: it parses, and the only lint is
// the documented _sum one. Without promtool on PATH it skips, unless
// OFFSETCTL_REQUIRE_PROMTOOL is set (CI sets it).
func TestExporterPromtoolCheckMetrics(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("OFFSETCTL_REQUIRE_PROMTOOL") != "" {
			t.Fatal("promtool not on PATH (Debian's prometheus package has it)")
		}
		t.Skip("promtool not on PATH")
	}
	c := testkit.New(t)
	topic := c.Topic(2, nil)
	c.Produce(topic, map[int32]int{0: 9, 1: 7}, time.Now().Add(-time.Minute))
	g := testkit.Name(t, "exp-promtool")
	c.Commit(g, topic, map[int32]int64{0: 4, 1: 6})
	e := startExporter(t, c, nil, "--interval", "1s", g)
	e.waitScrape(t, "rates and time lag", func(f map[string]*dto.MetricFamily) bool {
		return gatheredOK(f) && f["kafka_topic_produce_rate"] != nil && f["kafka_consumergroup_lag_seconds"] != nil
	})
	resp, err := http.Get(e.url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	page, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = bytes.NewReader(page)
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	lints := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if line == "" {
			continue
		}
		if !promtoolLint.MatchString(line) {
			t.Errorf("promtool check metrics: %q", line)
		}
		lints++
	}
	if lints != 2 || code != 3 {
		t.Errorf("promtool check metrics exited %d with %d lint lines, want 3 (lint findings) with the 2 _sum names:\n%s", code, lints, out)
	}
}

// clientCA makes a CA (written to dir/scrapers-ca.crt) and a client
// certificate it signed, for mTLS.
func clientCA(t *testing.T, dir string) (caFile string, client tls.Certificate) {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(10), Subject: pkix.Name{CommonName: "offsetctl-test-scrapers-ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		t.Fatal(err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(11), Subject: pkix.Name{CommonName: "prometheus"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caFile = filepath.Join(dir, "scrapers-ca.crt")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	return caFile, tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// TestExporterWebConfigClientCerts: with client_auth_type
// RequireAndVerifyClientCert a scraper without a certificate of the
// configured CA gets no answer at all; one with it gets the page.
func TestExporterWebConfigClientCerts(t *testing.T) {
	c := testkit.New(t)
	dir := t.TempDir()
	certFile, keyFile, pool := selfSigned(t, dir)
	caFile, client := clientCA(t, dir)
	cfg := writeWebConfig(t, dir, fmt.Sprintf("tls_server_config:\n  cert_file: %s\n  key_file: %s\n  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: %s\n",
		filepath.Base(certFile), filepath.Base(keyFile), filepath.Base(caFile)))
	e := startExporter(t, c, nil, "--interval", "1m", "--web.config.file", cfg)
	get := func(certs []tls.Certificate) (int, error) {
		cl := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, Certificates: certs}}}
		resp, err := cl.Get(e.url + "/healthz")
		if err != nil {
			return 0, err
		}
		defer resp.Body.Close()
		return resp.StatusCode, nil
	}
	if code, err := get(nil); err == nil {
		t.Errorf("without a client certificate: HTTP %d, want the handshake refused", code)
	}
	_, other := clientCA(t, t.TempDir()) // signed by another CA
	if code, err := get([]tls.Certificate{other}); err == nil {
		t.Errorf("with a certificate of another CA: HTTP %d, want the handshake refused", code)
	}
	if code, err := get([]tls.Certificate{client}); err != nil || code != 200 {
		t.Errorf("with the scrapers' certificate: %d, %v; want 200", code, err)
	}
}
