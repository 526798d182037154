package lag

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/offsetctl/offsetctl/internal/exitcode"
	"github.com/offsetctl/offsetctl/internal/topicname"
)

// Scope narrows commands to topics and, optionally, to some partitions of
// them. The zero Scope selects everything.
type Scope struct {
	// Topics maps a topic to the partitions selected; a nil slice means
	// every partition of the topic.
	Topics map[string][]int32
	// Named holds every partition named explicitly, even where a bare
	// topic widened the selection to all partitions, so that a partition
	// the topic lacks is still caught.
	Named map[string][]int32
}

// Empty reports whether the scope selects everything.
func (s Scope) Empty() bool { return len(s.Topics) == 0 }

// Has reports whether topic/partition is in scope (everything when empty).
func (s Scope) Has(topic string, partition int32) bool {
	if s.Empty() {
		return true
	}
	ps, ok := s.Topics[topic]
	if !ok {
		return false
	}
	if ps == nil {
		return true
	}
	for _, p := range ps {
		if p == partition {
			return true
		}
	}
	return false
}

// HasTopic reports whether any partition of topic is in scope.
func (s Scope) HasTopic(topic string) bool {
	if s.Empty() {
		return true
	}
	_, ok := s.Topics[topic]
	return ok
}

// TopicNames returns the scoped topic names, sorted.
func (s Scope) TopicNames() []string {
	out := make([]string, 0, len(s.Topics))
	for t := range s.Topics {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// ParseScope parses repeated --topic values: "T" (every partition) or
// "T:0,2" (those partitions). Repeating a topic merges its partitions; a
// bare "T" anywhere selects all of T.
func ParseScope(values []string) (Scope, error) {
	s := Scope{}
	for _, v := range values {
		topic, parts, err := parseTopicPartitions(v)
		if err != nil {
			return Scope{}, err
		}
		if s.Topics == nil {
			s.Topics = make(map[string][]int32)
			s.Named = make(map[string][]int32)
		}
		if parts != nil {
			s.Named[topic] = mergePartitions(s.Named[topic], parts)
		}
		prev, seen := s.Topics[topic]
		switch {
		case parts == nil || (seen && prev == nil):
			s.Topics[topic] = nil
		default:
			s.Topics[topic] = mergePartitions(prev, parts)
		}
	}
	return s, nil
}

func parseTopicPartitions(v string) (string, []int32, error) {
	v = strings.TrimSpace(v)
	topic, list, hasList := strings.Cut(v, ":")
	if err := CheckTopicName(topic); err != nil {
		return "", nil, fmt.Errorf("%q: %w", v, err)
	}
	if !hasList {
		return topic, nil, nil
	}
	if strings.TrimSpace(list) == "" {
		return "", nil, fmt.Errorf("%q: no partitions after ':'", v)
	}
	var parts []int32
	for _, f := range strings.Split(list, ",") {
		p, err := ParsePartition(f)
		if err != nil {
			return "", nil, fmt.Errorf("%q: %w", v, err)
		}
		parts = append(parts, p)
	}
	return topic, mergePartitions(nil, parts), nil
}

// ParsePartition parses a partition number (0 ≤ p ≤ 2^31-1).
func ParsePartition(f string) (int32, error) {
	f = strings.TrimSpace(f)
	p, err := strconv.ParseInt(f, 10, 32)
	if err != nil || p < 0 {
		return 0, fmt.Errorf("partition %q is not a non-negative integer", f)
	}
	return int32(p), nil
}

func mergePartitions(a, b []int32) []int32 {
	seen := make(map[int32]bool, len(a)+len(b))
	out := make([]int32, 0, len(a)+len(b))
	for _, p := range append(append([]int32{}, a...), b...) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// CheckTopicName applies Kafka's topic-name rules (topicname.Check):
// 1..249 chars of [a-zA-Z0-9._-], and not "." or "..". A name that breaks
// them can name no topic, so it is bad input before any request.
func CheckTopicName(t string) error { return topicname.Check(t) }

// CheckScope reports the first scoped topic or partition the cluster does
// not have, as listed in offsets (which must cover every scoped topic), as
// bad input; a topic that could not be listed for another reason is an
// operational error (TopicFailure).
func CheckScope(offsets TopicOffsets, scope Scope) error {
	for _, t := range scope.TopicNames() {
		if err := offsets.TopicErr[t]; err != nil {
			return TopicFailure(err)
		}
		parts, ok := offsets.Partitions[t]
		if !ok {
			return exitcode.Usagef("topic %s does not exist", t)
		}
		for _, p := range scope.Named[t] {
			if _, ok := parts[p]; !ok {
				return exitcode.Usagef("partition %d does not exist in topic %s (it has %d partitions)", p, t, len(parts))
			}
		}
	}
	return nil
}
