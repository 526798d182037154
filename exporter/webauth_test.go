package exporter

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

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

func TestBasicAuthWrap(t *testing.T) {
	hash, _ := bcrypt.GenerateFromPassword([]byte("pw"), bcrypt.MinCost)
	a := BasicAuth{"prom": hash}
	h := a.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("metrics")) }))
	for _, tc := range []struct {
		name       string
		user, pass string
		set        bool
		code       int
	}{
		{"none", "", "", false, 401},
		{"wrong password", "prom", "nope", true, 401},
		{"unknown user", "root", "pw", true, 401},
		{"right", "prom", "pw", true, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest("GET", "/metrics", nil)
			if tc.set {
				req.SetBasicAuth(tc.user, tc.pass)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tc.code {
				t.Fatalf("code %d, want %d", rec.Code, tc.code)
			}
			if (rec.Body.String() == "metrics") != (tc.code == 200) {
				t.Errorf("body %q with code %d", rec.Body.String(), rec.Code)
			}
		})
	}
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
