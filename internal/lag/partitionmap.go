package lag

import (
	"cmp"
	"slices"
)

// PartitionMap maps topic → partition → V: the shape of every
// per-partition result offsetctl gathers (a group's commits, a topic's log
// offsets, ListOffsets-by-time answers, the commits replay verifies). Its
// helpers follow kadm.Offsets: Lookup, Each (any order) and Sorted (topic,
// then partition), so no caller sorts by topic and partition by hand.
type PartitionMap[V any] map[string]map[int32]V

// TP is one topic partition: a PartitionMap key.
type TP struct {
	Topic     string
	Partition int32
}

// CompareTP orders by topic, then partition (for slices.SortFunc).
func CompareTP(a, b TP) int {
	if c := cmp.Compare(a.Topic, b.Topic); c != 0 {
		return c
	}
	return cmp.Compare(a.Partition, b.Partition)
}

// Entry is one PartitionMap value with its key.
type Entry[V any] struct {
	TP
	Value V
}

// Lookup returns the value at topic/partition and whether there is one.
func (m PartitionMap[V]) Lookup(topic string, partition int32) (V, bool) {
	v, ok := m[topic][partition]
	return v, ok
}

// Set stores v at topic/partition, creating the topic's map. m must not
// be nil.
func (m PartitionMap[V]) Set(topic string, partition int32, v V) {
	ps, ok := m[topic]
	if !ok {
		ps = make(map[int32]V)
		m[topic] = ps
	}
	ps[partition] = v
}

// Len is the number of partitions.
func (m PartitionMap[V]) Len() int {
	n := 0
	for _, ps := range m {
		n += len(ps)
	}
	return n
}

// Each calls fn for every partition, in no particular order.
func (m PartitionMap[V]) Each(fn func(topic string, partition int32, v V)) {
	for t, ps := range m {
		for p, v := range ps {
			fn(t, p, v)
		}
	}
}

// Sorted returns every partition's entry by topic, then partition.
func (m PartitionMap[V]) Sorted() []Entry[V] {
	out := make([]Entry[V], 0, m.Len())
	m.Each(func(t string, p int32, v V) { out = append(out, Entry[V]{TP{t, p}, v}) })
	slices.SortFunc(out, func(a, b Entry[V]) int { return CompareTP(a.TP, b.TP) })
	return out
}

// Partitions returns topic's partitions in ascending order.
func (m PartitionMap[V]) Partitions(topic string) []int32 {
	out := make([]int32, 0, len(m[topic]))
	for p := range m[topic] {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// Topics returns the topics in ascending order.
func (m PartitionMap[V]) Topics() []string {
	out := make([]string, 0, len(m))
	for t := range m {
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}
