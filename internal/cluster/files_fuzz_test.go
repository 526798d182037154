package cluster

import (
	"crypto/x509"
	"strings"
	"testing"
)

// FuzzTLSFiles: --tls-ca, --tls-cert and --tls-key (and ssl.* PEM values
// from a properties file) are parsed from whatever bytes the files hold.
// Nothing panics, and an error never echoes the key file's bytes.
func FuzzTLSFiles(f *testing.F) {
	f.Add([]byte("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"), []byte("-----BEGIN PRIVATE KEY-----\nS3CR3TKEYBYTES\n-----END PRIVATE KEY-----\n"))
	f.Add([]byte(""), []byte("-----BEGIN ENCRYPTED PRIVATE KEY-----\nS3CR3TKEYBYTES\n-----END ENCRYPTED PRIVATE KEY-----\n"))
	f.Add([]byte("not pem"), []byte("Proc-Type: 4,ENCRYPTED\nS3CR3TKEYBYTES"))
	f.Fuzz(func(t *testing.T, ca, key []byte) {
		_ = addPEMCerts(x509.NewCertPool(), ca)
		_ = normalizePEM(string(ca))
		_ = encryptedPEM(key)
		files := map[string][]byte{"/ca": ca, "/cert": ca, "/key": key}
		env := Env{Getenv: func(string) string { return "" }, ReadFile: func(p string) ([]byte, error) { return files[p], nil }}
		on := true
		_, _, err := TLSSettings{Enabled: &on, CAFile: "/ca", CertFile: "/cert", KeyFile: "/key"}.build(env)
		if err != nil && strings.Contains(string(key), "S3CR3TKEYBYTES") && strings.Contains(err.Error(), "S3CR3TKEYBYTES") {
			t.Fatalf("the error echoes the key: %v", err)
		}
	})
}

// FuzzSecretFile: --sasl-password-file and --sasl-token-file hold any
// bytes. The password is the file's first line, without a CR or a leading
// byte order mark; an empty one is an error, and no error ever holds it.
func FuzzSecretFile(f *testing.F) {
	for _, s := range []string{"hunter2\n", "hunter2\r\n", "", "\n", "pa ss\nsecond line\n", "\x00\xff", "\uFEFFpw\n", "\npw\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, content string) {
		env := Env{Getenv: func(string) string { return "" }, ReadFile: func(string) ([]byte, error) { return []byte(content), nil }}
		v, err := resolveSecret(env, "", "/pw", "", "", EnvPassword, "password", "", "howto")
		want, _, _ := strings.Cut(strings.TrimPrefix(content, utf8BOM), "\n")
		want = strings.TrimRight(want, "\r\n")
		if want == "" {
			if err == nil {
				t.Fatalf("empty secret %q accepted", content)
			}
			return
		}
		if err != nil || v != want {
			t.Fatalf("secret %q: got %q, %v", content, v, err)
		}
	})
}
