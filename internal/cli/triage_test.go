package cli

import (
	"context"
	"encoding/csv"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/offsetctl/offsetctl/internal/lag"
	"github.com/offsetctl/offsetctl/internal/testkit"
)

// triageFixture: two topics; group A lags 40 on t1 p0, 0 on t1 p1 and 7
// on t2 p0; group B lags 100 on t1 p0 and 2 on t1 p1; group B-test lags 1.
// Group C-test lags 100 (a pattern must exclude it), and group x<base>,
// outside every pattern below, lags 100 too. Records were written 10
// minutes ago.
func triageFixture(t *testing.T) (c *testkit.Cluster, base, t1, t2 string) {
	c = testkit.New(t)
	t1, t2 = c.Topic(2, nil), c.Topic(1, nil)
	old := time.Now().Add(-10 * time.Minute)
	c.Produce(t1, map[int32]int{0: 100, 1: 50}, old)
	c.Produce(t2, map[int32]int{0: 10}, old)
	base = testkit.Name(t, "tri")
	c.Commit(base+"-a", t1, map[int32]int64{0: 60, 1: 50})
	c.Commit(base+"-a", t2, map[int32]int64{0: 3})
	c.Commit(base+"-b", t1, map[int32]int64{0: 0, 1: 48})
	c.Commit(base+"-b-test", t1, map[int32]int64{1: 49})
	c.Commit(base+"-c-test", t1, map[int32]int64{0: 0})
	c.Commit("x"+base, t1, map[int32]int64{0: 0})
	return c, base, t1, t2
}

func decodeLag(t *testing.T, r result) lag.LagReport {
	t.Helper()
	var rep lag.LagReport
	decodeJSON(t, r, &rep)
	return rep
}

func rowSet(rep lag.LagReport) []string {
	var out []string
	for _, g := range rep.Groups {
		for _, p := range g.Partitions {
			out = append(out, g.Group+":"+p.Topic+":"+string(rune('0'+p.Partition)))
		}
	}
	return out
}

func TestLagMinLagAndRegex(t *testing.T) {
	c, base, t1, t2 := triageFixture(t)
	q := regexp.QuoteMeta(base)
	// --regex selects A, B and B-test; --exclude drops B-test; --min-lag 7
	// keeps A's t1/0 (40) and t2/0 (7) and B's t1/0 (100).
	r := mustRun(t, c, 0, "lag", "--regex", q+"-.*", "--exclude", ".*-test", "--min-lag", "7", "-o", "json")
	// Rows come sorted by group, topic, partition; the topic names are random.
	rows := rowSet(decodeLag(t, r))
	sort.Strings(rows)
	want := []string{base + "-a:" + t1 + ":0", base + "-a:" + t2 + ":0", base + "-b:" + t1 + ":0"}
	sort.Strings(want)
	if got, want := strings.Join(rows, " "), strings.Join(want, " "); got != want {
		t.Fatalf("rows\n got %s\nwant %s", got, want)
	}
	// --min-lag above every row leaves no group; exit 0.
	r = mustRun(t, c, 0, "lag", "--regex", q+"-.*", "--min-lag", "1e3", "-o", "json")
	if rep := decodeLag(t, r); len(rep.Groups) != 0 {
		t.Fatalf("groups left with --min-lag 1000: %v", rowSet(rep))
	}
	// Apache's spelling: describe --group, repeatable.
	r = mustRun(t, c, 0, "describe", "--group", base+"-a", "--group", base+"-b-test", "-o", "json")
	if rep := decodeLag(t, r); len(rep.Groups) != 2 || rep.Groups[0].Group != base+"-a" || rep.Groups[1].Group != base+"-b-test" {
		t.Fatalf("describe --group: %+v", rep.Groups)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"lag", "--regex"}, "--regex needs at least one GROUP pattern"},
		{[]string{"lag", "--regex", "a(b"}, "GROUP pattern: item 1 is not an RE2 expression: missing closing )"},
		{[]string{"lag", base + "-a", "--exclude", "x"}, "--exclude goes with --all-groups or --regex, not with named groups"},
		{[]string{"lag", "--all-groups", "--regex", "x"}, "--regex and --all-groups: use one"},
		{[]string{"lag", "--all-groups", "--min-lag", "-3"}, "--min-lag -3 is negative"},
		{[]string{"lag", "--all-groups", "--min-lag", "1.5"}, "--min-lag 1.5 is not a whole, non-negative number of records"},
		{[]string{"lag", "--all-groups", "--min-time-lag", "5"}, "--min-time-lag 5: want a duration such as 90s, 5m or 1h"},
		{[]string{"lag", "--all-groups", "--by", "member"}, "--by: want partition, topic or group"},
	} {
		bad := tc.args
		r := mustRun(t, c, 2, bad...)
		if strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 || r.stdout != "" || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: want one stderr line holding %q and no stdout, got %q / %q", bad, tc.want, r.stderr, r.stdout)
		}
	}
}

func TestLagMinTimeLag(t *testing.T) {
	c, base, t1, _ := triageFixture(t)
	// Every lagging row's next record is 10 minutes old: --min-time-lag 5m
	// keeps the lagging rows (it implies --time-lag), 1h keeps none.
	r := mustRun(t, c, 0, "lag", base+"-b", "--min-time-lag", "5m", "-o", "json")
	rep := decodeLag(t, r)
	if got := rowSet(rep); strings.Join(got, " ") != base+"-b:"+t1+":0 "+base+"-b:"+t1+":1" {
		t.Fatalf("rows %v", got)
	}
	for _, p := range rep.Groups[0].Partitions {
		if p.TimeLagMs == nil || *p.TimeLagMs < (5*time.Minute).Milliseconds() {
			t.Errorf("row %s/%d time lag %v", p.Topic, p.Partition, p.TimeLagMs)
		}
	}
	r = mustRun(t, c, 0, "lag", base+"-b", "--min-time-lag", "1h", "-o", "json")
	if rep := decodeLag(t, r); len(rep.Groups) != 0 {
		t.Fatalf("--min-time-lag 1h kept %v", rowSet(rep))
	}
}

func TestLagByTopicAndGroup(t *testing.T) {
	c, base, t1, t2 := triageFixture(t)
	r := mustRun(t, c, 0, "lag", base+"-a", base+"-b", "--by", "topic", "-o", "json")
	var bt lag.TopicReport
	decodeJSON(t, r, &bt)
	type row struct {
		group, topic string
		parts        int
		lag, maxLag  int64
	}
	var got []row
	for _, g := range bt.Groups {
		for _, tl := range g.Topics {
			got = append(got, row{g.Group, tl.Topic, tl.Partitions, tl.Lag, *tl.MaxLag})
		}
	}
	want := []row{{base + "-a", t1, 2, 40, 40}, {base + "-a", t2, 1, 7, 7}, {base + "-b", t1, 2, 102, 100}}
	// Topics come sorted by name within a group; the names are random.
	key := func(r row) string { return fmt.Sprint(r) }
	slices.SortFunc(got, func(a, b row) int { return strings.Compare(key(a), key(b)) })
	slices.SortFunc(want, func(a, b row) int { return strings.Compare(key(a), key(b)) })
	if !slices.Equal(got, want) {
		t.Fatalf("--by topic rows %+v, want %+v", got, want)
	}
	if strings.Contains(r.stdout, `"partitions":[`) {
		t.Error("--by topic JSON still lists partitions")
	}
	// CSV: one row per group and topic with the same numbers.
	r = mustRun(t, c, 0, "lag", base+"-a", base+"-b", "--by", "topic", "-o", "csv")
	recs, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
	if err != nil || len(recs) != 4 || strings.Join(recs[0], ",") != "GROUP,STATE,TOPIC,PARTITIONS,LAG,MAX-LAG,ERROR" ||
		strings.Join(recs[3], ",") != base+"-b,Empty,"+t1+",2,102,100," {
		t.Fatalf("--by topic CSV: %v %q", err, recs)
	}
	// --by group: only the totals.
	r = mustRun(t, c, 0, "lag", base+"-a", base+"-b", "--by", "group", "-o", "json")
	var bg struct {
		Groups []lag.GroupSummary `json:"groups"`
	}
	decodeJSON(t, r, &bg)
	if len(bg.Groups) != 2 || bg.Groups[0].TotalLag == nil || *bg.Groups[0].TotalLag != 47 || bg.Groups[1].TotalLag == nil || *bg.Groups[1].TotalLag != 102 {
		t.Fatalf("--by group: %+v", bg.Groups)
	}
	// --time-lag: --by topic shows MAX-TIME-LAG; --by group has no time
	// lag to show and refuses it (it printed the totals without a word:
	// QA finding).
	decodeJSON(t, mustRun(t, c, 0, "lag", base+"-b", "--by", "topic", "--time-lag", "-o", "json"), &bt)
	if len(bt.Groups) != 1 || len(bt.Groups[0].Topics) != 1 || bt.Groups[0].Topics[0].MaxTimeLagMs == nil || *bt.Groups[0].Topics[0].MaxTimeLagMs <= 0 {
		t.Fatalf("--by topic --time-lag: %+v", bt.Groups)
	}
	if r := mustRun(t, c, 0, "lag", base+"-b", "--by", "topic", "--time-lag"); !strings.Contains(strings.Split(r.stdout, "\n")[0], "MAX-TIME-LAG") {
		t.Errorf("--by topic --time-lag table: %q", r.stdout)
	}
	const refused = "offsetctl: --time-lag shows per partition or, with --by topic, per topic (MAX-TIME-LAG): not with --by group\n"
	for _, args := range [][]string{
		{"lag", "--all-groups", "--by", "group", "--time-lag"},
		{"lag", base + "-a", "--by", "group", "--time-lag", "--watch", "1s", "-o", "json"},
	} {
		if r := badInput(t, c, refused, args...); r.stderr != refused {
			t.Errorf("%v: stderr %q, want %q", args, r.stderr, refused)
		}
	}
}

func TestFailIf(t *testing.T) {
	c, base, t1, _ := triageFixture(t)
	// Not crossed: exit 0 and no threshold line.
	r := mustRun(t, c, 0, "lag", base+"-a", "--fail-if", "lag>40", "--fail-if", "total-lag>47")
	if strings.Contains(r.stderr, "threshold") {
		t.Errorf("stderr %q", r.stderr)
	}
	// Crossed: the report is printed as usual, exit 4, one line naming it.
	r = mustRun(t, c, 4, "lag", base+"-a", base+"-b", "--fail-if", "lag>=40", "-o", "json")
	if rep := decodeLag(t, r); len(rep.Groups) != 2 {
		t.Fatalf("report not printed whole: %v", rowSet(rep))
	}
	want := "offsetctl: threshold crossed by group " + base + "-a topic " + t1 + " partition 0 lag 40 (lag>=40); group " + base + "-b topic " + t1 + " partition 0 lag 100 (lag>=40)\n"
	if r.stderr != want {
		t.Fatalf("stderr\n got %q\nwant %q", r.stderr, want)
	}
	r = mustRun(t, c, 4, "groups", "--regex", regexp.QuoteMeta(base)+"-.*", "--fail-if", "total-lag>1e2")
	if !strings.Contains(r.stderr, "group "+base+"-b total-lag 102 (total-lag>1e2)") || strings.Count(r.stderr, "\n") != 1 {
		t.Fatalf("groups --fail-if stderr %q", r.stderr)
	}
	if !strings.Contains(r.stdout, base+"-a") || !strings.Contains(r.stdout, base+"-b-test") {
		t.Fatalf("groups report not printed: %q", r.stdout)
	}
	mustRun(t, c, 4, "lag", base+"-b", "--fail-if", "time-lag>5m")
	mustRun(t, c, 0, "lag", base+"-b", "--fail-if", "time-lag>1h")
	// Many crossings: one line, shortened.
	r = mustRun(t, c, 4, "lag", "--regex", regexp.QuoteMeta(base)+".*", "--fail-if", "lag>=0")
	if strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, " and 4 more") {
		t.Fatalf("many crossings: %q", r.stderr)
	}
	for _, bad := range []string{"lag", "lag<3", "lags>1", "time-lag>5", "lag>x"} {
		r := mustRun(t, c, 2, "lag", base+"-a", "--fail-if", bad)
		if r.stdout != "" || !strings.HasPrefix(r.stderr, "offsetctl: --fail-if ") {
			t.Errorf("--fail-if %q: %q / %q", bad, r.stdout, r.stderr)
		}
	}
	// A malformed expression is named first, as docs/lag.md says, also
	// when no group is (it said "name one or more groups": QA finding).
	badInput(t, c, "--fail-if lag>>5: the value is not a number of records", "lag", "--fail-if", "lag>>5")
	badInput(t, c, "--fail-if lags>1", "lag", "--regex", "--fail-if", "lags>1")
}

func TestFailIfWatch(t *testing.T) {
	c, base, _, _ := triageFixture(t)
	r := watchUntil(t, c, func(out string) bool { return strings.Count(out, "\n") >= 2 },
		"lag", base+"-b", "--watch", "200ms", "-o", "json", "--fail-if", "total-lag>100")
	if r.code != 4 || !strings.Contains(r.stderr, "total-lag 102 (total-lag>100)") {
		t.Fatalf("watch with a crossed threshold: exit %d\n%s", r.code, r.stderr)
	}
	r = watchUntil(t, c, func(out string) bool { return strings.Count(out, "\n") >= 2 },
		"lag", base+"-b", "--watch", "200ms", "-o", "json", "--fail-if", "total-lag>102")
	if r.code != 0 {
		t.Fatalf("watch under its threshold: exit %d\n%s", r.code, r.stderr)
	}
}

// joinConnectGroup makes group a Kafka Connect worker group: one member
// joined with protocol type "connect" (raw JoinGroup and SyncGroup, as a
// Connect worker sends them). It leaves when the test ends.
func joinConnectGroup(t *testing.T, c *testkit.Cluster, group string) {
	t.Helper()
	cl := c.Client()
	ctx := testkit.Ctx(t)
	join := func(member string) *kmsg.JoinGroupResponse {
		req := kmsg.NewPtrJoinGroupRequest()
		req.Group, req.MemberID, req.ProtocolType = group, member, "connect"
		req.SessionTimeoutMillis, req.RebalanceTimeoutMillis = 30000, 30000
		p := kmsg.NewJoinGroupRequestProtocol()
		p.Name, p.Metadata = "sessioned", []byte{0}
		req.Protocols = append(req.Protocols, p)
		resp, err := req.RequestWith(ctx, cl)
		if err != nil {
			t.Fatalf("JoinGroup: %v", err)
		}
		return resp
	}
	resp := join("")
	if err := kerr.ErrorForCode(resp.ErrorCode); err == kerr.MemberIDRequired {
		resp = join(resp.MemberID)
	}
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		t.Fatalf("JoinGroup: %v", err)
	}
	sync := kmsg.NewPtrSyncGroupRequest()
	sync.Group, sync.Generation, sync.MemberID = group, resp.Generation, resp.MemberID
	sync.ProtocolType, sync.Protocol = kmsg.StringPtr("connect"), kmsg.StringPtr("sessioned")
	a := kmsg.NewSyncGroupRequestGroupAssignment()
	a.MemberID, a.MemberAssignment = resp.MemberID, []byte{0}
	sync.GroupAssignment = append(sync.GroupAssignment, a)
	if sresp, err := sync.RequestWith(ctx, cl); err != nil || sresp.ErrorCode != 0 {
		t.Fatalf("SyncGroup: %v %v", err, sresp)
	}
	t.Cleanup(func() {
		leave := kmsg.NewPtrLeaveGroupRequest()
		leave.Group = group
		m := kmsg.NewLeaveGroupRequestMember()
		m.MemberID = resp.MemberID
		leave.Members = append(leave.Members, m)
		leave.RequestWith(context.Background(), cl)
	})
}

// TestConnectGroupShownForWhatItIs: a Kafka Connect worker group is listed
// with TYPE connect, lag says it is not a consumer group, and reset refuses
// it saying what it is (not "stop its consumers").
func TestConnectGroupShownForWhatItIs(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(1, nil)
	g := testkit.Name(t, "connect-cluster")
	joinConnectGroup(t, c, g)
	r := mustRun(t, c, 0, "groups", "--regex", regexp.QuoteMeta(g), "-o", "json")
	var gs struct {
		Groups []lag.GroupSummary `json:"groups"`
	}
	decodeJSON(t, r, &gs)
	if len(gs.Groups) != 1 || gs.Groups[0].ProtocolType != "connect" || gs.Groups[0].Type != "classic" || gs.Groups[0].Members != 1 {
		t.Fatalf("groups: %+v", gs.Groups)
	}
	r = mustRun(t, c, 0, "groups", "--regex", regexp.QuoteMeta(g))
	if f := strings.Fields(strings.Split(r.stdout, "\n")[1]); len(f) < 2 || f[0] != g || f[1] != "connect" {
		t.Fatalf("groups table row %q, want TYPE connect", strings.Split(r.stdout, "\n")[1])
	}
	r = mustRun(t, c, 0, "lag", g, "-o", "json")
	if rep := decodeLag(t, r); len(rep.Groups) != 1 || !strings.Contains(rep.Groups[0].Note, "not a consumer group") || rep.Groups[0].ProtocolType != "connect" {
		t.Fatalf("lag: %+v", rep.Groups)
	}
	r = mustRun(t, c, 1, "reset", g, "--topic", topic, "--to", "earliest")
	if !strings.Contains(r.stderr, "is not a consumer group but a classic group of protocol type connect") || strings.Contains(r.stderr, "stop its consumers") {
		t.Fatalf("reset of a Connect group: %q", r.stderr)
	}
	// A selection of only a Connect group matched no consumer group, live
	// or not: it said "no inactive consumer group matches".
	badInput(t, c, "offsetctl: no consumer group matches the --regex/--exclude selection (GROUP pattern "+regexp.QuoteMeta(g)+
		" matched only groups of a kind delete-group skips: 1 Kafka Connect worker group): nothing to do", "delete-group", "-r", regexp.QuoteMeta(g), "--execute")
}

// TestLagMembersAndState: three members of a classic group on two
// partitions show as three --members rows, the idle one with 0
// partitions; --state shows the coordinator, assignor and state. A KIP-848
// group shows its server-side assignor.
func TestLagMembersAndState(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(2, nil)
	c.Produce(topic, map[int32]int{0: 5, 1: 5}, time.Now())
	g := testkit.Name(t, "members")
	for i := 0; i < 3; i++ {
		stop := c.Consumer(g, topic, false)
		defer stop()
	}
	var ms struct {
		Members []lag.MemberRow `json:"members"`
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		decodeJSON(t, mustRun(t, c, 0, "describe", "--group", g, "--members", "-o", "json"), &ms)
		total, idle := 0, 0
		for _, m := range ms.Members {
			total += m.Partitions
			if m.Partitions == 0 {
				idle++
			}
		}
		if len(ms.Members) == 3 && total == 2 && idle == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("members %+v: want 3 members, 2 partitions, 1 idle", ms.Members)
		}
		time.Sleep(200 * time.Millisecond)
	}
	for _, m := range ms.Members {
		if m.Group != g || m.MemberID == "" || m.ClientID == "" || m.Host == "" {
			t.Errorf("member row %+v", m)
		}
	}
	r := mustRun(t, c, 0, "lag", g, "--members")
	if lines := strings.Split(strings.TrimSpace(r.stdout), "\n"); len(lines) != 4 || !strings.HasPrefix(lines[0], "GROUP") || !strings.Contains(lines[0], "PARTITIONS") {
		t.Fatalf("--members table:\n%s", r.stdout)
	}
	var st struct {
		Groups []lag.GroupState `json:"groups"`
	}
	decodeJSON(t, mustRun(t, c, 0, "lag", g, "--state", "-o", "json"), &st)
	if len(st.Groups) != 1 || st.Groups[0].Coordinator == nil || st.Groups[0].Assignor == "" || st.Groups[0].State != "Stable" || st.Groups[0].Members != 3 {
		t.Fatalf("--state: %+v", st.Groups)
	}
	// The coordinator --state names is the one FindCoordinator names.
	resp := c.Admin().FindGroupCoordinators(testkit.Ctx(t), g)
	if err := resp[g].Err; err != nil {
		t.Fatal(err)
	}
	if want := resp[g].NodeID; *st.Groups[0].Coordinator != want {
		t.Errorf("coordinator %d, FindCoordinator says %d", *st.Groups[0].Coordinator, want)
	}
	badInput(t, c, "--members and --state are two views: use one", "lag", g, "--state", "--members")
	badInput(t, c, "--members and --state go with neither --by nor --watch", "lag", g, "--state", "--by", "topic")

	k := testkit.Name(t, "members848")
	stop := c.Consumer(k, topic, true)
	defer stop()
	deadline = time.Now().Add(60 * time.Second)
	for {
		decodeJSON(t, mustRun(t, c, 0, "lag", k, "--state", "-o", "json"), &st)
		if len(st.Groups) == 1 && st.Groups[0].Members == 1 && st.Groups[0].Type == "consumer" && st.Groups[0].Assignor != "" && st.Groups[0].Coordinator != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("KIP-848 --state: %+v", st.Groups)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestGroupsMinLagIsTotalLag: groups shows TOTAL-LAG, so its --min-lag
// filters on it. Group A's largest partition lag is 40 but its TOTAL-LAG
// 47: --min-lag 45 shows it (filtering on the largest row hid it), 48
// does not; B (102) and C-test (100) stay for both, B-test (1) goes.
func TestGroupsMinLagIsTotalLag(t *testing.T) {
	c, base, _, _ := triageFixture(t)
	q := regexp.QuoteMeta(base) + "-.*"
	for _, tc := range []struct {
		min  string
		want []string
	}{
		{"45", []string{base + "-a:47", base + "-b:102", base + "-c-test:100"}},
		{"48", []string{base + "-b:102", base + "-c-test:100"}},
		{"0", []string{base + "-a:47", base + "-b:102", base + "-b-test:1", base + "-c-test:100"}},
	} {
		r := mustRun(t, c, 0, "groups", "--regex", q, "--min-lag", tc.min, "-o", "json")
		var out struct {
			Groups []lag.GroupSummary `json:"groups"`
		}
		decodeJSON(t, r, &out)
		var got []string
		for _, g := range out.Groups {
			if g.TotalLag == nil {
				t.Fatalf("groups --min-lag %s: group %s has no total_lag", tc.min, g.Group)
			}
			got = append(got, fmt.Sprintf("%s:%d", g.Group, *g.TotalLag))
		}
		sort.Strings(got)
		sort.Strings(tc.want)
		if !slices.Equal(got, tc.want) {
			t.Errorf("groups --min-lag %s: %v, want %v", tc.min, got, tc.want)
		}
	}
	r := mustRun(t, c, 0, "groups", "--help")
	if !strings.Contains(r.stdout, "only groups whose TOTAL-LAG is ≥ N") {
		t.Errorf("groups --help does not say what --min-lag filters on:\n%s", r.stdout)
	}
}

// TestLagMembersEmptyGroup: a group with commits and no member prints the
// bare header on stdout (data only) and says on stderr that it has no
// active members, as kafka-consumer-groups --describe --members does;
// JSON has an empty list. A group with members gets no such line.
func TestLagMembersEmptyGroup(t *testing.T) {
	c, base, _, _ := triageFixture(t)
	g := base + "-a"
	r := mustRun(t, c, 0, "lag", g, "--members")
	if lines := strings.Split(strings.TrimSpace(r.stdout), "\n"); len(lines) != 1 || !strings.HasPrefix(lines[0], "GROUP") {
		t.Fatalf("stdout %q: want the header alone", r.stdout)
	}
	if want := "offsetctl: note: group " + g + " has no active members\n"; r.stderr != want {
		t.Fatalf("stderr %q, want %q", r.stderr, want)
	}
	r = mustRun(t, c, 0, "lag", g, base+"-b", "--members", "-o", "json")
	var ms struct {
		Members []lag.MemberRow `json:"members"`
	}
	decodeJSON(t, r, &ms)
	if ms.Members == nil || len(ms.Members) != 0 {
		t.Fatalf("json members %+v, want []", ms.Members)
	}
	if strings.Count(r.stderr, "has no active members") != 2 || !strings.Contains(r.stderr, "group "+base+"-b has") {
		t.Fatalf("stderr %q: want a line for each group", r.stderr)
	}
}
