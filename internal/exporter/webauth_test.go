package exporter

import (
	"fmt"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
	"golang.org/x/crypto/bcrypt"
)

func TestParseBasicAuth(t *testing.T) {
	hash, err := bcrypt.GenerateFromPassword([]byte("s3cret-pw"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	good := "# scrapers\nprom:" + string(hash) + "\n\n"
	a, err := ParseBasicAuth([]byte(good))
	if err != nil || len(a) != 1 || a["prom"] == nil {
		t.Fatalf("ParseBasicAuth(good) = %v, %v", a, err)
	}
	for _, tc := range []struct{ name, in, want string }{
		{"empty", "", "no USER:BCRYPT-HASH line"},
		{"plain password", "prom:s3cret-pw\n", "line 1: the password is not a bcrypt hash"},
		{"no colon", "# c\nprom\n", "line 2: want USER:BCRYPT-HASH"},
		{"empty user", ":" + string(hash), "line 1: want USER:BCRYPT-HASH"},
		{"repeated user", "prom:" + string(hash) + "\nprom:" + string(hash), "line 2: user repeated"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseBasicAuth([]byte(tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "s3cret") {
				t.Errorf("error echoes the password: %v", err)
			}
		})
	}
	big := strings.Repeat("x", maxAuthFile+1)
	if _, err := ParseBasicAuth([]byte(big)); err == nil {
		t.Error("an over-large file was accepted")
	}
}

// costHash is a syntactically valid bcrypt hash of the given cost (bcrypt
// itself would take hours to make one of cost 31).
func costHash(cost int) string {
	return fmt.Sprintf("$2y$%02d$", cost) + strings.Repeat("A", 53)
}

// A hash above MaxBcryptCost is refused, in a web config and in the older
// htpasswd file, naming the user or line and never the hash; one of cost
// 10 (the toolkit's hash for unknown users) passes without a warning, any
// other cost is listed for one.
func TestWebUsersCost(t *testing.T) {
	for _, cost := range []int{15, 31} {
		data := "basic_auth_users:\n  prom: " + costHash(cost) + "\n"
		_, err := WebUsers([]byte(data))
		want := fmt.Sprintf(`user "prom": bcrypt cost %d is over 14`, cost)
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "AAAA") {
			t.Errorf("cost %d: err = %v, want %q", cost, err, want)
		}
		_, err = ParseBasicAuth([]byte("# x\nprom:" + costHash(cost) + "\n"))
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("line 2: bcrypt cost %d is over 14", cost)) {
			t.Errorf("htpasswd cost %d: err = %v", cost, err)
		}
	}
	info, err := WebUsers([]byte("tls_server_config:\n  cert_file: a.crt\n  key_file: a.key\nbasic_auth_users:\n  b: " + costHash(14) + "\n  a: " + costHash(10) + "\n  c: " + costHash(5) + "\n"))
	if err != nil || !info.TLS || strings.Join(info.OtherCost, ",") != "b,c" {
		t.Errorf("WebUsers = %+v, %v; want TLS and other costs b,c", info, err)
	}
	if _, err := WebUsers([]byte("basic_auth_users:\n  prom: hunter2\n")); err == nil || !strings.Contains(err.Error(), "not a bcrypt hash") || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("plain password: %v", err)
	}
	if _, err := WebUsers([]byte("basic_auth_users: [x")); err == nil || !strings.Contains(err.Error(), "not a YAML web config") {
		t.Errorf("bad YAML: %v", err)
	}
	if info, err := WebUsers(nil); err != nil || info.TLS || info.OtherCost != nil {
		t.Errorf("empty config: %+v, %v", info, err)
	}
}

// The older flags become the web config the toolkit reads back: the same
// users and hashes, the certificate paths; nothing for what was not given.
func TestLegacyWebConfig(t *testing.T) {
	h := costHash(10)
	data, err := LegacyWebConfig("/x/web.crt", "/x/web.key", BasicAuth{"prom": []byte(h), "o'dd: user": []byte(h)})
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		TLS struct {
			Cert string `yaml:"cert_file"`
			Key  string `yaml:"key_file"`
		} `yaml:"tls_server_config"`
		Users map[string]string `yaml:"basic_auth_users"`
	}
	if err := yaml.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	if c.TLS.Cert != "/x/web.crt" || c.TLS.Key != "/x/web.key" || len(c.Users) != 2 || c.Users["prom"] != h || c.Users["o'dd: user"] != h {
		t.Errorf("round trip: %+v from\n%s", c, data)
	}
	data, _ = LegacyWebConfig("", "", nil)
	if strings.TrimSpace(string(data)) != "{}" {
		t.Errorf("no flags: %q, want {}", data)
	}
}

func FuzzWebUsers(f *testing.F) {
	f.Add([]byte("basic_auth_users:\n  prom: " + costHash(10) + "\n"))
	f.Add([]byte("tls_server_config:\n  cert: x\n"))
	f.Add([]byte("basic_auth_users: {a: b}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		info, err := WebUsers(data)
		if err != nil {
			// No password (a hash, "$2..." for bcrypt) is echoed. A user
			// name is, quoted, and may itself hold "$2" (the fuzzer's
			// user "$2" with no password): only a password that is not
			// part of a user name can be told apart in the error.
			var c struct {
				Users map[string]string `yaml:"basic_auth_users"`
			}
			if yaml.Unmarshal(data, &c) != nil {
				if strings.Contains(err.Error(), "$2") {
					t.Fatalf("error echoes a hash: %v", err)
				}
				return
			}
			for user, pass := range c.Users {
				if len(pass) >= 2 && !strings.Contains(user, pass) && strings.Contains(err.Error(), pass) && strings.HasPrefix(pass, "$2") {
					t.Fatalf("error echoes the hash of user %q: %v", user, err)
				}
			}
			return
		}
		// Accepted: the other-cost users are sorted, each once, and each
		// one's hash is bcrypt of an allowed cost other than 10.
		var c struct {
			Users map[string]string `yaml:"basic_auth_users"`
		}
		if err := yaml.Unmarshal(data, &c); err != nil {
			t.Fatalf("accepted but not YAML: %v", err)
		}
		for i, u := range info.OtherCost {
			if i > 0 && info.OtherCost[i-1] >= u {
				t.Fatalf("other-cost users not sorted and unique: %q", info.OtherCost)
			}
			cost, err := bcrypt.Cost([]byte(c.Users[u]))
			if err != nil || cost == ToolkitUnknownUserCost || cost > MaxBcryptCost {
				t.Fatalf("user %q listed with cost %d, %v", u, cost, err)
			}
		}
	})
}

func FuzzParseBasicAuth(f *testing.F) {
	hash, _ := bcrypt.GenerateFromPassword([]byte("pw"), bcrypt.MinCost)
	f.Add([]byte("prom:" + string(hash)))
	f.Add([]byte("# x\n\nprom:pw\n"))
	f.Add([]byte(":::\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := ParseBasicAuth(data)
		if err == nil && len(a) == 0 {
			t.Fatal("no error and no user")
		}
		for u, h := range a {
			if u == "" {
				t.Fatal("empty user accepted")
			}
			if _, err := bcrypt.Cost(h); err != nil {
				t.Fatalf("non-bcrypt hash accepted for %q", u)
			}
		}
	})
}
