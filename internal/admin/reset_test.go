package admin

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/offsetctl/offsetctl/internal/exitcode"
	"github.com/offsetctl/offsetctl/internal/lag"

	"github.com/twmb/franz-go/pkg/kerr"
)

// resetSnapshot builds a snapshot: topic "t" with partitions 0..2 whose log
// start/end are [10,100), [0,50), [0,0) (empty), and group "g" (Empty) with
// commits t/0=40, t/1=45; group "src" with t/0=20, t/2=0; "live" Stable
// with one member; "live848" a KIP-848 group with one member.
func resetSnapshot() *lag.Snapshot {
	c := func(o int64) lag.Commit { return lag.Commit{Offset: o, LeaderEpoch: -1} }
	return &lag.Snapshot{
		Offsets: lag.TopicOffsets{
			Partitions: map[string]map[int32]lag.PartitionOffsets{
				"t": {0: {Start: 10, End: 100}, 1: {Start: 0, End: 50}, 2: {Start: 0, End: 0}},
				"u": {0: {Start: 0, End: 5}},
			},
			// As ListOffsets words UNKNOWN_TOPIC_OR_PARTITION.
			TopicErr: map[string]error{"gone": lag.DescribeTopicErr("gone", kerr.UnknownTopicOrPartition)},
		},
		Groups: []lag.GroupSnapshot{
			{GroupInfo: lag.GroupInfo{Group: "g", Type: "classic", State: "Empty", Exists: true}, Commits: map[string]map[int32]lag.Commit{"t": {0: c(40), 1: c(45)}}},
			{GroupInfo: lag.GroupInfo{Group: "src", Type: "classic", State: "Empty", Exists: true}, Commits: map[string]map[int32]lag.Commit{"t": {0: c(20), 2: c(0)}}},
			{GroupInfo: lag.GroupInfo{Group: "new", Type: "classic", State: "Dead"}, Commits: map[string]map[int32]lag.Commit{}},
			{GroupInfo: lag.GroupInfo{Group: "live", Type: "classic", State: "Stable", Exists: true, Members: []lag.Member{{ID: "m1"}}}, Commits: map[string]map[int32]lag.Commit{"t": {0: c(40)}}},
			{GroupInfo: lag.GroupInfo{Group: "live848", Type: "consumer", State: "Stable", Exists: true, Members: []lag.Member{{ID: "m1"}, {ID: "m2"}}}, Commits: map[string]map[int32]lag.Commit{}},
			{GroupInfo: lag.GroupInfo{Group: "empty848", Type: "consumer", State: "Empty", Exists: true}, Commits: map[string]map[int32]lag.Commit{}},
		},
	}
}

func resetScope(t *testing.T, v ...string) lag.Scope {
	t.Helper()
	s, err := lag.ParseScope(v)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// planRow renders a partition plan compactly: "t/0 cur→target Δ [note]".
func planRow(pp PartitionPlan) string {
	o := func(p *int64) string {
		if p == nil {
			return "-"
		}
		return fmt.Sprint(*p)
	}
	s := fmt.Sprintf("%s/%d %s>%s d%s", pp.Topic, pp.Partition, o(pp.Current), o(pp.Target), o(pp.Delta))
	switch pp.Action {
	case ActDelete:
		s += " DELETE"
	case ActSkip:
		s += " SKIP"
	}
	if pp.Note != "" {
		s += " [" + pp.Note + "]"
	}
	if pp.Error != "" {
		s += " ERR " + pp.Error
	}
	return s
}

func TestPlanReset(t *testing.T) {
	tgt := func(spec string) Target {
		tg, err := ParseTarget(spec, time.Unix(0, 0))
		if err != nil {
			t.Fatal(err)
		}
		return tg
	}
	file := func(csv string) *PlanFile {
		pf, err := ParsePlanCSV([]byte(csv))
		if err != nil {
			t.Fatal(err)
		}
		return &pf
	}
	// translated makes a file's rows look like translated:ALIAS rows, built
	// in memory without line numbers.
	translated := func(pf *PlanFile) *PlanFile {
		for i := range pf.Rows {
			pf.Rows[i].Line = 0
		}
		return pf
	}
	tests := []struct {
		name      string
		groups    []string
		allGroups bool
		fromFile  bool
		target    Target
		scope     []string
		allTopics bool
		times     map[string]map[int32]TimeOffset
		file      *PlanFile
		want      []string // rows of the first group
		warn      string
		refused   string
		err       string
	}{
		{name: "earliest", groups: []string{"g"}, target: tgt("earliest"), scope: []string{"t"},
			want: []string{"t/0 40>10 d-30", "t/1 45>0 d-45", "t/2 ->0 d-"}},
		{name: "latest one partition", groups: []string{"g"}, target: tgt("latest"), scope: []string{"t:1"},
			want: []string{"t/1 45>50 d5"}},
		{name: "current without commit goes to log end, as Apache", groups: []string{"g"}, target: tgt("current"), scope: []string{"t"},
			want: []string{"t/0 40>40 d0", "t/1 45>45 d0", "t/2 ->0 d- [no commit: log end, as Apache's --to-current does]"}},
		{name: "offset clamped both ways", groups: []string{"g"}, target: tgt("5"), scope: []string{"t:0,1"},
			want: []string{"t/0 40>10 d-30 [clamped to log start (asked 5)]", "t/1 45>5 d-40"}},
		{name: "offset past the end", groups: []string{"g"}, target: tgt("70"), scope: []string{"t:0,1"},
			want: []string{"t/0 40>70 d30", "t/1 45>50 d5 [clamped to log end (asked 70)]"}},
		{name: "shift plus clamps at the end", groups: []string{"g"}, target: tgt("shift:+10"), scope: []string{"t:0,1"},
			want: []string{"t/0 40>50 d10", "t/1 45>50 d5 [clamped to log end (asked 55)]"}},
		{name: "shift minus clamps at the start", groups: []string{"g"}, target: tgt("shift:-35"), scope: []string{"t:0,1"},
			want: []string{"t/0 40>10 d-30 [clamped to log start (asked 5)]", "t/1 45>10 d-35"}},
		{name: "shift by huge values saturates", groups: []string{"g"}, target: Target{Kind: ToShift, Shift: 1<<63 - 1}, scope: []string{"t:0"},
			want: []string{"t/0 40>100 d60 [clamped to log end (asked 9223372036854775807)]"}},
		{name: "shift without a commit is an error naming the partition", groups: []string{"g"}, target: tgt("shift:-1"), scope: []string{"t"},
			err: "group g: cannot shift t partition 2: the group has no committed offset there"},
		{name: "all topics: only committed partitions", groups: []string{"g"}, target: tgt("earliest"), allTopics: true,
			want: []string{"t/0 40>10 d-30", "t/1 45>0 d-45"}},
		{name: "all topics of a group that does not exist selects nothing: bad input", groups: []string{"new"}, target: tgt("earliest"), allTopics: true,
			err: "group new does not exist (no committed offsets), so --all-topics selects nothing: name the partitions with --topic"},
		{name: "all topics of a named group without commits selects nothing: bad input", groups: []string{"g", "empty848"}, target: tgt("earliest"), allTopics: true,
			err: "group empty848 has no committed offsets, so --all-topics selects nothing"},
		{name: "--all-groups, all topics: a group without commits is just empty", groups: []string{"empty848"}, allGroups: true, target: tgt("earliest"), allTopics: true,
			want: nil},
		{name: "time", groups: []string{"g"}, target: tgt("time:1764496800000"), scope: []string{"t:0,1"},
			times: map[string]map[int32]TimeOffset{"t": {0: {Offset: 60, Timestamp: 1764496800001}, 1: {Offset: 50, Timestamp: -1}}},
			want:  []string{"t/0 40>60 d20", "t/1 45>50 d5 [no record at or after the time: log end]"},
			warn:  "group g: no record at or after 2025-11-30T10:00:00Z in 1 partition(s) (t/1): using their log end"},
		{name: "time listing failed is a partition error", groups: []string{"g"}, target: tgt("time:1764496800000"), scope: []string{"t:0"},
			times: map[string]map[int32]TimeOffset{"t": {0: {Err: errors.New("NOT_LEADER")}}},
			want:  []string{"t/0 40>- d- ERR listing offsets by time: NOT_LEADER"}},
		{name: "file plan is clamped like Apache's --from-file", groups: []string{"g"}, target: Target{Kind: ToFile, Path: "p.csv"},
			file: file("t,0,5\nt,1,30\n"), want: []string{"t/0 40>10 d-30 [clamped to log start (asked 5)]", "t/1 45>30 d-15"}},
		{name: "file plan filtered by --topic", groups: []string{"g"}, target: Target{Kind: ToFile, Path: "p.csv"}, scope: []string{"t:1"},
			file: file("g,t,0,5\ng,t,1,30\nother,t,1,3\n"), want: []string{"t/1 45>30 d-15"}, warn: "group g: --topic keeps 1 of the plan's 2 row(s); skipped line 1 t/0"},
		{name: "file plan entirely outside --topic", groups: []string{"g"}, target: Target{Kind: ToFile, Path: "p.csv"}, scope: []string{"t:2"},
			file: file("g,t,0,5\ng,t,1,30\n"), err: "plan p.csv has 2 row(s) for group g, none inside the --topic scope"},
		{name: "backup restores verbatim and deletes no-commit partitions", groups: []string{"g"}, target: Target{Kind: ToFile, Path: "b.csv"},
			file: file("offsetctl:backup,g,0,1\ng,t,0,5\noffsetctl:no-commit:g,t,1,0\noffsetctl:no-commit:g,t,2,0\n"),
			want: []string{"t/0 40>5 d-35 [restored as backed up: below the log start]", "t/1 45>- d- DELETE [restore: had no commit (offset deleted)]", "t/2 ->- d- SKIP [restore: had no commit, has none]"}},
		{name: "file without rows for the group", groups: []string{"g"}, target: Target{Kind: ToFile, Path: "p.csv"},
			file: file("other,t,0,5\n"), err: "plan p.csv has no rows for group g"},
		{name: "three-column file with two groups", groups: []string{"g", "src"}, target: Target{Kind: ToFile, Path: "p.csv"},
			file: file("t,0,5\n"), err: "apply to one group"},
		{name: "file naming an unknown partition", groups: []string{"g"}, target: Target{Kind: ToFile, Path: "p.csv"},
			file: file("t,7,5\n"), err: "plan p.csv line 1 (group g): partition 7 does not exist in topic t (it has 3 partitions)"},
		{name: "file naming a topic the cluster never had names the line, not a missing topic", groups: []string{"g"}, target: Target{Kind: ToFile, Path: "p.csv"},
			file: file("nope,0,5\n"), err: "plan p.csv line 1 (group g): partition 0 does not exist in topic nope"},
		{name: "translated rows (no file lines) naming an unknown partition name the group, no plan line", groups: []string{"g"}, target: Target{Kind: ToTranslated, Alias: "A"},
			file: translated(file("t,7,5\n")), err: "group g: partition 7 does not exist in topic t (it has 3 partitions)"},
		{name: "file naming a deleted topic", groups: []string{"g"}, target: Target{Kind: ToFile, Path: "p.csv"},
			file: file("gone,0,5\n"), err: "topic gone does not exist"},
		{name: "copy from group", groups: []string{"g"}, target: tgt("group:src"), scope: []string{"t"},
			want: []string{"t/0 40>20 d-20", "t/1 45>- d- SKIP [group src has no commit here: left unchanged]", "t/2 ->0 d-"},
			warn: "group g: 1 partition(s) left unchanged: group src has no commit there (t/1)"},
		{name: "copy from a group with no commit in scope", groups: []string{"g"}, target: tgt("group:src"), scope: []string{"t:1"},
			err: "group src (to copy from) has no commit on any selected partition: nothing to copy"},
		{name: "unknown topic", groups: []string{"g"}, target: tgt("earliest"), scope: []string{"nope"}, err: "topic nope does not exist"},
		{name: "deleted topic", groups: []string{"g"}, target: tgt("earliest"), scope: []string{"gone"}, err: "topic gone"},
		{name: "unknown partition", groups: []string{"g"}, target: tgt("earliest"), scope: []string{"t:0,3"}, err: "partition 3 does not exist in topic t (it has 3 partitions)"},
		{name: "scope required", groups: []string{"g"}, target: tgt("earliest"), err: "name a scope"},
		{name: "nonexistent group is planned, with a warning (a typo?)", groups: []string{"new"}, target: tgt("latest"), scope: []string{"u"},
			want: []string{"u/0 ->5 d-"}, warn: "group new does not exist: --execute creates it with these offsets (a typo? offsetctl groups lists the groups)"},
		{name: "live classic group refused", groups: []string{"live"}, target: tgt("earliest"), scope: []string{"t:0"},
			want: []string{"t/0 40>10 d-30"}, refused: "group live can only be reset if the group is inactive, but the current state is Stable (1 member)"},
		{name: "live KIP-848 group refused", groups: []string{"live848"}, target: tgt("earliest"), scope: []string{"t:0"},
			want: []string{"t/0 ->10 d-"}, refused: "current state is Stable (2 members)"},
		{name: "empty KIP-848 group allowed", groups: []string{"empty848"}, target: tgt("earliest"), scope: []string{"t:0"},
			want: []string{"t/0 ->10 d-"}},
		{name: "--all-groups --topic of a topic a group never committed on says the reset creates its offsets", groups: []string{"g"}, allGroups: true,
			target: tgt("latest"), scope: []string{"u"},
			want: []string{"u/0 ->5 d-"}, warn: "group g has no commit on topic u: the reset creates its offsets there"},
		{name: "--all-groups with a file plan names the groups whose rows are not applied", groups: []string{"g", "live", "src"}, allGroups: true,
			target: Target{Kind: ToFile, Path: "p.csv"}, file: file("g,t,0,50\nlive,t,0,1\nghost,t,0,2\n"),
			want: []string{"t/0 40>50 d10"},
			warn: "plan p.csv: the rows of 2 group(s) were not applied: live (skipped: active group (Stable)), ghost (not selected: no such consumer group, or left out by --regex or --exclude; name it to reset it)"},
		{name: "--all-groups file plan narrowed by --topic skips the groups without rows there", groups: []string{"g", "src"}, allGroups: true, scope: []string{"t:0"},
			target: Target{Kind: ToFile, Path: "p.csv"}, file: file("g,t,0,50\nsrc,t,1,3\n"),
			want: []string{"t/0 40>50 d10"}, warn: "src (skipped: no plan rows inside the --topic scope)"},
		{name: "file plan groups narrowed by --topic skip the groups without rows there", groups: []string{"g", "src"}, fromFile: true, scope: []string{"t:0"},
			target: Target{Kind: ToFile, Path: "p.csv"}, file: file("g,t,0,50\nsrc,t,1,3\n"),
			want: []string{"t/0 40>50 d10"}, warn: "group src: none of its 1 plan row(s) is inside the --topic scope: skipped"},
		{name: "file plan groups with no row inside --topic", groups: []string{"g", "src"}, fromFile: true, scope: []string{"t:2"},
			target: Target{Kind: ToFile, Path: "p.csv"}, file: file("g,t,0,50\nsrc,t,1,3\n"),
			err: "plan p.csv has no rows inside the --topic scope"},
		{name: "--all-groups copy with every group skipped as active is not 'nothing to copy'", groups: []string{"live"}, allGroups: true,
			target: tgt("group:src"), scope: []string{"t:1"},
			want: nil, warn: "skipping group live"},
		{name: "--all-groups copy from a group with nothing there fails whatever other groups are active", groups: []string{"live", "g"}, allGroups: true,
			target: tgt("group:src"), scope: []string{"t:1"},
			err: "group src (to copy from) has no commit on any selected partition: nothing to copy"},
		{name: "--all-groups skips live groups", groups: []string{"live"}, allGroups: true, target: tgt("earliest"), scope: []string{"t:0"},
			want: nil, warn: "skipping group live: it can only be reset if the group is inactive, but the current state is Stable (1 member); stop its consumers first"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := ResetInput{Snapshot: resetSnapshot(), Groups: tc.groups, AllGroups: tc.allGroups, Target: tc.target, Scope: resetScope(t, tc.scope...), AllTopics: tc.allTopics, Times: tc.times, File: tc.file, GroupsFromFile: tc.fromFile}
			plan, err := PlanReset(in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || exitcode.Code(err) != exitcode.Usage {
					t.Fatalf("error = %v, want a usage error containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, pp := range plan.Groups[0].Partitions {
				got = append(got, planRow(pp))
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("plan:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			warns := strings.Join(plan.Warnings, "\n")
			if (tc.warn == "") != (warns == "") || !strings.Contains(warns, tc.warn) {
				t.Errorf("warnings = %q, want containing %q", warns, tc.warn)
			}
			refusals := strings.Join(plan.Refusals(), "\n")
			if (tc.refused == "") != (refusals == "") || !strings.Contains(refusals, tc.refused) {
				t.Errorf("refusals = %q, want containing %q", refusals, tc.refused)
			}
		})
	}
}

// The backup of a plan records the committed offsets and the partitions
// without a commit; planning a restore from it gives back the old state.
func TestPlanBackupRestore(t *testing.T) {
	snap := resetSnapshot()
	in := ResetInput{Snapshot: snap, Groups: []string{"g"}, Target: Target{Kind: ToLatest}, Scope: resetScope(t, "t")}
	plan, err := PlanReset(in)
	if err != nil {
		t.Fatal(err)
	}
	bg := plan.Groups[0].BackupOf()
	var b strings.Builder
	if err := WriteBackupCSV(&b, time.Unix(1, 0), "", []BackupGroup{bg}); err != nil {
		t.Fatal(err)
	}
	if want := "offsetctl:backup,g,0,1000\ng,t,0,40\ng,t,1,45\noffsetctl:no-commit:g,t,2,0\noffsetctl:end,2ca2ce40702b7d0101649b06,0,4\n"; b.String() != want {
		t.Fatalf("backup =\n%s\nwant\n%s", b.String(), want)
	}
	// Pretend the reset happened: every partition now at its log end.
	g, _ := snap.Group("g")
	g.Commits = map[string]map[int32]lag.Commit{"t": {0: {Offset: 100}, 1: {Offset: 50}, 2: {Offset: 0}}}
	pf, err := ParsePlanCSV([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	restore, err := PlanReset(ResetInput{Snapshot: snap, Groups: []string{"g"}, Target: Target{Kind: ToFile, Path: "b"}, File: &pf})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, pp := range restore.Groups[0].Partitions {
		got = append(got, planRow(pp))
	}
	want := []string{"t/0 100>40 d-60", "t/1 50>45 d-5", "t/2 0>- d- DELETE [restore: had no commit (offset deleted)]"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("restore plan:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestLiveGroupReason(t *testing.T) {
	for _, tc := range []struct {
		gi   lag.GroupInfo
		live bool
	}{
		{lag.GroupInfo{Type: "classic", State: "Empty"}, false},
		{lag.GroupInfo{Type: "classic", State: "Dead"}, false},
		{lag.GroupInfo{Type: "classic", State: "PreparingRebalance"}, true},
		{lag.GroupInfo{Type: "classic", State: "Stable", Members: []lag.Member{{}}}, true},
		{lag.GroupInfo{Type: "consumer", State: "Empty"}, false},
		{lag.GroupInfo{Type: "consumer", State: "Reconciling", Members: []lag.Member{{}}}, true},
	} {
		if got := LiveGroupReason(tc.gi) != ""; got != tc.live {
			t.Errorf("%+v: live = %v, want %v", tc.gi, got, tc.live)
		}
	}
}

func TestGroupPlanChanges(t *testing.T) {
	v := func(n int64) *int64 { return &n }
	gp := GroupPlan{Partitions: []PartitionPlan{
		{Current: v(4), Target: v(4)},                // same offset
		{Current: v(4), Target: v(5)},                // moved
		{Current: nil, Target: v(0)},                 // created
		{Current: v(3), Action: ActDelete},           // deleted
		{Current: nil, Action: ActSkip},              // no commit kept
		{Current: v(2), Action: ActSkip},             // left alone
		{Current: v(2), Error: "listing offsets: x"}, // failed before planning
	}}
	if c, u := gp.Changes(); c != 3 || u != 4 {
		t.Errorf("Changes() = %d changed, %d unchanged; want 3, 4", c, u)
	}
}

// TestPlanResetUnlistedTopicIsOperational: a scoped topic whose listing a
// frozen broker left empty ("no offsets listed", a deadline) is an
// operational failure (exit 1), never bad input: a script reads exit 2 as
// "fix your command" and would not retry (issue 11: a SIGSTOP during
// planning gave exit 2 in 3 of 16 runs).
func TestPlanResetUnlistedTopicIsOperational(t *testing.T) {
	snap := resetSnapshot()
	snap.Offsets.TopicErr["frozen"] = fmt.Errorf("topic frozen: no offsets listed")
	for _, scope := range [][]string{{"frozen"}, {"frozen:0"}} {
		in := ResetInput{Snapshot: snap, Groups: []string{"g"}, Target: Target{Kind: ToEarliest}, Scope: resetScope(t, scope...)}
		_, err := PlanReset(in)
		if err == nil || exitcode.Code(err) != exitcode.Failure {
			t.Errorf("scope %v: err = %v (exit %d), want an operational failure", scope, err, exitcode.Code(err))
		}
	}
}

func i64(v int64) *int64 { return &v }

// TestPlanSkippedLive: a selection's live group counts as not done
// (SkippedLive: the command fails) only when it had something of its own in
// the scope; a Kafka Streams group is skipped for its kind, never counted.
func TestPlanSkippedLive(t *testing.T) {
	snap := resetSnapshot()
	snap.Groups = append(snap.Groups, lag.GroupSnapshot{GroupInfo: lag.GroupInfo{Group: "streams", Type: "streams", State: "Stable", Exists: true, Members: []lag.Member{{ID: "m"}}},
		Commits: map[string]map[int32]lag.Commit{"t": {0: {Offset: 1, LeaderEpoch: -1}}}})
	pf, err := ParsePlanCSV([]byte("live,t,0,5\nlive848,u,0,1\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		scope     []string
		allTopics bool
		file      bool
		want      []string
	}{
		{name: "a commit on the scoped partition", scope: []string{"t:0"}, want: []string{"live"}},
		{name: "commits elsewhere only", scope: []string{"t:1", "u"}},
		{name: "--all-topics: any commit", allTopics: true, want: []string{"live"}},
		{name: "plan file rows", file: true, want: []string{"live", "live848"}},
		{name: "plan file rows outside --topic", file: true, scope: []string{"t"}, want: []string{"live"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := ResetInput{Snapshot: snap, Groups: []string{"g", "live", "live848", "streams"}, AllGroups: true, Target: Target{Kind: ToEarliest}, Scope: resetScope(t, tc.scope...), AllTopics: tc.allTopics}
			if tc.file {
				in.Target, in.File = Target{Kind: ToFile, Path: "p.csv"}, &pf
			}
			plan, err := PlanReset(in)
			if err != nil {
				t.Fatal(err)
			}
			if got := plan.SkippedLive(); !slices.Equal(got, tc.want) {
				t.Errorf("SkippedLive() = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestPlanGroupErrors: the summary after --execute has one item per group
// and cause: a group's own error alone (its partitions only repeat it),
// and partitions that failed the same way together. It once counted and
// listed each of a fenced group's 1,000 partitions as its own error.
func TestPlanGroupErrors(t *testing.T) {
	pp := func(topic string, p int32, err string) PartitionPlan {
		return PartitionPlan{Topic: topic, Partition: p, Error: err}
	}
	plan := Plan{Groups: []GroupPlan{
		{Group: "fenced", Error: "group fenced: 3 partition(s) refused the transactional commit: PRODUCER_FENCED",
			Partitions: []PartitionPlan{pp("t", 0, "commit: PRODUCER_FENCED"), pp("t", 1, "commit: PRODUCER_FENCED"), pp("t", 2, "commit: PRODUCER_FENCED")}},
		{Group: "ok", Partitions: []PartitionPlan{pp("t", 0, "")}},
		// A partition without error first, then a cause of one partition
		// before one of six: every partition and cause is looked at.
		{Group: "mixed", Partitions: []PartitionPlan{pp("s", 0, ""), pp("t", 1, "commit: X"), pp("t", 0, "verify: no commit found"), pp("u", 0, "verify: no commit found"),
			pp("u", 1, "verify: no commit found"), pp("u", 2, "verify: no commit found"), pp("u", 3, "verify: no commit found"), pp("u", 4, "verify: no commit found")}},
	}}
	want := []string{
		"group fenced: 3 partition(s) refused the transactional commit: PRODUCER_FENCED",
		"group mixed topic t partition 1: commit: X",
		"group mixed: 6 partitions (t/0, u/0, u/1, u/2, u/3 and 1 more): verify: no commit found",
	}
	if got := plan.GroupErrors(); !slices.Equal(got, want) {
		t.Errorf("GroupErrors():\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if n := len(plan.Errors()); n != 1+3+7 {
		t.Errorf("Errors() has %d items, want every one (11): the table and validation keep them", n)
	}
}

// TestPlanHasWorkAndUnbackable: HasWork is whether any group has a
// partition to change; a selection lists a group whose name no backup can
// hold as skipped, with why, and plans nothing for it.
func TestPlanHasWorkAndUnbackable(t *testing.T) {
	if (Plan{}).HasWork() || (Plan{Groups: []GroupPlan{{Group: "a"}, {Group: "b"}}}).HasWork() {
		t.Error("HasWork() of a plan without partitions is true")
	}
	if !(Plan{Groups: []GroupPlan{{Group: "a"}, {Group: "b", Partitions: []PartitionPlan{{Topic: "t"}}}}}).HasWork() {
		t.Error("HasWork() of a plan with a partition is false")
	}
	for name, want := range map[string]string{
		"ok":          "",
		"a\nb":        "a name with a line break cannot be backed up",
		"a\rb":        "a name with a line break cannot be backed up",
		"offsetctl:x": `a name starting with "offsetctl:" cannot be backed up`,
	} {
		if got := UnbackableReason(name); got != want {
			t.Errorf("UnbackableReason(%q) = %q, want %q", name, got, want)
		}
	}
	snap := resetSnapshot()
	snap.Groups = append(snap.Groups, lag.GroupSnapshot{GroupInfo: lag.GroupInfo{Group: "nl\nx", Type: "classic", State: "Empty", Exists: true},
		Commits: map[string]map[int32]lag.Commit{"t": {0: {Offset: 1, LeaderEpoch: -1}}}})
	plan, err := PlanReset(ResetInput{Snapshot: snap, Groups: []string{"g", "nl\nx"}, AllGroups: true, Target: Target{Kind: ToEarliest}, Scope: resetScope(t, "t:0")})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Groups) != 2 || plan.Groups[1].Group != "nl\nx" || plan.Groups[1].Note != "skipped: a name with a line break cannot be backed up" || len(plan.Groups[1].Partitions) != 0 || plan.Groups[1].SkippedLive {
		t.Errorf("plan groups %+v: want g, then the line-break group listed as skipped with nothing planned", plan.Groups)
	}
	if !strings.Contains(strings.Join(plan.Warnings, "\n"), "skipping group") {
		t.Errorf("warnings %q: want the skip said", plan.Warnings)
	}
}

// TestLiveGroupReasonTo: the guard's reason in the words of the change it
// stops.
func TestLiveGroupReasonTo(t *testing.T) {
	gi := lag.GroupInfo{Group: "g", Type: "classic", State: "Stable", Members: []lag.Member{{ID: "m"}}}
	want := "group g can only be deleted if the group is inactive, but the current state is Stable (1 member); stop its consumers first"
	if got := LiveGroupReasonTo(gi, "deleted"); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := LiveGroupReason(gi); got != strings.Replace(want, "deleted", "reset", 1) {
		t.Errorf("LiveGroupReason: %q", got)
	}
	gi.Members, gi.State = nil, "Empty"
	if got := LiveGroupReasonTo(gi, "deleted"); got != "" {
		t.Errorf("an empty group: %q", got)
	}
}
