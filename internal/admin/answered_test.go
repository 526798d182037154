package admin

import (
	"errors"
	"fmt"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/offsetctl/offsetctl/internal/lag"
)

func TestNotNamed(t *testing.T) {
	if got := notNamed("committed"); got != "the broker's answer did not name it: not known to be committed" {
		t.Errorf("notNamed = %q", got)
	}
}

func TestBrokerAnswered(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{nil, true},
		{kerr.UnknownTopicOrPartition, true},
		{fmt.Errorf("wrapped: %w", kerr.GroupAuthorizationFailed), true},
		{errors.New("partition missing in commit response"), false},
	} {
		if got := brokerAnswered(tc.err); got != tc.want {
			t.Errorf("brokerAnswered(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

// commitGaps reads kadm's answers by their keys (a stray's Offset is the
// zero one), counts kadm's own error as not named, a broker refusal as
// named, and a partition absent from the answer as not named.
func TestCommitGaps(t *testing.T) {
	asked := kadm.Offsets{}
	for _, p := range []int32{0, 1, 2, 3} {
		asked.AddOffset("t", p, 17, -1)
	}
	asked.AddOffset("u", 0, 5, -1)
	resp := kadm.OffsetResponses{
		"t": {
			0: {Offset: kadm.Offset{Topic: "t", Partition: 0}},
			1: {Offset: kadm.Offset{Topic: "t", Partition: 1}, Err: errors.New("partition missing in commit response")},
			3: {Offset: kadm.Offset{Topic: "t", Partition: 3}, Err: kerr.UnknownMemberID},
			// Not asked for: kadm leaves the zero Offset.
			7: {Err: kerr.UnknownTopicOrPartition},
			8: {Err: kerr.UnknownTopicOrPartition},
		},
		"": {4: {}, 2: {}},
	}
	g := commitGaps(asked, resp)
	if got := fmt.Sprint(g.missing); got != "[{t 1} {t 2} {u 0}]" {
		t.Errorf("missing %s, want t/1 t/2 u/0", got)
	}
	want := " (it named partitions not asked for: a topic id not asked for partition 2, 4: no error; topic t partition 7, 8: UNKNOWN_TOPIC_OR_PARTITION)"
	if got := g.note(); got != want {
		t.Errorf("note %q\nwant %q", got, want)
	}
	if g := commitGaps(asked, kadm.OffsetResponses{"t": {0: {}, 1: {}, 2: {}, 3: {}}, "u": {0: {}}}); len(g.missing) != 0 || g.note() != "" {
		t.Errorf("every partition answered: %+v", g)
	}
}

func TestPartitionGaps(t *testing.T) {
	asked := kadm.TopicsSet{}
	asked.Add("t", 0, 1, 2)
	asked.Add("u", 3)
	resp := map[string]map[int32]error{
		"t": {0: nil, 2: kerr.GroupSubscribedToTopic, 9: nil},
		"u": {3: errors.New("the client's own")},
		"v": {1: kerr.UnknownTopicOrPartition},
	}
	g := partitionGaps(asked, resp)
	if got := fmt.Sprint(g.missing); got != "[{t 1} {u 3}]" {
		t.Errorf("missing %s, want t/1 u/3", got)
	}
	want := " (it named partitions not asked for: topic t partition 9: no error; topic v partition 1: UNKNOWN_TOPIC_OR_PARTITION)"
	if got := g.note(); got != want {
		t.Errorf("note %q\nwant %q", got, want)
	}
	if g := partitionGaps(asked, map[string]map[int32]error{"t": {0: nil, 1: nil, 2: nil}, "u": {3: nil}}); len(g.missing) != 0 || g.note() != "" {
		t.Errorf("every partition answered: %+v", g)
	}
}

func TestStrayOf(t *testing.T) {
	for _, tc := range []struct {
		r    kadm.OffsetResponse
		want strayKey
	}{
		{kadm.OffsetResponse{}, strayKey{"a topic id not asked for", "no error"}},
		{kadm.OffsetResponse{Offset: kadm.Offset{Topic: "t\x1b"}, Err: kerr.UnknownMemberID}, strayKey{`topic "t\x1b"`, "UNKNOWN_MEMBER_ID"}},
		{kadm.OffsetResponse{Offset: kadm.Offset{Topic: "t"}, Err: errors.New("lost")}, strayKey{"topic t", "lost"}},
	} {
		if got := strayOf(tc.r); got != tc.want {
			t.Errorf("strayOf(%+v) = %+v, want %+v", tc.r, got, tc.want)
		}
	}
}

// strayNote sorts by topic, then error; names at most three groups and
// five partitions of each; a group of no partitions is a topic's answer.
func TestStrayNote(t *testing.T) {
	if got := strayNote("partitions", nil); got != "" {
		t.Errorf("no stray: %q", got)
	}
	got := strayNote("partitions", map[strayKey][]int32{
		{"topic b", "no error"}:      {9, 3, 1, 7, 5, 2},
		{"topic a", "UNKNOWN"}:       {4},
		{"topic a", "AUTH"}:          {1},
		{"topic c", "should be cut"}: {0},
	})
	want := " (it named partitions not asked for: topic a partition 1: AUTH; topic a partition 4: UNKNOWN; topic b partition 1, 2, 3, 5, 7 and 1 more: no error and 1 more)"
	if got != want {
		t.Errorf("strayNote\n got %q\nwant %q", got, want)
	}
	if got := strayNote("topics", map[strayKey][]int32{{"topic x", "no error"}: nil}); got != " (it named topics not asked for: topic x: no error)" {
		t.Errorf("a topic's stray: %q", got)
	}
	// A topic's answer before a partition's: both named.
	if got := strayNote("partitions", map[strayKey][]int32{{"topic a", "X"}: nil, {"topic b", "Y"}: {1}}); got != " (it named partitions not asked for: topic a: X; topic b partition 1: Y)" {
		t.Errorf("a topic's stray, then a partition's: %q", got)
	}
}

func ptr(v int64) *int64 { return &v }

// settleUnnamed judges only the partitions of unnamed, by what the
// read-back found, and adds that to their error.
func TestSettleUnnamed(t *testing.T) {
	const e = "commit: x"
	mk := func() *GroupPlan {
		return &GroupPlan{Partitions: []PartitionPlan{
			{Topic: "t", Partition: 0, Current: ptr(4), Target: ptr(17), Error: e},                     // holds the plan
			{Topic: "t", Partition: 1, Current: ptr(4), Target: ptr(17), Error: e},                     // unchanged
			{Topic: "t", Partition: 2, Current: ptr(4), Target: ptr(17), Error: e},                     // neither
			{Topic: "t", Partition: 3, Current: nil, Target: ptr(17), Error: e},                        // no commit, unchanged
			{Topic: "t", Partition: 4, Current: ptr(4), Target: ptr(17), Error: e},                     // read error
			{Topic: "t", Partition: 5, Current: ptr(4), Action: ActDelete, Error: "delete: x"},         // gone
			{Topic: "t", Partition: 6, Current: ptr(4), Action: ActDelete, Error: "delete: x"},         // still there
			{Topic: "t", Partition: 7, Current: ptr(4), Target: ptr(17), Applied: new(true)},           // not unnamed
			{Topic: "t", Partition: 8, Current: ptr(4), Target: ptr(17), Error: e, Applied: new(true)}, // no read-back entry: no commit
			{Topic: "t", Partition: 9, Current: ptr(4), Target: ptr(0), Error: e},                      // holds the plan, offset 0
		}}
	}
	unnamed := map[lag.TP]bool{}
	for _, p := range []int32{0, 1, 2, 3, 4, 5, 6, 8, 9} {
		unnamed[lag.TP{Topic: "t", Partition: p}] = true
	}
	fetched := kadm.OffsetResponses{}
	add := func(p int32, at int64, err error) {
		fetched.Add(kadm.OffsetResponse{Offset: kadm.Offset{Topic: "t", Partition: p, At: at}, Err: err})
	}
	add(0, 17, nil)
	add(1, 4, nil)
	add(2, 9, nil)
	add(3, -1, nil)
	add(4, 0, kerr.UnstableOffsetCommit)
	add(6, 4, nil)
	add(7, 3, nil)
	add(9, 0, nil)
	gp := mk()
	settleUnnamed(gp, unnamed, fetched, true)
	want := []struct {
		applied string
		err     string
	}{
		{"true", e + "; read back: it holds what was planned (committed 17) all the same"},
		{"false", e + "; read back: unchanged (committed 4)"},
		{"nil", e + "; read back: committed 9, neither what was planned nor what it was"},
		{"false", e + "; read back: unchanged (no commit)"},
		{"nil", e + "; reading it back failed: " + kerr.UnstableOffsetCommit.Error()},
		{"true", "delete: x; read back: it holds what was planned (no commit) all the same"},
		{"false", "delete: x; read back: unchanged (committed 4)"},
		{"true", ""},
		{"nil", e + "; read back: no commit, neither what was planned nor what it was"},
		{"true", e + "; read back: it holds what was planned (committed 0) all the same"},
	}
	for i, pp := range gp.Partitions {
		if got := appliedWord(pp.Applied); got != want[i].applied || pp.Error != want[i].err {
			t.Errorf("partition %d: applied %s error %q, want %s %q", i, got, pp.Error, want[i].applied, want[i].err)
		}
	}

	// No read-back: every unnamed partition is unknown, its error as it was.
	gp = mk()
	settleUnnamed(gp, unnamed, nil, false)
	for i, pp := range gp.Partitions {
		if i == 7 {
			if pp.Applied == nil || !*pp.Applied {
				t.Errorf("partition 7 (not unnamed) changed: %+v", pp)
			}
			continue
		}
		if pp.Applied != nil || pp.Error != mk().Partitions[i].Error {
			t.Errorf("not read back: partition %d: applied %s error %q", i, appliedWord(pp.Applied), pp.Error)
		}
	}

	// A share group's words.
	gp = &GroupPlan{GroupType: lag.ShareType, Partitions: []PartitionPlan{{Topic: "t", Partition: 1, Current: ptr(4), Target: ptr(17), Error: e}, {Topic: "t", Partition: 3, Current: ptr(4), Target: ptr(17), Error: e}}}
	settleUnnamed(gp, unnamed, fetched, true)
	if gp.Partitions[0].Error != e+"; read back: unchanged (start offset 4)" || gp.Partitions[1].Error != e+"; read back: no start offset, neither what was planned nor what it was" {
		t.Errorf("share group: %q / %q", gp.Partitions[0].Error, gp.Partitions[1].Error)
	}
}

func appliedWord(b *bool) string {
	if b == nil {
		return "nil"
	}
	return fmt.Sprint(*b)
}

func TestOffsetWord(t *testing.T) {
	for _, tc := range []struct {
		at    *int64
		share bool
		want  string
	}{
		{nil, false, "no commit"},
		{nil, true, "no start offset"},
		{ptr(3), false, "committed 3"},
		{ptr(3), true, "start offset 3"},
	} {
		if got := offsetWord(tc.at, tc.share); got != tc.want {
			t.Errorf("offsetWord(%v, %v) = %q, want %q", appliedWordInt(tc.at), tc.share, got, tc.want)
		}
	}
}

func appliedWordInt(p *int64) string {
	if p == nil {
		return "nil"
	}
	return fmt.Sprint(*p)
}

func TestSameOffset(t *testing.T) {
	for _, tc := range []struct {
		a, b *int64
		want bool
	}{
		{nil, nil, true},
		{ptr(1), nil, false},
		{nil, ptr(1), false},
		{ptr(1), ptr(1), true},
		{ptr(1), ptr(2), false},
	} {
		if got := sameOffset(tc.a, tc.b); got != tc.want {
			t.Errorf("sameOffset(%s, %s) = %v", appliedWordInt(tc.a), appliedWordInt(tc.b), got)
		}
	}
}

func TestMoves(t *testing.T) {
	for _, tc := range []struct {
		pp   PartitionPlan
		want bool
	}{
		{PartitionPlan{Action: ActDelete, Current: ptr(1)}, true},
		{PartitionPlan{Action: ActDelete}, false},
		{PartitionPlan{Current: ptr(1), Target: ptr(2)}, true},
		{PartitionPlan{Current: ptr(2), Target: ptr(2)}, false},
		{PartitionPlan{Target: ptr(2)}, true},
	} {
		if got := tc.pp.moves(); got != tc.want {
			t.Errorf("moves(%+v) = %v", tc.pp, got)
		}
	}
}

func TestRefusedErr(t *testing.T) {
	for e, want := range map[string]bool{"": false, "commit: x": true, "delete: x": true, "verify: x": false, "x commit: ": false} {
		if got := RefusedErr(e); got != want {
			t.Errorf("RefusedErr(%q) = %v", e, got)
		}
	}
}

// unnamedOutcome: partly when anything changed (acknowledged, or an
// unnamed partition read back moved as planned), unknown when nothing
// did and some unnamed partition could not be judged, failed otherwise.
func TestUnnamedOutcome(t *testing.T) {
	un := PartitionPlan{Topic: "t", Partition: 0, Current: ptr(4), Target: ptr(17), Error: "commit: x"}
	unSame := PartitionPlan{Topic: "t", Partition: 0, Current: ptr(17), Target: ptr(17), Error: "commit: x"}
	refused := PartitionPlan{Topic: "t", Partition: 1, Current: ptr(4), Target: ptr(17), Error: "commit: refused"}
	acked := PartitionPlan{Topic: "t", Partition: 1, Current: ptr(4), Target: ptr(17)}
	verified := PartitionPlan{Topic: "t", Partition: 1, Current: ptr(4), Target: ptr(17), Error: "verify: committed 4"}
	skipped := PartitionPlan{Topic: "t", Partition: 2, Action: ActSkip}
	with := func(pp PartitionPlan, applied *bool) PartitionPlan { pp.Applied = applied; return pp }
	unnamed := map[lag.TP]bool{{Topic: "t", Partition: 0}: true}
	for _, tc := range []struct {
		name string
		pps  []PartitionPlan
		want string
	}{
		{"unchanged and refused", []PartitionPlan{with(un, new(false)), refused, skipped}, OutcomeFailed},
		{"unchanged, another acknowledged", []PartitionPlan{with(un, new(false)), acked}, OutcomePartly},
		{"unchanged, another acknowledged but not read back as planned", []PartitionPlan{with(un, new(false)), verified}, OutcomePartly},
		{"moved as planned", []PartitionPlan{with(un, new(true)), refused}, OutcomePartly},
		{"as planned without moving", []PartitionPlan{with(unSame, new(true)), refused}, OutcomeFailed},
		{"not judged", []PartitionPlan{with(un, nil), refused}, OutcomeUnknown},
		{"not judged, another acknowledged", []PartitionPlan{with(un, nil), acked}, OutcomePartly},
		{"only skipped besides", []PartitionPlan{skipped, with(un, new(false))}, OutcomeFailed},
		{"refused first, then not judged", []PartitionPlan{refused, with(un, nil)}, OutcomeUnknown},
	} {
		if got := unnamedOutcome(&GroupPlan{Partitions: tc.pps}, unnamed); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}

func TestMarkPartly(t *testing.T) {
	mk := func(outcome string) *GroupPlan {
		return &GroupPlan{Outcome: outcome, Partitions: []PartitionPlan{
			{Topic: "t", Partition: 0},
			{Topic: "t", Partition: 1, Error: "commit: refused"},
			{Topic: "t", Partition: 2, Error: "delete: refused"},
			{Topic: "t", Partition: 3, Error: "verify: committed 4"},
			{Topic: "t", Partition: 4, Action: ActSkip},
			{Topic: "t", Partition: 5, Error: "commit: not named"},
		}}
	}
	unnamed := map[lag.TP]bool{{Topic: "t", Partition: 5}: true}
	gp := mk(OutcomePartly)
	markPartly(gp, unnamed)
	want := []string{"true", "false", "false", "true", "nil", "nil"}
	for i, pp := range gp.Partitions {
		if got := appliedWord(pp.Applied); got != want[i] {
			t.Errorf("partly: partition %d applied %s, want %s", i, got, want[i])
		}
	}
	// A skipped or unnamed partition first: the others are marked all
	// the same.
	first := &GroupPlan{Outcome: OutcomePartly, Partitions: []PartitionPlan{
		{Topic: "t", Partition: 4, Action: ActSkip}, {Topic: "t", Partition: 5, Error: "commit: not named"}, {Topic: "t", Partition: 0},
	}}
	markPartly(first, unnamed)
	if got := appliedWord(first.Partitions[2].Applied); got != "true" {
		t.Errorf("after a skipped and an unnamed partition: applied %s, want true", got)
	}
	for _, o := range []string{OutcomeApplied, OutcomeFailed, OutcomeUnverified, OutcomeUnknown} {
		gp := mk(o)
		markPartly(gp, unnamed)
		for i, pp := range gp.Partitions {
			if pp.Applied != nil {
				t.Errorf("%s: partition %d applied %v, want unset", o, i, *pp.Applied)
			}
		}
	}
}

// settleOutcome leaves an outcome alone when every partition was named
// (a partly one still says what was applied), and decides it from the
// read-back otherwise.
func TestSettleOutcome(t *testing.T) {
	gp := &GroupPlan{Outcome: OutcomeUnverified, Partitions: []PartitionPlan{{Topic: "t", Partition: 0, Current: ptr(4), Target: ptr(17), Error: "verify: x"}}}
	settleOutcome(gp, nil, nil, true)
	if gp.Outcome != OutcomeUnverified || gp.Partitions[0].Applied != nil {
		t.Errorf("all named: %+v", gp)
	}
	gp = &GroupPlan{Outcome: OutcomePartly, Partitions: []PartitionPlan{
		{Topic: "t", Partition: 0, Current: ptr(4), Target: ptr(17)},
		{Topic: "t", Partition: 1, Current: ptr(4), Target: ptr(17), Error: "commit: refused"},
	}}
	settleOutcome(gp, map[lag.TP]bool{}, nil, true)
	if gp.Outcome != OutcomePartly || appliedWord(gp.Partitions[0].Applied) != "true" || appliedWord(gp.Partitions[1].Applied) != "false" {
		t.Errorf("partly, all named: %+v", gp)
	}
	// The only partition not named, and the read-back finds it unchanged:
	// failed, not the unverified the verification alone would say.
	gp = &GroupPlan{Outcome: OutcomeApplied, Partitions: []PartitionPlan{{Topic: "t", Partition: 0, Current: ptr(4), Target: ptr(17), Error: "commit: " + notNamed("committed")}}}
	fetched := kadm.OffsetResponses{}
	fetched.Add(kadm.OffsetResponse{Offset: kadm.Offset{Topic: "t", Partition: 0, At: 4}})
	settleOutcome(gp, map[lag.TP]bool{{Topic: "t", Partition: 0}: true}, fetched, true)
	if gp.Outcome != OutcomeFailed || appliedWord(gp.Partitions[0].Applied) != "false" {
		t.Errorf("not named, unchanged: %+v", gp)
	}
	// Read back as planned: partly, and it says it was applied.
	gp.Partitions[0].Error, gp.Partitions[0].Applied = "commit: x", nil
	fetched["t"][0] = kadm.OffsetResponse{Offset: kadm.Offset{Topic: "t", Partition: 0, At: 17}}
	settleOutcome(gp, map[lag.TP]bool{{Topic: "t", Partition: 0}: true}, fetched, true)
	if gp.Outcome != OutcomePartly || appliedWord(gp.Partitions[0].Applied) != "true" {
		t.Errorf("not named, as planned: %+v", gp)
	}
}

// settleNotNamed: a delete-offsets row the answer did not name stays
// failed only when the read-back finds its commit; otherwise it may have
// been deleted (Unanswered).
func TestSettleNotNamed(t *testing.T) {
	const e = "the broker's answer did not name it: not known to be deleted"
	mk := func(share bool) *DeleteOffsetsPlan {
		p := &DeleteOffsetsPlan{Partitions: []DeleteOffsetsRow{
			{Topic: "t", Partition: 0, Current: ptr(4), Status: "failed", Error: e},
			{Topic: "t", Partition: 1, Current: ptr(4), Status: "failed", Error: e},
			{Topic: "t", Partition: 2, Current: ptr(4), Status: "failed", Error: e},
			{Topic: "t", Partition: 3, Current: ptr(4), Status: "failed", Error: e},
			{Topic: "t", Partition: 4, Current: ptr(4), Status: "deleted"},
			{Topic: "t", Partition: 5, Current: ptr(0), Status: "failed", Error: e},
		}}
		if share {
			p.GroupType = lag.ShareType
		}
		return p
	}
	unnamed := map[int]bool{0: true, 1: true, 2: true, 3: true, 5: true}
	fetched := kadm.OffsetResponses{}
	fetched.Add(kadm.OffsetResponse{Offset: kadm.Offset{Topic: "t", Partition: 0, At: 4}})
	fetched.Add(kadm.OffsetResponse{Offset: kadm.Offset{Topic: "t", Partition: 1, At: -1}})
	fetched.Add(kadm.OffsetResponse{Offset: kadm.Offset{Topic: "t", Partition: 2}, Err: kerr.UnstableOffsetCommit})
	fetched.Add(kadm.OffsetResponse{Offset: kadm.Offset{Topic: "t", Partition: 4, At: 9}})
	fetched.Add(kadm.OffsetResponse{Offset: kadm.Offset{Topic: "t", Partition: 5, At: 0}})
	for _, share := range []bool{false, true} {
		p := mk(share)
		p.settleNotNamed(unnamed, fetched, true)
		still, none := "; read back: still committed at 4", "; read back: no commit now, so it may have been deleted all the same"
		if share {
			still, none = "; read back: start offset still 4", "; read back: no start offset now, so it may have been deleted all the same"
		}
		want := []DeleteOffsetsRow{
			{Status: "failed", Error: e + still},
			{Status: "failed", Error: e + none, Unanswered: true},
			{Status: "failed", Error: e + "; reading it back failed (" + kerr.UnstableOffsetCommit.Error() + "), so whether it was deleted is unknown", Unanswered: true},
			{Status: "failed", Error: e + none, Unanswered: true},
			{Status: "deleted"},
			{Status: "failed", Error: e + still[:len(still)-1] + "0"},
		}
		for i, r := range p.Partitions {
			if r.Status != want[i].Status || r.Error != want[i].Error || r.Unanswered != want[i].Unanswered {
				t.Errorf("share %v: row %d: %s %q unanswered %v, want %s %q %v", share, i, r.Status, r.Error, r.Unanswered, want[i].Status, want[i].Error, want[i].Unanswered)
			}
		}
	}
	p := mk(false)
	p.settleNotNamed(unnamed, nil, false)
	for i, r := range p.Partitions {
		if want := unnamed[i]; r.Unanswered != want || want && r.Error != e+"; not read back, so whether it was deleted is unknown" {
			t.Errorf("not read back: row %d: %q unanswered %v", i, r.Error, r.Unanswered)
		}
	}
}

// topicGaps: a DeleteShareGroupOffsets answer per topic; a topic it does
// not name (or names with an error not the broker's) is missing, and a
// topic not asked for is named in the note.
func TestTopicGaps(t *testing.T) {
	missing, note := topicGaps([]string{"a", "b", "c"}, kadm.DeleteShareGroupOffsetsResponses{
		"a": nil, "c": errors.New("the client's own"), "z": kerr.GroupIDNotFound,
	})
	if fmt.Sprint(missing) != "[b c]" || note != " (it named topics not asked for: topic z: GROUP_ID_NOT_FOUND)" {
		t.Errorf("missing %v note %q", missing, note)
	}
	missing, note = topicGaps([]string{"a"}, kadm.DeleteShareGroupOffsetsResponses{"a": kerr.GroupSubscribedToTopic})
	if len(missing) != 0 || note != "" {
		t.Errorf("answered: missing %v note %q", missing, note)
	}
}

func TestShareFetched(t *testing.T) {
	back := lag.GroupSnapshot{}
	back.Commits = lag.PartitionMap[lag.Commit]{}
	back.Commits.Set("t", 1, lag.Commit{Offset: 5})
	back.Commits.Set("t", 2, lag.Commit{Offset: 3, Err: kerr.UnknownServerError})
	f := shareFetched(back)
	o1, ok1 := f.Lookup("t", 1)
	o2, ok2 := f.Lookup("t", 2)
	if !ok1 || o1.At != 5 || o1.Err != nil || !ok2 || o2.At != 3 || !errors.Is(o2.Err, kerr.UnknownServerError) || len(f["t"]) != 2 {
		t.Errorf("shareFetched = %+v", f)
	}
}
