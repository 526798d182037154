package cli

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/offsetctl/offsetctl/internal/exporter"
	"github.com/offsetctl/offsetctl/internal/testkit"
)

// TestExporterGatherWarnings: with the default --commit-source poll, an
// outage (every ListGroups refused) is one stderr line with its cause when
// gathers start failing, not one per failed round, and one line when a
// gather is complete again, counting the failed ones.
func TestExporterGatherWarnings(t *testing.T) {
	if testkit.Real() {
		t.Skip("kfake control functions")
	}
	c := testkit.New(t)
	topic := c.Topic(1, nil)
	c.Produce(topic, map[int32]int{0: 30}, time.Now())
	g := testkit.Name(t, "exp-warn")
	c.Commit(g, topic, map[int32]int64{0: 10})
	e := startExporter(t, c, nil, "--interval", "1s", "--timeout", "500ms", "--time-lag=false", g)
	e.waitScrape(t, "a first gather", gatheredOK)
	if s := e.stderr.String(); strings.Contains(s, "gather") {
		t.Fatalf("complete gathers said something: %q", s)
	}
	var outage atomic.Bool
	outage.Store(true)
	c.Fake.ControlKey(int16(kmsg.ListGroups), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.Fake.KeepControl()
		if !outage.Load() {
			return nil, nil, false
		}
		return nil, errors.New("outage"), true
	})
	fams := e.waitScrape(t, "three failed gathers", func(f map[string]*dto.MetricFamily) bool {
		errs, _ := value(f, "offsetctl_gather_errors_total", "")
		return errs >= 3
	})
	failed, _ := value(fams, "offsetctl_gather_errors_total", "")
	warn := regexp.MustCompile(`(?m)^offsetctl: warning: exporter: gather: (.+) \(the last values are served, marked stale, until a gather is complete\)$`)
	if m := warn.FindAllStringSubmatch(e.stderr.String(), -1); len(m) != 1 || m[0][1] == "" {
		t.Fatalf("after %v failed gathers: %d warning lines with a cause, want exactly 1:\n%s", failed, len(m), e.stderr.String())
	}
	outage.Store(false)
	e.waitScrape(t, "a complete gather after the outage", gatheredOK)
	time.Sleep(1500 * time.Millisecond) // another complete round: said once only
	stderr := e.stderr.String()
	if n := len(warn.FindAllString(stderr, -1)); n != 1 {
		t.Errorf("%d warning lines over the outage, want 1:\n%s", n, stderr)
	}
	back := regexp.MustCompile(`(?m)^offsetctl: note: exporter: gather: complete again after (\d+) incomplete gather\(s\)$`)
	m := back.FindAllStringSubmatch(stderr, -1)
	if len(m) != 1 {
		t.Fatalf("%d recovery lines, want 1:\n%s", len(m), stderr)
	}
	var n float64
	fmt.Sscan(m[0][1], &n)
	if n < failed {
		t.Errorf("recovery line counts %v failed gathers, the metric had %v before", n, failed)
	}
	t.Logf("stderr:\n%s", stderr)
	if lines := strings.Count(stderr, "\n"); lines != 3 {
		t.Errorf("stderr has %d lines, want serving, the warning and the recovery:\n%s", lines, stderr)
	}
}

// gatherWarnings never echoes a secret of the connection or a raw control
// character, and names the cluster of a --profile.
func TestExporterGatherWarningText(t *testing.T) {
	for _, tc := range []struct {
		name, cluster string
		err           string
		want          string
	}{
		{"plain", "", "dial tcp 127.0.0.1:1: connect: connection refused",
			"offsetctl: warning: exporter: gather: dial tcp 127.0.0.1:1: connect: connection refused (the last values are served, marked stale, until a gather is complete)\n"},
		{"secret and controls", "", "SASL_AUTHENTICATION_FAILED: bad password hunter2-s3cret for user\x1b[2J\nnext",
			"offsetctl: warning: exporter: gather: SASL_AUTHENTICATION_FAILED: bad password [REDACTED] for user\\x1b[2J\\nnext (the last values are served, marked stale, until a gather is complete)\n"},
		{"profile named", "prod\x1b", "EOF",
			"offsetctl: warning: exporter: cluster \"prod\\x1b\": gather: EOF (the last values are served, marked stale, until a gather is complete)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			buf := newSyncBuffer()
			a := &app{stderr: buf}
			var o exporter.Options
			a.gatherWarnings(&o, tc.cluster, []string{"hunter2-s3cret"})
			o.Warn(errors.New(tc.err))
			if got := buf.String(); got != tc.want {
				t.Errorf("stderr %q, want %q", got, tc.want)
			}
		})
	}
}
