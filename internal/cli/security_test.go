package cli

// Security tests: TLS, mutual TLS, SASL (SCRAM, PLAIN), --command-config,
// --profile, and that no secret is ever printed. They run on kfake (which
// speaks TLS and SASL) in `make test`, whatever KAFKA_BROKERS says, and the
// TestSecureBroker* ones against the second real broker of
// scripts/kafka-secure.sh in `make test-kafka-secure` (skipped otherwise).

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/offsetctl/offsetctl/internal/cluster"
	"github.com/offsetctl/offsetctl/internal/lag"
	"github.com/offsetctl/offsetctl/internal/testkit"
	"github.com/offsetctl/offsetctl/replay"
)

// offsetctlEnv runs offsetctl in-process with exactly args (no --brokers
// added) and the given environment.
func offsetctlEnv(t testing.TB, env map[string]string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out, errb bytes.Buffer
	a := &app{stdout: &out, stderr: &errb, stdin: strings.NewReader(""), getenv: testEnv(t, func(k string) string { return env[k] }), now: time.Now}
	code := a.execute(ctx, args)
	return result{stdout: out.String(), stderr: errb.String(), code: code}
}

func mustRunEnv(t testing.TB, env map[string]string, want int, args ...string) result {
	t.Helper()
	r := offsetctlEnv(t, env, args...)
	if r.code != want {
		t.Fatalf("offsetctl %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.code, want, r.stdout, r.stderr)
	}
	return r
}

// assertNoSecret fails if any secret shows in what a run printed.
func assertNoSecret(t testing.TB, r result, secrets ...string) {
	t.Helper()
	for _, s := range secrets {
		if strings.Contains(r.stdout, s) || strings.Contains(r.stderr, s) {
			t.Fatalf("a secret was printed\nstdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
		}
	}
}

// assertOneLine checks stderr is exactly one "offsetctl: " line holding
// want, besides "offsetctl: note:" lines about ignored settings.
func assertOneLine(t testing.TB, r result, want string) {
	t.Helper()
	var lines []string
	for _, l := range strings.Split(strings.TrimRight(r.stderr, "\n"), "\n") {
		if !strings.HasPrefix(l, "offsetctl: note: ") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "offsetctl: ") || !strings.Contains(lines[0], want) {
		t.Fatalf("stderr is not one line containing %q:\n%s", want, r.stderr)
	}
}

// testPKI is a throwaway CA, a server certificate for 127.0.0.1/localhost
// and a client certificate, written as PEM files.
type testPKI struct {
	ca, clientCert, clientKey string
	server                    tls.Certificate
	pool                      *x509.CertPool
}

func newTestPKI(t testing.TB) testPKI {
	t.Helper()
	dir := t.TempDir()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "offsetctl test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, _ := x509.ParseCertificate(caDER)
	leaf := func(cn string, serial int64, usage x509.ExtKeyUsage) ([]byte, []byte) {
		k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		tmpl := &x509.Certificate{
			SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: cn},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
			ExtKeyUsage: []x509.ExtKeyUsage{usage}, DNSNames: []string{"localhost"},
			IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &k.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		kd, _ := x509.MarshalPKCS8PrivateKey(k)
		return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kd})
	}
	write := func(name string, b []byte) string {
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return f
	}
	p := testPKI{pool: x509.NewCertPool()}
	p.pool.AddCert(caCert)
	p.ca = write("ca.pem", pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}))
	sc, sk := leaf("localhost", 2, x509.ExtKeyUsageServerAuth)
	if p.server, err = tls.X509KeyPair(sc, sk); err != nil {
		t.Fatal(err)
	}
	cc, ck := leaf("offsetctl-client", 3, x509.ExtKeyUsageClientAuth)
	p.clientCert, p.clientKey = write("client.pem", cc), write("client.key", ck)
	return p
}

// secureFake is a kfake cluster that requires TLS and SASL (or, with
// mtls, TLS with a client certificate and no SASL), and a testkit.Cluster
// whose own client speaks it, for setting up data.
type secureFake struct {
	c        *testkit.Cluster
	pki      testPKI
	user     string
	password string
}

func newSecureFake(t *testing.T, mtls bool) *secureFake {
	t.Helper()
	// These tests are about the client's TLS/SASL: always on kfake.
	t.Setenv("KAFKA_BROKERS", "")
	p := newTestPKI(t)
	srv := &tls.Config{Certificates: []tls.Certificate{p.server}, MinVersion: tls.VersionTLS12}
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	s := &secureFake{pki: p, user: "alice", password: fmt.Sprintf("Wonder-%x-land", rnd)}
	opts := []kfake.Opt{kfake.TLS(srv)}
	if mtls {
		srv.ClientAuth = tls.RequireAndVerifyClientCert
		srv.ClientCAs = p.pool
	} else {
		opts = append(opts, kfake.EnableSASL(),
			kfake.Superuser("SCRAM-SHA-512", s.user, s.password),
			kfake.Superuser("SCRAM-SHA-256", "bob", s.password+"-256"),
			kfake.Superuser("PLAIN", "carol", s.password+"-plain"))
	}
	s.c = testkit.New(t, opts...)
	client := &tls.Config{RootCAs: p.pool, MinVersion: tls.VersionTLS12}
	if mtls {
		pair, err := tls.LoadX509KeyPair(p.clientCert, p.clientKey)
		if err != nil {
			t.Fatal(err)
		}
		client.Certificates = []tls.Certificate{pair}
	} else {
		s.c.Cfg.SASL = scram.Auth{User: s.user, Pass: s.password}.AsSha512Mechanism()
	}
	s.c.Cfg.TLS = client
	return s
}

// fixture makes a topic of 3 partitions with 10 records each and a group
// committed at 4, 6 and 10.
func (s *secureFake) fixture(t *testing.T) (topic, group string) {
	t.Helper()
	topic = s.c.Topic(3, nil)
	group = testkit.Name(t, "g")
	s.c.Produce(topic, map[int32]int{0: 10, 1: 10, 2: 10}, time.Time{})
	s.c.Commit(group, topic, map[int32]int64{0: 4, 1: 6, 2: 10})
	return topic, group
}

// secLagOf decodes `lag -o json` of one group into partition → lag.
func secLagOf(t testing.TB, r result, group string) map[int32]int64 {
	t.Helper()
	var rep lag.LagReport
	decodeJSON(t, r, &rep)
	out := map[int32]int64{}
	for _, g := range rep.Groups {
		if g.Group != group {
			continue
		}
		for _, p := range g.Partitions {
			out[p.Partition] = lagv(p)
		}
	}
	return out
}

func secWantLag(t testing.TB, got map[int32]int64) {
	t.Helper()
	want := map[int32]int64{0: 6, 1: 4, 2: 0}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("lag = %v, want %v", got, want)
	}
}

func TestSecuritySASLSCRAMOverTLS(t *testing.T) {
	s := newSecureFake(t, false)
	topic, group := s.fixture(t)
	brokers := s.c.BrokerList()
	env := map[string]string{"KAFKA_SASL_PASSWORD": s.password}

	// SCRAM-SHA-512, password from the environment, verbose on.
	r := mustRunEnv(t, env, 0, "lag", group, "-b", brokers, "--tls-ca", s.pki.ca,
		"--sasl-mechanism", "scram-sha-512", "--sasl-user", s.user, "-o", "json", "-v")
	secWantLag(t, secLagOf(t, r, group))
	assertNoSecret(t, r, s.password)

	// SCRAM-SHA-256, password from a file.
	pwFile := filepath.Join(t.TempDir(), "bob.pw")
	if err := os.WriteFile(pwFile, []byte(s.password+"-256\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r = mustRunEnv(t, nil, 0, "lag", group, "-b", brokers, "--tls-ca", s.pki.ca,
		"--sasl-mechanism", "SCRAM-SHA-256", "--sasl-user", "bob", "--sasl-password-file", pwFile, "-o", "json")
	secWantLag(t, secLagOf(t, r, group))

	// PLAIN over TLS: no clear-text warning because TLS is on.
	r = mustRunEnv(t, map[string]string{"KAFKA_SASL_PASSWORD": s.password + "-plain"}, 0, "lag", group, "-b", brokers,
		"--tls-ca", s.pki.ca, "--sasl-mechanism", "plain", "--sasl-user", "carol", "-o", "json")
	secWantLag(t, secLagOf(t, r, group))
	if strings.Contains(r.stderr, "clear text") {
		t.Fatalf("clear-text warning with TLS on: %s", r.stderr)
	}
	_ = topic
}

func TestSecurityResetAndReplayOverSASLTLS(t *testing.T) {
	s := newSecureFake(t, false)
	topic, group := s.fixture(t)
	env := map[string]string{"KAFKA_SASL_PASSWORD": s.password}
	conn := []string{"-b", s.c.BrokerList(), "--tls-ca", s.pki.ca, "--sasl-mechanism", "scram-sha-512", "--sasl-user", s.user}

	backup := filepath.Join(t.TempDir(), "backup.csv")
	r := mustRunEnv(t, env, 0, append([]string{"reset", group, "--topic", topic, "--to", "earliest", "--execute", "--backup", backup}, conn...)...)
	assertNoSecret(t, r, s.password)
	if got := s.c.Committed(group)[topic]; fmt.Sprint(got) != fmt.Sprint(map[int32]int64{0: 0, 1: 0, 2: 0}) {
		t.Fatalf("after reset over SASL/TLS the broker has %v", got)
	}
	mustRunEnv(t, env, 0, append([]string{"reset", group, "--to", "file:" + backup, "--execute", "--backup", backup + ".2"}, conn...)...)
	if got := s.c.Committed(group)[topic]; fmt.Sprint(got) != fmt.Sprint(map[int32]int64{0: 4, 1: 6, 2: 10}) {
		t.Fatalf("after restoring the backup the broker has %v", got)
	}

	out := filepath.Join(t.TempDir(), "records.jsonl")
	r = mustRunEnv(t, env, 0, append([]string{"replay", topic, "-o", "json", "--out", out, "-q"}, conn...)...)
	var res replay.Result
	decodeJSON(t, r, &res)
	if res.Records != 30 || res.Digest == "" {
		t.Fatalf("replay over SASL/TLS: %d records, digest %q", res.Records, res.Digest)
	}
	assertNoSecret(t, r, s.password)
}

func TestSecurityWrongPasswordFailsClearly(t *testing.T) {
	s := newSecureFake(t, false)
	_, group := s.fixture(t)
	const wrong = "Not-The-Password-123"
	r := mustRunEnv(t, map[string]string{"KAFKA_SASL_PASSWORD": wrong}, 1, "lag", group, "-b", s.c.BrokerList(),
		"--tls-ca", s.pki.ca, "--sasl-mechanism", "scram-sha-512", "--sasl-user", s.user, "--timeout", "10s", "-v")
	// -v adds client log lines; the error itself is the last line.
	lines := strings.Split(strings.TrimRight(r.stderr, "\n"), "\n")
	last := lines[len(lines)-1]
	// kfake closes the connection on bad credentials where Apache Kafka
	// answers SASL_AUTHENTICATION_FAILED (TestSecureBrokerFailures checks
	// that wording); both end in one line naming the brokers and mechanism.
	if !strings.HasPrefix(last, "offsetctl: authentication failed at "+s.c.BrokerList()+" (SASL SCRAM-SHA-512)") &&
		!strings.HasPrefix(last, "offsetctl: the brokers at "+s.c.BrokerList()+" closed the connection during the handshake (SASL SCRAM-SHA-512)") {
		t.Fatalf("last line: %q", last)
	}
	assertNoSecret(t, r, wrong, s.password)
	if r.stdout != "" {
		t.Fatalf("stdout on failure: %q", r.stdout)
	}
}

func TestSecurityMutualTLS(t *testing.T) {
	s := newSecureFake(t, true)
	_, group := s.fixture(t)
	r := mustRunEnv(t, nil, 0, "lag", group, "-b", s.c.BrokerList(), "--tls-ca", s.pki.ca,
		"--tls-cert", s.pki.clientCert, "--tls-key", s.pki.clientKey, "-o", "json")
	secWantLag(t, secLagOf(t, r, group))

	r = mustRunEnv(t, nil, 1, "lag", group, "-b", s.c.BrokerList(), "--tls-ca", s.pki.ca, "--timeout", "5s")
	assertOneLine(t, r, "--tls-cert and --tls-key")

	// Without the CA: the broker's certificate is not trusted.
	r = mustRunEnv(t, nil, 1, "lag", group, "-b", s.c.BrokerList(), "--tls", "--timeout", "5s")
	assertOneLine(t, r, "unknown authority; pass its CA with --tls-ca")

	// --tls-insecure-skip-verify works and warns, every time.
	for i := 0; i < 2; i++ {
		r = mustRunEnv(t, nil, 0, "lag", group, "-b", s.c.BrokerList(), "--tls-insecure-skip-verify",
			"--tls-cert", s.pki.clientCert, "--tls-key", s.pki.clientKey, "-o", "json")
		if !strings.Contains(r.stderr, "offsetctl: warning: TLS certificate verification is OFF") {
			t.Fatalf("run %d: no warning: %q", i, r.stderr)
		}
		secWantLag(t, secLagOf(t, r, group))
	}
}

func TestSecurityPlaintextClientAgainstTLSFailsClearly(t *testing.T) {
	s := newSecureFake(t, false)
	done := make(chan result, 1)
	go func() {
		done <- offsetctlEnv(t, nil, "lag", "--all-groups", "-b", s.c.BrokerList(), "--timeout", "2s")
	}()
	select {
	case r := <-done:
		if r.code != 1 {
			t.Fatalf("exit %d, want 1: %s", r.code, r.stderr)
		}
		assertOneLine(t, r, s.c.BrokerList())
	case <-time.After(60 * time.Second):
		t.Fatal("a plaintext client against a TLS listener has not returned after 60s (--timeout 2s)")
	}
}

func TestSecurityCommandConfig(t *testing.T) {
	s := newSecureFake(t, false)
	_, group := s.fixture(t)
	dir := t.TempDir()
	props := filepath.Join(dir, "client.properties")
	content := fmt.Sprintf(`# as for kafka-consumer-groups.sh --command-config
bootstrap.servers=%s
security.protocol=SASL_SSL
sasl.mechanism=SCRAM-SHA-512
sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required \
    username="%s" \
    password="%s";
ssl.truststore.type=PEM
ssl.truststore.location=%s
request.timeout.ms=30000
`, s.c.BrokerList(), s.user, s.password, s.pki.ca)
	if err := os.WriteFile(props, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	r := mustRunEnv(t, nil, 0, "lag", group, "--command-config", props, "-o", "json", "-v")
	secWantLag(t, secLagOf(t, r, group))
	assertNoSecret(t, r, s.password)
	if !strings.Contains(r.stderr, "offsetctl: note: --command-config: ignoring client settings that do not apply to offsetctl: request.timeout.ms") {
		t.Fatalf("no note about ignored keys: %s", r.stderr)
	}

	// Inline PEM truststore (ssl.truststore.certificates) with continuation lines.
	ca, _ := os.ReadFile(s.pki.ca)
	inline := strings.ReplaceAll(strings.TrimSpace(string(ca)), "\n", " \\\n  ")
	props2 := filepath.Join(dir, "inline.properties")
	content2 := fmt.Sprintf("security.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-512\nsasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username=\"%s\" password=\"%s\";\nssl.truststore.type=PEM\nssl.truststore.certificates=%s\n", s.user, s.password, inline)
	if err := os.WriteFile(props2, []byte(content2), 0o600); err != nil {
		t.Fatal(err)
	}
	r = mustRunEnv(t, nil, 0, "lag", group, "-b", s.c.BrokerList(), "--command-config", props2, "-o", "json")
	secWantLag(t, secLagOf(t, r, group))

	// A user from the flag never gets the file's password (alice's):
	// refused before connecting, no value shown.
	r = mustRunEnv(t, nil, 2, "lag", group, "--command-config", props, "--sasl-user", "mallory", "--timeout", "10s")
	assertOneLine(t, r, "--sasl-user names another SASL user than the one the password from --command-config is for")
	assertNoSecret(t, r, s.password, s.user)

	// Unsupported keys are named, exit 2, nothing echoed.
	for key, line := range map[string]string{
		"ssl.truststore.type": "ssl.truststore.type=JKS\nssl.truststore.location=/etc/kafka/truststore.jks",
		"ssl.key.password":    "ssl.key.password=" + s.password,
		"GSSAPI":              "security.protocol=SASL_SSL\nsasl.mechanism=GSSAPI",
		"names no mechanism":  "security.protocol=SASL_SSL",
		"sasl.jaas.config: a quoted value is not closed": "security.protocol=SASL_SSL\nsasl.mechanism=PLAIN\nsasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" password=\"" + s.password,
	} {
		bad := filepath.Join(dir, "bad.properties")
		if err := os.WriteFile(bad, []byte(line+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		r := mustRunEnv(t, nil, 2, "lag", group, "-b", s.c.BrokerList(), "--command-config", bad)
		assertOneLine(t, r, key)
		assertNoSecret(t, r, s.password)
	}
}

func TestSecurityProfiles(t *testing.T) {
	s := newSecureFake(t, false)
	_, group := s.fixture(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "alice.pw"), []byte(s.password+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	caCopy := filepath.Join(dir, "ca.pem")
	ca, _ := os.ReadFile(s.pki.ca)
	if err := os.WriteFile(caCopy, ca, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "config.yaml")
	yaml := fmt.Sprintf(`profiles:
  secure:
    brokers: [%s]
    tls:
      ca: ca.pem
    sasl:
      mechanism: scram-sha-512
      user: %s
      password_file: alice.pw
  byenv:
    brokers: %q
    tls: {ca: %s}
    sasl: {mechanism: scram-sha-512, user: %s, password_env: ALICE_PW}
`, s.c.BrokerList(), s.user, s.c.BrokerList(), caCopy, s.user)
	if err := os.WriteFile(cfg, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"OFFSETCTL_CONFIG": cfg, "KAFKA_BROKERS": "127.0.0.1:1"}
	r := mustRunEnv(t, env, 0, "lag", group, "--profile", "secure", "-o", "json")
	secWantLag(t, secLagOf(t, r, group))

	env["ALICE_PW"] = s.password
	r = mustRunEnv(t, env, 0, "lag", group, "--profile", "byenv", "-o", "json", "-v")
	secWantLag(t, secLagOf(t, r, group))
	assertNoSecret(t, r, s.password)

	// Flags override the profile: another broker list is used.
	r = mustRunEnv(t, env, 1, "lag", group, "--profile", "secure", "-b", "127.0.0.1:1", "--timeout", "2s")
	assertOneLine(t, r, "127.0.0.1:1")

	r = mustRunEnv(t, env, 2, "lag", group, "--profile", "nope")
	assertOneLine(t, r, `--profile "nope": not in `+cfg+" (profiles: byenv, secure)")

	// A plaintext password in the file is refused without echoing it.
	if err := os.WriteFile(cfg, []byte("profiles:\n  p:\n    sasl:\n      user: a\n      password: "+s.password+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r = mustRunEnv(t, env, 2, "lag", group, "--profile", "p")
	assertOneLine(t, r, "plaintext password is not allowed")
	assertNoSecret(t, r, s.password)
}

func TestSecuritySecretsNeverInArgvOrOutput(t *testing.T) {
	const pw = "Argv-Visible-Secret-77"
	r := mustRunEnv(t, nil, 2, "lag", "--all-groups", "-b", "127.0.0.1:1", "--sasl-mechanism", "plain", "--sasl-user", "u", "--sasl-password", pw)
	assertOneLine(t, r, "--sasl-password is not accepted")
	assertNoSecret(t, r, pw)

	// No password anywhere and no terminal: a clear usage error.
	r = mustRunEnv(t, nil, 2, "lag", "--all-groups", "-b", "127.0.0.1:1", "--sasl-mechanism", "scram-sha-512", "--sasl-user", "u")
	assertOneLine(t, r, "needs a password: set KAFKA_SASL_PASSWORD, pass --sasl-password-file FILE, or run on a terminal")

	r = mustRunEnv(t, nil, 2, "lag", "--all-groups", "-b", "127.0.0.1:1", "--sasl-mechanism", "kerberos")
	assertOneLine(t, r, "--sasl-mechanism: unknown SASL mechanism")

	r = mustRunEnv(t, nil, 2, "lag", "--all-groups", "-b", "127.0.0.1:1", "--tls-cert", "x.pem")
	assertOneLine(t, r, "--tls-cert and --tls-key go together")

	r = mustRunEnv(t, nil, 2, "lag", "--all-groups", "-b", "127.0.0.1:1", "--sasl-mechanism", "oauthbearer")
	assertOneLine(t, r, "needs a token: set KAFKA_SASL_TOKEN or pass --sasl-token-file FILE")

	r = mustRunEnv(t, nil, 2, "lag", "--all-groups", "-b", "127.0.0.1:1", "--sasl-mechanism", "aws-msk-iam", "--tls")
	assertOneLine(t, r, "needs AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY")
}

// ---- the real secure broker (scripts/kafka-secure.sh) -----------------

// secureBroker is the second real broker's environment, or a skip.
type secureBroker struct {
	plaintext, saslSSL, mtls string
	ca, cert, key            string
	rogueCert, rogueKey      string
	user, passwordFile       string
	password                 string
	script                   string
	c                        *testkit.Cluster // setup over PLAINTEXT
}

func needSecureBroker(t *testing.T) *secureBroker {
	t.Helper()
	get := os.Getenv
	b := &secureBroker{
		plaintext: get("OFFSETCTL_SECURE_PLAINTEXT"), saslSSL: get("OFFSETCTL_SECURE_SASL_SSL"), mtls: get("OFFSETCTL_SECURE_MTLS"),
		ca: get("OFFSETCTL_SECURE_CA"), cert: get("OFFSETCTL_SECURE_CLIENT_CERT"), key: get("OFFSETCTL_SECURE_CLIENT_KEY"),
		rogueCert: get("OFFSETCTL_SECURE_ROGUE_CERT"), rogueKey: get("OFFSETCTL_SECURE_ROGUE_KEY"),
		user: get("OFFSETCTL_SECURE_USER"), passwordFile: get("OFFSETCTL_SECURE_PASSWORD_FILE"), script: get("OFFSETCTL_SECURE_SCRIPT"),
	}
	if b.plaintext == "" || b.saslSSL == "" || b.mtls == "" || b.passwordFile == "" {
		t.Skip("needs the secure broker: eval \"$(scripts/kafka-secure.sh start)\" (make test-kafka-secure)")
	}
	pw, err := os.ReadFile(b.passwordFile)
	if err != nil {
		t.Fatal(err)
	}
	b.password = strings.TrimSpace(string(pw))
	t.Setenv("KAFKA_BROKERS", b.plaintext)
	b.c = testkit.New(t)
	return b
}

func (b *secureBroker) fixture(t *testing.T) (topic, group string) {
	t.Helper()
	topic = b.c.Topic(3, nil)
	group = testkit.Name(t, "g")
	b.c.Produce(topic, map[int32]int{0: 10, 1: 10, 2: 10}, time.Time{})
	b.c.Commit(group, topic, map[int32]int64{0: 4, 1: 6, 2: 10})
	return topic, group
}

func (b *secureBroker) scram(mech string) []string {
	return []string{"-b", b.saslSSL, "--tls-ca", b.ca, "--sasl-mechanism", mech, "--sasl-user", b.user, "--sasl-password-file", b.passwordFile}
}

func (b *secureBroker) mutual() []string {
	return []string{"-b", b.mtls, "--tls-ca", b.ca, "--tls-cert", b.cert, "--tls-key", b.key}
}

func TestSecureBrokerLag(t *testing.T) {
	b := needSecureBroker(t)
	_, group := b.fixture(t)
	for name, conn := range map[string][]string{
		"scram-sha-512": b.scram("scram-sha-512"),
		"scram-sha-256": b.scram("scram-sha-256"),
		"mtls":          b.mutual(),
	} {
		t.Run(name, func(t *testing.T) {
			r := mustRunEnv(t, nil, 0, append([]string{"lag", group, "-o", "json", "-v"}, conn...)...)
			secWantLag(t, secLagOf(t, r, group))
			assertNoSecret(t, r, b.password)
		})
	}
	// The password from the environment instead of a file.
	r := mustRunEnv(t, map[string]string{"KAFKA_SASL_PASSWORD": b.password}, 0, "lag", group, "-o", "json",
		"-b", b.saslSSL, "--tls-ca", b.ca, "--sasl-mechanism", "scram-sha-512", "--sasl-user", b.user)
	secWantLag(t, secLagOf(t, r, group))
}

func TestSecureBrokerResetAndReplay(t *testing.T) {
	b := needSecureBroker(t)
	topic, group := b.fixture(t)
	backup := filepath.Join(t.TempDir(), "backup.csv")
	r := mustRunEnv(t, nil, 0, append([]string{"reset", group, "--topic", topic, "--to", "latest", "--execute", "--backup", backup}, b.scram("scram-sha-512")...)...)
	assertNoSecret(t, r, b.password)
	if got := b.c.Committed(group)[topic]; fmt.Sprint(got) != fmt.Sprint(map[int32]int64{0: 10, 1: 10, 2: 10}) {
		t.Fatalf("after reset over SASL_SSL the broker has %v", got)
	}
	mustRunEnv(t, nil, 0, append([]string{"reset", group, "--to", "file:" + backup, "--execute", "--backup", backup + ".2"}, b.mutual()...)...)
	if got := b.c.Committed(group)[topic]; fmt.Sprint(got) != fmt.Sprint(map[int32]int64{0: 4, 1: 6, 2: 10}) {
		t.Fatalf("after restoring over mTLS the broker has %v", got)
	}
	var digests []string
	for _, conn := range [][]string{b.scram("scram-sha-512"), b.mutual()} {
		out := filepath.Join(t.TempDir(), "records.jsonl")
		r := mustRunEnv(t, nil, 0, append([]string{"replay", topic, "-o", "json", "--out", out, "-q"}, conn...)...)
		var res replay.Result
		decodeJSON(t, r, &res)
		if res.Records != 30 {
			t.Fatalf("replay: %d records, want 30", res.Records)
		}
		digests = append(digests, res.Digest)
	}
	if digests[0] != digests[1] || digests[0] == "" {
		t.Fatalf("SASL_SSL and mTLS replays differ: %v", digests)
	}
}

func TestSecureBrokerFailures(t *testing.T) {
	b := needSecureBroker(t)
	const wrong = "definitely-wrong-password"
	r := mustRunEnv(t, map[string]string{"KAFKA_SASL_PASSWORD": wrong}, 1, "lag", "--all-groups", "-b", b.saslSSL,
		"--tls-ca", b.ca, "--sasl-mechanism", "scram-sha-512", "--sasl-user", b.user, "--timeout", "10s")
	assertOneLine(t, r, "authentication failed at "+b.saslSSL+" (SASL SCRAM-SHA-512)")
	assertNoSecret(t, r, wrong, b.password)

	// A plaintext client against the TLS ports: one clear line, no hang.
	for _, addr := range []string{b.saslSSL, b.mtls} {
		r := guarded(t, nil, "lag", "--all-groups", "-b", addr, "--timeout", "3s")
		if r.code != 1 {
			t.Fatalf("%s: exit %d", addr, r.code)
		}
		assertOneLine(t, r, addr)
	}
	// TLS against the plaintext port.
	r = guarded(t, nil, "lag", "--all-groups", "-b", b.plaintext, "--tls-ca", b.ca, "--timeout", "3s")
	if r.code != 1 {
		t.Fatalf("exit %d", r.code)
	}
	assertOneLine(t, r, "TLS")
	// mTLS without a certificate, and with one from an untrusted CA.
	r = mustRunEnv(t, nil, 1, "lag", "--all-groups", "-b", b.mtls, "--tls-ca", b.ca, "--timeout", "5s")
	assertOneLine(t, r, "--tls-cert and --tls-key")
	if b.rogueCert != "" {
		r = mustRunEnv(t, nil, 1, "lag", "--all-groups", "-b", b.mtls, "--tls-ca", b.ca, "--tls-cert", b.rogueCert, "--tls-key", b.rogueKey, "--timeout", "5s")
		assertOneLine(t, r, "refused by the broker")
	}
}

func TestSecureBrokerCommandConfig(t *testing.T) {
	b := needSecureBroker(t)
	_, group := b.fixture(t)
	dir := t.TempDir()
	props := filepath.Join(dir, "client.properties")
	content := fmt.Sprintf("bootstrap.servers=%s\nsecurity.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-512\n"+
		"sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username=\"%s\" password=\"%s\";\n"+
		"ssl.truststore.type=PEM\nssl.truststore.location=%s\n", b.saslSSL, b.user, b.password, b.ca)
	if err := os.WriteFile(props, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	r := mustRunEnv(t, nil, 0, "lag", group, "--command-config", props, "-o", "json")
	secWantLag(t, secLagOf(t, r, group))

	// mTLS from a PEM keystore file (key + chain in one file).
	ks := filepath.Join(dir, "keystore.pem")
	key, _ := os.ReadFile(b.key)
	cert, _ := os.ReadFile(b.cert)
	if err := os.WriteFile(ks, append(key, cert...), 0o600); err != nil {
		t.Fatal(err)
	}
	props2 := filepath.Join(dir, "mtls.properties")
	content2 := fmt.Sprintf("bootstrap.servers=%s\nsecurity.protocol=SSL\nssl.truststore.type=PEM\nssl.truststore.location=%s\nssl.keystore.type=PEM\nssl.keystore.location=%s\n", b.mtls, b.ca, ks)
	if err := os.WriteFile(props2, []byte(content2), 0o600); err != nil {
		t.Fatal(err)
	}
	r = mustRunEnv(t, nil, 0, "lag", group, "--command-config", props2, "-o", "json")
	secWantLag(t, secLagOf(t, r, group))

	// The very same file works with Apache's own tool.
	if script := os.Getenv("OFFSETCTL_KAFKA_SCRIPT"); script != "" {
		out := apacheDescribe(t, script, b.saslSSL, props, group)
		if !strings.Contains(out, group) {
			t.Fatalf("Apache's tool with the same --command-config did not describe %s:\n%s", group, out)
		}
	}
}

// guarded runs offsetctl but fails the test if it has not returned after
// a generous 60s (the commands get a short --timeout; no durations are
// asserted, only that they return).
func guarded(t *testing.T, env map[string]string, args ...string) result {
	t.Helper()
	done := make(chan result, 1)
	go func() { done <- offsetctlEnv(t, env, args...) }()
	select {
	case r := <-done:
		return r
	case <-time.After(60 * time.Second):
		t.Fatalf("offsetctl %s has not returned after 60s", strings.Join(args, " "))
	}
	return result{}
}

// apacheDescribe runs Apache's kafka-consumer-groups --describe with a
// --command-config file.
func apacheDescribe(t *testing.T, script, brokers, props, group string) string {
	t.Helper()
	cmd := exec.Command("bash", script, "consumer-groups", "--bootstrap-server", brokers, "--command-config", props, "--describe", "--group", group)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("Apache consumer-groups: %v\n%s", err, stderr.String())
	}
	return string(out)
}

// debugCapture records every franz-go log line at debug level.
type debugCapture struct {
	mu    sync.Mutex
	lines []string
}

func (*debugCapture) Level() kgo.LogLevel { return kgo.LogLevelDebug }
func (d *debugCapture) Log(level kgo.LogLevel, msg string, kv ...any) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.lines = append(d.lines, fmt.Sprint(append([]any{level.String(), msg}, kv...)...))
}

// TestSecurityDebugLogsHoldNoSecret checks franz-go itself, at its most
// verbose level and without offsetctl's scrubbing, never logs the PLAIN or
// SCRAM password while connecting, authenticating and failing to.
func TestSecurityDebugLogsHoldNoSecret(t *testing.T) {
	s := newSecureFake(t, false)
	_, group := s.fixture(t)
	for _, tt := range []struct {
		mech, user, pass string
		ok               bool
	}{
		{cluster.MechScram512, s.user, s.password, true},
		{cluster.MechPlain, "carol", s.password + "-plain", true},
		{cluster.MechScram512, s.user, "Wrong-" + s.password, false},
	} {
		conn, err := cluster.Connect(cluster.Sources{
			Env:   cluster.Env{Getenv: func(k string) string { return map[string]string{"KAFKA_SASL_PASSWORD": tt.pass}[k] }, ReadFile: os.ReadFile},
			Flags: cluster.Settings{Brokers: s.c.Brokers, TLS: cluster.TLSSettings{CAFile: s.pki.ca, Enabled: &[]bool{true}[0]}, SASL: cluster.SASLSettings{Mechanism: tt.mech, User: tt.user}},
		})
		if err != nil {
			t.Fatal(err)
		}
		var logs debugCapture
		cfg := cluster.Config{Brokers: conn.Brokers, Timeout: 5 * time.Second, TLS: conn.TLS, SASL: conn.SASL, Logger: &logs}
		adm, err := cfg.NewAdmin()
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, err = adm.FetchOffsets(ctx, group)
		cancel()
		adm.Close()
		if (err == nil) != tt.ok {
			t.Fatalf("%s as %s: err = %v, want success %v", tt.mech, tt.user, err, tt.ok)
		}
		logs.mu.Lock()
		all := strings.Join(logs.lines, "\n")
		logs.mu.Unlock()
		if len(logs.lines) == 0 || !strings.Contains(all, "sasl") {
			t.Fatalf("%s: no SASL debug logs captured, the check would prove nothing:\n%s", tt.mech, all)
		}
		if strings.Contains(all, tt.pass) || (err != nil && strings.Contains(err.Error(), tt.pass)) {
			t.Fatalf("%s: the password shows in franz-go's debug logs or error", tt.mech)
		}
	}
}

// TestSecuritySASLAgainstPlainListener: SASL flags against a listener that
// does not speak SASL fail with one line saying so, not a protocol error.
func TestSecuritySASLAgainstPlainListener(t *testing.T) {
	c := testkit.New(t)
	var out, errb bytes.Buffer
	a := &app{stdout: &out, stderr: &errb, stdin: strings.NewReader(""), getenv: testEnv(t, func(k string) string {
		if k == "KAFKA_SASL_PASSWORD" {
			return "not-a-secret-7731"
		}
		return ""
	}), now: time.Now}
	code := a.execute(testkit.Ctx(t), []string{"--brokers", c.BrokerList(), "--timeout", "10s", "--sasl-mechanism", "scram-sha-512", "--sasl-user", "u", "lag", "g"})
	msg := errb.String()
	// Apache answers ILLEGAL_SASL_STATE; kfake closes the connection.
	if code != 1 || strings.Count(strings.TrimSpace(msg), "\n") != 0 ||
		!(strings.Contains(msg, "do not expect SASL on this listener") || strings.Contains(msg, "closed the connection during the handshake")) ||
		strings.Contains(msg, "not-a-secret-7731") {
		t.Errorf("exit %d stderr %q", code, msg)
	}
}
