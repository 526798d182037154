package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// runEnv runs offsetctl with an environment (no cluster: every case here
// fails before connecting).
func runEnv(t *testing.T, env map[string]string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out, errb bytes.Buffer
	a := &app{stdout: &out, stderr: &errb, stdin: strings.NewReader(""), getenv: func(k string) string { return env[k] }, now: time.Now}
	code := a.execute(ctx, append([]string{"--brokers", "127.0.0.1:1"}, args...))
	return result{stdout: out.String(), stderr: errb.String(), code: code}
}

// TestEndlessAndBlockingFilesRefused points every file input at /dev/zero
// (endless: memory grew at 0.5-1 GB/s until the OOM killer), at a FIFO
// with no writer (hung forever, --timeout did not apply) and at a
// directory: each is exit 2 with one line, within seconds although
// --timeout is 30s, and nothing is echoed but the shortened path.
func TestEndlessAndBlockingFilesRefused(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	cert := filepath.Join(dir, "cert.pem")
	if err := os.WriteFile(cert, []byte("not a certificate\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args func(p string) ([]string, map[string]string)
	}{
		{"--command-config", func(p string) ([]string, map[string]string) { return []string{"--command-config", p, "groups"}, nil }},
		{"--profile", func(p string) ([]string, map[string]string) {
			return []string{"--profile", "prod", "groups"}, map[string]string{"OFFSETCTL_CONFIG": p}
		}},
		{"--sasl-password-file", func(p string) ([]string, map[string]string) {
			return []string{"--sasl-mechanism", "PLAIN", "--sasl-user", "u", "--sasl-password-file", p, "groups"}, nil
		}},
		{"--sasl-token-file", func(p string) ([]string, map[string]string) {
			return []string{"--sasl-mechanism", "OAUTHBEARER", "--sasl-token-file", p, "groups"}, nil
		}},
		{"--tls-ca", func(p string) ([]string, map[string]string) { return []string{"--tls-ca", p, "groups"}, nil }},
		{"--tls-cert", func(p string) ([]string, map[string]string) {
			return []string{"--tls-cert", p, "--tls-key", cert, "groups"}, nil
		}},
		{"--tls-key", func(p string) ([]string, map[string]string) {
			return []string{"--tls-cert", cert, "--tls-key", p, "groups"}, nil
		}},
		{"reset --to file:", func(p string) ([]string, map[string]string) {
			return []string{"reset", "g", "--to", "file:" + p, "--all-topics"}, nil
		}},
		{"reset --from-file", func(p string) ([]string, map[string]string) {
			return []string{"reset", "g", "--from-file", p, "--all-topics"}, nil
		}},
		{"semantics count", func(p string) ([]string, map[string]string) { return []string{"semantics", "count", p}, nil }},
		{"exporter --web-basic-auth-file", func(p string) ([]string, map[string]string) {
			return []string{"exporter", "--listen", "127.0.0.1:0", "--web-basic-auth-file", p}, nil
		}},
	}
	for _, c := range cases {
		for _, p := range []string{"/dev/zero", fifo, dir} {
			args, env := c.args(p)
			start := time.Now()
			r := runEnv(t, env, args...)
			took := time.Since(start)
			if r.code != 2 || took > 5*time.Second || strings.Count(r.stderr, "\n") != 1 || r.stdout != "" {
				t.Errorf("%s %s: exit %d after %s, stdout %q, stderr %q", c.name, p, r.code, took.Round(time.Millisecond), r.stdout, r.stderr)
			}
		}
	}
}
