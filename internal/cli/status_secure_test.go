package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/offsetctl/offsetctl/internal/lag"
)

// TestSecureLagStatusSampled (issue 23) on Apache Kafka 4.4 with
// StandardAuthorizer (scripts/kafka-secure.sh): a SCRAM user denied
// DESCRIBE and READ on __consumer_offsets (as in managed Kafka) runs lag
// --status. The offsets topic cannot be read, so the committed offsets are
// sampled twice instead, said on stderr and as status_source sample; the
// groups scripted between the samples get their status (a rewind by an
// audited offsetctl reset is OK and named). --status-source offsets-topic
// fails (exit 1) saying the topic cannot be read and what to grant, and
// so does lag --watch --status with it, at its first round.
func TestSecureLagStatusSampled(t *testing.T) {
	b := needSecureBroker(t)
	user, pwFile := os.Getenv("OFFSETCTL_SECURE_DENIED_USER"), os.Getenv("OFFSETCTL_SECURE_DENIED_PASSWORD_FILE")
	if user == "" || pwFile == "" {
		t.Skip("needs the secure broker of this scripts/kafka-secure.sh, with a user denied __consumer_offsets (OFFSETCTL_SECURE_DENIED_USER)")
	}
	as := []string{"-b", b.saslSSL, "--tls-ca", b.ca, "--sasl-mechanism", "SCRAM-SHA-512", "--sasl-user", user, "--sasl-password-file", pwFile}
	s := newStatusGroups(t, b.c)
	groups := []string{s.gaining, s.behind, s.stopped, s.rewound, s.idle, s.reset}
	r := secureStatusRun(t, s.between(t, b.c), append(as, append([]string{"lag", "--status", "--sample", "7s", "-o", "json", "--timeout", "20s"}, groups...)...)...)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "the offsets topic cannot be read") || !strings.Contains(r.stderr, "TOPIC_AUTHORIZATION_FAILED") || !strings.Contains(r.stderr, "sampling the committed offsets twice, 7s apart") {
		t.Errorf("stderr does not say why sampling was used:\n%s", r.stderr)
	}
	var rep lag.LagReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{s.gaining: "OK", s.behind: "WARN", s.stopped: "STOP", s.rewound: "REWIND", s.idle: "OK", s.reset: "OK"}
	if len(rep.Groups) != len(groups) {
		t.Fatalf("%d groups, want %d", len(rep.Groups), len(groups))
	}
	for _, g := range rep.Groups {
		p := g.Partitions[0]
		if g.Status != want[g.Group] || p.Status != want[g.Group] || g.StatusSource != "sample" {
			t.Errorf("%s: %s/%s from %q: %q; want %s from sample", g.Group, g.Status, p.Status, g.StatusSource, p.StatusReason, want[g.Group])
		}
		if g.Group == s.reset && !strings.Contains(p.StatusReason, " by offsetctl reset (audit ") {
			t.Errorf("the reset is not named: %q", p.StatusReason)
		}
	}
	const hint = "grant Describe and Read on __consumer_offsets, or use --status-source sample"
	r = secureStatusRun(t, func() {}, append(as, "lag", "--status", "--status-source", "offsets-topic", "--timeout", "20s", s.stopped)...)
	if r.code != 1 || !strings.Contains(r.stderr, "the offsets topic cannot be read") || !strings.Contains(r.stderr, hint) {
		t.Errorf("--status-source offsets-topic: exit %d, want 1\n%s", r.code, r.stderr)
	}
	// With --watch: the same line at the first round, exit 1, nothing on
	// stdout (it went on with failed rounds until Ctrl-C).
	var out, errb bytes.Buffer
	a := &app{stdout: &out, stderr: &errb, stdin: strings.NewReader(""), getenv: testEnv(t, nil), now: time.Now}
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	code := a.execute(ctx, append(as, "lag", "--watch", "1s", "--status", "--status-source", "offsets-topic", "--timeout", "20s", "-o", "json", s.stopped))
	lines := strings.Split(strings.TrimSpace(errb.String()), "\n")
	if ctx.Err() != nil || code != 1 || len(lines) != 1 || !strings.Contains(lines[0], "TOPIC_AUTHORIZATION_FAILED") || !strings.Contains(lines[0], hint) || out.Len() != 0 {
		t.Errorf("lag --watch --status-source offsets-topic: exit %d (stopped by the test's deadline: %v), stdout %q\n%s", code, ctx.Err() != nil, out.String(), errb.String())
	}
}

// secureStatusRun is statusRun with its own connection flags in args.
func secureStatusRun(t *testing.T, between func(), args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	a := &app{stdout: &out, stderr: &errb, stdin: strings.NewReader(""), getenv: testEnv(t, nil), now: time.Now,
		sleep: func(ctx context.Context, d time.Duration) error {
			between()
			return ctx.Err()
		}}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	code := a.execute(ctx, args)
	return result{stdout: out.String(), stderr: errb.String(), code: code}
}
