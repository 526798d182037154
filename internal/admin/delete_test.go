package admin

import (
	"fmt"
	"strings"
	"testing"

	"github.com/offsetctl/offsetctl/internal/lag"
)

// A live group's refusal is one item per group and error, naming at most
// five partitions; distinct errors stay apart, a single partition keeps
// the "topic T partition P" form.
func TestDeleteOffsetsErrorsGrouped(t *testing.T) {
	const refused = "GROUP_SUBSCRIBED_TO_TOPIC: live members of the group consume this topic"
	p := DeleteOffsetsPlan{Group: "g"}
	for q := int32(0); q < 12; q++ {
		p.Partitions = append(p.Partitions, DeleteOffsetsRow{Topic: "orders", Partition: q, WouldFail: refused, Error: refused})
	}
	p.Partitions = append(p.Partitions,
		DeleteOffsetsRow{Topic: "audit", Partition: 0, WouldFail: refused, Error: "verify: still committed at 5"},
		DeleteOffsetsRow{Topic: "audit", Partition: 1, Status: "no commit"})
	want := []string{
		"group g: 13 partitions (orders/0, orders/1, orders/2, orders/3, orders/4 and 8 more): " + refused,
	}
	if got := p.WouldFail(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("WouldFail() = %q, want %q", got, want)
	}
	p.Error = "reading back offsets of group g: boom"
	want = []string{
		p.Error,
		"group g: 12 partitions (orders/0, orders/1, orders/2, orders/3, orders/4 and 7 more): " + refused,
		"group g topic audit partition 0: verify: still committed at 5",
	}
	if got := p.Errors(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Errors() = %q, want %q", got, want)
	}
	p.Partitions = p.Partitions[:2]
	got := p.WouldFail()
	if len(got) != 1 || got[0] != "group g: 2 partitions (orders/0, orders/1): "+refused || strings.Contains(got[0], "more") {
		t.Errorf("two partitions: %q", got)
	}
}

// UndoScope names exactly the deleted partitions after a partial failure:
// a whole topic when all its planned partitions went, else TOPIC:P,...;
// nothing when all committed partitions were deleted (the whole backup) or
// none was.
func TestDeleteOffsetsUndoScope(t *testing.T) {
	off := int64(3)
	row := func(topic string, q int32, status string, commit bool) DeleteOffsetsRow {
		r := DeleteOffsetsRow{Topic: topic, Partition: q, Status: status}
		if commit {
			r.Current = &off
		}
		return r
	}
	tests := []struct {
		name  string
		rows  []DeleteOffsetsRow
		scope string
		whole bool
	}{
		{"all deleted", []DeleteOffsetsRow{row("a", 0, "deleted", true), row("a", 1, "no commit", false)}, "[]", true},
		{"none deleted", []DeleteOffsetsRow{row("a", 0, "failed", true)}, "[]", false},
		{"partial", []DeleteOffsetsRow{
			row("a", 0, "failed", true), row("a", 1, "failed", true),
			row("b", 0, "deleted", true), row("b", 1, "deleted", true),
			row("c", 0, "deleted", true), row("c", 1, "no commit", false), row("c", 2, "deleted", true),
		}, "[b c:0,2]", false},
	}
	for _, tt := range tests {
		scope, whole := DeleteOffsetsPlan{Group: "g", Partitions: tt.rows}.UndoScope()
		if fmt.Sprint(scope) != tt.scope || whole != tt.whole {
			t.Errorf("%s: UndoScope() = %v, %v; want %s, %v", tt.name, scope, whole, tt.scope, tt.whole)
		}
	}
}

// A named Kafka Streams group is refused before anything is written: the
// run's refusals name it (with StreamsRefusal), whatever else was named,
// and a run of only deletable, missing or live groups has none.
func TestDeleteGroupsRefusals(t *testing.T) {
	c := func(o int64) lag.Commit { return lag.Commit{Offset: o, LeaderEpoch: -1} }
	snap := &lag.Snapshot{Groups: []lag.GroupSnapshot{
		{GroupInfo: lag.GroupInfo{Group: "g", Type: "classic", State: "Empty", Exists: true}, Commits: map[string]map[int32]lag.Commit{"t": {0: c(4)}}},
		{GroupInfo: lag.GroupInfo{Group: "app", Type: "streams", State: "Empty", Exists: true}, Commits: map[string]map[int32]lag.Commit{"t": {0: c(4)}}},
		{GroupInfo: lag.GroupInfo{Group: "live", Type: "consumer", State: "Stable", Exists: true, Members: []lag.Member{{ID: "m"}}}},
		{GroupInfo: lag.GroupInfo{Group: "gone", Type: "classic", State: "Dead"}},
	}}
	for _, tc := range []struct {
		groups []string
		want   []string
	}{
		{[]string{"g"}, nil},
		{[]string{"g", "live", "gone"}, nil},
		{[]string{"app"}, []string{"group app " + StreamsRefusal}},
		{[]string{"g", "app", "live"}, []string{"group app " + StreamsRefusal}},
	} {
		got := DeleteGroupsRefusals(PlanDeleteGroups(snap, tc.groups))
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("DeleteGroupsRefusals(%v) = %q, want %q", tc.groups, got, tc.want)
		}
	}
}
