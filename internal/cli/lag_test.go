package cli

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/offsetctl/offsetctl/internal/exitcode"
	"github.com/offsetctl/offsetctl/internal/lag"
	"github.com/offsetctl/offsetctl/internal/testkit"
)

type lagJSON struct {
	Isolation string         `json:"isolation"`
	Groups    []lag.GroupLag `json:"groups"`
}

func lagOf(t *testing.T, c *testkit.Cluster, want int, args ...string) lagJSON {
	t.Helper()
	r := mustRun(t, c, want, append([]string{"lag", "-o", "json"}, args...)...)
	var out lagJSON
	decodeJSON(t, r, &out)
	return out
}

func findGroup(t *testing.T, l lagJSON, g string) lag.GroupLag {
	t.Helper()
	for _, gl := range l.Groups {
		if gl.Group == g {
			return gl
		}
	}
	t.Fatalf("group %s not in output: %+v", g, l.Groups)
	return lag.GroupLag{}
}

func row(t *testing.T, g lag.GroupLag, topic string, p int32) lag.PartitionLag {
	t.Helper()
	for _, r := range g.Partitions {
		if r.Topic == topic && r.Partition == p {
			return r
		}
	}
	t.Fatalf("no row %s/%d in group %s: %+v", topic, p, g.Group, g.Partitions)
	return lag.PartitionLag{}
}

// lagv is a row's lag, -1 when unknown (null): every test asserts a lag
// of 0 or more, so an unknown lag never passes for a number.
func lagv(p lag.PartitionLag) int64 {
	if p.Lag == nil {
		return -1
	}
	return *p.Lag
}

// lagStr is a row's lag as kafka-consumer-groups prints it: "-" unknown.
func lagStr(p lag.PartitionLag) string {
	if p.Lag == nil {
		return "-"
	}
	return strconv.FormatInt(*p.Lag, 10)
}

// endOffsets re-reads the broker's high watermarks.
func endOffsets(t *testing.T, c *testkit.Cluster, topic string) map[int32]int64 {
	t.Helper()
	ends, err := c.Admin().ListEndOffsets(testkit.Ctx(t), topic)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int32]int64{}
	for p, o := range ends[topic] {
		out[p] = o.Offset
	}
	return out
}

func TestLagEmptyClassicGroup(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(3, nil)
	c.Produce(topic, map[int32]int{0: 10, 1: 7, 2: 0}, time.Time{})
	g := testkit.Name(t, "g")
	c.Commit(g, topic, map[int32]int64{0: 4, 1: 7})

	out := lagOf(t, c, 0, g)
	gl := findGroup(t, out, g)
	if gl.State != "Empty" || gl.Members != 0 || gl.Type != "classic" {
		t.Errorf("group = %s/%s/%d members, want classic/Empty/0", gl.Type, gl.State, gl.Members)
	}
	ends := endOffsets(t, c, topic)
	committed := c.Committed(g)[topic]
	if len(gl.Partitions) != 2 {
		t.Fatalf("rows = %+v, want 2 (only committed partitions)", gl.Partitions)
	}
	var total int64
	for _, p := range []int32{0, 1} {
		r := row(t, gl, topic, p)
		if r.Committed == nil || *r.Committed != committed[p] || r.LogEnd != ends[p] || lagv(r) != ends[p]-committed[p] || r.LogStart != 0 {
			t.Errorf("row %d = %+v; broker: committed %d end %d", p, r, committed[p], ends[p])
		}
		total += lagv(r)
	}
	if gl.TotalLag != total || total != 6 {
		t.Errorf("total lag = %d (sum %d), want 6", gl.TotalLag, total)
	}

	// The table names the group and shows each row; CSV has a header
	// plus one row per group-partition.
	tab := mustRun(t, c, 0, "lag", g)
	if !strings.Contains(tab.stdout, "GROUP "+g) || !strings.Contains(tab.stdout, "TOTAL-LAG 6") || !strings.Contains(tab.stdout, "LOG-START") {
		t.Errorf("table output:\n%s", tab.stdout)
	}
	cr := mustRun(t, c, 0, "lag", g, "-o", "csv")
	recs, err := csv.NewReader(strings.NewReader(cr.stdout)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 3 || recs[0][0] != "GROUP" || recs[1][0] != g || recs[1][2] != topic || recs[1][7] != "6" {
		t.Errorf("csv = %q", recs)
	}
}

func TestLagLiveGroups(t *testing.T) {
	for _, proto := range []struct {
		name string
		kip  bool
		typ  string
	}{{"classic", false, "classic"}, {"consumer", true, "consumer"}} {
		t.Run(proto.name, func(t *testing.T) {
			c := testkit.New(t)
			topic := c.Topic(2, nil)
			c.Produce(topic, map[int32]int{0: 5, 1: 5}, time.Time{})
			g := testkit.Name(t, "g")
			// No autocommit: the live member is assigned both
			// partitions but never commits.
			stop := c.Consumer(g, topic, proto.kip, kgo.DisableAutoCommit(), kgo.ClientID("live-"+proto.name))
			var gl lag.GroupLag
			// Membership settles asynchronously after assignment.
			deadline := time.Now().Add(30 * time.Second)
			for {
				gl = findGroup(t, lagOf(t, c, 0, g), g)
				if (gl.State == "Stable" && len(gl.Partitions) == 2) || time.Now().After(deadline) {
					break
				}
				time.Sleep(200 * time.Millisecond)
			}
			if gl.Type != proto.typ || gl.State != "Stable" || gl.Members != 1 {
				t.Fatalf("group = %s/%s/%d members, want %s/Stable/1", gl.Type, gl.State, gl.Members, proto.typ)
			}
			// Assigned, never committed: LAG unknown and out of the
			// total, as kafka-consumer-groups shows "-" (issue 11; the
			// foundation issue had log end - log start = 5 and a total
			// of 10 here, which fired lag alerts on every rebalance).
			for _, p := range []int32{0, 1} {
				r := row(t, gl, topic, p)
				if r.Committed != nil || r.Lag != nil || r.Member == "" || r.ClientID != "live-"+proto.name || r.Host == "" || !strings.Contains(r.Note, "auto.offset.reset") {
					t.Errorf("row %d = %+v, want assigned, no commit, lag null, member/client/host set, a note on auto.offset.reset", p, r)
				}
			}
			if gl.TotalLag != 0 {
				t.Errorf("total lag = %d, want 0 (unknown lags are not summed)", gl.TotalLag)
			}
			// --assume-reset gives the number each choice would mean.
			for assume, want := range map[string]int64{"earliest": 5, "latest": 0} {
				ga := findGroup(t, lagOf(t, c, 0, g, "--assume-reset", assume), g)
				if r := row(t, ga, topic, 1); lagv(r) != want || ga.TotalLag != 2*want || !strings.Contains(r.Note, "auto.offset.reset="+assume) {
					t.Errorf("--assume-reset %s: row %+v total %d, want lag %d total %d", assume, r, ga.TotalLag, want, 2*want)
				}
			}
			tab := mustRun(t, c, 0, "lag", g)
			if !strings.Contains(tab.stdout, "TOTAL-LAG 0") || !strings.Contains(tab.stdout, "auto.offset.reset") {
				t.Errorf("table:\n%s", tab.stdout)
			}
			stop()
			// After the member leaves: the group is empty with no rows
			// (it committed nothing), still reported.
			deadline = time.Now().Add(60 * time.Second)
			for {
				gl = findGroup(t, lagOf(t, c, 0, g), g)
				if gl.Members == 0 || time.Now().After(deadline) {
					break
				}
				time.Sleep(300 * time.Millisecond)
			}
			if gl.Members != 0 || gl.State != "Empty" || gl.Type != proto.typ || len(gl.Partitions) != 0 {
				t.Fatalf("after stop: %s/%s/%d members, rows %+v, want %s/Empty/0 and no rows", gl.Type, gl.State, gl.Members, gl.Partitions, proto.typ)
			}
			// Then commits only: an admin commit is refused while the
			// group still has a member (UNKNOWN_MEMBER_ID on Apache
			// Kafka), so it comes after the group is seen empty.
			c.Commit(g, topic, map[int32]int64{0: 2})
			gl = findGroup(t, lagOf(t, c, 0, g), g)
			if len(gl.Partitions) != 1 {
				t.Fatalf("after the commit: rows %+v, want only partition 0", gl.Partitions)
			}
			if r := row(t, gl, topic, 0); r.Committed == nil || *r.Committed != 2 || lagv(r) != 3 || r.Member != "" {
				t.Errorf("after stop row 0 = %+v", r)
			}
		})
	}
}

func TestLagCommitOutsideLog(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(2, nil)
	c.Produce(topic, map[int32]int{0: 10, 1: 10}, time.Time{})
	c.DeleteRecords(topic, 1, 6)
	g := testkit.Name(t, "g")
	c.Commit(g, topic, map[int32]int64{0: 25, 1: 2})

	gl := findGroup(t, lagOf(t, c, 0, g), g)
	past := row(t, gl, topic, 0)
	if lagv(past) != 0 || !strings.Contains(past.Note, "15 past the log end") {
		t.Errorf("commit past end = %+v", past)
	}
	below := row(t, gl, topic, 1)
	if below.LogStart != 6 || lagv(below) != 8 || !strings.Contains(below.Note, "4 records expired unread") {
		t.Errorf("commit below log start = %+v", below)
	}
}

func TestLagDeletedTopicAndMissingGroup(t *testing.T) {
	c := testkit.New(t)
	keep := c.Topic(1, nil)
	gone := c.Topic(1, nil)
	c.Produce(keep, map[int32]int{0: 4}, time.Time{})
	g := testkit.Name(t, "g")
	c.Commit(g, keep, map[int32]int64{0: 1})
	c.Commit(g, gone, map[int32]int64{0: 0})
	if _, err := c.Admin().DeleteTopics(testkit.Ctx(t), gone); err != nil {
		t.Fatal(err)
	}
	// Deleting a topic is asynchronous on a real broker: wait until
	// metadata no longer has it.
	deadline := time.Now().Add(30 * time.Second)
	for {
		td, err := c.Admin().ListTopics(testkit.Ctx(t), gone)
		if err == nil && (len(td) == 0 || td[gone].Err != nil) || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	// Brokers drop a deleted topic's commits (asynchronously on Kafka).
	// Either way every other row is reported; a row of the deleted topic,
	// if the broker still returns its commit, carries an error and the
	// command exits 1 with one line naming the topic.
	r := offsetctl(t, c, "lag", "-o", "json", g)
	var out lagJSON
	decodeJSON(t, r, &out)
	gl := findGroup(t, out, g)
	if ok := row(t, gl, keep, 0); ok.Error != "" || lagv(ok) != 3 || *ok.Committed != 1 {
		t.Errorf("surviving topic row = %+v", ok)
	}
	goneRows := 0
	for _, p := range gl.Partitions {
		if p.Topic == gone {
			goneRows++
			if p.Error == "" {
				t.Errorf("deleted topic row has no error: %+v", p)
			}
		}
	}
	if goneRows > 0 {
		if r.code != 1 || !strings.Contains(r.stderr, gone) || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
			t.Errorf("with a deleted-topic row: exit %d stderr %q, want 1 and one line naming %s", r.code, r.stderr, gone)
		}
	} else if r.code != 0 || len(gl.Partitions) != 1 {
		t.Errorf("without deleted-topic rows: exit %d rows %+v, want 0 and only %s", r.code, gl.Partitions, keep)
	}

	missing := testkit.Name(t, "nobody")
	r = offsetctl(t, c, "lag", missing)
	if r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, missing) || !strings.Contains(r.stderr, "does not exist") || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
		t.Errorf("missing group: exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	// CSV and JSON carry the missing group with its error.
	r = offsetctl(t, c, "lag", missing, "-o", "csv")
	recs, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
	if err != nil || r.code != 1 || len(recs) != 2 || recs[1][0] != missing || recs[1][len(recs[1])-1] != "group does not exist" {
		t.Errorf("missing group as CSV: exit %d, %q (%v)", r.code, recs, err)
	}
	r = offsetctl(t, c, "lag", missing, "-o", "json")
	decodeJSON(t, r, &out)
	if r.code != 1 || len(out.Groups) != 1 || out.Groups[0].Error != "group does not exist" {
		t.Errorf("missing group as JSON: exit %d %+v", r.code, out.Groups)
	}
}

func TestLagTransactionalIsolation(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(1, nil)
	c.Produce(topic, map[int32]int{0: 3}, time.Time{})
	// An open transaction: the high watermark moves past its records,
	// the last stable offset stays before them.
	var open []*kgo.Record
	for i := 0; i < 4; i++ {
		open = append(open, &kgo.Record{Topic: topic, Partition: 0, Value: []byte("in-txn")})
	}
	c.BeginTxn(open...)
	g := testkit.Name(t, "g")
	c.Commit(g, topic, map[int32]int64{0: 1})

	hwm := row(t, findGroup(t, lagOf(t, c, 0, g), g), topic, 0)
	lso := row(t, findGroup(t, lagOf(t, c, 0, g, "--isolation", "committed"), g), topic, 0)
	if hwm.LogEnd != 7 || lagv(hwm) != 6 {
		t.Errorf("uncommitted: end %d lag %d, want 7 and 6", hwm.LogEnd, lagv(hwm))
	}
	if lso.LogEnd != 3 || lagv(lso) != 2 {
		t.Errorf("committed: end %d lag %d, want 3 and 2 (last stable offset)", lso.LogEnd, lagv(lso))
	}
	// A commit inside the open transaction (a read_uncommitted consumer's)
	// is past the last stable offset, not past the log end.
	in := testkit.Name(t, "in-txn")
	c.Commit(in, topic, map[int32]int64{0: 5})
	r := row(t, findGroup(t, lagOf(t, c, 0, in, "--isolation", "committed"), in), topic, 0)
	if lagv(r) != 0 || !strings.Contains(r.Note, "2 past the last stable offset (a transaction is open") {
		t.Errorf("commit inside the open transaction, --isolation committed: %+v", r)
	}
	if r := row(t, findGroup(t, lagOf(t, c, 0, in), in), topic, 0); lagv(r) != 2 || r.Note != "" {
		t.Errorf("commit inside the open transaction, uncommitted: %+v, want lag 2 and no note", r)
	}
}

func TestLagAssumeResetUsage(t *testing.T) {
	c := testkit.New(t)
	for _, v := range []string{"", "none", "smallest"} {
		r := offsetctl(t, c, "lag", "g", "--assume-reset", v)
		if r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, "--assume-reset") || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
			t.Errorf("--assume-reset %q: exit %d stdout %q stderr %q, want 2 and one line", v, r.code, r.stdout, r.stderr)
		}
	}
}

func TestLagManyGroupsAndGroupsCommand(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(4, nil)
	c.Produce(topic, map[int32]int{0: 10, 1: 10, 2: 10, 3: 10}, time.Time{})
	prefix := testkit.Name(t, "many")
	want := map[string]int64{}
	for i := 0; i < 25; i++ {
		g := prefix + "-" + string(rune('a'+i))
		off := int64(i % 10)
		c.Commit(g, topic, map[int32]int64{0: off, 1: off, 2: off, 3: off})
		want[g] = 4 * (10 - off)
	}
	out := lagOf(t, c, 0, "--all-groups", "--topic", topic)
	seen := 0
	for _, gl := range out.Groups {
		if len(gl.Partitions) == 0 && gl.Error == "" {
			t.Errorf("--all-groups --topic listed group %s, which has nothing on the topic", gl.Group)
		}
		w, ok := want[gl.Group]
		if !ok {
			continue
		}
		seen++
		if gl.TotalLag != w || len(gl.Partitions) != 4 {
			t.Errorf("group %s total %d rows %d, want %d and 4", gl.Group, gl.TotalLag, len(gl.Partitions), w)
		}
	}
	if seen != len(want) {
		t.Errorf("saw %d of %d groups", seen, len(want))
	}
	// Several named groups: only those, sorted.
	r := lagOf(t, c, 0, prefix+"-c", prefix+"-a")
	if len(r.Groups) != 2 || r.Groups[0].Group != prefix+"-a" || r.Groups[1].Group != prefix+"-c" {
		t.Errorf("named groups = %+v", r.Groups)
	}

	var groups struct {
		Groups []lag.GroupSummary `json:"groups"`
	}
	decodeJSON(t, mustRun(t, c, 0, "groups", "-o", "json", "--state", "empty"), &groups)
	seen = 0
	for _, g := range groups.Groups {
		if w, ok := want[g.Group]; ok {
			seen++
			if g.TotalLag == nil || *g.TotalLag != w || g.State != "Empty" || len(g.Topics) != 1 || g.Topics[0] != topic {
				t.Errorf("groups row %+v, want lag %d Empty [%s]", g, w, topic)
			}
		}
	}
	if seen != len(want) {
		t.Errorf("groups listed %d of %d", seen, len(want))
	}
	decodeJSON(t, mustRun(t, c, 0, "groups", "-o", "json", "--state", "Stable"), &groups)
	for _, g := range groups.Groups {
		if _, ok := want[g.Group]; ok {
			t.Errorf("--state Stable listed empty group %s", g.Group)
		}
	}
}

func TestLagTimeLag(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(2, nil)
	old := time.Now().Add(-2 * time.Hour)
	c.Produce(topic, map[int32]int{0: 5, 1: 5}, old)
	g := testkit.Name(t, "g")
	c.Commit(g, topic, map[int32]int64{0: 3, 1: 5})
	before := time.Now()
	gl := findGroup(t, lagOf(t, c, 0, g, "--time-lag"), g)
	after := time.Now()
	r0 := row(t, gl, topic, 0)
	// Record 3 of partition 0 was written at old+3ms.
	if r0.TimeLagMs == nil {
		t.Fatalf("no time lag: %+v", r0)
	}
	lo := before.Sub(old.Add(3*time.Millisecond)).Milliseconds() - 1000
	hi := after.Sub(old.Add(3*time.Millisecond)).Milliseconds() + 1000
	if *r0.TimeLagMs < lo || *r0.TimeLagMs > hi {
		t.Errorf("time lag %d ms, want within [%d, %d]", *r0.TimeLagMs, lo, hi)
	}
	if r1 := row(t, gl, topic, 1); r1.TimeLagMs == nil || *r1.TimeLagMs != 0 {
		t.Errorf("caught-up partition time lag = %v, want 0", r1.TimeLagMs)
	}
}

// TestLagTimeLagBudget: `lag --time-lag --timeout 2s` over many lagging
// partitions, with every fetch to one broker held unanswered, returns
// (well within the bound, which the held fetches would outlast), exits 0
// and counts on stderr exactly the rows shown without time lag. The
// batches share one time-lag deadline: the second batch (groups 26-30)
// is gathered after the first batch's search used it up, so none of its
// rows gets a time lag, rather than each batch waiting its own 2 s.
func TestLagTimeLagBudget(t *testing.T) {
	if testkit.Real() {
		t.Skip("holds fetch answers with kfake")
	}
	c := testkit.New(t)
	prefix := testkit.Name(t, "tlb")
	topic := c.LagFleet(prefix, 30, 400)
	md, err := c.Admin().Metadata(testkit.Ctx(t), topic)
	if err != nil {
		t.Fatal(err)
	}
	slow := md.Topics[topic].Partitions[0].Leader
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	c.Fake.ControlKey(int16(kmsg.Fetch), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.Fake.KeepControl()
		if c.Fake.CurrentNode() == slow {
			c.Fake.SleepControl(func() { <-release })
		}
		return nil, nil, false
	})
	start := time.Now()
	r := mustRun(t, c, 0, "lag", "-r", regexp.QuoteMeta(prefix)+"-.*", "--time-lag", "--timeout", "2s", "-o", "json")
	if d := time.Since(start); d > 30*time.Second {
		t.Fatalf("lag --time-lag --timeout 2s took %v", d)
	}
	var out lagJSON
	decodeJSON(t, r, &out)
	if len(out.Groups) != 30 {
		t.Fatalf("%d groups, want 30", len(out.Groups))
	}
	missing, lagging := 0, 0
	for i, g := range out.Groups {
		for _, p := range g.Partitions {
			if lagv(p) <= 0 {
				continue
			}
			lagging++
			if p.TimeLagMs == nil {
				missing++
			} else if i >= lag.LagBatchGroups {
				t.Fatalf("group %s of the second batch has a time lag on partition %d: its batch had its own deadline", g.Group, p.Partition)
			}
		}
	}
	if missing == 0 || missing == lagging {
		t.Fatalf("%d of %d lagging rows without time lag: want those led by the held broker and the second batch", missing, lagging)
	}
	want := fmt.Sprintf("time lag not read within --timeout for %d partition row(s)", missing)
	if !strings.Contains(r.stderr, want) {
		t.Errorf("stderr does not count the %d rows: want %q in\n%s", missing, want, r.stderr)
	}
}

// TestLagTimeLagSharedOffset: two groups with the same next offset on a
// partition both get its time lag (the search used to wait out its 10s
// for the second copy of the offset; admin's TestFillTimeLagSharedOffset
// checks that it no longer does, without timing anything).
func TestLagTimeLagSharedOffset(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(1, nil)
	old := time.Now().Add(-2 * time.Hour)
	c.Produce(topic, map[int32]int{0: 5}, old)
	ga, gb := testkit.Name(t, "ga"), testkit.Name(t, "gb")
	c.Commit(ga, topic, map[int32]int64{0: 3})
	c.Commit(gb, topic, map[int32]int64{0: 3})
	before := time.Now()
	l := lagOf(t, c, 0, ga, gb, "--time-lag")
	after := time.Now()
	lo := before.Sub(old.Add(3*time.Millisecond)).Milliseconds() - 1000
	hi := after.Sub(old.Add(3*time.Millisecond)).Milliseconds() + 1000
	var lags []int64
	for _, g := range []string{ga, gb} {
		r := row(t, findGroup(t, l, g), topic, 0)
		if r.TimeLagMs == nil || *r.TimeLagMs < lo || *r.TimeLagMs > hi {
			t.Fatalf("group %s: %+v, want a time lag within [%d, %d] ms", g, r, lo, hi)
		}
		lags = append(lags, *r.TimeLagMs)
	}
	if lags[0] != lags[1] {
		t.Errorf("same record, different time lags: %v", lags)
	}
}

func TestLagUsageErrors(t *testing.T) {
	c := testkit.New(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"lag"}, "name one or more groups, or use --all-groups"},
		{[]string{"lag", "g", "--all-groups"}, "name groups or use --all-groups, not both"},
		{[]string{"lag", "g", "--isolation", "sometimes"}, `--isolation: want uncommitted or committed`},
		{[]string{"lag", "g", "--topic", "bad topic"}, `--topic "bad topic": topic name has illegal character ' '`},
		{[]string{"lag", "g", "--topic", "t:x"}, `--topic "t:x": partition "x" is not a non-negative integer`},
		{[]string{"lag", "g", "-o", "yaml"}, `--output: want table, json or csv`},
		{[]string{"lag", "g", "--watch", "-1s"}, "--watch must be at least 100ms, got -1s"},
		{[]string{"lag", "g", "--watch", "1ms"}, "--watch must be at least 100ms, got 1ms"},
		{[]string{"lag", "g", "--no-such-flag"}, "unknown flag: --no-such-flag"},
		{[]string{"no-such-command"}, `unknown command "no-such-command"`},
		{[]string{"lag", "g", "--timeout", "0s"}, "--timeout must be positive, got 0s"},
		{[]string{"lag", "g", "--brokers", ""}, "--brokers is empty"},
		{[]string{"lag", "g", "--brokers", "localhost:"}, `--brokers: broker address "localhost:": port "" is not a number`},
		{[]string{"lag", ""}, "empty group name"},
		{[]string{"groups", "--state", "bogus"}, `--state: want a state (valid states are`},
		{[]string{"completion", "tcsh"}, `unknown command "tcsh" for "offsetctl completion"`},
	} {
		args := tc.args
		r := offsetctl(t, c, args...)
		if r.code != 2 || r.stdout != "" || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%q: exit %d stdout %q stderr %q; want exit 2 and one stderr line holding %q", args, r.code, r.stdout, r.stderr, tc.want)
		}
	}
	// A scope naming what the cluster does not have is bad input.
	topic := c.Topic(2, nil)
	for _, scope := range []string{testkit.Name(t, "nosuchtopic"), topic + ":2"} {
		r := offsetctl(t, c, "lag", "--all-groups", "--topic", scope)
		if r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, "does not exist") {
			t.Errorf("--topic %s: exit %d stdout %q stderr %q, want 2 and 'does not exist'", scope, r.code, r.stdout, r.stderr)
		}
	}
	if r := offsetctl(t, nil, "lag", "g", "--brokers", "nocolon"); r.code != 2 || r.stderr != `offsetctl: --brokers: broker address "nocolon" is not host:port`+"\n" {
		t.Errorf("bad broker address: exit %d %q", r.code, r.stderr)
	}
}

func TestLagWatch(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(1, nil)
	c.Produce(topic, map[int32]int{0: 3}, time.Time{})
	g := testkit.Name(t, "g")
	c.Commit(g, topic, map[int32]int64{0: 1})
	r := watchUntil(t, c, func(out string) bool { return strings.Count(out, "GROUP "+g) >= 2 }, "lag", g, "--watch", "300ms")
	if r.code != 0 {
		t.Fatalf("watch ended with exit %d: %s", r.code, r.stderr)
	}
	if n := strings.Count(r.stdout, "GROUP "+g); n < 2 {
		t.Errorf("watch drew %d times, want at least 2:\n%s", n, r.stdout)
	}
}

// watchUntil runs a --watch command and ends it (as Ctrl-C does) once its
// stdout satisfies enough, or after a minute. Cancelling after a fixed
// sleep (1.5s for two rounds) failed whenever a round took longer than
// about 0.75s: a loaded 2-core CI machine or a slow real broker.
func watchUntil(t *testing.T, c *testkit.Cluster, enough func(stdout string) bool, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out, errb, done := runInBackground(ctx, t, append([]string{"--brokers", c.BrokerList()}, args...)...)
	deadline := time.Now().Add(time.Minute)
	for !enough(out.String()) && time.Now().Before(deadline) {
		select {
		case code := <-done:
			t.Fatalf("%s ended by itself with exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, out.String(), errb.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
	cancel()
	select {
	case code := <-done:
		return result{stdout: out.String(), stderr: errb.String(), code: code}
	case <-time.After(time.Minute):
		t.Fatalf("%s did not stop after the context ended", strings.Join(args, " "))
	}
	return result{}
}

// TestLagTimeLagOnlyMarkers: a group committed right before a transaction's
// commit marker has lag 1 that no consumer can read; --time-lag says so
// instead of waiting for a record that never comes.
func TestLagTimeLagOnlyMarkers(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(1, nil)
	var recs []*kgo.Record
	for i := 0; i < 3; i++ {
		recs = append(recs, &kgo.Record{Topic: topic, Partition: 0, Value: []byte("v")})
	}
	c.BeginTxn(recs...)(true)
	// The marker is written asynchronously: wait until the LSO passes it.
	g := testkit.Name(t, "g")
	c.Commit(g, topic, map[int32]int64{0: 3})
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		r := row(t, findGroup(t, lagOf(t, c, 0, g, "--isolation", "committed"), g), topic, 0)
		if r.LogEnd == 4 || time.Now().After(deadline) {
			break
		}
	}
	for _, iso := range []string{"uncommitted", "committed"} {
		r := row(t, findGroup(t, lagOf(t, c, 0, g, "--time-lag", "--isolation", iso), g), topic, 0)
		if r.LogEnd != 4 || lagv(r) != 1 || r.TimeLagMs == nil || *r.TimeLagMs != 0 || !strings.Contains(r.Note, "only transaction markers") {
			t.Errorf("%s: row %+v, want end 4, lag 1, time lag 0 and a note about markers", iso, r)
		}
	}
}

func TestLagNoGroupsAtAll(t *testing.T) {
	if testkit.Real() {
		t.Skip("a shared real broker has other groups")
	}
	c := testkit.New(t)
	r := mustRun(t, c, 0, "lag", "--all-groups", "-o", "json")
	if !strings.Contains(r.stdout, `"groups": []`) {
		t.Errorf("no groups must be an empty array, got %s", r.stdout)
	}
	r = mustRun(t, c, 0, "groups", "-o", "json")
	if !strings.Contains(r.stdout, `"groups": []`) {
		t.Errorf("groups: %s", r.stdout)
	}
	r = mustRun(t, c, 0, "lag", "--all-groups")
	if r.stdout != "" || !strings.Contains(r.stderr, "no consumer groups found") {
		t.Errorf("table: stdout %q stderr %q", r.stdout, r.stderr)
	}
}

// failingWriter accepts the first n writes, then fails like a closed pipe.
type failingWriter struct {
	n      int
	writes int
}

func (f *failingWriter) Write(p []byte) (int, error) {
	f.writes++
	if f.writes > f.n {
		return 0, syscall.EPIPE
	}
	return len(p), nil
}

// TestLagWatchStopsWhenStdoutCloses: nobody reads a watch whose stdout is
// closed; it ends instead of polling the cluster forever, quietly and with
// exit 0: a watch asks for no last round, so its reader leaving ends it as
// Ctrl-C does (as replay --follow, docs/replay.md), not with 141.
func TestLagWatchStopsWhenStdoutCloses(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(1, nil)
	g := testkit.Name(t, "g")
	c.Commit(g, topic, map[int32]int64{0: 0})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	errb := newSyncBuffer()
	out := &failingWriter{n: 1}
	a := &app{stdout: out, stderr: errb, stdin: strings.NewReader(""), getenv: testEnv(t, nil), now: time.Now}
	code := a.execute(ctx, []string{"--brokers", c.BrokerList(), "lag", g, "--watch", "100ms"})
	if ctx.Err() != nil {
		t.Fatal("the watch did not stop when stdout failed")
	}
	// The reader leaving ends a tail as Ctrl-C does (stdout.go).
	if code != exitcode.OK || errb.String() != "" {
		t.Errorf("exit %d stderr %q, want 0 and nothing on stderr", code, errb.String())
	}
}

func TestLagWatchJSONOneDocumentPerRound(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(1, nil)
	c.Produce(topic, map[int32]int{0: 3}, time.Time{})
	g := testkit.Name(t, "g")
	c.Commit(g, topic, map[int32]int64{0: 1})
	r := watchUntil(t, c, func(out string) bool { return strings.Count(out, "\n") >= 2 }, "lag", g, "--watch", "200ms", "-o", "json")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if r.code != 0 || len(lines) < 2 {
		t.Fatalf("exit %d, %d lines:\n%s", r.code, len(lines), r.stdout)
	}
	for _, l := range lines {
		var doc lagJSON
		if err := json.Unmarshal([]byte(l), &doc); err != nil || len(doc.Groups) != 1 || doc.Groups[0].TotalLag != 2 {
			t.Errorf("line %q: %v %+v", l, err, doc)
		}
	}
}

// lag --watch -o csv is one CSV stream: the header once, then every
// round's rows with the round's time in a leading TIME column.
func TestLagWatchCSVOneHeader(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(2, nil)
	c.Produce(topic, map[int32]int{0: 3, 1: 5}, time.Time{})
	g := testkit.Name(t, "g")
	c.Commit(g, topic, map[int32]int64{0: 1, 1: 5})
	r := watchUntil(t, c, func(out string) bool { return strings.Count(out, g) >= 4 }, "lag", g, "--watch", "200ms", "-o", "csv")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	recs, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
	if err != nil {
		t.Fatalf("the watch output is not one CSV: %v\n%s", err, r.stdout)
	}
	if len(recs) < 5 || recs[0][0] != "TIME" || recs[0][1] != "GROUP" {
		t.Fatalf("want a TIME,GROUP,... header and two rounds of two rows:\n%s", r.stdout)
	}
	lagCol := -1
	for i, h := range recs[0] {
		if h == "LAG" {
			lagCol = i
		}
	}
	for _, rec := range recs[1:] {
		if _, err := time.Parse(time.RFC3339, rec[0]); err != nil || rec[1] != g || rec[0] == "TIME" {
			t.Errorf("row %v: want the round's time, then the group (the header only once)", rec)
		}
		if want := map[string]string{"0": "2", "1": "0"}[rec[4]]; rec[lagCol] != want {
			t.Errorf("row %v: LAG %s, want %s", rec, rec[lagCol], want)
		}
	}
}

// A group that does not exist has no lag to report: its total lag was 0
// in lag's and groups' JSON, CSV and tables, which a dashboard reads as
// caught up. It is null, empty and "-"; the exit code is 1 as before.
func TestMissingGroupTotalLagUnknown(t *testing.T) {
	c := testkit.New(t)
	group := testkit.Name(t, "nosuch")
	r := mustRun(t, c, 1, "lag", group, "-o", "json")
	if !strings.Contains(r.stdout, `"total_lag": null`) || strings.Contains(r.stdout, `"total_lag": 0`) {
		t.Errorf("lag -o json of a missing group:\n%s", r.stdout)
	}
	r = mustRun(t, c, 1, "groups", "--group", group, "-o", "csv")
	if !strings.Contains(r.stdout, group+",") || !strings.Contains(r.stdout, ",Dead,0,,,") {
		t.Errorf("groups -o csv of a missing group:\n%s", r.stdout)
	}
	r = mustRun(t, c, 1, "groups", "--group", group)
	if f := strings.Fields(strings.Split(r.stdout, "\n")[1]); len(f) < 6 || f[0] != group || f[1] != "Dead" || f[4] != "-" || f[5] != "group" {
		t.Errorf("groups table of a missing group:\n%s", r.stdout)
	}
}

// `lag G --topic T` of a group with nothing on T printed the group line
// with TOTAL-LAG 0 and no rows, not a word: a typo'd group or topic in a
// check read as caught up. The group's note says so; --all-groups --topic
// T still lists only the groups with something on T.
func TestLagTopicGroupHasNothingOn(t *testing.T) {
	c := testkit.New(t)
	consumed, other := c.Topic(2, nil), c.Topic(2, nil)
	c.Produce(consumed, map[int32]int{0: 5, 1: 5}, time.Time{})
	c.Produce(other, map[int32]int{0: 9, 1: 9}, time.Time{})
	group := testkit.Name(t, "g")
	c.Commit(group, consumed, map[int32]int64{0: 1, 1: 2})
	rep := lagOf(t, c, 0, group, "--topic", other)
	if len(rep.Groups) != 1 || len(rep.Groups[0].Partitions) != 0 || !strings.Contains(rep.Groups[0].Note, "no commit on and no assignment of topic "+other) {
		t.Fatalf("lag --topic of a topic the group has nothing on: %+v", rep.Groups)
	}
	if table := mustRun(t, c, 0, "lag", group, "--topic", other).stdout; !strings.Contains(table, "no commit on and no assignment of topic "+other) {
		t.Errorf("table:\n%s", table)
	}
	rep = lagOf(t, c, 0, group, "--topic", consumed)
	if g := rep.Groups[0]; len(g.Partitions) != 2 || strings.Contains(g.Note, "no commit on") || g.TotalLag != 7 {
		t.Errorf("lag --topic of its own topic: %+v", g)
	}
}

// A raw OffsetCommit can store a negative offset other than -1 (Kafka 4.4
// keeps it). lag dropped the partition's row: the group showed TOTAL-LAG
// 0 and no rows, hiding that its commit is broken. The row is there with
// COMMITTED - and LAG -, as kafka-consumer-groups --describe shows it,
// and a note with the value.
func TestLagNegativeCommittedOffset(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(2, nil)
	c.Produce(topic, map[int32]int{0: 5, 1: 5}, time.Time{})
	group := testkit.Name(t, "g")
	c.Commit(group, topic, map[int32]int64{0: -5, 1: 2})
	rep := lagOf(t, c, 0, group)
	g := rep.Groups[0]
	if len(g.Partitions) != 2 || g.TotalLag != 3 {
		t.Fatalf("rows: %+v", g)
	}
	p := g.Partitions[0]
	if p.Partition != 0 || p.Committed != nil || p.Lag != nil || p.LogEnd != 5 || !strings.Contains(p.Note, "the committed offset is -5, which is not an offset") {
		t.Errorf("the partition committed at -5: %+v", p)
	}
	if table := mustRun(t, c, 0, "lag", group).stdout; !strings.Contains(table, "the committed offset is -5") {
		t.Errorf("table:\n%s", table)
	}
}
