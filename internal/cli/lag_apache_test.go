package cli

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetctl/offsetctl/internal/testkit"
)

// apacheRow is one row of kafka-consumer-groups --describe.
type apacheRow struct {
	group, topic      string
	partition         int32
	current, end, lag string
}

// parseApacheDescribe parses the rows of `--describe` output (blank lines,
// "has no active members" notes and the header skipped).
func parseApacheDescribe(t *testing.T, out string) map[string]apacheRow {
	t.Helper()
	rows := map[string]apacheRow{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 6 || f[0] == "GROUP" || strings.HasPrefix(line, "Consumer group") {
			continue
		}
		p, err := strconv.ParseInt(f[2], 10, 32)
		if err != nil {
			t.Fatalf("unparsable describe row %q", line)
		}
		r := apacheRow{group: f[0], topic: f[1], partition: int32(p), current: f[3], end: f[4], lag: f[5]}
		rows[r.group+"/"+r.topic+"/"+f[2]] = r
	}
	return rows
}

// TestLagMatchesApache compares COMMITTED, LOG-END and LAG with Apache's
// kafka-consumer-groups --describe for the same groups (real broker only).
func TestLagMatchesApache(t *testing.T) {
	c := testkit.New(t)
	if !testkit.Real() {
		t.Skip("needs a real broker and Apache's tool")
	}
	topic := c.Topic(3, nil)
	c.Produce(topic, map[int32]int{0: 20, 1: 15, 2: 9}, time.Time{})
	c.DeleteRecords(topic, 2, 5)
	plain := testkit.Name(t, "plain")
	c.Commit(plain, topic, map[int32]int64{0: 3, 1: 15, 2: 7})
	below := testkit.Name(t, "below")
	c.Commit(below, topic, map[int32]int64{0: 20, 2: 1})
	live := testkit.Name(t, "live")
	c.Commit(live, topic, map[int32]int64{0: 10, 1: 10, 2: 6})
	c.Consumer(live, topic, false, kgo.AutoCommitInterval(100*time.Millisecond))
	// The live member commits what it consumes: wait until it has
	// committed the log ends, after which its commits no longer move, so
	// both tools see the same commits. (A fixed 6s sleep raced the default
	// 5s auto-commit on a slow machine.)
	replayWaitCommitted(t, c, live, topic, map[int32]int64{0: 20, 1: 15, 2: 9})

	// Members assigned partitions they never commit, classic and KIP-848:
	// Apache shows CURRENT-OFFSET and LAG "-" there (issue 11).
	fresh := testkit.Name(t, "fresh")
	c.Consumer(fresh, topic, false, kgo.DisableAutoCommit())
	fresh848 := testkit.Name(t, "fresh848")
	c.Consumer(fresh848, topic, true, kgo.DisableAutoCommit())
	for _, g := range []string{fresh, fresh848} {
		waitRows(t, c, g, 3)
	}

	groups := []string{plain, below, live, fresh, fresh848}
	args := []string{"--describe"}
	for _, g := range groups {
		args = append(args, "--group", g)
	}
	apache := parseApacheDescribe(t, c.ApacheTool(args...))
	ours := lagOf(t, c, 0, groups...)
	compared := 0
	for _, g := range groups {
		gl := findGroup(t, ours, g)
		for _, p := range gl.Partitions {
			key := g + "/" + p.Topic + "/" + strconv.Itoa(int(p.Partition))
			a, ok := apache[key]
			if !ok {
				t.Errorf("%s: in offsetctl, not in Apache's output", key)
				continue
			}
			compared++
			cur := "-"
			if p.Committed != nil {
				cur = strconv.FormatInt(*p.Committed, 10)
			}
			if a.current != cur || a.end != strconv.FormatInt(p.LogEnd, 10) || a.lag != lagStr(p) {
				t.Errorf("%s: Apache CURRENT %s END %s LAG %s, offsetctl %s %d %s", key, a.current, a.end, a.lag, cur, p.LogEnd, lagStr(p))
			}
		}
	}
	for _, g := range []string{fresh, fresh848} {
		if gl := findGroup(t, ours, g); gl.TotalLag != 0 {
			t.Errorf("%s: TOTAL-LAG %d, want 0 (unknown lags are not summed)", g, gl.TotalLag)
		}
	}
	if compared != len(apache) || compared < 14 {
		t.Errorf("compared %d rows; Apache printed %d", compared, len(apache))
	}
}

// waitRows waits until a live group shows n assigned rows.
func waitRows(t *testing.T, c *testkit.Cluster, g string, n int) {
	t.Helper()
	for deadline := time.Now().Add(45 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		gl := findGroup(t, lagOf(t, c, 0, g), g)
		if gl.State == "Stable" && len(gl.Partitions) == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("group %s: %s with %d rows, want Stable with %d", g, gl.State, len(gl.Partitions), n)
		}
	}
}
