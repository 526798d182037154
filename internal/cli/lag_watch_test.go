package cli

import (
	"encoding/csv"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/offsetctl/offsetctl/internal/testkit"
)

// failListGroups makes the cluster refuse ListGroups (a non-retriable
// error) once the returned switch is called: the next --watch rounds fail.
func failListGroups(c *testkit.Cluster) (start func()) {
	var on atomic.Bool
	c.Fake.ControlKey(kmsg.ListGroups.Int16(), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.Fake.KeepControl()
		if !on.Load() {
			return nil, nil, false
		}
		resp := req.ResponseKind().(*kmsg.ListGroupsResponse)
		resp.Version = req.GetVersion()
		resp.ErrorCode = kerr.ClusterAuthorizationFailed.Code
		return resp, nil, true
	})
	return func() { on.Store(true) }
}

// A --watch whose rounds start failing says so in its stream (a CSV row
// with the round's time and the error; a JSON line with "error"), warns
// on stderr, and ends with exit 1 naming how many rounds failed: never
// exit 0 after a failure.
func TestLagWatchFailedRounds(t *testing.T) {
	if testkit.Real() {
		t.Skip("injects errors into an in-process cluster")
	}
	for _, format := range []string{"csv", "json", "table"} {
		t.Run(format, func(t *testing.T) {
			c := testkit.New(t)
			topic := c.Topic(1, nil)
			g := testkit.Name(t, "g")
			c.Commit(g, topic, map[int32]int64{0: 0})
			start := failListGroups(c)
			// Two good rounds, then the cluster refuses.
			goodRounds := func(out string) int {
				if format == "table" {
					return strings.Count(out, "GROUP "+g)
				}
				return strings.Count(out, g)
			}
			r := watchUntil(t, c, func(out string) bool {
				if goodRounds(out) >= 2 {
					start()
				}
				return strings.Contains(out, "CLUSTER_AUTHORIZATION_FAILED") || (format == "table" && strings.Count(out, "every 200ms") >= goodRounds(out)+2)
			}, "lag", g, "--watch", "200ms", "-o", format)
			if r.code != 1 || !strings.Contains(r.stderr, "watch round(s) failed; the last:") || !strings.Contains(r.stderr, "CLUSTER_AUTHORIZATION_FAILED") {
				t.Fatalf("exit %d, stderr %q: want 1 and the failed rounds counted", r.code, r.stderr)
			}
			switch format {
			case "csv":
				recs, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
				if err != nil {
					t.Fatalf("not one CSV: %v\n%s", err, r.stdout)
				}
				var ok, failed int
				for _, rec := range recs[1:] {
					if _, err := time.Parse(time.RFC3339, rec[0]); err != nil {
						t.Errorf("row %v: no round time", rec)
					}
					switch {
					case rec[1] == g && rec[len(rec)-1] == "":
						ok++
					case rec[1] == "" && strings.Contains(rec[len(rec)-1], "CLUSTER_AUTHORIZATION_FAILED"):
						failed++
					}
				}
				if ok < 2 || failed < 1 || ok+failed != len(recs)-1 {
					t.Errorf("%d good rows, %d error rows of %d: want 2 good rounds, then error rows\n%s", ok, failed, len(recs)-1, r.stdout)
				}
			case "json":
				var good, bad int
				for _, l := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
					var doc struct {
						Groups []json.RawMessage `json:"groups"`
						Time   string            `json:"time"`
						Error  string            `json:"error"`
					}
					if err := json.Unmarshal([]byte(l), &doc); err != nil {
						t.Fatalf("line %q: %v", l, err)
					}
					switch {
					case len(doc.Groups) == 1 && doc.Error == "" && doc.Time != "":
						good++
					case doc.Time != "" && strings.Contains(doc.Error, "CLUSTER_AUTHORIZATION_FAILED"):
						bad++
					default:
						t.Errorf("line %q is neither a report nor an error", l)
					}
				}
				if good < 2 || bad < 1 {
					t.Errorf("%d reports, %d errors: want 2 and at least 1", good, bad)
				}
			}
		})
	}
}

// TestLagWatchProgress: from its second round on, lag --watch gives each
// group its rates and catch-up ETA. A group that does not move while it
// lags is falling behind (no ETA); a group with no lag is caught up (ETA 0).
func TestLagWatchProgress(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(1, nil)
	c.Produce(topic, map[int32]int{0: 20}, time.Now())
	stuck, done := testkit.Name(t, "stuck"), testkit.Name(t, "done")
	c.Commit(stuck, topic, map[int32]int64{0: 5})
	c.Commit(done, topic, map[int32]int64{0: 20})
	r := watchUntil(t, c, func(out string) bool { return strings.Count(out, "\n") >= 3 },
		"lag", stuck, done, "--watch", "200ms", "-o", "json")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) < 3 {
		t.Fatalf("%d rounds:\n%s", len(lines), r.stdout)
	}
	type progress struct {
		ConsumeRate    *float64 `json:"consume_rate"`
		ProduceRate    *float64 `json:"produce_rate"`
		CatchUpSeconds *float64 `json:"catchup_seconds"`
		FallingBehind  *bool    `json:"falling_behind"`
	}
	for i, line := range lines {
		var rep struct {
			Groups []struct {
				Group    string    `json:"group"`
				TotalLag int64     `json:"total_lag"`
				Progress *progress `json:"progress"`
			} `json:"groups"`
		}
		if err := json.Unmarshal([]byte(line), &rep); err != nil || len(rep.Groups) != 2 {
			t.Fatalf("round %d: %v\n%s", i+1, err, line)
		}
		for _, g := range rep.Groups {
			p := g.Progress
			if i == 0 {
				if p != nil {
					t.Errorf("round 1 has progress for %s: %+v", g.Group, *p)
				}
				continue
			}
			if p == nil || p.ConsumeRate == nil || *p.ConsumeRate != 0 || p.ProduceRate == nil || *p.ProduceRate != 0 || p.FallingBehind == nil {
				t.Fatalf("round %d %s: progress %+v, want rates 0", i+1, g.Group, p)
			}
			switch g.Group {
			case stuck:
				if g.TotalLag != 15 || !*p.FallingBehind || p.CatchUpSeconds != nil {
					t.Errorf("round %d: stuck group lag %d behind %v eta %v, want 15, true, null", i+1, g.TotalLag, *p.FallingBehind, p.CatchUpSeconds)
				}
			case done:
				if g.TotalLag != 0 || *p.FallingBehind || p.CatchUpSeconds == nil || *p.CatchUpSeconds != 0 {
					t.Errorf("round %d: caught-up group lag %d behind %v eta %v, want 0, false, 0", i+1, g.TotalLag, *p.FallingBehind, p.CatchUpSeconds)
				}
			}
		}
	}
}
