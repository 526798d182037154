package lag

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/offsetctl/offsetctl/internal/testkit"
)

// TestStreamLagFromCommits: given the commits OffsetFetch would answer,
// the report is StreamLag's (rows, lag, log offsets, state and type) but
// for the members, which nothing describes; the batches are StreamLag's
// (25 groups each, in name order, each with its own topics' offsets only);
// a group named but not listed and not committed is a group that does not
// exist; one not listed but committed exists, classic and Empty; a topic
// out of scope is not listed.
func TestStreamLagFromCommits(t *testing.T) {
	c := testkit.New(t)
	t1, t2 := c.Topic(2, nil), c.Topic(1, nil)
	c.Produce(t1, map[int32]int{0: 30, 1: 20}, time.Time{})
	c.Produce(t2, map[int32]int{0: 10}, time.Time{})
	var groups []string
	for i := range 27 {
		g := testkit.Name(t, fmt.Sprintf("fc-%02d", i))
		groups = append(groups, g)
		c.Commit(g, t1, map[int32]int64{0: int64(i), 1: 20})
		if i%2 == 0 {
			c.Commit(g, t2, map[int32]int64{0: 3})
		}
	}
	ghost, unlisted := testkit.Name(t, "fc-ghost"), testkit.Name(t, "fc-unlisted")
	adm := c.Admin()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req := GatherRequest{Groups: append(append([]string{}, groups...), ghost, unlisted), NoLeaderWait: true}
	var polled []GroupLag
	if err := StreamLag(ctx, adm, GatherRequest{Groups: groups}, LagOptions{}, StreamOptions{}, func(_ context.Context, b LagBatch) error {
		polled = append(polled, b.Report.Groups...)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	commits := func(gs []string) map[string][]CommitRow {
		out := map[string][]CommitRow{}
		for _, g := range gs {
			if g == ghost {
				continue
			}
			if g == unlisted {
				out[g] = []CommitRow{{t2, 0, 1}}
				continue
			}
			f := FetchCommits(ctx, adm, []string{g})[g]
			out[g] = []CommitRow{} // a group with commits: rows, in any order
			f.Commits.Each(func(t string, p int32, c Commit) { out[g] = append(out[g], CommitRow{t, p, c.Offset}) })
		}
		return out
	}
	var got []GroupLag
	var sizes []int
	var firstRows []*PartitionLag
	if err := StreamLagFromCommits(ctx, adm, req, LagOptions{}, commits, func(_ context.Context, b LagBatch) error {
		sizes = append(sizes, len(b.Report.Groups))
		for tp := range b.Snapshot.Offsets.Partitions {
			if !batchHas(b.Report, tp) {
				t.Errorf("batch lists %s, which no group of it committed on", tp)
			}
		}
		got = append(got, kept(b.Report.Groups)...)
		firstRows = append(firstRows, &b.Report.Groups[0].Partitions[0])
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(firstRows) != 2 || firstRows[0] != firstRows[1] {
		t.Errorf("the second batch's rows are not the first's arrays written again")
	}
	if fmt.Sprint(sizes) != "[25 4]" {
		t.Errorf("batch sizes %v, want [25 4]", sizes)
	}
	for i, g := range polled {
		g.Members, g.MemberList = 0, nil
		for j := range g.Partitions {
			g.Partitions[j].Member, g.Partitions[j].ClientID, g.Partitions[j].Host = "", "", ""
		}
		a, _ := json.Marshal(g)
		b, _ := json.Marshal(got[i])
		if string(a) != string(b) {
			t.Errorf("group %d:\npolled %s\ntailed %s", i, a, b)
		}
	}
	byName := map[string]GroupLag{}
	for _, g := range got {
		byName[g.Group] = g
	}
	if g := byName[ghost]; g.Error != "group does not exist" {
		t.Errorf("ghost: %+v", g)
	}
	if g := byName[unlisted]; g.Error != "" || g.Type != "classic" || g.State != "Empty" || len(g.Partitions) != 1 || *g.Partitions[0].Lag != 9 {
		t.Errorf("unlisted: %+v", g)
	}
	// Exactly one batch's worth of groups is one batch, not a second
	// empty one.
	sizes = nil
	if err := StreamLagFromCommits(ctx, adm, GatherRequest{Groups: groups[:LagBatchGroups], NoLeaderWait: true}, LagOptions{}, commits, func(_ context.Context, b LagBatch) error {
		sizes = append(sizes, len(b.Report.Groups))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(sizes) != fmt.Sprint([]int{LagBatchGroups}) {
		t.Errorf("%d groups: batch sizes %v, want one of %d", LagBatchGroups, sizes, LagBatchGroups)
	}
	// Under a scope the rows are StreamLag's too: partitions filtered
	// (the rows path), partitions named (asked rows, for a partition with
	// no commit or none at all: computeGroupLag's path).
	for _, scope := range []Scope{
		{Topics: map[string][]int32{t1: {1}}},
		{Topics: map[string][]int32{t1: {1, 5}, t2: nil}, Named: map[string][]int32{t1: {1, 5}}},
	} {
		sreq := GatherRequest{Groups: groups[:3], Scope: scope, NoLeaderWait: true}
		var want, have []GroupLag
		if err := StreamLag(ctx, adm, sreq, LagOptions{Scope: scope}, StreamOptions{}, func(_ context.Context, b LagBatch) error {
			want = append(want, b.Report.Groups...)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if err := StreamLagFromCommits(ctx, adm, sreq, LagOptions{Scope: scope}, commits, func(_ context.Context, b LagBatch) error {
			have = append(have, kept(b.Report.Groups)...)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		for i := range want {
			want[i].Members, want[i].MemberList = 0, nil
			a, _ := json.Marshal(want[i])
			b, _ := json.Marshal(have[i])
			if string(a) != string(b) {
				t.Errorf("scope %v, group %d:\npolled %s\ntailed %s", scope, i, a, b)
			}
		}
		if len(have) != 3 || len(have[0].Partitions) == 0 {
			t.Errorf("scope %v: %d groups, %+v", scope, len(have), have)
		}
	}
	// A scope leaves the other topics out of the listing, and keeps the
	// topic in scope for every batch with commits on it, whichever topic
	// of a group comes first.
	req.Scope = Scope{Topics: map[string][]int32{t2: nil}}
	if err := StreamLagFromCommits(ctx, adm, req, LagOptions{Scope: req.Scope}, commits, func(_ context.Context, b LagBatch) error {
		if _, ok := b.Snapshot.Offsets.Partitions[t1]; ok {
			t.Errorf("%s listed out of scope", t1)
		}
		if _, ok := b.Snapshot.Offsets.Partitions[t2]; batchHas(b.Report, t2) && !ok {
			t.Errorf("%s, in scope and committed on, not listed", t2)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// kept is gs copied to outlive its batch, whose rows StreamLagFromCommits
// writes the next batch's over.
func kept(gs []GroupLag) []GroupLag {
	out := slices.Clone(gs)
	for i := range out {
		out[i].Partitions = slices.Clone(out[i].Partitions)
		for j := range out[i].Partitions {
			p := &out[i].Partitions[j]
			p.Committed, p.Lag, p.TimeLagMs = clonedInt(p.Committed), clonedInt(p.Lag), clonedInt(p.TimeLagMs)
		}
	}
	return out
}

func clonedInt(v *int64) *int64 {
	if v == nil {
		return nil
	}
	c := *v
	return &c
}

// batchRows has room for the largest batch's rows, lends them in turn
// (each group its own part: 0 length, its rows' capacity) until reset,
// and new arrays past its room.
func TestBatchRows(t *testing.T) {
	sizes := make([][]CommitRow, LagBatchGroups+2) // batch 1: 2 rows; batch 2: 3 + 4 rows
	sizes[0], sizes[1] = make([]CommitRow, 1), make([]CommitRow, 1)
	sizes[LagBatchGroups], sizes[LagBatchGroups+1] = make([]CommitRow, 3), make([]CommitRow, 4)
	b := newBatchRows(sizes)
	if len(b.rows) != 7 || len(b.vals) != 14 {
		t.Fatalf("room for %d rows, %d values; want 7, 14", len(b.rows), len(b.vals))
	}
	r1, v1 := b.take(3)
	r2, v2 := b.take(4)
	if len(r1) != 0 || cap(r1) != 3 || len(v1) != 6 || cap(r2) != 4 || len(v2) != 8 || &v2[0] != &b.vals[6] {
		t.Errorf("lent %d/%d rows, %d values, then %d rows, %d values", len(r1), cap(r1), len(v1), cap(r2), len(v2))
	}
	if r3, v3 := b.take(1); cap(r3) != 1 || len(v3) != 2 || b.used != 7 {
		t.Errorf("past its room: %d rows, %d values, %d used", cap(r3), len(v3), b.used)
	}
	b.dense["a"] = nil
	b.reset()
	if r, _ := b.take(2); b.used != 2 || &r[:1][0] != &b.rows[0] || len(b.dense) != 0 {
		t.Errorf("after reset: %d used, dense %v", b.used, b.dense)
	}
	if r, v := (*batchRows)(nil).take(5); cap(r) != 5 || len(v) != 10 {
		t.Errorf("without a buffer: %d rows, %d values", cap(r), len(v))
	}
}

// A topic's offsets are indexed by partition when they are 0..n-1, once
// per batch; otherwise (or without a buffer) looked up in the map.
func TestOffsetsByPartition(t *testing.T) {
	b := &batchRows{dense: map[string][]PartitionOffsets{}}
	full := map[int32]PartitionOffsets{0: {End: 1}, 1: {End: 2}, 2: {End: 3}}
	d := b.offsetsByPartition("a", full)
	if len(d) != 3 || d[0].End != 1 || d[2].End != 3 {
		t.Errorf("dense %v", d)
	}
	if d2 := b.offsetsByPartition("a", nil); len(d2) != 3 {
		t.Errorf("not kept for the batch: %v", d2)
	}
	for _, parts := range []map[int32]PartitionOffsets{{0: {}, 2: {}}, {-1: {}, 0: {}}, {1: {}}} {
		if d := b.offsetsByPartition(fmt.Sprint(parts), parts); d != nil {
			t.Errorf("%v: dense %v", parts, d)
		}
	}
	if d := (*batchRows)(nil).offsetsByPartition("a", full); d != nil {
		t.Errorf("without a buffer: %v", d)
	}
	// The map differs from the slice at 0 and 2: the slice is read first.
	sparse := map[int32]PartitionOffsets{0: {End: 100}, 2: {End: 102}, 5: {End: 6}, -2: {End: 7}}
	for _, c := range []struct {
		p      int32
		end    int64
		listed bool
	}{{0, 1, true}, {2, 3, true}, {3, 0, false}, {5, 6, true}, {-2, 7, true}, {-1, 0, false}} {
		po, ok := partitionOffsets(d, sparse, c.p)
		if ok != c.listed || po.End != c.end {
			t.Errorf("partition %d: %v %v, want %d %v", c.p, po, ok, c.end, c.listed)
		}
	}
}

func batchHas(rep LagReport, topic string) bool {
	for _, g := range rep.Groups {
		if slices.Contains(g.Topics, topic) {
			return true
		}
	}
	return false
}

// offsetsOf keeps every in-scope topic a group committed on, and each
// topic's listing error.
func TestOffsetsOfScope(t *testing.T) {
	topics := []string{"a", "b", "c", "d", "e"}
	all := TopicOffsets{Partitions: PartitionMap[PartitionOffsets]{}, TopicErr: map[string]error{"e": fmt.Errorf("gone")}}
	var rows []CommitRow
	for _, tp := range topics {
		all.Partitions[tp] = map[int32]PartitionOffsets{0: {}}
		rows = append(rows, CommitRow{tp, 0, 1}, CommitRow{tp, 1, 1})
	}
	groups := []GroupSnapshot{{GroupInfo: GroupInfo{Group: "g"}}}
	scope := Scope{Topics: map[string][]int32{"c": nil, "e": nil}}
	out := offsetsOf(all, groups, map[string][]CommitRow{"g": rows}, scope)
	if _, ok := out.Partitions["c"]; !ok || len(out.Partitions) != 2 || out.TopicErr["e"] == nil || len(out.TopicErr) != 1 {
		t.Fatalf("scope c, e: partitions %v, errors %v", out.Partitions, out.TopicErr)
	}
}

// sortRows orders rows by topic, then partition: in one pass for one
// topic's partitions 0..n-1, by sorting otherwise (gaps, several topics,
// a partition twice, negative or past-the-end partitions).
func TestSortRows(t *testing.T) {
	r := func(topic string, ps ...int32) []CommitRow {
		var out []CommitRow
		for _, p := range ps {
			out = append(out, CommitRow{topic, p, int64(p) * 10})
		}
		return out
	}
	cases := []struct {
		name  string
		rows  []CommitRow
		dense bool
	}{
		{"dense", r("a", 3, 0, 2, 1, 4), true},
		{"in place", r("a", 0, 1, 2, 3), true},
		{"in place, another topic last", append(r("a", 0, 1), CommitRow{"b", 2, 0}), false},
		{"one", r("a", 0), true},
		{"empty", nil, true},
		{"gap", r("a", 3, 0, 2, 5, 4), false},
		{"last past the end", r("a", 1, 0, 2, 3), true},
		{"past the end", r("a", 1, 0, 4, 2), false},
		{"negative", r("a", 1, 0, -1), false},
		{"twice", r("a", 1, 0, 1, 2), false},
		{"twice later", r("a", 2, 0, 0), false},
		{"two topics", append(r("b", 1, 0), r("a", 1, 0)...), false},
	}
	for _, c := range cases {
		want := slices.Clone(c.rows)
		slices.SortFunc(want, func(a, b CommitRow) int { return CompareTP(TP{a.Topic, a.Partition}, TP{b.Topic, b.Partition}) })
		dense := placeDense(slices.Clone(c.rows))
		got := sortRows(c.rows)
		if dense != c.dense || !slices.Equal(got, want) {
			t.Errorf("%s: dense %v, sorted %v, want %v %v", c.name, dense, got, c.dense, want)
		}
	}
}

// groupLagFromRows is computeGroupLag over the same commits as a map, row
// for row: a topic that could not be listed, a partition it lacks, one
// whose listing failed, a commit past the end (under either isolation)
// and one before the start, a scope, a group that does not exist, a share
// group and named partitions (computeGroupLag's own path). A buffer whose
// rows were written before (every field set: rows are recycled batch to
// batch) gives the same rows.
func TestGroupLagFromRowsAgrees(t *testing.T) {
	offs := TopicOffsets{
		Partitions: PartitionMap[PartitionOffsets]{
			"a": {0: {Start: 0, End: 10}, 1: {Start: 5, End: 20}, 2: {Start: -1, End: -1, Err: fmt.Errorf("not leader")}},
			"b": {0: {Start: 0, End: 3}},
		},
		TopicErr: map[string]error{"gone": fmt.Errorf("unknown topic")},
	}
	rows := []CommitRow{{"a", 0, 4}, {"a", 1, 2}, {"a", 2, 1}, {"a", 7, 1}, {"b", 0, 9}, {"gone", 0, 1}, {"gone", 3, 2}}
	info := GroupInfo{Group: "g", Type: "classic", State: "Empty", ProtocolType: "consumer", Exists: true, Coordinator: 2}
	cases := []struct {
		name  string
		info  GroupInfo
		iso   Isolation
		scope Scope
	}{
		{"all", info, ReadUncommitted, Scope{}},
		{"read committed", info, ReadCommitted, Scope{}},
		{"scoped", info, ReadUncommitted, Scope{Topics: map[string][]int32{"a": {1, 2}, "gone": nil}}},
		{"named", info, ReadUncommitted, Scope{Topics: map[string][]int32{"a": {1, 5}}, Named: map[string][]int32{"a": {1, 5}}}},
		{"not a group", GroupInfo{Group: "g", State: "Dead", Coordinator: -1}, ReadUncommitted, Scope{}},
		{"share", GroupInfo{Group: "g", Type: "share", State: "Empty", Exists: true}, ReadUncommitted, Scope{}},
		{"connect", GroupInfo{Group: "g", Type: "classic", State: "Stable", ProtocolType: "connect", Exists: true}, ReadUncommitted, Scope{}},
	}
	for _, c := range cases {
		for _, buf := range []*batchRows{nil, newBatchRows([][]CommitRow{rows}), {dense: map[string][]PartitionOffsets{}}, dirtied(newBatchRows([][]CommitRow{rows}))} {
			s := &Snapshot{Offsets: offs, Isolation: c.iso}
			o := LagOptions{Scope: c.scope}
			g := GroupSnapshot{GroupInfo: c.info, Commits: PartitionMap[Commit]{}}
			for _, r := range rows {
				g.Commits.Set(r.Topic, r.Partition, Commit{Offset: r.Offset, LeaderEpoch: -1})
			}
			want, _ := json.Marshal(computeGroupLag(s, g, o))
			all := sortRows(slices.Clone(rows))
			gotLag := groupLagFromRows(s, GroupSnapshot{GroupInfo: c.info}, all, inScope(all, c.scope), o, buf)
			got, _ := json.Marshal(gotLag)
			if string(got) != string(want) {
				t.Errorf("%s, buffer %v:\nrows %s\nmap  %s", c.name, buf != nil, got, want)
			}
		}
	}
}

// eachTopic names each topic of sorted rows once, in order, when in scope.
func TestEachTopic(t *testing.T) {
	rows := []CommitRow{{"a", 0, 1}, {"a", 1, 1}, {"b", 0, 1}, {"b", 1, 1}, {"c", 0, 1}}
	var got []string
	eachTopic(rows, Scope{Topics: map[string][]int32{"a": nil, "b": {1}}}, func(t string) { got = append(got, t) })
	if fmt.Sprint(got) != "[a b]" {
		t.Errorf("topics %v, want [a b]", got)
	}
	one := []CommitRow{{"a", 0, 1}, {"a", 1, 1}, {"a", 2, 1}}
	for _, c := range []struct {
		rows  []CommitRow
		scope Scope
		want  string
	}{
		{one, Scope{}, "[a]"},
		{one, Scope{Topics: map[string][]int32{"b": nil}}, "[]"},
		{nil, Scope{}, "[]"},
		{[]CommitRow{{"a", 0, 1}, {"b", 0, 1}}, Scope{}, "[a b]"},
	} {
		got = []string{}
		eachTopic(c.rows, c.scope, func(t string) { got = append(got, t) })
		if fmt.Sprint(got) != c.want {
			t.Errorf("%v in %v: topics %v, want %s", c.rows, c.scope, got, c.want)
		}
	}
}

// The rows path builds no map per group: a few allocations for a
// thousand rows (computeGroupLag's path makes one per row and more).
func TestGroupLagFromRowsAllocs(t *testing.T) {
	s := &Snapshot{Offsets: TopicOffsets{Partitions: PartitionMap[PartitionOffsets]{"a": {}}}}
	var rows []CommitRow
	for p := range int32(1000) {
		s.Offsets.Partitions["a"][p] = PartitionOffsets{Start: 0, End: 10}
		rows = append(rows, CommitRow{"a", p, 5})
	}
	g := GroupSnapshot{GroupInfo: GroupInfo{Group: "g", Type: "classic", State: "Empty", ProtocolType: "consumer", Exists: true}}
	n := testing.AllocsPerRun(5, func() { groupLagFromRows(s, g, rows, rows, LagOptions{}, nil) })
	if n > 10 {
		t.Errorf("%v allocations for 1,000 rows", n)
	}
}

// dirtied is b with every field of every row set to something no row of
// groupLagFromRows has (strings "stale", numbers 99, pointers to 99), as
// a batch before would have left them.
func dirtied(b *batchRows) *batchRows {
	for i := range b.rows {
		v := reflect.ValueOf(&b.rows[i]).Elem()
		for f := 0; f < v.NumField(); f++ {
			switch fv := v.Field(f); fv.Kind() {
			case reflect.String:
				fv.SetString("stale")
			case reflect.Int32, reflect.Int64:
				fv.SetInt(99)
			case reflect.Pointer:
				n := int64(99)
				fv.Set(reflect.ValueOf(&n))
			default:
				panic("dirtied: a field of kind " + fv.Kind().String())
			}
		}
	}
	return b
}
