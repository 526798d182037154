package cli

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetctl/offsetctl/internal/health"
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
	// --window 7s: the stopped group's offset stands for the whole
	// window (with a longer one it is WARN: TestLagStatusSampledShortWindow).
	r := statusRun(t, c, s.between(t, c), append([]string{"lag", "--status", "--status-source", mode, "--sample", "7s", "--window", "7s", "-o", "json"}, groups...)...)
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
		s.rewound: "offset went back from 10 to 5 seen by ",
		s.idle:    "caught up",
		s.reset:   "rewound from 10 to 5 (seen by ",
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
	r = statusRun(t, c, func() {}, "lag", "--status", "--status-source", "sample", "--sample", "7s", "--window", "7s", "-o", "csv", s.stopped)
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
	r = statusRun(t, c, s.between(t, c), append([]string{"lag", "--status-source", "sample", "--sample", "7s", "--window", "7s", "--fail-if", "status>=STOP"}, groups...)...)
	if r.code != 4 || !strings.Contains(r.stderr, "threshold crossed by group "+s.stopped+" status STOP") || strings.Count(r.stderr, " status ") != 1 {
		t.Errorf("--fail-if status>=STOP: exit %d\n%s", r.code, r.stderr)
	}
	// Without the stopped group selected (the others WARN, REWIND, OK):
	// exit 0, nothing crossed.
	s = newStatusGroups(t, c)
	r = statusRun(t, c, s.between(t, c), "lag", "--status-source", "sample", "--sample", "7s", "--window", "7s", "--fail-if", "status>=STOP", s.gaining, s.behind, s.rewound, s.idle, s.reset)
	if r.code != 0 || strings.Contains(r.stderr, "threshold crossed") {
		t.Errorf("--fail-if status>=STOP without a stopped group: exit %d\n%s", r.code, r.stderr)
	}
	// status>=WARN crosses on the ones that are not OK.
	s = newStatusGroups(t, c)
	r = statusRun(t, c, s.between(t, c), "lag", "--status-source", "sample", "--sample", "7s", "--window", "7s", "--fail-if", "status>=WARN", s.gaining, s.behind, s.idle)
	if r.code != 4 || !strings.Contains(r.stderr, "threshold crossed by group "+s.behind+" status WARN") || strings.Count(r.stderr, " status ") != 1 {
		t.Errorf("--fail-if status>=WARN: exit %d\n%s", r.code, r.stderr)
	}
	// groups --status: a STATUS column.
	r = statusRun(t, c, func() {}, append([]string{"groups", "--status", "--status-source", "sample", "--sample", "7s", "--window", "7s", "-o", "csv", "--regex"}, s.stopped, s.idle)...)
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
	badInput(t, c, "--fail-if status>=ERR: ERR is not a status: want one of OK, WARN, REWIND, STALL, STOP", "lag", "g", "--fail-if", "status>=ERR")
	badInput(t, c, "--fail-if status>=FOO: FOO is not a status", "lag", "g", "--fail-if", "status>=FOO")
	badInput(t, c, "--fail-if status>=STOP,lag>100: one threshold per --fail-if (repeat the flag)", "lag", "g", "--fail-if", "status>=STOP,lag>100")
	// A control byte in the refused value is quoted, never echoed raw.
	if r := badInput(t, c, `--fail-if "status>=\x1b[31m": "\x1b[31m" is not a status`, "lag", "g", "--fail-if", "status>=[31m"); strings.Contains(r.stderr, "") {
		t.Errorf("raw ESC in %q", r.stderr)
	}
	badInput(t, c, "--fail-if status threshold: want status>=S", "lag", "g", "--fail-if", "status<OK")
	badInput(t, c, "--status goes with the partition rows", "lag", "g", "--status", "--by", "topic")
	badInput(t, c, "--sample goes with --status without --watch", "lag", "g", "--status", "--watch", "1s", "--sample", "5s")
	badInput(t, c, "--window must span at least two rounds (2 × --watch = 2s), got 1.999s", "lag", "g", "--status", "--watch", "1s", "--window", "1999ms")
	badInput(t, c, "--window must span at least two rounds (2 × --watch = 12m0s), got 10m0s", "lag", "g", "--fail-if", "status>=STOP", "--watch", "6m")
}

// statusRunClock runs offsetctl on a clock that the wait between
// lag --status's two samples moves on by the whole wait (a real run's
// timing, without the wait).
func statusRunClock(t *testing.T, c *testkit.Cluster, args ...string) result {
	t.Helper()
	var mu sync.Mutex
	clock := time.Now()
	var out, errb bytes.Buffer
	a := &app{stdout: &out, stderr: &errb, stdin: strings.NewReader(""), getenv: testEnv(t, nil),
		now: func() time.Time {
			mu.Lock()
			defer mu.Unlock()
			return clock
		},
		sleep: func(ctx context.Context, d time.Duration) error {
			mu.Lock()
			clock = clock.Add(d)
			mu.Unlock()
			return ctx.Err()
		}}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	code := a.execute(ctx, append([]string{"--brokers", c.BrokerList()}, args...))
	return result{stdout: out.String(), stderr: errb.String(), code: code}
}

// A stopped group with lag is STOP from the sampling source whatever
// --window is: a window not longer than --sample used to leave the first
// sample out and judge OK, so --fail-if status>=WARN passed (QA finding:
// `lag orders-billing --fail-if 'status>=WARN' --window 30s` exit 0).
// The group's reason gives the first partition's numbers only and names
// the other (its offset differs).
func TestLagStatusSampledShortWindow(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(2, nil)
	c.Produce(topic, map[int32]int{0: 15, 1: 20}, time.Time{})
	g := testkit.Name(t, "health-short")
	c.Commit(g, topic, map[int32]int64{0: 10, 1: 2})
	for _, ws := range [][3]string{{"30s", "30s", "STOP"}, {"2s", "3s", "STOP"}, {"3s", "3s", "STOP"}, {"1ns", "1s", "STOP"}, {"10m", "30s", "WARN"}} {
		// A window longer than the samples: the offset stood for 30s of
		// it, which a consumer committing once a minute does too: WARN
		// (never OK), STOP once it stands for the window.
		r := statusRunClock(t, c, "lag", g, "--status-source", "sample", "--fail-if", "status>=WARN", "--window", ws[0], "--sample", ws[1])
		if r.code != 4 || !strings.Contains(r.stderr, "group "+g+" status "+ws[2]) {
			t.Errorf("--window %s --sample %s: exit %d, want 4 with %s\n%s\n%s", ws[0], ws[1], r.code, ws[2], r.stdout, r.stderr)
		}
	}
	r := statusRunClock(t, c, "lag", g, "--status", "--status-source", "sample", "--window", "30s", "--sample", "30s", "-o", "json")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	var rep lag.LagReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || len(rep.Groups) != 1 || len(rep.Groups[0].Partitions) != 2 {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	got := rep.Groups[0]
	want := topic + "/0: offset 10 did not move in 30s with lag 5 (sampled: a stall looks the same); also STOP: " + topic + "/1"
	if got.Status != "STOP" || got.StatusSource != "sample" || got.StatusReason != want {
		t.Errorf("group %s from %s: %q, want STOP: %q", got.Status, got.StatusSource, got.StatusReason, want)
	}
	for _, p := range got.Partitions {
		if p.Status != "STOP" || !strings.Contains(p.StatusReason, "did not move in 30s") {
			t.Errorf("%s/%d: %s %q", p.Topic, p.Partition, p.Status, p.StatusReason)
		}
	}
}

// A group with a member but no commits: each partition is OK with "no
// commit to judge" in JSON, CSV and the table, and the group says it has
// no committed partitions (it said "no partitions", and JSON partitions
// had no status).
func TestLagStatusNoCommits(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(3, nil)
	g := testkit.Name(t, "health-nocommit")
	c.Consumer(g, topic, false, kgo.DisableAutoCommit())
	const reason = "no committed partitions (3 without a commit to judge)"

	r := statusRunClock(t, c, "lag", g, "--status", "--sample", "1s", "-o", "json")
	var rep lag.LagReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); r.code != 0 || err != nil || len(rep.Groups) != 1 {
		t.Fatalf("exit %d %v\n%s\n%s", r.code, err, r.stdout, r.stderr)
	}
	got := rep.Groups[0]
	if got.Status != "OK" || got.StatusReason != reason || len(got.Partitions) != 3 {
		t.Fatalf("group %s %q with %d partitions, want OK %q with 3", got.Status, got.StatusReason, len(got.Partitions), reason)
	}
	for _, p := range got.Partitions {
		if p.Committed != nil || p.Status != "OK" || p.StatusReason != "no commit to judge" {
			t.Errorf("%s/%d: committed %v, %s %q", p.Topic, p.Partition, p.Committed, p.Status, p.StatusReason)
		}
	}
	r = statusRunClock(t, c, "lag", g, "--status", "--sample", "1s", "-o", "csv")
	rows, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
	if err != nil || r.code != 0 || len(rows) != 4 {
		t.Fatalf("csv: exit %d %v\n%s", r.code, err, r.stdout)
	}
	h := rows[0]
	for _, row := range rows[1:] {
		if row[len(h)-2] != "OK" || row[len(h)-1] != "no commit to judge" {
			t.Errorf("csv row %v", row)
		}
	}
	r = statusRunClock(t, c, "lag", g, "--status", "--sample", "1s")
	if r.code != 0 || !strings.Contains(r.stdout, "STATUS OK ("+reason+")") || strings.Count(r.stdout, " OK\n") != 3 {
		t.Errorf("table: exit %d\n%s", r.code, r.stdout)
	}
	r = statusRunClock(t, c, "groups", "--status", "--sample", "1s", "-o", "csv", "--regex", g)
	if r.code != 0 || !strings.Contains(r.stdout, ",OK,"+reason) {
		t.Errorf("groups --status: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// A watch or an exporter runs for hours: a reset written to the audit log
// after the explainer's first read must still explain its rewind. (QA: lag
// --watch --status read the log once, at the first rewind of any group, and
// called a later offsetctl reset REWIND.)
func TestLiveAuditExplainerRereads(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(1, nil)
	c.Produce(topic, map[int32]int{0: 20}, time.Time{})
	g := testkit.Name(t, "explain")
	c.Commit(g, topic, map[int32]int64{0: 10})
	var out, errb bytes.Buffer
	a := &app{stdout: &out, stderr: &errb, stdin: strings.NewReader(""), getenv: testEnv(t, nil), now: time.Now}
	explain := a.liveAuditExplainer("status").For(lazyClusterID(30*time.Second, clusterIDAt(c.Cfg)))
	at := time.Now()
	rw := health.Rewind{Group: g, Topic: topic, Partition: 0, From: health.Commit{Offset: 10, Time: at}, To: health.Commit{Offset: 5, Time: at}}
	if why, ok := explain(rw); ok {
		t.Fatalf("a rewind explained before any reset: %q", why)
	}
	if errb.Len() != 0 {
		t.Errorf("a warning for an audit log that does not exist yet (no reset recorded): %q", errb.String())
	}
	mustRun(t, c, 0, "reset", g, "--topic", topic, "--to", "5", "--execute", "--backup", t.TempDir()+"/backup.csv")
	rw.To.Time = time.Now()
	why, ok := explain(rw)
	if !ok || !strings.Contains(why, "offsetctl reset (audit ") {
		t.Fatalf("the reset made after the first read is not named: %q, %v (stderr %q)", why, ok, errb.String())
	}
	// Another group's rewind at the same place is not explained by it.
	rw.Group = g + "-other"
	if why, ok := explain(rw); ok {
		t.Errorf("another group's rewind explained: %q", why)
	}
}

// keepCommitting runs the scripted consumers of the status tests: step(i)
// for i = from, from+1, ... every `every` until the returned stop is
// called; stop waits for the loop and fails t with the first error a step
// returned while it ran.
func keepCommitting(t *testing.T, from int64, every time.Duration, step func(i int64) error) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var loopErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := from; ctx.Err() == nil; i++ {
			if err := step(i); err != nil && ctx.Err() == nil {
				loopErr = err
				return
			}
			select {
			case <-ctx.Done():
			case <-time.After(every):
			}
		}
	}()
	return func() {
		cancel()
		wg.Wait()
		if loopErr != nil {
			t.Errorf("scripted commits: %v", loopErr)
		}
	}
}

// The rows of lag --status from the sampling source are those of the
// second sample, the moment the verdict is about, in every format: each
// row agrees with its reason (QA finding: `lag G --status --sample 4s -o
// csv` printed committed 15 and lag 5 beside "lag grew from 5 to 9", and a
// rewind to 0 beside committed 15). Between the samples the busy topic
// goes from 100 to 150 records.
func TestLagStatusSampledRowsAreLatest(t *testing.T) {
	c := testkit.New(t)
	type row struct{ committed, logEnd, lag int64 }
	check := func(s statusGroups) map[string]row {
		return map[string]row{
			s.behind:  {20, 150, 130}, // "lag grew from 90 to 130"
			s.rewound: {5, 150, 145},  // "went back from 10 to 5"
			s.stopped: {10, 150, 140}, // "did not move"
		}
	}
	for _, format := range []string{"json", "csv", "table"} {
		s := newStatusGroups(t, c)
		want := check(s)
		r := statusRun(t, c, s.between(t, c), "lag", "--status", "--status-source", "sample", "--sample", "7s", "-o", format, s.behind, s.rewound, s.stopped)
		if r.code != 0 {
			t.Fatalf("%s: exit %d\n%s", format, r.code, r.stderr)
		}
		got := map[string]row{}
		reasons := map[string]string{}
		switch format {
		case "json":
			var rep lag.LagReport
			if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
				t.Fatal(err)
			}
			for _, g := range rep.Groups {
				p := g.Partitions[0]
				if p.Committed == nil || p.Lag == nil || g.TotalLag != *p.Lag {
					t.Errorf("json %s: committed %v lag %v total %d", g.Group, p.Committed, p.Lag, g.TotalLag)
					continue
				}
				got[g.Group] = row{*p.Committed, p.LogEnd, *p.Lag}
				reasons[g.Group] = p.StatusReason
			}
		case "csv":
			rows, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			col := map[string]int{}
			for i, h := range rows[0] {
				col[h] = i
			}
			for _, rec := range rows[1:] {
				n := func(h string) int64 {
					v, err := strconv.ParseInt(rec[col[h]], 10, 64)
					if err != nil {
						t.Errorf("csv %s %s: %v", rec[col["GROUP"]], h, err)
					}
					return v
				}
				got[rec[col["GROUP"]]] = row{n("COMMITTED"), n("LOG-END"), n("LAG")}
				reasons[rec[col["GROUP"]]] = rec[col["STATUS-REASON"]]
			}
		case "table":
			// GROUP g ... TOTAL-LAG n, then a header and one row:
			// TOPIC PARTITION LOG-START COMMITTED LOG-END LAG ...
			var group string
			for _, line := range strings.Split(r.stdout, "\n") {
				f := strings.Fields(line)
				switch {
				case len(f) > 1 && f[0] == "GROUP":
					group, reasons[f[1]] = f[1], line
					for i := range f {
						if f[i] == "TOTAL-LAG" {
							reasons[group+" total"] = f[i+1]
						}
					}
				case len(f) > 5 && f[0] == s.busy:
					v := make([]int64, 3)
					for i := range v {
						v[i], _ = strconv.ParseInt(f[3+i], 10, 64)
					}
					got[group] = row{v[0], v[1], v[2]}
				}
			}
			for g, w := range want {
				if tot := reasons[g+" total"]; tot != strconv.FormatInt(w.lag, 10) {
					t.Errorf("table %s: TOTAL-LAG %s, want %d\n%s", g, tot, w.lag, r.stdout)
				}
			}
		}
		for g, w := range want {
			if got[g] != w {
				t.Errorf("%s %s: committed/log end/lag %v, want the second sample's %v (reason %q)\n%s", format, g, got[g], w, reasons[g], r.stdout)
			}
		}
		if !strings.Contains(reasons[s.behind], "lag grew from 90 to 130") || !strings.Contains(reasons[s.rewound], "went back from 10 to 5") {
			t.Errorf("%s: reasons %q", format, reasons)
		}
	}
}

// TestStatusSampledFirstCommitBetween (QA): with the sampling source, a
// partition whose first commit came between the two samples got no status
// (a '-' in the table, no status in JSON, left out of --fail-if) and the
// group said "all 1 partition(s) OK" above two rows; a partition whose
// offset was deleted between them was counted in the group though not
// shown. The rows judged are now the second read's, the ones shown: the
// new one is PENDING (one sample cannot be judged), the deleted one is not
// a row and not judged.
func TestStatusSampledFirstCommitBetween(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(3, nil)
	c.Produce(topic, map[int32]int{0: 10, 1: 10, 2: 10}, time.Time{})
	group := testkit.Name(t, "between")
	c.Commit(group, topic, map[int32]int64{0: 10, 2: 4})
	r := statusRun(t, c, func() {
		c.Commit(group, topic, map[int32]int64{1: 3})
		mustRun(t, c, 0, "delete-offsets", group, "--topic", topic+":2", "--execute", "--backup", filepath.Join(t.TempDir(), "d.csv"))
	}, "lag", group, "--status", "--status-source", "sample", "--sample", "7s", "-o", "json")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	var rep lag.LagReport
	decodeJSON(t, r, &rep)
	if len(rep.Groups) != 1 {
		t.Fatalf("%+v", rep)
	}
	g := rep.Groups[0]
	got := map[int32]string{}
	for _, p := range g.Partitions {
		got[p.Partition] = p.Status + " " + p.StatusReason
	}
	// Partition 2's offset is gone: not a row, so not judged.
	if len(got) != 2 || !strings.HasPrefix(got[0], "OK ") || got[1] != "PENDING first committed between the samples: one sample cannot be judged" {
		t.Fatalf("rows: %q", got)
	}
	if g.Status != "PENDING" || !strings.Contains(g.StatusReason, "1 partition(s) with lag first committed between the samples") {
		t.Fatalf("group %s: %q", g.Status, g.StatusReason)
	}
}
