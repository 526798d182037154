package cli

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// unsecuredJWT mints the alg=none token that Kafka's default OAUTHBEARER
// validator (OAuthBearerUnsecuredValidatorCallbackHandler) accepts: the
// principal in "sub", an expiry in "exp", and an empty signature.
func unsecuredJWT(sub string, iat, exp time.Time) string {
	enc := base64.RawURLEncoding.EncodeToString
	header := enc([]byte(`{"alg":"none"}`))
	claims := enc(fmt.Appendf(nil, `{"sub":%q,"iat":%d,"exp":%d}`, sub, iat.Unix(), exp.Unix()))
	return header + "." + claims + "."
}

// OAUTHBEARER against a real Apache Kafka broker: the token from the
// environment and from a file both authenticate and give the right lag;
// an expired token fails with one line naming the mechanism; the token is
// never printed, not even with -v.
func TestSecureBrokerOAuthBearer(t *testing.T) {
	b := needSecureBroker(t)
	_, group := b.fixture(t)
	now := time.Now()
	token := unsecuredJWT("oauth-"+group, now.Add(-time.Minute), now.Add(time.Hour))
	conn := []string{"-b", b.saslSSL, "--tls-ca", b.ca, "--sasl-mechanism", "oauthbearer"}

	r := mustRunEnv(t, map[string]string{"KAFKA_SASL_TOKEN": token}, 0, append([]string{"lag", group, "-o", "json", "-v"}, conn...)...)
	secWantLag(t, secLagOf(t, r, group))
	assertNoSecret(t, r, token)

	file := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(file, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r = mustRunEnv(t, nil, 0, append([]string{"lag", group, "-o", "json", "--sasl-token-file", file}, conn...)...)
	secWantLag(t, secLagOf(t, r, group))
	assertNoSecret(t, r, token)

	expired := unsecuredJWT("oauth-"+group, now.Add(-2*time.Hour), now.Add(-time.Hour))
	r = mustRunEnv(t, map[string]string{"KAFKA_SASL_TOKEN": expired}, 1, append([]string{"lag", group, "--timeout", "10s"}, conn...)...)
	assertOneLine(t, r, "authentication failed at "+b.saslSSL+" (SASL OAUTHBEARER): the broker refused the token (invalid_token): it may have expired")
	assertNoSecret(t, r, expired)

	// No token at all is bad usage, caught before connecting.
	r = mustRunEnv(t, nil, 2, append([]string{"lag", group}, conn...)...)
	assertOneLine(t, r, "KAFKA_SASL_TOKEN")
}
