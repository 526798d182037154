package cli

import (
	"bufio"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/offsetctl/offsetctl/internal/admin"
	"github.com/offsetctl/offsetctl/internal/audit"
	"github.com/offsetctl/offsetctl/internal/lag"
	"github.com/offsetctl/offsetctl/internal/testkit"
	"github.com/offsetctl/offsetctl/report"
)

// shareFixture is a share group (KIP-932) that had a member (so the
// broker knows it as a share group on Apache and kfake alike), now empty,
// with start offsets set by hand on a 3-partition topic of 10 records a
// partition: 2, 5 and 10, so its lags are 8, 5 and 0. Record i of each
// partition has timestamp base + i ms, two hours ago.
type shareFixture struct {
	c            *testkit.Cluster
	topic, group string
	base         time.Time
}

func newShareFixture(t *testing.T, c *testkit.Cluster) shareFixture {
	t.Helper()
	f := shareFixture{c: c, topic: c.Topic(3, nil), group: testkit.Name(t, "share"), base: time.Now().Add(-2 * time.Hour).Truncate(time.Second).UTC()}
	c.Produce(f.topic, map[int32]int{0: 10, 1: 10, 2: 10}, f.base)
	stop := c.ShareConsumer(f.group, f.topic, 3)
	stop()
	c.SetShareOffsets(f.group, f.topic, map[int32]int64{0: 2, 1: 5, 2: 10})
	return f
}

// shareLag runs lag -o json on the group and returns its group.
func shareLag(t *testing.T, c *testkit.Cluster, args ...string) lag.GroupLag {
	t.Helper()
	var rep lag.LagReport
	decodeJSON(t, mustRun(t, c, 0, append([]string{"lag", "-o", "json"}, args...)...), &rep)
	if len(rep.Groups) != 1 {
		t.Fatalf("lag %v: %d groups, want 1: %+v", args, len(rep.Groups), rep.Groups)
	}
	return rep.Groups[0]
}

// groups lists a share group with TYPE share, its state, members and
// total lag; lag shows each share-partition's start offset against the log
// start and end, and the broker's lag; the triage flags and --regex work
// on it as on a consumer group.
func TestShareGroupsListAndLag(t *testing.T) {
	c := testkit.New(t)
	f := newShareFixture(t, c)
	consumer := testkit.Name(t, "plain")
	c.Commit(consumer, f.topic, map[int32]int64{0: 1})

	var listed struct {
		Groups []lag.GroupSummary `json:"groups"`
	}
	decodeJSON(t, mustRun(t, c, 0, "groups", "-o", "json"), &listed)
	found := map[string]lag.GroupSummary{}
	for _, g := range listed.Groups {
		found[g.Group] = g
	}
	sg, ok := found[f.group]
	if !ok || sg.Type != "share" || sg.State != "Empty" || sg.Members != 0 || sg.TotalLag == nil || *sg.TotalLag != 13 || sg.Error != "" || strings.Join(sg.Topics, ",") != f.topic {
		t.Errorf("groups: share group %s listed as %+v (found %v), want type share, Empty, 0 members, total lag 13 on %s", f.group, sg, ok, f.topic)
	}
	if cg := found[consumer]; cg.Type == "share" || cg.TotalLag == nil || *cg.TotalLag != 9 {
		t.Errorf("groups: consumer group %s listed as %+v, want a consumer group with lag 9", consumer, cg)
	}
	table := mustRun(t, c, 0, "groups", "--regex", f.group).stdout
	if !strings.Contains(table, "share") || !strings.Contains(table, f.group) || strings.Contains(table, consumer) {
		t.Errorf("groups --regex %s table:\n%s\nwant the share group alone, TYPE share", f.group, table)
	}

	g := shareLag(t, c, f.group)
	if g.Type != "share" || !strings.Contains(g.Note, "share-partition start offset") || g.TotalLag != 13 || len(g.Partitions) != 3 {
		t.Fatalf("lag %s: %+v, want type share, a note on the columns, total 13, 3 rows", f.group, g)
	}
	want := []struct{ start, lag int64 }{{2, 8}, {5, 5}, {10, 0}}
	for i, p := range g.Partitions {
		if p.Partition != int32(i) || p.Committed == nil || *p.Committed != want[i].start || p.Lag == nil || *p.Lag != want[i].lag || p.LogStart != 0 || p.LogEnd != 10 || p.Error != "" {
			t.Errorf("lag row %d: %+v (committed %v lag %v), want start offset %d, log 0..10, lag %d", i, p, deref(p.Committed), deref(p.Lag), want[i].start, want[i].lag)
		}
	}

	// --time-lag: the record at a start offset is that old (record i of
	// each partition was written at base + i ms); a caught-up partition
	// has none to wait on.
	tl := shareLag(t, c, f.group, "--time-lag")
	p0 := tl.Partitions[0].TimeLagMs
	wantMin := time.Since(f.base.Add(2*time.Millisecond)).Milliseconds() - 60_000
	if p0 == nil || *p0 < wantMin || *p0 > wantMin+3_600_000 {
		t.Errorf("--time-lag partition 0: %v ms, want about %d (the record at start offset 2)", deref(p0), wantMin+60_000)
	}
	if p2 := tl.Partitions[2].TimeLagMs; p2 != nil && *p2 != 0 {
		t.Errorf("--time-lag partition 2 (caught up): %d ms, want 0 or none", *p2)
	}

	// Triage: --min-lag keeps partition 0 alone, --by topic rolls up,
	// --fail-if crosses, and --regex selects the share group.
	if got := shareLag(t, c, "--regex", f.group, "--min-lag", "6"); len(got.Partitions) != 1 || got.Partitions[0].Partition != 0 {
		t.Errorf("lag --min-lag 6: rows %+v, want partition 0 alone", got.Partitions)
	}
	r := mustRun(t, c, 4, "lag", f.group, "--fail-if", "lag>7")
	if !strings.Contains(r.stderr, f.group) {
		t.Errorf("--fail-if lag>7: stderr %q does not name the group", r.stderr)
	}
	mustRun(t, c, 0, "lag", f.group, "--fail-if", "lag>8")
	var byTopic struct {
		Groups []struct {
			Type   string `json:"type"`
			Topics []struct {
				Lag    int64 `json:"lag"`
				MaxLag int64 `json:"max_lag"`
			} `json:"topics"`
		} `json:"groups"`
	}
	decodeJSON(t, mustRun(t, c, 0, "lag", f.group, "--by", "topic", "-o", "json"), &byTopic)
	if len(byTopic.Groups) != 1 || byTopic.Groups[0].Type != "share" || len(byTopic.Groups[0].Topics) != 1 || byTopic.Groups[0].Topics[0].Lag != 13 || byTopic.Groups[0].Topics[0].MaxLag != 8 {
		t.Errorf("lag --by topic: %+v, want one share group, one topic of lag 13, max 8", byTopic)
	}
}

// A live share consumer shows as a member owning its partitions, and each
// row's start offset is what the broker answers DescribeShareGroupOffsets
// (kfake initializes it at the assignment, Apache 4.4 when a record is
// first acknowledged: "-" until then, with a note).
func TestShareGroupLagLiveMember(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(2, nil)
	group := testkit.Name(t, "share")
	c.ShareConsumer(group, topic, 2)
	// kfake initializes the start offsets at the member's first fetch:
	// judge a lag run that the broker's answers before and after agree on.
	var g lag.GroupLag
	var broker map[int32]int64
	for try := 0; ; try++ {
		before := c.ShareOffsets(group)[topic]
		g = shareLag(t, c, group)
		broker = c.ShareOffsets(group)[topic]
		if maps.Equal(before, broker) || try == 50 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if g.Type != "share" || g.Members != 1 || g.State != "Stable" || len(g.Partitions) != 2 {
		t.Fatalf("lag of a live share group: %+v, want type share, 1 member, Stable, 2 rows", g)
	}
	var states struct {
		Groups []lag.GroupState `json:"groups"`
	}
	decodeJSON(t, mustRun(t, c, 0, "lag", group, "--state", "-o", "json"), &states)
	if len(states.Groups) != 1 || states.Groups[0].Type != "share" || states.Groups[0].Members != 1 || states.Groups[0].State != "Stable" || states.Groups[0].Assignor == "" || states.Groups[0].Coordinator == nil {
		t.Errorf("lag --state: %+v, want one share group, 1 member, Stable, its assignor and coordinator", states.Groups)
	}
	var members struct {
		Members []lag.MemberRow `json:"members"`
	}
	decodeJSON(t, mustRun(t, c, 0, "lag", group, "--members", "-o", "json"), &members)
	if len(members.Members) != 1 || members.Members[0].Partitions != 2 || members.Members[0].MemberID != g.Partitions[0].Member {
		t.Errorf("lag --members: %+v, want the one member with 2 partitions", members.Members)
	}
	for _, p := range g.Partitions {
		start, known := broker[p.Partition]
		switch {
		case p.Member == "" || p.LogEnd != 0:
			t.Errorf("row %+v: want the member named and log end 0", p)
		case known && (p.Committed == nil || *p.Committed != start || p.Lag == nil || *p.Lag != 0):
			t.Errorf("row %+v (start %v lag %v): the broker says start offset %d, lag 0", p, deref(p.Committed), deref(p.Lag), start)
		case !known && (p.Committed != nil || p.Lag != nil || p.Note != lag.NoteShareNoStart):
			t.Errorf("row %+v: the broker has no start offset, want none shown and the note %q", p, lag.NoteShareNoStart)
		}
	}
}

// Share-group lag agrees with Apache's kafka-share-groups --describe row by
// row: group, topic, partition, start offset and lag (Apache 4.4 only).
func TestShareGroupLagMatchesApache(t *testing.T) {
	c := testkit.New(t)
	if !testkit.Real() {
		t.Skip("Apache's share-group tool needs a real broker")
	}
	f := newShareFixture(t, c)
	c.Produce(f.topic, map[int32]int{1: 3}, time.Time{}) // partition 1: log end 13, lag 8
	g := matchApacheShare(t, c, f.group, 3)
	if *g.Partitions[1].Lag != 8 {
		t.Errorf("partition 1 lag %d after 3 more records, want 8", *g.Partitions[1].Lag)
	}
	// A live share group that has acknowledged nothing: Apache 4.4 lists
	// its partitions without a start offset ("-"), and so does offsetctl.
	fresh := testkit.Name(t, "fresh")
	stop := c.ShareConsumer(fresh, f.topic, 3)
	g = matchApacheShare(t, c, fresh, 3)
	// And once its member has left: the rows come from the broker's
	// listing alone (the topic's log offsets are still gathered for them).
	stop()
	g2 := matchApacheShare(t, c, fresh, 3)
	for _, p := range append(g.Partitions, g2.Partitions...) {
		if p.Committed != nil || p.Note != lag.NoteShareNoStart || p.LogEnd != 13 && p.LogEnd != 10 {
			t.Errorf("fresh share group row %+v: want no start offset, the note and the log end", p)
		}
	}
}

// matchApacheShare compares lag's rows of a share group with Apache's
// kafka-share-groups --describe, row by row, and returns lag's group.
func matchApacheShare(t *testing.T, c *testkit.Cluster, group string, rows int) lag.GroupLag {
	t.Helper()
	apache := parseApacheShare(t, c.ApacheShareTool("--describe", "--group", group))
	g := shareLag(t, c, group)
	if len(apache) != len(g.Partitions) || len(apache) != rows {
		t.Fatalf("group %s: Apache shows %d rows %v, offsetctl %d: %+v", group, len(apache), apache, len(g.Partitions), g.Partitions)
	}
	for i, p := range g.Partitions {
		a := apache[i]
		if a.group != group || a.topic != p.Topic || a.partition != p.Partition || !sameOpt(a.start, p.Committed) || !sameOpt(a.lag, p.Lag) {
			t.Errorf("row %d: Apache %s %s/%d start %v lag %v, offsetctl %s/%d start %v lag %v", i, a.group, a.topic, a.partition, deref(a.start), deref(a.lag), p.Topic, p.Partition, deref(p.Committed), deref(p.Lag))
		}
	}
	return g
}

// apacheShareRow is one row of kafka-share-groups --describe; start and
// lag are nil where Apache prints "-".
type apacheShareRow struct {
	group, topic string
	partition    int32
	start, lag   *int64
}

// parseApacheShare reads kafka-share-groups --describe: a header line
// GROUP TOPIC PARTITION START-OFFSET LAG, then one row per share-partition.
func parseApacheShare(t *testing.T, out string) []apacheShareRow {
	t.Helper()
	var rows []apacheShareRow
	header := false
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) == 0 {
			continue
		}
		if fs[0] == "GROUP" {
			if strings.Join(fs, " ") != "GROUP TOPIC PARTITION START-OFFSET LAG" {
				t.Fatalf("Apache's header changed: %q", sc.Text())
			}
			header = true
			continue
		}
		if !header || len(fs) != 5 {
			t.Fatalf("unexpected Apache line %q in:\n%s", sc.Text(), out)
		}
		p, err1 := strconv.ParseInt(fs[2], 10, 32)
		s, err2 := optInt(fs[3])
		l, err3 := optInt(fs[4])
		if err1 != nil || err2 != nil || err3 != nil {
			t.Fatalf("unparsable Apache row %q", sc.Text())
		}
		rows = append(rows, apacheShareRow{fs[0], fs[1], int32(p), s, l})
	}
	return rows
}

// optInt parses a number, or "-" (nil).
func optInt(s string) (*int64, error) {
	if s == "-" {
		return nil, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return &n, err
}

// sameOpt reports whether two optional numbers are both nil or equal.
func sameOpt(a, b *int64) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

func deref(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

// shareReset runs reset on the share group and returns its plan.
func shareReset(t *testing.T, c *testkit.Cluster, want int, args ...string) (admin.GroupPlan, result) {
	t.Helper()
	r := mustRun(t, c, want, append([]string{"reset", "-o", "json"}, args...)...)
	var gp admin.GroupPlan
	if r.stdout != "" {
		decodeJSON(t, r, &gp)
	}
	return gp, r
}

// reset of a share group: the dry run changes nothing, --execute sets the
// start offsets with AlterShareGroupOffsets (read back), writes a backup
// first and an audit entry, and a restore from the backup puts back
// exactly what was there; targets a start offset cannot take (shift,
// another group's commits) are exit 2 with nothing changed.
func TestShareGroupResetRoundTrip(t *testing.T) {
	c := testkit.New(t)
	f := newShareFixture(t, c)
	orig := map[int32]int64{0: 2, 1: 5, 2: 10}
	check := func(what string, want map[int32]int64) {
		t.Helper()
		if got := c.ShareOffsets(f.group)[f.topic]; !maps.Equal(got, want) {
			t.Fatalf("%s: start offsets %v, want %v", what, got, want)
		}
	}

	gp, r := shareReset(t, c, 0, f.group, "--topic", f.topic, "--to", "earliest")
	if gp.GroupType != "share" || gp.Atomic == nil || *gp.Atomic || gp.Executed || len(gp.Partitions) != 3 || !strings.Contains(gp.Note, "not in a transaction") {
		t.Errorf("dry run plan %+v: want group_type share, atomic false, not executed, 3 rows, a note", gp)
	}
	for i, pp := range gp.Partitions {
		if pp.Current == nil || *pp.Current != orig[int32(i)] || pp.Target == nil || *pp.Target != 0 {
			t.Errorf("dry run row %+v: want current %d, target 0", pp, orig[int32(i)])
		}
	}
	if !strings.Contains(r.stderr, "dry run") {
		t.Errorf("dry run stderr %q", r.stderr)
	}
	check("after the dry run", orig)

	backup := filepath.Join(t.TempDir(), "share-backup.csv")
	gp, r = shareReset(t, c, 0, f.group, "--topic", f.topic, "--to", "earliest", "--execute", "--backup", backup)
	check("after --execute --to earliest", map[int32]int64{0: 0, 1: 0, 2: 0})
	if !gp.Executed || gp.Backup != backup || !regexp.MustCompile(`(?m)^offsetctl: note: group `+regexp.QuoteMeta(f.group)+` is a share group: its start offsets are set with AlterShareGroupOffsets`).MatchString(r.stderr) || !strings.Contains(r.stderr, "undo: "+printedBy(c)+" reset") {
		t.Errorf("execute: plan %+v stderr %q: want executed, the backup, the share-group line and the undo line", gp, r.stderr)
	}
	data, err := os.ReadFile(backup)
	if err != nil || !strings.Contains(string(data), `"`+f.topic+`",1,5`) {
		t.Fatalf("backup %s: %v\n%s\nwant the start offset 5 of partition 1", backup, err, data)
	}
	es := historyOf(t, "--group", f.group)
	if len(es) != 1 || es[0].Action != audit.ActReset || entryCount(es[0].Applied) != 3 || es[0].Backup != backup {
		t.Fatalf("history: %+v, want one reset entry, 3 partitions applied, the backup", es)
	}
	if got := fmt.Sprint(changeWords(es[0].Changes)); got != fmt.Sprintf("[%[1]s/0:2→0 %[1]s/1:5→0 %[1]s/2:10→0]", f.topic) {
		t.Errorf("audit changes %s", got)
	}
	mustRun(t, c, 0, "undo", es[0].ID, "--execute", "--backup", tempBackup(t))
	check("after undo of the audited reset", orig)

	backup = filepath.Join(t.TempDir(), "share-backup-2.csv")
	shareReset(t, c, 0, f.group, "--topic", f.topic, "--to", "earliest", "--execute", "--backup", backup)
	check("after --execute --to earliest again", map[int32]int64{0: 0, 1: 0, 2: 0})
	shareReset(t, c, 0, f.group, "--to", "file:"+backup, "--execute", "--backup", tempBackup(t))
	check("after the restore from the backup", orig)

	shareReset(t, c, 0, f.group, "--topic", f.topic+":0,1", "--to", "4", "--execute", "--backup", tempBackup(t))
	check("after --to 4 on partitions 0,1", map[int32]int64{0: 4, 1: 4, 2: 10})
	shareReset(t, c, 0, f.group, "--topic", f.topic, "--to-latest", "--execute", "--backup", tempBackup(t))
	check("after --to-latest", map[int32]int64{0: 10, 1: 10, 2: 10})
	shareReset(t, c, 0, f.group, "--topic", f.topic, "--by-duration", "PT3H", "--execute", "--backup", tempBackup(t))
	check("after --by-duration PT3H (every record is newer)", map[int32]int64{0: 0, 1: 0, 2: 0})
	shareReset(t, c, 0, f.group, "--topic", f.topic, "--to-datetime", f.base.Add(4*time.Millisecond).Format("2006-01-02T15:04:05.000"), "--execute", "--backup", tempBackup(t))
	check("after --to-datetime base+4ms", map[int32]int64{0: 4, 1: 4, 2: 4})
	shareReset(t, c, 0, f.group, "--topic", f.topic, "--by-duration", "PT1H", "--execute", "--backup", tempBackup(t))
	check("after --by-duration PT1H (no record that new: log end)", map[int32]int64{0: 10, 1: 10, 2: 10})
	shareReset(t, c, 0, f.group, "--topic", f.topic, "--to", "earliest", "--execute", "--backup", tempBackup(t))

	other := testkit.Name(t, "plain")
	c.Commit(other, f.topic, map[int32]int64{0: 1})
	for _, spec := range [][]string{{"--to", "shift:+1"}, {"--shift-by", "-1"}, {"--to", "group:" + other}} {
		r := offsetctl(t, c, append([]string{"reset", f.group, "--topic", f.topic, "--execute"}, spec...)...)
		line := strings.TrimSpace(r.stderr)
		if r.code != 2 || strings.Contains(line, "\n") || !strings.Contains(line, "is a share group") || !strings.Contains(line, "not supported for share groups") {
			t.Errorf("reset %v: exit %d stderr %q, want exit 2 and one line saying share groups do not support it", spec, r.code, r.stderr)
		}
	}
	check("after the refused targets", map[int32]int64{0: 0, 1: 0, 2: 0})
}

// While a share consumer is a member, reset and delete-offsets are refused
// (exit 1), naming the share group and its member count, and change
// nothing.
func TestShareGroupResetRefusedWhileLive(t *testing.T) {
	c := testkit.New(t)
	f := newShareFixture(t, c)
	c.ShareConsumer(f.group, f.topic, 3)
	before := c.ShareOffsets(f.group)
	for _, args := range [][]string{
		{"reset", f.group, "--topic", f.topic, "--to", "earliest", "--execute"},
		{"reset", f.group, "--topic", f.topic, "--to", "earliest"},
		{"delete-offsets", f.group, "--topic", f.topic, "--execute"},
	} {
		r := offsetctl(t, c, args...)
		if r.code != 1 || !strings.Contains(r.stderr, "group "+f.group+" is a share group with 1 member") {
			t.Errorf("%v: exit %d stderr %q, want exit 1 naming the share group and its 1 member", args, r.code, r.stderr)
		}
	}
	// The live consumer may acknowledge records meanwhile (start offsets
	// only grow then); the refused resets to earliest would have set 0.
	after := c.ShareOffsets(f.group)[f.topic]
	for p, was := range before[f.topic] {
		if now, ok := after[p]; !ok || now < was {
			t.Errorf("partition %d: start offset %d before the refused changes, %v (present %v) after: want it kept or moved on by the consumer", p, was, now, ok)
		}
	}
}

// delete-offsets on a share group deletes a whole topic's start offsets
// with DeleteShareGroupOffsets after a backup; the backup restores them
// exactly; partitions of a topic are exit 2. A reset of partitions that had
// no start offset is undone by deleting them again.
func TestShareGroupDeleteOffsets(t *testing.T) {
	c := testkit.New(t)
	f := newShareFixture(t, c)
	orig := map[int32]int64{0: 2, 1: 5, 2: 10}

	r := offsetctl(t, c, "delete-offsets", f.group, "--topic", f.topic+":0", "--execute")
	if r.code != 2 || !strings.Contains(r.stderr, "a whole topic at a time") {
		t.Errorf("delete-offsets --topic T:0: exit %d stderr %q, want exit 2", r.code, r.stderr)
	}
	backup := filepath.Join(t.TempDir(), "share-delete.csv")
	r = mustRun(t, c, 0, "delete-offsets", f.group, "--topic", f.topic, "--execute", "--backup", backup, "-o", "json")
	var plan admin.DeleteOffsetsPlan
	decodeJSON(t, r, &plan)
	if plan.GroupType != "share" || !plan.Executed || len(plan.Partitions) != 3 || plan.Partitions[1].Status != "deleted" {
		t.Errorf("delete-offsets plan %+v: want share, executed, 3 deleted rows", plan)
	}
	if got := c.ShareOffsets(f.group)[f.topic]; len(got) != 0 {
		t.Fatalf("after delete-offsets: start offsets %v, want none", got)
	}
	mustRun(t, c, 0, "reset", f.group, "--to", "file:"+backup, "--execute", "--backup", tempBackup(t))
	if got := c.ShareOffsets(f.group)[f.topic]; !maps.Equal(got, orig) {
		t.Fatalf("after the restore: %v, want %v", got, orig)
	}

	// From no start offset: a reset on a topic the group never read
	// creates them, and its undo deletes them again (a whole topic at a
	// time), leaving the other topic alone.
	fresh := c.Topic(2, nil)
	c.Produce(fresh, map[int32]int{0: 5, 1: 5}, time.Time{})
	backup2 := filepath.Join(t.TempDir(), "b2.csv")
	mustRun(t, c, 0, "reset", f.group, "--topic", fresh, "--to", "3", "--execute", "--backup", backup2)
	if got := c.ShareOffsets(f.group); !maps.Equal(got[fresh], map[int32]int64{0: 3, 1: 3}) || !maps.Equal(got[f.topic], orig) {
		t.Fatalf("after --to 3 on a topic without start offsets: %v", got)
	}
	mustRun(t, c, 0, "reset", f.group, "--to", "file:"+backup2, "--execute", "--backup", tempBackup(t))
	if got := c.ShareOffsets(f.group); len(got[fresh]) != 0 || !maps.Equal(got[f.topic], orig) {
		t.Fatalf("after undoing it: %v, want none on %s and %v on %s", got, fresh, orig, f.topic)
	}
}

// tempBackup is a backup path in a directory removed after the test (the
// default name would land in the package directory).
func tempBackup(t *testing.T) string {
	return filepath.Join(t.TempDir(), "backup.csv")
}

// reset of a share group plans what Apache's kafka-share-groups
// --reset-offsets --dry-run plans, for each target both offer; and Apache's
// --from-file restores the share group from offsetctl's backup (its marker
// records ignored). Apache 4.4 only.
func TestShareGroupResetMatchesApache(t *testing.T) {
	c := testkit.New(t)
	if !testkit.Real() {
		t.Skip("Apache's share-group tool needs a real broker")
	}
	f := newShareFixture(t, c)
	orig := map[int32]int64{0: 2, 1: 5, 2: 10}
	c.DeleteRecords(f.topic, 2, 3) // log start 3 on partition 2
	when := f.base.Add(4 * time.Millisecond).Format("2006-01-02T15:04:05.000")
	for _, tc := range []struct{ ours, apache []string }{
		{[]string{"--to", "earliest"}, []string{"--to-earliest"}},
		{[]string{"--to", "latest"}, []string{"--to-latest"}},
		{[]string{"--to", "current"}, []string{"--to-current"}},
		{[]string{"--to", "4"}, []string{"--to-offset", "4"}},
		{[]string{"--to", "1"}, []string{"--to-offset", "1"}}, // below partition 2's log start
		{[]string{"--to-datetime", when}, []string{"--to-datetime", when}},
	} {
		apache := parseApacheExport(t, c.ApacheShareTool(append([]string{"--reset-offsets", "--group", f.group, "--topic", f.topic, "--dry-run", "--export"}, tc.apache...)...))
		gp, _ := shareReset(t, c, 0, append([]string{f.group, "--topic", f.topic}, tc.ours...)...)
		ours := map[int32]int64{}
		for _, pp := range gp.Partitions {
			if pp.Target != nil {
				ours[pp.Partition] = *pp.Target
			}
		}
		if !maps.Equal(ours, apache) || len(ours) != 3 {
			t.Errorf("%v: offsetctl plans %v, Apache %v", tc.ours, ours, apache)
		}
	}
	if got := c.ShareOffsets(f.group)[f.topic]; !maps.Equal(got, orig) {
		t.Fatalf("the dry runs changed the start offsets: %v", got)
	}

	backup := filepath.Join(t.TempDir(), "for-apache.csv")
	shareReset(t, c, 0, f.group, "--topic", f.topic, "--to", "latest", "--execute", "--backup", backup)
	c.ApacheShareTool("--reset-offsets", "--group", f.group, "--from-file", backup, "--execute")
	if got := c.ShareOffsets(f.group)[f.topic]; !maps.Equal(got, orig) {
		t.Errorf("Apache's --from-file of offsetctl's backup: start offsets %v, want %v", got, orig)
	}
}

// parseApacheExport reads Apache's --export CSV (topic,partition,offset).
func parseApacheExport(t *testing.T, out string) map[int32]int64 {
	t.Helper()
	got := map[int32]int64{}
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		fs := strings.Split(line, ",")
		if len(fs) != 3 {
			t.Fatalf("unexpected Apache export line %q in:\n%s", line, out)
		}
		p, err1 := strconv.ParseInt(fs[1], 10, 32)
		o, err2 := strconv.ParseInt(fs[2], 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("unparsable Apache export line %q", line)
		}
		got[int32(p)] = o
	}
	return got
}

// groupType is the type ListGroups gives group ("" when it is not listed).
func groupType(t *testing.T, c *testkit.Cluster, group string) string {
	t.Helper()
	listed, err := c.Admin().ListGroups(testkit.Ctx(t))
	if err != nil {
		t.Fatalf("listing groups: %v", err)
	}
	return listed[group].GroupType
}

// A share group deleted with delete-group, or lost after a snapshot, is
// restored from the backup or snapshot as a share group: both files mark
// it (offsetctl:share-group), and the restore sets its start offsets with
// AlterShareGroupOffsets, which creates the share group on Apache 4.4 and
// kfake. Before, neither file had the marker and the restore committed
// consumer offsets (OffsetCommit), creating a classic group of that name
// that share consumers cannot join.
func TestShareGroupDeleteGroupRestore(t *testing.T) {
	c := testkit.New(t)
	f := newShareFixture(t, c)
	orig := map[int32]int64{0: 2, 1: 5, 2: 10}

	snap := filepath.Join(t.TempDir(), "snap.csv")
	mustRun(t, c, 0, "snapshot", f.group, "--out", snap)
	backup := filepath.Join(t.TempDir(), "deleted.csv")
	mustRun(t, c, 0, "delete-group", f.group, "--execute", "--backup", backup)
	for _, file := range []string{snap, backup} {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if pf, err := admin.ParsePlanCSV(data); err != nil || !pf.Share[f.group] {
			t.Fatalf("%s: %v\n%s\nwant the share-group marker of %s", file, err, data, f.group)
		}
	}
	if typ := groupType(t, c, f.group); typ != "" {
		t.Fatalf("after delete-group: the group is still listed (type %q)", typ)
	}
	for _, file := range []string{backup, snap} {
		mustRun(t, c, 0, "reset", f.group, "--to", "file:"+file, "--execute", "--backup", tempBackup(t))
		if typ := groupType(t, c, f.group); typ != lag.ShareType {
			t.Fatalf("restore from %s: the group is listed with type %q, want share", filepath.Base(file), typ)
		}
		if got := c.ShareOffsets(f.group)[f.topic]; !maps.Equal(got, orig) {
			t.Fatalf("restore from %s: start offsets %v, want %v", filepath.Base(file), got, orig)
		}
		if testkit.Real() && os.Getenv("OFFSETCTL_KAFKA_SCRIPT") != "" {
			out := c.ApacheShareTool("--describe", "--group", f.group)
			if !strings.Contains(out, f.topic) || strings.Contains(out, "not a share group") {
				t.Errorf("kafka-share-groups --describe after the restore:\n%s", out)
			}
		}
		mustRun(t, c, 0, "delete-group", f.group, "--execute", "--backup", tempBackup(t))
	}
	// The undo of the audited delete-group restores from its backup too.
	es := historyOf(t, "--group", f.group)
	if last := es[len(es)-1]; last.Action != audit.ActDeleteGroup {
		t.Fatalf("last audit entry %+v, want the delete-group", last)
	}
	mustRun(t, c, 0, "undo", es[len(es)-1].ID, "--execute", "--backup", tempBackup(t))
	if typ := groupType(t, c, f.group); typ != lag.ShareType {
		t.Fatalf("undo of delete-group: the group is listed with type %q, want share", typ)
	}
	if got := c.ShareOffsets(f.group)[f.topic]; !maps.Equal(got, orig) {
		t.Fatalf("undo of delete-group: start offsets %v, want %v", got, orig)
	}
}

// A backup of a share group is never applied with OffsetCommit: when a
// consumer group of the same name exists by the restore, the restore is
// refused (exit 2) and that group's offsets stay as they were.
func TestShareBackupRefusedOnConsumerGroup(t *testing.T) {
	c := testkit.New(t)
	f := newShareFixture(t, c)
	backup := filepath.Join(t.TempDir(), "deleted.csv")
	mustRun(t, c, 0, "delete-group", f.group, "--execute", "--backup", backup)
	c.Commit(f.group, f.topic, map[int32]int64{0: 7})
	r := offsetctl(t, c, "reset", f.group, "--to", "file:"+backup, "--execute", "--backup", tempBackup(t))
	line := strings.TrimSpace(r.stderr)
	if r.code != 2 || strings.Contains(line, "\n") || !strings.Contains(line, "backs up a share group") {
		t.Errorf("restore of a share group's backup onto a consumer group: exit %d stderr %q, want exit 2 and one line", r.code, r.stderr)
	}
	if got := c.Committed(f.group)[f.topic]; !maps.Equal(got, map[int32]int64{0: 7}) {
		t.Errorf("the consumer group's offsets after the refused restore: %v, want {0: 7}", got)
	}
}

// A reset of part of a topic of a share group, where a planned partition
// had no start offset and another partition of the topic outside the plan
// has one, prints an undo that works (QA: the undo was refused, "restore
// the whole topic", and the backup held only the planned partition): the
// backup also holds the other partitions' start offsets, the plan says
// so, and the restore (and undo of the audited reset) gives back exactly
// the start offsets before, the planned partition with none again.
func TestShareGroupPartialResetUndo(t *testing.T) {
	c := testkit.New(t)
	f := newShareFixture(t, c)
	orig := map[int32]int64{0: 2, 1: 5, 2: 10}
	sh3 := c.Topic(3, nil)
	c.Produce(sh3, map[int32]int{0: 10, 1: 10, 2: 10}, time.Time{})
	c.SetShareOffsets(f.group, sh3, map[int32]int64{0: 5})
	before := map[int32]int64{0: 5}
	check := func(what string) {
		t.Helper()
		got := c.ShareOffsets(f.group)
		if !maps.Equal(got[sh3], before) || !maps.Equal(got[f.topic], orig) {
			t.Fatalf("%s: start offsets %v, want %v on %s and %v on %s", what, got, before, sh3, orig, f.topic)
		}
	}
	check("before")
	for _, round := range []string{"file", "undo"} {
		backup := filepath.Join(t.TempDir(), "partial.csv")
		gp, r := shareReset(t, c, 0, f.group, "--topic", sh3+":1", "--to", "earliest", "--execute", "--backup", backup)
		if got := c.ShareOffsets(f.group)[sh3]; !maps.Equal(got, map[int32]int64{0: 5, 1: 0}) {
			t.Fatalf("%s: after the reset of %s:1: %v", round, sh3, got)
		}
		if !strings.Contains(gp.Note, "the backup also holds the start offsets of partition(s) 0 of "+sh3) || !strings.Contains(r.stderr, "undo: "+printedBy(c)+" reset") {
			t.Errorf("%s: note %q stderr %q: want the note on the backup's extra rows and the undo line", round, gp.Note, r.stderr)
		}
		data, err := os.ReadFile(backup)
		if err != nil {
			t.Fatal(err)
		}
		pf, err := admin.ParsePlanCSV(data)
		if err != nil || len(pf.Rows) != 2 || pf.Rows[0].Partition != 1 || !pf.Rows[0].NoCommit || pf.Rows[1].Partition != 0 || pf.Rows[1].Offset != 5 {
			t.Fatalf("%s: backup rows %+v (%v), want %s:1 no start offset and %s:0 at 5", round, pf.Rows, err, sh3, sh3)
		}
		if round == "file" {
			mustRun(t, c, 0, "reset", f.group, "--to", "file:"+backup, "--execute", "--backup", tempBackup(t))
		} else {
			es := historyOf(t, "--group", f.group)
			mustRun(t, c, 0, "undo", es[len(es)-1].ID, "--execute", "--backup", tempBackup(t))
		}
		check("after the " + round + " restore")
	}
}

// A reset of share-partitions with records after their start offset
// already acknowledged warns, in the dry run and with --execute (stderr,
// and acked_past_start per row in JSON), that the change and its undo lose
// that state; the undo then gives back the start offsets only (QA: start
// offset 150 again, but lag 40 more per partition, unwarned).
func TestShareGroupResetWarnsAckedPastStart(t *testing.T) {
	c := testkit.New(t)
	f := newShareFixture(t, c)
	orig := map[int32]int64{0: 2, 1: 5, 2: 10}
	// Records 2..9 of partition 0 and 5..9 of 1 are delivered; 2 and 5
	// are released, the rest accepted: lag 1 and 1 (broker), 8 and 5
	// from the offsets alone.
	c.ShareAckPastStart(f.group, f.topic, 13, map[int32]int64{0: 1, 1: 1, 2: 0})
	if got := c.ShareOffsets(f.group)[f.topic]; !maps.Equal(got, orig) {
		t.Fatalf("start offsets after the acknowledgements: %v, want %v", got, orig)
	}
	warn := "group " + f.group + ": 11 record(s) after the start offsets of 2 share-partitions (" + f.topic + "/0, " + f.topic + "/1) are already acknowledged or archived"
	acked := func(what string, gp admin.GroupPlan) {
		t.Helper()
		want := map[int32]int64{0: 7, 1: 4}
		for _, pp := range gp.Partitions {
			w, has := want[pp.Partition]
			if (pp.AckedPastStart != nil) != has || has && *pp.AckedPastStart != w {
				t.Errorf("%s: partition %d acked_past_start %v, want %v (present %v)", what, pp.Partition, deref(pp.AckedPastStart), w, has)
			}
		}
	}
	gp, r := shareReset(t, c, 0, f.group, "--topic", f.topic, "--to", "earliest")
	if !strings.Contains(r.stderr, warn) {
		t.Errorf("dry run stderr %q: want %q", r.stderr, warn)
	}
	acked("dry run", gp)
	backup := filepath.Join(t.TempDir(), "acked.csv")
	gp, r = shareReset(t, c, 0, f.group, "--topic", f.topic, "--to", "earliest", "--execute", "--backup", backup)
	if !strings.Contains(r.stderr, warn) {
		t.Errorf("--execute stderr %q: want %q", r.stderr, warn)
	}
	acked("--execute", gp)
	mustRun(t, c, 0, "reset", f.group, "--to", "file:"+backup, "--execute", "--backup", tempBackup(t))
	if got := c.ShareOffsets(f.group)[f.topic]; !maps.Equal(got, orig) {
		t.Fatalf("after the undo: start offsets %v, want %v", got, orig)
	}
	// What the warning said: the start offsets are back, the
	// acknowledgements are not (lag 8 and 5 again, not 1 and 1).
	lag := shareLag(t, c, f.group)
	for _, p := range lag.Partitions {
		if want := map[int32]int64{0: 8, 1: 5, 2: 0}[p.Partition]; p.Lag == nil || *p.Lag != want {
			t.Errorf("after the undo: partition %d lag %v, want %d (the acknowledged state is gone)", p.Partition, deref(p.Lag), want)
		}
	}
}

// A pattern or --all-groups selects consumer groups only: reset,
// delete-offsets and delete-group name each share group it matched as
// skipped (a stderr line saying to name it; a row of the report: in JSON
// reset's note, delete-offsets' and delete-group's skipped), back up none of it, and leave its start
// offsets as they were, while the consumer group it matched is changed.
// A pattern matching only the share group is still "no match" (exit 2),
// after the line naming it.
func TestShareGroupSelectionSkipped(t *testing.T) {
	c := testkit.New(t)
	f := newShareFixture(t, c)
	orig := map[int32]int64{0: 2, 1: 5, 2: 10}
	plain := f.group + "-plain"
	c.Commit(plain, f.topic, map[int32]int64{0: 1, 1: 4})
	pat := regexp.QuoteMeta(f.group) + ".*"
	line := func(action string) string {
		return "offsetctl: warning: skipping share group " + f.group + " (KIP-932): --all-groups and --regex select consumer groups only; name it to " + action + "\n"
	}
	shareUnchanged := func(what string) {
		t.Helper()
		if got := c.ShareOffsets(f.group)[f.topic]; !maps.Equal(got, orig) {
			t.Fatalf("%s: share group start offsets %v, want %v", what, got, orig)
		}
	}

	backup := filepath.Join(t.TempDir(), "reset.csv")
	r := mustRun(t, c, 0, "reset", "-r", pat, "--topic", f.topic, "--to", "earliest", "--execute", "--backup", backup, "-o", "json")
	var plans []admin.GroupPlan
	decodeJSON(t, r, &plans)
	got := map[string]admin.GroupPlan{}
	for _, gp := range plans {
		got[gp.Group] = gp
	}
	sp, pp := got[f.group], got[plain]
	if len(plans) != 2 || sp.GroupType != "share" || sp.Executed || len(sp.Partitions) != 0 ||
		sp.Note != "skipped: share group: --all-groups and --regex select consumer groups only; name it to reset it" {
		t.Fatalf("reset -r plans %+v: want the share group skipped, no rows", plans)
	}
	if !pp.Executed || len(pp.Partitions) != 3 {
		t.Fatalf("reset -r: consumer group plan %+v, want executed over 3 partitions", pp)
	}
	if !strings.HasPrefix(r.stderr, line("reset it")) {
		t.Errorf("reset -r stderr %q, want it to start with %q", r.stderr, line("reset it"))
	}
	shareUnchanged("after reset -r --execute")
	assertCommitted(t, c, plain, f.topic, map[int32]int64{0: 0, 1: 0, 2: 0})
	if data, err := os.ReadFile(backup); err != nil || strings.Contains(string(data), f.group+`"`) || !strings.Contains(string(data), plain) {
		t.Fatalf("backup %v:\n%s\nwant the consumer group's rows only", err, data)
	}

	// --all-groups, dry run: the same row (other groups may be listed).
	r = mustRun(t, c, 0, "reset", "--all-groups", "--topic", f.topic, "--to", "latest")
	if !regexp.MustCompile(`(?m)^`+regexp.QuoteMeta(f.group)+`\s+-\s+-\s+-\s+-\s+-\s+-\s+skipped: share group: `).MatchString(r.stdout) || !strings.Contains(r.stderr, line("reset it")) {
		t.Errorf("reset --all-groups: stdout\n%s\nstderr %q: want the share group's skipped row and line", r.stdout, r.stderr)
	}

	r = mustRun(t, c, 0, "delete-offsets", "-r", pat, "--topic", f.topic, "--execute", "--backup", filepath.Join(t.TempDir(), "do.csv"), "-o", "json")
	var dj report.DeleteOffsetsJSON
	decodeJSON(t, r, &dj)
	if len(dj.Groups) != 2 || dj.Groups[0].Group != plain || !dj.Groups[0].Executed ||
		dj.Groups[1].Group != f.group || dj.Groups[1].GroupType != "share" || dj.Groups[1].Executed || len(dj.Groups[1].Partitions) != 0 ||
		dj.Groups[1].Skipped != "share group: --all-groups and --regex select consumer groups only; name it to delete its start offsets" {
		t.Fatalf("delete-offsets -r: %+v, want the consumer group deleted, the share group skipped", dj.Groups)
	}
	if !strings.HasPrefix(r.stderr, line("delete its start offsets")) {
		t.Errorf("delete-offsets -r stderr %q", r.stderr)
	}
	shareUnchanged("after delete-offsets -r --execute")
	if got := committedOn(t, c, plain, f.topic); len(got) != 0 {
		t.Fatalf("consumer group still has %v", got)
	}

	c.Commit(plain, f.topic, map[int32]int64{0: 3})
	r = mustRun(t, c, 0, "delete-group", "-r", pat, "--execute", "--backup", filepath.Join(t.TempDir(), "dg.csv"))
	if !strings.HasPrefix(r.stderr, line("delete it")) || !regexp.MustCompile(`(?m)^`+regexp.QuoteMeta(plain)+`\s.*\bdeleted$`).MatchString(r.stdout) ||
		!regexp.MustCompile(`(?m)^`+regexp.QuoteMeta(f.group)+`\s+share\s+-\s+0\s+0\s+skipped: share group: --all-groups and --regex select consumer groups only; name it to delete it$`).MatchString(r.stdout) {
		t.Errorf("delete-group -r: stdout\n%s\nstderr %q: want the consumer group deleted and the share group's skipped row", r.stdout, r.stderr)
	}
	shareUnchanged("after delete-group -r --execute")
	// JSON, dry run: the skipped share group is a row with "skipped".
	c.Commit(plain, f.topic, map[int32]int64{0: 3})
	var dgj struct {
		Groups []admin.DeleteGroupRow `json:"groups"`
	}
	decodeJSON(t, mustRun(t, c, 0, "delete-group", "-r", pat, "-o", "json"), &dgj)
	if len(dgj.Groups) != 2 || dgj.Groups[0].Group != plain || dgj.Groups[0].Status != "would delete" || dgj.Groups[0].Skipped != "" ||
		dgj.Groups[1].Group != f.group || dgj.Groups[1].Type != "share" || dgj.Groups[1].Status != "skipped" ||
		dgj.Groups[1].Skipped != "share group: --all-groups and --regex select consumer groups only; name it to delete it" {
		t.Fatalf("delete-group -r -o json: %+v, want the consumer group planned and the share group skipped", dgj.Groups)
	}
	mustRun(t, c, 0, "delete-group", plain, "--execute", "--backup", filepath.Join(t.TempDir(), "dg2.csv"))

	snapFile := filepath.Join(t.TempDir(), "snap.csv")
	c.Commit(plain, f.topic, map[int32]int64{0: 3})
	r = mustRun(t, c, 0, "snapshot", "-r", pat, "--out", snapFile)
	if data, err := os.ReadFile(snapFile); err != nil || !strings.HasPrefix(r.stderr, line("snapshot it")) || strings.Contains(string(data), f.group+`"`) || !strings.Contains(string(data), plain) {
		t.Errorf("snapshot -r: stderr %q, file (%v):\n%s\nwant the share group skipped, the consumer group saved", r.stderr, err, data)
	}

	// Only the share group matches: no consumer group, exit 2, after the
	// line naming it.
	r = mustRun(t, c, 2, "reset", "-r", regexp.QuoteMeta(f.group), "--topic", f.topic, "--to", "earliest", "--execute")
	if r.stderr != line("reset it")+"offsetctl: no consumer group matches the --regex/--exclude selection: nothing to do\n" {
		t.Errorf("reset -r of the share group alone: stderr %q", r.stderr)
	}
	shareUnchanged("after the refused reset")
}
