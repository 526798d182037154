package lag

import (
	"reflect"
	"testing"
)

func TestPartitionMap(t *testing.T) {
	build := func(kv ...any) PartitionMap[int64] {
		m := PartitionMap[int64]{}
		for i := 0; i < len(kv); i += 3 {
			m.Set(kv[i].(string), kv[i+1].(int32), kv[i+2].(int64))
		}
		return m
	}
	for _, tc := range []struct {
		name    string
		m       PartitionMap[int64]
		sorted  []Entry[int64]
		topics  []string
		partsOf string
		parts   []int32
	}{
		{name: "nil", m: nil, sorted: []Entry[int64]{}, topics: []string{}, partsOf: "t", parts: []int32{}},
		{name: "empty", m: PartitionMap[int64]{}, sorted: []Entry[int64]{}, topics: []string{}, partsOf: "t", parts: []int32{}},
		{name: "topics then partitions, numerically", m: build("b", int32(10), int64(1), "a", int32(2), int64(2), "b", int32(9), int64(3), "a", int32(0), int64(4)),
			sorted: []Entry[int64]{{TP{"a", 0}, 4}, {TP{"a", 2}, 2}, {TP{"b", 9}, 3}, {TP{"b", 10}, 1}},
			topics: []string{"a", "b"}, partsOf: "b", parts: []int32{9, 10}},
		{name: "Set overwrites", m: build("t", int32(1), int64(5), "t", int32(1), int64(7)),
			sorted: []Entry[int64]{{TP{"t", 1}, 7}}, topics: []string{"t"}, partsOf: "t", parts: []int32{1}},
		{name: "a topic without partitions", m: PartitionMap[int64]{"x": {}},
			sorted: []Entry[int64]{}, topics: []string{"x"}, partsOf: "x", parts: []int32{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.m.Sorted(); !reflect.DeepEqual(got, tc.sorted) {
				t.Errorf("Sorted() = %v, want %v", got, tc.sorted)
			}
			if got := tc.m.Len(); got != len(tc.sorted) {
				t.Errorf("Len() = %d, want %d", got, len(tc.sorted))
			}
			if got := tc.m.Topics(); !reflect.DeepEqual(got, tc.topics) {
				t.Errorf("Topics() = %v, want %v", got, tc.topics)
			}
			if got := tc.m.Partitions(tc.partsOf); !reflect.DeepEqual(got, tc.parts) {
				t.Errorf("Partitions(%s) = %v, want %v", tc.partsOf, got, tc.parts)
			}
			seen := map[TP]int64{}
			tc.m.Each(func(topic string, p int32, v int64) {
				if _, dup := seen[TP{topic, p}]; dup {
					t.Errorf("Each visited %s/%d twice", topic, p)
				}
				seen[TP{topic, p}] = v
			})
			for _, e := range tc.sorted {
				if seen[e.TP] != e.Value {
					t.Errorf("Each gave %s/%d = %d, want %d", e.Topic, e.Partition, seen[e.TP], e.Value)
				}
				if v, ok := tc.m.Lookup(e.Topic, e.Partition); !ok || v != e.Value {
					t.Errorf("Lookup(%s, %d) = %d, %v; want %d, true", e.Topic, e.Partition, v, ok, e.Value)
				}
			}
			if len(seen) != len(tc.sorted) {
				t.Errorf("Each visited %d partitions, want %d", len(seen), len(tc.sorted))
			}
			if v, ok := tc.m.Lookup("absent", 0); ok || v != 0 {
				t.Errorf("Lookup(absent) = %d, %v", v, ok)
			}
		})
	}
}

func TestCompareTP(t *testing.T) {
	for _, tc := range []struct {
		a, b TP
		want int
	}{
		{TP{"a", 5}, TP{"b", 0}, -1},
		{TP{"b", 0}, TP{"a", 5}, 1},
		{TP{"a", 2}, TP{"a", 10}, -1},
		{TP{"a", 10}, TP{"a", 2}, 1},
		{TP{"a", 3}, TP{"a", 3}, 0},
	} {
		if got := CompareTP(tc.a, tc.b); got != tc.want {
			t.Errorf("CompareTP(%v, %v) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
