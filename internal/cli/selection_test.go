package cli

import (
	"encoding/csv"
	"os"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetctl/offsetctl/internal/admin"
	"github.com/offsetctl/offsetctl/internal/audit"
	"github.com/offsetctl/offsetctl/internal/exitcode"
	"github.com/offsetctl/offsetctl/internal/testkit"
	"github.com/offsetctl/offsetctl/report"
)

// patternGroups commits {0:4, 1:6} for groups PREFIX-a, -b, -skip and -live
// (a consumer stays joined to -live), and for one group outside the
// prefix. It returns the prefix as an RE2 literal.
func patternGroups(t *testing.T, f *resetFixture) (prefix string, names map[string]string) {
	t.Helper()
	base := testkit.Name(t, "rx")
	names = map[string]string{"other": testkit.Name(t, "other")}
	for _, k := range []string{"a", "b", "skip", "live"} {
		names[k] = base + "-" + k
	}
	for _, g := range names {
		f.c.Commit(g, f.topic, map[int32]int64{0: 4, 1: 6})
	}
	f.c.Consumer(names["live"], f.topic, false, kgo.DisableAutoCommit())
	return regexp.QuoteMeta(base), names
}

// reset -r PATTERN --exclude RE moves the matching inactive groups only:
// the excluded group, the group outside the pattern and the live group
// (skipped and listed, as with --all-groups) keep their offsets on the
// broker. A pattern that matches nothing is exit 2.
func TestResetRegexExclude(t *testing.T) {
	f := newResetFixture(t)
	prefix, g := patternGroups(t, f)
	r := mustRun(t, f.c, 1, "reset", "-r", prefix+"-.*", "--exclude", ".*-skip", "--topic", f.topic+":0",
		"--to", "earliest", "--execute", "--backup", f.backup("rx.csv")) // the live group: not reset
	if !strings.Contains(lastLine(r.stderr), "1 group skipped as live, not reset: "+g["live"]) {
		t.Errorf("the last line does not name the live group: %q", lastLine(r.stderr))
	}
	assertCommitted(t, f.c, g["a"], f.topic, map[int32]int64{0: 0, 1: 6})
	assertCommitted(t, f.c, g["b"], f.topic, map[int32]int64{0: 0, 1: 6})
	for _, k := range []string{"skip", "live", "other"} {
		assertCommitted(t, f.c, g[k], f.topic, map[int32]int64{0: 4, 1: 6})
	}
	if !strings.Contains(r.stderr, "skipping group "+g["live"]) {
		t.Errorf("the live group is not listed as skipped: stderr = %q", r.stderr)
	}
	r = mustRun(t, f.c, 2, "reset", "-r", prefix+"-nothing", "--all-topics", "--to", "earliest", "--execute")
	if !strings.Contains(r.stderr, "no consumer group matches") {
		t.Errorf("no-match stderr = %q", r.stderr)
	}
	mustRun(t, f.c, 2, "reset", "-r", prefix+"-.*", "--all-groups", "--all-topics", "--to", "earliest")
}

// delete-group -r PATTERN --exclude RE deletes the matching inactive
// groups only; the live one is skipped with a warning, never attempted.
func TestDeleteGroupRegexExclude(t *testing.T) {
	f := newResetFixture(t)
	prefix, g := patternGroups(t, f)
	backup := f.backup("del.csv")
	r := mustRun(t, f.c, 1, "delete-group", "-r", prefix+"-.*", "--exclude", ".*-skip", "--execute", "--backup", backup) // the live one: not deleted
	if want := "offsetctl: 1 group skipped as live, not deleted: " + g["live"] + "; stop their consumers and run again for them"; lastLine(r.stderr) != want {
		t.Errorf("last line %q, want %q", lastLine(r.stderr), want)
	}
	assertCommitted(t, f.c, g["a"], f.topic, map[int32]int64{})
	assertCommitted(t, f.c, g["b"], f.topic, map[int32]int64{})
	for _, k := range []string{"skip", "live", "other"} {
		assertCommitted(t, f.c, g[k], f.topic, map[int32]int64{0: 4, 1: 6})
	}
	if !strings.Contains(r.stderr, "skipping: group "+g["live"]+" can only be deleted if the group is inactive") {
		t.Errorf("the live group is not listed as skipped, in delete's words: stderr = %q", r.stderr)
	}
	// The backup restores both deleted groups exactly.
	mustRun(t, f.c, 0, "reset", "--to", "file:"+backup, "--execute", "--backup", f.backup("undo.csv"))
	assertCommitted(t, f.c, g["a"], f.topic, map[int32]int64{0: 4, 1: 6})
	assertCommitted(t, f.c, g["b"], f.topic, map[int32]int64{0: 4, 1: 6})
	r = mustRun(t, f.c, 2, "delete-group", "-r", prefix+"-nothing", "--execute")
	if !strings.Contains(r.stderr, "matches the --regex/--exclude selection") {
		t.Errorf("no-match stderr = %q", r.stderr)
	}
	// Nothing matched at all: no "inactive" group, which read as if live
	// ones had matched (QA finding).
	badInput(t, f.c, "offsetctl: no consumer group matches the --regex/--exclude selection (GROUP pattern "+prefix+"-old-.* matched no group): nothing to do",
		"delete-group", "-r", prefix+"-old-.*", "--exclude", prefix+"-old-audit", "--execute")
}

// snapshot -r PATTERN --exclude RE saves exactly the matching groups (live
// ones too: a snapshot changes nothing), and the file restores them.
func TestSnapshotRegexExclude(t *testing.T) {
	f := newResetFixture(t)
	prefix, g := patternGroups(t, f)
	out := f.backup("snap.csv")
	var sr report.SnapshotResult
	decodeJSON(t, mustRun(t, f.c, 0, "snapshot", "-r", prefix+"-.*", "--exclude", ".*-skip", "--out", out, "-o", "json"), &sr)
	var got []string
	for _, sg := range sr.Groups {
		got = append(got, sg.Group)
	}
	sort.Strings(got)
	want := []string{g["a"], g["b"], g["live"]}
	sort.Strings(want)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("snapshot groups = %v, want %v", got, want)
	}
	// Restoring the snapshot after a move puts a and b back exactly; the
	// excluded group, not in the file, keeps what it has.
	mustRun(t, f.c, 0, "reset", g["a"], g["skip"], "--all-topics", "--to", "latest", "--execute", "--backup", f.backup("r.csv"))
	mustRun(t, f.c, 0, "reset", g["a"], "--to", "file:"+out, "--execute", "--backup", f.backup("u.csv"))
	assertCommitted(t, f.c, g["a"], f.topic, map[int32]int64{0: 4, 1: 6})
	assertCommitted(t, f.c, g["skip"], f.topic, map[int32]int64{0: 10, 1: 10})
}

// delete-offsets -r PATTERN --exclude RE deletes the scoped offsets of the
// matching groups only. The live group (consuming the topic: the broker
// would refuse it) is skipped and listed, a matching group with no
// offsets on the topic is left out, and one backup restores every group
// exactly. The dry run reports {"groups": [...]} and changes nothing.
func TestDeleteOffsetsRegexExclude(t *testing.T) {
	f := newResetFixture(t)
	prefix, g := patternGroups(t, f)
	elsewhere := f.c.Topic(1, nil)
	f.c.Commit(g["a"], elsewhere, map[int32]int64{0: 0})
	noOffsets := strings.TrimSuffix(g["a"], "-a") + "-c"
	f.c.Commit(noOffsets, elsewhere, map[int32]int64{0: 0})
	sel := []string{"-r", prefix + "-.*", "--exclude", ".*-skip", "--topic", f.topic + ":0"}

	var dry report.DeleteOffsetsJSON
	r := mustRun(t, f.c, 1, append([]string{"delete-offsets", "-o", "json"}, sel...)...) // the live group: --execute would not delete its offsets
	decodeJSON(t, r, &dry)
	var planned []string
	for _, p := range dry.Groups {
		if p.Skipped != "" {
			// Listed, as reset lists the groups it skips, and left alone.
			if p.Group != g["live"] || len(p.Partitions) != 1 || !strings.HasPrefix(p.Partitions[0].Status, "skipped: live members") {
				t.Errorf("skipped %s: %+v, want only the live group, its row skipped", p.Group, p)
			}
			continue
		}
		planned = append(planned, p.Group)
		if len(p.Partitions) != 1 || p.Partitions[0].Topic != f.topic || p.Partitions[0].Partition != 0 ||
			p.Partitions[0].Current == nil || *p.Partitions[0].Current != 4 || p.Partitions[0].Status != "would delete" {
			t.Errorf("dry run of %s: %+v, want %s/0 at 4, would delete", p.Group, p.Partitions, f.topic)
		}
	}
	if want := []string{g["a"], g["b"]}; !reflect.DeepEqual(planned, want) {
		t.Fatalf("dry run plans %v, want %v", planned, want)
	}
	// Whole lines: the remarks about the selection carry the offsetctl:
	// prefix, as every diagnostic line does.
	if want := "offsetctl: warning: skipping: group " + g["live"] + " has live members consuming these topics (stop them first)\n" +
		"offsetctl: note: 1 selected group(s) have no committed offsets on these topics\n" +
		"dry run: nothing changed. Add --execute to delete these offsets.\n" +
		"offsetctl: --execute would leave 1 group live and unchanged: " + g["live"] + "; stop their consumers first, or leave them out with --exclude\n"; r.stderr != want {
		t.Errorf("dry run stderr = %q, want %q", r.stderr, want)
	}
	assertCommitted(t, f.c, g["a"], f.topic, map[int32]int64{0: 4, 1: 6})

	backup := f.backup("do.csv")
	r = mustRun(t, f.c, 1, append([]string{"delete-offsets", "--execute", "--backup", backup}, sel...)...)
	if want := "offsetctl: 1 group skipped as live, not deleted: " + g["live"] + "; stop their consumers and run again for them"; lastLine(r.stderr) != want {
		t.Errorf("last line %q, want %q", lastLine(r.stderr), want)
	}
	for _, k := range []string{"a", "b"} {
		assertCommitted(t, f.c, g[k], f.topic, map[int32]int64{1: 6})
		if !strings.Contains(r.stderr, "undo of group "+g[k]+": "+printedBy(f.c)+" reset "+g[k]+" --to ") {
			t.Errorf("no undo line for %s: %q", g[k], r.stderr)
		}
	}
	for _, k := range []string{"skip", "live", "other"} {
		assertCommitted(t, f.c, g[k], f.topic, map[int32]int64{0: 4, 1: 6})
	}
	if rows := strings.Count(r.stdout, "deleted"); rows != 2 {
		t.Errorf("table has %d deleted rows, want 2:\n%s", rows, r.stdout)
	}
	mustRun(t, f.c, 0, "reset", g["a"], g["b"], "--to", "file:"+backup, "--execute", "--backup", f.backup("undo.csv"))
	for _, k := range []string{"a", "b"} {
		assertCommitted(t, f.c, g[k], f.topic, map[int32]int64{0: 4, 1: 6})
	}
	r = mustRun(t, f.c, 2, "delete-offsets", "-r", prefix+"-nothing", "--topic", f.topic, "--execute")
	if !strings.Contains(r.stderr, "matches the --regex/--exclude selection") {
		t.Errorf("no-match stderr = %q", r.stderr)
	}
	mustRun(t, f.c, 2, "delete-offsets", g["a"], "--exclude", ".*", "--topic", f.topic)
}

// The selection's patterns match whole names, '.' matching a line break
// too; an expression that would break out of the anchoring is refused;
// errors never echo a pattern (a long one is not checked as a name).
func TestSelectionPatterns(t *testing.T) {
	match := func(args []string, name string) bool {
		t.Helper()
		sel, err := groupSelect{regex: true}.resolve(args, false)
		if err != nil {
			t.Fatalf("resolve(%q): %v", args, err)
		}
		return sel.Match(name)
	}
	for _, tc := range []struct {
		pattern, name string
		want          bool
	}{
		{".*", "nl\nline", true},
		{"nl.line", "nl\nline", true},
		{"orders-.*", "orders-billing", true},
		{"orders", "orders-billing", false}, // whole names only
		{"a|b", "ab", false},
		{"a|b", "b", true},
	} {
		if got := match([]string{tc.pattern}, tc.name); got != tc.want {
			t.Errorf("-r %q on %q = %v, want %v", tc.pattern, tc.name, got, tc.want)
		}
	}
	long := strings.Repeat("x", 40000)
	for _, args := range [][]string{{"a)|(b"}, {long}, {"("}} {
		_, err := groupSelect{regex: true}.resolve(args, false)
		if err == nil || exitcode.Code(err) != exitcode.Usage {
			t.Errorf("-r %.20q: err %v, want exit 2", args[0], err)
			continue
		}
		if strings.Contains(err.Error(), "xxxxxxxx") || strings.Contains(err.Error(), "a)|(b") {
			t.Errorf("-r %.20q: the error echoes the pattern: %v", args[0], err)
		}
	}
	// A long pattern is a pattern, not a name: 300 bytes is fine.
	if _, err := (groupSelect{regex: true}).resolve([]string{strings.Repeat("a", 300) + ".*"}, false); err != nil {
		t.Errorf("a 302-byte pattern: %v", err)
	}
}

// A group whose name has a line break cannot be backed up (CSV): a
// pattern or --all-groups selection of delete-offsets, delete-group and
// snapshot skips it with a warning and changes the others, as reset
// --all-groups does; its offsets stay on the broker.
func TestSelectionSkipsLineBreakNames(t *testing.T) {
	f := newResetFixture(t)
	base := testkit.Name(t, "nl")
	plain, broken := base+"-a", base+"-b\nx"
	for _, g := range []string{plain, broken} {
		f.c.Commit(g, f.topic, map[int32]int64{0: 4})
	}
	pattern := regexp.QuoteMeta(base) + "-.*"
	r := mustRun(t, f.c, 0, "snapshot", "-r", pattern, "--out", f.backup("snap.csv"))
	if !strings.Contains(r.stderr, "skipping group") || !strings.Contains(r.stderr, "line break") {
		t.Errorf("snapshot stderr %q, want the line-break group skipped", r.stderr)
	}
	// Listed in the JSON as skipped, not only warned about: a reader of
	// stdout alone sees it was left out.
	const why = "a name with a line break cannot be backed up"
	var rp []admin.GroupPlan
	decodeJSON(t, mustRun(t, f.c, 0, "reset", "-r", pattern, "--topic", f.topic, "--to", "earliest", "-o", "json"), &rp)
	if len(rp) != 2 || rp[1].Group != broken || rp[1].Note != "skipped: "+why || len(rp[1].Partitions) != 0 {
		t.Errorf("reset -r plans %+v: want the line-break group listed as skipped", rp)
	}
	// Only that group selected: nothing to reset, and it says why (the
	// group has a commit in scope: "no partition in scope" was wrong).
	r = mustRun(t, f.c, 0, "reset", "-r", regexp.QuoteMeta(broken), "--topic", f.topic, "--to", "earliest", "--execute", "--backup", f.backup("nl.csv"))
	if !strings.Contains(r.stderr, "nothing to reset: every selected group with something in scope was skipped (see the warnings above)") {
		t.Errorf("reset of the line-break group alone: stderr %q", r.stderr)
	}
	var dj report.DeleteOffsetsJSON
	decodeJSON(t, mustRun(t, f.c, 0, "delete-offsets", "-r", pattern, "--topic", f.topic, "-o", "json"), &dj)
	if len(dj.Groups) != 2 || dj.Groups[1].Group != broken || dj.Groups[1].Skipped != why {
		t.Errorf("delete-offsets -r plans %+v: want the line-break group listed as skipped", dj.Groups)
	}
	var dgj struct {
		Groups []admin.DeleteGroupRow `json:"groups"`
	}
	decodeJSON(t, mustRun(t, f.c, 0, "delete-group", "-r", pattern, "-o", "json"), &dgj)
	if dg := dgj.Groups; len(dg) != 2 || dg[1].Group != broken || dg[1].Status != "skipped" || dg[1].Skipped != why {
		t.Errorf("delete-group -r rows %+v: want the line-break group listed as skipped", dgj.Groups)
	}
	r = mustRun(t, f.c, 0, "delete-offsets", "-r", pattern, "--topic", f.topic, "--execute", "--backup", f.backup("do.csv"))
	if !strings.Contains(r.stderr, "skipping group") {
		t.Errorf("delete-offsets stderr %q, want the line-break group skipped", r.stderr)
	}
	assertCommitted(t, f.c, plain, f.topic, map[int32]int64{})
	assertCommitted(t, f.c, broken, f.topic, map[int32]int64{0: 4})
	f.c.Commit(plain, f.topic, map[int32]int64{0: 4})
	mustRun(t, f.c, 0, "delete-group", "-r", pattern, "--execute", "--backup", f.backup("dg.csv"))
	assertCommitted(t, f.c, plain, f.topic, map[int32]int64{})
	assertCommitted(t, f.c, broken, f.topic, map[int32]int64{0: 4})
	r = mustRun(t, f.c, 2, "snapshot", "-r", regexp.QuoteMeta(base)+"-nothing", "--out", f.backup("none.csv"))
	if !strings.Contains(r.stderr, "matches the --regex/--exclude selection") {
		t.Errorf("snapshot of no match: stderr %q", r.stderr)
	}
}

// TestDeleteSelectionAllLive: delete-offsets and delete-group selections
// whose every group is live send nothing and fail (exit 1, not the exit 2
// of "no group matches": the groups match, they are live), naming the
// groups; the dry run fails the same way; the --execute is recorded as
// refused with the groups, and nothing was deleted.
func TestDeleteSelectionAllLive(t *testing.T) {
	f := newResetFixture(t)
	prefix, g1, g2 := liveGroups(t, f)
	both := g1 + ", " + g2
	for i, tc := range []struct {
		args      []string
		dry, exec string
	}{
		{[]string{"delete-offsets", "-r", prefix + "-.*", "--topic", f.topic},
			"offsetctl: every selected group with offsets on these topics is live: --execute would delete nothing (2 groups skipped: " + both + "); stop their consumers first",
			"offsetctl: nothing was deleted: every selected group with offsets on these topics is live (2 groups skipped: " + both + "); stop their consumers first"},
		{[]string{"delete-group", "-r", prefix + "-.*"},
			"offsetctl: every selected group is live: --execute would delete nothing (2 groups skipped: " + both + "); stop their consumers first",
			"offsetctl: nothing was deleted: every selected group is live (2 groups skipped: " + both + "); stop their consumers first"},
	} {
		r := mustRun(t, f.c, 1, tc.args...)
		if got := lastLine(r.stderr); got != tc.dry {
			t.Errorf("%s dry run, last line:\n%s\nwant:\n%s", tc.args[0], got, tc.dry)
		}
		r = mustRun(t, f.c, 1, append(tc.args, "--execute", "--backup", f.backup(tc.args[0]+".csv"))...)
		if got := lastLine(r.stderr); got != tc.exec {
			t.Errorf("%s --execute, last line:\n%s\nwant:\n%s", tc.args[0], got, tc.exec)
		}
		for _, g := range []string{g1, g2} {
			assertCommitted(t, f.c, g, f.topic, map[int32]int64{0: 4, 1: 6})
		}
		es := historyOf(t)
		if len(es) != i+1 {
			t.Fatalf("%d audit entries after %s, want %d", len(es), tc.args[0], i+1)
		}
		e := es[len(es)-1]
		if e.Action != tc.args[0] || e.Outcome != audit.Refused || e.ExitCode != 1 || !slices.Equal(e.Groups, []string{g1, g2}) || entryCount(e.Applied) != 0 {
			t.Errorf("audit entry: %s, outcome %q, exit %d, groups %v, applied %d; want %s, refused, 1, [%s %s], 0", e.Action, e.Outcome, e.ExitCode, e.Groups, entryCount(e.Applied), tc.args[0], g1, g2)
		}
	}
	// delete-group's rows of the skipped groups say what they hold.
	var dgj struct {
		Groups []admin.DeleteGroupRow `json:"groups"`
	}
	decodeJSON(t, mustRun(t, f.c, 1, "delete-group", "-r", prefix+"-.*", "-o", "json"), &dgj)
	if len(dgj.Groups) != 2 || dgj.Groups[0].Status != "skipped" || dgj.Groups[0].Commits != 2 || dgj.Groups[0].Members != 1 {
		t.Errorf("delete-group rows %+v: want both skipped, with 2 commits and 1 member each", dgj.Groups)
	}
}

// TestSelectionWarnsUnmatchedPattern: with several GROUP patterns, one
// that matches no group (a typo) is named on stderr, while the others'
// groups are changed as asked; a pattern whose groups were all excluded
// did match and is not named.
func TestSelectionWarnsUnmatchedPattern(t *testing.T) {
	f := newResetFixture(t)
	prefix, g := patternGroups(t, f)
	typo := regexp.QuoteMeta(prefix) + "-nosuch"
	skipOnly := regexp.QuoteMeta(g["skip"])
	warn := func(p string) string { return "offsetctl: warning: GROUP pattern " + p + " matched no group\n" }
	for _, args := range [][]string{
		{"reset", "-r", regexp.QuoteMeta(g["a"]), typo, skipOnly, "--exclude", ".*-skip", "--topic", f.topic, "--to", "earliest"},
		{"delete-offsets", "-r", regexp.QuoteMeta(g["a"]), typo, skipOnly, "--exclude", ".*-skip", "--topic", f.topic},
		{"delete-group", "-r", regexp.QuoteMeta(g["a"]), typo, skipOnly, "--exclude", ".*-skip"},
		{"snapshot", "-r", regexp.QuoteMeta(g["a"]), typo, skipOnly, "--exclude", ".*-skip", "--out", f.backup("unmatched.csv")},
		{"lag", "-r", regexp.QuoteMeta(g["a"]), typo, skipOnly, "--exclude", ".*-skip"},
	} {
		r := mustRun(t, f.c, 0, args...)
		if strings.Count(r.stderr, "matched no group") != 1 || !strings.Contains(r.stderr, warn(typo)) {
			t.Errorf("%s stderr:\n%s\nwant one warning naming %s", args[0], r.stderr, typo)
		}
		if !strings.Contains(r.stdout, g["a"]) {
			t.Errorf("%s stdout does not list %s:\n%s", args[0], g["a"], r.stdout)
		}
	}
}

// TestSelectionNoMatchIsOneLine (QA): a pattern selection that matches
// no group is bad input, and bad input is one line: the error names the
// patterns that matched nothing, with no "matched no group" warning before
// it (reset, delete-offsets, delete-group and snapshot printed one warning
// per pattern, then the error). A pattern that did match, its groups all
// excluded, is not named. Nothing is changed, written or recorded.
func TestSelectionNoMatchIsOneLine(t *testing.T) {
	f := newResetFixture(t)
	g := f.group(t)
	typo, typo2 := regexp.QuoteMeta(testkit.Name(t, "zzz")), regexp.QuoteMeta(testkit.Name(t, "yyy"))
	tests := []struct {
		name     string
		patterns []string
		extra    []string
		want     string
	}{
		{"one pattern", []string{typo}, nil, "(GROUP pattern " + typo + " matched no group): nothing to do"},
		{"two patterns", []string{typo, typo2}, nil, "(GROUP patterns " + typo + "," + typo2 + " matched no group): nothing to do"},
		{"one excluded, one unmatched", []string{regexp.QuoteMeta(g), typo}, []string{"--exclude", ".*"}, "(GROUP pattern " + typo + " matched no group): nothing to do"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := f.backup(strings.ReplaceAll(tc.name, " ", "-") + ".csv")
			for _, cmd := range [][]string{
				append(append([]string{"reset", "-r"}, tc.patterns...), "--topic", f.topic, "--to", "earliest", "--execute"),
				append(append([]string{"delete-offsets", "-r"}, tc.patterns...), "--topic", f.topic, "--execute"),
				append(append([]string{"delete-group", "-r"}, tc.patterns...), "--execute"),
				append(append([]string{"snapshot", "-r"}, tc.patterns...), "--out", out),
			} {
				r := badInput(t, f.c, tc.want, append(cmd, tc.extra...)...)
				if !strings.HasPrefix(r.stderr, "offsetctl: no ") || strings.Contains(r.stderr, "warning") {
					t.Errorf("%s: stderr %q, want the error alone", cmd[0], r.stderr)
				}
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("snapshot wrote %s (%v)", out, err)
			}
		})
	}
	if got := f.c.Committed(g)[f.topic]; got[0] != 4 || got[1] != 6 {
		t.Errorf("%s committed %v, want 0:4 1:6 unchanged", g, got)
	}
	if es := auditLines(t); len(es) != 0 {
		t.Errorf("audit log has %d entries, want none", len(es))
	}
}

// TestSelectionNamesPatternOfSkippedKind: a GROUP pattern that matches
// only a Kafka Connect worker group, which the commands that change offsets
// (and snapshot) skip for its kind, is named as such, with the count and
// the kind, not as a typo ("matched no group"); lag, which shows such a
// group, names nothing. Alone, the pattern is still exit 2 (nothing to do),
// one line that names the kind.
func TestSelectionNamesPatternOfSkippedKind(t *testing.T) {
	f := newResetFixture(t)
	g := f.group(t)
	worker := testkit.Name(t, "connect-cluster")
	joinConnectGroup(t, f.c, worker)
	onlyWorker := regexp.QuoteMeta(worker)
	warn := func(verb string) string {
		return "offsetctl: warning: GROUP pattern " + onlyWorker + " matched only groups of a kind " + verb + " skips: 1 Kafka Connect worker group\n"
	}
	for _, args := range [][]string{
		{"reset", "-r", regexp.QuoteMeta(g), onlyWorker, "--topic", f.topic, "--to", "earliest"},
		{"delete-offsets", "-r", regexp.QuoteMeta(g), onlyWorker, "--topic", f.topic},
		{"delete-group", "-r", regexp.QuoteMeta(g), onlyWorker},
		{"snapshot", "-r", regexp.QuoteMeta(g), onlyWorker, "--out", f.backup("kind.csv")},
	} {
		r := mustRun(t, f.c, 0, args...)
		if strings.Contains(r.stderr, "matched no group") || strings.Count(r.stderr, warn(args[0])) != 1 {
			t.Errorf("%s stderr:\n%s\nwant once: %q", args[0], r.stderr, warn(args[0]))
		}
		if !strings.Contains(r.stdout, g) {
			t.Errorf("%s stdout does not list %s:\n%s", args[0], g, r.stdout)
		}
	}
	r := mustRun(t, f.c, 0, "lag", "-r", regexp.QuoteMeta(g), onlyWorker)
	if strings.Contains(r.stderr, "GROUP pattern") || !strings.Contains(r.stdout, worker) {
		t.Errorf("lag shows the worker group and warns of no pattern; stderr:\n%s\nstdout:\n%s", r.stderr, r.stdout)
	}
	// Alone, the kind is said in the one line of the refusal.
	badInput(t, f.c, "offsetctl: no consumer group matches the --regex/--exclude selection (GROUP pattern "+onlyWorker+
		" matched only groups of a kind reset skips: 1 Kafka Connect worker group): nothing to do",
		"reset", "-r", onlyWorker, "--all-topics", "--to", "earliest", "--execute")
}

// TestHistoryGroupSkippedLive: history --group G lists a fleet change
// that skipped G for its live members, but its row says G was skipped, not
// changed (OUTCOME "skipped (live)", no CHANGED count), while a group the
// change did reset reads the change's outcome; JSON and CSV name G in
// skipped_live / SKIPPED-LIVE.
func TestHistoryGroupSkippedLive(t *testing.T) {
	f := newResetFixture(t)
	prefix, g := patternGroups(t, f)
	mustRun(t, f.c, 1, "reset", "-r", prefix+"-.*", "--exclude", ".*-skip", "--topic", f.topic+":0",
		"--to", "earliest", "--execute", "--backup", f.backup("fleet.csv")) // the live group: not reset
	mustRun(t, f.c, 1, "delete-offsets", "-r", prefix+"-.*", "--exclude", ".*-skip", "--topic", f.topic+":1",
		"--execute", "--backup", f.backup("fleet-del.csv"))
	assertCommitted(t, f.c, g["live"], f.topic, map[int32]int64{0: 4, 1: 6})

	rows := func(group string) [][]string {
		t.Helper()
		lines := strings.Split(strings.TrimSpace(mustRun(t, nil, 0, "history", "--group", group).stdout), "\n")
		cols := regexp.MustCompile(`\s{2,}`)
		if h := cols.Split(lines[0], -1); len(h) < 7 || h[3] != "ACTION" || h[5] != "OUTCOME" || h[6] != "CHANGED" {
			t.Fatalf("history header %q", lines[0])
		}
		var out [][]string
		for _, l := range lines[1:] {
			out = append(out, cols.Split(l, -1))
		}
		return out
	}
	live := rows(g["live"])
	if len(live) != 2 {
		t.Fatalf("history --group %s: %d rows, want the reset and the delete-offsets that skipped it: %q", g["live"], len(live), live)
	}
	for i, action := range []string{"reset", "delete-offsets"} {
		if r := live[i]; r[3] != action || r[5] != "skipped (live)" || r[6] != "-" {
			t.Errorf("history --group %s row %d = %q, want %s, skipped (live), -", g["live"], i, r, action)
		}
	}
	for i, r := range rows(g["a"]) {
		if r[5] != "partly" || r[6] != "2/2" {
			t.Errorf("history --group %s row %d = %q, want the change's outcome (partly: a live group skipped) and 2/2 changed", g["a"], i, r)
		}
	}

	es := historyOf(t, "--group", g["live"])
	for _, e := range es {
		if !slices.Contains(e.Groups, g["live"]) || !slices.Equal(e.SkippedLive, []string{g["live"]}) || e.Skipped(g["a"]) {
			t.Errorf("%s entry: groups %v, skipped_live %v; want %s skipped and in groups, %s not skipped", e.Action, e.Groups, e.SkippedLive, g["live"], g["a"])
		}
	}
	recs, err := csv.NewReader(strings.NewReader(mustRun(t, nil, 0, "history", "--group", g["live"], "-o", "csv").stdout)).ReadAll()
	if err != nil || len(recs) != 3 || recs[0][len(recs[0])-1] != "SKIPPED-LIVE" || recs[1][len(recs[1])-1] != g["live"] {
		t.Fatalf("history -o csv: %v %q, want a last column SKIPPED-LIVE naming %s", err, recs, g["live"])
	}
}

// liveGroups makes two groups PREFIX-1 and PREFIX-2 with commits on f's
// topic (4 and 6) and a live consumer each, for the selection tests whose
// every selected group is live.
func liveGroups(t *testing.T, f *resetFixture) (prefix, g1, g2 string) {
	t.Helper()
	prefix = testkit.Name(t, "al")
	g1, g2 = prefix+"-1", prefix+"-2"
	for _, g := range []string{g1, g2} {
		f.c.Commit(g, f.topic, map[int32]int64{0: 4, 1: 6})
		f.c.Consumer(g, f.topic, false, kgo.DisableAutoCommit())
	}
	return prefix, g1, g2
}
