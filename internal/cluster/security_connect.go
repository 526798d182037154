package cluster

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"unicode"
	"unicode/utf8"
)

// Sources are every place connection settings come from, highest first:
// Flags, the CommandConfig properties file, the named Profile, the
// KAFKA_BROKERS environment variable, DefaultBrokers.
type Sources struct {
	Env
	Flags         Settings
	CommandConfig string // --command-config FILE
	Profile       string // --profile NAME
	// FallbackBrokers, when set, are used in place of KAFKA_BROKERS and
	// DefaultBrokers when no layer names brokers: the backfill target's
	// profile may give only credentials, its brokers being the source's.
	FallbackBrokers []string
}

// Connection is the resolved connection: brokers, client id, TLS and SASL,
// plus lines for stderr and the secrets that must never be printed.
type Connection struct {
	Brokers    []string
	ClientID   string
	AuditTopic string
	Security
	// Notes are informational (ignored harmless keys); Warnings are
	// about weakened security and are printed every time.
	Notes []string
}

// Connect merges the sources and resolves certificates and secrets.
// Every error is about input (a flag, file, profile or missing secret).
func Connect(src Sources) (Connection, error) {
	var conn Connection
	var layers []layer
	if src.Profile != "" {
		ps, err := LoadProfile(src.Env, src.Profile)
		if err != nil {
			return conn, err
		}
		layers = append(layers, layer{"--profile " + quoteKey(src.Profile), ps})
	}
	if src.CommandConfig != "" {
		b, err := src.ReadFile(src.CommandConfig)
		if err != nil {
			return conn, fmt.Errorf("--command-config: %s", unreadable(err))
		}
		props, err := ParseProperties(bytes.NewReader(b))
		if err != nil {
			return conn, fmt.Errorf("--command-config %s: %w", src.CommandConfig, err)
		}
		cs, notes, err := FromProperties(props)
		if err != nil {
			return conn, fmt.Errorf("--command-config %s: %w", src.CommandConfig, err)
		}
		for _, n := range notes {
			conn.Notes = append(conn.Notes, "--command-config: "+n)
		}
		layers = append(layers, layer{"--command-config", cs})
	}
	layers = append(layers, layer{"the flags", src.Flags})
	merged, err := mergeLayers(layers)
	if err != nil {
		return conn, err
	}
	for _, l := range layers {
		if l.s.tlsUnused != "" && !merged.TLSOn() {
			return conn, fmt.Errorf("--command-config %s: %s", src.CommandConfig, l.s.tlsUnused)
		}
	}
	// KAFKA_BROKERS ranks below every layer above: read it only when none
	// of them names brokers, so a stale variable cannot break a command
	// that says where to go.
	if len(merged.Brokers) == 0 && len(src.FallbackBrokers) > 0 {
		merged.Brokers = src.FallbackBrokers
	}
	if len(merged.Brokers) == 0 && src.Profile != "" {
		// A profile is a named cluster: one without brokers would send
		// its credentials to whatever KAFKA_BROKERS or localhost is.
		return conn, fmt.Errorf("--profile %s names no brokers: add brokers: to the profile, or give --brokers", quoteKey(src.Profile))
	}
	if len(merged.Brokers) == 0 {
		if b := src.Getenv("KAFKA_BROKERS"); b != "" {
			if err := merged.SetBrokers(b, "KAFKA_BROKERS"); err != nil {
				return conn, fmt.Errorf("KAFKA_BROKERS: %w", err)
			}
		} else {
			merged.Brokers = []string{DefaultBrokers}
		}
	}
	if err := checkListener(merged); err != nil {
		return conn, err
	}
	if err := CheckClientID(merged.ClientID); err != nil {
		// Where it came from: a flag, the properties file or a profile.
		return conn, fmt.Errorf("%w (client.id in --command-config, client_id in the profile, or --client-id)", err)
	}
	sec, err := merged.Resolve(src.Env)
	if err != nil {
		return conn, err
	}
	conn.Brokers, conn.ClientID, conn.Security = merged.Brokers, merged.ClientID, sec
	conn.AuditTopic = merged.AuditTopic
	return conn, nil
}

// layer is one source of settings and its name for messages.
type layer struct {
	name string
	s    Settings
}

// mergeLayers merges layers, lowest first, refusing what a field-by-field
// merge would silently get wrong.
func mergeLayers(layers []layer) (Settings, error) {
	var merged Settings
	pwFrom := ""  // the layer the password in merged comes from
	tlsFrom := "" // the layer that turned TLS on
	for _, l := range layers {
		if err := checkUserPassword(merged, pwFrom, l); err != nil {
			return merged, err
		}
		if a := l.s.SASL; a.Password != "" || a.PasswordFile != "" || a.PasswordEnv != "" {
			pwFrom = l.name
		}
		// TLS turned off explicitly over a layer that turned it on is
		// a contradiction, not a precedence: --tls=false beside
		// security.protocol=SASL_SSL left TLS on, and either reading
		// is a guess at what the operator meant.
		if e := l.s.TLS.Enabled; e != nil && !*e && merged.TLSOn() {
			off := l.name
			if off == "the flags" {
				off = "--tls=false"
			}
			return merged, fmt.Errorf("%s turns TLS off, but %s turns it on: the settings contradict each other; leave one of them out", off, tlsFrom)
		}
		if e := l.s.TLS.Enabled; e != nil && *e {
			tlsFrom = l.name
		}
		merged = merged.Merge(l.s)
	}
	return merged, nil
}

// checkUserPassword refuses a layer that names another user than the
// password of a lower layer is for, without giving a password of its own:
// the merge would send that password as the new user's (alice's password
// from sasl.jaas.config sent for --sasl-user bob).
func checkUserPassword(merged Settings, pwFrom string, l layer) error {
	a := l.s.SASL
	if a.User == "" || pwFrom == "" || merged.SASL.User == "" || merged.SASL.User == a.User {
		return nil
	}
	if a.Password != "" || a.PasswordFile != "" || a.PasswordEnv != "" {
		return nil
	}
	user := l.name
	if l.name == "the flags" {
		user = "--sasl-user"
	}
	return fmt.Errorf("%s names another SASL user than the one the password from %s is for: give that user's password too (--sasl-password-file), or leave %s out", user, pwFrom, user)
}

// MaxClientID bounds the client id offsetctl sends. The protocol would
// carry 32,767 bytes, but a broker registers the id in its request and
// quota metric names and logs it with every request: a client id far
// longer than any name (issue 11 measured connections failing above 256)
// is a mistake, refused before connecting.
const MaxClientID = 256

// CheckClientID refuses a client id over MaxClientID bytes, or one that
// is not text without control characters (a control character such as ESC
// or a line break, a bidi override, invalid UTF-8), naming what is wrong,
// never the value: the broker writes the id raw into its request log and
// metric names, where an ESC repaints the terminal of whoever reads them,
// as --transactional-id-prefix is refused for.
func CheckClientID(id string) error {
	if len(id) > MaxClientID {
		return fmt.Errorf("the client id is %d bytes long; the limit is %d", len(id), MaxClientID)
	}
	if !utf8.ValidString(id) {
		return errors.New("the client id must be UTF-8 text with no control characters")
	}
	for _, r := range id {
		// Control characters (ESC, a line break) and format characters
		// (a bidi override) are what would land raw in a broker's logs.
		// Blanks and quotes are kept, as Kafka's Java clients keep
		// them from a properties file ("client.id=billing " included).
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return errors.New("the client id must be UTF-8 text with no control characters")
		}
	}
	return nil
}

// LoadProfile reads the profiles file and returns the named profile as a
// settings layer.
func LoadProfile(env Env, name string) (Settings, error) {
	path := ProfilesPath(env.Getenv)
	if path == "" {
		return Settings{}, fmt.Errorf("--profile %s: no profiles file: set %s or HOME", quoteKey(name), EnvConfig)
	}
	b, err := env.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Settings{}, fmt.Errorf("--profile %s: no profiles file at %s", quoteKey(name), path)
	}
	if err != nil {
		return Settings{}, fmt.Errorf("--profile %s: %w", quoteKey(name), err)
	}
	ps, err := ParseProfiles(bytes.NewReader(b))
	if err != nil {
		return Settings{}, fmt.Errorf("profiles file %s: %w", path, err)
	}
	p, ok := ps[name]
	if !ok {
		names := ProfileNames(ps)
		if len(names) == 0 {
			return Settings{}, fmt.Errorf("--profile %s: %s defines no profiles", quoteKey(name), path)
		}
		return Settings{}, fmt.Errorf("--profile %s: not in %s (profiles: %s)", quoteKey(name), path, joinComma(names))
	}
	s, err := p.Settings(name, filepath.Dir(path), env.Getenv("HOME"))
	if err != nil {
		return s, fmt.Errorf("profiles file %s: %w", path, err)
	}
	return s, nil
}

func joinComma(s []string) string {
	out := ""
	for i, v := range s {
		if i > 0 {
			out += ", "
		}
		out += v
	}
	return out
}
