package cli

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/offsetctl/offsetctl/internal/lag"
	"github.com/offsetctl/offsetctl/internal/testkit"
)

// statusRun runs offsetctl with between as the wait between lag --status's
// two samples: what the consumers do in the sampled interval.
func statusRun(t *testing.T, c *testkit.Cluster, between func(), args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	a := &app{stdout: &out, stderr: &errb, stdin: strings.NewReader(""), getenv: testEnv(t, nil), now: time.Now,
		sleep: func(ctx context.Context, d time.Duration) error {
			if d != 7*time.Second {
				t.Errorf("sampled %s apart, want --sample 7s", d)
			}
			between()
			return ctx.Err()
		}}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	code := a.execute(ctx, append([]string{"--brokers", c.BrokerList()}, args...))
	return result{stdout: out.String(), stderr: errb.String(), code: code}
}

// statusGroups are one group per state the sampling source can tell, on
// one busy topic (100 records, 50 more written between the samples) and
// one quiet topic.
type statusGroups struct {
	busy, quiet                             string
	gaining, behind, stopped, rewound, idle string
	reset                                   string // rewound by offsetctl reset
	backup                                  string
}

func newStatusGroups(t *testing.T, c *testkit.Cluster) statusGroups {
	s := statusGroups{busy: c.Topic(1, nil), quiet: c.Topic(1, nil)}
	c.Produce(s.busy, map[int32]int{0: 100}, time.Time{})
	c.Produce(s.quiet, map[int32]int{0: 10}, time.Time{})
	s.backup = t.TempDir() + "/backup.csv"
	for _, g := range []*string{&s.gaining, &s.behind, &s.stopped, &s.rewound, &s.reset} {
		*g = testkit.Name(t, "health")
		c.Commit(*g, s.busy, map[int32]int64{0: 10})
	}
	s.idle = testkit.Name(t, "health-idle")
	c.Commit(s.idle, s.quiet, map[int32]int64{0: 10})
	return s
}

// between is what happens between the samples: 50 records written; the
// gaining consumer goes from lag 90 to 50, the one falling behind from
// 90 to 130 though it commits, the stopped one does nothing, the rewound
// one goes back to 5; the idle one stays at its log end.
func (s statusGroups) between(t *testing.T, c *testkit.Cluster) func() {
	return func() {
		mustRun(t, c, 0, "reset", s.reset, "--topic", s.busy, "--to", "5", "--execute", "--backup", s.backup)
		c.Produce(s.busy, map[int32]int{0: 50}, time.Time{})
		c.Commit(s.gaining, s.busy, map[int32]int64{0: 100})
		c.Commit(s.behind, s.busy, map[int32]int64{0: 20})
		c.Commit(s.rewound, s.busy, map[int32]int64{0: 5})
	}
}

// lag --status on kfake, which has no readable __consumer_offsets: the
// sampling fallback, said on stderr and in JSON, judges each group (a
// rewind by offsetctl reset, in the audit log, is OK and named); the
// statuses show in JSON, CSV and the table; --fail-if status>=STOP exits 4
// naming the stopped group only.
func TestLagStatusSampled(t *testing.T) {
	c := testkit.New(t)
	s := newStatusGroups(t, c)
	groups := []string{s.gaining, s.behind, s.stopped, s.rewound, s.idle, s.reset}
	want := map[string]string{s.gaining: "OK", s.behind: "WARN", s.stopped: "STOP", s.rewound: "REWIND", s.idle: "OK", s.reset: "OK"}

	// On kfake the default (auto) falls back; on Apache Kafka, where the
	// topic is readable, sampling is asked for.
	mode := "auto"
	if testkit.Real() {
		mode = "sample"
	}
	r := statusRun(t, c, s.between(t, c), append([]string{"lag", "--status", "--status-source", mode, "--sample", "7s", "-o", "json"}, groups...)...)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if mode == "auto" && (!strings.Contains(r.stderr, "the offsets topic cannot be read") || !strings.Contains(r.stderr, "sampling the committed offsets twice, 7s apart")) {
		t.Errorf("stderr does not say sampling was used:\n%s", r.stderr)
	}
	if mode == "sample" && !strings.Contains(r.stderr, "status: the committed offsets sampled twice, 7s apart (status_source: sample)") {
		t.Errorf("stderr does not say sampling was used:\n%s", r.stderr)
	}
	if n := strings.Count(r.stderr, "status_source: sample"); n != 1 {
		t.Errorf("the source said %d times, want once:\n%s", n, r.stderr)
	}
	var rep lag.LagReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Groups) != len(groups) {
		t.Fatalf("%d groups, want %d", len(rep.Groups), len(groups))
	}
	for _, g := range rep.Groups {
		p := g.Partitions[0]
		if g.Status != want[g.Group] || p.Status != want[g.Group] || g.StatusSource != "sample" || g.StatusReason == "" || p.StatusReason == "" {
			t.Errorf("%s: status %s/%s source %q reason %q; want %s from sample", g.Group, g.Status, p.Status, g.StatusSource, g.StatusReason, want[g.Group])
		}
	}
	for g, reason := range map[string]string{
		s.behind:  "lag grew from 90 to 130",
		s.stopped: "offset 10 did not move",
		s.rewound: "offset went back from 10 to 5",
		s.idle:    "caught up",
		s.reset:   "rewound from 10 to 5 at ",
	} {
		for _, got := range rep.Groups {
			if got.Group == g && !strings.Contains(got.Partitions[0].StatusReason, reason) {
				t.Errorf("%s: reason %q, want %q", g, got.Partitions[0].StatusReason, reason)
			}
		}
	}

	for _, g := range rep.Groups {
		if g.Group == s.reset && !strings.Contains(g.Partitions[0].StatusReason, " by offsetctl reset (audit ") {
			t.Errorf("the reset is not named: %q", g.Partitions[0].StatusReason)
		}
	}

	// CSV: STATUS and STATUS-REASON columns; the table: STATUS.
	r = statusRun(t, c, func() {}, "lag", "--status", "--status-source", "sample", "--sample", "7s", "-o", "csv", s.stopped)
	rows, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
	if err != nil || r.code != 0 || len(rows) != 2 {
		t.Fatalf("csv: exit %d err %v\n%s", r.code, err, r.stdout)
	}
	h := rows[0]
	if h[len(h)-2] != "STATUS" || h[len(h)-1] != "STATUS-REASON" || rows[1][len(h)-2] != "STOP" || !strings.Contains(rows[1][len(h)-1], "did not move") {
		t.Errorf("csv:\n%s", r.stdout)
	}
	r = statusRun(t, c, func() {}, "lag", "--status", "--status-source", "sample", "--sample", "7s", s.idle)
	if r.code != 0 || !strings.Contains(r.stdout, "STATUS OK (all 1 partition(s) OK)") || !strings.Contains(r.stdout, "STATUS") {
		t.Errorf("table: exit %d\n%s", r.code, r.stdout)
	}

	// --fail-if status>=STOP: exit 4 on the stopped group only (the
	// others here are OK, WARN and REWIND), on fresh groups.
	s = newStatusGroups(t, c)
	groups = []string{s.gaining, s.behind, s.stopped, s.rewound, s.idle, s.reset}
	r = statusRun(t, c, s.between(t, c), append([]string{"lag", "--status-source", "sample", "--sample", "7s", "--fail-if", "status>=STOP"}, groups...)...)
	if r.code != 4 || !strings.Contains(r.stderr, "threshold crossed by group "+s.stopped+" status STOP") || strings.Count(r.stderr, " status ") != 1 {
		t.Errorf("--fail-if status>=STOP: exit %d\n%s", r.code, r.stderr)
	}
	// Without the stopped group selected (the others WARN, REWIND, OK):
	// exit 0, nothing crossed.
	s = newStatusGroups(t, c)
	r = statusRun(t, c, s.between(t, c), "lag", "--status-source", "sample", "--sample", "7s", "--fail-if", "status>=STOP", s.gaining, s.behind, s.rewound, s.idle, s.reset)
	if r.code != 0 || strings.Contains(r.stderr, "threshold crossed") {
		t.Errorf("--fail-if status>=STOP without a stopped group: exit %d\n%s", r.code, r.stderr)
	}
	// status>=WARN crosses on the ones that are not OK.
	s = newStatusGroups(t, c)
	r = statusRun(t, c, s.between(t, c), "lag", "--status-source", "sample", "--sample", "7s", "--fail-if", "status>=WARN", s.gaining, s.behind, s.idle)
	if r.code != 4 || !strings.Contains(r.stderr, "threshold crossed by group "+s.behind+" status WARN") || strings.Count(r.stderr, " status ") != 1 {
		t.Errorf("--fail-if status>=WARN: exit %d\n%s", r.code, r.stderr)
	}
	// groups --status: a STATUS column.
	r = statusRun(t, c, func() {}, append([]string{"groups", "--status", "--status-source", "sample", "--sample", "7s", "-o", "csv", "--regex"}, s.stopped, s.idle)...)
	if r.code != 0 || !strings.Contains(r.stdout, ",STATUS,STATUS-REASON") || !strings.Contains(r.stdout, ",STOP,") || !strings.Contains(r.stdout, ",OK,") {
		t.Errorf("groups --status: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// Bad input for --status: exit 2, one line, nothing read.
func TestLagStatusBadInput(t *testing.T) {
	c := testkit.New(t)
	badInput(t, c, "--window goes with --status", "lag", "g", "--window", "5m")
	badInput(t, c, "--window must be positive, got 0s", "lag", "g", "--status", "--window", "0")
	badInput(t, c, "--status-source bogus: want auto, offsets-topic or sample", "lag", "g", "--status", "--status-source", "bogus")
	badInput(t, c, "--fail-if not a status: want one of OK, WARN, REWIND, STALL, STOP", "lag", "g", "--fail-if", "status>=ERR")
	badInput(t, c, "--fail-if status threshold: want status>=S", "lag", "g", "--fail-if", "status<OK")
	badInput(t, c, "--status goes with the partition rows", "lag", "g", "--status", "--watch", "1s")
}
