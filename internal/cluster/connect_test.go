package cluster

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// connectDir writes files into a temporary directory and returns an Env
// whose profiles file is config.yaml there.
func connectDir(t *testing.T, files map[string]string) (string, Env) {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir, testEnv(map[string]string{"OFFSETCTL_CONFIG": filepath.Join(dir, "config.yaml")})
}

// connectErr runs Connect and checks it fails with an error holding want
// and none of the secrets.
func connectErr(t *testing.T, src Sources, want string, secrets ...string) {
	t.Helper()
	_, err := Connect(src)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v, want it to contain %q", err, want)
	}
	for _, s := range secrets {
		if strings.Contains(err.Error(), s) {
			t.Fatalf("error echoes %q: %v", s, err)
		}
	}
}

// TestConnectUserWithAnothersPassword: a user named on a flag with no
// password of its own must not get the password a lower layer holds for
// another user (QA: alice's password sent as bob's).
func TestConnectUserWithAnothersPassword(t *testing.T) {
	const pw = "Alice-Secret-91"
	dir, env := connectDir(t, map[string]string{
		"alice.properties": "security.protocol=SASL_SSL\nsasl.mechanism=PLAIN\nsasl.jaas.config=" + jaasPlain + " required username=\"alice\" password=\"" + pw + "\";\n",
		"config.yaml":      "profiles:\n  p:\n    brokers: [b:1]\n    sasl: {mechanism: plain, user: alice, password_file: alice.pw}\n",
		"alice.pw":         pw + "\n",
		"bob.pw":           "bob-pw\n",
	})
	cc := filepath.Join(dir, "alice.properties")
	connectErr(t, Sources{Env: env, CommandConfig: cc, Flags: Settings{SASL: SASLSettings{User: "bob"}}},
		"--sasl-user names another SASL user than the one the password from --command-config is for", pw, "alice")
	connectErr(t, Sources{Env: env, Profile: "p", Flags: Settings{SASL: SASLSettings{User: "bob"}}},
		`--sasl-user names another SASL user than the one the password from --profile "p" is for`, pw, "alice")

	// The same user, or the user with a password of its own, is fine.
	for _, flags := range []Settings{
		{SASL: SASLSettings{User: "alice"}},
		{SASL: SASLSettings{User: "bob", PasswordFile: filepath.Join(dir, "bob.pw")}},
	} {
		conn, err := Connect(Sources{Env: env, Profile: "p", Flags: flags})
		if err != nil || conn.SASL == nil {
			t.Fatalf("%+v: %v", flags.SASL, err)
		}
	}
}

// TestConnectSSLKeysWithoutTLS: ssl.* settings under no security.protocol,
// PLAINTEXT or SASL_PLAINTEXT were dropped without a word (QA: a truststore
// written, a plaintext connection made). Refused, unless --tls turns TLS on.
func TestConnectSSLKeysWithoutTLS(t *testing.T) {
	dir, env := connectDir(t, map[string]string{
		"none.properties":  "bootstrap.servers=k:1\nssl.truststore.type=PEM\nssl.truststore.location=ca.pem\n",
		"plain.properties": "bootstrap.servers=k:1\nsecurity.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\nssl.endpoint.identification.algorithm=https\n",
	})
	connectErr(t, Sources{Env: env, CommandConfig: filepath.Join(dir, "none.properties")},
		"none.properties: ssl.truststore.location, ssl.truststore.type are set but security.protocol is unset (PLAINTEXT): TLS would not be used; set security.protocol=SSL or SASL_SSL")
	connectErr(t, Sources{Env: env, CommandConfig: filepath.Join(dir, "plain.properties")},
		"ssl.endpoint.identification.algorithm is set but security.protocol is SASL_PLAINTEXT: TLS would not be used")
	on := true
	conn, err := Connect(Sources{Env: env, CommandConfig: filepath.Join(dir, "plain.properties"), Flags: Settings{TLS: TLSSettings{Enabled: &on}, SASL: SASLSettings{User: "u", PasswordFile: filepath.Join(dir, "plain.properties")}}})
	if err != nil || conn.TLS == nil {
		t.Fatalf("--tls over ssl.* settings: %v", err)
	}
}

// TestConnectListenerPrefix: a listener prefix was stripped and the
// connection went out in plaintext (QA: -b SASL_SSL://..., KAFKA_BROKERS=SSL://...,
// bootstrap.servers=SSL://...). A security listener is refused unless the
// settings in force agree; PLAINTEXT:// with TLS or SASL on contradicts them.
func TestConnectListenerPrefix(t *testing.T) {
	dir, env := connectDir(t, map[string]string{
		"ssl.properties":   "bootstrap.servers=SSL://k:9093\n",
		"okssl.properties": "bootstrap.servers=SSL://k:9093\nsecurity.protocol=SSL\n",
		"config.yaml":      "profiles:\n  p:\n    brokers: [SASL_PLAINTEXT://k:1]\n",
	})
	on, off := true, false
	flags := func(b string) Settings {
		var s Settings
		if err := s.SetBrokers(b, "--brokers"); err != nil {
			t.Fatal(err)
		}
		return s
	}
	connectErr(t, Sources{Env: env, Flags: flags("SASL_SSL://127.0.0.1:9092")}, "--brokers: the addresses start with SASL_SSL://, but TLS and SASL are off")
	connectErr(t, Sources{Env: testEnv(map[string]string{"KAFKA_BROKERS": "SSL://k:9093"})}, "KAFKA_BROKERS: the addresses start with SSL://, but TLS is off")
	connectErr(t, Sources{Env: env, CommandConfig: filepath.Join(dir, "ssl.properties")}, "bootstrap.servers in --command-config: the addresses start with SSL://, but TLS is off")
	connectErr(t, Sources{Env: env, Profile: "p"}, `brokers of profile "p": the addresses start with SASL_PLAINTEXT://, but SASL is off`)
	tlsFlags := flags("PLAINTEXT://k:1")
	tlsFlags.TLS.Enabled = &on
	connectErr(t, Sources{Env: env, Flags: tlsFlags}, "--brokers: the addresses start with PLAINTEXT://, but TLS or SASL is on")

	// Settings that agree, and a listener name that is no protocol.
	for _, src := range []Sources{
		{Env: env, CommandConfig: filepath.Join(dir, "okssl.properties")},
		{Env: env, Flags: func() Settings { s := flags("SSL://k:1"); s.TLS.Enabled = &on; return s }()},
		{Env: env, Flags: func() Settings { s := flags("PLAINTEXT://k:1"); s.TLS.Enabled = &off; return s }()},
		{Env: env, Flags: flags("INTERNAL://k:1")},
	} {
		if _, err := Connect(src); err != nil {
			t.Errorf("%+v: %v", src.Flags.Brokers, err)
		}
	}
}

// TestConnectProfileWithoutBrokers: a profile naming no brokers silently
// went to KAFKA_BROKERS or localhost:9092 with its credentials (QA). It is
// refused unless the command line names the brokers.
func TestConnectProfileWithoutBrokers(t *testing.T) {
	dir, env := connectDir(t, map[string]string{
		"config.yaml":       "profiles:\n  c:\n    tls: {}\n",
		"client.properties": "bootstrap.servers=cc:1\n",
	})
	env.Getenv = func(k string) string {
		return map[string]string{"OFFSETCTL_CONFIG": filepath.Join(dir, "config.yaml"), "KAFKA_BROKERS": "env:1"}[k]
	}
	connectErr(t, Sources{Env: env, Profile: "c"}, `--profile "c" names no brokers: add brokers: to the profile, or give --brokers`)
	for _, src := range []Sources{
		{Env: env, Profile: "c", Flags: Settings{Brokers: []string{"flag:1"}}},
		{Env: env, Profile: "c", CommandConfig: filepath.Join(dir, "client.properties")},
		{Env: env, Profile: "c", FallbackBrokers: []string{"source:1"}},
	} {
		if conn, err := Connect(src); err != nil || conn.Brokers[0] == "env:1" {
			t.Errorf("%+v: %v %v", src, conn.Brokers, err)
		}
	}
}

// TestConnectTLSOffOverTLSOn: --tls=false beside security.protocol=SASL_SSL
// in --command-config was ignored and TLS stayed on (QA). Turning TLS off
// over a layer that turns it on is refused, naming both.
func TestConnectTLSOffOverTLSOn(t *testing.T) {
	dir, env := connectDir(t, map[string]string{
		"ssl.properties":   "bootstrap.servers=k:1\nsecurity.protocol=SSL\n",
		"plain.properties": "bootstrap.servers=k:1\nsecurity.protocol=PLAINTEXT\n",
		"config.yaml":      "profiles:\n  p:\n    brokers: [k:1]\n    tls: {}\n",
	})
	off := false
	tlsOff := Settings{TLS: TLSSettings{Enabled: &off}}
	connectErr(t, Sources{Env: env, CommandConfig: filepath.Join(dir, "ssl.properties"), Flags: tlsOff},
		"--tls=false turns TLS off, but --command-config turns it on: the settings contradict each other")
	connectErr(t, Sources{Env: env, Profile: "p", Flags: tlsOff}, `--tls=false turns TLS off, but --profile "p" turns it on`)
	connectErr(t, Sources{Env: env, Profile: "p", CommandConfig: filepath.Join(dir, "plain.properties")}, `--command-config turns TLS off, but --profile "p" turns it on`)
	if conn, err := Connect(Sources{Env: env, CommandConfig: filepath.Join(dir, "plain.properties"), Flags: tlsOff}); err != nil || conn.TLS != nil {
		t.Fatalf("off over off: %v", err)
	}
}
