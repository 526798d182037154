package cluster

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"regexp"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/aws"
	"github.com/twmb/franz-go/pkg/sasl/oauth"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// Secret is a string that never prints: fmt, %v, %#v, JSON and errors that
// format it all show "[redacted]". Use Reveal to hand it to a client.
type Secret string

const redacted = "[redacted]"

func (s Secret) String() string   { return redacted }
func (s Secret) GoString() string { return redacted }

// MarshalJSON keeps a Secret out of any JSON.
func (s Secret) MarshalJSON() ([]byte, error) { return []byte(`"` + redacted + `"`), nil }

// MarshalText keeps a Secret out of text encodings (YAML, CSV helpers).
func (s Secret) MarshalText() ([]byte, error) { return []byte(redacted), nil }

// Reveal returns the secret value.
func (s Secret) Reveal() string { return string(s) }

// Mechanism names, as the --sasl-mechanism flag spells them.
const (
	MechNone        = "none"
	MechPlain       = "plain"
	MechScram256    = "scram-sha-256"
	MechScram512    = "scram-sha-512"
	MechOAuthBearer = "oauthbearer"
	MechAWSMSKIAM   = "aws-msk-iam"
)

// Mechanisms lists the accepted --sasl-mechanism values.
var Mechanisms = []string{MechPlain, MechScram256, MechScram512, MechOAuthBearer, MechAWSMSKIAM}

// ParseMechanism accepts a mechanism in flag form or Kafka's form
// (SCRAM-SHA-512, AWS_MSK_IAM, ...), case-insensitively.
func ParseMechanism(s string) (string, error) {
	n := strings.ToLower(strings.TrimSpace(s))
	n = strings.ReplaceAll(n, "_", "-")
	switch n {
	case MechNone, MechPlain, MechScram256, MechScram512, MechOAuthBearer, MechAWSMSKIAM:
		return n, nil
	case "gssapi":
		return "", errors.New("SASL mechanism GSSAPI (Kerberos) is not supported; use plain, scram-sha-256, scram-sha-512, oauthbearer or aws-msk-iam")
	}
	return "", &valueError{
		shown:  fmt.Sprintf("unknown SASL mechanism %s (want one of %s)", quoteKey(s), strings.Join(Mechanisms, ", ")),
		hidden: fmt.Sprintf("unknown SASL mechanism (want one of %s)", strings.Join(Mechanisms, ", ")),
	}
}

// TLSSettings is how to speak TLS to the brokers. Zero values mean "not
// set here", so layers (profile, properties file, flags) merge field by field.
type TLSSettings struct {
	// Enabled is nil when this layer does not say.
	Enabled *bool
	// CAFile / CAPEM: PEM certificates to trust instead of the system pool.
	CAFile string
	CAPEM  string
	// CertFile + KeyFile, or CertPEM + KeyPEM: the client certificate (mTLS).
	// A file may hold both the key and the chain (a PEM keystore).
	CertFile, KeyFile string
	CertPEM           string
	KeyPEM            Secret
	// ServerName overrides the name checked against the broker certificate.
	ServerName string
	// InsecureSkipVerify accepts any broker certificate.
	InsecureSkipVerify *bool
	// SkipHostnameCheck verifies the chain but not the host name
	// (ssl.endpoint.identification.algorithm= empty).
	SkipHostnameCheck *bool
}

// SASLSettings is how to authenticate. Secrets come only from files,
// environment variables or a prompt: Password/Token are set from a
// properties file's sasl.jaas.config or after resolution, never from argv.
type SASLSettings struct {
	// Mechanism is "" when not set here, MechNone for explicitly off.
	Mechanism string
	// Required is set when security.protocol says SASL_*: a mechanism must
	// then come from somewhere.
	Required bool
	User     string
	Password Secret
	// PasswordFile / PasswordEnv name where the password is.
	PasswordFile, PasswordEnv string
	// Token, TokenFile, TokenEnv: the OAUTHBEARER token.
	Token               Secret
	TokenFile, TokenEnv string
	// PasswordFileFrom / TokenFileFrom name where the file was given
	// (--sasl-password-file), for errors that do not show its path.
	PasswordFileFrom, TokenFileFrom string
	// Source says where these settings came from, for messages.
	Source string
}

// Settings is one layer of connection settings.
type Settings struct {
	Brokers  []string
	ClientID string
	TLS      TLSSettings
	SASL     SASLSettings
	// AuditTopic is the shared audit trail's topic (--audit-topic, or a
	// profile's audit_topic): it travels with the connection it lives on.
	AuditTopic string

	// tlsUnused, from a properties file with ssl.* keys and no TLS
	// protocol, says why they would go unused: an error unless a higher
	// layer turns TLS on. Not merged.
	tlsUnused string
	// brokerScheme is the listener prefix of Brokers (SSL for
	// SSL://host:port), brokersFrom where they came from; see SetBrokers.
	brokerScheme, brokersFrom string
}

// Merge returns s with every field that over sets replacing s's.
func (s Settings) Merge(over Settings) Settings {
	if len(over.Brokers) > 0 {
		s.Brokers, s.brokerScheme, s.brokersFrom = over.Brokers, over.brokerScheme, over.brokersFrom
	}
	if over.ClientID != "" {
		s.ClientID = over.ClientID
	}
	if over.AuditTopic != "" {
		s.AuditTopic = over.AuditTopic
	}
	t, o := &s.TLS, over.TLS
	if o.Enabled != nil {
		t.Enabled = o.Enabled
	}
	if o.CAFile != "" || o.CAPEM != "" {
		t.CAFile, t.CAPEM = o.CAFile, o.CAPEM
	}
	if o.CertFile != "" || o.CertPEM != "" || o.KeyFile != "" || o.KeyPEM != "" {
		t.CertFile, t.KeyFile, t.CertPEM, t.KeyPEM = o.CertFile, o.KeyFile, o.CertPEM, o.KeyPEM
	}
	if o.ServerName != "" {
		t.ServerName = o.ServerName
	}
	if o.InsecureSkipVerify != nil {
		t.InsecureSkipVerify = o.InsecureSkipVerify
	}
	if o.SkipHostnameCheck != nil {
		t.SkipHostnameCheck = o.SkipHostnameCheck
	}
	a, oa := &s.SASL, over.SASL
	if oa.Mechanism != "" {
		a.Mechanism = oa.Mechanism
		a.Required = oa.Required
		a.Source = oa.Source
	} else if oa.Required {
		a.Required = true
		a.Source = oa.Source
	}
	if oa.User != "" {
		a.User = oa.User
	}
	// A layer that says where the password is replaces every lower source.
	if oa.Password != "" || oa.PasswordFile != "" || oa.PasswordEnv != "" {
		a.Password, a.PasswordFile, a.PasswordEnv, a.PasswordFileFrom = oa.Password, oa.PasswordFile, oa.PasswordEnv, oa.PasswordFileFrom
	}
	if oa.Token != "" || oa.TokenFile != "" || oa.TokenEnv != "" {
		a.Token, a.TokenFile, a.TokenEnv, a.TokenFileFrom = oa.Token, oa.TokenFile, oa.TokenEnv, oa.TokenFileFrom
	}
	return s
}

// TLSOn reports whether the merged settings use TLS.
func (s Settings) TLSOn() bool { return s.TLS.Enabled != nil && *s.TLS.Enabled }

// SASLOn reports whether the merged settings authenticate.
func (s Settings) SASLOn() bool { return s.SASL.Mechanism != "" && s.SASL.Mechanism != MechNone }

// Env is what resolving secrets may read: the environment, files and, on a
// terminal, the user. Prompt is nil when there is no terminal.
type Env struct {
	Getenv   func(string) string
	ReadFile func(string) ([]byte, error)
	Prompt   func(prompt string) (string, error)
}

// Default environment variables for secrets.
const (
	EnvPassword   = "KAFKA_SASL_PASSWORD"
	EnvToken      = "KAFKA_SASL_TOKEN"
	EnvAWSKey     = "AWS_ACCESS_KEY_ID"
	EnvAWSSecret  = "AWS_SECRET_ACCESS_KEY"
	EnvAWSSession = "AWS_SESSION_TOKEN"
)

// Security is the resolved TLS config and SASL mechanism, plus warnings to
// print (for example about disabled verification) and the secrets in play,
// so that logs can be scrubbed of them.
type Security struct {
	TLS      *tls.Config
	SASL     sasl.Mechanism
	Warnings []string
	Secrets  []string
}

// Resolve builds the TLS config and SASL mechanism of merged settings,
// reading certificate files and secrets through env.
func (s Settings) Resolve(env Env) (Security, error) {
	var out Security
	if s.TLSOn() {
		cfg, warns, err := s.TLS.build(env)
		if err != nil {
			return out, err
		}
		out.TLS = cfg
		out.Warnings = append(out.Warnings, warns...)
		if s.TLS.KeyPEM != "" {
			out.Secrets = append(out.Secrets, s.TLS.KeyPEM.Reveal())
		}
	}
	if s.SASL.Required && s.SASL.Mechanism == "" {
		return out, fmt.Errorf("%s asks for SASL but names no mechanism (Java's default is GSSAPI/Kerberos, which is not supported): set sasl.mechanism or --sasl-mechanism", orDefault(s.SASL.Source, "the configuration"))
	}
	if s.SASLOn() {
		mech, secrets, err := s.SASL.build(env)
		if err != nil {
			return out, err
		}
		out.SASL = mech
		out.Secrets = append(out.Secrets, secrets...)
		if !s.TLSOn() && (s.SASL.Mechanism == MechPlain || s.SASL.Mechanism == MechOAuthBearer) {
			out.Warnings = append(out.Warnings, fmt.Sprintf("SASL %s without TLS sends the credentials in clear text; add --tls", s.SASL.Mechanism))
		}
	}
	return out, nil
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func (t TLSSettings) build(env Env) (*tls.Config, []string, error) {
	var warns []string
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: t.ServerName}
	caPEM := normalizePEM(t.CAPEM)
	caFrom := "ssl.truststore.certificates"
	if t.CAFile != "" {
		b, err := env.ReadFile(t.CAFile)
		if err != nil {
			return nil, nil, fmt.Errorf("reading TLS CA file: %w", err)
		}
		if len(b) == 0 {
			// An empty CA file would silently mean the system pool.
			return nil, nil, fmt.Errorf("TLS CA %s is empty", t.CAFile)
		}
		caPEM, caFrom = b, t.CAFile
	}
	if len(caPEM) > 0 {
		pool := x509.NewCertPool()
		if n := addPEMCerts(pool, caPEM); n == 0 {
			return nil, nil, fmt.Errorf("TLS CA %s holds no PEM certificate", caFrom)
		}
		cfg.RootCAs = pool
	}
	certPEM, keyPEM := normalizePEM(t.CertPEM), normalizePEM(t.KeyPEM.Reveal())
	certFrom := "ssl.keystore.certificate.chain"
	if t.CertFile != "" {
		b, err := env.ReadFile(t.CertFile)
		if err != nil {
			return nil, nil, fmt.Errorf("reading TLS client certificate: %w", err)
		}
		certPEM, certFrom = b, t.CertFile
	}
	if t.KeyFile != "" {
		b, err := env.ReadFile(t.KeyFile)
		if err != nil {
			return nil, nil, fmt.Errorf("reading TLS client key: %w", err)
		}
		keyPEM = b
	}
	switch {
	case len(certPEM) > 0 && len(keyPEM) == 0:
		return nil, nil, errors.New("TLS client certificate given without its key: add --tls-key (or ssl.keystore.key)")
	case len(certPEM) == 0 && len(keyPEM) > 0:
		return nil, nil, errors.New("TLS client key given without its certificate: add --tls-cert (or ssl.keystore.certificate.chain)")
	case len(certPEM) > 0:
		if encryptedPEM(keyPEM) {
			return nil, nil, errors.New("the TLS client key is encrypted, which is not supported: decrypt it with `openssl pkcs8 -topk8 -nocrypt` and protect the file with permissions")
		}
		pair, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			// crypto/tls errors name the problem, never the key bytes.
			return nil, nil, fmt.Errorf("TLS client certificate %s and key do not load: %w", certFrom, err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	if t.InsecureSkipVerify != nil && *t.InsecureSkipVerify {
		cfg.InsecureSkipVerify = true
		warns = append(warns, "TLS certificate verification is OFF (--tls-insecure-skip-verify): anyone on the network path can read and alter this session")
	} else if t.SkipHostnameCheck != nil && *t.SkipHostnameCheck {
		// Verify the chain against the trusted roots, not the host name.
		roots := cfg.RootCAs
		cfg.InsecureSkipVerify = true
		cfg.VerifyConnection = func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 {
				return errors.New("broker sent no certificate")
			}
			opts := x509.VerifyOptions{Roots: roots, Intermediates: x509.NewCertPool()}
			for _, c := range cs.PeerCertificates[1:] {
				opts.Intermediates.AddCert(c)
			}
			_, err := cs.PeerCertificates[0].Verify(opts)
			return err
		}
		warns = append(warns, "TLS host name verification is off (ssl.endpoint.identification.algorithm is empty); the certificate chain is still verified")
	}
	return cfg, warns, nil
}

var pemBlockRE = regexp.MustCompile(`(?s)-----BEGIN ([A-Z0-9 ]+)-----(.*?)-----END ([A-Z0-9 ]+)-----`)

// normalizePEM rebuilds PEM blocks whose line breaks were lost, as in a
// properties value joined from continuation lines ("-----BEGIN
// CERTIFICATE----- MIIB... -----END CERTIFICATE-----"). Blocks with
// headers (legacy encrypted keys) are left as they are.
func normalizePEM(s string) []byte {
	if s == "" || strings.Contains(s, "Proc-Type:") {
		return []byte(s)
	}
	var b strings.Builder
	for _, m := range pemBlockRE.FindAllStringSubmatch(s, -1) {
		body := strings.Join(strings.Fields(m[2]), "")
		fmt.Fprintf(&b, "-----BEGIN %s-----\n", m[1])
		for len(body) > 64 {
			b.WriteString(body[:64] + "\n")
			body = body[64:]
		}
		if body != "" {
			b.WriteString(body + "\n")
		}
		fmt.Fprintf(&b, "-----END %s-----\n", m[3])
	}
	if b.Len() == 0 {
		return []byte(s)
	}
	return []byte(b.String())
}

func addPEMCerts(pool *x509.CertPool, b []byte) int {
	n := 0
	for {
		var blk *pem.Block
		blk, b = pem.Decode(b)
		if blk == nil {
			return n
		}
		if blk.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(blk.Bytes)
		if err != nil {
			continue
		}
		pool.AddCert(c)
		n++
	}
}

func encryptedPEM(b []byte) bool {
	for {
		var blk *pem.Block
		blk, b = pem.Decode(b)
		if blk == nil {
			return false
		}
		if blk.Type == "ENCRYPTED PRIVATE KEY" || blk.Headers["Proc-Type"] != "" && strings.Contains(blk.Headers["Proc-Type"], "ENCRYPTED") {
			return true
		}
	}
}

// secret resolves one secret: value, file, named env var, default env var,
// prompt. what names it in messages ("password", "OAUTHBEARER token").
// fileFrom names where file was given (--sasl-password-file), for an error
// that cannot show the path.
func resolveSecret(env Env, value Secret, file, fileFrom, envName, defEnv, what, promptText, howto string) (string, error) {
	switch {
	case value != "":
		return value.Reveal(), nil
	case file != "":
		b, err := env.ReadFile(file)
		if err != nil {
			return "", fmt.Errorf("%s: %s", orDefault(fileFrom, "the SASL "+what+" file"), unreadable(err))
		}
		v := strings.TrimPrefix(string(b), utf8BOM)
		if what == "password" {
			// The password is the first line (--help says so): a second
			// line, an editor's CR or byte order mark are not part of it.
			line, _, more := strings.Cut(v, "\n")
			if line = strings.TrimSuffix(line, "\r"); line == "" && more {
				return "", fmt.Errorf("the first line of the SASL password file %s is empty: the password is the first line", file)
			}
			v = line
		}
		v = strings.TrimRight(v, "\r\n")
		if v == "" {
			return "", fmt.Errorf("the SASL %s file %s is empty", what, file)
		}
		return v, nil
	case envName != "":
		v := env.Getenv(envName)
		if v == "" {
			return "", fmt.Errorf("the SASL %s is to come from $%s, which is empty", what, envName)
		}
		return v, nil
	}
	if v := env.Getenv(defEnv); v != "" {
		return v, nil
	}
	if env.Prompt != nil && promptText != "" {
		v, err := env.Prompt(promptText)
		if err != nil {
			return "", fmt.Errorf("reading the SASL %s: %w", what, err)
		}
		if v == "" {
			return "", fmt.Errorf("empty SASL %s", what)
		}
		return v, nil
	}
	return "", errors.New(howto)
}

// unreadable says why a file that may have been given a secret in place
// of its path cannot be read, without the path: "open S3CRET: no such
// file or directory" would print the secret pasted as the path.
func unreadable(err error) string {
	var pe *fs.PathError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "no such file (the value is not shown: a secret pasted in place of a path would be)"
	case errors.As(err, &pe):
		return pe.Err.Error() + " (the path is not shown: a secret pasted in place of a path would be)"
	}
	return "cannot be read (the path is not shown: a secret pasted in place of a path would be)"
}

func (a SASLSettings) build(env Env) (sasl.Mechanism, []string, error) {
	switch a.Mechanism {
	case MechPlain, MechScram256, MechScram512:
		if a.User == "" {
			return nil, nil, fmt.Errorf("SASL %s needs a user: --sasl-user (or username= in sasl.jaas.config)", a.Mechanism)
		}
		pw, err := resolveSecret(env, a.Password, a.PasswordFile, a.PasswordFileFrom, a.PasswordEnv, EnvPassword, "password",
			fmt.Sprintf("Password for %s (SASL %s): ", a.User, a.Mechanism),
			fmt.Sprintf("SASL %s for user %s needs a password: set %s, pass --sasl-password-file FILE, or run on a terminal to be prompted", a.Mechanism, a.User, EnvPassword))
		if err != nil {
			return nil, nil, err
		}
		switch a.Mechanism {
		case MechPlain:
			return plain.Auth{User: a.User, Pass: pw}.AsMechanism(), []string{pw}, nil
		case MechScram256:
			return scram.Auth{User: a.User, Pass: pw}.AsSha256Mechanism(), []string{pw}, nil
		default:
			return scram.Auth{User: a.User, Pass: pw}.AsSha512Mechanism(), []string{pw}, nil
		}
	case MechOAuthBearer:
		tok, err := resolveSecret(env, a.Token, a.TokenFile, a.TokenFileFrom, a.TokenEnv, EnvToken, "OAUTHBEARER token", "",
			fmt.Sprintf("SASL oauthbearer needs a token: set %s or pass --sasl-token-file FILE", EnvToken))
		if err != nil {
			return nil, nil, err
		}
		return oauth.Auth{Zid: a.User, Token: tok}.AsMechanism(), []string{tok}, nil
	case MechAWSMSKIAM:
		key, secret := env.Getenv(EnvAWSKey), env.Getenv(EnvAWSSecret)
		if key == "" || secret == "" {
			return nil, nil, fmt.Errorf("SASL aws-msk-iam needs %s and %s in the environment (and %s for temporary credentials)", EnvAWSKey, EnvAWSSecret, EnvAWSSession)
		}
		session := env.Getenv(EnvAWSSession)
		secrets := []string{secret}
		if session != "" {
			secrets = append(secrets, session)
		}
		mech := aws.ManagedStreamingIAM(func(context.Context) (aws.Auth, error) {
			return aws.Auth{AccessKey: key, SecretKey: secret, SessionToken: session}, nil
		})
		return mech, secrets, nil
	}
	return nil, nil, fmt.Errorf("unknown SASL mechanism %s", quoteKey(a.Mechanism))
}

// Redact replaces every secret in s with [redacted].
func Redact(s string, secrets []string) string {
	for _, sec := range secrets {
		if len(sec) >= 3 { // never scrub trivially short strings out of everything
			s = strings.ReplaceAll(s, sec, redacted)
		}
	}
	return s
}

// RedactLogger wraps a kgo.Logger so that no secret reaches it, whatever a
// future franz-go logs: messages and values are scrubbed of secrets.
func RedactLogger(l kgo.Logger, secrets []string) kgo.Logger {
	if len(secrets) == 0 {
		return l
	}
	return redactLogger{l, secrets}
}

type redactLogger struct {
	kgo.Logger
	secrets []string
}

func (r redactLogger) Log(level kgo.LogLevel, msg string, keyvals ...any) {
	kv := make([]any, len(keyvals))
	for i, v := range keyvals {
		kv[i] = Redact(fmt.Sprint(v), r.secrets)
	}
	r.Logger.Log(level, Redact(msg, r.secrets), kv...)
}

// ExplainConnError turns authentication and TLS failures from a first
// round trip into one sentence that says what to fix; other errors are
// returned unchanged. It never adds a secret: it names only the brokers and
// the mechanism.
func (c Config) ExplainConnError(err error) error {
	if err == nil {
		return nil
	}
	brokers := strings.Join(c.Brokers, ",")
	msg := err.Error()
	detail := func(marker string) string {
		if i := strings.LastIndex(msg, marker); i >= 0 {
			return msg[i+len(marker):]
		}
		return msg
	}
	mech := "SASL"
	if c.SASL != nil {
		mech = "SASL " + c.SASL.Name()
	}
	var (
		unknownCA x509.UnknownAuthorityError
		hostErr   x509.HostnameError
		invalid   x509.CertificateInvalidError
		alert     tls.AlertError
	)
	switch {
	case errors.Is(err, kerr.SaslAuthenticationFailed) && strings.Contains(msg, "invalid_token"):
		// RFC 7628's error JSON: the broker's validator refused the token.
		return fmt.Errorf("authentication failed at %s (%s): the broker refused the token (invalid_token): it may have expired, or its issuer, audience, scope or signature is not what the broker accepts", brokers, mech)
	case errors.Is(err, kerr.SaslAuthenticationFailed):
		return fmt.Errorf("authentication failed at %s (%s): %s", brokers, mech, detail("failed.: "))
	case c.TLS == nil && strings.Contains(msg, "plaintext connection speaking to a tls endpoint"):
		return fmt.Errorf("the brokers at %s answered with TLS: add --tls (and --tls-ca if their CA is private)", brokers)
	case c.SASL != nil && (errors.Is(err, io.EOF) || strings.HasSuffix(msg, ": EOF")):
		return fmt.Errorf("the brokers at %s closed the connection during the handshake (%s): check the SASL user, password and mechanism, and whether the listener expects TLS", brokers, mech)
	case c.SASL != nil && errors.Is(err, kerr.IllegalSaslState):
		return fmt.Errorf("the brokers at %s do not expect SASL on this listener (%s): is it a PLAINTEXT or SSL listener? drop --sasl-* or use the SASL port", brokers, mech)
	case errors.Is(err, kerr.UnsupportedSaslMechanism):
		return fmt.Errorf("the brokers at %s do not accept %s: %s", brokers, mech, detail(": "))
	case errors.As(err, &unknownCA):
		return fmt.Errorf("TLS to %s: the broker certificate is signed by an unknown authority; pass its CA with --tls-ca", brokers)
	case errors.As(err, &hostErr):
		return fmt.Errorf("TLS to %s: %v; connect by a name the certificate lists, or set --tls-server-name", brokers, hostErr)
	case errors.As(err, &invalid):
		return fmt.Errorf("TLS to %s: the broker certificate is not valid: %v", brokers, invalid)
	case errors.As(err, &alert) || strings.Contains(msg, "remote error: tls: "):
		hint := ""
		if strings.Contains(msg, "bad certificate") || strings.Contains(msg, "certificate required") || strings.Contains(msg, "unknown certificate authority") {
			hint = "; the broker wants a client certificate it trusts: --tls-cert and --tls-key"
		}
		return fmt.Errorf("TLS to %s was refused by the broker (%s)%s", brokers, detail("remote error: "), hint)
	}
	return err
}
