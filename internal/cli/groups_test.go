package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetctl/offsetctl/internal/lag"
	"github.com/offsetctl/offsetctl/internal/testkit"
)

// groups --state: an empty value or an empty item is bad input (exit 2,
// one line), never "every state" (--state Empty, listed Stable groups);
// a list or repeated flags filter on their union, case-insensitively.
func TestGroupsStateList(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(1, nil)
	idle := testkit.Name(t, "idle")
	c.Commit(idle, topic, map[int32]int64{0: 0})
	live := testkit.Name(t, "live")
	c.Consumer(live, topic, false, kgo.DisableAutoCommit())

	for _, tc := range []struct {
		state []string
		want  string
	}{
		{[]string{"Empty,"}, `--state item 2 is empty (valid states are Empty, Dead, Stable,`},
		{[]string{",Stable"}, `--state item 1 is empty`},
		{[]string{"Empty,,Stable"}, `--state item 2 is empty`},
		{[]string{""}, `--state must name at least one state (valid states are`},
		{[]string{"Empty", " "}, `--state must name at least one state (valid`},
		{[]string{"Empty,Bogus"}, `--state item 2 is not a state (valid states are`},
		{[]string{"bogus"}, `--state: want a state (valid states are Empty, Dead,`},
		{[]string{"x\x1b[2Jsecret=hunter2"}, `--state: want a state (valid states are Empty, Dead,`},
		{[]string{"Empty,x\x1b[2Jsecret=hunter2"}, `--state item 2 is not a state (valid states are`},
	} {
		args := []string{"groups"}
		for _, s := range tc.state {
			args = append(args, "--state", s)
		}
		r := offsetctl(t, c, args...)
		line := strings.TrimSpace(r.stderr)
		if r.code != 2 || r.stdout != "" || strings.Contains(line, "\n") || !strings.Contains(line, tc.want) {
			t.Errorf("%q: exit %d stdout %q stderr %q; want exit 2 and one line with %q", args, r.code, r.stdout, r.stderr, tc.want)
		}
		if strings.Contains(line, "hunter2") {
			t.Errorf("%q: stderr echoes the value: %q", args, line)
		}
	}

	listed := func(args ...string) map[string]string {
		t.Helper()
		var out struct {
			Groups []lag.GroupSummary `json:"groups"`
		}
		decodeJSON(t, mustRun(t, c, 0, append([]string{"groups", "-o", "json"}, args...)...), &out)
		got := map[string]string{}
		for _, g := range out.Groups {
			if g.Group == idle || g.Group == live {
				got[g.Group] = g.State
			}
		}
		return got
	}
	if got := listed("--state", " empty "); len(got) != 1 || got[idle] != "Empty" {
		t.Errorf("--state ' empty ' listed %v, want only %s", got, idle)
	}
	if got := listed("--state", "Empty,stable"); len(got) != 2 || got[live] != "Stable" {
		t.Errorf("--state Empty,stable listed %v, want both groups", got)
	}
	if got := listed("--state", "STABLE", "--state", "Stable"); len(got) != 1 || got[live] != "Stable" {
		t.Errorf("--state STABLE --state Stable listed %v, want only %s", got, live)
	}
}

// groups printed a bare header, exit 0 and not a word, when a pattern
// matched nothing, a filter left no group, or the cluster had none; lag
// says why in each case. groups does too (stderr; stdout stays the
// header).
func TestGroupsEmptySaysWhy(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(1, nil)
	c.Produce(topic, map[int32]int{0: 5}, time.Time{})
	group := testkit.Name(t, "g")
	c.Commit(group, topic, map[int32]int64{0: 3})
	pat := testkit.Name(t, "nomatch") + "-.*"
	r := mustRun(t, c, 0, "groups", "-r", pat)
	if r.stderr != "no consumer groups found\noffsetctl: warning: GROUP pattern "+pat+" matched no group\n" || strings.Count(r.stdout, "\n") != 1 {
		t.Errorf("pattern matching nothing:\nstdout %q\nstderr %q", r.stdout, r.stderr)
	}
	r = mustRun(t, c, 0, "groups", "--group", group, "--min-lag", "100")
	if r.stderr != "no group has a TOTAL-LAG ≥ 100\n" {
		t.Errorf("--min-lag leaving none: stderr %q", r.stderr)
	}
	r = mustRun(t, c, 0, "groups", "--group", group, "--min-lag", "2")
	if r.stderr != "" || !strings.Contains(r.stdout, group) {
		t.Errorf("--min-lag keeping the group:\nstdout %q\nstderr %q", r.stdout, r.stderr)
	}
}
