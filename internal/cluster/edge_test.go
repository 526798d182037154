package cluster

import (
	"crypto/tls"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
)

// -b a:1,,b:2: an empty entry in the middle (a doubled comma) is skipped,
// and every broker after it is kept.
func TestParseBrokersEmptyEntryInTheMiddle(t *testing.T) {
	for in, want := range map[string]string{
		"a:1,,b:2":              "a:1 b:2",
		"a:1, ,b:2,,c:3":        "a:1 b:2 c:3",
		",a:1":                  "a:1",
		"a:1,":                  "a:1",
		"a:1,,PLAINTEXT://b:2,": "a:1 b:2",
	} {
		got, err := ParseBrokers(in)
		if err != nil || strings.Join(got, " ") != want {
			t.Errorf("ParseBrokers(%q) = %q, %v; want %s", in, got, err, want)
		}
	}
	if _, err := ParseBrokers("a:1,,b"); err == nil || !strings.Contains(err.Error(), `"b" is not host:port`) {
		t.Errorf("a bad entry after an empty one: %v", err)
	}
	for _, in := range []string{"", ",", " , ,"} {
		if _, err := ParseBrokers(in); err == nil || err.Error() != "no broker address given" {
			t.Errorf("ParseBrokers(%q): %v", in, err)
		}
	}
}

// Ports at the ends of 1..65535 are accepted, the ones just outside are
// not.
func TestParseBrokersPortBoundaries(t *testing.T) {
	for _, ok := range []string{"h:1", "h:65535"} {
		if got, err := ParseBrokers(ok); err != nil || len(got) != 1 || got[0] != ok {
			t.Errorf("ParseBrokers(%q) = %q, %v", ok, got, err)
		}
	}
	for _, bad := range []string{"h:0", "h:65536", "h:-1"} {
		if _, err := ParseBrokers(bad); err == nil || !strings.Contains(err.Error(), "is not a number from 1 to 65535") {
			t.Errorf("ParseBrokers(%q): %v", bad, err)
		}
	}
}

type quietLogger struct{}

func (quietLogger) Level() kgo.LogLevel              { return kgo.LogLevelNone }
func (quietLogger) Log(kgo.LogLevel, string, ...any) {}

// Opts carries the config into the client: the defaults (client id
// offsetctl, a 30 s timeout, dials capped at 10 s) and each optional
// setting only when it is set (a nil TLS config must not turn TLS on).
func TestOptsReachTheClient(t *testing.T) {
	value := func(c Config, opt any) any {
		t.Helper()
		cl, err := kgo.NewClient(c.Opts()...)
		if err != nil {
			t.Fatal(err)
		}
		defer cl.Close()
		return cl.OptValue(opt)
	}
	b := []string{"127.0.0.1:1"}
	tests := []struct {
		name string
		c    Config
		opt  any
		want any
	}{
		{"default client id", Config{Brokers: b}, kgo.ClientID, "offsetctl"},
		{"client id", Config{Brokers: b, ClientID: "ops"}, kgo.ClientID, "ops"},
		{"default timeout", Config{Brokers: b}, kgo.RetryTimeout, 30 * time.Second},
		{"negative timeout", Config{Brokers: b, Timeout: -1}, kgo.RetryTimeout, 30 * time.Second},
		{"timeout", Config{Brokers: b, Timeout: 5 * time.Second}, kgo.RetryTimeout, 5 * time.Second},
		{"dial capped", Config{Brokers: b}, kgo.DialTimeout, 10 * time.Second},
		{"dial below the cap", Config{Brokers: b, Timeout: 3 * time.Second}, kgo.DialTimeout, 3 * time.Second},
		{"dial just over the cap", Config{Brokers: b, Timeout: 10*time.Second + 1}, kgo.DialTimeout, 10 * time.Second},
		{"no TLS", Config{Brokers: b}, kgo.DialTLS, false},
		{"TLS", Config{Brokers: b, TLS: &tls.Config{ServerName: "k"}}, kgo.DialTLS, true},
		{"no SASL", Config{Brokers: b}, kgo.SASL, []sasl.Mechanism(nil)},
		{"SASL", Config{Brokers: b, SASL: plain.Auth{User: "u", Pass: "p"}.AsMechanism()}, kgo.SASL, 1},
		{"no logger", Config{Brokers: b}, kgo.WithLogger, nil},
		{"logger", Config{Brokers: b, Logger: quietLogger{}}, kgo.WithLogger, quietLogger{}},
	}
	for _, tc := range tests {
		got := value(tc.c, tc.opt)
		if ms, ok := got.([]sasl.Mechanism); ok && tc.want == 1 {
			if len(ms) != 1 || ms[0].Name() != "PLAIN" {
				t.Errorf("%s: %v", tc.name, got)
			}
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %#v, want %#v", tc.name, got, tc.want)
		}
	}
	if _, err := (Config{}).NewClient(); err == nil || err.Error() != "no broker address given" {
		t.Errorf("no brokers: %v", err)
	}
}
