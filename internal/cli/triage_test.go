package cli

import (
	"encoding/csv"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/offsetctl/offsetctl/admin"
	"github.com/offsetctl/offsetctl/internal/testkit"
)

// triageFixture: two topics; group A lags 40 on t1 p0, 0 on t1 p1 and 7
// on t2 p0; group B lags 100 on t1 p0 and 2 on t1 p1; group B-test lags 1.
// Records were written 10 minutes ago.
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
	return c, base, t1, t2
}

func decodeLag(t *testing.T, r result) admin.LagReport {
	t.Helper()
	var rep admin.LagReport
	decodeJSON(t, r, &rep)
	return rep
}

func rowSet(rep admin.LagReport) []string {
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
	for _, bad := range [][]string{
		{"lag", "--regex"},
		{"lag", "--regex", "a(b"},
		{"lag", base + "-a", "--exclude", "x"},
		{"lag", "--all-groups", "--regex", "x"},
		{"lag", "--all-groups", "--min-lag", "-3"},
		{"lag", "--all-groups", "--min-lag", "1.5"},
		{"lag", "--all-groups", "--min-time-lag", "5"},
		{"lag", "--all-groups", "--by", "member"},
	} {
		r := mustRun(t, c, 2, bad...)
		if strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 || r.stdout != "" {
			t.Errorf("%v: want one stderr line and no stdout, got %q / %q", bad, r.stderr, r.stdout)
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
	var bt admin.TopicReport
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
		Groups []admin.GroupSummary `json:"groups"`
	}
	decodeJSON(t, r, &bg)
	if len(bg.Groups) != 2 || bg.Groups[0].TotalLag != 47 || bg.Groups[1].TotalLag != 102 {
		t.Fatalf("--by group: %+v", bg.Groups)
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
	if strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, " and 3 more") {
		t.Fatalf("many crossings: %q", r.stderr)
	}
	for _, bad := range []string{"lag", "lag<3", "lags>1", "time-lag>5", "lag>x"} {
		r := mustRun(t, c, 2, "lag", base+"-a", "--fail-if", bad)
		if r.stdout != "" || !strings.HasPrefix(r.stderr, "offsetctl: --fail-if ") {
			t.Errorf("--fail-if %q: %q / %q", bad, r.stdout, r.stderr)
		}
	}
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
