package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSecureResetTxnACLDenied (issue 9 item 3) on Apache Kafka 4.4 with
// StandardAuthorizer (scripts/kafka-secure.sh): a SCRAM user whom an ACL
// denies WRITE on the transactional ids offsetctl-reset-* runs reset
// --execute. The broker answers InitProducerId with
// TRANSACTIONAL_ID_AUTHORIZATION_FAILED: exit 1, one line naming the
// missing permission and offering --non-atomic, no backup, the group's
// offsets unchanged when read again; the same user's --non-atomic reset
// then applies (its plain OffsetCommit needs no transactional id).
func TestSecureResetTxnACLDenied(t *testing.T) {
	b := needSecureBroker(t)
	user, pwFile := os.Getenv("OFFSETCTL_SECURE_DENIED_USER"), os.Getenv("OFFSETCTL_SECURE_DENIED_PASSWORD_FILE")
	if user == "" || pwFile == "" {
		t.Skip("needs the secure broker of this scripts/kafka-secure.sh, with a user denied a transactional id (OFFSETCTL_SECURE_DENIED_USER)")
	}
	topic, group := b.fixture(t)
	as := []string{"-b", b.saslSSL, "--tls-ca", b.ca, "--sasl-mechanism", "SCRAM-SHA-512", "--sasl-user", user, "--sasl-password-file", pwFile}
	backup := filepath.Join(t.TempDir(), "b.csv")
	r := guarded(t, nil, append(as, "reset", group, "--topic", topic, "--to", "earliest", "--execute", "--backup", backup, "--timeout", "20s")...)
	if r.code != 1 || r.stdout != "" {
		t.Fatalf("exit %d, want 1 and no stdout\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	assertOneLine(t, r, "")
	want := fmt.Sprintf("the principal lacks WRITE on TransactionalId %q", "offsetctl-reset-"+group)
	if !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "nothing changed") || !strings.Contains(r.stderr, "--non-atomic") {
		t.Fatalf("stderr = %q, want %q, nothing changed and --non-atomic", r.stderr, want)
	}
	if _, err := os.Stat(backup); err == nil {
		t.Fatal("a backup was written although nothing could change")
	}
	if got := b.c.Committed(group)[topic]; fmt.Sprint(got) != "map[0:4 1:6 2:10]" {
		t.Fatalf("committed = %v, want unchanged map[0:4 1:6 2:10]", got)
	}
	r = guarded(t, nil, append(as, "reset", group, "--topic", topic, "--to", "earliest", "--execute", "--non-atomic", "--backup", backup, "--timeout", "20s")...)
	if r.code != 0 {
		t.Fatalf("--non-atomic: exit %d\n%s", r.code, r.stderr)
	}
	if got := b.c.Committed(group)[topic]; fmt.Sprint(got) != "map[0:0 1:0 2:0]" {
		t.Fatalf("after --non-atomic: %v", got)
	}
}
