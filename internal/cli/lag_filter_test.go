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
