package replay

import (
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TestGrownPlan: a partition added while following starts at its log
// start and is bounded as every partition of a --follow is.
func TestGrownPlan(t *testing.T) {
	at := time.UnixMilli(5000)
	for _, tc := range []struct {
		until         Until
		bound, stopAt int64
		by            string
	}{
		{Until{}, NoBound, -1, ""},
		{Until{Set: true, Offset: 40}, 40, -1, BoundUntil},
		{Until{Set: true, Offset: 3}, 7, -1, BoundUntil}, // below the log start: empty
		{Until{Set: true, IsTime: true, Time: at}, NoBound, 5000, BoundUntil},
	} {
		pp := grownPlan(4, 7, tc.until)
		if pp.Partition != 4 || pp.From != 7 || pp.LogStart != 7 || pp.Bound != tc.bound || pp.StopAtMs != tc.stopAt || pp.BoundBy != tc.by {
			t.Errorf("until %v: %+v", tc.until, pp)
		}
	}
}

// TestAdoptAddsThePartitionsFound: partitions the grower found are read
// from then on (a state, in order, open); with none found nothing
// changes.
func TestAdoptAddsThePartitionsFound(t *testing.T) {
	cl, err := kgo.NewClient(kgo.SeedBrokers("127.0.0.1:1"))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	c := &consumer{cl: cl, plan: Plan{Topic: "t"}, states: map[int32]*pstate{5: {}}, order: []int32{5}, open: 1, grow: &grower{}}
	if err := c.adopt(); err != nil || len(c.states) != 1 || c.open != 1 {
		t.Fatalf("nothing found: %v, %d states, %d open", err, len(c.states), c.open)
	}
	c.grow.pending = []PartitionPlan{{Partition: 7, From: 0, Bound: NoBound, StopAtMs: -1}, {Partition: 6, From: 2, Bound: NoBound, StopAtMs: -1}}
	if err := c.adopt(); err != nil {
		t.Fatal(err)
	}
	if st := c.states[7]; st == nil || st.next != 0 || st.done || c.states[6] == nil || c.states[6].next != 2 {
		t.Fatalf("states after adopting 6 and 7: %v", c.states)
	}
	if c.open != 3 || fmt.Sprint(c.order) != "[5 6 7]" || len(c.plan.Partitions) != 2 || len(c.grow.pending) != 0 {
		t.Errorf("open %d, order %v, plan %d partitions, pending %d", c.open, c.order, len(c.plan.Partitions), len(c.grow.pending))
	}
}

// TestAdoptEmptyPartitions: an added partition with nothing to read (its
// range empty, no time to wait for) is done at once and not read; one
// that stops at a time (even the epoch) is read until it.
func TestAdoptEmptyPartitions(t *testing.T) {
	cl, err := kgo.NewClient(kgo.SeedBrokers("127.0.0.1:1"))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	c := &consumer{cl: cl, plan: Plan{Topic: "t"}, states: map[int32]*pstate{}, grow: &grower{}}
	c.grow.pending = []PartitionPlan{
		{Partition: 1, From: 5, Bound: 5, StopAtMs: -1}, // empty: done
		{Partition: 2, From: 5, Bound: 5, StopAtMs: 0},  // empty range, but stops at a time: read
		{Partition: 3, From: 0, Bound: NoBound, StopAtMs: -1},
	}
	if err := c.adopt(); err != nil {
		t.Fatal(err)
	}
	if !c.states[1].done || c.states[2].done || c.states[3].done || c.open != 2 {
		t.Errorf("done: 1 %v, 2 %v, 3 %v; open %d, want only 1 done and 2 open", c.states[1].done, c.states[2].done, c.states[3].done, c.open)
	}
}
