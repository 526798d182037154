package cluster

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/offsetctl/offsetctl/internal/safetext"
)

// ignoredClientKeys are Java client settings with no bearing on how
// offsetctl connects or authenticates (tuning, serdes, consumer/producer
// behaviour): accepted and reported in one note, never an error.
var ignoredClientKeys = map[string]bool{
	"request.timeout.ms": true, "default.api.timeout.ms": true, "retries": true,
	"retry.backoff.ms": true, "retry.backoff.max.ms": true, "metadata.max.age.ms": true,
	"connections.max.idle.ms": true, "reconnect.backoff.ms": true, "reconnect.backoff.max.ms": true,
	"socket.connection.setup.timeout.ms": true, "socket.connection.setup.timeout.max.ms": true,
	"receive.buffer.bytes": true, "send.buffer.bytes": true, "client.dns.lookup": true,
	"client.rack": true, "metrics.recording.level": true, "metrics.num.samples": true,
	"metrics.sample.window.ms": true, "metric.reporters": true, "auto.include.jmx.reporter": true,
	"enable.metrics.push": true, "group.id": true, "group.instance.id": true, "group.protocol": true,
	"key.deserializer": true, "value.deserializer": true, "key.serializer": true, "value.serializer": true,
	"enable.auto.commit": true, "auto.commit.interval.ms": true, "auto.offset.reset": true,
	"isolation.level": true, "max.poll.records": true, "max.poll.interval.ms": true,
	"session.timeout.ms": true, "heartbeat.interval.ms": true, "fetch.min.bytes": true,
	"fetch.max.bytes": true, "fetch.max.wait.ms": true, "max.partition.fetch.bytes": true,
	"acks": true, "linger.ms": true, "batch.size": true, "compression.type": true,
	"enable.idempotence": true, "delivery.timeout.ms": true, "max.block.ms": true,
	"buffer.memory": true, "max.request.size": true, "max.in.flight.requests.per.connection": true,
	"exclude.internal.topics": true, "allow.auto.create.topics": true, "check.crcs": true,
	"interceptor.classes": true, "partition.assignment.strategy": true,
}

// ignoredSecurityKeys are ssl.*/sasl.* keys whose usual values change
// nothing for a Go client; with any other ssl./sasl. key, offsetctl refuses.
var ignoredSecurityKeys = map[string]bool{
	"ssl.keymanager.algorithm":              true, // JVM KeyManagerFactory name
	"ssl.trustmanager.algorithm":            true, // JVM TrustManagerFactory name
	"ssl.protocol":                          true, // Go negotiates TLS 1.2/1.3
	"ssl.enabled.protocols":                 true,
	"ssl.cipher.suites":                     true, // Go's secure defaults
	"ssl.secure.random.implementation":      true,
	"ssl.truststore.password":               true, // meaningless for PEM
	"ssl.keystore.password":                 true, // meaningless for PEM
	"sasl.login.refresh.window.factor":      true,
	"sasl.login.refresh.window.jitter":      true,
	"sasl.login.refresh.min.period.seconds": true,
	"sasl.login.refresh.buffer.seconds":     true,
	"sasl.login.connect.timeout.ms":         true,
	"sasl.login.read.timeout.ms":            true,
	"sasl.login.retry.backoff.ms":           true,
	"sasl.login.retry.backoff.max.ms":       true,
}

// awsIAMHandler is the callback handler MSK IAM client configs name.
const awsIAMHandler = "software.amazon.msk.auth.iam.IAMClientCallbackHandler"

// FromProperties maps a Java client properties file (the --command-config
// operators pass to Apache's tools) onto Settings. notes are harmless keys
// it ignored, for one line on stderr. An error names the key and never
// echoes a value that could be secret.
func FromProperties(p Properties) (Settings, []string, error) {
	if err := checkDuplicates(p); err != nil {
		return Settings{}, nil, err
	}
	pa := propsApply{m: p.Map(), lines: p.keyLines()}
	pa.s.SASL.Source = "--command-config"
	protocol, err := pa.protocol()
	if err != nil {
		return pa.s, nil, err
	}
	pa.saslOn = strings.HasPrefix(protocol, "SASL_")
	for _, k := range []string{"ssl.truststore.type", "ssl.keystore.type"} {
		if v, ok := pa.m[k]; ok && !strings.EqualFold(strings.TrimSpace(v), "PEM") {
			return pa.s, nil, fmt.Errorf("%s is not PEM, the only store type supported (convert with keytool -exportcert -rfc / openssl pkcs12 -nodes)", k)
		}
	}
	keys := make([]string, 0, len(pa.m))
	for k := range pa.m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := pa.key(k, pa.m[k]); err != nil {
			return pa.s, nil, err
		}
	}
	if err := checkTLSSources(pa.s.TLS); err != nil {
		return pa.s, nil, err
	}
	sort.Ints(pa.unnamed)
	if err := checkSomethingUsable(p, pa.unnamed); err != nil {
		return pa.s, nil, err
	}
	// Java drops sasl.* and ssl.* settings the protocol does not use,
	// without a word: the operator who wrote them meant SASL or TLS.
	// SASL settings are not read without a SASL protocol, so that is an
	// error here; TLS may still be turned on by --tls, so whether TLS
	// settings go unused is decided once the layers are merged.
	if len(pa.saslKeys) > 0 {
		return pa.s, nil, fmt.Errorf("%s set but security.protocol is %s: SASL would not be used; set security.protocol=SASL_SSL (or SASL_PLAINTEXT)", keysAre(pa.saslKeys), orDefault(protocol, "unset (PLAINTEXT)"))
	}
	if len(pa.sslKeys) > 0 && protocol != "SSL" && protocol != "SASL_SSL" {
		pa.s.tlsUnused = fmt.Sprintf("%s set but security.protocol is %s: TLS would not be used; set security.protocol=SSL or SASL_SSL", keysAre(pa.sslKeys), orDefault(protocol, "unset (PLAINTEXT)"))
	}
	var notes []string
	if len(pa.ignored) > 0 {
		notes = append(notes, "ignoring client settings that do not apply to offsetctl: "+strings.Join(pa.ignored, ", "))
	}
	if len(pa.unnamed) > 0 {
		notes = append(notes, fmt.Sprintf("ignoring %s: not named like a client setting (not shown: a line like that may be a password)", linesList(pa.unnamed)))
	}
	return pa.s, notes, nil
}

// checkDuplicates refuses a key given twice with different values: Java
// keeps the last silently, so security.protocol=SSL then =PLAINTEXT
// further down (a merge of two files) turned TLS off. The same value
// twice is harmless. Values are never shown.
func checkDuplicates(p Properties) error {
	first := make(map[string]Property, len(p.Entries))
	for _, e := range p.Entries {
		f, ok := first[e.Key]
		if !ok {
			first[e.Key] = e
			continue
		}
		if f.Value == e.Value {
			continue
		}
		if plausibleKey(e.Key) {
			return fmt.Errorf("%s is given twice with different values (lines %d and %d): keep one", quoteKey(e.Key), f.Line, e.Line)
		}
		return fmt.Errorf("the key on line %d is given again on line %d with a different value: keep one", f.Line, e.Line)
	}
	return nil
}

// checkSomethingUsable refuses a file in which no line is a client
// setting: the wrong file (a PEM key, a password file) passed as
// --command-config would otherwise connect with none of the settings the
// right one holds, in plaintext.
func checkSomethingUsable(p Properties, unnamed []int) error {
	if len(p.Entries) == 0 {
		return errors.New("holds no setting (it is empty or only comments): is it the client properties file?")
	}
	if len(unnamed) == len(p.Entries) {
		return fmt.Errorf("no line is a client setting (%s: not named like one; not shown: a line like that may be a password): is it the client properties file?", linesList(unnamed))
	}
	return nil
}

// keysAre lists keys for a message: "ssl.a is", "ssl.a, ssl.b are".
func keysAre(keys []string) string {
	if len(keys) == 1 {
		return keys[0] + " is"
	}
	return strings.Join(keys, ", ") + " are"
}

// propsApply is FromProperties at work: the settings so far, the keys
// ignored, and whether SASL is on (security.protocol SASL_*).
type propsApply struct {
	s       Settings
	m       map[string]string
	saslOn  bool
	ignored []string
	// saslKeys are the sasl.* keys read while SASL is off, which would
	// be dropped; sslKeys every ssl.* key.
	saslKeys, sslKeys []string
	// lines maps each key to its line; unnamed are the lines of ignored
	// keys that are not shown (see plausibleKey).
	lines   map[string]int
	unnamed []int
}

// plausibleKey reports whether k looks like the name of a Kafka client
// setting, which may be shown: lowercase dotted words (sasl.jaas.config,
// linger.ms), or one of the few dotless names. Anything else is referred
// to by its line only: a password file passed as --command-config parses
// as a file whose one key is the password.
func plausibleKey(k string) bool {
	if k == "acks" || k == "retries" {
		return true
	}
	if len(k) > 80 || !strings.Contains(k, ".") {
		return false
	}
	for _, seg := range strings.Split(k, ".") {
		if seg == "" || seg[0] < 'a' || seg[0] > 'z' {
			return false
		}
		for i := 1; i < len(seg); i++ {
			if c := seg[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
				return false
			}
		}
	}
	return true
}

// shownKey is k for an error: k quoted when plausibleKey, else its line.
func (pa *propsApply) shownKey(k string) string {
	if plausibleKey(k) {
		return quoteKey(k)
	}
	return fmt.Sprintf("the key on line %d", pa.lines[k])
}

// linesList renders line numbers: "line 2", "lines 2, 5".
func linesList(lines []int) string {
	parts := make([]string, len(lines))
	for i, l := range lines {
		parts[i] = strconv.Itoa(l)
	}
	if len(lines) == 1 {
		return "line " + parts[0]
	}
	return "lines " + strings.Join(parts, ", ")
}

// protocol applies security.protocol (TLS on or off, SASL required or
// not) and returns it upper-cased, "" when unset.
func (pa *propsApply) protocol() (string, error) {
	v, ok := pa.m["security.protocol"]
	if !ok {
		return "", nil
	}
	protocol := strings.ToUpper(strings.TrimSpace(v))
	on := func(b bool) *bool { return &b }
	s := &pa.s
	switch protocol {
	case "PLAINTEXT":
		s.TLS.Enabled = on(false)
		s.SASL.Mechanism = MechNone
	case "SSL":
		s.TLS.Enabled = on(true)
		s.SASL.Mechanism = MechNone
	case "SASL_PLAINTEXT":
		s.TLS.Enabled = on(false)
		s.SASL.Required = true
	case "SASL_SSL":
		s.TLS.Enabled = on(true)
		s.SASL.Required = true
	default:
		return "", errors.New("security.protocol is not one of PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL")
	}
	return protocol, nil
}

// key applies one property.
func (pa *propsApply) key(k, v string) error {
	tv := strings.TrimSpace(v)
	s := &pa.s
	if strings.HasPrefix(k, "ssl.") {
		pa.sslKeys = append(pa.sslKeys, k)
	}
	switch k {
	case "security.protocol", "ssl.truststore.type", "ssl.keystore.type": // applied or checked first
	case "bootstrap.servers":
		if err := s.SetBrokers(v, "bootstrap.servers in --command-config"); err != nil {
			return fmt.Errorf("bootstrap.servers: %w", WithoutValue(err))
		}
	case "client.id":
		s.ClientID = tv
	case "sasl.mechanism", "sasl.jaas.config":
		if !pa.saslOn {
			pa.saslKeys = append(pa.saslKeys, k)
			return nil
		}
		return pa.saslKey(k, v)
	case "sasl.client.callback.handler.class":
		if tv != awsIAMHandler {
			return fmt.Errorf("sasl.client.callback.handler.class is not supported (only %s, for aws-msk-iam)", awsIAMHandler)
		}
	case "ssl.truststore.location", "ssl.truststore.certificates", "ssl.keystore.location", "ssl.keystore.certificate.chain",
		"ssl.keystore.key", "ssl.key.password", "ssl.endpoint.identification.algorithm":
		return pa.sslKey(k, v)
	default:
		switch {
		case ignoredSecurityKeys[k] || ignoredClientKeys[k]:
			pa.ignored = append(pa.ignored, k)
		case strings.HasPrefix(k, "ssl.") || strings.HasPrefix(k, "sasl.") || strings.HasPrefix(k, "security."):
			return fmt.Errorf("%s is not supported by offsetctl; remove it or use flags (see offsetctl --help)", pa.shownKey(k))
		case securityLike(k):
			return pa.unknownSecurityKey(k)
		case !plausibleKey(k):
			pa.unnamed = append(pa.unnamed, pa.lines[k])
		default:
			pa.ignored = append(pa.ignored, k)
		}
	}
	return nil
}

// securityKeys are the security settings offsetctl reads or ignores
// knowingly, for the "did you mean" of a mistyped one.
var securityKeys = []string{
	"security.protocol", "sasl.mechanism", "sasl.jaas.config", "sasl.client.callback.handler.class",
	"ssl.truststore.type", "ssl.truststore.location", "ssl.truststore.certificates",
	"ssl.keystore.type", "ssl.keystore.location", "ssl.keystore.certificate.chain", "ssl.keystore.key",
	"ssl.key.password", "ssl.endpoint.identification.algorithm",
}

// securityLike reports whether k looks like a security setting that is
// miscased (Security.Protocol) or mistyped (securty.protocol, sals.mechanism):
// Java would ignore it as an unknown key, and TLS or SASL with it.
func securityLike(k string) bool {
	first, _, ok := strings.Cut(strings.ToLower(k), ".")
	if !ok {
		return false // a dotless line may be a password: never shown
	}
	return editDistance(first, "security") <= 2 || editDistance(first, "sasl") <= 1 || editDistance(first, "ssl") <= 1
}

// unknownSecurityKey refuses a security-like key offsetctl does not know,
// naming it (a key, not a value) and the known key it is closest to.
func (pa *propsApply) unknownSecurityKey(k string) error {
	shown := fmt.Sprintf("the key on line %d", pa.lines[k])
	// A key of lowercase dotted words, once lowered, is a name; any other
	// (blanks, symbols) may be pasted text and is named by its line.
	if plausibleKey(strings.ToLower(k)) {
		shown = safetext.QuotedArg(k)
	}
	best, bestD := "", 4
	for _, known := range append(securityKeys, slices.Sorted(maps.Keys(ignoredSecurityKeys))...) {
		if d := editDistance(strings.ToLower(k), known); d < bestD {
			best, bestD = known, d
		}
	}
	hint := ""
	if best != "" {
		hint = " (did you mean " + best + "? keys are case-sensitive)"
	}
	return fmt.Errorf("%s is not a setting offsetctl knows%s: it looks like a security setting, and TLS or SASL is never dropped with it; correct or remove it", shown, hint)
}

// editDistance is the edit distance of a and b in bytes, a swap of two
// neighbours counting as one edit (sals for sasl), as typos go.
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

// saslKey applies sasl.mechanism or sasl.jaas.config (SASL is on).
func (pa *propsApply) saslKey(k, v string) error {
	if k == "sasl.mechanism" {
		mech, err := ParseMechanism(strings.TrimSpace(v))
		if err != nil {
			return fmt.Errorf("sasl.mechanism: %w", WithoutValue(err))
		}
		pa.s.SASL.Mechanism = mech
		return nil
	}
	j, err := ParseJAAS(v)
	if err != nil {
		return fmt.Errorf("sasl.jaas.config: %w", err)
	}
	if err := j.apply(&pa.s.SASL); err != nil {
		return fmt.Errorf("sasl.jaas.config: %w", err)
	}
	return nil
}

// sslKey applies one ssl.* key of the PEM stores and host name check.
func (pa *propsApply) sslKey(k, v string) error {
	tv := strings.TrimSpace(v)
	t := &pa.s.TLS
	switch k {
	case "ssl.truststore.location":
		if !strings.EqualFold(strings.TrimSpace(pa.m["ssl.truststore.type"]), "PEM") {
			return errors.New("ssl.truststore.location without ssl.truststore.type=PEM: Java reads it as JKS, which is not supported; convert the store to PEM and set ssl.truststore.type=PEM")
		}
		t.CAFile = tv
	case "ssl.truststore.certificates":
		t.CAPEM = v
	case "ssl.keystore.location":
		if !strings.EqualFold(strings.TrimSpace(pa.m["ssl.keystore.type"]), "PEM") {
			return errors.New("ssl.keystore.location without ssl.keystore.type=PEM: Java reads it as JKS, which is not supported; convert the store to PEM (key and certificate chain in one file) and set ssl.keystore.type=PEM")
		}
		// A PEM keystore file holds the key and the chain.
		t.CertFile, t.KeyFile = tv, tv
	case "ssl.keystore.certificate.chain":
		t.CertPEM = v
	case "ssl.keystore.key":
		t.KeyPEM = Secret(v)
	case "ssl.key.password":
		return errors.New("ssl.key.password is not supported: encrypted private keys cannot be read; decrypt the key (openssl pkcs8 -topk8 -nocrypt) and protect the file with permissions")
	case "ssl.endpoint.identification.algorithm":
		switch strings.ToLower(tv) {
		case "":
			skip := true
			t.SkipHostnameCheck = &skip
		case "https":
			skip := false
			t.SkipHostnameCheck = &skip
		default:
			return errors.New("ssl.endpoint.identification.algorithm is not supported: use https, or empty to skip the host name check")
		}
	}
	return nil
}

// checkTLSSources refuses a CA or a client certificate given two ways.
func checkTLSSources(t TLSSettings) error {
	if t.CAFile != "" && t.CAPEM != "" {
		return errors.New("set only one of ssl.truststore.location and ssl.truststore.certificates")
	}
	if t.CertFile != "" && (t.CertPEM != "" || t.KeyPEM != "") {
		return errors.New("set either ssl.keystore.location or ssl.keystore.certificate.chain + ssl.keystore.key, not both")
	}
	if (t.CertPEM != "") != (t.KeyPEM != "") {
		return errors.New("ssl.keystore.certificate.chain and ssl.keystore.key go together")
	}
	return nil
}

// JAAS is a parsed sasl.jaas.config: one login module and its options.
type JAAS struct {
	Module  string
	Flag    string
	Options map[string]string
	// glued names the options written right after a closing quote:
	// their names may be the rest of a value with a quote in it
	// (password="pa"ss="w0rd"), so an error never shows them.
	glued map[string]bool
}

// Known login modules.
const (
	jaasPlain  = "org.apache.kafka.common.security.plain.PlainLoginModule"
	jaasScram  = "org.apache.kafka.common.security.scram.ScramLoginModule"
	jaasOAuth  = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule"
	jaasAWSIAM = "software.amazon.msk.auth.iam.IAMLoginModule"
)

// ParseJAAS parses a Kafka sasl.jaas.config value:
//
//	ModuleClass required key="value" key2=word;
//
// Exactly one module, as Kafka requires. Quoted values take backslash
// escapes. Errors never include option values.
func ParseJAAS(s string) (JAAS, error) {
	toks, err := jaasTokens(s)
	if err != nil {
		return JAAS{}, err
	}
	var j JAAS
	if len(toks) == 0 {
		return j, errors.New("empty: expected `LoginModuleClass required key=\"value\" ...;`")
	}
	if toks[0].quoted || toks[0].text == ";" || toks[0].text == "=" {
		return j, errors.New("must start with a login module class name")
	}
	j.Module = toks[0].text
	if len(toks) < 2 || toks[1].quoted {
		return j, errors.New("missing control flag after the login module (required, requisite, sufficient or optional)")
	}
	switch f := strings.ToLower(toks[1].text); f {
	case "required", "requisite", "sufficient", "optional":
		j.Flag = f
	default:
		return j, errors.New("missing control flag after the login module (required, requisite, sufficient or optional)")
	}
	j.Options = map[string]string{}
	i := 2
	prev := "" // the option before the current one
	for {
		if i >= len(toks) {
			return j, errors.New("missing ';' at the end")
		}
		if !toks[i].quoted && toks[i].text == ";" {
			i++
			break
		}
		if toks[i].quoted || toks[i].text == "=" {
			return j, errors.New("expected an option name")
		}
		name := toks[i].text
		// An option is named in an error by its place, never by its
		// text: a word with no =value may be a secret typed without its
		// key (password=... lost its "password="), and text right after a
		// closing quote may be the rest of a mistyped one ("pa"ss"word").
		shown := fmt.Sprintf("%d (the first)", len(j.Options)+1)
		if prev != "" {
			shown = fmt.Sprintf("%d (the one after %s)", len(j.Options)+1, quoteKey(prev))
		}
		if i+2 >= len(toks) || toks[i+1].quoted || toks[i+1].text != "=" {
			return j, fmt.Errorf("option %s has no `=value`", shown)
		}
		val := toks[i+2]
		if !val.quoted && (val.text == ";" || val.text == "=") {
			return j, fmt.Errorf("option %s has no value", shown)
		}
		j.Options[name] = val.text
		if toks[i].glued {
			if j.glued == nil {
				j.glued = map[string]bool{}
			}
			j.glued[name] = true
		}
		prev = name
		i += 3
	}
	if i != len(toks) {
		return j, errors.New("holds more than one login module; Kafka clients take exactly one")
	}
	return j, nil
}

type jaasToken struct {
	text   string
	quoted bool
	// glued: a bare word that starts right after a quoted value's
	// closing quote, with no space between.
	glued bool
}

func jaasTokens(s string) ([]jaasToken, error) {
	var out []jaasToken
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			i++
		case c == ';' || c == '=':
			out = append(out, jaasToken{text: string(c)})
			i++
		case c == '"':
			var b strings.Builder
			i++
			closed := false
			for i < len(s) {
				c := s[i]
				if c == '"' {
					closed = true
					i++
					break
				}
				if c == '\\' && i+1 < len(s) {
					i++
					switch s[i] {
					case 'n':
						b.WriteByte('\n')
					case 't':
						b.WriteByte('\t')
					case 'r':
						b.WriteByte('\r')
					default:
						b.WriteByte(s[i])
					}
					i++
					continue
				}
				b.WriteByte(c)
				i++
			}
			if !closed {
				return nil, errors.New("a quoted value is not closed")
			}
			out = append(out, jaasToken{text: b.String(), quoted: true})
		default:
			j := i
			for j < len(s) && !strings.ContainsRune(" \t\n\r\f;=\"", rune(s[j])) {
				j++
			}
			glued := len(out) > 0 && out[len(out)-1].quoted && s[i-1] == '"'
			out = append(out, jaasToken{text: s[i:j], glued: glued})
			i = j
		}
	}
	return out, nil
}

// apply copies what the module says into a; unsupported modules and
// options are named in the error.
func (j JAAS) apply(a *SASLSettings) error {
	opts := func(allowed ...string) error {
		var bad []string
		hidden := 0
		for k := range j.Options {
			ok := false
			for _, al := range allowed {
				if k == al {
					ok = true
				}
			}
			switch {
			case ok:
			case j.glued[k]:
				hidden++ // maybe part of a secret: counted, not shown
			default:
				bad = append(bad, k)
			}
		}
		sort.Strings(bad)
		if hidden > 0 {
			bad = append(bad, fmt.Sprintf("%d written right after a closing quote (not shown: it may be the rest of a value with a quote in it, which must be escaped as \\\")", hidden))
		}
		if len(bad) > 0 {
			return fmt.Errorf("option(s) %s of %s are not supported", strings.Join(bad, ", "), shortModule(j.Module))
		}
		return nil
	}
	switch j.Module {
	case jaasPlain, jaasScram:
		if err := opts("username", "password"); err != nil {
			return err
		}
		a.User = j.Options["username"]
		if pw, ok := j.Options["password"]; ok {
			a.Password = Secret(pw)
		}
		if a.Mechanism == "" {
			if j.Module == jaasPlain {
				a.Mechanism = MechPlain
			}
		}
	case jaasOAuth:
		// Tokens come from --sasl-token-file or KAFKA_SASL_TOKEN; Java's
		// unsecured-token and token-endpoint options do not apply.
		if err := opts(); err != nil {
			return err
		}
	case jaasAWSIAM:
		if err := opts(); err != nil {
			return fmt.Errorf("%w (credentials come from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN)", err)
		}
	case "com.sun.security.auth.module.Krb5LoginModule":
		return errors.New("Krb5LoginModule (GSSAPI/Kerberos) is not supported")
	default:
		return errors.New("the login module is not supported (PlainLoginModule, ScramLoginModule, OAuthBearerLoginModule, IAMLoginModule are)")
	}
	return nil
}

func shortModule(m string) string {
	if i := strings.LastIndexByte(m, '.'); i >= 0 {
		return m[i+1:]
	}
	return m
}
