package cli

import (
	"encoding/csv"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/offsetctl/offsetctl/internal/lag"
	"github.com/offsetctl/offsetctl/internal/testkit"
)

// streamGroups commits n groups (sorted names) on topic's two partitions,
// group i at offset i%5 on both.
func streamGroups(t *testing.T, c *testkit.Cluster, topic string, n int) []string {
	t.Helper()
	prefix := testkit.Name(t, "s")
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("%s-%03d", prefix, i)
		os := make(kadm.Offsets)
		os.AddOffset(topic, 0, int64(i%5), -1)
		os.AddOffset(topic, 1, int64(i%5), -1)
		if err := c.Admin().CommitAllOffsets(testkit.Ctx(t), names[i], os); err != nil {
			t.Fatal(err)
		}
	}
	return names
}

// TestLagStreamsBatches: a report of more groups than one batch
// (lag.LagBatchGroups) comes out whole and in order in every format,
// with the lags the broker implies.
func TestLagStreamsBatches(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(2, nil)
	c.Produce(topic, map[int32]int{0: 10, 1: 10}, time.Time{})
	n := 2*lag.LagBatchGroups + 5
	names := streamGroups(t, c, topic, n)
	// Named in reverse: the report is sorted all the same.
	args := slices.Clone(names)
	slices.Reverse(args)

	out := lagOf(t, c, 0, args...)
	if len(out.Groups) != n {
		t.Fatalf("%d groups, want %d", len(out.Groups), n)
	}
	for i, g := range out.Groups {
		want := 2 * (10 - int64(i%5))
		if g.Group != names[i] || g.TotalLag != want || len(g.Partitions) != 2 || lagv(g.Partitions[1]) != want/2 {
			t.Fatalf("group %d = %s total %d rows %d, want %s total %d", i, g.Group, g.TotalLag, len(g.Partitions), names[i], want)
		}
	}
	r := mustRun(t, c, 0, append([]string{"lag", "-o", "csv"}, args...)...)
	recs, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
	if err != nil || len(recs) != 1+2*n || recs[1][0] != names[0] || recs[2*n][0] != names[n-1] {
		t.Fatalf("csv: %d records (%v), want %d", len(recs), err, 1+2*n)
	}
	r = mustRun(t, c, 0, append([]string{"lag"}, args...)...)
	if got := strings.Count(r.stdout, "\nGROUP ") + 1; got != n || !strings.HasPrefix(r.stdout, "GROUP "+names[0]+" ") {
		t.Fatalf("table: %d group blocks, want %d", got, n)
	}
	r = mustRun(t, c, 0, "groups", "-o", "json")
	var gs struct{ Groups []lag.GroupSummary }
	decodeJSON(t, r, &gs)
	found := 0
	for _, g := range gs.Groups {
		if strings.HasPrefix(g.Group, names[0][:len(names[0])-4]) {
			found++
		}
	}
	if found != n {
		t.Fatalf("groups lists %d of the %d groups", found, n)
	}
}

// TestLagStreamBatchTimesOut: when a later batch gets no answer within
// --timeout, what was written stays one complete JSON document with the
// earlier batches whole, and the exit code is 1 naming the timeout, never
// 0 and never a cut document. (Whether the held batch is left out or
// written with the timeout as each group's error depends on which request
// the deadline cuts: a describe's error is per group.)
func TestLagStreamBatchTimesOut(t *testing.T) {
	c := testkit.New(t)
	if c.Fake == nil {
		t.Skip("holds a request on the in-process cluster")
	}
	topic := c.Topic(2, nil)
	c.Produce(topic, map[int32]int{0: 10, 1: 10}, time.Time{})
	n := lag.LagBatchGroups + 3
	names := streamGroups(t, c, topic, n)
	release := make(chan struct{})
	defer close(release)
	var held atomic.Int32
	c.Fake.ControlKey(int16(kmsg.OffsetFetch), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.Fake.KeepControl()
		for _, g := range req.(*kmsg.OffsetFetchRequest).Groups {
			if g.Group == names[n-1] { // the second batch
				held.Add(1)
				c.Fake.SleepControl(func() { <-release })
			}
		}
		return nil, nil, false
	})
	r := offsetctl(t, c, append([]string{"lag", "-o", "json", "--timeout", "2s"}, names...)...)
	if held.Load() == 0 {
		t.Fatalf("the second batch's OffsetFetch never came: exit %d\n%s", r.code, r.stderr)
	}
	if r.code != 1 || !(strings.Contains(r.stderr, "did not answer within 2s") || strings.Contains(r.stderr, "deadline exceeded")) {
		t.Fatalf("exit %d stderr %q, want 1 and the timeout", r.code, r.stderr)
	}
	// The first batch is whole; the held batch is either left out (the
	// batch failed) or its groups carry the timeout as their error.
	var out lagJSON
	decodeJSON(t, r, &out)
	if len(out.Groups) != lag.LagBatchGroups && len(out.Groups) != n {
		t.Fatalf("%d groups written, want the first batch's %d or all %d", len(out.Groups), lag.LagBatchGroups, n)
	}
	for i, g := range out.Groups {
		switch {
		case g.Group != names[i]:
			t.Fatalf("group %d is %s, want %s", i, g.Group, names[i])
		case i < lag.LagBatchGroups && (g.Error != "" || g.TotalLag != 2*(10-int64(i%5))):
			t.Errorf("first batch group %s: error %q total %d", g.Group, g.Error, g.TotalLag)
		case i >= lag.LagBatchGroups && !strings.Contains(g.Error, "deadline exceeded"):
			t.Errorf("held batch group %s: error %q, want the timeout", g.Group, g.Error)
		}
	}
}
