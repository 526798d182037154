package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetctl/offsetctl/internal/cluster"
	"github.com/offsetctl/offsetctl/internal/mirror"
	"github.com/offsetctl/offsetctl/internal/testkit"
)

// seedCheckpoints creates alias's checkpoints topic on c and writes cps to
// it in MM2's format, in order, each with its timestamp.
func seedCheckpoints(t *testing.T, c *testkit.Cluster, alias string, cps ...mirror.Checkpoint) {
	t.Helper()
	topic := mirror.CheckpointsTopic(alias)
	c.CreateTopic(topic, 1, nil)
	var recs []*kgo.Record
	for _, cp := range cps {
		k, v := mirror.EncodeCheckpoint(cp)
		recs = append(recs, &kgo.Record{Topic: topic, Partition: 0, Key: k, Value: v, Timestamp: cp.Time})
	}
	c.ProduceRecords(recs...)
}

// translateJSON runs translate and decodes its JSON.
func translateJSON(t *testing.T, c *testkit.Cluster, want int, args ...string) (mirror.Result, result) {
	t.Helper()
	r := mustRun(t, c, want, append([]string{"translate", "-o", "json"}, args...)...)
	var res mirror.Result
	decodeJSON(t, r, &res)
	return res, r
}

// TestTranslateCheckpoints seeds MM2 checkpoint records and checks what
// translate prints and what reset --to translated:ALIAS commits: the newest
// checkpoint wins, a stale one is flagged, a partition without one is named
// and left alone. It runs on kfake and, unchanged, on Apache Kafka.
func TestTranslateCheckpoints(t *testing.T) {
	c := testkit.New(t)
	alias := testkit.Name(t, "src")
	topic := alias + ".orders" // the B-side name under MM2's default policy
	c.CreateTopic(topic, 3, nil)
	c.WaitTopic(topic, 3)
	c.Produce(topic, map[int32]int{0: 100, 1: 100, 2: 100}, time.Time{})
	g, other := testkit.Name(t, "g"), testkit.Name(t, "other")
	now := time.Now().Truncate(time.Millisecond)
	old := now.Add(-3 * time.Hour)
	seedCheckpoints(t, c, alias,
		mirror.Checkpoint{Group: g, Topic: topic, Partition: 0, Upstream: 10, Downstream: 8, Time: now.Add(-time.Minute)},
		mirror.Checkpoint{Group: g, Topic: topic, Partition: 1, Upstream: 20, Downstream: 20, Metadata: "m", Time: old},
		mirror.Checkpoint{Group: other, Topic: topic, Partition: 2, Upstream: 99, Downstream: 99, Time: now},
		mirror.Checkpoint{Group: g, Topic: topic, Partition: 0, Upstream: 40, Downstream: 35, Time: now},
	)
	// A record that is no checkpoint: skipped with a warning, as MM2's
	// MirrorClient skips it.
	c.ProduceRecords(&kgo.Record{Topic: mirror.CheckpointsTopic(alias), Partition: 0, Key: []byte("junk"), Value: []byte{0, 7}})
	c.Commit(g, topic, map[int32]int64{1: 20, 2: 50})

	res, r := translateJSON(t, c, 0, g, "--source-alias", alias, "--max-age", "1h")
	if len(res.Groups) != 1 || len(res.Groups[0].Partitions) != 3 {
		t.Fatalf("want 1 group with 3 partitions, got %+v", res)
	}
	type row struct {
		src, tr, cur *int64
		status       string
		stale        bool
	}
	i := func(v int64) *int64 { return &v }
	want := []row{{i(40), i(35), nil, mirror.StatusChange, false}, {i(20), i(20), i(20), mirror.StatusInSync, true}, {nil, nil, i(50), mirror.StatusNoCheckpoint, false}}
	for p, w := range want {
		got := res.Groups[0].Partitions[p]
		if g := (row{got.SourceOffset, got.TranslatedOffset, got.CurrentOffset, got.Status, got.Stale}); !reflect.DeepEqual(g, w) || got.Partition != int32(p) || *got.LogEnd != 100 {
			t.Errorf("partition %d: got %+v", p, got)
		}
	}
	for _, s := range []string{"1 partition without a checkpoint, not translated: " + topic + "/2", "older than --max-age", "skipped 1 record"} {
		if !strings.Contains(r.stderr, s) {
			t.Errorf("stderr lacks %q:\n%s", s, r.stderr)
		}
	}
	table := mustRun(t, c, 0, "translate", g, "--source-alias", alias, "--max-age", "1h")
	if !strings.Contains(table.stdout, "(stale)") || !strings.Contains(table.stdout, "no-checkpoint") {
		t.Errorf("table:\n%s", table.stdout)
	}
	csv := mustRun(t, c, 0, "translate", g, "--source-alias", alias, "-o", "csv")
	if n := strings.Count(csv.stdout, "\n"); n != 4 {
		t.Errorf("csv: %d lines, want a header and 3 rows:\n%s", n, csv.stdout)
	}

	// The dry run changes nothing; --execute commits the translations and
	// leaves the partition without a checkpoint alone.
	mustRun(t, c, 0, "reset", g, "--to", "translated:"+alias)
	if got := c.Committed(g); !reflect.DeepEqual(got, map[string]map[int32]int64{topic: {1: 20, 2: 50}}) {
		t.Fatalf("dry run changed the commits: %v", got)
	}
	dir := t.TempDir()
	mustRun(t, c, 0, "reset", g, "--to", "translated:"+alias, "--execute", "--backup", filepath.Join(dir, "b.csv"))
	if got := c.Committed(g); !reflect.DeepEqual(got, map[string]map[int32]int64{topic: {0: 35, 1: 20, 2: 50}}) {
		t.Fatalf("after reset: %v, want 0:35 1:20 2:50", got)
	}
	// The change engine did the rest: the backup holds the planned
	// partitions as they were (1 at 20, 0 without a commit).
	if b, err := os.ReadFile(filepath.Join(dir, "b.csv")); err != nil || !strings.Contains(string(b), topic+`",1,20`) || !strings.Contains(string(b), "offsetctl:no-commit:") {
		t.Errorf("backup: %q %v", b, err)
	}
	res, _ = translateJSON(t, c, 0, g, "--source-alias", alias)
	if p := res.Groups[0].Partitions[0]; p.Status != mirror.StatusInSync {
		t.Errorf("after reset partition 0 is %s, want in-sync", p.Status)
	}

	// A group without a checkpoint: translate fails (exit 1) naming it,
	// reset refuses it as bad input.
	none := testkit.Name(t, "none")
	res, r = translateJSON(t, c, 1, none, "--source-alias", alias)
	if res.Groups[0].Error == "" || !strings.Contains(r.stderr, "no checkpoint") {
		t.Errorf("group without checkpoints: %+v\n%s", res, r.stderr)
	}
	r = mustRun(t, c, 2, "reset", none, "--to", "translated:"+alias)
	if r.stdout != "" || !strings.Contains(r.stderr, "has no checkpoint in "+alias+".checkpoints.internal: nothing to translate") {
		t.Errorf("reset of a group without checkpoints: %q %q", r.stdout, r.stderr)
	}
	// No checkpoints topic for the alias: an operational failure.
	r = mustRun(t, c, 1, "translate", g, "--source-alias", "nosuch"+alias)
	if !strings.Contains(r.stderr, "does not exist on this cluster") {
		t.Errorf("missing topic: %s", r.stderr)
	}
}

// TestTranslateBadInput: exit 2, one line, nothing read from the cluster.
func TestTranslateBadInput(t *testing.T) {
	c := testkit.New(t)
	badInput(t, c, "--source-alias: name the MirrorMaker 2 source cluster alias", "translate", "g")
	badInput(t, c, "name at least one group", "translate", "--source-alias", "A")
	badInput(t, c, "--source-alias cluster alias has a character", "translate", "g", "--source-alias", "a/b")
	badInput(t, c, "--max-age", "translate", "g", "--source-alias", "A", "--max-age", "soon")
	badInput(t, c, "--max-age must be positive", "translate", "g", "--source-alias", "A", "--max-age", "0s")
	badInput(t, c, "needs the MirrorMaker 2 source cluster alias", "reset", "g", "--to", "translated:")
	badInput(t, c, "resets named groups", "reset", "--all-groups", "--to", "translated:A")
	badInput(t, c, "--translate compares two clusters", "diff", "x.csv", "--translate", "A")
}

// profilesEnv writes a profiles file naming the clusters and returns an
// environment that points offsetctl at it.
func profilesEnv(t *testing.T, profiles map[string]string) func(string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("profiles:\n")
	for name, brokers := range profiles {
		b.WriteString("  " + name + ":\n    brokers: " + brokers + "\n")
	}
	p := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return testEnv(t, func(k string) string {
		if k == cluster.EnvConfig {
			return p
		}
		return ""
	})
}

// runProfiles runs offsetctl in-process with env and no --brokers.
func runProfiles(t *testing.T, env func(string) string, want int, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	a := &app{stdout: &out, stderr: &errb, stdin: strings.NewReader(""), getenv: env, now: time.Now}
	r := result{code: a.execute(testkit.Ctx(t), args)}
	r.stdout, r.stderr = out.String(), errb.String()
	if r.code != want {
		t.Fatalf("offsetctl %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.code, want, r.stdout, r.stderr)
	}
	return r
}

// TestDiffAcrossClusters compares one group on two clusters (the test's
// cluster as A, a second kfake cluster as B), by name and, with
// --translate, against MM2's translation on B.
func TestDiffAcrossClusters(t *testing.T) {
	a := testkit.New(t)
	fake, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.ClusterID("diff-b"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fake.Close)
	b := testkit.At(t, fake.ListenAddrs())
	alias := testkit.Name(t, "src")
	topic := testkit.Name(t, "t")
	a.CreateTopic(topic, 2, nil)
	b.CreateTopic(topic, 2, nil)
	b.CreateTopic(alias+"."+topic, 2, nil)
	a.Produce(topic, map[int32]int{0: 100, 1: 100}, time.Time{})
	b.Produce(topic, map[int32]int{0: 100, 1: 100}, time.Time{})
	b.Produce(alias+"."+topic, map[int32]int{0: 100, 1: 100}, time.Time{})
	g := testkit.Name(t, "g")
	a.Commit(g, topic, map[int32]int64{0: 40, 1: 60})
	b.Commit(g, topic, map[int32]int64{0: 40, 1: 65})
	env := profilesEnv(t, map[string]string{"a": a.BrokerList(), "b": b.BrokerList()})

	var d mirror.DiffResult
	r := runProfiles(t, env, 0, "diff", "--profile", "a", "--profile", "b", g, "-o", "json")
	decodeJSON(t, r, &d)
	if d.Differences != 1 || len(d.Rows) != 2 || d.Rows[0].Status != mirror.DiffSame || d.Rows[1].Status != mirror.DiffDiffer || *d.Rows[1].A != 60 || *d.Rows[1].B != 65 {
		t.Fatalf("plain diff: %+v", d)
	}
	runProfiles(t, env, 1, "diff", "--profile", "a", "--profile", "b", g, "--exit-code")
	r = runProfiles(t, env, 0, "diff", "--profile", "a", "--profile", "b", g, "-o", "csv")
	if !strings.HasPrefix(r.stdout, "GROUP,TOPIC,PARTITION,A:a,B:b,STATUS,NOTE\n") {
		t.Errorf("csv: %s", r.stdout)
	}

	// --translate: B's commits on alias.topic against the checkpoints.
	now := time.Now()
	seedCheckpoints(t, b, alias,
		mirror.Checkpoint{Group: g, Topic: alias + "." + topic, Partition: 0, Upstream: 40, Downstream: 38, Time: now},
		mirror.Checkpoint{Group: g, Topic: alias + "." + topic, Partition: 1, Upstream: 50, Downstream: 45, Time: now},
	)
	b.Commit(g, alias+"."+topic, map[int32]int64{0: 38})
	d = mirror.DiffResult{}
	r = runProfiles(t, env, 0, "diff", "--profile", "a", "--profile", "b", g, "--translate", alias, "-o", "json")
	decodeJSON(t, r, &d)
	if len(d.Rows) != 2 || d.Rows[0].Status != mirror.DiffSame || d.Rows[1].Status != mirror.DiffDiffer || d.Differences != 1 ||
		*d.Rows[1].A != 60 || *d.Rows[1].Translated != 45 || d.Rows[1].B != nil || !strings.Contains(d.Rows[1].Note, "moved since the checkpoint (checkpointed 50)") {
		t.Fatalf("translated diff: %+v", d)
	}
	runProfiles(t, env, 1, "diff", "--profile", "a", "--profile", "b", g, "--translate", alias, "--exit-code")
	b.Commit(g, alias+"."+topic, map[int32]int64{1: 45})
	runProfiles(t, env, 0, "diff", "--profile", "a", "--profile", "b", g, "--translate", alias, "--exit-code")

	badInput(t, nil, "exactly two profiles", "diff", "--profile", "a", "--profile", "b", "--profile", "c", g)
}

// TestTranslateOffsetSyncs: --offset-syncs names the sync each translation
// comes from and how many records a consumer resuming there reads again.
func TestTranslateOffsetSyncs(t *testing.T) {
	c := testkit.New(t)
	alias, target := testkit.Name(t, "src"), testkit.Name(t, "tgt")
	source := testkit.Name(t, "orders")
	topic := alias + "." + source
	c.CreateTopic(topic, 2, nil)
	c.WaitTopic(topic, 2)
	c.Produce(topic, map[int32]int{0: 60, 1: 60}, time.Time{})
	g := testkit.Name(t, "g")
	now := time.Now()
	seedCheckpoints(t, c, alias,
		mirror.Checkpoint{Group: g, Topic: topic, Partition: 0, Upstream: 40, Downstream: 26, Time: now},
		mirror.Checkpoint{Group: g, Topic: topic, Partition: 1, Upstream: 20, Downstream: 20, Time: now},
	)
	syncs := mirror.OffsetSyncsTopic(target)
	c.CreateTopic(syncs, 1, nil)
	var recs []*kgo.Record
	for _, s := range []mirror.OffsetSync{{Topic: source, Partition: 0}, {Topic: source, Partition: 0, Upstream: 30, Downstream: 25},
		{Topic: source, Partition: 0, Upstream: 45, Downstream: 40}, {Topic: source, Partition: 1, Upstream: 20, Downstream: 20}} {
		k, v := mirror.EncodeOffsetSync(s)
		recs = append(recs, &kgo.Record{Topic: syncs, Key: k, Value: v})
	}
	recs = append(recs, &kgo.Record{Topic: syncs, Key: []byte{0}, Value: []byte{1}})
	c.ProduceRecords(recs...)

	res, r := translateJSON(t, c, 0, g, "--source-alias", alias, "--offset-syncs", "--target-alias", target)
	if !res.OffsetSyncs || len(res.Groups[0].Partitions) != 2 {
		t.Fatalf("%+v", res)
	}
	want := [][3]int64{{30, 25, 9}, {20, 20, 0}} // sync upstream, downstream, read again
	for p, w := range want {
		row := res.Groups[0].Partitions[p]
		if row.SyncUpstream == nil || row.ReadAgain == nil || [3]int64{*row.SyncUpstream, *row.SyncDownstream, *row.ReadAgain} != w {
			t.Errorf("partition %d: %+v, want sync %d->%d, read again %d", p, row, w[0], w[1], w[2])
		}
	}
	if !strings.Contains(r.stderr, "skipped 1 record that did not decode as offset syncs") {
		t.Errorf("stderr: %s", r.stderr)
	}
	table := mustRun(t, c, 0, "translate", g, "--source-alias", alias, "--offset-syncs", "--target-alias", target)
	if !strings.Contains(table.stdout, "READ-AGAIN") || !strings.Contains(table.stdout, "30->25") {
		t.Errorf("table:\n%s", table.stdout)
	}
	badInput(t, c, "--offset-syncs needs --target-alias", "translate", g, "--source-alias", alias, "--offset-syncs")
	badInput(t, c, "go with --offset-syncs", "translate", g, "--source-alias", alias, "--target-alias", target)
	r = mustRun(t, c, 1, "translate", g, "--source-alias", alias, "--offset-syncs", "--target-alias", "nosuch"+target)
	if !strings.Contains(r.stderr, "does not exist on that cluster") {
		t.Errorf("missing syncs topic: %s", r.stderr)
	}
}

// Each of diff's own flags is refused (exit 2, one line, before any
// cluster is asked: the profiles here reach no broker) in the mode where
// it would do nothing, never ignored: --all-groups in a cluster diff (QA
// finding: `diff --profile primary --profile dr G --all-groups` compared G
// only, and without G said "name at least one group"), --translate without
// two clusters, --all-groups with two snapshots.
func TestDiffFlagsOutsideTheirMode(t *testing.T) {
	env := profilesEnv(t, map[string]string{"a": "127.0.0.1:1", "b": "127.0.0.1:2"})
	dir := t.TempDir()
	snap := filepath.Join(dir, "s.csv")
	if err := os.WriteFile(snap, []byte("g,t,0,5\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const allCross = "--all-groups goes with a diff of a snapshot against the cluster"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"diff", "--profile", "a", "--profile", "b", "g", "--all-groups"}, allCross},
		{[]string{"diff", "--profile", "a", "--profile", "b", "--all-groups"}, allCross},
		{[]string{"diff", "--profile", "a", "--profile", "b", "g", "--all-groups", "--translate", "A"}, allCross},
		{[]string{"diff", snap, "--profile", "a", "--translate", "A"}, "--translate compares two clusters"},
		{[]string{"diff", snap, snap, "--all-groups"}, "--all-groups is for a diff against the cluster"},
		{[]string{"diff", snap, filepath.Join(dir, "missing.csv"), "--all-groups"}, "--all-groups is for a diff against the cluster"},
	} {
		r := runProfiles(t, env, 2, c.args...)
		if r.stdout != "" || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%s: stdout %q stderr %q, want one line holding %q", strings.Join(c.args, " "), r.stdout, r.stderr, c.want)
		}
	}
}

// Every profile a command names is resolved before any cluster is asked
// anything: an unknown --offset-syncs-profile, or an unknown B of a
// cluster diff, is exit 2 with one line, though profile a reaches no
// broker (QA finding: translate read the checkpoints first, so stderr had
// a warning line before the exit-2 error).
func TestProfilesCheckedBeforeClusterIO(t *testing.T) {
	env := profilesEnv(t, map[string]string{"a": "127.0.0.1:1"})
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"translate", "g", "--profile", "a", "--source-alias", "src", "--offset-syncs", "--target-alias", "dst", "--offset-syncs-profile", "nope"}, `--offset-syncs-profile "nope": not in`},
		{[]string{"diff", "--profile", "a", "--profile", "nope", "g"}, `--profile "nope": not in`},
	} {
		r := runProfiles(t, env, 2, c.args...)
		if r.stdout != "" || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%s: stdout %q stderr %q, want one line holding %q", strings.Join(c.args, " "), r.stdout, r.stderr, c.want)
		}
	}
}
