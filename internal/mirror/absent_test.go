package mirror

import (
	"reflect"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/offsetctl/offsetctl/internal/lag"
)

// TestNotOnTarget: checkpoints for a deleted topic and for a partition B
// lacks are not-on-target rows, named by NotOnTarget and left out of the
// plan; another topic's failure stays an error.
func TestNotOnTarget(t *testing.T) {
	now := time.Date(2026, 12, 3, 6, 0, 0, 0, time.UTC)
	cps := &Checkpoints{Topic: "A.checkpoints.internal"}
	for _, c := range []Checkpoint{
		{Group: "g", Topic: "A.t", Partition: 0, Upstream: 5, Downstream: 5},
		{Group: "g", Topic: "A.t", Partition: 7, Upstream: 5, Downstream: 5},
		{Group: "g", Topic: "A.gone", Partition: 0, Upstream: 5, Downstream: 5},
		{Group: "g", Topic: "A.down", Partition: 0, Upstream: 5, Downstream: 5},
	} {
		cps.Add(c)
	}
	snap := snapshot(map[string]map[string]map[int32]int64{"g": {"A.t": {0: 1}}}, map[string][]int64{"A.t": {10}})
	snap.Offsets.TopicErr = map[string]error{
		"A.gone": lag.DescribeTopicErr("A.gone", kerr.UnknownTopicOrPartition),
		"A.down": lag.DescribeTopicErr("A.down", kerr.LeaderNotAvailable),
	}
	res := Translate(Input{Alias: "A", Groups: []string{"g"}, Checkpoints: cps, Target: snap, Now: now})
	g := res.Groups[0]
	if got, want := g.NotOnTarget(), []string{"A.gone/0", "A.t/7"}; !reflect.DeepEqual(got, want) {
		t.Errorf("NotOnTarget: %v, want %v", got, want)
	}
	statuses := map[string]string{}
	for _, r := range g.Partitions {
		statuses[r.Topic] += r.Status + " "
	}
	if want := map[string]string{"A.t": "change not-on-target ", "A.gone": "not-on-target ", "A.down": "error "}; !reflect.DeepEqual(statuses, want) {
		t.Errorf("statuses: %v, want %v", statuses, want)
	}
	// Only A.t/0: the error row has no translation (and fails a reset).
	if rows := res.PlanRows(); len(rows) != 1 || rows[0].Topic != "A.t" || rows[0].Partition != 0 || rows[0].Offset != 5 {
		t.Errorf("plan rows: %+v, want A.t/0 at 5 only", rows)
	}
}

func TestUncommitted(t *testing.T) {
	a := snapshot(map[string]map[string]map[int32]int64{"g": {"t": {0: 1}}, "empty": {}}, nil)
	b := snapshot(map[string]map[string]map[int32]int64{"h": {"t": {0: 1}}}, nil)
	if got, want := Uncommitted([]string{"g", "h", "empty", "typo"}, a, b), []string{"empty", "typo"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Uncommitted: %v, want %v", got, want)
	}
}
