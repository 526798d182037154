package admin

import (
	"errors"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
)

func i64(v int64) *int64 { return &v }

func TestPartitionLag(t *testing.T) {
	cases := []struct {
		name       string
		committed  *int64
		start, end int64
		lag        int64
		noteHas    string
	}{
		{"normal", i64(5), 0, 20, 15, ""},
		{"caught up", i64(20), 0, 20, 0, ""},
		{"no commit counts from log start", nil, 3, 20, 17, "no committed offset"},
		{"commit past end", i64(25), 0, 20, 0, "5 past the log end"},
		{"commit below log start", i64(2), 10, 20, 18, "8 records expired unread"},
		{"empty partition no commit", nil, 0, 0, 0, "no committed offset"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			lag, note := partitionLag(c.committed, c.start, c.end)
			if lag != c.lag {
				t.Errorf("lag = %d, want %d", lag, c.lag)
			}
			if c.noteHas == "" && note != "" || c.noteHas != "" && !strings.Contains(note, c.noteHas) {
				t.Errorf("note = %q, want it to contain %q", note, c.noteHas)
			}
		})
	}
}

func snapshot() *Snapshot {
	return &Snapshot{
		Groups: []GroupSnapshot{
			{
				GroupInfo: GroupInfo{Group: "b", Type: "consumer", State: "Stable", Exists: true, Members: []Member{
					{ID: "m1", ClientID: "c1", Host: "/10.0.0.1", Assigned: map[string][]int32{"t": {0, 1}}},
				}},
				Commits: map[string]map[int32]Commit{"t": {0: {Offset: 4}}},
			},
			{
				GroupInfo: GroupInfo{Group: "a", Type: "classic", State: "Empty", Exists: true},
				Commits: map[string]map[int32]Commit{
					"t":    {1: {Offset: 7}, 0: {Offset: 10}},
					"gone": {0: {Offset: 3}},
					"u":    {5: {Offset: 1}},
				},
			},
			{GroupInfo: GroupInfo{Group: "nope", State: "Dead"}},
		},
		Offsets: TopicOffsets{
			Partitions: map[string]map[int32]PartitionOffsets{
				"t": {0: {Start: 0, End: 10}, 1: {Start: 2, End: 12}},
				"u": {0: {Start: 0, End: 1}},
			},
			TopicErr: map[string]error{"gone": errors.New("topic gone does not exist (deleted?)")},
		},
	}
}

func TestComputeLag(t *testing.T) {
	rep := ComputeLag(snapshot(), Scope{})
	if len(rep.Groups) != 3 || rep.Groups[0].Group != "a" || rep.Groups[1].Group != "b" || rep.Groups[2].Group != "nope" {
		t.Fatalf("groups not sorted by name: %+v", rep.Groups)
	}
	a := rep.Groups[0]
	// rows sorted by topic, partition: gone/0, t/0, t/1, u/5
	want := []struct {
		topic string
		part  int32
		lag   int64
		err   bool
	}{{"gone", 0, 0, true}, {"t", 0, 0, false}, {"t", 1, 5, false}, {"u", 5, 0, true}}
	if len(a.Partitions) != len(want) {
		t.Fatalf("group a rows: %+v", a.Partitions)
	}
	for i, w := range want {
		p := a.Partitions[i]
		if p.Topic != w.topic || p.Partition != w.part || p.Lag != w.lag || (p.Error != "") != w.err {
			t.Errorf("row %d = %+v, want %+v", i, p, w)
		}
	}
	if a.TotalLag != 5 {
		t.Errorf("total lag of a = %d, want 5 (error rows excluded)", a.TotalLag)
	}
	b := rep.Groups[1]
	if len(b.Partitions) != 2 {
		t.Fatalf("group b rows: %+v", b.Partitions)
	}
	if b.Partitions[0].Member != "m1" || b.Partitions[0].Lag != 6 || *b.Partitions[0].Committed != 4 {
		t.Errorf("b t/0 = %+v", b.Partitions[0])
	}
	// Assigned but never committed: COMMITTED null, lag = end - start.
	if p := b.Partitions[1]; p.Committed != nil || p.Lag != 10 || p.ClientID != "c1" || p.Host != "/10.0.0.1" {
		t.Errorf("b t/1 = %+v", p)
	}
	if b.TotalLag != 16 || b.Members != 1 {
		t.Errorf("b total = %d members = %d", b.TotalLag, b.Members)
	}
	if n := rep.Groups[2]; n.Error != "group does not exist" || len(n.Partitions) != 0 {
		t.Errorf("nonexistent group = %+v", n)
	}
	errs := rep.Errors()
	if len(errs) != 3 {
		t.Errorf("errors = %q, want 3 (gone/0, u/5, nope)", errs)
	}
}

func TestComputeLagScope(t *testing.T) {
	scope, err := ParseScope([]string{"t:1"})
	if err != nil {
		t.Fatal(err)
	}
	rep := ComputeLag(snapshot(), scope)
	a := rep.Groups[0]
	if len(a.Partitions) != 1 || a.Partitions[0].Topic != "t" || a.Partitions[0].Partition != 1 || a.TotalLag != 5 {
		t.Errorf("scoped rows = %+v", a.Partitions)
	}
	if b := rep.Groups[1]; len(b.Partitions) != 1 || b.Partitions[0].Partition != 1 {
		t.Errorf("scoped rows of b = %+v", b.Partitions)
	}
}

func TestParseScope(t *testing.T) {
	cases := []struct {
		in      []string
		want    map[string][]int32
		wantErr bool
	}{
		{nil, nil, false},
		{[]string{"orders"}, map[string][]int32{"orders": nil}, false},
		{[]string{"orders:2,0,2"}, map[string][]int32{"orders": {0, 2}}, false},
		{[]string{"orders:1", "orders:0"}, map[string][]int32{"orders": {0, 1}}, false},
		{[]string{"orders:1", "orders"}, map[string][]int32{"orders": nil}, false},
		{[]string{"a.b_c-d", "x:3"}, map[string][]int32{"a.b_c-d": nil, "x": {3}}, false},
		{[]string{""}, nil, true},
		{[]string{"orders:"}, nil, true},
		{[]string{"orders:-1"}, nil, true},
		{[]string{"orders:x"}, nil, true},
		{[]string{"bad topic"}, nil, true},
		{[]string{".."}, nil, true},
		{[]string{"orders:99999999999"}, nil, true},
	}
	for _, c := range cases {
		s, err := ParseScope(c.in)
		if (err != nil) != c.wantErr {
			t.Errorf("ParseScope(%q) err = %v, wantErr %v", c.in, err, c.wantErr)
			continue
		}
		if err != nil {
			continue
		}
		if len(s.Topics) != len(c.want) {
			t.Errorf("ParseScope(%q) = %v, want %v", c.in, s.Topics, c.want)
		}
		for topic, ps := range c.want {
			got, ok := s.Topics[topic]
			if !ok || (ps == nil) != (got == nil) || len(got) != len(ps) {
				t.Errorf("ParseScope(%q)[%s] = %v, want %v", c.in, topic, got, ps)
				continue
			}
			for i := range ps {
				if got[i] != ps[i] {
					t.Errorf("ParseScope(%q)[%s] = %v, want %v", c.in, topic, got, ps)
				}
			}
		}
	}
}

func FuzzParseScope(f *testing.F) {
	for _, s := range []string{"orders", "orders:0,2", "a:1,1,1", ":", "t:", "t:-1", "t:0,,1", "x:2147483648"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sc, err := ParseScope([]string{s})
		if err != nil {
			return
		}
		for topic, ps := range sc.Topics {
			if validTopicName(topic) != nil {
				t.Fatalf("accepted invalid topic %q", topic)
			}
			for i, p := range ps {
				if p < 0 || i > 0 && ps[i-1] >= p {
					t.Fatalf("partitions not sorted unique non-negative: %v", ps)
				}
				if !sc.Has(topic, p) {
					t.Fatalf("scope does not have its own partition %s/%d", topic, p)
				}
			}
		}
	})
}

func TestCheckScope(t *testing.T) {
	offs := snapshot().Offsets
	for _, c := range []struct {
		scope []string
		want  string
	}{
		{[]string{"t", "u:0"}, ""},
		{[]string{"t:1"}, ""},
		{[]string{"t:2"}, "partition 2 does not exist in topic t (it has 2 partitions)"},
		{[]string{"t:7", "t"}, "partition 7 does not exist in topic t (it has 2 partitions)"},
		{[]string{"gone"}, "topic gone does not exist (deleted?)"},
		{[]string{"never"}, "topic never does not exist"},
	} {
		sc, err := ParseScope(c.scope)
		if err != nil {
			t.Fatal(err)
		}
		err = CheckScope(offs, sc)
		if (c.want == "") != (err == nil) || err != nil && err.Error() != c.want {
			t.Errorf("CheckScope(%q) = %v, want %q", c.scope, err, c.want)
		}
	}
}

func TestTopicErrorKeepsCause(t *testing.T) {
	err := describeTopicErr("x", kerr.UnknownTopicOrPartition)
	if !errors.Is(err, kerr.UnknownTopicOrPartition) || err.Error() != "topic x does not exist (deleted?)" {
		t.Errorf("err = %v", err)
	}
}
