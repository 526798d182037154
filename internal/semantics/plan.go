package semantics

import (
	"fmt"
	"strings"
	"time"

	"github.com/offsetctl/offsetctl/internal/textlist"
)

// Event is one produced event: number N (1-based) is at Partition/Offset.
type Event struct {
	N         int
	Partition int32
	Offset    int64
	Key       string
	Value     string
}

// Layout places events 1..n on the partitions in contiguous runs: the
// first partition gets events 1..k, the next k+1..2k, and so on (the first
// n%partitions partitions get one more). Consumers read the partitions in
// order, so the consumption order is the event number and "the 25th event"
// is event 25 for every mode, whatever the fetch timing.
func Layout(n, partitions int) []Event {
	if n <= 0 || partitions <= 0 {
		return nil
	}
	width := len(fmt.Sprint(n))
	if width < 3 {
		width = 3
	}
	out := make([]Event, 0, n)
	base, extra := n/partitions, n%partitions
	num := 1
	for p := 0; p < partitions; p++ {
		count := base
		if p < extra {
			count++
		}
		for o := 0; o < count; o++ {
			out = append(out, Event{
				N:         num,
				Partition: int32(p),
				Offset:    int64(o),
				Key:       fmt.Sprintf("event-%0*d", width, num),
				Value:     fmt.Sprintf(`{"event":%d}`, num),
			})
			num++
		}
	}
	return out
}

// PerPartition counts the events of a layout per partition.
func PerPartition(events []Event, partitions int) []int64 {
	out := make([]int64, partitions)
	for _, e := range events {
		out[e.Partition]++
	}
	return out
}

// Tally compares a processed log with the produced events.
type Tally struct {
	Processed  int
	Unique     int
	Duplicates int
	Lost       int
	// LostEvents lists the event numbers never processed (sorted).
	LostEvents []int
	// Unknown counts processed entries that are no produced event.
	Unknown int
}

// Compare tallies entries (partition, offset pairs of a processed log)
// against the produced events.
func Compare(events []Event, entries []Entry) Tally {
	type po struct {
		p int32
		o int64
	}
	produced := make(map[po]int, len(events))
	for _, e := range events {
		produced[po{e.Partition, e.Offset}] = e.N
	}
	seen := make(map[po]bool, len(entries))
	t := Tally{Processed: len(entries)}
	for _, en := range entries {
		k := po{en.Partition, en.Offset}
		if seen[k] {
			continue
		}
		seen[k] = true
		t.Unique++
		if _, ok := produced[k]; !ok {
			t.Unknown++
		}
	}
	t.Duplicates = t.Processed - t.Unique
	for _, e := range events {
		if !seen[po{e.Partition, e.Offset}] {
			t.LostEvents = append(t.LostEvents, e.N)
		}
	}
	t.Lost = len(t.LostEvents)
	return t
}

// Explain is the one sentence of a result row: how the mode commits, and
// what the committed offsets said when the consumer crashed after event
// crashAfter (committedAtCrash events were committed then; the events are
// consumed in number order, so that count names the events). A negative
// committedAtCrash means it is unknown.
func Explain(m Mode, interval time.Duration, crashAfter int, committedAtCrash int64, t Tally) string {
	head := m.Describe(interval)
	head = strings.ToUpper(head[:1]) + head[1:]
	k, c := int64(crashAfter), committedAtCrash
	var tail string
	switch {
	case c < 0:
		tail = fmt.Sprintf("after the crash right after event %d the restart processed %s twice and lost %s", k, textlist.Count(int64(t.Duplicates), "event"), textlist.Count(int64(t.Lost), "event"))
	case c == k:
		tail = fmt.Sprintf("at the crash right after event %d exactly %s committed, so the restart neither repeated nor skipped any", k, wereN(c))
	case c < k:
		what := "nothing was committed"
		if c > 0 {
			what = fmt.Sprintf("only %s committed", wereN(c))
		}
		tail = fmt.Sprintf("at the crash right after event %d %s, so the restart processed %s again: %s", k, what, eventRange(c+1, k), textlist.Count(k-c, "duplicate"))
	default:
		tail = fmt.Sprintf("at the crash right after event %d, %s already committed, so %s never processed: %d lost", k, wereN(c), wereRange(k+1, c), c-k)
	}
	return head + ": " + tail + "."
}

func wereN(n int64) string {
	if n == 1 {
		return "1 event was"
	}
	return fmt.Sprintf("%d events were", n)
}

func wereRange(from, to int64) string {
	if from == to {
		return eventRange(from, to) + " was"
	}
	return eventRange(from, to) + " were"
}

func eventRange(from, to int64) string {
	if from == to {
		return fmt.Sprintf("event %d", from)
	}
	return fmt.Sprintf("events %d-%d", from, to)
}
