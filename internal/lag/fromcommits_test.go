package lag

import (
	"context"
	"encoding/json"
	"fmt"
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
	commits := func(gs []string) map[string]PartitionMap[Commit] {
		out := map[string]PartitionMap[Commit]{}
		for _, g := range gs {
			if g == ghost {
				continue
			}
			if g == unlisted {
				out[g] = PartitionMap[Commit]{t2: {0: {Offset: 1}}}
				continue
			}
			f := FetchCommits(ctx, adm, []string{g})[g]
			out[g] = f.Commits
		}
		return out
	}
	var got []GroupLag
	var sizes []int
	if err := StreamLagFromCommits(ctx, adm, req, LagOptions{}, commits, func(_ context.Context, b LagBatch) error {
		sizes = append(sizes, len(b.Report.Groups))
		for _, g := range b.Snapshot.Groups {
			for tp := range b.Snapshot.Offsets.Partitions {
				if _, ok := g.Commits[tp]; !ok && !batchHas(b.Snapshot, tp) {
					t.Errorf("batch lists %s, which no group of it committed on", tp)
				}
			}
		}
		got = append(got, b.Report.Groups...)
		return nil
	}); err != nil {
		t.Fatal(err)
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
	// A scope leaves the other topics out of the listing, and keeps the
	// topic in scope for every batch with commits on it, whichever topic
	// of a group comes first.
	req.Scope = Scope{Topics: map[string][]int32{t2: nil}}
	if err := StreamLagFromCommits(ctx, adm, req, LagOptions{Scope: req.Scope}, commits, func(_ context.Context, b LagBatch) error {
		if _, ok := b.Snapshot.Offsets.Partitions[t1]; ok {
			t.Errorf("%s listed out of scope", t1)
		}
		if _, ok := b.Snapshot.Offsets.Partitions[t2]; batchHas(b.Snapshot, t2) && !ok {
			t.Errorf("%s, in scope and committed on, not listed", t2)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

func batchHas(s *Snapshot, topic string) bool {
	for _, g := range s.Groups {
		if _, ok := g.Commits[topic]; ok {
			return true
		}
	}
	return false
}

// offsetsOf keeps every in-scope topic a group committed on, whichever of
// its topics comes first (map order), and each topic's listing error.
func TestOffsetsOfScope(t *testing.T) {
	topics := []string{"a", "b", "c", "d", "e"}
	all := TopicOffsets{Partitions: PartitionMap[PartitionOffsets]{}, TopicErr: map[string]error{"e": fmt.Errorf("gone")}}
	g := GroupSnapshot{Commits: PartitionMap[Commit]{}}
	for _, tp := range topics {
		all.Partitions[tp] = map[int32]PartitionOffsets{0: {}}
		g.Commits[tp] = map[int32]Commit{0: {Offset: 1}}
	}
	scope := Scope{Topics: map[string][]int32{"c": nil, "e": nil}}
	for range 20 {
		out := offsetsOf(all, []GroupSnapshot{g}, scope)
		if _, ok := out.Partitions["c"]; !ok || len(out.Partitions) != 2 || out.TopicErr["e"] == nil || len(out.TopicErr) != 1 {
			t.Fatalf("scope c, e: partitions %v, errors %v", out.Partitions, out.TopicErr)
		}
	}
}
