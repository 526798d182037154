package cli

// Every command that talks to a group or transaction coordinator, run once
// while its coordinators are not available yet: on kfake the first
// FindCoordinator requests of each key answer COORDINATOR_NOT_AVAILABLE
// (TestCoordinatorNotAvailableCommands); on Apache Kafka 4.4 each command
// is the first thing a freshly started broker is asked, before
// __consumer_offsets exists (TestCoordinatorFreshBroker). Each checks the
// command's result on the cluster, not only its exit code.

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/offsetctl/offsetctl/internal/testkit"
	"github.com/offsetctl/offsetctl/replay"
	"github.com/offsetctl/offsetctl/report"
)

// coordFaultCount is how many FindCoordinator requests of each key fail.
const coordFaultCount = 3

// coordCommand is one command of the table. run prepares what the command
// needs, calls env.fault with the coordinator keys the command uses right
// before running it (nil groups and no ids: every key), runs it once with
// env.flags appended and checks its result, then hands its stderr to
// env.ran. fresh says whether it runs on a fresh Apache broker too: it
// needs no commit made before it, which would create __consumer_offsets
// and make the broker no longer fresh.
type coordCommand struct {
	name  string
	fresh bool
	run   func(t *testing.T, c *testkit.Cluster, env coordEnv)
}

// coordEnv is how the table's runs differ between kfake and Apache Kafka.
type coordEnv struct {
	fault func(groups []string, txnIDs ...string)
	flags []string
	ran   func(stderr string)
}

// args is a command line with the environment's flags after it.
func (e coordEnv) args(a ...string) []string { return append(a, e.flags...) }

// waitedLine is what --verbose says of each wait on a coordinator.
var waitedLine = regexp.MustCompile(`waiting for the coordinator of (group|transactional id) (\S+): .*(COORDINATOR_NOT_AVAILABLE|COORDINATOR_LOAD_IN_PROGRESS|NOT_COORDINATOR|broker list)`)

// sameOffsets reports whether got holds exactly want.
func sameOffsets(got, want map[int32]int64) bool {
	if len(got) != len(want) {
		return false
	}
	for p, o := range want {
		if g, ok := got[p]; !ok || g != o {
			return false
		}
	}
	return true
}

// coordSource is a 3-partition topic of 10 records each.
func coordSource(c *testkit.Cluster) string {
	src := c.Topic(3, nil)
	c.Produce(src, map[int32]int{0: 10, 1: 10, 2: 10}, time.Time{})
	return src
}

var tenEach = map[int32]int64{0: 10, 1: 10, 2: 10}

func coordCommands() []coordCommand {
	return []coordCommand{
		{"transactional backfill", true, func(t *testing.T, c *testkit.Cluster, env coordEnv) {
			src, dst := coordSource(c), c.Topic(3, nil)
			id := testkit.Name(t, "bf")
			env.fault([]string{replay.PositionGroup(id)}, id)
			res, _, r := replayJSON(t, c, 0, env.args(src, "--produce-to", dst, "--transactional-id", id, "--format", "none", "--timeout", "60s")...)
			env.ran(r.stderr)
			if !res.Backfill.Complete || res.Backfill.Produced != 30 {
				t.Errorf("backfill %+v, want 30 produced, complete", res.Backfill)
			}
			if got := c.Committed(replay.PositionGroup(id))[src]; !sameOffsets(got, tenEach) {
				t.Errorf("backfill position %v, want %v", got, tenEach)
			}
		}},
		// On a fresh broker no group has commits on the source, so
		// the proof asks no coordinator (measured with -v: no wait):
		// a fresh broker of its own would show nothing; kfake only.
		{"checkpoint backfill", false, func(t *testing.T, c *testkit.Cluster, env coordEnv) {
			src, dst := coordSource(c), c.Topic(3, nil)
			// The proof reads the groups with commits on the source.
			var groups []string
			if c.Fake != nil {
				g := testkit.Name(t, "reader")
				c.Commit(g, src, map[int32]int64{0: 4})
				groups = []string{g}
			}
			if groups != nil {
				env.fault(groups) // a fresh broker has no group to read
			}
			ckpt := filepath.Join(t.TempDir(), "ckpt.json")
			res, _, r := replayJSON(t, c, 0, env.args(src, "--produce-to", dst, "--checkpoint", ckpt, "--format", "none", "--timeout", "60s")...)
			env.ran(r.stderr)
			if !res.Backfill.Complete || res.Backfill.Produced != 30 {
				t.Errorf("backfill %+v, want 30 produced, complete", res.Backfill)
			}
			if _, err := os.Stat(ckpt); err != nil {
				t.Errorf("checkpoint file: %v", err)
			}
			if got, _, _ := replayJSON(t, c, 0, dst, "--format", "none"); got.Records != 30 {
				t.Errorf("target holds %d records, want 30", got.Records)
			}
		}},
		{"reset --execute", true, func(t *testing.T, c *testkit.Cluster, env coordEnv) {
			src := coordSource(c)
			g := testkit.Name(t, "reset")
			env.fault([]string{g})
			env.ran(mustRun(t, c, 0, env.args("reset", g, "--topic", src, "--to", "latest", "--execute", "--backup", filepath.Join(t.TempDir(), "b.csv"), "--timeout", "60s")...).stderr)
			if got := c.Committed(g)[src]; !sameOffsets(got, tenEach) {
				t.Errorf("committed %v after the reset, want %v", got, tenEach)
			}
		}},
		{"delete-offsets", false, func(t *testing.T, c *testkit.Cluster, env coordEnv) {
			src := coordSource(c)
			g := testkit.Name(t, "delo")
			c.Commit(g, src, map[int32]int64{0: 3, 1: 4})
			env.fault([]string{g})
			env.ran(mustRun(t, c, 0, env.args("delete-offsets", g, "--topic", src+":0", "--execute", "--backup", filepath.Join(t.TempDir(), "b.csv"), "--timeout", "60s")...).stderr)
			if got := c.Committed(g)[src]; !sameOffsets(got, map[int32]int64{1: 4}) {
				t.Errorf("committed %v after deleting partition 0, want only 1=4", got)
			}
		}},
		{"delete-group", false, func(t *testing.T, c *testkit.Cluster, env coordEnv) {
			src := coordSource(c)
			g := testkit.Name(t, "delg")
			c.Commit(g, src, map[int32]int64{0: 3})
			env.fault([]string{g})
			// The DeleteGroups itself is also answered NOT_COORDINATOR once.
			if c.Fake != nil {
				hf := c.Fake.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.DeleteGroups}, Group: g, Err: kerr.NotCoordinator, Count: 1})
				defer func() {
					if hf.Hits() != 1 {
						t.Errorf("DeleteGroups was answered NOT_COORDINATOR %d times, want 1", hf.Hits())
					}
					hf.Remove()
				}()
			}
			r := mustRun(t, c, 0, env.args("delete-group", g, "--execute", "--backup", filepath.Join(t.TempDir(), "b.csv"), "-o", "json", "--timeout", "60s")...)
			env.ran(r.stderr)
			var out struct {
				Groups []struct{ Group, Status, Error string } `json:"groups"`
			}
			decodeJSON(t, r, &out)
			if len(out.Groups) != 1 || out.Groups[0].Status != "deleted" {
				t.Errorf("delete-group: %+v", out.Groups)
			}
			if got := c.Committed(g); len(got) != 0 {
				t.Errorf("group still has commits: %v", got)
			}
		}},
		// A snapshot refuses a group that does not exist (exit 2), and on
		// a fresh broker none does: kfake only, like the deletes.
		{"snapshot", false, func(t *testing.T, c *testkit.Cluster, env coordEnv) {
			src := coordSource(c)
			g := testkit.Name(t, "snap")
			c.Commit(g, src, map[int32]int64{0: 3, 1: 5})
			committed := 2
			env.fault([]string{g})
			var sr report.SnapshotResult
			r := mustRun(t, c, 0, env.args("snapshot", g, "--out", filepath.Join(t.TempDir(), "s.csv"), "-o", "json", "--timeout", "60s")...)
			env.ran(r.stderr)
			decodeJSON(t, r, &sr)
			if len(sr.Groups) != 1 || sr.Groups[0].Group != g || sr.Groups[0].Committed != committed {
				t.Errorf("snapshot %+v, want %s with %d commits", sr, g, committed)
			}
		}},
		{"semantics", true, func(t *testing.T, c *testkit.Cluster, env coordEnv) {
			env.fault(nil) // the experiment names its own groups
			r := mustRun(t, c, 0, env.args("-o", "json", "semantics", "--modes", "at-most-once,at-least-once", "--events", "12", "--batch", "4", "--crash-after", "6", "--timeout", "60s")...)
			env.ran(r.stderr)
			var out semOut
			decodeJSON(t, r, &out)
			if r := out.row(t, "at-most-once"); r.Processed != 10 || r.Lost != 2 || r.Duplicates != 0 {
				t.Errorf("at-most-once: %+v", r)
			}
			if r := out.row(t, "at-least-once"); r.Processed != 14 || r.Duplicates != 2 || r.Lost != 0 {
				t.Errorf("at-least-once: %+v", r)
			}
		}},
		{"lag", true, func(t *testing.T, c *testkit.Cluster, env coordEnv) {
			src := coordSource(c)
			g := testkit.Name(t, "lag")
			if c.Fake == nil {
				// Nothing has committed on a fresh broker: the group
				// does not exist, and that is the whole answer.
				env.fault([]string{g})
				r := mustRun(t, c, 1, env.args("lag", g, "--timeout", "60s")...)
				env.ran(r.stderr)
				// The lines that are not the client log (-v).
				var said []string
				for _, l := range strings.Split(strings.TrimSpace(r.stderr), "\n") {
					if !strings.HasPrefix(l, "[") {
						said = append(said, l)
					}
				}
				if len(said) != 1 || !strings.HasSuffix(said[0], g+": group does not exist") {
					t.Errorf("stderr says %q, want only that the group does not exist", said)
				}
				return
			}
			c.Commit(g, src, map[int32]int64{0: 3, 1: 5, 2: 10})
			env.fault([]string{g})
			r := mustRun(t, c, 0, env.args("lag", g, "-o", "json", "--timeout", "60s")...)
			env.ran(r.stderr)
			if got, want := secLagOf(t, r, g), map[int32]int64{0: 7, 1: 5, 2: 0}; !sameOffsets(got, want) {
				t.Errorf("lag %v, want %v", got, want)
			}
		}},
		{"exporter", true, func(t *testing.T, c *testkit.Cluster, env coordEnv) {
			src := coordSource(c)
			g := testkit.Name(t, "exp")
			if c.Fake != nil {
				c.Commit(g, src, map[int32]int64{0: 3})
			}
			env.fault([]string{g})
			// An interval of 5s gives the round's time-lag read a budget of
			// 2.5s, past the coordinator retries' backoff: a time lag missed
			// for want of time is a gather error too, and not this test's.
			e := startExporter(t, c, nil, env.args("--interval", "5s", "--timeout", "60s", g)...)
			if c.Fake == nil {
				// On the fresh broker the named group has no commit: it
				// does not exist, which a gather can only say once the
				// coordinator answered (a missing named group is
				// counted in the group errors, every gather, and the
				// gather stays complete). Nothing else failed.
				missing := func(fams map[string]*dto.MetricFamily) bool {
					v, ok := value(fams, "offsetctl_consumergroup_missing", "consumergroup="+g)
					return ok && v == 1
				}
				fams := e.waitScrape(t, "the group read as missing", missing)
				env.ran(e.stderr.String())
				if v, ok := value(fams, "offsetctl_gather_group_errors", ""); !ok || v != 1 {
					t.Errorf("offsetctl_gather_group_errors = %v (%v), want 1 (the missing group alone)\n%s", v, ok, e.stderr.String())
				}
				if v, ok := value(fams, "offsetctl_gather_success", ""); !ok || v != 1 {
					t.Errorf("offsetctl_gather_success = %v (%v), want 1: the missing group alone leaves the gather complete\n%s", v, ok, e.stderr.String())
				}
				for _, l := range strings.Split(strings.TrimSpace(e.stderr.String()), "\n") {
					if strings.Contains(l, "warning:") && !strings.Contains(l, "named group "+g+" does not exist") {
						t.Errorf("stderr warns of more than the missing group: %q\n%s", l, e.stderr.String())
					}
				}
				return
			}
			fams := e.waitScrape(t, "a successful gather", gatheredOK)
			env.ran(e.stderr.String())
			if v, ok := value(fams, "offsetctl_gather_errors_total", ""); !ok || v != 0 {
				t.Errorf("offsetctl_gather_errors_total = %v (%v), want 0: a gather failed\n%s", v, ok, e.stderr.String())
			}
			if c.Fake != nil {
				l := "consumergroup=" + g + ",partition=0,topic=" + src
				if v, ok := value(fams, "kafka_consumergroup_current_offset", l); !ok || v != 3 {
					t.Errorf("current offset %v (%v), want 3", v, ok)
				}
			}
		}},
	}
}

// waitedKeys lists the keys --verbose said it waited for in stderr.
func waitedKeys(stderr string) map[string]bool {
	out := map[string]bool{}
	for _, m := range waitedLine.FindAllStringSubmatch(stderr, -1) {
		out[m[2]] = true
	}
	return out
}

// checkWaited fails t unless stderr says the run waited for every key in
// keys (for any key when keys is empty).
func checkWaited(t *testing.T, stderr string, keys []string) {
	t.Helper()
	waited := waitedKeys(stderr)
	if len(keys) == 0 && len(waited) == 0 {
		t.Errorf("the run never waited for a coordinator (no %q line with -v)", "waiting for the coordinator of")
	}
	for _, k := range keys {
		if !waited[k] {
			t.Errorf("the run did not say it waited for the coordinator of %s (waited for %v)", k, waited)
		}
	}
}

// TestCoordinatorNotAvailableCommands: on kfake, the first
// coordFaultCount FindCoordinator requests of each key a command uses
// answer COORDINATOR_NOT_AVAILABLE; every command still succeeds with the
// right result, every fault was met, and -v says what it waited for.
func TestCoordinatorNotAvailableCommands(t *testing.T) {
	for _, cmd := range coordCommands() {
		t.Run(cmd.name, func(t *testing.T) {
			c := kfakeCluster(t)
			var handles []*kfake.FaultHandle
			var keys []string
			want := 0
			fault := func(groups []string, txnIDs ...string) {
				var fs []kfake.Fault
				for _, g := range groups {
					fs = append(fs, kfake.Fault{Keys: []kmsg.Key{kmsg.FindCoordinator}, Group: g, Err: kerr.CoordinatorNotAvailable, Count: coordFaultCount})
				}
				for _, id := range txnIDs {
					fs = append(fs, kfake.Fault{Keys: []kmsg.Key{kmsg.FindCoordinator}, TxnID: id, Err: kerr.CoordinatorNotAvailable, Count: coordFaultCount})
				}
				if len(fs) == 0 {
					fs = []kfake.Fault{{Keys: []kmsg.Key{kmsg.FindCoordinator}, Err: kerr.CoordinatorNotAvailable, Count: 2 * coordFaultCount}}
				}
				for _, f := range fs {
					handles = append(handles, c.Fake.Fault(f))
					want += f.Count
				}
				// A transactional id's InitProducerId is a plain
				// coordinator request, which kgo retries itself (it logs
				// "retrying request request=InitProducerID"); coordretry
				// only bounds it past kgo's own retries. The faults' hits
				// show those were met; the waits checked are the groups'.
				keys = append(keys, groups...)
			}
			ran := func(stderr string) { checkWaited(t, stderr, keys) }
			cmd.run(t, c, coordEnv{fault: fault, flags: []string{"-v"}, ran: ran})
			got := 0
			for _, h := range handles {
				got += h.Hits()
				h.Remove()
			}
			if len(handles) == 0 || got != want {
				t.Errorf("%d of %d coordinator errors were answered: the command did not meet them all", got, want)
			}
		})
	}
}

// freshBrokerPorts is where TestCoordinatorFreshBroker starts its brokers:
// SLOT_SPARE_PORT_BASE when set, else OFFSETCTL_FRESH_BROKER_PORT_BASE,
// else 19300 (clear of make test-kafka's 19092-19093 and the secure
// broker's 19192-19195). The broker uses the base and the next port.
func freshBrokerPorts(t *testing.T) (int, int) {
	for _, k := range []string{"SLOT_SPARE_PORT_BASE", "OFFSETCTL_FRESH_BROKER_PORT_BASE"} {
		if v := os.Getenv(k); v != "" {
			base, err := strconv.Atoi(v)
			if err != nil || base <= 0 || base > 65534 {
				t.Fatalf("%s=%q: want a port number", k, v)
			}
			return base, base + 1
		}
	}
	return 19300, 19301
}

// startFreshBroker starts a new single-node Apache Kafka broker with
// scripts/kafka.sh on the spare ports and an empty work directory, and
// returns its address. When t ends the broker is killed (SIGKILL: nothing
// of it is kept, and its controlled shutdown on SIGTERM took 2 to 3 s),
// then stopped by the script, which then only cleans up.
func startFreshBroker(t *testing.T, script string) string {
	t.Helper()
	port, ctrl := freshBrokerPorts(t)
	dir := t.TempDir()
	env := append(os.Environ(), "KAFKA_PORT="+strconv.Itoa(port), "KAFKA_CONTROLLER_PORT="+strconv.Itoa(ctrl), "KAFKA_WORKDIR="+dir)
	run := func(arg string) ([]byte, error) {
		cmd := exec.Command(script, arg)
		cmd.Env = env
		return cmd.CombinedOutput()
	}
	t.Cleanup(func() {
		if b, err := os.ReadFile(filepath.Join(dir, "broker.pid")); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 && syscall.Kill(pid, syscall.SIGKILL) == nil {
				waitPortsFree(t, port, ctrl)
			}
		}
		if out, err := run("stop"); err != nil {
			t.Errorf("stopping the fresh broker: %v\n%s", err, out)
		}
	})
	if out, err := run("start"); err != nil {
		t.Fatalf("starting a fresh broker: %v\n%s", err, out)
	}
	return "127.0.0.1:" + strconv.Itoa(port)
}

// waitPortsFree waits until nothing listens on the ports of a fresh
// broker killed with SIGKILL, so that the next one can start there: kill
// returns before the JVM is gone, and its main thread shows as exited
// (a zombie) while other threads still hold its sockets.
func waitPortsFree(t *testing.T, ports ...int) {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		free := true
		for _, p := range ports {
			if conn, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(p), time.Second); err == nil {
				conn.Close()
				free = false
			}
		}
		if free {
			return
		}
	}
	t.Errorf("ports %v still in use 15 s after the fresh broker was killed", ports)
}

// TestCoordinatorFreshBroker: each command that needs no commit before it
// is the first thing asked of a freshly started Apache Kafka broker (one
// broker each: __consumer_offsets is created whole on the first
// FindCoordinator, so a second command on the same broker would not meet
// an unavailable coordinator), and succeeds at once with the right result.
// delete-offsets, delete-group and snapshot need a group with commits
// first, which creates __consumer_offsets, and a --checkpoint backfill
// asks no coordinator there: they run on kfake only. Measured on the
// shared 2-core machine: 5 brokers, 51 to 82 s in all (a start is 3 to
// 11 s there). The brokers start one after the other: run in parallel
// on the loaded machine they took as long in all, each start three times
// as long, and the exporter's first gather on its broker once failed.
func TestCoordinatorFreshBroker(t *testing.T) {
	script := os.Getenv("OFFSETCTL_KAFKA_SCRIPT")
	if os.Getenv("KAFKA_BROKERS") == "" || script == "" {
		t.Skip("needs a real broker: KAFKA_BROKERS and OFFSETCTL_KAFKA_SCRIPT (starts fresh brokers with it)")
	}
	for _, cmd := range coordCommands() {
		if !cmd.fresh {
			continue
		}
		t.Run(cmd.name, func(t *testing.T) {
			start := time.Now()
			addr := startFreshBroker(t, script)
			t.Setenv("KAFKA_BROKERS", addr)
			c := testkit.New(t)
			started := time.Since(start)
			// -v says each wait on a coordinator: the run must have met
			// at least one not yet available (that is what a fresh
			// broker is for), unless it asks none (faulted is false).
			faulted := false
			var keys []string
			fault := func(groups []string, _ ...string) {
				faulted = true
				keys = append(keys, groups...) // see TestCoordinatorNotAvailableCommands
			}
			ran := func(stderr string) {
				waited := waitedKeys(stderr)
				t.Logf("waited for the coordinators of %v", waited)
				if !faulted {
					return
				}
				met := len(keys) == 0 && len(waited) > 0
				for _, k := range keys {
					met = met || waited[k]
				}
				if !met {
					t.Errorf("no request met an unavailable coordinator of %v: the broker was not fresh, or the wait was not reported", keys)
				}
			}
			cmd.run(t, c, coordEnv{fault: fault, flags: []string{"-v"}, ran: ran})
			t.Logf("broker start %s, command and checks %s", started.Round(100*time.Millisecond), (time.Since(start) - started).Round(100*time.Millisecond))
		})
	}
}

// TestCoordinatorNotInBrokerList: FindCoordinator names a broker the
// metadata does not list (as a broker fenced for a moment is named), so
// kgo fails the request with its "did not reply with that broker in the
// broker list" error; the lag run waits that out like the coordinator
// errors and says so with -v, and its numbers are right.
func TestCoordinatorNotInBrokerList(t *testing.T) {
	c := kfakeCluster(t)
	src := coordSource(c)
	g := testkit.Name(t, "fenced")
	c.Commit(g, src, map[int32]int64{0: 3, 1: 5, 2: 10})
	left := 6
	c.Fake.ControlKey(kmsg.FindCoordinator.Int16(), func(req kmsg.Request) (kmsg.Response, error, bool) {
		fr := req.(*kmsg.FindCoordinatorRequest)
		if left == 0 || len(fr.CoordinatorKeys) != 1 || fr.CoordinatorKeys[0] != g {
			return nil, nil, false
		}
		c.Fake.KeepControl()
		left--
		resp := fr.ResponseKind().(*kmsg.FindCoordinatorResponse)
		rc := kmsg.NewFindCoordinatorResponseCoordinator()
		rc.Key, rc.NodeID, rc.Host, rc.Port = g, 99, "127.0.0.1", 1
		resp.Coordinators = append(resp.Coordinators, rc)
		return resp, nil, true
	})
	r := mustRun(t, c, 0, "lag", g, "-o", "json", "--timeout", "60s", "-v")
	if left != 0 {
		t.Fatalf("%d of 6 FindCoordinator answers naming an unlisted broker were not asked for", left)
	}
	if got, want := secLagOf(t, r, g), map[int32]int64{0: 7, 1: 5, 2: 0}; !sameOffsets(got, want) {
		t.Errorf("lag %v, want %v", got, want)
	}
	if !regexp.MustCompile(`waiting for the coordinator of group ` + regexp.QuoteMeta(g) + `: .*did not reply with that broker in the broker list`).MatchString(r.stderr) {
		t.Errorf("-v did not say it waited for the unlisted coordinator:\n%s", r.stderr)
	}
}

// TestCoordinatorEndTxnNotAvailable: a transactional reset's EndTxn(commit)
// is answered COORDINATOR_NOT_AVAILABLE until --timeout. Apache Kafka also
// answers that for a commit whose PrepareCommit append timed out and may
// still land, so the run does not call it refused (nor resend it blindly
// past the retries): it takes the transactional id over and reads back,
// which on kfake aborts the transaction; it says so, exit 1, and the
// group keeps its old offsets.
func TestCoordinatorEndTxnNotAvailable(t *testing.T) {
	c := kfakeCluster(t)
	src := coordSource(c)
	g := testkit.Name(t, "endtxn")
	c.Commit(g, src, map[int32]int64{0: 3, 1: 5, 2: 7})
	hf := c.Fake.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.EndTxn}, TopLevel: true, Err: kerr.CoordinatorNotAvailable, Count: -1, When: func(req kmsg.Request) bool {
		return req.(*kmsg.EndTxnRequest).Commit
	}})
	defer hf.Remove()
	r := mustRun(t, c, 1, "reset", g, "--topic", src, "--to", "latest", "--execute", "--backup", filepath.Join(t.TempDir(), "b.csv"), "--timeout", "4s")
	if hf.Hits() == 0 {
		t.Fatal("no EndTxn was answered COORDINATOR_NOT_AVAILABLE")
	}
	for _, want := range []string{"may still have committed", "gave up waiting for the coordinator of transactional id", "read back: the transaction was aborted"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr does not say %q:\n%s", want, r.stderr)
		}
	}
	// The coordinator answered: the run does not say the cluster was silent.
	if strings.Contains(r.stderr, "did not answer within") {
		t.Errorf("stderr blames a silent cluster:\n%s", r.stderr)
	}
	if got := c.Committed(g)[src]; !sameOffsets(got, map[int32]int64{0: 3, 1: 5, 2: 7}) {
		t.Errorf("committed %v, want the old offsets 0=3 1=5 2=7", got)
	}
}
