package health

import (
	"strings"
	"testing"
	"time"

	"github.com/offsetctl/offsetctl/internal/lag"
)

// The log end history of the offsets-topic source (lag --status, each
// round of lag --watch --status) as fromCommits builds it: the ends
// listed by timestamp at the commit times on the group's first read, the
// rounds' own, the row's. A listed end is the first offset written at or
// after the commit's time, so a batch produced in the commit's
// millisecond (or with its producer's clock behind) puts it a batch off
// the end the rounds read with ListOffsets latest. Every end is a point of
// the lag trend, whatever its kind: the lag never falling is WARN (Burrow's
// rule 3: a lag that stays the same counts, so a steady consumer 10 behind
// is WARN however its listing is off), and a fall anywhere, between listed
// ends, between read ones or from one kind to the other, is OK.
func TestHistoryEndsFirstListing(t *testing.T) {
	s := func(sec int) time.Time { return t0.Add(time.Duration(sec) * time.Second) }
	// The consumer commits every 10 s, 10 records a commit, 10 behind.
	hist := []Commit{{100, s(0)}, {110, s(10)}, {120, s(20)}, {130, s(30)}}
	listed := func(offsets ...int64) []LogEnd {
		es := make([]LogEnd, len(offsets))
		for i, o := range offsets {
			es[i] = listedEnd(o, s(10*i))
		}
		return es
	}
	k := Key{"t", 0}
	for _, c := range []struct {
		name      string
		listed    []LogEnd
		rounds    []LogEnd // the rounds' ends before this one
		more      []Commit // commits after the listing's
		committed int64
		end       int64 // the row's
		at        int
		want      Status
		reason    string
	}{
		{name: "steady, listing a batch low, first round (and lag --status)", listed: listed(105, 115, 125, 135),
			committed: 130, end: 140, at: 35, want: WARN, reason: "lag grew from 5 to 10, never falling, at 5 points over 35s while the offset moved from 100 to 130"},
		{name: "steady, listing a batch low, second round", listed: listed(105, 115, 125, 135),
			rounds: []LogEnd{{Offset: 140, Time: s(35)}}, more: []Commit{{140, s(40)}}, committed: 140, end: 150, at: 45, want: WARN, reason: "lag grew from 5 to 10, never falling, at 6 points over 45s"},
		{name: "gaining once in the listing", listed: listed(105, 112, 125, 135),
			committed: 130, end: 140, at: 35, want: OK},
		{name: "steady, listing a batch high: a fall from the listing to the row", listed: listed(115, 125, 135, 145),
			committed: 130, end: 140, at: 35, want: OK},
		{name: "falling behind in the listing", listed: listed(105, 125, 145, 165),
			committed: 130, end: 180, at: 35, want: WARN, reason: "lag grew from 5 to 50, never falling, at 5 points over 35s"},
		{name: "falling behind in the rounds", listed: listed(105, 115, 125, 135),
			rounds: []LogEnd{{Offset: 140, Time: s(35)}}, more: []Commit{{140, s(40)}}, committed: 140, end: 160, at: 45, want: WARN, reason: "lag grew from 5 to 20, never falling, at 6 points over 45s"},
		{name: "the rounds alone, steady", rounds: []LogEnd{{Offset: 140, Time: s(35)}}, more: []Commit{{140, s(40)}},
			committed: 140, end: 150, at: 45, want: WARN, reason: "lag stayed at 10 at 2 points over 10s while the offset moved from 100 to 140"},
		{name: "the rounds alone, gaining", rounds: []LogEnd{{Offset: 140, Time: s(35)}}, more: []Commit{{140, s(40)}},
			committed: 140, end: 145, at: 45, want: OK},
	} {
		t.Run(c.name, func(t *testing.T) {
			now := s(c.at)
			g := lag.GroupLag{Group: "g", Partitions: []lag.PartitionLag{row("t", 0, i64(c.committed), c.end)}}
			h := map[Key][]Commit{k: append(append([]Commit(nil), hist...), c.more...)}
			ends := historyEnds(map[Key][]LogEnd{k: c.listed}, map[Key][]LogEnd{k: append(c.rounds, LogEnd{Offset: c.end, Time: now})}, now)
			gs := EvaluateGroup("g", FromHistory(g, h, ends, now), Options{Window: 2 * time.Minute, Now: now})
			if gs.Status != c.want || !strings.Contains(gs.Reason, c.reason) {
				t.Fatalf("%s %q, want %s %q", gs.Status, gs.Reason, c.want, c.reason)
			}
		})
	}
}
