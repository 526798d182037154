package cluster

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const sampleProfiles = `
# offsetctl profiles
profiles:
  prod:
    brokers: [kafka-1:9093, kafka-2:9093]
    client_id: sre
    tls:
      ca: certs/ca.pem
      cert: ~/certs/client.pem
      key: ~/certs/client.key
      server_name: kafka.internal
    sasl:
      mechanism: SCRAM-SHA-512
      user: alice
      password_file: /run/secrets/kafka
  dev:
    brokers: "localhost:9092, localhost:9093"
  msk:
    brokers: b-1.msk:9098
    tls: {}
    sasl: {mechanism: aws-msk-iam}
  empty:
`

func TestParseProfiles(t *testing.T) {
	ps, err := ParseProfiles(strings.NewReader(sampleProfiles))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(ProfileNames(ps), ","); got != "dev,empty,msk,prod" {
		t.Fatalf("names %s", got)
	}
	s, err := ps["prod"].Settings("prod", "/etc/offsetctl", "/home/op")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(s.Brokers, ",") != "kafka-1:9093,kafka-2:9093" || s.ClientID != "sre" {
		t.Fatalf("brokers %v client %q", s.Brokers, s.ClientID)
	}
	if !s.TLSOn() || s.TLS.CAFile != "/etc/offsetctl/certs/ca.pem" || s.TLS.CertFile != "/home/op/certs/client.pem" ||
		s.TLS.KeyFile != "/home/op/certs/client.key" || s.TLS.ServerName != "kafka.internal" {
		t.Fatalf("TLS %+v", s.TLS)
	}
	if s.SASL.Mechanism != MechScram512 || s.SASL.User != "alice" || s.SASL.PasswordFile != "/run/secrets/kafka" {
		t.Fatalf("SASL %+v", s.SASL)
	}
	d, err := ps["dev"].Settings("dev", "", "")
	if err != nil || strings.Join(d.Brokers, ",") != "localhost:9092,localhost:9093" || d.TLSOn() || d.SASLOn() {
		t.Fatalf("dev: %+v %v", d, err)
	}
	m, err := ps["msk"].Settings("msk", "", "")
	if err != nil || !m.TLSOn() || m.SASL.Mechanism != MechAWSMSKIAM {
		t.Fatalf("msk: %+v %v", m, err)
	}
	if e, err := ps["empty"].Settings("empty", "", ""); err != nil || len(e.Brokers) != 0 {
		t.Fatalf("empty: %+v %v", e, err)
	}
}

func TestParseProfilesRefuses(t *testing.T) {
	const secret = "PlainTextPw99"
	tests := []struct{ in, want string }{
		{"profiles:\n  p:\n    sasl:\n      user: a\n      password: " + secret, "plaintext password is not allowed"},
		{"profiles:\n  p:\n    sasl:\n      token: " + secret, "token is not allowed"},
		{"profiles:\n  p:\n    brokerz: a:1", `line 3: unknown key "brokerz" in a profile (keys: brokers, client_id, tls, sasl, audit_topic)`},
		{"profiles:\n  p:\n    tls:\n      enabled: " + secret, "line 4: a string where a true/false setting belongs"},
		{"profiles:\n  p:\n    tls: " + secret, "line 3: a string where tls (a mapping) belongs (keys: enabled, ca, cert, key, server_name, insecure_skip_verify)"},
		{"profiles:\n  p:\n    tls:\n      cafile: x", `line 4: unknown key "cafile" in tls (keys: enabled, ca,`},
		{"profiles:\n  p:\n    sasl:\n      mech: x", `unknown key "mech" in sasl (keys: mechanism, user, password_file, password_env, token_file, token_env)`},
		{"profiles:\n  p: [" + secret + "]", "line 2: a list where a profile (a mapping) belongs"},
		{"profiles: [1]", "line 1: a list where profiles (a mapping of profile names) belongs"},
		{"- " + secret, "line 1: a list where the top level (a mapping with one key, profiles) belongs"},
		{"profiles:\n  p:\n    client_id: [" + secret + "]", "line 3: a list where a text setting belongs"},
		{"profiles:\n  p:\n    brokers: {a: 1}", "brokers must be a list"},
		{"profiles: [" + secret, "yaml"},
		{"clusters:\n  p: {}", `unknown key "clusters" in the top level (keys: profiles)`},
	}
	for _, tt := range tests {
		_, err := ParseProfiles(strings.NewReader(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: err = %v, want %q", tt.in, err, tt.want)
			continue
		}
		if strings.Contains(err.Error(), secret) {
			t.Errorf("%q: error echoes a value: %v", tt.in, err)
		}
		if strings.Contains(err.Error(), "cluster.") || strings.Contains(err.Error(), "!!") {
			t.Errorf("%q: error names Go or YAML internals: %v", tt.in, err)
		}
	}
	ps, err := ParseProfiles(strings.NewReader("profiles:\n  p:\n    brokers: nohostport\n    sasl: {mechanism: gssapi}"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ps["p"].Settings("p", "", ""); err == nil || !strings.Contains(err.Error(), `profile "p": line 3: brokers`) {
		t.Fatalf("err = %v", err)
	}
	ps, _ = ParseProfiles(strings.NewReader("profiles:\n  p:\n    sasl: {mechanism: plain, password_file: a, password_env: B}"))
	if _, err := ps["p"].Settings("p", "", ""); err == nil || !strings.Contains(err.Error(), "only one of") {
		t.Fatalf("err = %v", err)
	}
	if ps, err := ParseProfiles(strings.NewReader("")); err != nil || len(ps) != 0 {
		t.Fatalf("empty file: %v %v", ps, err)
	}
}

// Values in yaml's errors are quoted between backticks, but a value may
// hold backticks and " into " itself: no part of it reaches the error
// (enabled: hu`nter2 gave "line 4: cannot unmarshal !!str <value>nter2...").
func TestParseProfilesNeverEchoesValues(t *testing.T) {
	tests := []struct {
		value  string   // YAML text of the value
		key    string   // where it goes: "enabled" (in tls) or "tls"
		want   string   // the error
		secret []string // no part of the value may show
	}{
		{"hu`nter2", "enabled", "line 4: a string where a true/false setting belongs", []string{"nter2", "hu`"}},
		{"`hunter2`", "enabled", "yaml: line 4: found character that cannot start any token", []string{"hunter2"}},
		{"'x into y'", "enabled", "line 4: a string where a true/false setting belongs", []string{"x into", "into y"}},
		{"'p` into b'", "enabled", "line 4: a string where a true/false setting belongs", []string{"p`", "into b"}},
		{"'ab` into bool`'", "enabled", "line 4: a string where a true/false setting belongs", []string{"ab`", "into bool"}},
		{"'s3cr3t` into cluster.profileTLS and more'", "enabled", "line 4: a string where a true/false setting belongs", []string{"s3cr3t", "profileTLS"}},
		{"'k` into x'", "tls", "line 3: a string where tls (a mapping) belongs (keys: enabled, ca,", []string{"k`", "into x"}},
		{"!mytag hu`nter2", "enabled", "line 4: a value where a true/false setting belongs", []string{"nter2", "mytag"}},
	}
	for _, tt := range tests {
		in := "profiles:\n  p:\n    tls:\n      enabled: " + tt.value + "\n"
		if tt.key == "tls" {
			in = "profiles:\n  p:\n    tls: " + tt.value + "\n"
		}
		_, err := ParseProfiles(strings.NewReader(in))
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%s: %s: err = %v, want %q", tt.key, tt.value, err, tt.want)
			continue
		}
		for _, sec := range tt.secret {
			if strings.Contains(err.Error(), sec) {
				t.Errorf("%s: %s: error %q shows %q", tt.key, tt.value, err, sec)
			}
		}
	}
	// The line forms themselves, including ones yaml does not write today.
	for in, want := range map[string]string{
		"line 4: cannot unmarshal !!str `a` into x` into bool":                "line 4: a string where a true/false setting belongs",
		"line 4: cannot unmarshal !!int `1 into 2` into *cluster.profileSASL": "line 4: a number where sasl (a mapping) belongs (keys: mechanism, user, password_file, password_env, token_file, token_env)",
		"line 4: cannot unmarshal !!str `x` into []int":                       "line 4: a string is not allowed here",
		"line 4: cannot unmarshal !!str `sec`ret`":                            "line 4: cannot unmarshal !!str",
		"yaml: line 2: some new complaint about `sec`ret` here":               "yaml: line 2: some new complaint about",
		"line 2: mapping key \"a\" already defined at line 1":                 "line 2: mapping key \"a\" already defined at line 1",
	} {
		if got := explainYAML(in); got != want {
			t.Errorf("explainYAML(%q) = %q, want %q", in, got, want)
		}
	}
}

// Errors about a profile's values name the line of the offending entry,
// as the parser's own errors do: the bad broker of a list (also through a
// merge key), the SASL mechanism, the conflicting keys; the SASL source
// (for "asks for SASL but names no mechanism") names the sasl line.
func TestProfileErrorLines(t *testing.T) {
	const file = `profiles:
  base: &base
    brokers:
      - kafka-1:9093
      - kafka-2
  mech:
    brokers: [a:1]
    sasl:
      user: alice
      mechanism: gssapi
  both:
    sasl:
      mechanism: plain
      password_file: pw
      password_env: PW
  tlsonly:
    tls:
      key: k.pem
  merged:
    <<: *base
    client_id: x
  nomech:
    sasl: {user: bob}
  scalar:
    brokers: "a:1, bad:x"
`
	ps, err := ParseProfiles(strings.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		// Issue 11: values from the file are never echoed; the line and
		// the address's position say where.
		"base":    `profile "base": line 5: brokers: broker address 2 is not host:port`,
		"merged":  `profile "merged": line 5: brokers: broker address 2 is not host:port`,
		"mech":    `profile "mech": line 10: sasl.mechanism: SASL mechanism GSSAPI (Kerberos) is not supported`,
		"both":    `profile "both": line 15: set only one of sasl.password_file and sasl.password_env`,
		"tlsonly": `profile "tlsonly": line 18: tls.cert and tls.key go together`,
		"scalar":  `profile "scalar": line 25: brokers: broker address 2: the port is not a number`,
	} {
		if _, err := ps[name].Settings(name, "", ""); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: err = %v, want %q", name, err, want)
		}
	}
	s, err := ps["nomech"].Settings("nomech", "", "")
	if err != nil || s.SASL.Source != `profile "nomech" (sasl, line 23)` {
		t.Errorf("nomech: source %q, err %v", s.SASL.Source, err)
	}
	// A Profile not read from a file has no lines to give.
	p := &Profile{Brokers: brokerList{"nohostport"}}
	if _, err := p.Settings("x", "", ""); err == nil || !strings.HasPrefix(err.Error(), `profile "x": brokers: `) {
		t.Errorf("no node: err = %v", err)
	}
	_, err = ParseProfiles(strings.NewReader("profiles:\n  p:\n    sasl:\n      user: a\n      password: hunter2\n"))
	if err == nil || !strings.HasPrefix(err.Error(), `profile "p": line 5: a plaintext password is not allowed`) || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("password: err = %v", err)
	}
}

func TestProfilesPath(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	for _, tt := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"OFFSETCTL_CONFIG": "/x.yaml", "HOME": "/h"}, "/x.yaml"},
		{map[string]string{"XDG_CONFIG_HOME": "/xdg", "HOME": "/h"}, "/xdg/offsetctl/config.yaml"},
		{map[string]string{"HOME": "/h"}, "/h/.config/offsetctl/config.yaml"},
		{nil, ""},
	} {
		if got := ProfilesPath(env(tt.env)); got != tt.want {
			t.Errorf("%v: %q, want %q", tt.env, got, tt.want)
		}
	}
}

// TestConnectPrecedence: flags > --command-config > --profile >
// KAFKA_BROKERS > default, field by field.
func TestConnectPrecedence(t *testing.T) {
	dir := t.TempDir()
	cfgFile := filepath.Join(dir, "config.yaml")
	pw := filepath.Join(dir, "pw")
	write := func(f, s string) {
		if err := os.WriteFile(f, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(cfgFile, "profiles:\n  prod:\n    brokers: [prof:1]\n    client_id: prof-id\n    sasl: {mechanism: scram-sha-256, user: puser, password_file: pw}\n")
	write(pw, "profile-pw\n")
	props := filepath.Join(dir, "client.properties")
	write(props, "bootstrap.servers=cc:1\n")
	vars := map[string]string{"OFFSETCTL_CONFIG": cfgFile, "KAFKA_BROKERS": "env:1"}
	env := testEnv(vars)

	conn, err := Connect(Sources{Env: env})
	if err != nil || conn.Brokers[0] != "env:1" || conn.SASL != nil {
		t.Fatalf("env only: %v %v", conn.Brokers, err)
	}
	conn, err = Connect(Sources{Env: env, Profile: "prod"})
	if err != nil || conn.Brokers[0] != "prof:1" || conn.ClientID != "prof-id" || conn.SASL.Name() != "SCRAM-SHA-256" {
		t.Fatalf("profile: %+v %v", conn, err)
	}
	if len(conn.Secrets) != 1 || conn.Secrets[0] != "profile-pw" {
		t.Fatal("profile password_file relative to the profiles file was not used")
	}
	conn, err = Connect(Sources{Env: env, Profile: "prod", CommandConfig: props})
	if err != nil || conn.Brokers[0] != "cc:1" || conn.SASL.Name() != "SCRAM-SHA-256" {
		t.Fatalf("command config over profile: %+v %v", conn.Brokers, err)
	}
	conn, err = Connect(Sources{Env: env, Profile: "prod", CommandConfig: props,
		Flags: Settings{Brokers: []string{"flag:1"}, SASL: SASLSettings{Mechanism: MechScram512}}})
	if err != nil || conn.Brokers[0] != "flag:1" || conn.SASL.Name() != "SCRAM-SHA-512" || conn.ClientID != "prof-id" {
		t.Fatalf("flags over all: %+v %v", conn.Brokers, err)
	}
	conn, err = Connect(Sources{Env: testEnv(nil)})
	if err != nil || conn.Brokers[0] != DefaultBrokers {
		t.Fatalf("default: %v %v", conn.Brokers, err)
	}
	// A broken KAFKA_BROKERS does not matter when a flag names brokers.
	conn, err = Connect(Sources{Env: testEnv(map[string]string{"KAFKA_BROKERS": "bad"}), Flags: Settings{Brokers: []string{"f:1"}}})
	if err != nil || conn.Brokers[0] != "f:1" {
		t.Fatalf("flag over a bad KAFKA_BROKERS: %v %v", conn.Brokers, err)
	}

	for _, tt := range []struct {
		src  Sources
		want string
	}{
		{Sources{Env: env, Profile: "nope"}, `--profile "nope": not in ` + cfgFile + " (profiles: prod)"},
		{Sources{Env: testEnv(map[string]string{"OFFSETCTL_CONFIG": filepath.Join(dir, "missing.yaml")}), Profile: "p"}, "no profiles file at"},
		{Sources{Env: testEnv(nil), Profile: "p"}, "no profiles file: set OFFSETCTL_CONFIG or HOME"},
		// The path is not shown: a secret pasted in its place would be.
		{Sources{Env: env, CommandConfig: "S3CRET-not-a-path"}, "--command-config: no such file (the value is not shown: a secret pasted in place of a path would be)"},
		{Sources{Env: testEnv(map[string]string{"KAFKA_BROKERS": "bad"})}, "KAFKA_BROKERS: broker address"},
	} {
		_, err := Connect(tt.src)
		if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "S3CRET") {
			t.Errorf("err = %v, want %q", err, tt.want)
		}
	}
}

// FuzzParseProfiles: never panics; an accepted file's profiles either turn
// into settings or fail with an error naming the profile, and no accepted
// profile ever carries a password.
func FuzzParseProfiles(f *testing.F) {
	f.Add(sampleProfiles)
	for _, s := range []string{
		"", "profiles:", "profiles: {}", "profiles:\n  a:\n", "profiles:\n  a: {brokers: x}",
		"profiles:\n  a: {sasl: {password: x}}", "profiles: [1, 2]", "- a\n- b", "profiles:\n  a: &x {}\n  b: *x",
		"profiles:\n  a: {tls: {enabled: yes}}", "\x00", "profiles:\n  a: {brokers: [[a]]}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		ps, err := ParseProfiles(strings.NewReader(in))
		if err != nil {
			return
		}
		for name, p := range ps {
			if p == nil {
				t.Fatalf("profile %q is nil", name)
			}
			s, err := p.Settings(name, "/d", "/h")
			if err != nil {
				if !strings.Contains(err.Error(), "profile ") {
					t.Fatalf("error does not name the profile: %v", err)
				}
				continue
			}
			if s.SASL.Password != "" || s.SASL.Token != "" {
				t.Fatal("a profile carried a secret")
			}
		}
	})
}

// TestProfileEmptyOrDisabledBlocks: tls: or sasl: with no value decoded as
// no block, and tls: {enabled: false, ca: ...} as TLS off: TLS or SASL the
// operator wrote was silently dropped (QA). Both are refused.
func TestProfileEmptyOrDisabledBlocks(t *testing.T) {
	for in, want := range map[string]string{
		"profiles:\n  p:\n    brokers: [k:1]\n    tls:\n":                              `profile "p": line 4: tls is empty, which would turn TLS off: write tls: {} for TLS`,
		"profiles:\n  p:\n    brokers: [k:1]\n    tls: ~\n":                            `profile "p": line 4: tls is empty`,
		"profiles:\n  p:\n    brokers: [k:1]\n    sasl:\n    tls: {}\n":                `profile "p": line 4: sasl is empty, which would turn SASL off: give its mechanism`,
		"profiles:\n  p:\n    brokers: [k:1]\n    tls: {enabled: false, ca: ca.pem}\n": `profile "p": line 4: tls.enabled is false, but the tls block sets other TLS settings`,
		"profiles:\n  p:\n    tls:\n      server_name: k\n      enabled: false\n":      `profile "p": line 5: tls.enabled is false`,
	} {
		ps, err := ParseProfiles(strings.NewReader(in))
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		if _, err := ps["p"].Settings("p", "", ""); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err = %v, want %q", in, err, want)
		}
	}
	// {} is TLS on with the system pool; enabled: false alone is off.
	ps, err := ParseProfiles(strings.NewReader("profiles:\n  on:\n    tls: {}\n  off:\n    tls: {enabled: false}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if s, err := ps["on"].Settings("on", "", ""); err != nil || !s.TLSOn() {
		t.Errorf("tls: {}: %+v %v", s.TLS, err)
	}
	if s, err := ps["off"].Settings("off", "", ""); err != nil || s.TLSOn() {
		t.Errorf("tls: {enabled: false}: %+v %v", s.TLS, err)
	}
}
