package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/offsetctl/offsetctl/internal/audit"
	"github.com/offsetctl/offsetctl/internal/lag"
	"github.com/offsetctl/offsetctl/internal/testkit"
)

// twoClusters starts two in-process clusters with their own ids (kfake's
// default id is the same "kfake" for every cluster), each with topic
// (one partition, 20 records) and group committed at 5 on it. Real
// brokers are one cluster: the test is skipped there.
func twoClusters(t *testing.T) (a, b *testkit.Cluster, topic, group string) {
	t.Helper()
	if testkit.Real() {
		t.Skip("needs two clusters: runs on kfake only")
	}
	a, b = testkit.New(t, kfake.ClusterID("cluster-a")), testkit.New(t, kfake.ClusterID("cluster-b"))
	topic, group = testkit.Name(t, "orders"), testkit.Name(t, "g")
	for _, c := range []*testkit.Cluster{a, b} {
		c.CreateTopic(topic, 1, nil)
		c.Produce(topic, map[int32]int{0: 20}, time.Time{})
		c.Commit(group, topic, map[int32]int64{0: 5})
	}
	return a, b, topic, group
}

// An entry recorded on cluster B is never applied to, nor verified on,
// cluster A (the QA repro: `-b B reset`, then `-b A undo ID --execute`
// moved A's group): undo, its dry run and history --verify refuse with
// exit 2 and one line naming both ids, the recorded bootstrap, and the
// command that reaches B; nothing changes on either cluster and nothing
// is recorded. On B the same undo works.
func TestUndoRefusesEntryOfAnotherCluster(t *testing.T) {
	a, b, topic, group := twoClusters(t)
	dir := t.TempDir()
	mustRun(t, b, 0, "reset", group, "--topic", topic+":0", "--to", "latest", "--execute", "--backup", filepath.Join(dir, "b.csv"))
	// A's group happens to hold what the change left on B: nothing but
	// the cluster tells them apart.
	a.Commit(group, topic, map[int32]int64{0: 20})
	es := historyOf(t)
	if len(es) != 1 || es[0].ClusterID != "cluster-b" || strings.Join(es[0].Brokers, ",") != b.BrokerList() {
		t.Fatalf("entry: %+v", es)
	}
	id := es[0].ID

	want := fmt.Sprintf("entry %s was recorded on cluster cluster-b (brokers %s), not on the cluster connected now (cluster-a)", id, b.BrokerList())
	for _, args := range [][]string{{"undo", id}, {"undo", id, "--execute", "--backup", filepath.Join(dir, "u0.csv")}, {"undo", id, "--execute", "--force", "--backup", filepath.Join(dir, "u1.csv")}} {
		r := badInput(t, a, want, args...)
		if !strings.Contains(r.stderr, fmt.Sprintf("offsetctl --brokers %s undo %s", b.BrokerList(), id)) {
			t.Errorf("%s: no command for the right cluster: %s", args, r.stderr)
		}
	}
	r := badInput(t, a, want+": it cannot be verified here", "history", "--verify", id)
	if strings.Contains(r.stderr, "applied") || !strings.Contains(r.stderr, fmt.Sprintf("offsetctl --brokers %s history --verify %s", b.BrokerList(), id)) {
		t.Errorf("verify on another cluster: %s", r.stderr)
	}
	wantCommitted(t, a, group, topic, map[int32]int64{0: 20})
	wantCommitted(t, b, group, topic, map[int32]int64{0: 20})
	if n := len(historyOf(t)); n != 1 {
		t.Fatalf("%d entries after the refusals, want the reset alone", n)
	}

	// On its own cluster: verified, and undone.
	r = mustRun(t, b, 0, "history", "--verify", id)
	if !strings.Contains(r.stderr, "the change is applied") || strings.Contains(r.stderr, "warning") {
		t.Errorf("verify on B: %s", r.stderr)
	}
	mustRun(t, b, 0, "undo", id, "--execute", "--backup", filepath.Join(dir, "u.csv"))
	wantCommitted(t, b, group, topic, map[int32]int64{0: 5})
	wantCommitted(t, a, group, topic, map[int32]int64{0: 20})
}

// The refusal names the recorded profile and gives the command through
// it, with the audit log the entry was found in, shell-quoted.
func TestUndoOtherClusterNamesProfile(t *testing.T) {
	a, b, topic, group := twoClusters(t)
	dir := t.TempDir()
	conf := filepath.Join(dir, "config.yaml")
	writeFile(t, conf, fmt.Sprintf("profiles:\n  dr site:\n    brokers: %q\n", b.BrokerList()))
	log := filepath.Join(dir, "my log.jsonl")
	env := map[string]string{"OFFSETCTL_CONFIG": conf}
	mustRunEnv(t, env, 0, "--profile", "dr site", "--audit-log", log, "reset", group, "--topic", topic, "--to", "latest", "--execute", "--backup", filepath.Join(dir, "b.csv"))
	a.Commit(group, topic, map[int32]int64{0: 20})
	var h struct {
		Entries []audit.Entry `json:"entries"`
	}
	decodeJSON(t, mustRun(t, a, 0, "--audit-log", log, "history", "-o", "json"), &h)
	if len(h.Entries) != 1 || h.Entries[0].Profile != "dr site" {
		t.Fatalf("entries: %+v", h.Entries)
	}
	id := h.Entries[0].ID

	r := badInput(t, a, fmt.Sprintf("entry %s was recorded on cluster cluster-b (profile \"dr site\", brokers %s), not on the cluster connected now (cluster-a)", id, b.BrokerList()),
		"--audit-log", log, "undo", id, "--execute", "--backup", filepath.Join(dir, "u.csv"))
	if !strings.Contains(r.stderr, fmt.Sprintf("offsetctl --profile 'dr site' --audit-log '%s' undo %s --execute", log, id)) {
		t.Errorf("no command through the profile: %s", r.stderr)
	}
	wantCommitted(t, a, group, topic, map[int32]int64{0: 20})
}

// An entry that records no cluster id (an older offsetctl, or its
// cluster did not answer then) is still undone and verified, with a
// warning that it could not be checked.
func TestUndoEntryWithoutClusterID(t *testing.T) {
	a, _, topic, group := twoClusters(t)
	dir := t.TempDir()
	mustRun(t, a, 0, "reset", group, "--topic", topic, "--to", "latest", "--execute", "--backup", filepath.Join(dir, "b.csv"))
	id := historyOf(t)[0].ID
	log := testAuditLog(t)
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	old := strings.ReplaceAll(string(data), `"cluster_id":"cluster-a"`, `"cluster_id":""`)
	if old == string(data) {
		t.Fatalf("no cluster id in the log:\n%s", data)
	}
	writeFile(t, log, old)

	warn := fmt.Sprintf("offsetctl: warning: entry %s records no cluster id (written by an older offsetctl, or its cluster did not answer then): it cannot be checked that it was recorded on this cluster (cluster-a)", id)
	r := mustRun(t, a, 0, "history", "--verify", id)
	if !strings.Contains(r.stderr, warn) || !strings.Contains(r.stderr, "the change is applied") {
		t.Errorf("verify: %s", r.stderr)
	}
	r = mustRun(t, a, 0, "undo", id, "--execute", "--backup", filepath.Join(dir, "u.csv"))
	if !strings.Contains(r.stderr, warn) {
		t.Errorf("undo: %s", r.stderr)
	}
	wantCommitted(t, a, group, topic, map[int32]int64{0: 5})
}

// recordedConnection reads the connection flags of a recorded command
// line wherever they stand and however they are spelt, skips the rest,
// and falls back to the recorded bootstrap list when the line has none.
func TestRecordedConnection(t *testing.T) {
	for _, c := range []struct {
		command, brokers []string
		want             string
	}{
		{[]string{"-b", "b1:9092", "reset", "g", "--topic", "t", "--to", "latest", "--execute"}, nil, "[--brokers b1:9092]"},
		{[]string{"reset", "g", "--execute", "--bootstrap-server=b1:9092,b2:9092", "-v"}, []string{"b1:9092", "b2:9092"}, "[--brokers b1:9092,b2:9092]"},
		{[]string{"-vb", "b1:9092", "undo", "ID"}, nil, "[--brokers b1:9092]"},
		{[]string{"--profile=dr", "reset", "g", "--to", "earliest", "--all-topics"}, []string{"b9:9092"}, "[--profile dr]"},
		{[]string{"--command-config", "b.properties", "--sasl-user", "alice", "--tls-ca", "ca.pem", "delete-group", "g"}, []string{"b9:9092"}, "[--command-config b.properties --tls-ca ca.pem --sasl-user alice]"},
		{[]string{"reset", "g", "--to", "latest"}, []string{"b9:9092"}, "[--brokers b9:9092]"},
		{[]string{"reset", "g", "--", "-b", "x:1"}, nil, "[]"},
		{[]string{"--audit-log", "a.jsonl", "--sasl-password", "[REDACTED]", "reset", "g"}, nil, "[]"},
	} {
		got := fmt.Sprint(recordedConnection(audit.Entry{Command: c.command, Brokers: c.brokers}))
		if got != c.want {
			t.Errorf("%q (brokers %q): %s, want %s", c.command, c.brokers, got, c.want)
		}
	}
}

// --other-cluster ID undoes an entry of another cluster (that cluster
// rebuilt under a new id) only when ID is the one the entry records, and
// the undo's entry records it (other_cluster_id), refused or not. Given
// where it is not needed, or empty, it is bad input.
func TestUndoOtherClusterOverride(t *testing.T) {
	a, b, topic, group := twoClusters(t)
	dir := t.TempDir()
	mustRun(t, b, 0, "reset", group, "--topic", topic, "--to", "latest", "--execute", "--backup", filepath.Join(dir, "b.csv"))
	id := historyOf(t)[0].ID

	badInput(t, a, "--other-cluster cluster-x: entry "+id+" was recorded on cluster cluster-b, not that one; the cluster connected now is cluster-a", "undo", id, "--other-cluster", "cluster-x")
	badInput(t, a, "--other-cluster is empty", "undo", id, "--other-cluster", "")
	badInput(t, b, "--other-cluster: entry "+id+" was recorded on the cluster connected now (cluster-b): leave the flag out", "undo", id, "--other-cluster", "cluster-b")
	r := badInput(t, a, "only if the cluster connected now is that cluster rebuilt under a new id: add --other-cluster cluster-b", "undo", id)

	// A's group moved away from what the change left on B: refused
	// (exit 1), on the record with the other cluster named.
	r = mustRun(t, a, 1, "undo", id, "--execute", "--other-cluster", "cluster-b", "--backup", filepath.Join(dir, "u0.csv"))
	if !strings.Contains(r.stderr, "partition(s) moved since entry "+id) {
		t.Fatalf("refusal: %s", r.stderr)
	}
	a.Commit(group, topic, map[int32]int64{0: 20})
	r = mustRun(t, a, 0, "undo", id, "--execute", "--other-cluster", "cluster-b", "--backup", filepath.Join(dir, "u1.csv"))
	if !strings.Contains(r.stderr, "offsetctl: warning: entry "+id+" was recorded on cluster cluster-b; --other-cluster: acting on it on the cluster connected now (cluster-a)") {
		t.Errorf("no warning: %s", r.stderr)
	}
	wantCommitted(t, a, group, topic, map[int32]int64{0: 5})
	wantCommitted(t, b, group, topic, map[int32]int64{0: 20})
	es := historyOf(t)
	if len(es) != 3 {
		t.Fatalf("%d entries, want the reset and two undos: %+v", len(es), es)
	}
	for i, want := range []string{audit.Refused, audit.Applied} {
		u := es[i+1]
		if u.Action != audit.ActUndo || u.UndoOf != id || u.Outcome != want || u.ClusterID != "cluster-a" || u.OtherClusterID != "cluster-b" {
			t.Errorf("undo entry %d: action %s undo_of %s outcome %s cluster %q other %q", i, u.Action, u.UndoOf, u.Outcome, u.ClusterID, u.OtherClusterID)
		}
	}
	if es[0].OtherClusterID != "" {
		t.Errorf("the reset names another cluster: %+v", es[0])
	}
}

// A reset recorded on cluster B never explains a rewind on cluster A
// (QA: lag --status on A named a reset made on B, the same group and
// topic names on both, as the cause of a consumer's rewind on A, and
// called it OK): A's rewind is REWIND; B's, by its own reset, is OK.
func TestLagStatusRewindOfAnotherCluster(t *testing.T) {
	a, b, topic, group := twoClusters(t)
	dir := t.TempDir()
	judge := func(c *testkit.Cluster, between func()) lag.GroupLag {
		t.Helper()
		c.Commit(group, topic, map[int32]int64{0: 10})
		r := statusRun(t, c, between, "lag", "--status", "--status-source", "sample", "--sample", "7s", "-o", "json", group)
		var rep lag.LagReport
		decodeJSON(t, r, &rep)
		if r.code != 0 || len(rep.Groups) != 1 || len(rep.Groups[0].Partitions) != 1 {
			t.Fatalf("lag --status: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
		}
		return rep.Groups[0]
	}
	g := judge(a, func() {
		mustRun(t, b, 0, "reset", group, "--topic", topic, "--to", "5", "--execute", "--backup", filepath.Join(dir, "b.csv"))
		a.Commit(group, topic, map[int32]int64{0: 5})
	})
	if reason := g.Partitions[0].StatusReason; g.Status != "REWIND" || !strings.Contains(reason, "offset went back from 10 to 5") || strings.Contains(reason, "audit") {
		t.Errorf("A, rewound by a consumer while B was reset: %s %q, want REWIND", g.Status, reason)
	}
	g = judge(b, func() {
		mustRun(t, b, 0, "reset", group, "--topic", topic, "--to", "5", "--execute", "--backup", filepath.Join(dir, "b2.csv"))
	})
	if reason := g.Partitions[0].StatusReason; g.Status != "OK" || !strings.Contains(reason, "rewound from 10 to 5") || !strings.Contains(reason, "by offsetctl reset (audit ") {
		t.Errorf("B, reset by offsetctl: %s %q, want OK by the reset", g.Status, reason)
	}
}

// The exporter serving two profiles judges each cluster's rewinds by that
// cluster's resets only: a consumer's rewind on A while B is reset to the
// same offset is REWIND on A, and B's is OK.
func TestExporterStatusRewindOfAnotherCluster(t *testing.T) {
	a, b, topic, group := twoClusters(t)
	dir := t.TempDir()
	conf := filepath.Join(dir, "config.yaml")
	writeFile(t, conf, fmt.Sprintf("profiles:\n  a:\n    brokers: %q\n  b:\n    brokers: %q\n", a.BrokerList(), b.BrokerList()))
	for _, c := range []*testkit.Cluster{a, b} {
		c.Commit(group, topic, map[int32]int64{0: 20}) // caught up
	}
	env := map[string]string{"OFFSETCTL_CONFIG": conf, "OFFSETCTL_AUDIT_LOG": testAuditLog(t)}
	e := startExporter(t, nil, env, "--profile", "a,b", "--interval", "1s", "--time-lag=false", "--status", "--status-window", "8s", group)
	status := func(f map[string]*dto.MetricFamily, cl string) (string, float64) {
		cur := ""
		for _, s := range []string{"OK", "WARN", "REWIND", "STALL", "STOP"} {
			if v, ok := value(f, "kafka_consumergroup_status", fmt.Sprintf("cluster=%s,consumergroup=%s,status=%s", cl, group, s)); ok && v == 1 {
				cur += s
			}
		}
		l, _ := value(f, "kafka_consumergroup_lag", fmt.Sprintf("cluster=%s,consumergroup=%s,partition=0,topic=%s", cl, group, topic))
		return cur, l
	}
	e.waitScrape(t, "both clusters judged OK", func(f map[string]*dto.MetricFamily) bool {
		sa, _ := status(f, "a")
		sb, _ := status(f, "b")
		return sa == "OK" && sb == "OK"
	})
	mustRun(t, b, 0, "reset", group, "--topic", topic, "--to", "5", "--execute", "--backup", filepath.Join(dir, "b.csv"))
	a.Commit(group, topic, map[int32]int64{0: 5})
	var last string
	e.waitScrape(t, "A's rewind REWIND and B's OK, once both are seen", func(f map[string]*dto.MetricFamily) bool {
		sa, la := status(f, "a")
		sb, lb := status(f, "b")
		last = fmt.Sprintf("a %s lag %v, b %s lag %v", sa, la, sb, lb)
		return la == 15 && lb == 15 && sa == "REWIND" && sb == "OK"
	})
	t.Log(last)
}

// The undo line after a reset through a profile names the profile (and
// the audit log): pasted as printed, in a shell whose KAFKA_BROKERS points
// at another cluster, it restores the cluster the reset changed, and that
// one only. (QA: the line omitted the connection and reached
// KAFKA_BROKERS.)
func TestUndoLineNamesTheConnection(t *testing.T) {
	a, b, topic, group := twoClusters(t)
	dir := t.TempDir()
	conf := filepath.Join(dir, "config.yaml")
	writeFile(t, conf, fmt.Sprintf("profiles:\n  dr:\n    brokers: %q\n", b.BrokerList()))
	log := filepath.Join(dir, "audit.jsonl")
	env := map[string]string{"OFFSETCTL_CONFIG": conf, "KAFKA_BROKERS": a.BrokerList()}
	backup := filepath.Join(dir, "b.csv")
	r := mustRunEnv(t, env, 0, "--profile", "dr", "--audit-log", log, "reset", group, "--topic", topic, "--to", "latest", "--execute", "--backup", backup)
	want := fmt.Sprintf("(undo: offsetctl --profile dr --audit-log %s reset %s --to file:%s --execute)", log, group, backup)
	if !strings.Contains(r.stderr, want) {
		t.Fatalf("undo line: want %q in\n%s", want, r.stderr)
	}
	wantCommitted(t, b, group, topic, map[int32]int64{0: 20})
	mustRunEnv(t, env, 0, append(undoArgs(t, r.stderr), "--backup", filepath.Join(dir, "u.csv"))...)
	wantCommitted(t, b, group, topic, map[int32]int64{0: 5})
	wantCommitted(t, a, group, topic, map[int32]int64{0: 5})
	es := historyOf(t, "--audit-log", log)
	if len(es) != 2 || es[1].ClusterID != "cluster-b" || es[1].Profile != "dr" {
		t.Fatalf("the restore's entry: %+v", es)
	}
}

// The printed commands repeat every connection and trail flag given,
// each word shell-quoted, and never a secret: a resolved password typed
// into a path is redacted as in the audit log.
func TestPrintedCommandConnection(t *testing.T) {
	a := &app{profile: "dr $(site)", brokers: "b1:9092,b2:9092", commandConfig: "/etc/kafka/client.properties", tlsOn: true,
		tlsCA: "/keys/hunter2/ca.pem", saslMechanism: "scram-sha-512", saslUser: "alice", saslPasswordFile: "/run/secrets/pw",
		auditLog: "/var/log/off setctl.jsonl", secrets: []string{"hunter2"}}
	want := `offsetctl --profile 'dr $(site)' --brokers b1:9092,b2:9092 --command-config /etc/kafka/client.properties --tls --tls-ca '/keys/[REDACTED]/ca.pem' --sasl-mechanism scram-sha-512 --sasl-user alice --sasl-password-file /run/secrets/pw --audit-log '/var/log/off setctl.jsonl'`
	if got := a.prog(); got != want {
		t.Errorf("prog:\n%s\nwant\n%s", got, want)
	}
	if got := (&app{}).prog(); got != "offsetctl" {
		t.Errorf("no flags: %q", got)
	}
}
