package cli

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/offsetctl/offsetctl/internal/mirror"
	"github.com/offsetctl/offsetctl/internal/testkit"
)

// TestTranslateNotOnTarget: checkpoints for a topic B does not have (a
// deleted topic MM2's compacted checkpoints topic still remembers) and for
// a partition B does not have are named the same way by translate and by
// reset --to translated:ALIAS (a warning, a not-on-target row), left out of
// the plan, and never block the rest of the group; --topic scopes them out.
func TestTranslateNotOnTarget(t *testing.T) {
	c := testkit.New(t)
	alias := testkit.Name(t, "src")
	topic, gone := alias+".orders", alias+".missing"
	c.CreateTopic(topic, 2, nil)
	c.WaitTopic(topic, 2)
	c.Produce(topic, map[int32]int{0: 100, 1: 100}, time.Time{})
	g := testkit.Name(t, "g")
	now := time.Now().Truncate(time.Millisecond)
	seedCheckpoints(t, c, alias,
		mirror.Checkpoint{Group: g, Topic: topic, Partition: 0, Upstream: 30, Downstream: 30, Time: now},
		mirror.Checkpoint{Group: g, Topic: topic, Partition: 1, Upstream: 40, Downstream: 40, Time: now},
		mirror.Checkpoint{Group: g, Topic: topic, Partition: 7, Upstream: 5, Downstream: 5, Time: now},
		mirror.Checkpoint{Group: g, Topic: gone, Partition: 0, Upstream: 10, Downstream: 10, Time: now},
	)
	c.Commit(g, topic, map[int32]int64{0: 10, 1: 10})
	before := map[string]map[int32]int64{topic: {0: 10, 1: 10}}
	warn := "2 partitions with a checkpoint but not on this (the target) cluster, left out: " + gone + "/0, " + topic + "/7"

	res, r := translateJSON(t, c, 0, g, "--source-alias", alias)
	var absent []string
	for _, p := range res.Groups[0].Partitions {
		if p.Status == mirror.StatusNotOnTarget {
			absent = append(absent, p.Topic+"/"+string(rune('0'+p.Partition))+": "+p.Note)
		}
	}
	if want := []string{gone + "/0: topic not on the target cluster; left out of a reset", topic + "/7: partition not on the target cluster; left out of a reset"}; !reflect.DeepEqual(absent, want) {
		t.Errorf("not-on-target rows: %q, want %q", absent, want)
	}
	if !strings.Contains(r.stderr, warn) {
		t.Errorf("translate stderr lacks %q:\n%s", warn, r.stderr)
	}

	// CSV writes changes without a '+' (as reset's CSV does); the table keeps it.
	csv := mustRun(t, c, 0, "translate", g, "--source-alias", alias, "-o", "csv")
	if !strings.Contains(csv.stdout, ","+topic+",0,30,30,10,0,100,20,") || strings.Contains(csv.stdout, "+") {
		t.Errorf("csv:\n%s", csv.stdout)
	}
	if table := mustRun(t, c, 0, "translate", g, "--source-alias", alias); !strings.Contains(table.stdout, "+20") {
		t.Errorf("table lost the sign:\n%s", table.stdout)
	}

	// The dry run warns the same way, mentions no plan line, changes nothing.
	r = mustRun(t, c, 0, "reset", g, "--to", "translated:"+alias)
	if !strings.Contains(r.stderr, warn) || strings.Contains(r.stderr, "line 0") {
		t.Errorf("reset stderr:\n%s", r.stderr)
	}
	if got := c.Committed(g); !reflect.DeepEqual(got, before) {
		t.Fatalf("dry run changed the commits: %v", got)
	}
	// --topic scopes before: the absent rows outside it do not warn.
	r = mustRun(t, c, 0, "reset", g, "--to", "translated:"+alias, "--topic", topic+":0")
	if strings.Contains(r.stderr, "not on this") || strings.Contains(r.stderr, "line 0") || !strings.Contains(r.stderr, topic+"/1") {
		t.Errorf("scoped reset stderr:\n%s", r.stderr)
	}
	if got := c.Committed(g); !reflect.DeepEqual(got, before) {
		t.Fatalf("scoped dry run changed the commits: %v", got)
	}
	// --execute commits the translations on B's partitions only.
	mustRun(t, c, 0, "reset", g, "--to", "translated:"+alias, "--execute", "--backup", t.TempDir()+"/b.csv")
	if got, want := c.Committed(g), (map[string]map[int32]int64{topic: {0: 30, 1: 40}}); !reflect.DeepEqual(got, want) {
		t.Fatalf("after reset: %v, want %v", got, want)
	}
}

// TestDiffAcrossClustersRefuses: a named group with no commits on either
// cluster (a typo, or snapshot files given as groups), the same profile
// twice and an empty --translate are bad input (exit 2, one line), so a
// DR drill's --exit-code never passes on them; --offset-syncs-profile's
// errors name that flag.
func TestDiffAcrossClustersRefuses(t *testing.T) {
	a := testkit.New(t)
	fake, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.ClusterID("diff-b"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fake.Close)
	b := testkit.At(t, fake.ListenAddrs())
	topic := testkit.Name(t, "t")
	a.CreateTopic(topic, 1, nil)
	a.Produce(topic, map[int32]int{0: 10}, time.Time{})
	g := testkit.Name(t, "g")
	a.Commit(g, topic, map[int32]int64{0: 5})
	env := profilesEnv(t, map[string]string{"a": a.BrokerList(), "b": b.BrokerList()})
	two := []string{"diff", "--profile", "a", "--profile", "b"}
	one := func(r result, want string) {
		t.Helper()
		if r.stdout != "" || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, want) {
			t.Errorf("stdout %q stderr %q, want one line holding %q", r.stdout, r.stderr, want)
		}
	}

	one(runProfiles(t, env, 2, append(two, "nosuchgroup", "--exit-code")...),
		"group nosuchgroup: no commits on either cluster (a, b), nothing to compare")
	one(runProfiles(t, env, 2, append(two, "a.csv", "b.csv")...), "groups a.csv, b.csv: no commits on either cluster")
	// With a real group beside it, the typo still fails the drill.
	one(runProfiles(t, env, 2, append(two, g, "nosuchgroup", "--exit-code")...), "group nosuchgroup: no commits")
	// A group committed on one side only is a difference, not a refusal.
	runProfiles(t, env, 1, append(two, g, "--exit-code")...)

	one(runProfiles(t, env, 2, "diff", "--profile", "a", "--profile", "a", g), "A and B are the same profile a")
	// Two profiles that reach one cluster (here the same brokers under two
	// names; two brokers of one cluster are the same case) would compare
	// it with itself, every row "same": refused by the cluster id, with
	// or without --translate.
	same := profilesEnv(t, map[string]string{"a": a.BrokerList(), "a2": a.BrokerList()})
	for _, extra := range [][]string{{"--exit-code"}, {"--translate", "src", "--exit-code"}} {
		one(runProfiles(t, same, 2, append([]string{"diff", "--profile", "a", "--profile", "a2", g}, extra...)...),
			"--profile: a and a2 reach the same cluster (id ")
	}
	one(runProfiles(t, env, 2, append(two, g, "--translate", "")...), "--translate: name A's MirrorMaker 2 alias")

	alias := testkit.Name(t, "src")
	seedCheckpoints(t, a, alias, mirror.Checkpoint{Group: g, Topic: topic, Partition: 0, Upstream: 5, Downstream: 5, Time: time.Now()})
	r := runProfiles(t, env, 2, "translate", g, "--profile", "a", "--source-alias", alias, "--offset-syncs", "--target-alias", "dst", "--offset-syncs-profile", "nosuch")
	one(r, `--offset-syncs-profile "nosuch": not in`)
	if strings.Contains(r.stderr, "--profile ") {
		t.Errorf("names --profile: %s", r.stderr)
	}
	if got := a.Committed(g); !reflect.DeepEqual(got, map[string]map[int32]int64{topic: {0: 5}}) {
		t.Errorf("commits on A changed: %v", got)
	}
}
