package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetctl/offsetctl/internal/admin"
	"github.com/offsetctl/offsetctl/internal/audit"
	"github.com/offsetctl/offsetctl/internal/lag"
	"github.com/offsetctl/offsetctl/internal/testkit"
	"github.com/offsetctl/offsetctl/replay"
)

// historyOf runs `history -o json` with args and decodes the entries.
func historyOf(t *testing.T, args ...string) []audit.Entry {
	t.Helper()
	r := mustRun(t, nil, 0, append([]string{"history", "-o", "json"}, args...)...)
	var out struct {
		Entries []audit.Entry `json:"entries"`
	}
	decodeJSON(t, r, &out)
	return out.Entries
}

// lagCommitted decodes `lag GROUP -o json` into topic/partition → the
// committed offset ("none" without one).
func lagCommitted(t *testing.T, c *testkit.Cluster, group string) map[string]string {
	t.Helper()
	var rep lag.LagReport
	decodeJSON(t, mustRun(t, c, 0, "lag", group, "-o", "json"), &rep)
	out := map[string]string{}
	for _, g := range rep.Groups {
		for _, p := range g.Partitions {
			out[fmt.Sprintf("%s/%d", p.Topic, p.Partition)] = offsetWord(p.Committed)
		}
	}
	return out
}

func wantCommitted(t *testing.T, c *testkit.Cluster, group, topic string, want map[int32]int64) {
	t.Helper()
	got := c.Committed(group)[topic]
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("group %s committed on %s: %v, want %v", group, topic, got, want)
	}
}

// TestAuditResetHistoryUndo: a reset is recorded with its backup and
// SHA-256; undo's dry run changes nothing; undo --execute restores the
// offsets before the reset exactly, a never-committed partition back to no
// commit, and is itself recorded as an undo of the reset.
func TestAuditResetHistoryUndo(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(3, nil)
	group := testkit.Name(t, "g")
	c.Produce(topic, map[int32]int{0: 20, 1: 20, 2: 20}, time.Time{})
	c.Commit(group, topic, map[int32]int64{0: 5, 1: 7})
	dir := t.TempDir()
	before := lagCommitted(t, c, group)

	backup := filepath.Join(dir, "reset.csv")
	mustRun(t, c, 0, "reset", group, "--topic", topic, "--to", "latest", "--execute", "--backup", backup)
	wantCommitted(t, c, group, topic, map[int32]int64{0: 20, 1: 20, 2: 20})

	es := historyOf(t, "--group", group)
	if len(es) != 1 {
		t.Fatalf("history: %d entries, want 1: %+v", len(es), es)
	}
	e := es[0]
	sum, _ := fileSHA256(backup)
	if e.Action != audit.ActReset || e.Outcome != audit.Applied || e.ExitCode != 0 || e.Backup != backup || e.BackupSHA256 != sum || len(e.ID) != 26 {
		t.Fatalf("entry = %+v (backup sha %s)", e, sum)
	}
	if e.Partitions != 3 || entryCount(e.Applied) != 3 || e.User == "" || e.Host == "" || e.ClusterID == "" {
		t.Fatalf("entry counts/who: partitions %d applied %d user %q host %q cluster %q", e.Partitions, entryCount(e.Applied), e.User, e.Host, e.ClusterID)
	}
	if got := fmt.Sprint(changeWords(e.Changes)); got != fmt.Sprintf("[%[1]s/0:5→20 %[1]s/1:7→20 %[1]s/2:no commit→20]", topic) {
		t.Fatalf("changes = %s", got)
	}
	if strings.Join(e.Command, " ") != fmt.Sprintf("--brokers %s reset %s --topic %s --to latest --execute --backup %s", c.BrokerList(), group, topic, backup) {
		t.Fatalf("command = %q", e.Command)
	}

	// Dry run: the plan, nothing changed, nothing recorded.
	r := mustRun(t, c, 0, "undo", e.ID[:10], "-o", "json")
	if !strings.Contains(r.stderr, "dry run") {
		t.Fatalf("undo dry run stderr: %s", r.stderr)
	}
	wantCommitted(t, c, group, topic, map[int32]int64{0: 20, 1: 20, 2: 20})

	mustRun(t, c, 0, "undo", e.ID, "--execute", "--backup", filepath.Join(dir, "undo.csv"))
	wantCommitted(t, c, group, topic, map[int32]int64{0: 5, 1: 7})
	if after := lagCommitted(t, c, group); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatalf("lag after undo %v, before the reset %v", after, before)
	}
	es = historyOf(t, "--group", group)
	if len(es) != 2 || es[1].Action != audit.ActUndo || es[1].UndoOf != e.ID || es[1].Outcome != audit.Applied {
		t.Fatalf("history after undo: %+v", es)
	}
	if got := fmt.Sprint(changeWords(es[1].Changes)); got != fmt.Sprintf("[%[1]s/0:20→5 %[1]s/1:20→7 %[1]s/2:20→no commit]", topic) {
		t.Fatalf("undo changes = %s", got)
	}
	// Undo of the undo: the reset again.
	mustRun(t, c, 0, "undo", es[1].ID, "--execute", "--backup", filepath.Join(dir, "redo.csv"))
	wantCommitted(t, c, group, topic, map[int32]int64{0: 20, 1: 20, 2: 20})
}

// TestUndoOutcomeID (QA): undo given the id of a change's outcome record
// (the log's second line for the change) said the entry "has no backup to
// restore from"; it says whose outcome it is and which id to undo, exit 2,
// nothing changed or recorded. That id then undoes the change.
func TestUndoOutcomeID(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(2, nil)
	group := testkit.Name(t, "g")
	c.Produce(topic, map[int32]int{0: 10, 1: 10}, time.Time{})
	c.Commit(group, topic, map[int32]int64{0: 2, 1: 3})
	dir := t.TempDir()
	mustRun(t, c, 0, "reset", group, "--topic", topic, "--to", "earliest", "--execute", "--backup", filepath.Join(dir, "b.csv"))
	lines := auditLines(t)
	if len(lines) != 2 || lines[1].Kind != audit.KindOutcome || lines[1].Intent != lines[0].ID {
		t.Fatalf("audit log: %+v, want an intent and its outcome", lines)
	}
	intent, outcome := lines[0].ID, lines[1].ID
	badInput(t, c, "offsetctl: entry "+outcome+" is the outcome of change "+intent+", not a change: undo "+intent+"\n", "undo", outcome, "--execute", "--backup", filepath.Join(dir, "u.csv"))
	wantCommitted(t, c, group, topic, map[int32]int64{0: 0, 1: 0})
	if n := len(auditLines(t)); n != 2 {
		t.Fatalf("audit log has %d lines after the refusals, want 2", n)
	}
	mustRun(t, c, 0, "undo", intent, "--execute", "--backup", filepath.Join(dir, "u.csv"))
	wantCommitted(t, c, group, topic, map[int32]int64{0: 2, 1: 3})
}

func changeWords(cs []audit.Change) []string {
	var out []string
	for _, c := range cs {
		out = append(out, fmt.Sprintf("%s/%d:%s→%s", c.Topic, c.Partition, offsetWord(c.Before), offsetWord(c.After)))
	}
	return out
}

// TestAuditUndoRefusesMovedGroup: after a consumer commits, undo refuses
// (exit 1, nothing changed, the refusal recorded) unless --force; a
// tampered backup is refused even with --force.
func TestAuditUndoRefusesMovedGroup(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(2, nil)
	group := testkit.Name(t, "g")
	c.Produce(topic, map[int32]int{0: 10, 1: 10}, time.Time{})
	c.Commit(group, topic, map[int32]int64{0: 2, 1: 3})
	dir := t.TempDir()
	backup := filepath.Join(dir, "b.csv")
	mustRun(t, c, 0, "reset", group, "--topic", topic, "--to", "earliest", "--execute", "--backup", backup)
	id := historyOf(t)[0].ID
	c.Commit(group, topic, map[int32]int64{0: 9})

	r := mustRun(t, c, 1, "undo", id, "--execute", "--backup", filepath.Join(dir, "u.csv"))
	if !strings.Contains(r.stderr, "1 partition(s) moved since entry "+id) || !strings.Contains(r.stderr, "partition 0: 0 after the change, 9 now") || !strings.Contains(r.stderr, "--force") {
		t.Fatalf("refusal: %s", r.stderr)
	}
	wantCommitted(t, c, group, topic, map[int32]int64{0: 9, 1: 0})
	es := historyOf(t)
	if len(es) != 2 || es[1].Action != audit.ActUndo || es[1].Outcome != audit.Refused || es[1].ExitCode != 1 || es[1].UndoOf != id {
		t.Fatalf("refused undo entry: %+v", es)
	}

	mustRun(t, c, 0, "undo", id, "--execute", "--force", "--backup", filepath.Join(dir, "u2.csv"))
	wantCommitted(t, c, group, topic, map[int32]int64{0: 2, 1: 3})

	// A backup edited after the fact is not the state before the change.
	if err := os.WriteFile(backup, []byte("offsetctl:backup,"+group+",0,1\n"+group+","+topic+",0,1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r = mustRun(t, c, 2, "undo", id, "--execute", "--force")
	if !strings.Contains(r.stderr, "has changed since it was written") || strings.Count(r.stderr, "\n") != 1 {
		t.Fatalf("tampered backup: %s", r.stderr)
	}
	wantCommitted(t, c, group, topic, map[int32]int64{0: 2, 1: 3})
	// Entries that cannot be undone are bad input.
	badInput(t, c, "no audit entry 01NOSUCHENTRY", "undo", "01NOSUCHENTRY")
}

// TestAuditUnwritableLog: when the log cannot be written nothing changes
// (one line naming the log), for reset, delete-offsets and delete-group:
// a log under a regular file is a path that cannot be one, bad input
// (exit 2; it was 1, as a full disk is); --no-audit makes the change and
// writes no log.
func TestAuditUnwritableLog(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(2, nil)
	group := testkit.Name(t, "g")
	c.Produce(topic, map[int32]int{0: 10, 1: 10}, time.Time{})
	c.Commit(group, topic, map[int32]int64{0: 2, 1: 3})
	dir := t.TempDir()
	file := filepath.Join(dir, "not-a-dir")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(file, "audit.jsonl") // under a regular file: even root cannot create it
	for _, args := range [][]string{
		{"reset", group, "--topic", topic, "--to", "earliest", "--execute", "--backup", filepath.Join(dir, "r.csv")},
		{"delete-offsets", group, "--topic", topic, "--execute", "--backup", filepath.Join(dir, "d.csv")},
		{"delete-group", group, "--execute", "--backup", filepath.Join(dir, "g.csv")},
	} {
		r := mustRun(t, c, 2, append([]string{"--audit-log", bad}, args...)...)
		lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
		if last := lines[len(lines)-1]; !strings.Contains(last, "nothing was changed: the audit log cannot be written") || !strings.Contains(last, bad) {
			t.Fatalf("%s: stderr %s", args[0], r.stderr)
		}
		wantCommitted(t, c, group, topic, map[int32]int64{0: 2, 1: 3})
		if _, err := os.Stat(args[len(args)-1]); err == nil {
			t.Fatalf("%s: a backup was written though nothing was to change", args[0])
		}
	}
	log := filepath.Join(dir, "no-audit.jsonl")
	mustRun(t, c, 0, "--audit-log", log, "--no-audit", "reset", group, "--topic", topic, "--to", "earliest", "--execute", "--backup", filepath.Join(dir, "n.csv"))
	wantCommitted(t, c, group, topic, map[int32]int64{0: 0, 1: 0})
	if _, err := os.Stat(log); !os.IsNotExist(err) {
		t.Fatalf("--no-audit wrote the log: %v", err)
	}
}

// TestAuditDeleteAndUndo: delete-offsets and delete-group are recorded,
// and undo brings the offsets back.
func TestAuditDeleteAndUndo(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(2, nil)
	group := testkit.Name(t, "g")
	c.Produce(topic, map[int32]int{0: 10, 1: 10}, time.Time{})
	c.Commit(group, topic, map[int32]int64{0: 4, 1: 6})
	dir := t.TempDir()
	mustRun(t, c, 0, "delete-offsets", group, "--topic", topic+":1", "--execute", "--backup", filepath.Join(dir, "d.csv"))
	wantCommitted(t, c, group, topic, map[int32]int64{0: 4})
	mustRun(t, c, 0, "delete-group", group, "--execute", "--backup", filepath.Join(dir, "g.csv"))
	wantCommitted(t, c, group, topic, nil)
	es := historyOf(t, "--group", group)
	if len(es) != 2 || es[0].Action != audit.ActDeleteOffsets || es[1].Action != audit.ActDeleteGroup {
		t.Fatalf("history: %+v", es)
	}
	if got := fmt.Sprint(changeWords(es[0].Changes)); got != fmt.Sprintf("[%s/1:6→no commit]", topic) || entryCount(es[0].Applied) != 1 {
		t.Fatalf("delete-offsets changes %s applied %d", got, entryCount(es[0].Applied))
	}
	if got := fmt.Sprint(changeWords(es[1].Changes)); got != fmt.Sprintf("[%s/0:4→no commit]", topic) || es[1].Outcome != audit.Applied {
		t.Fatalf("delete-group changes %s outcome %s", got, es[1].Outcome)
	}
	mustRun(t, c, 0, "undo", es[1].ID, "--execute", "--backup", filepath.Join(dir, "u1.csv"))
	wantCommitted(t, c, group, topic, map[int32]int64{0: 4})
	// The delete-offsets entry: partition 1 still has no commit, as the
	// delete left it, so the group has not moved for it.
	mustRun(t, c, 0, "undo", es[0].ID, "--execute", "--backup", filepath.Join(dir, "u2.csv"))
	wantCommitted(t, c, group, topic, map[int32]int64{0: 4, 1: 6})
}

// TestAuditReplayRecorded: a replay is recorded with its records, digest,
// payload digest and the proof's verdict, the same as its summary.
func TestAuditReplayRecorded(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(2, nil)
	group := testkit.Name(t, "g")
	c.Produce(topic, map[int32]int{0: 7, 1: 5}, time.Time{})
	c.Commit(group, topic, map[int32]int64{0: 3})
	r := mustRun(t, c, 0, "replay", topic, "--format", "none", "--payload-digest", "-o", "json", "-q")
	var res replay.Result
	decodeJSON(t, r, &res)
	es := historyOf(t, "--topic", topic)
	if len(es) != 1 {
		t.Fatalf("history: %+v", es)
	}
	e := es[0]
	if e.Action != audit.ActReplay || e.Records == nil || *e.Records != 12 || e.Digest != res.Digest || e.PayloadDigest != res.PayloadDigest || e.Digest == "" || e.Proof != "unchanged" || e.Outcome != audit.Applied {
		t.Fatalf("replay entry %+v, summary digest %s", e, res.Digest)
	}
	if fmt.Sprint(e.Groups) != fmt.Sprint([]string{group}) {
		t.Fatalf("replay entry groups %v", e.Groups)
	}
	if es := historyOf(t, "--group", group); len(es) != 1 {
		t.Fatalf("history --group: %d entries", len(es))
	}
	// CSV and table carry the entry too.
	csv := mustRun(t, nil, 0, "history", "-o", "csv")
	if !strings.HasPrefix(csv.stdout, "ID,TIME,USER,HOST") || !strings.Contains(csv.stdout, e.ID) || !strings.Contains(csv.stdout, e.Digest) {
		t.Fatalf("history csv:\n%s", csv.stdout)
	}
	table := mustRun(t, nil, 0, "history", "--since", "1h")
	if !strings.Contains(table.stdout, e.ID) || !strings.Contains(table.stdout, "12 records") {
		t.Fatalf("history table:\n%s", table.stdout)
	}
	if es := historyOf(t, "--since", "2000-01-01", "--topic", "other"); len(es) != 0 {
		t.Fatalf("history --topic other: %d entries", len(es))
	}
	badInput(t, nil, `--since "yesterday": want a duration`, "history", "--since", "yesterday")
	// A zero duration listed nothing from now on, exit 0 (QA: --since 0).
	for _, zero := range []string{"0", "0s", "-1h"} {
		badInput(t, nil, `--since "`+zero+`": a duration of zero or less reaches back to no entry: give how far back, such as 24h or 7d`, "history", "--since", zero)
	}
	badInput(t, nil, "entry "+e.ID+" is a replay: it moved no group's offsets", "undo", e.ID) // a replay moved no offsets

	// A backfill is recorded as such, with its target and copies.
	dst := c.Topic(2, nil)
	bres, _, _ := replayJSON(t, c, 0, topic, "--produce-to", dst, "--format", "none")
	es = historyOf(t, "--topic", topic)
	b := es[len(es)-1]
	if len(es) != 2 || b.Action != audit.ActBackfill || b.Target != dst || b.Produced == nil || *b.Produced != 12 || b.Digest != bres.Digest || b.Outcome != audit.Applied {
		t.Fatalf("backfill entry %+v", b)
	}
}

// TestAuditSecretsNeverLogged: neither a password from a properties file
// nor the same password typed anywhere on the command line reaches the
// log.
func TestAuditSecretsNeverLogged(t *testing.T) {
	s := newSecureFake(t, false)
	topic, group := s.fixture(t)
	dir := t.TempDir()
	props := filepath.Join(dir, "client.properties")
	content := fmt.Sprintf("security.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-512\nsasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username=\"%s\" password=\"%s\";\nssl.truststore.type=PEM\nssl.truststore.location=%s\n", s.user, s.password, s.pki.ca)
	if err := os.WriteFile(props, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, "audit.jsonl")
	// The password also typed into a file name on the command line.
	backup := filepath.Join(dir, "backup-"+s.password+".csv")
	mustRunEnv(t, nil, 0, "-b", s.c.BrokerList(), "--command-config", props, "--audit-log", log,
		"reset", group, "--topic", topic, "--to", "earliest", "--execute", "--backup", backup)
	mustRunEnv(t, map[string]string{"KAFKA_SASL_PASSWORD": s.password}, 0, "-b", s.c.BrokerList(), "--tls-ca", s.pki.ca,
		"--sasl-mechanism", "scram-sha-512", "--sasl-user", s.user, "--audit-log", log, "replay", topic, "--format", "none", "-q")
	// The shared trail goes through the same TLS and SASL: a topic on the
	// secure cluster, written and read back with the password from the
	// properties file.
	trail := s.c.Topic(1, nil)
	mustRunEnv(t, nil, 0, "-b", s.c.BrokerList(), "--command-config", props, "--audit-log", log, "--audit-topic", trail,
		"reset", group, "--topic", topic, "--to", "latest", "--execute", "--backup", filepath.Join(dir, "b2.csv"))
	r := mustRunEnv(t, nil, 0, "-b", s.c.BrokerList(), "--command-config", props, "--audit-topic", trail, "history", "-o", "json")
	if strings.Contains(r.stdout, s.password) || strings.Count(r.stdout, `"action": "reset"`) != 1 {
		t.Fatalf("history from the secure trail:\n%s", r.stdout)
	}
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	es, err := audit.Read(strings.NewReader(string(data)))
	// Each reset is an intent and an outcome, the replay one entry.
	if err != nil || len(es) != 5 {
		t.Fatalf("log: %d entries, %v", len(es), err)
	}
	if strings.Contains(string(data), s.password) {
		t.Fatalf("the password reached the log:\n%s", data)
	}
	if !strings.Contains(strings.Join(es[0].Command, " "), "--backup "+filepath.Join(dir, "backup-"+audit.Redacted+".csv")) {
		t.Fatalf("command not redacted as expected: %q", es[0].Command)
	}
}

// TestAuditTopicRoundTrip: --audit-topic (or a profile's audit_topic)
// writes each entry to the topic, one record per group keyed by it;
// history reads the shared trail back, each entry once; a missing topic
// stops the change.
func TestAuditTopicRoundTrip(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(2, nil)
	trail := c.Topic(3, nil)
	g1, g2 := testkit.Name(t, "g1"), testkit.Name(t, "g2")
	c.Produce(topic, map[int32]int{0: 10, 1: 10}, time.Time{})
	c.Commit(g1, topic, map[int32]int64{0: 1, 1: 2})
	c.Commit(g2, topic, map[int32]int64{0: 3})
	dir := t.TempDir()

	mustRun(t, c, 0, "--audit-topic", trail, "reset", g1, g2, "--topic", topic, "--to", "latest", "--execute", "--backup", filepath.Join(dir, "r.csv"))
	mustRun(t, c, 0, "--audit-topic", trail, "replay", topic, "--format", "none", "-q")
	// Through a profile that names the trail.
	cfgFile := filepath.Join(dir, "config.yaml")
	writeFile(t, cfgFile, fmt.Sprintf("profiles:\n  team:\n    brokers: %q\n    audit_topic: %s\n", c.BrokerList(), trail))
	env := map[string]string{"OFFSETCTL_CONFIG": cfgFile}
	mustRunEnv(t, env, 0, "--profile", "team", "reset", g1, "--topic", topic, "--to", "earliest", "--execute", "--backup", filepath.Join(dir, "p.csv"))

	local := historyOf(t)
	if len(local) != 3 {
		t.Fatalf("local log: %d entries", len(local))
	}
	r := mustRun(t, c, 0, "--audit-topic", trail, "history", "-o", "json")
	var shared struct {
		Entries []audit.Entry `json:"entries"`
	}
	decodeJSON(t, r, &shared)
	if len(shared.Entries) != 3 {
		t.Fatalf("shared trail: %d entries, want 3: %+v", len(shared.Entries), shared.Entries)
	}
	for i := range local {
		if shared.Entries[i].ID != local[i].ID || shared.Entries[i].Action != local[i].Action || len(shared.Entries[i].Changes) != len(local[i].Changes) {
			t.Fatalf("entry %d: topic %+v, log %+v", i, shared.Entries[i], local[i])
		}
	}
	// The history of one group from the topic, through the profile: the
	// reset and the replay whose proof covered it.
	rp := mustRunEnv(t, env, 0, "--profile", "team", "history", "--group", g2, "-o", "json")
	decodeJSON(t, rp, &shared)
	if len(shared.Entries) != 2 || shared.Entries[0].ID != local[0].ID || shared.Entries[1].ID != local[1].ID {
		t.Fatalf("history --group %s from the topic: %+v", g2, shared.Entries)
	}
	// The records: the reset of two groups is an intent and an outcome,
	// each two records keyed by group, the replay (whose proof covers
	// both groups) two, the profile's reset two (intent, outcome).
	keys := map[string]int{}
	cl := c.Client(kgo.ConsumeTopics(trail), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	for n := 0; n < 8; {
		fs := cl.PollFetches(testkit.Ctx(t))
		if err := fs.Err0(); err != nil {
			t.Fatal(err)
		}
		fs.EachRecord(func(rec *kgo.Record) { keys[string(rec.Key)]++; n++ })
	}
	if keys[g1] != 5 || keys[g2] != 3 || len(keys) != 2 {
		t.Fatalf("records by key: %v", keys)
	}

	// A trail topic that does not exist: nothing changes.
	before := c.Committed(g1)
	r = mustRun(t, c, 1, "--audit-topic", testkit.Name(t, "missing"), "reset", g1, "--topic", topic, "--to", "latest", "--execute", "--backup", filepath.Join(dir, "m.csv"))
	if !strings.Contains(r.stderr, "nothing was changed: the shared audit trail cannot be written") || !strings.Contains(r.stderr, "does not exist") {
		t.Fatalf("missing trail topic: %s", r.stderr)
	}
	if after := c.Committed(g1); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatalf("offsets moved: %v → %v", before, after)
	}
	badInput(t, c, "--no-audit and --audit-topic contradict each other", "--audit-topic", trail, "--no-audit", "history")
}

// TestAuditUndoPartialDelete: a delete-offsets of two groups where one is
// refused (its live members consume the topic) is partial; its audit line
// is printed, and undo restores the group that was changed, leaving the
// live one alone (it would have made the whole restore refused).
func TestAuditUndoPartialDelete(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(2, nil)
	c.Produce(topic, map[int32]int{0: 10, 1: 10}, time.Time{})
	done, live := testkit.Name(t, "g"), testkit.Name(t, "live")
	c.Commit(done, topic, map[int32]int64{0: 4, 1: 6})
	c.Commit(live, topic, map[int32]int64{0: 2, 1: 3})
	c.Consumer(live, topic, false, kgo.DisableAutoCommit())
	dir := t.TempDir()
	r := mustRun(t, c, 1, "delete-offsets", done, live, "--topic", topic, "--execute", "--backup", filepath.Join(dir, "d.csv"))
	if !strings.Contains(r.stderr, "audit: recorded as ") {
		t.Errorf("a partial delete names no audit entry: %q", r.stderr)
	}
	wantCommitted(t, c, done, topic, nil)
	es := historyOf(t, "--group", done)
	if len(es) != 1 || es[0].Outcome != audit.Partly || entryCount(es[0].Applied) != 2 || es[0].Changed == nil || *es[0].Changed != 2 {
		t.Fatalf("history: %+v", es)
	}
	mustRun(t, c, 0, "undo", es[0].ID, "--execute", "--backup", filepath.Join(dir, "u.csv"))
	wantCommitted(t, c, done, topic, map[int32]int64{0: 4, 1: 6})
	if got := c.Committed(live)[topic]; got[0] != 2 || got[1] != 3 {
		t.Errorf("the live group moved: %v", got)
	}
}

// TestUndoneWords: undo's refusal over moved partitions says an earlier
// undo did it only when that undo finished; one killed or cut short
// (unknown, partly) is named as unfinished, with how to check and finish
// it. It once read "it was undone already" for an undo killed after 159
// of 200 groups.
func TestUndoneWords(t *testing.T) {
	undo := func(id, outcome string) audit.Entry {
		return audit.Entry{ID: id, Action: audit.ActUndo, UndoOf: "X", Outcome: outcome}
	}
	other := audit.Entry{ID: "O", Action: audit.ActUndo, UndoOf: "Y", Outcome: audit.Applied}
	for _, tc := range []struct {
		entries []audit.Entry
		want    string
	}{
		{nil, ""},
		{[]audit.Entry{other, undo("R", audit.Refused), undo("F", audit.Failed)}, ""},
		{[]audit.Entry{undo("A", audit.Applied)}, " (it was undone already by entry A)"},
		{[]audit.Entry{undo("A", audit.Applied), undo("V", audit.Unverified)}, " (it was undone already by entry A, V)"},
		{[]audit.Entry{undo("U", audit.Unknown)}, " (an earlier undo of it did not finish: entry U (outcome unknown); check what it restored with offsetctl history --verify U, and add --force to finish the restore)"},
		{[]audit.Entry{undo("A", audit.Applied), undo("P", audit.Partly)}, " (an earlier undo of it did not finish: entry P (outcome partly); check what it restored with offsetctl history --verify P, and add --force to finish the restore)"},
	} {
		if got := undoneWords("offsetctl", tc.entries, "X"); got != tc.want {
			t.Errorf("undoneWords(%v):\n%q\nwant\n%q", tc.entries, got, tc.want)
		}
	}
}

// TestUndoTakesResetsCommitFlags: undo restores with the commit flags a
// cluster may need, as reset takes them (a cluster without transactions,
// ACLs that allow one prefix). The restore used the prefix given (its
// transactional id is on the broker), --non-atomic restores without one,
// and reset's checks of those flags apply (exit 2, nothing restored).
func TestUndoTakesResetsCommitFlags(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(2, nil)
	c.Produce(topic, map[int32]int{0: 10, 1: 10}, time.Now())
	dir := t.TempDir()
	for i, tc := range []struct {
		flags []string
		txnID string // the restore's transactional id, "" for none
	}{
		{[]string{"--transactional-id-prefix", "undo-acl-"}, "undo-acl-"},
		{[]string{"--non-atomic", "--parallel-groups", "1"}, ""},
	} {
		group := testkit.Name(t, fmt.Sprintf("g%d", i))
		c.Commit(group, topic, map[int32]int64{0: 3, 1: 7})
		r := mustRun(t, c, 0, "reset", group, "--topic", topic, "--to", "latest", "--execute", "--backup", filepath.Join(dir, fmt.Sprintf("r%d.csv", i)))
		id := recordedID(t, r)
		for _, bad := range [][]string{{"--transactional-id-prefix", "bad prefix "}, {"--non-atomic", "--transactional-id-prefix", "x-"}, {"--parallel-groups", "0"}} {
			mustRun(t, c, 2, append([]string{"undo", id, "--execute"}, bad...)...)
			wantCommitted(t, c, group, topic, map[int32]int64{0: 10, 1: 10})
		}
		mustRun(t, c, 0, append([]string{"undo", id, "--execute", "--backup", filepath.Join(dir, fmt.Sprintf("u%d.csv", i))}, tc.flags...)...)
		wantCommitted(t, c, group, topic, map[int32]int64{0: 3, 1: 7})
		// Bad input is exit 2 whatever the entry's state: here, undone
		// already (its groups moved since), which is exit 1 otherwise.
		for _, bad := range [][]string{{"--parallel-groups", "0"}, {"--non-atomic", "--transactional-id-prefix", "x-"}} {
			mustRun(t, c, 2, append([]string{"undo", id, "--execute"}, bad...)...)
		}
		if tc.txnID == "" {
			continue
		}
		txns, err := c.Admin().DescribeTransactions(context.Background(), tc.txnID+group)
		if err != nil {
			t.Fatal(err)
		}
		if d, ok := txns[tc.txnID+group]; !ok || d.Err != nil {
			t.Errorf("the restore's transactional id %s is not on the broker: %+v", tc.txnID+group, d)
		}
	}
}

// TestResetAuditSkippedLiveNeverHidesAChange: a fleet reset that skipped a
// live group records the outcome its executed groups decide; "refused"
// only when nothing may have changed. With the skip, a group whose EndTxn
// answer was lost once made the whole entry "refused", which undo then
// refused to touch.
func TestResetAuditSkippedLiveNeverHidesAChange(t *testing.T) {
	off := func(v int64) *int64 { return &v }
	live := admin.GroupPlan{Group: "live", SkippedLive: true, Partitions: []admin.PartitionPlan{}}
	group := func(outcome string) admin.GroupPlan {
		return admin.GroupPlan{Group: "a", Outcome: outcome, Partitions: []admin.PartitionPlan{{Topic: "t", Partition: 0, Action: admin.ActCommit, Current: off(1), Target: off(5)}}}
	}
	for _, tc := range []struct {
		plan admin.Plan
		want string
	}{
		{admin.Plan{Groups: []admin.GroupPlan{group(admin.OutcomeUnknown), live}}, audit.Unknown},
		{admin.Plan{Groups: []admin.GroupPlan{group(admin.OutcomeApplied), live}}, audit.Partly},
		{admin.Plan{Groups: []admin.GroupPlan{live}}, audit.Refused},
	} {
		var e audit.Entry
		res := resetAudit(&tc.plan)(&e)
		got := res.outcome
		if res.refused {
			got = audit.Refused
		}
		if got != tc.want || !slices.Contains(e.Groups, "live") {
			t.Errorf("groups %v: outcome %q (refused %v), want %q with the live group named", e.Groups, res.outcome, res.refused, tc.want)
		}
	}
}

// TestUnknownHintSettled: history's "outcome unknown" note names a change
// until an undo restored it completely; an undo killed part-way (itself
// unknown) is settled by a later complete undo of the same change (--force
// finished it), not by an earlier one.
func TestUnknownHintSettled(t *testing.T) {
	e := func(id, action, outcome, undoOf string) audit.Entry {
		return audit.Entry{ID: id, Action: action, Outcome: outcome, UndoOf: undoOf}
	}
	for _, tc := range []struct {
		sel  []audit.Entry
		want string // the note's ids, "" for no note
	}{
		{[]audit.Entry{e("A", audit.ActReset, audit.Unknown, "")}, "A"},
		{[]audit.Entry{e("A", audit.ActReset, audit.Unknown, ""), e("B", audit.ActUndo, audit.Applied, "A")}, ""},
		{[]audit.Entry{e("A", audit.ActReset, audit.Unknown, ""), e("B", audit.ActUndo, audit.Refused, "A")}, "A"},
		{[]audit.Entry{e("A", audit.ActReset, audit.Applied, ""), e("B", audit.ActUndo, audit.Unknown, "A"), e("C", audit.ActUndo, audit.Applied, "A")}, ""},
		{[]audit.Entry{e("A", audit.ActReset, audit.Applied, ""), e("B", audit.ActUndo, audit.Applied, "A"), e("C", audit.ActUndo, audit.Unknown, "A")}, "C"},
	} {
		var errb strings.Builder
		(&app{stderr: &errb}).unknownHint(tc.sel)
		want := ""
		if tc.want != "" {
			want = "offsetctl: note: 1 change(s) with outcome unknown (" + tc.want + "): whether each landed is not recorded; see what the evidence shows with: offsetctl history --verify ID\n"
		}
		if errb.String() != want {
			t.Errorf("%+v:\n%q\nwant\n%q", tc.sel, errb.String(), want)
		}
	}
}

// entryCount is an entry's count, -1 when it is not known (nil).
func entryCount(n *int) int {
	if n == nil {
		return -1
	}
	return *n
}
