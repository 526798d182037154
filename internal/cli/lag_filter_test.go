package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/offsetctl/offsetctl/internal/testkit"
)

// TestLagAskedPartitionWithoutCommit: `lag G --topic T:3`, where G (no
// member) never committed on partition 3, shows the row with COMMITTED and
// LAG "-" (JSON null), not nothing; with --all-groups a group that never
// touched T stays out.
func TestLagAskedPartitionWithoutCommit(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(4, nil)
	other := c.Topic(1, nil)
	c.Produce(topic, map[int32]int{0: 5, 3: 7}, time.Time{})
	g := testkit.Name(t, "g")
	c.Commit(g, topic, map[int32]int64{0: 2, 1: 0})
	h := testkit.Name(t, "h")
	c.Commit(h, other, map[int32]int64{0: 0})

	rep := lagOf(t, c, 0, g, "--topic", topic+":3")
	rows := findGroup(t, rep, g).Partitions
	if len(rows) != 1 || rows[0].Partition != 3 || rows[0].Committed != nil || rows[0].Lag != nil || rows[0].LogEnd != 7 {
		t.Fatalf("lag --topic T:3: rows %+v, want partition 3 with committed and lag null, log end 7", rows)
	}
	rep = lagOf(t, c, 0, g, "--topic", topic+":0,3")
	if rows := findGroup(t, rep, g).Partitions; len(rows) != 2 || *rows[0].Committed != 2 || *rows[0].Lag != 3 || rows[1].Committed != nil {
		t.Fatalf("lag --topic T:0,3: rows %+v", rows)
	}
	if tot := findGroup(t, rep, g).TotalLag; tot != 3 {
		t.Fatalf("total lag %d, want 3 (the unknown row is not counted)", tot)
	}

	r := mustRun(t, c, 0, "lag", g, "--topic", topic+":3")
	var row []string
	for _, l := range strings.Split(r.stdout, "\n") {
		if f := strings.Fields(l); len(f) > 2 && f[0] == topic && f[1] == "3" {
			row = f
		}
	}
	// TOPIC PARTITION LOG-START COMMITTED LOG-END LAG ...
	if len(row) < 6 || row[3] != "-" || row[5] != "-" {
		t.Fatalf("table row for partition 3 = %v:\n%s", row, r.stdout)
	}

	rep = lagOf(t, c, 0, "--all-groups", "--topic", topic+":3")
	for _, gl := range rep.Groups {
		if gl.Group == h {
			t.Fatalf("--all-groups --topic T:3 shows %s, which never touched %s", h, topic)
		}
	}
	if rows := findGroup(t, rep, g).Partitions; len(rows) != 1 || rows[0].Partition != 3 || rows[0].Committed != nil {
		t.Fatalf("--all-groups: rows of %s = %+v", g, rows)
	}
}

// A group that crossed a --fail-if threshold beside a named group that
// could not be read: exit 1 (a partial failure outranks 4: the check could
// not be made whole), and the threshold line for the group that crossed
// is still on stderr, before the error line (QA finding: `lag
// orders-billing nosuch --fail-if 'lag>1'` exited 1 and dropped it), for
// lag (lag>N and status>=S) and groups.
func TestFailIfWithFailedGroupKeepsThresholdLine(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(1, nil)
	c.Produce(topic, map[int32]int{0: 15}, time.Time{})
	g := testkit.Name(t, "crossed")
	c.Commit(g, topic, map[int32]int64{0: 10})
	nosuch := testkit.Name(t, "nosuch")
	for _, args := range [][]string{
		{"lag", g, nosuch, "--fail-if", "lag>1"},
		{"lag", g, nosuch, "--fail-if", "lag>1", "-o", "json"},
		{"lag", g, nosuch, "--fail-if", "status>=STOP", "--status-source", "sample", "--sample", "1ms", "--window", "1ms"},
		{"groups", "--group", g, "--group", nosuch, "--fail-if", "total-lag>1"},
	} {
		r := offsetctl(t, c, args...)
		lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
		last := lines[len(lines)-1]
		crossed := -1
		for i, l := range lines {
			if strings.HasPrefix(l, "offsetctl: threshold crossed by group "+g+" ") {
				crossed = i
			}
		}
		if r.code != 1 || crossed < 0 || crossed == len(lines)-1 || !strings.Contains(last, nosuch) || strings.Contains(r.stderr, "threshold crossed by group "+nosuch) {
			t.Errorf("%s: exit %d, want 1 with the threshold line for %s and then the error line for %s\n%s", strings.Join(args, " "), r.code, g, nosuch, r.stderr)
		}
	}
}

// TestLagMinLagLeavesNothing: `lag G --min-lag 100` for a group that
// exists with lag 13 says so on stderr (it said "no consumer groups
// found", as if G did not exist), naming the group, or counting the
// groups when several were read; stdout stays data only: nothing for the
// table, an empty array in JSON, the header alone in CSV; the exit is 0.
func TestLagMinLagLeavesNothing(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(2, nil)
	c.Produce(topic, map[int32]int{0: 8, 1: 5}, time.Time{})
	g, h := testkit.Name(t, "g"), testkit.Name(t, "h")
	c.Commit(g, topic, map[int32]int64{0: 0, 1: 0})
	c.Commit(h, topic, map[int32]int64{0: 8})

	r := mustRun(t, c, 0, "lag", g, "--min-lag", "100")
	if want := "no partition of group " + g + " has lag ≥ 100\n"; r.stdout != "" || r.stderr != want {
		t.Errorf("one group: stdout %q stderr %q, want stderr %q", r.stdout, r.stderr, want)
	}
	r = mustRun(t, c, 0, "lag", g, h, "--min-lag", "1e2")
	if want := "no partition with lag ≥ 100 in 2 group(s)\n"; r.stdout != "" || r.stderr != want {
		t.Errorf("two groups: stdout %q stderr %q, want stderr %q", r.stdout, r.stderr, want)
	}
	r = mustRun(t, c, 0, "lag", g, "--min-lag", "100", "--by", "topic")
	if want := "no partition of group " + g + " has lag ≥ 100\n"; !strings.HasPrefix(r.stdout, "GROUP ") || strings.Count(r.stdout, "\n") != 1 || r.stderr != want {
		t.Errorf("--by topic: stdout %q stderr %q, want the header and stderr %q", r.stdout, r.stderr, want)
	}
	r = mustRun(t, c, 0, "lag", g, "--min-lag", "100", "-o", "json")
	if rep := decodeLag(t, r); rep.Groups == nil || len(rep.Groups) != 0 || r.stderr != "" {
		t.Errorf("json: stdout %q stderr %q, want an empty array and nothing on stderr", r.stdout, r.stderr)
	}
	r = mustRun(t, c, 0, "lag", g, "--min-lag", "100", "-o", "csv")
	if !strings.HasPrefix(r.stdout, "GROUP,STATE,TOPIC,PARTITION,") || strings.Count(r.stdout, "\n") != 1 || r.stderr != "" {
		t.Errorf("csv: stdout %q stderr %q, want the header alone", r.stdout, r.stderr)
	}
	// A row that passes: shown, nothing said.
	r = mustRun(t, c, 0, "lag", g, "--min-lag", "6")
	if !strings.Contains(r.stdout, "GROUP "+g) || r.stderr != "" {
		t.Errorf("--min-lag 6: stdout %q stderr %q", r.stdout, r.stderr)
	}
}
