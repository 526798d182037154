package cli

import (
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/offsetctl/offsetctl/internal/cluster"
	"github.com/offsetctl/offsetctl/internal/semantics"
	"github.com/offsetctl/offsetctl/internal/testkit"
	"github.com/offsetctl/offsetctl/report"
)

// semRow is one decoded result row.
type semRow struct {
	Mode             string                      `json:"mode"`
	Group            string                      `json:"group"`
	Processed        int                         `json:"processed"`
	Unique           int                         `json:"unique"`
	Duplicates       int                         `json:"duplicates"`
	Lost             int                         `json:"lost"`
	LostEvents       []int                       `json:"lost_events"`
	CommittedAtCrash []semantics.PartitionOffset `json:"committed_at_crash"`
	CommittedAfter   []semantics.PartitionOffset `json:"committed_after"`
	Explanation      string                      `json:"explanation"`
	Log              string                      `json:"log"`
}

type semOut struct {
	Events     int      `json:"events"`
	Batch      int      `json:"batch"`
	CrashAfter int      `json:"crash_after"`
	Partitions int      `json:"partitions"`
	WorkDelay  string   `json:"work_delay"`
	Topic      string   `json:"topic"`
	Results    []semRow `json:"results"`
	Replay     struct {
		FromOffset         int64 `json:"from_offset"`
		Records            int64 `json:"records"`
		AllEvents          bool  `json:"all_events"`
		CommittedUnchanged bool  `json:"committed_unchanged"`
		Verification       struct {
			GroupsChecked int      `json:"groups_checked"`
			Groups        []string `json:"groups"`
			Unchanged     bool     `json:"unchanged"`
		} `json:"verification"`
	} `json:"replay"`
}

func (o semOut) row(t *testing.T, m string) semRow {
	t.Helper()
	for _, r := range o.Results {
		if r.Mode == m {
			return r
		}
	}
	t.Fatalf("no result for mode %s in %+v", m, o.Results)
	return semRow{}
}

func runSemantics(t *testing.T, c *testkit.Cluster, args ...string) semOut {
	t.Helper()
	r := mustRun(t, c, 0, append([]string{"-o", "json", "semantics"}, args...)...)
	var out semOut
	decodeJSON(t, r, &out)
	return out
}

// sumOffsets adds up committed offsets.
func sumOffsets(os []semantics.PartitionOffset) int64 {
	var n int64
	for _, o := range os {
		n += o.Offset
	}
	return n
}

// assertAllCommitted checks a row's final commits are the ends n/n/n.
func assertAllCommitted(t *testing.T, r semRow, n int64) {
	t.Helper()
	want := []semantics.PartitionOffset{{Partition: 0, Offset: n}, {Partition: 1, Offset: n}, {Partition: 2, Offset: n}}
	if len(r.CommittedAfter) != 3 {
		t.Fatalf("%s: committed after = %v, want %v", r.Mode, r.CommittedAfter, want)
	}
	for i := range want {
		if r.CommittedAfter[i] != want[i] {
			t.Fatalf("%s: committed after = %v, want %v", r.Mode, r.CommittedAfter, want)
		}
	}
}

// assertCleanedUp re-reads the broker: the scratch topic and the groups
// are gone. On Apache Kafka a deleted topic leaves the broker's metadata a
// moment after DeleteTopics answers (the broker applies the controller's
// record asynchronously), so a Metadata request right after the command can
// still list it: the check waits for the deletion to show, up to 30s.
func assertCleanedUp(t *testing.T, c *testkit.Cluster, out semOut) {
	t.Helper()
	adm := c.Admin()
	ctx := testkit.Ctx(t)
	var left []string
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		topics, err := adm.ListTopics(ctx)
		if err != nil {
			t.Fatal(err)
		}
		listed, err := adm.ListGroups(ctx)
		if err != nil {
			t.Fatal(err)
		}
		left = nil
		if topics.Has(out.Topic) {
			left = append(left, "scratch topic "+out.Topic)
		}
		for _, r := range out.Results {
			if _, ok := listed[r.Group]; ok {
				left = append(left, "group "+r.Group)
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			break
		}
	}
	for _, l := range left {
		t.Errorf("%s still exists 30s after the run", l)
	}
}

// TestSemanticsSeedNumbers is the seed's experiment with the defaults: the
// exact numbers of at-most-once and at-least-once, the bounds of sync and
// async, auto with a fast worker duplicating everything processed before
// the crash, and the closing replay.
func TestSemanticsSeedNumbers(t *testing.T) {
	c := testkit.New(t)
	out := runSemantics(t, c)
	if out.Events != 60 || out.Batch != 10 || out.CrashAfter != 25 || out.Partitions != 3 || len(out.Results) != 5 {
		t.Fatalf("header = %+v", out)
	}
	amo := out.row(t, "at-most-once")
	if amo.Processed != 55 || amo.Unique != 55 || amo.Duplicates != 0 || amo.Lost != 5 {
		t.Errorf("at-most-once = %+v, want 55/55/0/5", amo)
	}
	if len(amo.LostEvents) != 5 || amo.LostEvents[0] != 26 || amo.LostEvents[4] != 30 {
		t.Errorf("at-most-once lost events = %v, want 26-30", amo.LostEvents)
	}
	if sumOffsets(amo.CommittedAtCrash) != 30 {
		t.Errorf("at-most-once committed at crash = %v, want 30 events", amo.CommittedAtCrash)
	}
	alo := out.row(t, "at-least-once")
	if alo.Processed != 65 || alo.Unique != 60 || alo.Duplicates != 5 || alo.Lost != 0 {
		t.Errorf("at-least-once = %+v, want 65/60/5/0", alo)
	}
	if sumOffsets(alo.CommittedAtCrash) != 20 {
		t.Errorf("at-least-once committed at crash = %v, want 20 events", alo.CommittedAtCrash)
	}
	sync := out.row(t, "sync")
	if sync.Lost != 0 || sync.Duplicates != 5 || sync.Unique != 60 {
		t.Errorf("sync = %+v, want no loss and exactly the 5 processed events of the crashed batch again", sync)
	}
	async := out.row(t, "async")
	if async.Lost != 0 || async.Duplicates > 5 || async.Unique != 60 {
		t.Errorf("async = %+v, want no loss and at most the 5 marked-but-unflushed events again", async)
	}
	auto := out.row(t, "auto")
	if auto.Lost != 0 || auto.Duplicates != 25 || auto.Processed != 85 {
		t.Errorf("auto (fast worker, 2s interval) = %+v, want every one of the 25 events processed before the crash again", auto)
	}
	// The crashed worker did not close its client: a close would have
	// committed (kgo commits on revoke).
	if len(auto.CommittedAtCrash) != 0 {
		t.Errorf("auto: committed at crash = %v, want nothing (no close, no commit)", auto.CommittedAtCrash)
	}
	for _, r := range out.Results {
		assertAllCommitted(t, r, 20)
		if r.Explanation == "" || r.Log != "" {
			t.Errorf("%s: explanation %q, log %q", r.Mode, r.Explanation, r.Log)
		}
	}
	if out.Replay.Records != 60 || !out.Replay.AllEvents || !out.Replay.CommittedUnchanged || out.Replay.Verification.GroupsChecked != 5 {
		t.Errorf("replay = %+v", out.Replay)
	}
	assertCleanedUp(t, c, out)
}

// TestSemanticsRepeatable runs the two seed modes several times in a row:
// the same numbers every time, whatever the fetch timing.
func TestSemanticsRepeatable(t *testing.T) {
	c := testkit.New(t)
	for i := 0; i < 3; i++ {
		out := runSemantics(t, c, "--modes", "at-most-once,at-least-once")
		amo, alo := out.row(t, "at-most-once"), out.row(t, "at-least-once")
		if amo.Processed != 55 || amo.Unique != 55 || amo.Duplicates != 0 || amo.Lost != 5 {
			t.Fatalf("run %d: at-most-once = %+v", i, amo)
		}
		if alo.Processed != 65 || alo.Unique != 60 || alo.Duplicates != 5 || alo.Lost != 0 {
			t.Fatalf("run %d: at-least-once = %+v", i, alo)
		}
	}
}

// TestSemanticsSlowWorker: with a per-record delay longer than the commit
// interval, greedy auto-commit commits the polled batch before it is
// processed and the crash loses its rest; franz-go's default auto-commit
// only commits what earlier polls returned, so it duplicates instead.
func TestSemanticsSlowWorker(t *testing.T) {
	c := testkit.New(t)
	// 30 events, 10 per partition: the crash after event 15 is in the
	// middle of batch 2 (events 11-20), 500ms after it was polled, with a
	// commit every 100ms (franz-go's minimum). Both outcomes need an
	// auto-commit to reach the broker between that poll and the crash:
	// with one every 200ms the first could come 200ms into the 500ms, and
	// a stalled worker or a slow commit on a loaded machine could miss the
	// crash (no loss, or 15 duplicates); every 100ms gives four chances and
	// at least 400ms for the first to land.
	out := runSemantics(t, c, "--modes", "auto,auto-greedy", "--events", "30", "--crash-after", "15", "--work-delay", "100ms", "--commit-interval", "100ms")
	greedy := out.row(t, "auto-greedy")
	if greedy.Lost == 0 || greedy.Lost > 5 || greedy.Duplicates != 0 {
		t.Errorf("auto-greedy, slow worker = %+v, want lost events of the crashed batch", greedy)
	}
	auto := out.row(t, "auto")
	if auto.Lost != 0 || auto.Duplicates == 0 || auto.Duplicates > 5 {
		t.Errorf("auto, slow worker = %+v, want no loss, duplicates within the crashed batch", auto)
	}
	assertAllCommitted(t, greedy, 10)
	assertAllCommitted(t, auto, 10)
}

// TestSemanticsKeep keeps the topic, groups and logs: the committed offsets
// re-read from the broker match, and `semantics count` on the kept logs
// prints the seed's line with the same numbers.
func TestSemanticsKeep(t *testing.T) {
	c := testkit.New(t)
	dir := t.TempDir()
	out := runSemantics(t, c, "--modes", "sync,at-most-once", "--keep", "--log-dir", dir, "--events", "31", "--batch", "4", "--crash-after", "6", "--partitions", "2")
	t.Cleanup(func() {
		adm := c.Admin()
		ctx := testkit.Ctx(t)
		_, _ = adm.DeleteGroups(ctx, out.Results[0].Group, out.Results[1].Group)
		_, _ = adm.DeleteTopics(ctx, out.Topic)
	})
	// 31 events over 2 partitions: 16 and 15; batches of 4; crash after
	// event 6 in the middle of batch 2 (events 5-8).
	sync, amo := out.row(t, "sync"), out.row(t, "at-most-once")
	if sync.Duplicates != 2 || sync.Lost != 0 || sync.Processed != 33 {
		t.Errorf("sync = %+v, want the 2 processed events of the crashed batch again", sync)
	}
	if amo.Lost != 2 || amo.Duplicates != 0 || amo.Processed != 29 || len(amo.LostEvents) != 2 || amo.LostEvents[0] != 7 {
		t.Errorf("at-most-once = %+v, want events 7-8 lost", amo)
	}
	for _, r := range []semRow{sync, amo} {
		got := c.Committed(r.Group)[out.Topic]
		if got[0] != 16 || got[1] != 15 || len(got) != 2 {
			t.Errorf("%s: committed offsets on the broker = %v, want 0:16 1:15", r.Mode, got)
		}
		if r.Log != filepath.Join(dir, "processed-"+r.Mode+".log") {
			t.Errorf("%s: log = %q", r.Mode, r.Log)
		}
	}
	res := mustRun(t, nil, 0, "semantics", "count", sync.Log, amo.Log)
	want := sync.Log + ": total=33 unique-offsets=31 duplicates=2\n" + amo.Log + ": total=29 unique-offsets=29 duplicates=0\n"
	if res.stdout != want {
		t.Errorf("count = %q, want %q", res.stdout, want)
	}
}

// TestSemanticsCount: the seed's make count-* on hand-written logs.
func TestSemanticsCount(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	auto := write("processed-auto.log", strings.Repeat("0,0,k,v\n0,1,k,v\n", 10)+"1,0,k,{\"a\":1,\"b\":2}\n")
	crlf := write("crlf.log", "partition,offset,key,value\r\n0,0,a,1\r\n0,0,a,1\r\n2,7,b,2\r\n\r\n")
	empty := write("empty.log", "")
	bad := write("bad.log", "0,0,a,1\n0,1,a,1\nnot-a-line\n")

	r := mustRun(t, nil, 0, "semantics", "count", auto, crlf, empty)
	want := auto + ": total=21 unique-offsets=3 duplicates=18\n" + crlf + ": total=3 unique-offsets=2 duplicates=1\n" + empty + ": total=0 unique-offsets=0 duplicates=0\n"
	if r.stdout != want {
		t.Fatalf("count =\n%s\nwant\n%s", r.stdout, want)
	}

	var js []semantics.Count
	decodeJSON(t, mustRun(t, nil, 0, "-o", "json", "semantics", "count", crlf), &js)
	if len(js) != 1 || js[0] != (semantics.Count{File: crlf, Total: 3, UniqueOffsets: 2, Duplicates: 1}) {
		t.Fatalf("json = %+v", js)
	}
	if r := mustRun(t, nil, 0, "-o", "csv", "semantics", "count", crlf); r.stdout != "FILE,TOTAL,UNIQUE-OFFSETS,DUPLICATES\n"+crlf+",3,2,1\n" {
		t.Fatalf("csv = %q", r.stdout)
	}

	// A malformed line: exit 2, one line naming file:line, nothing on stdout.
	r = mustRun(t, nil, 2, "semantics", "count", auto, bad)
	if r.stdout != "" || !strings.Contains(r.stderr, bad+":3:") || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
		t.Fatalf("bad log: stdout %q stderr %q", r.stdout, r.stderr)
	}
	r = mustRun(t, nil, 2, "semantics", "count", filepath.Join(dir, "missing.log"))
	if !strings.Contains(r.stderr, "missing.log") {
		t.Fatalf("missing file: %q", r.stderr)
	}
	badInput(t, nil, "name the processed log(s) to count", "semantics", "count")
}

// TestSemanticsBadUsage: a value the user typed is validated as typed —
// a zero is never taken for "unset" — and a bad one exits 2 with one line
// naming the flag and its valid range, before anything is created.
func TestSemanticsBadUsage(t *testing.T) {
	c := testkit.New(t)
	adm := c.Admin()
	before, err := adm.ListTopics(testkit.Ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	prefix := testkit.Name(t, "badusage")
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		// Typed zeros and empties: errors, not the defaults.
		{[]string{"--events", "0"}, "--events must be between 2 and 1000000, got 0"},
		{[]string{"--events", "1"}, "--events must be between 2 and 1000000, got 1"},
		{[]string{"--crash-after", "0"}, "--crash-after must be between 1 and --events - 1 (59), got 0"},
		{[]string{"--batch", "0"}, "--batch must be between 1 and 1000000, got 0"},
		{[]string{"--partitions", "0"}, "--partitions must be between 1 and 1000, got 0"},
		{[]string{"--commit-interval", "0s"}, "--commit-interval must be at least 100ms, got 0s"},
		{[]string{"--session-timeout", "0s"}, "--session-timeout must be between 1s and 30m, got 0s"},
		{[]string{"--modes", ""}, `--modes must name at least one mode (want`},
		{[]string{"--modes="}, `--modes must name at least one mode (want`},
		{[]string{"--log-dir", ""}, `--log-dir must name a directory, got ""`},
		// Negative, out of range, inconsistent.
		{[]string{"--events", "-3"}, "--events must be between 2 and 1000000, got -3"},
		{[]string{"--batch", "0", "--events", "-3"}, "--events must be between 2 and 1000000, got -3"},
		{[]string{"--partitions", "-1"}, "--partitions must be between 1 and 1000, got -1"},
		{[]string{"--crash-after", "60"}, "--crash-after must be between 1 and --events - 1 (59), got 60"},
		{[]string{"--events", "10", "--crash-after", "25"}, "--crash-after must be between 1 and --events - 1 (9), got 25"},
		{[]string{"--events", "10"}, "--crash-after must be between 1 and --events - 1 (9), got its default 25: set --crash-after too"},
		{[]string{"--work-delay", "-1ms"}, "--work-delay must be at least 0s, got -1ms"},
		{[]string{"--commit-interval", "-1s"}, "--commit-interval must be at least 100ms, got -1s"},
		{[]string{"--commit-interval", "1ms"}, "--commit-interval must be at least 100ms, got 1ms"},
		{[]string{"--session-timeout", "-10s"}, "--session-timeout must be between 1s and 30m, got -10s"},
		{[]string{"--session-timeout", "31m"}, "--session-timeout must be between 1s and 30m, got 31m0s"},
		// Below what the brokers accept (6s on Apache Kafka and kfake by
		// default): asked before anything is created.
		{[]string{"--session-timeout", "2s"}, "--session-timeout must be between 6s and "},
		// Values that would take hours.
		{[]string{"--events", "1000000", "--batch", "1"}, "--batch must be at least 10 with --events 1000000 (at most 100000 batches, each a synchronous commit), got 1"},
		{[]string{"--work-delay", "11s"}, "--work-delay must be between 0s and 10.588s with --events 60 and --crash-after 25, got 11s"},
		{[]string{"--work-delay", "3s", "--sequential"}, "--work-delay must be between 0s and 2.117s with --events 60, --crash-after 25 and --sequential (5 modes), got 3s"},
		{[]string{"--work-delay", "1000h"}, "--work-delay must be between 0s and 10.588s"},
		// A log dir that cannot be one.
		{[]string{"--log-dir", notDir}, "--log-dir " + notDir + " cannot hold the processed logs: not a directory"},
		// Modes: unknown names list the valid ones; no duplicates, no
		// empty items.
		{[]string{"--modes", "exactly-once"}, `item 1 is not a mode (want a comma-separated list of at-most-once, at-least-once, auto, auto-greedy, sync, async, or all)`},
		{[]string{"--modes", "sync,sync"}, "sync given twice"},
		{[]string{"--modes", "sync,x\x1b[2Jsecret=hunter2"}, "--modes item 2 is not a mode (want"},
		{[]string{"--modes", "sync,,async"}, "item 2 is empty"},
		{[]string{"--modes", "all,auto-greedy"}, "all cannot be combined"},
		// pflag's own errors.
		{[]string{"--events", "ten"}, "--events: want a whole number"},
		{[]string{"--work-delay", "5"}, "--work-delay: want a duration"},
		{[]string{"extra-arg"}, "unknown command"},
		// Topic prefix: Kafka's topic name rules, room for the suffix.
		{[]string{"--topic-prefix", ""}, "--topic-prefix must not be empty"},
		{[]string{"--topic-prefix", "qa semantics"}, `--topic-prefix "qa semantics": ' ' is not allowed in a Kafka topic name`},
		{[]string{"--topic-prefix", "qa/semantics"}, `'/' is not allowed in a Kafka topic name`},
		{[]string{"--topic-prefix", strings.Repeat("q", 241)}, "--topic-prefix must be at most 240 characters"},
	} {
		// Every other case runs under a prefix of its own, so a topic it
		// created by mistake is found below (even on a shared broker).
		args := tc.args
		if !strings.Contains(strings.Join(args, " "), "--topic-prefix") {
			args = append(append([]string(nil), args...), "--topic-prefix", prefix)
		}
		r := mustRun(t, c, 2, append([]string{"semantics"}, args...)...)
		if r.stdout != "" || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%q: stdout %q stderr %q, want %q", tc.args, r.stdout, r.stderr, tc.want)
		}
		if n := strings.Count(strings.TrimRight(r.stderr, "\n"), "\n"); n != 0 && tc.want != "unknown command" {
			t.Errorf("%q: stderr is %d lines, want one:\n%s", tc.args, n+1, r.stderr)
		}
	}
	after, err := adm.ListTopics(testkit.Ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range after.Names() {
		if strings.HasPrefix(n, prefix) && !before.Has(n) {
			t.Errorf("bad usage created topic %s", n)
		}
	}
}

// TestSemanticsTopicPrefix: --topic-prefix names the scratch topic
// (PREFIX-<8 hex>) and its groups (<topic>-<mode>), so the experiment can
// follow a shared cluster's naming policy; re-read on the broker.
func TestSemanticsTopicPrefix(t *testing.T) {
	c := testkit.New(t)
	prefix := testkit.Name(t, "qa")
	out := runSemantics(t, c, "--topic-prefix", prefix, "--keep", "--modes", "sync,at-most-once", "--events", "6", "--batch", "2", "--crash-after", "3")
	t.Cleanup(func() {
		adm := c.Admin()
		ctx := testkit.Ctx(t)
		_, _ = adm.DeleteGroups(ctx, out.Results[0].Group, out.Results[1].Group)
		_, _ = adm.DeleteTopics(ctx, out.Topic)
	})
	if !regexp.MustCompile(`^` + regexp.QuoteMeta(prefix) + `-[0-9a-f]{8}$`).MatchString(out.Topic) {
		t.Fatalf("topic %q is not %s-<8 hex>", out.Topic, prefix)
	}
	adm := c.Admin()
	ctx := testkit.Ctx(t)
	topics, err := adm.ListTopics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if td, ok := topics[out.Topic]; !ok || len(td.Partitions) != 3 {
		t.Fatalf("kept topic %s on the broker: %+v", out.Topic, td)
	}
	groups, err := adm.ListGroups(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range out.Results {
		if r.Group != out.Topic+"-"+r.Mode {
			t.Errorf("%s: group %q, want %s-%s", r.Mode, r.Group, out.Topic, r.Mode)
		}
		if _, ok := groups[r.Group]; !ok {
			t.Errorf("%s: group %s not on the broker", r.Mode, r.Group)
		}
		if got := c.Committed(r.Group)[out.Topic]; len(got) != 3 || got[0] != 2 || got[1] != 2 || got[2] != 2 {
			t.Errorf("%s: committed offsets on the broker = %v, want 0:2 1:2 2:2", r.Mode, got)
		}
	}
	if amo := out.row(t, "at-most-once"); amo.Lost != 1 || amo.Processed != 5 || len(amo.LostEvents) != 1 || amo.LostEvents[0] != 4 {
		t.Errorf("at-most-once = %+v, want event 4 lost", amo)
	}
	// Without --keep, everything under the prefix is gone afterwards.
	out2 := runSemantics(t, c, "--topic-prefix", prefix, "--modes", "async", "--events", "6", "--batch", "2", "--crash-after", "3")
	if !strings.HasPrefix(out2.Topic, prefix+"-") || out2.Topic == out.Topic || out2.Results[0].Group != out2.Topic+"-async" {
		t.Fatalf("second run: topic %q, groups %+v", out2.Topic, out2.Results)
	}
	assertCleanedUp(t, c, out2)
}

// TestSemanticsFlagDefaults: an absent flag is the experiment's default —
// the flags as registered, with nothing typed, are exactly
// semantics.Options{}.WithDefaults() — so the command never needs to
// treat a typed zero as "unset".
func TestSemanticsFlagDefaults(t *testing.T) {
	var f semanticsFlags
	fl := pflag.NewFlagSet("semantics", pflag.ContinueOnError)
	f.register(fl)
	if err := fl.Parse(nil); err != nil {
		t.Fatal(err)
	}
	got, err := f.options(fl)
	if err != nil {
		t.Fatal(err)
	}
	if want := (semantics.Options{}).WithDefaults(); !reflect.DeepEqual(got, want) {
		t.Fatalf("flag defaults = %+v\nwant            %+v", got, want)
	}
	// A typed zero work delay is the default and allowed; a typed zero
	// anywhere else is an error naming the flag.
	for _, args := range [][]string{{"--work-delay", "0"}, {"--work-delay=0s"}} {
		var f semanticsFlags
		fl := pflag.NewFlagSet("semantics", pflag.ContinueOnError)
		f.register(fl)
		if err := fl.Parse(args); err != nil {
			t.Fatal(err)
		}
		if o, err := f.options(fl); err != nil || o.WorkDelay != 0 {
			t.Errorf("%q: %+v, %v", args, o, err)
		}
	}
	for _, name := range []string{"events", "partitions", "batch", "crash-after", "commit-interval", "session-timeout"} {
		var f semanticsFlags
		fl := pflag.NewFlagSet("semantics", pflag.ContinueOnError)
		f.register(fl)
		if err := fl.Parse([]string{"--" + name + "=0"}); err != nil {
			t.Fatal(err)
		}
		if _, err := f.options(fl); err == nil || !strings.HasPrefix(err.Error(), "--"+name+" must be") {
			t.Errorf("--%s=0: %v, want an error naming --%s", name, err, name)
		}
	}
}

// TestSemanticsZeroWorkDelay: --work-delay 0 typed is the default, not an
// error, and runs the experiment.
func TestSemanticsZeroWorkDelay(t *testing.T) {
	c := testkit.New(t)
	out := runSemantics(t, c, "--work-delay", "0", "--modes", "sync", "--events", "6", "--batch", "2", "--crash-after", "3")
	if out.WorkDelay != "0s" || out.Events != 6 || out.Batch != 2 || out.CrashAfter != 3 {
		t.Fatalf("header = %+v", out)
	}
	// 6 events, 2 per partition; batch 2 (events 3-4) crashed after
	// event 3 with events 1-2 committed: event 3 again.
	if r := out.row(t, "sync"); r.Processed != 7 || r.Unique != 6 || r.Duplicates != 1 || r.Lost != 0 {
		t.Fatalf("sync = %+v, want 7/6/1/0", r)
	}
}

// TestSemanticsLauncherArgs: the child's argv is only "semantics worker";
// the parent's global flags travel on stdin (GlobalArgs), brokers, client
// id and timeout in the spec.
func TestSemanticsLauncherArgs(t *testing.T) {
	a := &app{stdout: io.Discard, stderr: io.Discard, stdin: strings.NewReader(""), getenv: testEnv(t, nil), now: time.Now}
	root := a.rootCmd()
	if err := root.PersistentFlags().Parse([]string{"-b", "h:1", "--client-id", "me", "--tls-ca", "/etc/ca.pem", "--sasl-mechanism", "plain", "--sasl-user", "bob", "-v", "-o", "json"}); err != nil {
		t.Fatal(err)
	}
	l, err := a.semanticsLauncher(root)
	if err != nil {
		t.Fatal(err)
	}
	el := l.(semantics.ExecLauncher)
	if strings.Join(el.Args, " ") != "semantics worker" {
		t.Fatalf("argv = %q", el.Args)
	}
	got := strings.Join(el.GlobalArgs, " ")
	for _, want := range []string{"--tls-ca=/etc/ca.pem", "--sasl-mechanism=plain", "--sasl-user=bob", "--verbose=true"} {
		if !strings.Contains(got, want) {
			t.Errorf("global args %q lack %s", got, want)
		}
	}
	for _, not := range []string{"--brokers", "--client-id", "--output"} {
		if strings.Contains(got, not) {
			t.Errorf("global args %q carry %s", got, not)
		}
	}
	if el.Env[len(el.Env)-1] != semanticsWorkerEnv+"=1" {
		t.Errorf("env lacks the worker marker: %v", el.Env[len(el.Env)-1])
	}
}

// TestSemanticsVerboseReachesWorker: a global flag (-v) given to the parent
// reaches the worker process through stdin: the child's client logs its
// static-member join on the parent's stderr.
func TestSemanticsVerboseReachesWorker(t *testing.T) {
	c := testkit.New(t)
	// -v logs from client goroutines: a locked buffer for stderr.
	stdout, stderr := newSyncBuffer(), newSyncBuffer()
	a := &app{stdout: stdout, stderr: stderr, stdin: strings.NewReader(""), getenv: testEnv(t, nil), now: time.Now}
	code := a.execute(testkit.Ctx(t), []string{"--brokers", c.BrokerList(), "-v", "semantics", "--modes", "sync", "--events", "6", "--batch", "2", "--crash-after", "3"})
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "instance_id=offsetctl-semantics-worker") {
		t.Fatalf("the worker's client did not log with -v:\n%s", stderr.String())
	}
	if !strings.Contains(stderr.String(), "crashing on purpose") {
		t.Fatalf("the crashed worker's last words are missing:\n%s", stderr.String())
	}
}

// BenchmarkSemantics times the default experiment (5 modes, 10 worker
// processes, replay, cleanup) with the modes at once and one after
// another, and a small one whose crash batch starts on a new partition
// (on kfake, or the real broker with KAFKA_BROKERS).
func BenchmarkSemantics(b *testing.B) {
	for _, bc := range []struct {
		name string
		args []string
	}{
		{"parallel", nil},
		{"sequential", []string{"--sequential"}},
		// The crash batch starts on a fresh partition: the worker's
		// cursor moves to it while a fetch of the finished one may be
		// long-polling on the broker (bounded by the workers'
		// FetchMaxWait).
		{"partition-switch", []string{"--modes", "sync", "--events", "6", "--batch", "2", "--crash-after", "3"}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			c := testkit.New(b)
			for b.Loop() {
				mustRun(b, c, 0, append([]string{"-o", "json", "semantics"}, bc.args...)...)
			}
		})
	}
}

// TestSemanticsExperimentAPI is the demo's path: the Go API on an embedded
// cluster with the default launcher, rendered as the table.
func TestSemanticsExperimentAPI(t *testing.T) {
	emb, err := cluster.StartEmbedded(cluster.EmbeddedOptions{Brokers: 3, Listen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer emb.Close()
	stderr := newSyncBuffer()
	a := &app{stdout: io.Discard, stderr: stderr, stdin: strings.NewReader(""), getenv: testEnv(t, nil), now: time.Now}
	res, err := a.semanticsExperiment(testkit.Ctx(t), emb.Config(), semantics.Options{Modes: []semantics.Mode{semantics.AtMostOnce, semantics.AtLeastOnce}})
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	var out strings.Builder
	if err := report.Semantics(&out, report.Table, res); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"at-most-once   55         55      0           5     0:20 1:20 2:20",
		"at-least-once  65         60      5           0     0:20 1:20 2:20",
		"replay from offset 0 without a group: 60 of 60 events read",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}
	if !strings.Contains(stderr.String(), "semantics: at-most-once: crashed right after event 25") {
		t.Errorf("progress missing:\n%s", stderr.String())
	}
}
