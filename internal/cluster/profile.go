package cluster

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// EnvConfig names the profiles file, overriding the default location.
const EnvConfig = "OFFSETCTL_CONFIG"

// ProfilesPath is where the profiles file is: $OFFSETCTL_CONFIG, else
// $XDG_CONFIG_HOME/offsetctl/config.yaml, else ~/.config/offsetctl/config.yaml.
// "" when none of those variables is set.
func ProfilesPath(getenv func(string) string) string {
	if p := getenv(EnvConfig); p != "" {
		return p
	}
	if x := getenv("XDG_CONFIG_HOME"); x != "" {
		return filepath.Join(x, "offsetctl", "config.yaml")
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".config", "offsetctl", "config.yaml")
	}
	return ""
}

// profileFile is the YAML layout:
//
//	profiles:
//	  prod:
//	    brokers: [kafka-1:9093, kafka-2:9093]   # or "a:9093,b:9093"
//	    client_id: offsetctl-sre
//	    tls: {ca: ca.pem, cert: client.pem, key: client.key, server_name: kafka.internal}
//	    sasl: {mechanism: scram-sha-512, user: alice, password_file: ~/.kafka/prod.pw}
type profileFile struct {
	Profiles map[string]*Profile `yaml:"profiles"`
}

// Profile is one named cluster. It never holds a password: only where to
// find one (password_file, password_env).
type Profile struct {
	Brokers  brokerList   `yaml:"brokers"`
	ClientID string       `yaml:"client_id"`
	TLS      *profileTLS  `yaml:"tls"`
	SASL     *profileSASL `yaml:"sasl"`
	// AuditTopic is the topic of the shared audit trail (docs/audit.md).
	AuditTopic string `yaml:"audit_topic"`

	// node is the profile's mapping in the file, for the lines of
	// Settings' errors; nil for a Profile not read by ParseProfiles.
	node *yaml.Node
}

type profileTLS struct {
	Enabled            *bool  `yaml:"enabled"`
	CA                 string `yaml:"ca"`
	Cert               string `yaml:"cert"`
	Key                string `yaml:"key"`
	ServerName         string `yaml:"server_name"`
	InsecureSkipVerify *bool  `yaml:"insecure_skip_verify"`
}

type profileSASL struct {
	Mechanism    string `yaml:"mechanism"`
	User         string `yaml:"user"`
	PasswordFile string `yaml:"password_file"`
	PasswordEnv  string `yaml:"password_env"`
	TokenFile    string `yaml:"token_file"`
	TokenEnv     string `yaml:"token_env"`
	// Password and Token are here only to refuse them with a clear error.
	Password yaml.Node `yaml:"password"`
	Token    yaml.Node `yaml:"token"`
}

// brokerList accepts a YAML list or one comma-separated string.
type brokerList []string

func (b *brokerList) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		*b = brokerList{n.Value}
		return nil
	case yaml.SequenceNode:
		var out []string
		for _, c := range n.Content {
			if c.Kind != yaml.ScalarNode {
				return fmt.Errorf("line %d: brokers must be host:port strings", c.Line)
			}
			out = append(out, c.Value)
		}
		*b = out
		return nil
	}
	return fmt.Errorf("line %d: brokers must be a list or a comma-separated string", n.Line)
}

// maxProfilesSize bounds the profiles file.
const maxProfilesSize = 1 << 20

// ParseProfiles parses a profiles file. Unknown keys are errors (a typo
// must not silently drop TLS). Errors never echo values.
func ParseProfiles(r io.Reader) (map[string]*Profile, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxProfilesSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxProfilesSize {
		return nil, errors.New("larger than 1 MiB: not a profiles file")
	}
	var f profileFile
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		if errors.Is(err, io.EOF) {
			return map[string]*Profile{}, nil
		}
		return nil, scrubYAMLError(err)
	}
	for name, p := range f.Profiles {
		if p == nil {
			f.Profiles[name] = &Profile{}
			continue
		}
		if p.SASL != nil && p.SASL.Password.Kind != 0 {
			return nil, fmt.Errorf("%s: a plaintext password is not allowed in the profiles file; use password_file or password_env", atLine("profile "+quoteKey(name), p.SASL.Password.Line))
		}
		if p.SASL != nil && p.SASL.Token.Kind != 0 {
			return nil, fmt.Errorf("%s: a token is not allowed in the profiles file; use token_file or token_env", atLine("profile "+quoteKey(name), p.SASL.Token.Line))
		}
	}
	if f.Profiles == nil {
		f.Profiles = map[string]*Profile{}
	}
	// The same document again as nodes, for the lines of later errors
	// (bad broker address, SASL mechanism, ...).
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(data)).Decode(&doc); err == nil {
		attachNodes(&doc, f.Profiles)
	}
	return f.Profiles, nil
}

// attachNodes gives each profile its mapping node in doc.
func attachNodes(doc *yaml.Node, profiles map[string]*Profile) {
	root := doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	_, ps := mapGet(root, "profiles")
	eachPair(ps, func(k, v *yaml.Node) {
		if p := profiles[k.Value]; p != nil && p.node == nil {
			p.node = deref(v)
		}
	})
}

// deref follows an alias (*name) to its anchored node.
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 100; i++ {
		n = n.Alias
	}
	return n
}

// eachPair calls f for each key and value of mapping n, its own keys first
// and then those it merges (<<: *other), as the decoder gives them
// precedence.
func eachPair(n *yaml.Node, f func(k, v *yaml.Node)) {
	eachPairDepth(n, f, 0)
}

func eachPairDepth(n *yaml.Node, f func(k, v *yaml.Node), depth int) {
	n = deref(n)
	if n == nil || n.Kind != yaml.MappingNode || depth > 10 {
		return
	}
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.Value == "<<" && (k.Tag == "!!merge" || k.Tag == "") {
			merges = append(merges, v)
			continue
		}
		f(k, v)
	}
	for _, m := range merges {
		m = deref(m)
		if m != nil && m.Kind == yaml.SequenceNode {
			for _, c := range m.Content {
				eachPairDepth(c, f, depth+1)
			}
			continue
		}
		eachPairDepth(m, f, depth+1)
	}
}

// mapGet returns the key and value nodes of key in mapping n (merges
// included), or nils.
func mapGet(n *yaml.Node, key string) (k, v *yaml.Node) {
	eachPair(n, func(kn, vn *yaml.Node) {
		if k == nil && kn.Value == key {
			k, v = kn, vn
		}
	})
	return k, v
}

// line is the line of the key at path in the profile (of the deepest key
// found), 0 when unknown.
func (p *Profile) line(path ...string) int {
	n, line := p.node, 0
	if n != nil {
		line = n.Line
	}
	for _, key := range path {
		k, v := mapGet(n, key)
		if k == nil {
			break
		}
		n, line = v, k.Line
	}
	return line
}

// brokersLine is the line of the brokers entry that fails as err does
// (the first bad address), else of the brokers key.
func (p *Profile) brokersLine(err error) int {
	_, v := mapGet(p.node, "brokers")
	if v = deref(v); v != nil && v.Kind == yaml.SequenceNode {
		for _, c := range v.Content {
			if c = deref(c); c.Kind != yaml.ScalarNode {
				continue
			}
			if _, e := ParseBrokers(c.Value); e != nil && e.Error() == err.Error() {
				return c.Line
			}
		}
	}
	return p.line("brokers")
}

// atLine is where followed by the line in the profiles file, when known.
func atLine(where string, line int) string {
	if line > 0 {
		return fmt.Sprintf("%s: line %d", where, line)
	}
	return where
}

// scrubYAMLError keeps yaml's line numbers and reasons but never the
// values it quotes ("cannot unmarshal !!str `hunter2` into bool"), and says
// what belongs there in the file's own words instead of Go type names.
func scrubYAMLError(err error) error {
	var te *yaml.TypeError
	if errors.As(err, &te) {
		var lines []string
		for _, e := range te.Errors {
			lines = append(lines, explainYAML(e))
		}
		return errors.New(strings.Join(lines, "; "))
	}
	return errors.New(explainYAML(err.Error()))
}

// yamlPlaces names, for each Go type the decoder can report, the place in
// the profiles file and the keys it takes.
var yamlPlaces = []struct {
	goType, place string
	keys          any
}{
	{"map[string]*cluster.Profile", "profiles (a mapping of profile names)", nil},
	{"cluster.profileFile", "the top level (a mapping with one key, profiles)", profileFile{}},
	{"cluster.profileTLS", "tls (a mapping)", profileTLS{}},
	{"cluster.profileSASL", "sasl (a mapping)", profileSASL{}},
	{"cluster.Profile", "a profile (a mapping)", Profile{}},
	{"bool", "a true/false setting", nil},
	{"string", "a text setting", nil},
}

var yamlKinds = map[string]string{"!!str": "a string", "!!seq": "a list", "!!map": "a mapping", "!!int": "a number", "!!float": "a number", "!!bool": "true/false", "!!null": "an empty value", "!!timestamp": "a date"}

// explainYAML rewrites one yaml error line without any value from the
// file. yaml quotes a value between backticks, but the value itself may
// hold backticks or " into ", so a "cannot unmarshal" line is read by its
// ends only: the tag right after "cannot unmarshal " and the Go type after
// the last " into "; what is between is never printed. Other lines lose
// everything from their first backtick.
func explainYAML(line string) string {
	orig, prefix := line, ""
	line = strings.TrimPrefix(line, "yaml: ")
	if i := strings.Index(line, ": "); strings.HasPrefix(line, "line ") && i > 0 {
		prefix, line = line[:i+2], line[i+2:]
	}
	if rest, ok := strings.CutPrefix(line, "cannot unmarshal "); ok {
		i := strings.LastIndex(rest, " into ")
		if i < 0 {
			return cutAtBacktick(orig)
		}
		tag, _, _ := strings.Cut(rest[:i], " ")
		kind, ok := yamlKinds[tag]
		if !ok {
			kind = "a value" // a custom tag is the file's own text
		}
		goType := strings.TrimPrefix(rest[i+len(" into "):], "*")
		for _, p := range yamlPlaces {
			if p.goType == goType {
				return prefix + kind + " where " + p.place + " belongs" + knownKeys(p.keys)
			}
		}
		return prefix + kind + " is not allowed here"
	}
	if rest, ok := strings.CutPrefix(line, "field "); ok {
		if key, goType, ok := strings.Cut(rest, " not found in type "); ok {
			for _, p := range yamlPlaces {
				if p.goType == goType {
					place, _, _ := strings.Cut(p.place, " (")
					return prefix + "unknown key " + quoteKey(key) + " in " + place + knownKeys(p.keys)
				}
			}
			return prefix + "unknown key " + quoteKey(key)
		}
	}
	return cutAtBacktick(orig)
}

// cutAtBacktick drops a line from its first backtick, where yaml starts
// quoting a value.
func cutAtBacktick(s string) string {
	if i := strings.IndexByte(s, '`'); i >= 0 {
		return strings.TrimRight(s[:i], " :")
	}
	return s
}

// knownKeys lists the yaml keys of a struct value, for error messages.
func knownKeys(v any) string {
	if v == nil {
		return ""
	}
	t := reflect.TypeOf(v)
	var keys []string
	for i := 0; i < t.NumField(); i++ {
		k, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		if k != "" && k != "-" && k != "password" && k != "token" {
			keys = append(keys, k)
		}
	}
	return " (keys: " + strings.Join(keys, ", ") + ")"
}

// ProfileNames lists profile names, sorted.
func ProfileNames(ps map[string]*Profile) []string {
	names := make([]string, 0, len(ps))
	for n := range ps {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// emptyBlockHint says what to write instead of an empty tls: or sasl:.
var emptyBlockHint = map[string]string{
	"tls":  "write tls: {} for TLS with the system's CAs, tls: {enabled: false} for none, or remove the key",
	"sasl": "give its mechanism (sasl: {mechanism: scram-sha-512, ...}), or remove the key",
}

// isNull reports whether n is YAML's null (an empty value, ~ or null).
func isNull(n *yaml.Node) bool {
	n = deref(n)
	return n != nil && n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

// Settings turns a profile into a settings layer. Relative paths are
// relative to the profiles file's directory; a leading ~/ is home.
func (p *Profile) Settings(name, dir, home string) (Settings, error) {
	var s Settings
	path := func(f string) string {
		switch {
		case f == "":
			return ""
		case strings.HasPrefix(f, "~/") && home != "":
			return filepath.Join(home, f[2:])
		case filepath.IsAbs(f) || dir == "":
			return f
		}
		return filepath.Join(dir, f)
	}
	where := "profile " + quoteKey(name)
	if len(p.Brokers) > 0 {
		if err := s.SetBrokers(strings.Join(p.Brokers, ","), "brokers of "+where); err != nil {
			return s, fmt.Errorf("%s: brokers: %w", atLine(where, p.brokersLine(err)), WithoutValue(err))
		}
	}
	s.ClientID = p.ClientID
	s.AuditTopic = p.AuditTopic
	// A tls: or sasl: key with nothing after it decodes as no block at
	// all: the TLS or SASL the operator wrote would be silently off.
	for _, key := range []string{"tls", "sasl"} {
		if k, v := mapGet(p.node, key); k != nil && isNull(v) {
			return s, fmt.Errorf("%s: %s is empty, which would turn %s off: %s", atLine(where, k.Line), key, strings.ToUpper(key), emptyBlockHint[key])
		}
	}
	if t := p.TLS; t != nil && t.Enabled != nil && !*t.Enabled && (t.CA != "" || t.Cert != "" || t.Key != "" || t.ServerName != "" || t.InsecureSkipVerify != nil) {
		return s, fmt.Errorf("%s: tls.enabled is false, but the tls block sets other TLS settings: remove enabled: false to use TLS, or the other settings to go without", atLine(where, p.line("tls", "enabled")))
	}
	if t := p.TLS; t != nil {
		on := true
		s.TLS.Enabled = &on
		if t.Enabled != nil {
			s.TLS.Enabled = t.Enabled
		}
		s.TLS.CAFile = path(t.CA)
		s.TLS.CertFile, s.TLS.KeyFile = path(t.Cert), path(t.Key)
		s.TLS.ServerName = t.ServerName
		s.TLS.InsecureSkipVerify = t.InsecureSkipVerify
		if (t.Cert == "") != (t.Key == "") {
			given := "cert"
			if t.Cert == "" {
				given = "key"
			}
			return s, fmt.Errorf("%s: tls.cert and tls.key go together", atLine(where, p.line("tls", given)))
		}
	}
	if a := p.SASL; a != nil {
		// Source names the profile in later errors ("... asks for SASL
		// but names no mechanism").
		s.SASL.Source = where
		if l := p.line("sasl"); l > 0 {
			s.SASL.Source = fmt.Sprintf("%s (sasl, line %d)", where, l)
		}
		if a.Mechanism != "" {
			m, err := ParseMechanism(a.Mechanism)
			if err != nil {
				return s, fmt.Errorf("%s: sasl.mechanism: %w", atLine(where, p.line("sasl", "mechanism")), WithoutValue(err))
			}
			s.SASL.Mechanism = m
		} else {
			s.SASL.Required = true
		}
		s.SASL.User = a.User
		s.SASL.PasswordFile, s.SASL.PasswordEnv = path(a.PasswordFile), a.PasswordEnv
		s.SASL.TokenFile, s.SASL.TokenEnv = path(a.TokenFile), a.TokenEnv
		s.SASL.PasswordFileFrom, s.SASL.TokenFileFrom = where+": sasl.password_file", where+": sasl.token_file"
		if a.PasswordFile != "" && a.PasswordEnv != "" {
			return s, fmt.Errorf("%s: set only one of sasl.password_file and sasl.password_env", atLine(where, p.line("sasl", "password_env")))
		}
		if a.TokenFile != "" && a.TokenEnv != "" {
			return s, fmt.Errorf("%s: set only one of sasl.token_file and sasl.token_env", atLine(where, p.line("sasl", "token_env")))
		}
	}
	return s, nil
}
