package exporter

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"golang.org/x/crypto/bcrypt"
)

// BasicAuth is the users allowed to scrape, with bcrypt password hashes:
// the format `htpasswd -nbB USER PASSWORD` prints (and Prometheus exporters'
// web configs use), one `user:hash` a line. No plain-text password is ever
// kept, so the file is not itself a secret worth stealing.
type BasicAuth map[string][]byte

// maxAuthFile bounds what ParseBasicAuth reads.
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
			return nil, fmt.Errorf("line %d: want USER:BCRYPT-HASH (as htpasswd -nbB prints)", n)
		}
		if _, err := bcrypt.Cost([]byte(hash)); err != nil {
			return nil, fmt.Errorf("line %d: the password is not a bcrypt hash (make one with htpasswd -nbB USER PASSWORD)", n)
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

// Wrap returns h behind HTTP basic authentication.
func (a BasicAuth) Wrap(h http.Handler) http.Handler {
	// A fixed hash to compare against for unknown users, so the answer
	// takes as long whether or not the user exists.
	dummy, _ := bcrypt.GenerateFromPassword([]byte("offsetctl"), bcrypt.MinCost)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, pass, ok := r.BasicAuth()
		hash, known := a[user]
		if !known {
			hash = dummy
		}
		match := ok && bcrypt.CompareHashAndPassword(hash, []byte(pass)) == nil
		if !match || !known {
			w.Header().Set("WWW-Authenticate", `Basic realm="offsetctl exporter"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}
