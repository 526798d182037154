package cluster

import (
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
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// pki is a throwaway CA with a server and a client certificate, as PEM
// files in a temp dir.
type pki struct {
	dir                                 string
	caFile, certFile, keyFile, combined string
	certPEM, keyPEM                     string
	server                              tls.Certificate
	caPool                              *x509.CertPool
}

func newPKI(t testing.TB) pki {
	t.Helper()
	dir := t.TempDir()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, _ := x509.ParseCertificate(caDER)
	leaf := func(cn string, serial int64, usage x509.ExtKeyUsage) (string, string) {
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
		return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})),
			string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kd}))
	}
	p := pki{dir: dir}
	write := func(name, content string) string {
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return f
	}
	p.caFile = write("ca.pem", string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})))
	sc, sk := leaf("localhost", 2, x509.ExtKeyUsageServerAuth)
	p.server, err = tls.X509KeyPair([]byte(sc), []byte(sk))
	if err != nil {
		t.Fatal(err)
	}
	p.certPEM, p.keyPEM = leaf("client", 3, x509.ExtKeyUsageClientAuth)
	p.certFile = write("client.pem", p.certPEM)
	p.keyFile = write("client.key", p.keyPEM)
	p.combined = write("client.keystore.pem", p.keyPEM+p.certPEM)
	p.caPool = x509.NewCertPool()
	p.caPool.AddCert(caCert)
	return p
}

func testEnv(vars map[string]string) Env {
	return Env{
		Getenv:   func(k string) string { return vars[k] },
		ReadFile: os.ReadFile,
	}
}

func boolp(b bool) *bool { return &b }

func props(t testing.TB, s string) Properties {
	t.Helper()
	p, err := ParseProperties(strings.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestFromPropertiesSASLSSL(t *testing.T) {
	s, notes, err := FromProperties(props(t, `
bootstrap.servers=b1:9093, b2:9093
security.protocol=SASL_SSL
sasl.mechanism=SCRAM-SHA-512
sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required \
    username="alice" \
    password="p\\\"w;d=1";
ssl.truststore.type=PEM
ssl.truststore.location=/etc/kafka/ca.pem
ssl.endpoint.identification.algorithm=
client.id=sre-tool
request.timeout.ms=30000
`))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(s.Brokers, ",") != "b1:9093,b2:9093" || s.ClientID != "sre-tool" {
		t.Fatalf("brokers %v client id %q", s.Brokers, s.ClientID)
	}
	if !s.TLSOn() || s.TLS.CAFile != "/etc/kafka/ca.pem" || s.TLS.SkipHostnameCheck == nil || !*s.TLS.SkipHostnameCheck {
		t.Fatalf("TLS = %+v", s.TLS)
	}
	if s.SASL.Mechanism != MechScram512 || s.SASL.User != "alice" || s.SASL.Password.Reveal() != `p"w;d=1` {
		t.Fatalf("SASL mechanism %q user %q", s.SASL.Mechanism, s.SASL.User)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "request.timeout.ms") {
		t.Fatalf("notes = %q", notes)
	}
}

func TestFromPropertiesPEMKeystores(t *testing.T) {
	s, _, err := FromProperties(props(t, "security.protocol=SSL\nssl.keystore.type=PEM\nssl.keystore.location=/k.pem\nssl.truststore.type=PEM\nssl.truststore.certificates=-----BEGIN CERTIFICATE----- X -----END CERTIFICATE-----"))
	if err != nil {
		t.Fatal(err)
	}
	if s.TLS.CertFile != "/k.pem" || s.TLS.KeyFile != "/k.pem" || !strings.HasPrefix(s.TLS.CAPEM, "-----BEGIN") {
		t.Fatalf("TLS = %+v", s.TLS)
	}
	if s.SASL.Mechanism != MechNone {
		t.Fatalf("SSL must turn SASL off, got %q", s.SASL.Mechanism)
	}
	s, _, err = FromProperties(props(t, "security.protocol=SSL\nssl.keystore.type=PEM\nssl.keystore.certificate.chain=CHAIN\nssl.keystore.key=KEY"))
	if err != nil {
		t.Fatal(err)
	}
	if s.TLS.CertPEM != "CHAIN" || s.TLS.KeyPEM.Reveal() != "KEY" {
		t.Fatalf("TLS = %+v", s.TLS)
	}
}

func TestFromPropertiesErrors(t *testing.T) {
	const secret = "TopSecret-42"
	tests := []struct {
		in, want string
	}{
		{"security.protocol=SASL_SSL\nsasl.mechanism=GSSAPI", "sasl.mechanism: SASL mechanism GSSAPI (Kerberos) is not supported"},
		// Issue 11: the value from the file is never echoed.
		{"security.protocol=TLS", "security.protocol is not one of"},
		{"ssl.truststore.location=/x.jks", "ssl.truststore.location without ssl.truststore.type=PEM"},
		{"ssl.truststore.type=JKS\nssl.truststore.location=/x.jks", "ssl.truststore.type is not PEM"},
		{"ssl.keystore.type=PKCS12\nssl.keystore.location=/x.p12", "ssl.keystore.type is not PEM"},
		{"ssl.keystore.location=/x.jks", "ssl.keystore.location without ssl.keystore.type=PEM"},
		{"ssl.key.password=" + secret, "ssl.key.password is not supported"},
		{"ssl.engine.factory.class=com.x.Y", "\"ssl.engine.factory.class\" is not supported"},
		{"security.protocol=SASL_SSL\nsasl.login.callback.handler.class=x", "\"sasl.login.callback.handler.class\" is not supported"},
		{"security.protocol=SASL_SSL\nsasl.jaas.config=com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true;", "Krb5LoginModule (GSSAPI/Kerberos) is not supported"},
		{"security.protocol=SASL_SSL\nsasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" password=\"" + secret + "\"", "missing ';'"},
		{"security.protocol=SASL_SSL\nsasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" password=\"" + secret, "not closed"},
		{"security.protocol=SASL_SSL\nsasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username=\"u\" password=\"" + secret + "\" tokenauth=true;", "tokenauth of ScramLoginModule are not supported"},
		{"security.protocol=SASL_SSL\nsasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required password=" + secret + "; org.apache.kafka.common.security.plain.PlainLoginModule required;", "more than one login module"},
		{"bootstrap.servers=nohostport", "bootstrap.servers: broker address"},
		{"ssl.endpoint.identification.algorithm=ldap", "not supported"},
		{"ssl.truststore.type=PEM\nssl.truststore.location=/a\nssl.truststore.certificates=X", "only one of"},
		{"ssl.keystore.type=PEM\nssl.keystore.certificate.chain=X", "go together"},
		{"security.protocol=SASL_SSL\nsasl.client.callback.handler.class=com.example.Handler", "sasl.client.callback.handler.class is not supported"},
	}
	for _, tt := range tests {
		_, _, err := FromProperties(props(t, tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: err = %v, want it to contain %q", tt.in, err, tt.want)
			continue
		}
		if strings.Contains(err.Error(), secret) {
			t.Errorf("%q: error echoes the secret: %v", tt.in, err)
		}
	}
}

func TestFromPropertiesSASLRefusedWithoutSASLProtocol(t *testing.T) {
	_, _, err := FromProperties(props(t, "security.protocol=SSL\nsasl.mechanism=PLAIN\nsasl.jaas.config=junk"))
	if err == nil || err.Error() != "sasl.jaas.config, sasl.mechanism are set but security.protocol is SSL: SASL would not be used; set security.protocol=SASL_SSL (or SASL_PLAINTEXT)" {
		t.Fatalf("err = %v", err)
	}
}

func TestFromPropertiesMSKIAM(t *testing.T) {
	s, _, err := FromProperties(props(t, `security.protocol=SASL_SSL
sasl.mechanism=AWS_MSK_IAM
sasl.jaas.config=software.amazon.msk.auth.iam.IAMLoginModule required;
sasl.client.callback.handler.class=software.amazon.msk.auth.iam.IAMClientCallbackHandler`))
	if err != nil {
		t.Fatal(err)
	}
	if s.SASL.Mechanism != MechAWSMSKIAM {
		t.Fatalf("mechanism %q", s.SASL.Mechanism)
	}
	_, _, err = FromProperties(props(t, `security.protocol=SASL_SSL
sasl.mechanism=AWS_MSK_IAM
sasl.jaas.config=software.amazon.msk.auth.iam.IAMLoginModule required awsProfileName="prod";`))
	if err == nil || !strings.Contains(err.Error(), "awsProfileName") || !strings.Contains(err.Error(), "AWS_ACCESS_KEY_ID") {
		t.Fatalf("err = %v", err)
	}
}

func TestParseJAAS(t *testing.T) {
	j, err := ParseJAAS(`  org.apache.kafka.common.security.plain.PlainLoginModule   REQUIRED
	  username=bob password="a \"quoted\" \\ pass;word" ;  `)
	if err != nil {
		t.Fatal(err)
	}
	if j.Module != jaasPlain || j.Flag != "required" || j.Options["username"] != "bob" || j.Options["password"] != `a "quoted" \ pass;word` {
		t.Fatalf("%+v", j)
	}
	for _, bad := range []string{"", ";", "X", "X required", "X required a;", "X required a=;", "X maybe a=b;", `"X" required;`, "X required =b;", "X required a=b; trailing"} {
		if _, err := ParseJAAS(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func FuzzParseJAAS(f *testing.F) {
	const marker = "Zq9Marker"
	for _, s := range []string{
		`org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="` + marker + `";`,
		`X required a=b;`, `X required a="\"";`, `X optional;`, `;`, `"`, `X required a="` + marker,
		`X required password=` + marker + ` b;`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		j, err := ParseJAAS(in)
		if err != nil {
			// An error may name option keys, but never a value: values
			// are only ever read after '=' and errors do not quote them.
			if strings.Contains(in, "="+marker) || strings.Contains(in, `="`+marker) {
				if strings.Contains(err.Error(), marker) {
					t.Fatalf("error echoes a value: %v", err)
				}
			}
			return
		}
		if j.Module == "" || j.Flag == "" {
			t.Fatalf("parsed without module or flag: %+v", j)
		}
		var a SASLSettings
		_ = j.apply(&a)
	})
}

func TestMergePrecedence(t *testing.T) {
	profile := Settings{
		Brokers: []string{"p:1"}, ClientID: "prof",
		TLS:  TLSSettings{Enabled: boolp(true), CAFile: "/p/ca.pem", CertFile: "/p/c", KeyFile: "/p/k"},
		SASL: SASLSettings{Mechanism: MechScram512, User: "puser", PasswordFile: "/p/pw"},
	}
	cc := Settings{
		TLS:  TLSSettings{CAPEM: "PEM"},
		SASL: SASLSettings{User: "ccuser", Password: "ccpw"},
	}
	flags := Settings{Brokers: []string{"f:1"}, SASL: SASLSettings{Mechanism: MechPlain}}
	m := profile.Merge(cc).Merge(flags)
	if m.Brokers[0] != "f:1" || m.ClientID != "prof" {
		t.Fatalf("brokers %v client %q", m.Brokers, m.ClientID)
	}
	if m.TLS.CAFile != "" || m.TLS.CAPEM != "PEM" || m.TLS.CertFile != "/p/c" || !m.TLSOn() {
		t.Fatalf("TLS %+v", m.TLS)
	}
	// The command config's password replaces the profile's password file.
	if m.SASL.Mechanism != MechPlain || m.SASL.User != "ccuser" || m.SASL.Password.Reveal() != "ccpw" || m.SASL.PasswordFile != "" {
		t.Fatalf("SASL %+v", m.SASL)
	}
	// Explicitly off beats a lower layer's on.
	off := profile.Merge(Settings{TLS: TLSSettings{Enabled: boolp(false)}, SASL: SASLSettings{Mechanism: MechNone}})
	if off.TLSOn() || off.SASLOn() {
		t.Fatal("PLAINTEXT did not turn TLS and SASL off")
	}
}

func TestSecretNeverPrints(t *testing.T) {
	s := SASLSettings{User: "u", Password: "hunter2-secret", Token: "tok-secret"}
	k := TLSSettings{KeyPEM: "-----BEGIN PRIVATE KEY----- key-secret"}
	js, _ := json.Marshal(struct {
		S SASLSettings
		K TLSSettings
	}{s, k})
	for _, out := range []string{fmt.Sprintf("%v %+v %#v %s", s, s, s, s.Password), fmt.Sprintf("%+v %#v", k, k), string(js)} {
		for _, sec := range []string{"hunter2-secret", "tok-secret", "key-secret"} {
			if strings.Contains(out, sec) {
				t.Fatalf("secret %q printed in %s", sec, out)
			}
		}
	}
	if s.Password.Reveal() != "hunter2-secret" {
		t.Fatal("Reveal lost the value")
	}
}

func TestResolvePasswordSources(t *testing.T) {
	dir := t.TempDir()
	pwFile := filepath.Join(dir, "pw")
	if err := os.WriteFile(pwFile, []byte("from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty")
	_ = os.WriteFile(empty, nil, 0o600)
	// The first line only, without a CR or a leading byte order mark
	// (QA: "S3CRET\nsecond" sent both lines, a BOM was sent).
	lines := filepath.Join(dir, "lines")
	_ = os.WriteFile(lines, []byte("\uFEFFfirst-line\r\nsecond\n"), 0o600)
	blankFirst := filepath.Join(dir, "blank-first")
	_ = os.WriteFile(blankFirst, []byte("\n\nS3CRET\n"), 0o600)
	env := map[string]string{EnvPassword: "from-env", "MY_PW": "from-named-env"}
	tests := []struct {
		name   string
		a      SASLSettings
		prompt func(string) (string, error)
		env    map[string]string
		want   string
		errHas string
	}{
		{name: "value first", a: SASLSettings{Password: "from-jaas", PasswordFile: pwFile}, env: env, want: "from-jaas"},
		{name: "file", a: SASLSettings{PasswordFile: pwFile}, env: env, want: "from-file"},
		{name: "named env", a: SASLSettings{PasswordEnv: "MY_PW"}, env: env, want: "from-named-env"},
		{name: "named env empty", a: SASLSettings{PasswordEnv: "NOPE"}, env: env, errHas: "$NOPE, which is empty"},
		{name: "default env", env: env, want: "from-env"},
		{name: "prompt", env: nil, prompt: func(string) (string, error) { return "typed", nil }, want: "typed"},
		{name: "prompt error", prompt: func(string) (string, error) { return "", errors.New("no tty") }, errHas: "no tty"},
		{name: "no source", errHas: "needs a password: set KAFKA_SASL_PASSWORD, pass --sasl-password-file FILE, or run on a terminal"},
		// A secret pasted as the path is not echoed.
		{name: "missing file", a: SASLSettings{PasswordFile: "S3CRET", PasswordFileFrom: "--sasl-password-file"}, errHas: "--sasl-password-file: no such file (the value is not shown: a secret pasted in place of a path would be)"},
		{name: "a directory", a: SASLSettings{PasswordFile: dir}, errHas: "the SASL password file: is a directory (the path is not shown"},
		{name: "empty file", a: SASLSettings{PasswordFile: empty}, errHas: "is empty"},
		{name: "first line", a: SASLSettings{PasswordFile: lines}, want: "first-line"},
		{name: "blank first line", a: SASLSettings{PasswordFile: blankFirst}, errHas: "first line of the SASL password file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := tt.a
			a.Mechanism, a.User = MechScram256, "alice"
			e := testEnv(tt.env)
			e.Prompt = tt.prompt
			mech, secrets, err := a.build(e)
			if tt.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errHas) {
					t.Fatalf("err = %v, want %q", err, tt.errHas)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if mech.Name() != "SCRAM-SHA-256" || len(secrets) != 1 || secrets[0] != tt.want {
				t.Fatalf("mech %s secrets %q, want %q", mech.Name(), secrets, tt.want)
			}
		})
	}
}

func TestResolveMechanisms(t *testing.T) {
	env := testEnv(map[string]string{EnvPassword: "pw", EnvToken: "tok", EnvAWSKey: "AK", EnvAWSSecret: "SK", EnvAWSSession: "ST"})
	for mech, want := range map[string]string{
		MechPlain: "PLAIN", MechScram256: "SCRAM-SHA-256", MechScram512: "SCRAM-SHA-512",
		MechOAuthBearer: "OAUTHBEARER", MechAWSMSKIAM: "AWS_MSK_IAM",
	} {
		s := Settings{TLS: TLSSettings{Enabled: boolp(true)}, SASL: SASLSettings{Mechanism: mech, User: "u"}}
		sec, err := s.Resolve(env)
		if err != nil {
			t.Fatalf("%s: %v", mech, err)
		}
		if sec.SASL.Name() != want || sec.TLS == nil || len(sec.Warnings) != 0 {
			t.Fatalf("%s: name %s tls %v warnings %q", mech, sec.SASL.Name(), sec.TLS != nil, sec.Warnings)
		}
	}
	// MSK IAM without credentials names the variables.
	_, err := Settings{SASL: SASLSettings{Mechanism: MechAWSMSKIAM}}.Resolve(testEnv(nil))
	if err == nil || !strings.Contains(err.Error(), "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY") {
		t.Fatalf("err = %v", err)
	}
	// PLAIN without TLS warns.
	sec, err := Settings{SASL: SASLSettings{Mechanism: MechPlain, User: "u"}}.Resolve(env)
	if err != nil || len(sec.Warnings) != 1 || !strings.Contains(sec.Warnings[0], "clear text") {
		t.Fatalf("err %v warnings %q", err, sec.Warnings)
	}
	// SASL_SSL in a properties file without a mechanism refuses GSSAPI.
	_, err = Settings{SASL: SASLSettings{Required: true, Source: "--command-config"}}.Resolve(env)
	if err == nil || !strings.Contains(err.Error(), "--command-config asks for SASL but names no mechanism") {
		t.Fatalf("err = %v", err)
	}
	for _, bad := range []string{"gssapi", "scram", ""} {
		if _, err := ParseMechanism(bad); err == nil {
			t.Errorf("ParseMechanism(%q) accepted", bad)
		}
	}
	for in, want := range map[string]string{"SCRAM-SHA-512": MechScram512, "AWS_MSK_IAM": MechAWSMSKIAM, " Plain ": MechPlain, "OAUTHBEARER": MechOAuthBearer} {
		if got, err := ParseMechanism(in); err != nil || got != want {
			t.Errorf("ParseMechanism(%q) = %q, %v", in, got, err)
		}
	}
}

func TestTLSBuild(t *testing.T) {
	p := newPKI(t)
	env := testEnv(nil)
	on := boolp(true)
	// Files, inline PEM and a combined PEM keystore all load.
	for name, ts := range map[string]TLSSettings{
		"files":    {Enabled: on, CAFile: p.caFile, CertFile: p.certFile, KeyFile: p.keyFile},
		"inline":   {Enabled: on, CAPEM: readString(t, p.caFile), CertPEM: p.certPEM, KeyPEM: Secret(p.keyPEM)},
		"keystore": {Enabled: on, CAFile: p.caFile, CertFile: p.combined, KeyFile: p.combined},
	} {
		cfg, _, err := ts.build(env)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if cfg.RootCAs == nil || len(cfg.Certificates) != 1 || cfg.InsecureSkipVerify {
			t.Fatalf("%s: %+v", name, cfg)
		}
	}
	bad := filepath.Join(p.dir, "bad.pem")
	_ = os.WriteFile(bad, []byte("not pem"), 0o600)
	enc := filepath.Join(p.dir, "enc.key")
	_ = os.WriteFile(enc, []byte("-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n"), 0o600)
	for _, tt := range []struct {
		ts   TLSSettings
		want string
	}{
		{TLSSettings{CAFile: filepath.Join(p.dir, "missing.pem")}, "reading TLS CA file"},
		{TLSSettings{CAFile: bad}, "holds no PEM certificate"},
		{TLSSettings{CertFile: p.certFile}, "without its key"},
		{TLSSettings{KeyFile: p.keyFile}, "without its certificate"},
		{TLSSettings{CertFile: p.certFile, KeyFile: enc}, "encrypted"},
		{TLSSettings{CertFile: p.certFile, KeyFile: p.caFile}, "do not load"},
	} {
		_, _, err := tt.ts.build(env)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: err = %v, want %q", tt.ts, err, tt.want)
		}
		if err != nil && strings.Contains(err.Error(), "PRIVATE KEY") {
			t.Errorf("error shows key material: %v", err)
		}
	}
	cfg, warns, err := TLSSettings{InsecureSkipVerify: on}.build(env)
	if err != nil || !cfg.InsecureSkipVerify || len(warns) != 1 || !strings.Contains(warns[0], "verification is OFF") {
		t.Fatalf("insecure: %v %q", err, warns)
	}
}

func readString(t testing.TB, f string) string {
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestTLSHandshakes dials a local TLS listener with the built configs: a
// trusted CA passes, host name checks fail on a wrong name unless
// SkipHostnameCheck, and an untrusted server fails even then.
func TestTLSHandshakes(t *testing.T) {
	p := newPKI(t)
	other := newPKI(t)
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{p.server}})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { _ = c.(*tls.Conn).Handshake(); c.Close() }()
		}
	}()
	dial := func(ts TLSSettings) error {
		ts.Enabled = boolp(true)
		cfg, _, err := ts.build(testEnv(nil))
		if err != nil {
			return err
		}
		c, err := tls.DialWithDialer(&net.Dialer{Timeout: 10 * time.Second}, "tcp", ln.Addr().String(), cfg)
		if err == nil {
			c.Close()
		}
		return err
	}
	if err := dial(TLSSettings{CAFile: p.caFile}); err != nil {
		t.Fatalf("trusted CA: %v", err)
	}
	if err := dial(TLSSettings{CAFile: p.caFile, ServerName: "wrong.example"}); err == nil {
		t.Fatal("a wrong server name passed")
	}
	if err := dial(TLSSettings{CAFile: p.caFile, ServerName: "wrong.example", SkipHostnameCheck: boolp(true)}); err != nil {
		t.Fatalf("hostname check off: %v", err)
	}
	if err := dial(TLSSettings{CAFile: other.caFile, SkipHostnameCheck: boolp(true)}); err == nil {
		t.Fatal("an untrusted chain passed with only the host name check off")
	}
	if err := dial(TLSSettings{CAFile: other.caFile}); err == nil {
		t.Fatal("an untrusted CA passed")
	} else if got := (Config{Brokers: []string{"b:1"}}).ExplainConnError(err); !strings.Contains(got.Error(), "unknown authority; pass its CA with --tls-ca") {
		t.Fatalf("explained: %v", got)
	}
}

func TestExplainConnError(t *testing.T) {
	c := Config{Brokers: []string{"b:9093"}}
	auth := fmt.Errorf("cannot reach cluster at b:9093: %w: SASL Authentication failed.: Authentication failed due to invalid credentials", kerr.SaslAuthenticationFailed)
	if got := c.ExplainConnError(auth).Error(); got != "authentication failed at b:9093 (SASL): Authentication failed due to invalid credentials" {
		t.Fatalf("got %q", got)
	}
	alert := errors.New("cannot reach cluster at b:9093: remote error: tls: certificate required")
	if got := c.ExplainConnError(alert).Error(); !strings.Contains(got, "--tls-cert and --tls-key") {
		t.Fatalf("got %q", got)
	}
	tlsPort := errors.New("cannot reach cluster at b:9093: invalid large response size 352518912 > limit 104857600; the first three bytes received appear to be a tls alert record for TLS v1.2; is this a plaintext connection speaking to a tls endpoint?")
	if got := c.ExplainConnError(tlsPort).Error(); got != "the brokers at b:9093 answered with TLS: add --tls (and --tls-ca if their CA is private)" {
		t.Fatalf("got %q", got)
	}
	plain := errors.New("cannot reach cluster at b:9093: dial tcp: connection refused")
	if got := c.ExplainConnError(plain); got != plain {
		t.Fatalf("rewrote an unrelated error: %v", got)
	}
	if c.ExplainConnError(nil) != nil {
		t.Fatal("nil in, non-nil out")
	}
}

type captureLogger struct{ lines []string }

func (*captureLogger) Level() kgo.LogLevel { return kgo.LogLevelDebug }
func (c *captureLogger) Log(_ kgo.LogLevel, msg string, kv ...any) {
	c.lines = append(c.lines, fmt.Sprint(append([]any{msg}, kv...)...))
}

func TestRedactLogger(t *testing.T) {
	var c captureLogger
	l := RedactLogger(&c, []string{"hunter2", "ab"})
	l.Log(kgo.LogLevelInfo, "auth with hunter2", "pw", "xhunter2x", "n", 42, "short", "ab")
	got := strings.Join(c.lines, "\n")
	if strings.Contains(got, "hunter2") || !strings.Contains(got, "[redacted]") || !strings.Contains(got, "42") || !strings.Contains(got, "ab") {
		t.Fatalf("logged %q", got)
	}
	if RedactLogger(&c, nil) != kgo.Logger(&c) {
		t.Fatal("no secrets should return the logger itself")
	}
}

// FuzzParseMechanism: never panics; whatever it accepts is one of the
// canonical names (or none) and parses to itself again.
func FuzzParseMechanism(f *testing.F) {
	for _, s := range []string{"plain", "SCRAM-SHA-512", "aws_msk_iam", "OAuthBearer", "gssapi", "", " none ", "scram-sha-1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		m, err := ParseMechanism(in)
		if err != nil {
			return
		}
		ok := m == MechNone
		for _, k := range Mechanisms {
			ok = ok || m == k
		}
		if again, err := ParseMechanism(m); !ok || err != nil || again != m {
			t.Fatalf("%q parsed to %q (again %q, %v)", in, m, again, err)
		}
	})
}

// FuzzBrokerListRoundTrip: never panics; whatever parses is non-empty host:port
// entries without blanks that re-parse to the same list.
func FuzzBrokerListRoundTrip(f *testing.F) {
	for _, s := range []string{"localhost:9092", "a:1, b:2", ",,", "[::1]:9092", "host", ":9092", "a:1,,b:2 ", "a:b:c", "\x00:1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		bs, err := ParseBrokers(in)
		if err != nil {
			return
		}
		if len(bs) == 0 {
			t.Fatal("no error and no brokers")
		}
		for _, b := range bs {
			if b == "" || strings.TrimSpace(b) != b || strings.Contains(b, ",") {
				t.Fatalf("bad entry %q", b)
			}
			if _, _, err := net.SplitHostPort(b); err != nil {
				t.Fatalf("entry %q is not host:port: %v", b, err)
			}
		}
		again, err := ParseBrokers(strings.Join(bs, ","))
		if err != nil || strings.Join(again, ",") != strings.Join(bs, ",") {
			t.Fatalf("re-parse: %v %v", again, err)
		}
	})
}

// TestFileValuesNeverEchoed: an error about a value read from a file
// (--command-config, the profiles file) names the key, the line or the
// address's position, never the value: the file holds secrets, and a
// value that is a typo of one would be echoed to a terminal or a CI log.
func TestFileValuesNeverEchoed(t *testing.T) {
	const canary = "C4NARY"
	for _, in := range []string{
		"security.protocol=" + canary,
		"ssl.truststore.type=" + canary + "\nssl.truststore.location=/x",
		"ssl.keystore.type=" + canary + "\nssl.keystore.location=/x",
		"bootstrap.servers=" + canary,
		"bootstrap.servers=a:1," + canary + ":x",
		"security.protocol=SASL_SSL\nsasl.mechanism=" + canary,
		"ssl.endpoint.identification.algorithm=" + canary,
		"security.protocol=SASL_SSL\nsasl.mechanism=PLAIN\nsasl.jaas.config=" + canary + " required;",
	} {
		props, err := ParseProperties(strings.NewReader(in))
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		_, _, err = FromProperties(props)
		if err == nil || strings.Contains(err.Error(), canary) {
			t.Errorf("%q: err = %v, want an error without the value", in, err)
		}
	}
	for _, yml := range []string{
		"profiles:\n  p:\n    brokers: [" + canary + "]\n",
		"profiles:\n  p:\n    brokers: \"a:1," + canary + ":x\"\n",
		"profiles:\n  p:\n    brokers: [a:1]\n    sasl:\n      mechanism: " + canary + "\n",
	} {
		ps, err := ParseProfiles(strings.NewReader(yml))
		if err == nil {
			_, err = ps["p"].Settings("p", "", "")
		}
		if err == nil || strings.Contains(err.Error(), canary) {
			t.Errorf("%q: err = %v, want an error without the value", yml, err)
		}
	}
}
