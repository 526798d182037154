package cli

import (
	"encoding/csv"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/offsetctl/offsetctl/internal/admin"
	"github.com/offsetctl/offsetctl/internal/safetext"
	"github.com/offsetctl/offsetctl/internal/testkit"
)

// hostileSuffixes are the group-name samples of issue 11 and their
// classes: a fake row by erasing the line, a name that displays as another
// (\x01, DEL), C1 controls, bidi overrides, tabs, a name that would be
// read as a flag. Line breaks are tested apart (a backup CSV cannot hold
// them). Invalid UTF-8 only on kfake: Apache Kafka decodes group ids as
// UTF-8 and would store U+FFFD instead.
func hostileSuffixes() []string {
	s := []string{
		"evil\x1b[2K\x1b[1Gbilling",
		"bil\x01ling",
		"tab\tbed",
		"del\x7fete",
		"c1\u009b2Kx",
		"rtl\u202egnillib",
		"quote'and\"dq",
	}
	if !testkit.Real() {
		s = append(s, "bad\xffutf8")
	}
	return s
}

// terminalClean fails unless s can go to a terminal as it is: no C0
// control but the line break, no DEL, no C1, no bidi/format character,
// valid UTF-8.
func terminalClean(t *testing.T, what, s string) {
	t.Helper()
	for i, r := range s {
		bad := r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD") ||
			r < 0x20 && r != '\n' || r == 0x7f || r >= 0x80 && r < 0xa0 ||
			r >= 0x200b && r <= 0x200f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
		if bad {
			t.Fatalf("%s holds %U raw at byte %d:\n%q", what, r, i, s)
		}
	}
}

// TestHostileGroupNamesInHumanOutput runs lag, reset (with its undo line),
// the replay proof and error lines over groups with hostile names: the
// table and stderr show each name quoted (safetext.Name), never raw; JSON
// and CSV keep the exact bytes; the undo line, run through a real shell,
// restores that very group.
func TestHostileGroupNamesInHumanOutput(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(2, nil)
	c.Produce(topic, map[int32]int{0: 20, 1: 20}, time.Time{})
	base := testkit.Name(t, "g")
	var groups []string
	for i, s := range hostileSuffixes() {
		g := fmt.Sprintf("%s-%d-%s", base, i, s)
		groups = append(groups, g)
		c.Commit(g, topic, map[int32]int64{0: 7, 1: 9})
	}
	dash := "-" + base + "-dash"
	groups = append(groups, dash)
	c.Commit(dash, topic, map[int32]int64{0: 7, 1: 9})

	for _, g := range groups {
		quoted := safetext.Name(g)
		// lag: the group header line and its rows.
		r := mustRun(t, c, 0, "lag", "--", g)
		terminalClean(t, "lag table", r.stdout)
		if !strings.Contains(r.stdout, "GROUP "+quoted+" ") {
			t.Fatalf("lag table does not name %s:\n%s", quoted, r.stdout)
		}
		if n := strings.Count(r.stdout, "\n"); n != 4 { // group line, header, 2 rows
			t.Fatalf("lag table of %q has %d lines, want 4:\n%s", g, n, r.stdout)
		}
		// JSON decodes to the exact bytes, but for invalid UTF-8: a
		// JSON string is Unicode, and encoding/json writes U+FFFD for
		// it. (The characters a terminal acts on are \u escapes:
		// TestJSONEscapesFormatCharacters.)
		l := lagOf(t, c, 0, "--", g)
		if len(l.Groups) != 1 || l.Groups[0].Group != strings.ToValidUTF8(g, "\uFFFD") {
			t.Fatalf("lag JSON groups = %+v, want %q", l.Groups, g)
		}
		// CSV keeps them too, in its own quoting.
		r = mustRun(t, c, 0, "lag", "-o", "csv", "--", g)
		recs, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
		if err != nil || len(recs) != 3 || recs[1][0] != g {
			t.Fatalf("lag CSV: %v %q", err, recs)
		}
	}

	// reset --execute: the table, the undo line; then the undo itself,
	// taken from stderr and split by bash, restores the offsets.
	dir := t.TempDir()
	for i, g := range groups {
		backup := filepath.Join(dir, fmt.Sprintf("b%d.csv", i))
		r := mustRun(t, c, 0, "reset", "--group="+g, "--topic", topic, "--to", "earliest", "--execute", "--backup", backup)
		terminalClean(t, "reset table", r.stdout)
		terminalClean(t, "reset stderr", r.stderr)
		if !strings.Contains(r.stdout, safetext.Name(g)+"  ") {
			t.Fatalf("reset table does not name %s:\n%s", safetext.Name(g), r.stdout)
		}
		if got := c.Committed(g)[topic]; got[0] != 0 || got[1] != 0 {
			t.Fatalf("after reset %q: %v", g, got)
		}
		undo := undoArgs(t, r.stderr)
		// As printed, with nothing added: the line names its cluster.
		mustRun(t, nil, 0, append(undo, "--backup", backup+".undo")...)
		if got := c.Committed(g)[topic]; got[0] != 7 || got[1] != 9 {
			t.Fatalf("after the undo of %q (%q): %v, want 0:7 1:9", g, undo, got)
		}
	}

	// The groups table and a delete-offsets dry run too.
	r0 := mustRun(t, c, 0, "groups")
	terminalClean(t, "groups table", r0.stdout)
	for _, g := range groups {
		if !strings.Contains(r0.stdout, safetext.Name(g)+"  ") {
			t.Fatalf("groups does not list %s:\n%s", safetext.Name(g), r0.stdout)
		}
		d := mustRun(t, c, 0, "delete-offsets", "--topic", topic, "--", g)
		terminalClean(t, "delete-offsets table", d.stdout)
		terminalClean(t, "delete-offsets stderr", d.stderr)
		if !strings.Contains(d.stdout, safetext.Name(g)+"  ") {
			t.Fatalf("delete-offsets does not name %s:\n%s", safetext.Name(g), d.stdout)
		}
	}

	// The replay proof table names every group, quoted.
	r := mustRun(t, c, 0, "replay", topic, "--format", "none")
	terminalClean(t, "replay output", r.stdout)
	terminalClean(t, "replay stderr", r.stderr)
	for _, g := range groups {
		if !strings.Contains(r.stdout, "\n"+safetext.Name(g)+"  ") {
			t.Fatalf("proof does not list %s:\n%s", safetext.Name(g), r.stdout)
		}
	}

	// Error lines: a usage error and a per-group error name the group
	// quoted on one line.
	for _, g := range groups[:2] {
		r := mustRun(t, c, 2, "reset", "--group="+g, "--to", "group:"+g, "--topic", topic)
		terminalClean(t, "error line", r.stderr)
		if !strings.Contains(r.stderr, "group "+safetext.Name(g)+" cannot copy") || strings.Count(r.stderr, "\n") != 1 {
			t.Fatalf("error line: %q", r.stderr)
		}
		missing := g + "-missing"
		r = mustRun(t, c, 2, "reset", "--group="+missing, "--all-topics", "--to", "earliest")
		terminalClean(t, "error line", r.stderr)
		if !strings.Contains(r.stderr, "group "+safetext.Name(missing)+" ") {
			t.Fatalf("error line does not quote the group: %q", r.stderr)
		}
	}
}

var undoRe = regexp.MustCompile(`\(undo: (offsetctl .*) --execute\)`)

// undoArgs takes the undo command from a reset's stderr and splits it as
// bash does, returning offsetctl's arguments.
func undoArgs(t *testing.T, stderr string) []string {
	t.Helper()
	m := undoRe.FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("no undo line in %q", stderr)
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash to run the undo line")
	}
	out, err := exec.Command(bash, "-c", `printf '%s\0' `+m[1]+" --execute").Output()
	if err != nil {
		t.Fatalf("bash on %q: %v", m[1], err)
	}
	args := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if args[0] != "offsetctl" {
		t.Fatalf("undo line %q", m[1])
	}
	return args[1:]
}

// TestGroupNameWithLineBreakRefusedBeforeBackup: a backup CSV cannot hold
// a line break in a group name, so the reset is refused (exit 2) before
// any file is created.
func TestGroupNameWithLineBreakRefusedBeforeBackup(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(1, nil)
	c.Produce(topic, map[int32]int{0: 5}, time.Time{})
	for _, g := range []string{testkit.Name(t, "g") + "\nbilling", testkit.Name(t, "g") + "\rx"} {
		c.Commit(g, topic, map[int32]int64{0: 3})
		dir := t.TempDir()
		backup := filepath.Join(dir, "b.csv")
		r := mustRun(t, c, 2, "reset", "--group="+g, "--topic", topic, "--to", "earliest", "--execute", "--backup", backup)
		terminalClean(t, "stderr", r.stderr)
		if strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, safetext.Name(g)) {
			t.Fatalf("stderr %q", r.stderr)
		}
		if _, err := os.Stat(backup); !os.IsNotExist(err) {
			t.Fatalf("backup file left behind: %v", err)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Fatalf("files left behind: %v", ents)
		}
		if got := c.Committed(g)[topic][0]; got != 3 {
			t.Fatalf("committed = %d, want 3", got)
		}
		// Default backup name in the working directory: none created.
		wd, _ := os.Getwd()
		before, _ := filepath.Glob(filepath.Join(wd, "offsetctl-backup-*"))
		badInput(t, c, "group "+safetext.Name(g), "reset", "--group="+g, "--topic", topic, "--to", "earliest", "--execute")
		after, _ := filepath.Glob(filepath.Join(wd, "offsetctl-backup-*"))
		if len(after) != len(before) {
			t.Fatalf("a default backup was created: %v", after)
		}
	}
}

// TestOversizeArgumentsRefused: a group id over the protocol's 32,767
// bytes and a client id over 256 are bad input (exit 2) named shortened,
// never echoed whole, before any request.
func TestOversizeArgumentsRefused(t *testing.T) {
	// mustRun would print the 130 KB arguments on failure.
	mustRun := func(t *testing.T, c *testkit.Cluster, want int, args ...string) result {
		t.Helper()
		r := offsetctl(t, c, args...)
		if r.code != want {
			t.Fatalf("offsetctl %s: exit %d, want %d; stderr %s", safetext.Arg(strings.Join(args, " ")), r.code, want, safetext.Arg(r.stderr))
		}
		return r
	}
	c := testkit.New(t)
	topic := c.Topic(1, nil)
	huge := strings.Repeat("g", 130_000)
	over := strings.Repeat("h", admin.MaxGroupLen+1)
	for _, args := range [][]string{
		{"lag", huge},
		{"lag", over},
		{"reset", huge, "--topic", topic, "--to", "earliest"},
		{"reset", "g", "--topic", topic, "--to", "group:" + huge},
		{"delete-offsets", huge, "--topic", topic},
		{"delete-group", huge},
	} {
		r := mustRun(t, c, 2, args...)
		if len(r.stderr) > 400 || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, "bytes)") || !strings.Contains(r.stderr, "limit of 32767 bytes") {
			t.Errorf("%s ...: stderr (%d bytes) %q", args[0], len(r.stderr), r.stderr[:min(len(r.stderr), 400)])
		}
	}
	// The longest legal id goes to the cluster, which does not know it.
	r := mustRun(t, c, 1, "lag", strings.Repeat("h", admin.MaxGroupLen))
	if !strings.HasSuffix(r.stderr, ": group does not exist\n") || len(r.stderr) > 400 {
		t.Errorf("lag of a 32767-byte group: %s", safetext.Arg(r.stderr))
	}

	long := strings.Repeat("c", 300)
	r = mustRun(t, c, 2, "--client-id", long, "groups")
	if strings.Contains(r.stderr, long[:100]) || !strings.Contains(r.stderr, "--client-id") || !strings.Contains(r.stderr, "300 bytes") {
		t.Errorf("--client-id: %q", r.stderr)
	}
	props := filepath.Join(t.TempDir(), "client.properties")
	if err := os.WriteFile(props, []byte("client.id="+long+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r = mustRun(t, c, 2, "--command-config", props, "groups")
	if strings.Contains(r.stderr, long[:100]) || !strings.Contains(r.stderr, "300 bytes") {
		t.Errorf("client.id from --command-config: %q", r.stderr)
	}
	mustRun(t, c, 0, "--client-id", strings.Repeat("c", 256), "groups")
}

// TestResetUndoLineOnlyForWhatWasApplied: when the broker refuses every
// commit of a group (a consumer joined between the check and the commit:
// UNKNOWN_MEMBER_ID), nothing changed, so no undo command is printed; with
// two groups of which one was refused, the undo names only the other.
func TestResetUndoLineOnlyForWhatWasApplied(t *testing.T) {
	c := testkit.New(t)
	if c.Fake == nil {
		t.Skip("refusing a commit needs kfake's ControlKey")
	}
	topic := c.Topic(2, nil)
	c.Produce(topic, map[int32]int{0: 10, 1: 10}, time.Time{})
	refused, ok := testkit.Name(t, "g-refused"), testkit.Name(t, "g-ok")
	for _, g := range []string{refused, ok} {
		c.Commit(g, topic, map[int32]int64{0: 3, 1: 4})
	}
	c.Fake.ControlKey(kmsg.OffsetCommit.Int16(), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.Fake.KeepControl()
		r := req.(*kmsg.OffsetCommitRequest)
		if r.Group != refused {
			return nil, nil, false
		}
		resp := r.ResponseKind().(*kmsg.OffsetCommitResponse)
		for _, rt := range r.Topics {
			st := kmsg.NewOffsetCommitResponseTopic()
			st.Topic = rt.Topic
			for _, rp := range rt.Partitions {
				sp := kmsg.NewOffsetCommitResponseTopicPartition()
				sp.Partition = rp.Partition
				sp.ErrorCode = kerr.UnknownMemberID.Code
				st.Partitions = append(st.Partitions, sp)
			}
			resp.Topics = append(resp.Topics, st)
		}
		return resp, nil, true
	})
	// reset --execute commits in a transaction (issue 9): refuse the
	// refused group's TxnOffsetCommit the same way.
	c.Fake.ControlKey(kmsg.TxnOffsetCommit.Int16(), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.Fake.KeepControl()
		r := req.(*kmsg.TxnOffsetCommitRequest)
		if r.Group != refused {
			return nil, nil, false
		}
		resp := r.ResponseKind().(*kmsg.TxnOffsetCommitResponse)
		for _, rt := range r.Topics {
			st := kmsg.NewTxnOffsetCommitResponseTopic()
			st.Topic, st.TopicID = rt.Topic, rt.TopicID
			for _, rp := range rt.Partitions {
				sp := kmsg.NewTxnOffsetCommitResponseTopicPartition()
				sp.Partition = rp.Partition
				sp.ErrorCode = kerr.UnknownMemberID.Code
				st.Partitions = append(st.Partitions, sp)
			}
			resp.Topics = append(resp.Topics, st)
		}
		return resp, nil, true
	})
	dir := t.TempDir()
	r := mustRun(t, c, 1, "reset", refused, "--topic", topic, "--to", "latest", "--execute", "--backup", filepath.Join(dir, "one.csv"))
	if strings.Contains(r.stderr, "undo:") || !strings.Contains(r.stderr, "nothing was committed, so there is nothing to undo") {
		t.Fatalf("stderr: %s", r.stderr)
	}
	backup := filepath.Join(dir, "two.csv")
	r = mustRun(t, c, 1, "reset", refused, ok, "--topic", topic, "--to", "latest", "--execute", "--backup", backup)
	if !strings.Contains(r.stderr, "(undo: "+printedBy(c)+" reset "+ok+" --to file:"+backup+" --execute)") {
		t.Fatalf("stderr: %s", r.stderr)
	}
	if got := c.Committed(refused)[topic]; got[0] != 3 || got[1] != 4 {
		t.Fatalf("refused group moved: %v", got)
	}
	if got := c.Committed(ok)[topic]; got[0] != 10 || got[1] != 10 {
		t.Fatalf("group %s: %v, want 10 10", ok, got)
	}
	// The undo, as printed, restores the group that was reset.
	mustRun(t, nil, 0, append(undoArgs(t, r.stderr), "--backup", backup+".undo")...)
	if got := c.Committed(ok)[topic]; got[0] != 3 || got[1] != 4 {
		t.Fatalf("after the undo: %v", got)
	}
}

// TestReplayEmptyFromRefused: --from ” and --from 0= were read silently
// as earliest (a whole-topic replay); they are bad input, like --until 0=.
func TestReplayEmptyFromRefused(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(2, nil)
	for _, from := range []string{"", " ", "0=", "0=5,1="} {
		r := mustRun(t, c, 2, "replay", topic, "--from", from, "--format", "none")
		if !strings.Contains(r.stderr, "--from") || !strings.Contains(r.stderr, "empty") || r.stdout != "" {
			t.Errorf("--from %q: %q", from, r.stderr)
		}
	}
	badInput(t, c, `--until "0=": partition 0 has no end`, "replay", topic, "--until", "0=", "--format", "none")
}

// TestLongErrorLinesCut: whatever a message quotes, the error line stays
// bounded: an argument is never echoed whole.
func TestLongErrorLinesCut(t *testing.T) {
	huge := strings.Repeat("x", 100_000)
	for _, args := range [][]string{
		{"replay", "t", "--from", huge},
		{"reset", "g", "--to", huge, "--all-topics"},
		{"lag", "g", "--topic", huge},
		{"--brokers", huge, "groups"},
		{"-o", huge, "groups"},
	} {
		r := offsetctl(t, nil, args...)
		if r.code != 2 || len(r.stderr) > 2200 || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("%s: exit %d, %d bytes of stderr: %s", args[0], r.code, len(r.stderr), safetext.Arg(r.stderr))
		}
	}
}

// TestReplayIllegalTopicNameRefused: a replay or backfill of a name Kafka
// cannot hold as a topic is bad input (exit 2, one line naming the rule,
// the name cut), before any request. On Apache Kafka 4.4 the broker
// answered INVALID_TOPIC_EXCEPTION (exit 1), and for a 40,000-byte name
// closed the connection, reported as "is SASL missing?" (exit 1).
func TestReplayIllegalTopicNameRefused(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(1, nil)
	long := strings.Repeat("t", 40_000)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"replay", "bad name"}, `topic bad name: topic name has illegal character ' '`},
		{[]string{"replay", "evil\x1b[31m"}, `topic "evil\x1b[31m": topic name has illegal character '\x1b'`},
		{[]string{"replay", ".."}, `topic ..: topic name cannot be ".."`},
		{[]string{"replay", strings.Repeat("t", 250)}, "topic name longer than 249 characters"},
		{[]string{"replay", long}, "(40000 bytes): topic name longer than 249 characters"},
		{[]string{"replay", topic, "--produce-to", "a/b"}, `--produce-to "a/b": topic name has illegal character '/'`},
	} {
		r := offsetctl(t, c, append(tc.args, "--format", "none")...)
		if r.code != 2 || !strings.Contains(r.stderr, tc.want) || strings.Count(r.stderr, "\n") != 1 || len(r.stderr) > 400 || r.stdout != "" {
			t.Errorf("%s: exit %d, stdout %d bytes, stderr %s; want exit 2 and %q", safetext.Arg(strings.Join(tc.args, " ")), r.code, len(r.stdout), safetext.Arg(r.stderr), tc.want)
		}
	}
	// The longest legal name goes to the cluster, which does not know it.
	r := offsetctl(t, c, "replay", strings.Repeat("t", 249), "--format", "none")
	if r.code != 2 || !strings.Contains(r.stderr, "does not exist") {
		t.Errorf("a 249-byte topic: exit %d, %s", r.code, safetext.Arg(r.stderr))
	}
	// Extra arguments are quoted and cut, as every command's are.
	r = offsetctl(t, c, "replay", topic, long, "--format", "none")
	if r.code != 2 || strings.Contains(r.stderr, long[:300]) || !strings.Contains(r.stderr, "got 2 arguments ("+topic+" ttt") || !strings.Contains(r.stderr, "(40000 bytes)") {
		t.Errorf("replay with two arguments: exit %d, %s", r.code, safetext.Arg(r.stderr))
	}
}

// --client-id, client.id in --command-config and client_id in a profile
// with a control character are refused before any request, exit 2, the
// value not echoed, as --transactional-id-prefix is. Blanks and quotes are
// kept, as Kafka's Java clients keep them.
func TestClientIDControlCharactersRefused(t *testing.T) {
	const want = "the client id must be UTF-8 text with no control characters\n"
	props := filepath.Join(t.TempDir(), "client.properties")
	if err := os.WriteFile(props, []byte("client.id=ev\\u001b[31m\\n\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"--client-id", "ev\x1b[31m\n", "groups"}, "offsetctl: --client-id: " + want},
		{[]string{"--client-id", "bidi\u202e", "groups"}, "offsetctl: --client-id: " + want},
		{[]string{"--command-config", props, "groups"}, "offsetctl: " + strings.TrimSuffix(want, "\n") + " (client.id in --command-config, client_id in the profile, or --client-id)\n"},
	} {
		r := offsetctl(t, nil, append([]string{"-b", "127.0.0.1:9"}, tc.args...)...)
		if r.code != 2 || r.stderr != tc.stderr || r.stdout != "" {
			t.Errorf("%q: exit %d, stderr %q; want exit 2, %q", tc.args, r.code, r.stderr, tc.stderr)
		}
	}
}

// TestLongArgumentKeepsReason: a 5,000-byte argument is cut to its first
// 256 bytes and its length, wherever the message quotes it, and the
// reason after it is kept (QA: the whole line was cut after 2 KB, inside
// the argument, so the reason was lost). A hostile audit id is quoted as
// typed, not upper-cased.
func TestLongArgumentKeepsReason(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(1, nil)
	log := filepath.Join(t.TempDir(), "audit.jsonl")
	if err := os.WriteFile(log, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("A", 5000)
	head := `"` + long[:256] + `"... (5000 bytes)`
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"lag", "g", "--topic", long}, "--topic " + head + ": topic name longer than 249 characters"},
		{[]string{"reset", "g", "--topic", topic, "--to", long}, "--to " + head + ": want earliest, latest, current, an offset N, shift:+N, shift:-N, time:TIME, ago:DURATION, file:PLAN.csv, group:NAME or translated:ALIAS"},
		{[]string{"reset", "g", "--topic", topic, "--to", "time:" + long}, `--to "time:` + long[:251] + `"... (5005 bytes): time "` + long[:256] + `"... (5000 bytes): want RFC 3339 (2026-11-30T10:00:00Z), YYYY-MM-DD[THH:MM[:SS[.sss]]] (UTC unless a zone follows) or unix milliseconds`},
		{[]string{"reset", "g", "--topic", topic, "--to", "ago:" + long}, `--to "ago:` + long[:252] + `"... (5004 bytes): duration "` + long[:256] + `"... (5000 bytes): want a Go duration (90m, 1h30m), days (3d, 1d12h) or ISO-8601 (PT90M, P1DT2H)`},
		{[]string{"replay", topic, "--from", long}, "--from " + head + ": want earliest, an offset ≥ 0, time:T or ago:D"},
		{[]string{"replay", topic, "--partitions", long}, "--partitions " + head + " is not a non-negative integer"},
		{[]string{"--audit-log", log, "history", "--since", long}, "--since " + head + ": want a duration (24h, 3d, PT90M) or a time (2026-11-30T10:00:00Z, 2026-11-30, unix ms)"},
		{[]string{"--audit-log", log, "history", "--verify", long}, "--verify: no audit entry " + head},
		{[]string{"--audit-log", log, "undo", long}, "no audit entry " + head},
		{[]string{"--audit-log", log, "history", "--verify", "EV\x1b[31mIL X Y\aZ"}, `--verify: no audit entry "EV\x1b[31mIL X Y\aZ"`},
		{[]string{"--audit-log", log, "undo", "EV\x1b[31mIL X Y\aZ"}, `no audit entry "EV\x1b[31mIL X Y\aZ"`},
		{[]string{"snapshot", long, "--out", filepath.Join(t.TempDir(), "s.csv")}, "no snapshot written: no such group: " + long[:256] + "... (5000 bytes)"},
		{[]string{long}, "unknown command " + head + " (offsetctl --help lists the commands)"},
	} {
		r := offsetctl(t, c, tc.args...)
		if want := "offsetctl: " + tc.want + "\n"; r.code != 2 || r.stderr != want {
			t.Errorf("%s: exit %d, stderr\n%s\nwant exit 2,\n%s", safetext.Arg(strings.Join(tc.args, " ")), r.code, safetext.Arg(r.stderr), want)
		}
	}
}

// TestLongPathKeepsReason: a 5,000-byte --backup path is cut in the error
// line as an argument is cut, and the reason after it is kept (it was cut
// only at the whole-line cap, at 2 KB, before the reason). A name too
// long is the path's fault: bad input, exit 2, before any request (it was
// exit 1 once the backup was written).
func TestLongPathKeepsReason(t *testing.T) {
	f := newResetFixture(t)
	g := f.group(t)
	path := filepath.Join(t.TempDir(), strings.Repeat("p", 5000)+".csv")
	r := mustRun(t, f.c, 2, "reset", g, "--topic", f.topic, "--to", "earliest", "--execute", "--backup", path)
	last := lastLine(r.stderr)
	if len(last) > 600 || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(last, "--backup ") || !strings.Contains(last, " bytes) cannot be created: file name too long") {
		t.Errorf("last line (%d bytes): %.700q; want under 600 bytes with the reason", len(last), last)
	}
	assertCommitted(t, f.c, g, f.topic, map[int32]int64{0: 4, 1: 6}) // as the fixture committed: nothing changed
}
