package exporter

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
	"golang.org/x/crypto/bcrypt"
)

// Serving (TLS, client certificates, HTTP/2, bcrypt basic auth with its
// cache of checked passwords) is github.com/prometheus/exporter-toolkit's
// web package, configured by the --web.config.file YAML every Prometheus
// exporter reads. This file adds what the toolkit leaves to its caller: a
// bound on the bcrypt cost, the timing note on costs other than the
// toolkit's, and the older --web-basic-auth-file format turned into a web
// config.

// MaxBcryptCost is the highest bcrypt cost a basic-auth hash may have.
// Checking a password costs 2^cost rounds: cost 14 is about a second on one
// core, cost 31 about 36 hours, so one unauthenticated request against a
// cost-31 hash would pin a core for good. (bcrypt itself accepts 4 to 31.)
const MaxBcryptCost = 14

// ToolkitUnknownUserCost is the cost of the fixed hash exporter-toolkit
// checks an unknown user's password against, so that an unknown user takes
// as long as a known one with a wrong password. That holds only for
// hashes of this cost: a known user whose hash has cost c answers
// 2^(c-10) times as fast or slow, which tells which user names exist.
const ToolkitUnknownUserCost = 10

// checkCost refuses a hash that is not bcrypt or is too costly to check.
func checkCost(hash []byte) (int, error) {
	cost, err := bcrypt.Cost(hash)
	if err != nil {
		return 0, errors.New("the password is not a bcrypt hash (make one with htpasswd -nbBC 10 USER PASSWORD)")
	}
	if cost > MaxBcryptCost {
		return cost, fmt.Errorf("bcrypt cost %d is over %d: checking one password would take hours and pin a core (make the hash with htpasswd -nbBC 10 USER PASSWORD)", cost, MaxBcryptCost)
	}
	return cost, nil
}

// WebConfigInfo is what WebUsers reads of a web config.
type WebConfigInfo struct {
	// TLS is whether tls_server_config names a certificate.
	TLS bool
	// OtherCost are the users whose hash cost is not
	// ToolkitUnknownUserCost, sorted, for a warning.
	OtherCost []string
}

// WebUsers checks the basic_auth_users of a web config file (its other
// keys are the toolkit's to check): every hash bcrypt and of cost at most
// MaxBcryptCost. Errors name the user, never the hash.
func WebUsers(data []byte) (WebConfigInfo, error) {
	var info WebConfigInfo
	if len(data) > maxAuthFile {
		return info, fmt.Errorf("larger than %d bytes", maxAuthFile)
	}
	var c struct {
		TLS struct {
			Cert     string `yaml:"cert"`
			CertFile string `yaml:"cert_file"`
		} `yaml:"tls_server_config"`
		Users map[string]string `yaml:"basic_auth_users"`
	}
	if err := yaml.Unmarshal(data, &c); err != nil {
		return info, errors.New("not a YAML web config (see exporter-toolkit's web-configuration docs)")
	}
	info.TLS = c.TLS.Cert != "" || c.TLS.CertFile != ""
	users := make([]string, 0, len(c.Users))
	for u := range c.Users {
		users = append(users, u)
	}
	sort.Strings(users)
	for _, u := range users {
		cost, err := checkCost([]byte(c.Users[u]))
		if err != nil {
			return WebConfigInfo{}, fmt.Errorf("basic_auth_users: user %q: %v", u, err)
		}
		if cost != ToolkitUnknownUserCost {
			info.OtherCost = append(info.OtherCost, u)
		}
	}
	return info, nil
}

// BasicAuth is the users of a --web-basic-auth-file, with bcrypt password
// hashes: the format `htpasswd -nbB USER PASSWORD` prints, one `user:hash`
// a line. No plain-text password is ever kept, so the file is not itself a
// secret worth stealing.
type BasicAuth map[string][]byte

// maxAuthFile bounds what ParseBasicAuth and WebUsers read.
const maxAuthFile = 1 << 20

// ParseBasicAuth reads a basic-auth file. Errors name the line, never any
// part of it (a misplaced password must not reach a log).
func ParseBasicAuth(data []byte) (BasicAuth, error) {
	if len(data) > maxAuthFile {
		return nil, fmt.Errorf("larger than %d bytes", maxAuthFile)
	}
	out := BasicAuth{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), maxAuthFile)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		user, hash, ok := strings.Cut(line, ":")
		if !ok || user == "" {
			return nil, fmt.Errorf("line %d: want USER:BCRYPT-HASH (as htpasswd -nbBC 10 prints)", n)
		}
		if _, err := checkCost([]byte(hash)); err != nil {
			return nil, fmt.Errorf("line %d: %v", n, err)
		}
		if _, dup := out[user]; dup {
			return nil, fmt.Errorf("line %d: user repeated", n)
		}
		out[user] = []byte(hash)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, errors.New("no USER:BCRYPT-HASH line")
	}
	return out, nil
}

// LegacyWebConfig is the web config YAML equivalent to the older flags
// --web-tls-cert/--web-tls-key (certFile and keyFile, absolute paths, both
// or neither) and --web-basic-auth-file (users, nil for none).
func LegacyWebConfig(certFile, keyFile string, users BasicAuth) ([]byte, error) {
	type tlsConf struct {
		Cert string `yaml:"cert_file"`
		Key  string `yaml:"key_file"`
	}
	var c struct {
		TLS   *tlsConf          `yaml:"tls_server_config,omitempty"`
		Users map[string]string `yaml:"basic_auth_users,omitempty"`
	}
	if certFile != "" {
		c.TLS = &tlsConf{Cert: certFile, Key: keyFile}
	}
	if len(users) > 0 {
		c.Users = make(map[string]string, len(users))
		for u, h := range users {
			c.Users[u] = string(h)
		}
	}
	return yaml.Marshal(&c)
}
