package lag

import (
	"reflect"
	"testing"
)

// TestPartitionLagEachCase: the lag of one partition, each case of
// partitionLag's switch and both sides of each boundary.
func TestPartitionLagEachCase(t *testing.T) {
	for _, tc := range []struct {
		name       string
		committed  *int64
		start, end int64
		iso        Isolation
		lag        *int64
		note       string
	}{
		{"past the last stable offset (read_committed)", i64(12), 0, 10, ReadCommitted, i64(0), "committed offset is 2 past the last stable offset (a transaction is open, or the commit is past the log end)"},
		{"past the log end", i64(12), 0, 10, ReadUncommitted, i64(0), "committed offset is 2 past the log end"},
		{"at the log end (read_committed): no lag, no note", i64(10), 0, 10, ReadCommitted, i64(0), ""},
		{"at the log end: no lag, no note", i64(10), 0, 10, ReadUncommitted, i64(0), ""},
		{"below the log start: expired", i64(3), 5, 10, ReadUncommitted, i64(7), "2 records expired unread (log start 5 is past the commit)"},
		{"at the log start: no note", i64(5), 5, 10, ReadUncommitted, i64(5), ""},
		{"between", i64(7), 5, 10, ReadUncommitted, i64(3), ""},
		{"no commit, nothing assumed", nil, 5, 10, ReadUncommitted, nil, "no committed offset: the consumer starts at the log start or end, as its auto.offset.reset says (--assume-reset for a number)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lag, note := partitionLag(tc.committed, tc.start, tc.end, tc.iso, "")
			if !reflect.DeepEqual(lag, tc.lag) || note != tc.note {
				t.Fatalf("partitionLag = %v, %q; want %v, %q", showLag(lag), note, showLag(tc.lag), tc.note)
			}
		})
	}
}

func showLag(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestCatchUpEachCase: the ETA, each case of CatchUp's switch and both
// sides of each boundary.
func TestCatchUpEachCase(t *testing.T) {
	for _, tc := range []struct {
		name             string
		lag              int64
		consume, produce float64
		known            bool
		seconds          float64
		behind, ok       bool
	}{
		{"no lag: caught up, rates unknown", 0, 0, 0, false, 0, false, true},
		{"negative lag: caught up", -1, 0, 0, false, 0, false, true},
		{"lag, rates unknown", 1, 5, 1, false, 0, false, false},
		{"gaining", 100, 15, 5, true, 10, false, true},
		{"as fast as produced: behind for ever", 100, 5, 5, true, 0, true, true},
		{"losing", 100, 4, 5, true, 0, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, behind, ok := CatchUp(tc.lag, tc.consume, tc.produce, tc.known)
			if s != tc.seconds || behind != tc.behind || ok != tc.ok {
				t.Fatalf("CatchUp = %v, %v, %v; want %v, %v, %v", s, behind, ok, tc.seconds, tc.behind, tc.ok)
			}
		})
	}
}
