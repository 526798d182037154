package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/offsetctl/offsetctl/internal/mirror"
	"github.com/offsetctl/offsetctl/internal/testkit"
)

// script runs a harness script with env added, failing the test on error.
func script(t *testing.T, env []string, path string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Env = append(os.Environ(), env...)
	var errb strings.Builder
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(path), strings.Join(args, " "), err, errb.String())
	}
	return string(out)
}

// startClusterB starts a second single-node Apache Kafka with
// scripts/kafka.sh on the slot's spare ports (else 19400/19401) and stops
// it when the test ends.
func startClusterB(t *testing.T, kafkaScript string) *testkit.Cluster {
	t.Helper()
	base := 19400
	if v := os.Getenv("SLOT_SPARE_PORT_BASE"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("SLOT_SPARE_PORT_BASE: %v", err)
		}
		base = n
	}
	env := []string{fmt.Sprintf("KAFKA_PORT=%d", base), fmt.Sprintf("KAFKA_CONTROLLER_PORT=%d", base+1), "KAFKA_WORKDIR=" + filepath.Join(t.TempDir(), "kafka-b")}
	t.Cleanup(func() {
		cmd := exec.Command(kafkaScript, "stop")
		cmd.Env = append(os.Environ(), env...)
		_ = cmd.Run()
	})
	script(t, env, kafkaScript, "start")
	return testkit.At(t, []string{fmt.Sprintf("127.0.0.1:%d", base)})
}

// TestTranslateMirrorMaker2Apache fails a group over from cluster A to its
// MirrorMaker 2 replica B: translate must print what MM2's own
// RemoteClusterUtils.translateOffsets returns, reset --to translated:A
// must make a consumer on B resume with no record skipped, and diff must
// compare the two clusters. It starts cluster B and MM2 itself and stops
// them.
func TestTranslateMirrorMaker2Apache(t *testing.T) {
	kafkaScript := os.Getenv("OFFSETCTL_KAFKA_SCRIPT")
	if !testkit.Real() || kafkaScript == "" {
		t.Skip("needs KAFKA_BROKERS and OFFSETCTL_KAFKA_SCRIPT (cluster B and MirrorMaker 2 are started through the scripts)")
	}
	mm2 := filepath.Join(filepath.Dir(kafkaScript), "mm2.sh")
	a := testkit.New(t)
	b := startClusterB(t, kafkaScript)

	const perPartition = 300
	topic := a.Topic(2, nil)
	a.Produce(topic, map[int32]int{0: perPartition, 1: perPartition}, time.Time{})
	g := testkit.Name(t, "failover")
	// The group's position on A: a consumer of the group read part of
	// each partition and committed there.
	commitA := map[int32]int64{0: 150, 1: 77}
	consumePart(t, a, g, topic, commitA)
	if got := a.Committed(g); !reflect.DeepEqual(got, map[string]map[int32]int64{topic: commitA}) {
		t.Fatalf("the group's commits on A: %v, want %v", got, commitA)
	}

	mm2Env := []string{"MM2_SOURCE_BROKERS=" + a.BrokerList(), "MM2_TARGET_BROKERS=" + b.BrokerList(),
		"MM2_TOPICS=" + regexp.QuoteMeta(topic), "MM2_GROUPS=" + regexp.QuoteMeta(g), "MM2_WORKDIR=" + filepath.Join(t.TempDir(), "mm2")}
	// MM2 writes its offset syncs to A: gone with the test, after MM2
	// stopped (cleanups run last-registered first).
	admA := a.Admin()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, _ = admA.DeleteTopic(ctx, mirror.OffsetSyncsTopic("B"))
	})
	t.Cleanup(func() {
		cmd := exec.Command(mm2, "stop")
		cmd.Env = append(os.Environ(), mm2Env...)
		_ = cmd.Run()
	})
	script(t, mm2Env, mm2, "start")

	// Wait for MM2 to replicate every record and checkpoint the group's
	// commits (a bound, not a timing assertion).
	remote := "A." + topic
	var res mirror.Result
	deadline := time.Now().Add(3 * time.Minute)
	for {
		r := offsetctl(t, b, "translate", g, "--source-alias", "A", "-o", "json")
		res = mirror.Result{}
		if r.code == 0 && decodeOK(r, &res) && checkpointed(res, remote, commitA, perPartition) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("MM2 did not checkpoint %s's commits within 3m; last translate (exit %d):\n%s\n%s", g, r.code, r.stdout, r.stderr)
		}
		time.Sleep(time.Second)
	}
	// MM2's own answer, from RemoteClusterUtils.translateOffsets. A
	// checkpoint taken before MM2 read a newer offset sync is replaced by a
	// later one, so offsetctl and MM2 are read again until they agree on
	// the same checkpoint (bounded), then must stay agreed.
	var ours, theirs map[string]int64
	for {
		ours = translatedMap(t, b, g)
		theirs = mm2Translate(t, mm2, mm2Env, b.BrokerList(), g)
		if reflect.DeepEqual(ours, theirs) && reflect.DeepEqual(ours, translatedMap(t, b, g)) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("translate and MM2 differ\noffsetctl:                           %v\nRemoteClusterUtils.translateOffsets: %v", ours, theirs)
		}
		time.Sleep(2 * time.Second)
	}
	t.Logf("translated %v (commits on A %v)", ours, commitA)

	// Fail over: reset on B, then a consumer of the group on B resumes.
	mustRun(t, b, 0, "reset", g, "--to", "translated:A", "--execute", "--backup", filepath.Join(t.TempDir(), "b.csv"))
	want := map[string]map[int32]int64{remote: {}}
	for k, v := range ours {
		p, _ := strconv.Atoi(strings.Fields(k)[1])
		want[remote][int32(p)] = v
	}
	if got := b.Committed(g); !reflect.DeepEqual(got, want) {
		t.Fatalf("B's commits after the reset: %v, want %v", got, want)
	}
	first := resumeOnB(t, b, g, remote, perPartition)
	for p, c := range commitA {
		dup := c - first[p]
		if first[p] > c {
			t.Errorf("partition %d: the group resumed at source record %d, after its commit %d on A: %d record(s) skipped", p, first[p], c, first[p]-c)
		}
		// MM2 syncs offsets at least every offset.lag.max (100) records.
		if dup < 0 || dup > 100 {
			t.Errorf("partition %d: %d duplicate(s), want 0..100 (offset.lag.max)", p, dup)
		}
		t.Logf("partition %d: commit on A %d, resumed on B at source record %d: %d duplicate(s)", p, c, first[p], dup)
	}

	// --offset-syncs (on A, where MM2 writes them by default) names the
	// sync each translation comes from and predicts the duplicates just
	// counted.
	env := profilesEnv(t, map[string]string{"a": a.BrokerList(), "b": b.BrokerList()})
	res = mirror.Result{}
	decodeJSON(t, runProfiles(t, env, 0, "--profile", "b", "translate", g, "--source-alias", "A", "--offset-syncs", "--target-alias", "B", "--offset-syncs-profile", "a", "-o", "json"), &res)
	for _, p := range res.Groups[0].Partitions {
		if p.ReadAgain == nil || *p.ReadAgain != commitA[p.Partition]-first[p.Partition] {
			t.Errorf("partition %d: --offset-syncs says %v record(s) read again (sync %v->%v), the consumer read %d again", p.Partition, p.ReadAgain, p.SyncUpstream, p.SyncDownstream, commitA[p.Partition]-first[p.Partition])
		} else {
			t.Logf("partition %d: offset sync %d->%d, read again %d", p.Partition, *p.SyncUpstream, *p.SyncDownstream, *p.ReadAgain)
		}
	}

	// diff across the two clusters: by name the topics differ (orders on
	// A, A.orders on B); against the translation B now agrees.
	var d mirror.DiffResult
	decodeJSON(t, runProfiles(t, env, 0, "diff", "--profile", "a", "--profile", "b", g, "-o", "json"), &d)
	if len(d.Rows) != 4 || d.Differences != 4 || d.Rows[0].Topic != remote || d.Rows[0].Status != mirror.DiffOnlyB || d.Rows[2].Status != mirror.DiffOnlyA {
		t.Fatalf("plain diff: %+v", d)
	}
	runProfiles(t, env, 1, "diff", "--profile", "a", "--profile", "b", g, "--exit-code")
	d = mirror.DiffResult{}
	decodeJSON(t, runProfiles(t, env, 0, "diff", "--profile", "a", "--profile", "b", g, "--translate", "A", "-o", "json"), &d)
	if len(d.Rows) != 2 || d.Differences != 0 || *d.Rows[0].A != commitA[0] || *d.Rows[1].A != commitA[1] {
		t.Fatalf("translated diff: %+v", d)
	}
	runProfiles(t, env, 0, "diff", "--profile", "a", "--profile", "b", g, "--translate", "A", "--exit-code")
}

// consumePart consumes topic as group g until it has read every record
// below stop on each partition, commits stop, and leaves the group.
func consumePart(t *testing.T, c *testkit.Cluster, g, topic string, stop map[int32]int64) {
	t.Helper()
	cl, err := c.Cfg.NewClient(kgo.ConsumerGroup(g), kgo.ConsumeTopics(topic), kgo.DisableAutoCommit(),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	read := map[int32]int64{}
	ctx := testkit.Ctx(t)
	for done := false; !done; {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("consuming on A: %v (read %v)", ctx.Err(), read)
		}
		fs.EachRecord(func(r *kgo.Record) { read[r.Partition] = max(read[r.Partition], r.Offset+1) })
		done = true
		for p, o := range stop {
			done = done && read[p] >= o
		}
	}
	offs := map[string]map[int32]kgo.EpochOffset{topic: {}}
	for p, o := range stop {
		offs[topic][p] = kgo.EpochOffset{Epoch: -1, Offset: o}
	}
	var cerr error
	cl.CommitOffsetsSync(ctx, offs, func(_ *kgo.Client, _ *kmsg.OffsetCommitRequest, resp *kmsg.OffsetCommitResponse, err error) {
		cerr = err
		for _, tp := range resp.Topics {
			for _, pp := range tp.Partitions {
				if e := kerr.ErrorForCode(pp.ErrorCode); e != nil && cerr == nil {
					cerr = e
				}
			}
		}
	})
	if cerr != nil {
		t.Fatalf("committing on A: %v", cerr)
	}
}

// translatedMap is translate's answer as "topic partition" -> offset.
func translatedMap(t *testing.T, b *testkit.Cluster, g string) map[string]int64 {
	t.Helper()
	res, _ := translateJSON(t, b, 0, g, "--source-alias", "A")
	out := map[string]int64{}
	for _, p := range res.Groups[0].Partitions {
		if p.TranslatedOffset != nil {
			out[fmt.Sprintf("%s %d", p.Topic, p.Partition)] = *p.TranslatedOffset
		}
	}
	return out
}

// mm2Translate is RemoteClusterUtils.translateOffsets's answer, from
// testdata/mm2/Translate.java run on MM2's classpath.
func mm2Translate(t *testing.T, mm2 string, env []string, brokers, g string) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for _, line := range strings.Split(strings.TrimSpace(script(t, env, mm2, "run-class", "testdata/mm2/Translate.java", brokers, "A", g)), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 {
			t.Fatalf("Translate.java printed %q", line)
		}
		n, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil {
			t.Fatalf("Translate.java printed %q", line)
		}
		out[f[0]+" "+f[1]] = n
	}
	return out
}

func decodeOK(r result, v any) bool {
	return json.Unmarshal([]byte(r.stdout), v) == nil
}

// checkpointed: every partition has a checkpoint of the commit on A, and B
// holds every record.
func checkpointed(res mirror.Result, topic string, commitA map[int32]int64, n int64) bool {
	if len(res.Groups) != 1 {
		return false
	}
	got := 0
	for _, p := range res.Groups[0].Partitions {
		if p.Topic != topic || p.SourceOffset == nil || *p.SourceOffset != commitA[p.Partition] || p.LogEnd == nil || *p.LogEnd != n {
			return false
		}
		got++
	}
	return got == len(commitA)
}

// resumeOnB consumes topic on B as group g from its commits to the end and
// returns, per partition, the source record ("v-P-I": I is the offset on
// A) the group resumed at; it fails on a gap.
func resumeOnB(t *testing.T, b *testkit.Cluster, g, topic string, n int) map[int32]int64 {
	t.Helper()
	cl := b.Client(kgo.ConsumerGroup(g), kgo.ConsumeTopics(topic), kgo.DisableAutoCommit())
	first, next := map[int32]int64{}, map[int32]int64{}
	ctx := testkit.Ctx(t)
	for len(next) < 2 || next[0] < int64(n) || next[1] < int64(n) {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("resuming on B: %v (read up to %v)", ctx.Err(), next)
		}
		fs.EachRecord(func(r *kgo.Record) {
			var p int32
			var i int64
			if _, err := fmt.Sscanf(string(r.Value), "v-%d-%d", &p, &i); err != nil || p != r.Partition {
				t.Fatalf("record %q on B partition %d", r.Value, r.Partition)
			}
			if _, ok := first[p]; !ok {
				first[p] = i
			} else if i != next[p] {
				t.Fatalf("partition %d: source record %d follows %d: a gap", p, i, next[p]-1)
			}
			next[p] = i + 1
		})
	}
	return first
}
