package cli

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/offsetctl/offsetctl/internal/testkit"
)

// statusRunSampled runs offsetctl with a clock that the wait between lag
// --status's two samples moves on by the wait itself (from the real time
// of the wait, so the first sample's time, which the gather takes from the
// wall clock, is a few ms before it), after between has run.
func statusRunSampled(t *testing.T, c *testkit.Cluster, between func(), args ...string) result {
	t.Helper()
	var mu sync.Mutex
	var clock time.Time
	var out, errb bytes.Buffer
	a := &app{stdout: &out, stderr: &errb, stdin: strings.NewReader(""), getenv: testEnv(t, nil),
		now: func() time.Time {
			mu.Lock()
			defer mu.Unlock()
			if clock.IsZero() {
				return time.Now()
			}
			return clock
		},
		sleep: func(ctx context.Context, d time.Duration) error {
			mu.Lock()
			clock = time.Now().Add(d)
			mu.Unlock()
			between()
			return ctx.Err()
		}}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	code := a.execute(ctx, append([]string{"--brokers", c.BrokerList()}, args...))
	return result{stdout: out.String(), stderr: errb.String(), code: code}
}

// WARN as Burrow's rule 3 has it, from two samples 4 s apart on kfake: a
// consumer whose offset moves from 50 to 60 while its lag stays at 50 is
// WARN (it was OK: offsetctl wanted the lag to grow), one whose lag grows
// is WARN, one whose lag falls is OK; the reason gives the 4 s the samples
// span, not the 10m window (it said "at each of 2 points in 10m0s").
func TestLagStatusSampledWarnAsBurrow(t *testing.T) {
	c := testkit.New(t)
	type tc struct {
		topic, group string
		more         int   // records written between the samples
		to           int64 // the commit between the samples
		status       string
		reason       string
	}
	cases := []*tc{
		{more: 10, to: 60, status: "WARN", reason: "lag stayed at 50 at 2 points over 4s while the offset moved from 50 to 60"},
		{more: 25, to: 60, status: "WARN", reason: "lag grew from 50 to 65, never falling, at 2 points over 4s while the offset moved from 50 to 60"},
		{more: 10, to: 70, status: "OK", reason: "all 1 partition(s) OK"},
	}
	var args []string
	for _, k := range cases {
		k.topic, k.group = c.Topic(1, nil), testkit.Name(t, "warn")
		c.Produce(k.topic, map[int32]int{0: 100}, time.Time{})
		c.Commit(k.group, k.topic, map[int32]int64{0: 50})
		args = append(args, k.group)
	}
	between := func() {
		for _, k := range cases {
			c.Produce(k.topic, map[int32]int{0: k.more}, time.Time{})
			c.Commit(k.group, k.topic, map[int32]int64{0: k.to})
		}
	}
	r := statusRunSampled(t, c, between, append([]string{"lag", "--status", "--status-source", "sample", "--sample", "4s"}, args...)...)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	for _, k := range cases {
		line, row := tableGroup(t, r.stdout, k.group)
		want := "STATUS " + k.status + " (" + k.reason
		if k.status != "OK" {
			want = "STATUS " + k.status + " (" + k.topic + "/0: " + k.reason + ")"
		}
		if !strings.Contains(line, want) {
			t.Errorf("group line %q, want %q", line, want)
		}
		if f := strings.Fields(row); len(f) == 0 || f[0] != k.topic || f[len(f)-1] != k.status {
			t.Errorf("%s: row %q, want STATUS %s", k.group, row, k.status)
		}
	}
	if strings.Contains(r.stdout, "10m0s") {
		t.Errorf("a reason names the window, not the span of the samples:\n%s", r.stdout)
	}
}

// tableGroup is group's line in a lag table and its first partition row.
func tableGroup(t *testing.T, out, group string) (line, row string) {
	t.Helper()
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "GROUP "+group+" ") && i+2 < len(lines) {
			return l, lines[i+2]
		}
	}
	t.Fatalf("no group %s in\n%s", group, out)
	return "", ""
}
