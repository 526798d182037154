package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/offsetctl/offsetctl/internal/health"
	"github.com/offsetctl/offsetctl/internal/lag"
	"github.com/offsetctl/offsetctl/internal/testkit"
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
	r := secureStatusRun(t, s.between(t, b.c), append(as, append([]string{"lag", "--status", "--sample", "7s", "--window", "7s", "-o", "json", "--timeout", "20s"}, groups...)...)...)
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

// TestSecureLagWatchStatusRevoked (issue 23 QA, Apache Kafka 4.4 with
// StandardAuthorizer): lag --watch --status --status-source offsets-topic
// as a user allowed on __consumer_offsets reads it; a DENY of Describe and
// Read added mid-watch makes the rounds fail, each said on stderr with the
// ACL advice, and the watch goes on (the topic was read: only a first
// round ends it); once the DENY is gone, the rounds are judged from the
// offsets topic again. Ctrl-C ends it with exit 1, rounds having failed.
func TestSecureLagWatchStatusRevoked(t *testing.T) {
	b := needSecureBroker(t)
	as := []string{"-b", b.saslSSL, "--tls-ca", b.ca, "--sasl-mechanism", "SCRAM-SHA-512", "--sasl-user", b.user, "--sasl-password-file", b.passwordFile}
	topic := b.c.Topic(1, nil)
	b.c.Produce(topic, map[int32]int{0: 20}, time.Now())
	g := testkit.Name(t, "watch-revoked")
	b.c.Commit(g, topic, map[int32]int64{0: 10})
	adm := b.c.Admin()
	deny := func() *kadm.ACLBuilder {
		return kadm.NewACLs().Topics(health.OffsetsTopic).Deny("User:"+b.user).DenyHosts("*").
			Operations(kadm.OpDescribe, kadm.OpRead).ResourcePatternType(kadm.ACLPatternLiteral)
	}
	undeny := func() {
		res, err := adm.DeleteACLs(context.Background(), deny())
		for _, r := range res {
			if err == nil {
				err = r.Err
			}
		}
		if err != nil {
			t.Errorf("deleting the DENY: %v", err)
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out, errb, done := runInBackground(ctx, t, append(as, "lag", g, "--watch", "500ms", "--status", "--status-source", "offsets-topic", "--window", "5s", "--timeout", "10s", "-o", "json")...)
	judged := func() int { return strings.Count(out.String(), `"status_source":"offsets-topic"`) }
	const advice = "grant Describe and Read on __consumer_offsets, or use --status-source sample"
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(45 * time.Second); !ok(); {
			select {
			case code := <-done:
				t.Fatalf("the watch ended by itself (exit %d) waiting for %s\nstdout:\n%s\nstderr:\n%s", code, what, out.String(), errb.String())
			case <-time.After(100 * time.Millisecond):
			}
			if time.Now().After(deadline) {
				t.Fatalf("no %s in 45s\nstdout:\n%s\nstderr:\n%s", what, out.String(), errb.String())
			}
		}
	}
	waitFor("two judged rounds", func() bool { return judged() >= 2 })
	res, err := adm.CreateACLs(context.Background(), deny())
	for _, r := range res {
		if err == nil {
			err = r.Err
		}
	}
	if err != nil {
		t.Fatalf("adding the DENY: %v", err)
	}
	denied := true
	defer func() {
		if denied {
			undeny()
		}
	}()
	waitFor("failed round with the ACL advice", func() bool { return strings.Contains(errb.String(), advice) })
	undeny()
	denied = false
	before := judged()
	waitFor("judged round after the DENY went", func() bool { return judged() > before })
	cancel()
	code := <-done
	stderr := errb.String()
	if code != 1 || !strings.Contains(stderr, "watch round(s) failed; the last: --status-source offsets-topic: the offsets topic cannot be read") ||
		!strings.Contains(stderr, "TOPIC_AUTHORIZATION_FAILED") {
		t.Errorf("exit %d, want 1 with the failed rounds counted\n%s", code, stderr)
	}
	if !strings.Contains(out.String(), `"error":"--status-source offsets-topic: the offsets topic cannot be read`) {
		t.Errorf("no error line for the failed rounds on stdout:\n%s", out.String())
	}
}
