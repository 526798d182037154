// Package cluster holds how offsetctl connects to Kafka (brokers, timeouts,
// and the security settings that later slot in) and the embedded in-process
// cluster used by the demo, the playground and the tests.
package cluster

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
)

// DefaultBrokers is used when neither --brokers nor KAFKA_BROKERS is set.
const DefaultBrokers = "localhost:9092"

// Config is everything needed to open a client. It is a plain value: the
// command layer fills it from flags, env and profiles; no package state.
type Config struct {
	Brokers  []string
	ClientID string
	// Timeout bounds every admin round trip and the whole of a one-shot
	// command; an unreachable cluster fails within it.
	Timeout time.Duration

	// TLS is nil for plaintext.
	TLS *tls.Config
	// SASL is nil for no authentication.
	SASL sasl.Mechanism

	// Logger, when set, receives franz-go's logs (--verbose).
	Logger kgo.Logger
}

// ParseBrokers splits a comma-separated broker list, trimming blanks and
// any SCHEME:// prefix (as Java's bootstrap.servers allows).
//
// Errors name the bad address (for a flag or variable the user typed);
// WithoutValue turns them into the same message naming only its position,
// for a value read from a file.
func ParseBrokers(s string) ([]string, error) {
	out, _, err := parseBrokers(s)
	return out, err
}

// parseBrokers is ParseBrokers, also returning the listener name the
// addresses are prefixed with (SSL for SSL://host:port), upper-cased, ""
// when none is; addresses naming two different listeners are refused.
func parseBrokers(s string) ([]string, string, error) {
	var out []string
	scheme := ""
	for i, b := range strings.Split(s, ",") {
		b = strings.TrimSpace(b)
		if b == "" {
			continue
		}
		// Java clients accept listener-style entries such as
		// PLAINTEXT://host:9092 in bootstrap.servers: keep host:port,
		// and the listener name, which Connect holds against the
		// security settings (SSL:// with TLS off is a contradiction).
		if name, rest, ok := strings.Cut(b, "://"); ok {
			name = strings.ToUpper(name)
			if scheme != "" && name != scheme {
				return nil, "", fmt.Errorf("broker addresses name two listeners, %s:// and %s://: give addresses of one listener", scheme, name)
			}
			scheme, b = name, rest
		}
		host, port, err := net.SplitHostPort(b)
		if err != nil || host == "" {
			return nil, "", &valueError{shown: fmt.Sprintf("broker address %q is not host:port", b), hidden: fmt.Sprintf("broker address %d is not host:port", i+1)}
		}
		// Digits only, no sign or leading zero: "+40100" and "040100"
		// are not how anyone writes port 40100, and Atoi takes both.
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 || port[0] < '1' || port[0] > '9' {
			return nil, "", &valueError{shown: fmt.Sprintf("broker address %q: port %q is not a number from 1 to 65535", b, port), hidden: fmt.Sprintf("broker address %d: the port is not a number from 1 to 65535", i+1)}
		}
		out = append(out, b)
	}
	if len(out) == 0 {
		return nil, "", errors.New("no broker address given")
	}
	return out, scheme, nil
}

// SetBrokers parses list into s.Brokers, keeping the listener prefix the
// addresses carry for Connect to check; from names where the list came
// from in that check's error (--brokers).
func (s *Settings) SetBrokers(list, from string) error {
	b, scheme, err := parseBrokers(list)
	if err != nil {
		return err
	}
	s.Brokers, s.brokerScheme, s.brokersFrom = b, scheme, from
	return nil
}

// checkListener refuses a listener prefix on the broker addresses that the
// security settings in force contradict: the prefix is stripped, so
// SSL://host:port with TLS off would connect in plaintext. A listener name
// that is not a security protocol (INTERNAL://) says nothing.
func checkListener(s Settings) error {
	tlsOn, saslOn := s.TLSOn(), s.SASLOn() || s.SASL.Required
	var missing []string
	switch s.brokerScheme {
	case "PLAINTEXT":
		if tlsOn || saslOn {
			return fmt.Errorf("%s: the addresses start with PLAINTEXT://, but TLS or SASL is on: the settings contradict each other; drop the prefix, or turn TLS and SASL off", s.brokersFrom)
		}
		return nil
	case "SSL":
		if !tlsOn {
			missing = append(missing, "TLS")
		}
	case "SASL_SSL":
		if !tlsOn {
			missing = append(missing, "TLS")
		}
		if !saslOn {
			missing = append(missing, "SASL")
		}
	case "SASL_PLAINTEXT":
		if !saslOn {
			missing = append(missing, "SASL")
		}
	}
	if len(missing) == 0 {
		return nil
	}
	verb := " is"
	if len(missing) > 1 {
		verb = " are"
	}
	return fmt.Errorf("%s: the addresses start with %s://, but %s%s off: offsetctl does not take security from an address, and would connect without it; turn it on (--tls, --sasl-mechanism, or security.protocol=%s in --command-config) or drop the prefix", s.brokersFrom, s.brokerScheme, strings.Join(missing, " and "), verb, s.brokerScheme)
}

// valueError is a parse error that names the value it refused, with the
// same message without the value.
type valueError struct{ shown, hidden string }

func (e *valueError) Error() string { return e.shown }

// WithoutValue returns err without the value it names, for errors about a
// value read from a file: a configuration file holds secrets next to the
// brokers, and its values are never echoed (docs/security.md).
func WithoutValue(err error) error {
	var v *valueError
	if errors.As(err, &v) {
		return errors.New(v.hidden)
	}
	return err
}

// Opts returns the kgo options for this config.
func (c Config) Opts() []kgo.Opt {
	clientID := c.ClientID
	if clientID == "" {
		clientID = "offsetctl"
	}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	dial := timeout
	if dial > 10*time.Second {
		dial = 10 * time.Second
	}
	opts := []kgo.Opt{
		kgo.SeedBrokers(c.Brokers...),
		kgo.ClientID(clientID),
		kgo.DialTimeout(dial),
		kgo.RetryTimeout(timeout),
		kgo.MetadataMinAge(250 * time.Millisecond),
	}
	if c.TLS != nil {
		opts = append(opts, kgo.DialTLSConfig(c.TLS.Clone()))
	}
	if c.SASL != nil {
		opts = append(opts, kgo.SASL(c.SASL))
	}
	if c.Logger != nil {
		opts = append(opts, kgo.WithLogger(c.Logger))
	}
	return opts
}

// NewClient opens a kgo client with this config plus extra options.
func (c Config) NewClient(extra ...kgo.Opt) (*kgo.Client, error) {
	if len(c.Brokers) == 0 {
		return nil, errors.New("no broker address given")
	}
	cl, err := kgo.NewClient(append(c.Opts(), extra...)...)
	if err != nil {
		return nil, fmt.Errorf("creating client: %w", err)
	}
	return cl, nil
}

// Admin is a kadm client with the kgo client it owns.
type Admin struct {
	*kadm.Client
	Kgo *kgo.Client
}

// Close closes the underlying client.
func (a *Admin) Close() { a.Kgo.Close() }

// WaitPartitions polls, every 100ms until ctx ends, until topic lists
// partitions partitions and each answers ListOffsets. CreateTopics returns
// before every partition has an elected leader, and a produce or fetch sent
// earlier fails with NOT_LEADER/UNKNOWN_TOPIC_OR_PARTITION. It returns
// ctx's error if the topic is not ready in time.
func (a *Admin) WaitPartitions(ctx context.Context, topic string, partitions int) error {
	for !a.partitionsReady(ctx, topic, partitions) {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return nil
}

func (a *Admin) partitionsReady(ctx context.Context, topic string, partitions int) bool {
	ends, err := a.ListEndOffsets(ctx, topic)
	if err != nil || len(ends[topic]) != partitions {
		return false
	}
	for _, e := range ends[topic] {
		if e.Err != nil {
			return false
		}
	}
	return true
}

// NewAdmin opens an admin client.
func (c Config) NewAdmin(extra ...kgo.Opt) (*Admin, error) {
	cl, err := c.NewClient(extra...)
	if err != nil {
		return nil, err
	}
	adm := kadm.NewClient(cl)
	t := c.Timeout
	if t <= 0 {
		t = 30 * time.Second
	}
	adm.SetTimeoutMillis(int32(t / time.Millisecond))
	return &Admin{Client: adm, Kgo: cl}, nil
}

// Ping checks that the cluster answers a metadata request within ctx, and
// turns the usual failure into one clear sentence naming the brokers.
func (c Config) Ping(ctx context.Context, a *Admin) error {
	if _, err := a.BrokerMetadata(ctx); err != nil {
		return c.Unreachable(err)
	}
	return nil
}

// interruptedError reads "interrupted" and wraps the cancellation.
type interruptedError struct{ err error }

func (e interruptedError) Error() string { return "interrupted" }
func (e interruptedError) Unwrap() error { return e.err }

// Unreachable wraps err in a message that names the brokers and timeout.
// An interruption (Ctrl-C, SIGTERM: the context canceled) is not the
// cluster's doing: it says "interrupted" instead.
func (c Config) Unreachable(err error) error {
	if errors.Is(err, context.Canceled) {
		return interruptedError{err}
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("cluster at %s did not answer within %s", strings.Join(c.Brokers, ","), c.Timeout)
	}
	return fmt.Errorf("cannot reach cluster at %s: %w", strings.Join(c.Brokers, ","), err)
}
