package cli

import (
	"errors"
	"io/fs"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/offsetctl/offsetctl/internal/lag"
	"github.com/offsetctl/offsetctl/internal/testkit"
)

// Kafka Streams groups (KIP-1071, Apache Kafka 4.x): `groups` lists them
// with TYPE streams, `lag` reads their committed offsets (hand-computed
// here) and their members from StreamsGroupDescribe, a pattern selection
// of lag includes them, and reset refuses them, empty or live, saying what
// they are, with the offsets left as they were on the broker.
func TestStreamsGroups(t *testing.T) {
	if !testkit.Real() {
		t.Skip("needs a real broker: kfake has no streams groups (KIP-1071)")
	}
	c := testkit.New(t)
	topic := c.Topic(2, nil)
	c.Produce(topic, map[int32]int{0: 10, 1: 5}, time.Now())
	group := testkit.Name(t, "streams")
	c.StreamsMember(group, topic)() // join and leave: an Empty streams group
	// An empty streams group takes an admin commit, as a Streams
	// application's own commits would leave it.
	c.Commit(group, topic, map[int32]int64{0: 4, 1: 5})

	var groups struct {
		Groups []lag.GroupSummary `json:"groups"`
	}
	decodeJSON(t, mustRun(t, c, 0, "groups", "-o", "json", "-r", regexp.QuoteMeta(group)), &groups)
	if len(groups.Groups) != 1 || groups.Groups[0].Type != "streams" || groups.Groups[0].State != "Empty" {
		t.Fatalf("groups -r %s = %+v, want one Empty streams group", group, groups.Groups)
	}
	table := mustRun(t, c, 0, "groups", "-r", regexp.QuoteMeta(group)).stdout
	if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(group) + `\s+streams\s+Empty\b`).MatchString(table) {
		t.Errorf("groups table does not show %s as an Empty streams group:\n%s", group, table)
	}

	gl := findGroup(t, lagOf(t, c, 0, group), group)
	want := map[int32][3]int64{0: {4, 10, 6}, 1: {5, 5, 0}} // committed, log end, lag
	if gl.Type != "streams" || gl.TotalLag != 6 || len(gl.Partitions) != 2 {
		t.Fatalf("lag %s = %+v, want a streams group with total lag 6 over 2 partitions", group, gl)
	}
	for _, p := range gl.Partitions {
		w := want[p.Partition]
		if p.Topic != topic || p.Committed == nil || *p.Committed != w[0] || p.LogEnd != w[1] || p.Lag == nil || *p.Lag != w[2] {
			t.Errorf("lag row %+v, want committed %d log end %d lag %d", p, w[0], w[1], w[2])
		}
	}
	refuseStreamsReset(t, c, group, topic)

	// Live: a pattern selection of lag includes the group with its member,
	// --members shows the member's two partitions once the broker has
	// assigned its task (after the streams initial rebalance delay), and
	// reset still refuses the group.
	c.StreamsMember(group, topic)
	gl = findGroup(t, lagOf(t, c, 0, "-r", regexp.QuoteMeta(group)), group)
	if gl.Type != "streams" || gl.Members != 1 {
		t.Errorf("live streams group %+v, want type streams with 1 member", gl)
	}
	var members struct {
		Members []lag.MemberRow `json:"members"`
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		decodeJSON(t, mustRun(t, c, 0, "lag", "-o", "json", "--members", group), &members)
		if len(members.Members) == 1 && members.Members[0].Partitions == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("lag --members %s = %+v, want one member with 2 partitions", group, members.Members)
		}
		time.Sleep(500 * time.Millisecond)
	}
	refuseStreamsReset(t, c, group, topic)
}

// refuseStreamsReset: reset, delete-offsets and delete-group refuse the
// streams group, dry run and --execute, naming what it is, and its offsets
// stay as they were on the broker.
func refuseStreamsReset(t *testing.T, c *testkit.Cluster, group, topic string) {
	t.Helper()
	dir := t.TempDir()
	for _, args := range [][]string{
		{"reset", group, "--topic", topic, "--to", "earliest"},
		{"reset", group, "--topic", topic, "--to", "earliest", "--execute", "--backup", dir + "/r.csv"},
		{"delete-offsets", group, "--topic", topic},
		{"delete-offsets", group, "--topic", topic, "--execute", "--backup", dir + "/o.csv"},
		{"delete-group", group},
		{"delete-group", group, "--execute", "--backup", dir + "/g.csv"},
	} {
		r := mustRun(t, c, 1, args...)
		if !strings.Contains(r.stderr, "is a Kafka Streams group (KIP-1071)") || !strings.Contains(r.stderr, "kafka-streams-groups.sh") {
			t.Errorf("%v of a streams group: stderr %q, want it named a Kafka Streams group", args, r.stderr)
		}
		assertCommitted(t, c, group, topic, map[int32]int64{0: 4, 1: 5})
	}
	// Refused before anything is written: no backup file of any of them.
	for _, f := range []string{"r.csv", "o.csv", "g.csv"} {
		if _, err := os.Stat(dir + "/" + f); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("a refused streams group left a backup %s (stat: %v)", f, err)
		}
	}
}
