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
