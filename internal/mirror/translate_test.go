package mirror

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/offsetctl/offsetctl/internal/lag"
)

func snapshot(commits map[string]map[string]map[int32]int64, logs map[string][]int64) *lag.Snapshot {
	s := &lag.Snapshot{Offsets: lag.TopicOffsets{Partitions: lag.PartitionMap[lag.PartitionOffsets]{}}}
	for g, ts := range commits {
		gs := lag.GroupSnapshot{Commits: lag.PartitionMap[lag.Commit]{}}
		gs.Group = g
		for t, ps := range ts {
			for p, o := range ps {
				gs.Commits.Set(t, p, lag.Commit{Offset: o})
			}
		}
		s.Groups = append(s.Groups, gs)
	}
	for t, ends := range logs {
		for p, e := range ends {
			s.Offsets.Partitions.Set(t, int32(p), lag.PartitionOffsets{Start: 0, End: e})
		}
	}
	return s
}

func TestTranslate(t *testing.T) {
	now := time.Date(2026, 12, 3, 6, 0, 0, 0, time.UTC)
	cps := &Checkpoints{Topic: "A.checkpoints.internal"}
	cps.Add(Checkpoint{Group: "g", Topic: "A.t", Partition: 0, Upstream: 10, Downstream: 9, Time: now.Add(-time.Minute)})
	cps.Add(Checkpoint{Group: "g", Topic: "A.t", Partition: 0, Upstream: 50, Downstream: 41, Time: now.Add(-time.Second)}) // newer wins
	cps.Add(Checkpoint{Group: "g", Topic: "A.t", Partition: 1, Upstream: 7, Downstream: 7, Time: now.Add(-2 * time.Hour)})
	cps.Add(Checkpoint{Group: "g", Topic: "A.t", Partition: 3, Upstream: 500, Downstream: 500, Time: now})
	snap := snapshot(map[string]map[string]map[int32]int64{"g": {"A.t": {1: 7, 2: 3}, "A.u": {0: 4}, "local": {0: 1}}},
		map[string][]int64{"A.t": {100, 100, 100, 100}, "A.u": {10}})
	res := Translate(Input{Alias: "A", Groups: []string{"g", "none"}, Checkpoints: cps, Target: snap, MaxAge: time.Hour, Now: now})
	if len(res.Groups) != 2 || res.Groups[1].Error == "" || !strings.Contains(res.Groups[1].Error, "no checkpoint") {
		t.Fatalf("groups: %+v", res.Groups)
	}
	tests := []struct {
		topic  string
		p      int32
		tr     int64 // -1: none
		status string
		stale  bool
		note   string
	}{
		{"A.t", 0, 41, StatusChange, false, ""},
		{"A.t", 1, 7, StatusInSync, true, "older than --max-age"},
		{"A.t", 2, -1, StatusNoCheckpoint, false, "not guessed"},
		{"A.t", 3, 500, StatusChange, false, "past the log end"},
		{"A.u", 0, -1, StatusNoCheckpoint, false, "not guessed"}, // a B commit on a topic from A
	}
	rows := res.Groups[0].Partitions
	if len(rows) != len(tests) {
		t.Fatalf("rows: %+v", rows)
	}
	for i, tt := range tests {
		r := rows[i]
		tr := int64(-1)
		if r.TranslatedOffset != nil {
			tr = *r.TranslatedOffset
		}
		if r.Topic != tt.topic || r.Partition != tt.p || tr != tt.tr || r.Status != tt.status || r.Stale != tt.stale || !strings.Contains(r.Note, tt.note) {
			t.Errorf("row %d: %+v, want %+v", i, r, tt)
		}
	}
	if got := res.Groups[0].Missing(); strings.Join(got, ",") != "A.t/2,A.u/0" {
		t.Errorf("Missing: %v", got)
	}
	if n := len(res.PlanRows()); n != 3 {
		t.Errorf("PlanRows: %d, want 3 (the checkpointed partitions)", n)
	}
	// A group B could not be read is an error, not rows.
	snap.Groups[0].CommitErr = errors.New("boom")
	if g := Translate(Input{Alias: "A", Groups: []string{"g"}, Checkpoints: cps, Target: snap, Now: now}).Groups[0]; !strings.Contains(g.Error, "boom") {
		t.Errorf("commit error: %+v", g)
	}
}

func TestCompare(t *testing.T) {
	a := snapshot(map[string]map[string]map[int32]int64{"g": {"t": {0: 5, 1: 6, 2: 7}}}, nil)
	b := snapshot(map[string]map[string]map[int32]int64{"g": {"t": {0: 5, 1: 9, 3: 1}}}, nil)
	d := Compare([]string{"g"}, a, b)
	want := []string{DiffSame, DiffDiffer, DiffOnlyA, DiffOnlyB}
	if len(d.Rows) != 4 || d.Differences != 3 {
		t.Fatalf("%+v", d)
	}
	for i, w := range want {
		if d.Rows[i].Status != w {
			t.Errorf("row %d: %s, want %s", i, d.Rows[i].Status, w)
		}
	}
}

func TestAddSyncs(t *testing.T) {
	i := func(v int64) *int64 { return &v }
	res := Result{SourceAlias: "A", Groups: []Group{{Group: "g", Partitions: []Row{
		{Topic: "A.t", Partition: 0, SourceOffset: i(150), TranslatedOffset: i(102)}, // past the sync: +1
		{Topic: "A.t", Partition: 1, SourceOffset: i(20), TranslatedOffset: i(20)},   // on the sync
		{Topic: "A.t", Partition: 2, SourceOffset: i(20), TranslatedOffset: i(5)},    // from an older sync
		{Topic: "A.t", Partition: 3, SourceOffset: i(20), TranslatedOffset: i(5)},    // no sync
		{Topic: "A.t", Partition: 4}, // no checkpoint
	}}}}
	want := res.WantedSyncs()
	if len(want) != 4 || want[lag.TP{Topic: "t", Partition: 0}] != 150 {
		t.Fatalf("WantedSyncs: %v", want)
	}
	res.AddSyncs(Syncs{
		{Topic: "t", Partition: 0}: {Topic: "t", Partition: 0, Upstream: 101, Downstream: 101},
		{Topic: "t", Partition: 1}: {Topic: "t", Partition: 1, Upstream: 20, Downstream: 20},
		{Topic: "t", Partition: 2}: {Topic: "t", Partition: 2, Upstream: 10, Downstream: 9},
	})
	rows := res.Groups[0].Partitions
	if *rows[0].ReadAgain != 48 || *rows[1].ReadAgain != 0 || rows[2].ReadAgain != nil || rows[3].ReadAgain != nil || rows[4].SyncUpstream != nil {
		t.Fatalf("%+v", rows)
	}
	if !strings.Contains(rows[2].Note, "not the translation of the nearest sync (10->9)") || !strings.Contains(rows[3].Note, "no offset sync") {
		t.Fatalf("notes: %q %q", rows[2].Note, rows[3].Note)
	}
}
