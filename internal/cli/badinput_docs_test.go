package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/offsetctl/offsetctl/internal/testkit"
)

// TestBadInputDocs runs every row of docs/bad-input.md's table that needs
// no outside setup (the profiles rows read the user's profiles file) on a
// cluster laid out as the page says, and checks the exit code and that the
// documented line is what offsetctl prints: the page is a promise to users
// who script against these messages.
func TestBadInputDocs(t *testing.T) {
	c := testkit.New(t)
	topic, group := c.Topic(3, nil), testkit.Name(t, "billing")
	c.Produce(topic, map[int32]int{0: 2, 1: 2, 2: 2}, time.Time{})
	c.Commit(group, topic, map[int32]int64{0: 1, 1: 1, 2: 1})

	dir := t.TempDir()
	files := map[string]string{
		"bi-empty.csv":        "",
		"bi-header.csv":       "topic,partition,offset\n" + topic + ",0,0\n",
		"bi-badrow.csv":       topic + ",zero,0\n",
		"bi-cols.csv":         topic + ",0,0,extra\n",
		"bi-jks.properties":   "bootstrap.servers=" + c.BrokerList() + "\nssl.truststore.location=truststore.jks\n",
		"bi-typo.properties":  "bootstrap.servers=" + c.BrokerList() + "\nsecurty.protocol=SSL\n",
		"bi-notls.properties": "bootstrap.servers=" + c.BrokerList() + "\nssl.truststore.type=PEM\nssl.truststore.location=ca.pem\n",
		"bi-blank.pw":         "\nS3CRET\n",
		"bi-ssl.properties":   "bootstrap.servers=" + c.BrokerList() + "\nsecurity.protocol=SSL\n",
		"bi-dup.properties":   "security.protocol=SSL\nbootstrap.servers=" + c.BrokerList() + "\nsecurity.protocol=PLAINTEXT\n",
		"bi-key.pem":          "-----BEGIN PRIVATE KEY-----\nMIIBVQIBADANBgkqhkiG9w0BAQEFAASCAT8wggE7AgEAAkEAq7BFUpkGp3+LQmlQ\n-----END PRIVATE KEY-----\n",
		"bi-alice.properties": "bootstrap.servers=" + c.BrokerList() + "\nsecurity.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n" +
			"sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"alice\" password=\"alice-pw\";\n",
		// A backup cut short: no end record.
		"bi-cut.csv": "offsetctl:cluster,MkU3OEVBNTcwNTJENDM2Qk,0,1\noffsetctl:backup," + group + ",0,1\n" + group + "," + topic + ",0,1\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	names := strings.NewReplacer("badinput-orders", topic, "badinput-billing", group, "/tmp/bi-", dir+"/bi-")

	row := regexp.MustCompile("^\\| [^|]+ \\| `offsetctl ([^`]+)` \\| (\\d) \\| `([^`]+)`")
	ran := 0
	for _, l := range strings.Split(repoFile(t, "docs/bad-input.md"), "\n") {
		m := row.FindStringSubmatch(l)
		if m == nil || strings.Contains(m[1], "--profile") {
			continue
		}
		args := shellWords(names.Replace(m[1]))
		want, _ := strconv.Atoi(m[2])
		msg := names.Replace(m[3])
		r := offsetctl(t, c, args...)
		if r.code != want || !strings.Contains(r.stdout+r.stderr, msg) {
			t.Errorf("docs/bad-input.md: offsetctl %s\n  documented: exit %d, %q\n  got:        exit %d, stderr %q", m[1], want, m[3], r.code, strings.TrimSpace(r.stderr))
		}
		ran++
	}
	if ran < 30 {
		t.Errorf("ran %d rows of docs/bad-input.md, want at least 30: is the table still there?", ran)
	}
}
