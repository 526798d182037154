package health

import (
	"math"
	"strings"
	"time"

	"github.com/offsetctl/offsetctl/internal/lag"
)

// TailRecord is one record of __consumer_offsets as a reader consumes it
// (the exporter's Tailer, lag --watch --status's Tail, lag --status's
// TopicReader.Read: all apply it to a TailState).
type TailRecord struct {
	Partition    int32 // of __consumer_offsets
	Control, Txn bool  // a transaction marker; staged by a transaction
	Producer     int64
	Key, Value   []byte
}

// TailOptions bound the commit history a TailState keeps per partition.
type TailOptions struct {
	// Window: commits older than this before a partition's newest are
	// dropped, except the newest of them (where the window starts from).
	// 0 keeps only the latest commit; < 0 drops none for age (a read
	// bounded in time, TopicReader.Read).
	Window time.Duration
	// MaxCommits caps the commits kept per partition (DefaultTailCommits
	// when 0, none when < 0): a consumer committing every 100 ms over a
	// 10 m window would otherwise keep 6,000. Past it the commits are
	// thinned from the middle, so the window is not shortened (see thin).
	MaxCommits int
	// Want, when set, is the groups kept: the commits of the others are
	// passed over (a reader of a few groups' partitions, which hold every
	// group hashed there). Its argument may alias a record's bytes: Want
	// must not keep it.
	Want func(group string) bool
}

// DefaultTailCommits is TailOptions.MaxCommits when unset: Burrow judges
// 10 commits; a few more keep a window of commits every interval.
const DefaultTailCommits = 32

// tailCommit is one commit as kept: 16 bytes, not a Commit's 32.
type tailCommit struct{ offset, ms int64 }

func (c tailCommit) commit() Commit {
	return Commit{Offset: c.offset, Time: time.UnixMilli(c.ms).UTC()}
}

// tailPart is one group-partition's commits: the newest (the committed
// offset) in the map's slot itself, so that keeping only the latest
// (Window 0, the exporter without --status) allocates nothing per
// partition and leaves the collector no pointer to follow; older, with a
// window, the ones before it, oldest first.
type tailPart struct {
	newest tailCommit
	older  []tailCommit
}

// tailGroup is what a TailState knows of one group.
type tailGroup struct {
	parts map[partKey]tailPart
	// deleted: a tombstone of the group's metadata came after its last
	// commit. The group is not shown; its offsets are kept, as a classic
	// group converted to a KIP-848 one (or back) gets the same tombstone
	// and keeps its offsets. A group really deleted gets a tombstone per
	// offset too, which removes it.
	deleted bool
}

// partKey is a group's partition as a map key: the topic's number in
// TailState.names and the partition (a uint64 key hashes several times
// faster than a Key with its string).
type partKey uint64

func newPartKey(topic uint32, partition int32) partKey {
	return partKey(uint64(topic)<<32 | uint64(uint32(partition)))
}

func (k partKey) topic() uint32    { return uint32(k >> 32) }
func (k partKey) partition() int32 { return int32(uint32(k)) }

type txnKey struct {
	partition int32
	producer  int64
}

// TailState is the committed offsets and recent commits of every group,
// built from the records of __consumer_offsets in log order, as the group
// coordinator applies them: a commit at once; an offset tombstone removes
// the partition (the group when it was its last); a group metadata
// tombstone hides the group; a commit staged by a transaction
// (TxnOffsetCommit) only at its producer's COMMIT marker in the same
// partition, never when it aborts or while it is open. It is pure (no
// clock, no broker): the Tailer feeds it. Not safe for concurrent use.
type TailState struct {
	opts    TailOptions
	groups  map[string]*tailGroup
	pending map[txnKey][]offsetCommit // copies: kept past their records
	topics  map[string]uint32         // topic name -> its number, an index of names
	names   []string
	// Undecodable counts the records that could not be decoded (skipped).
	Undecodable int
	// Records counts the records applied, every group's.
	Records int
}

// NewTailState returns an empty state.
func NewTailState(o TailOptions) *TailState {
	if o.MaxCommits == 0 {
		o.MaxCommits = DefaultTailCommits
	}
	return &TailState{opts: o, groups: map[string]*tailGroup{}, pending: map[txnKey][]offsetCommit{}, topics: map[string]uint32{}}
}

// Apply takes the next record of one partition of the offsets topic. It
// keeps no reference into r's Key or Value (a reader may reuse them once
// Apply returns: the Tailer recycles its records); Want is called with a
// group name that does, so Want must not keep it.
func (s *TailState) Apply(r TailRecord) {
	s.Records++
	if r.Control {
		k := txnKey{r.Partition, r.Producer}
		staged := s.pending[k]
		delete(s.pending, k)
		if commitMarker(r.Key) {
			for _, c := range staged {
				s.applyOffset(c)
			}
		}
		return
	}
	if g, ok := metadataGroup(r.Key); ok {
		if tg := s.groups[string(g)]; tg != nil {
			tg.deleted = r.Value == nil
		}
		return
	}
	c, ok, err := decodeCommit(r.Key, r.Value)
	if err != nil {
		s.Undecodable++
	}
	if !ok || (s.opts.Want != nil && !s.opts.Want(c.group)) {
		return
	}
	if r.Txn {
		// Kept past the record: copied.
		c.group, c.topic = strings.Clone(c.group), strings.Clone(c.topic)
		k := txnKey{r.Partition, r.Producer}
		s.pending[k] = append(s.pending[k], c)
		return
	}
	s.applyOffset(c)
}

// applyOffset applies one commit (or offset tombstone); c's strings may
// alias a record's key: the group and topic names kept are copies.
func (s *TailState) applyOffset(c offsetCommit) {
	if s.opts.Want != nil && !s.opts.Want(c.group) {
		return // forgotten while its transaction was open
	}
	g := s.groups[c.group]
	if c.deleted {
		if g == nil {
			return
		}
		if t, ok := s.topics[c.topic]; ok {
			delete(g.parts, newPartKey(t, c.partition))
		}
		if len(g.parts) == 0 {
			delete(s.groups, c.group)
		}
		return
	}
	if g == nil {
		g = &tailGroup{parts: map[partKey]tailPart{}}
		s.groups[strings.Clone(c.group)] = g
	}
	g.deleted = false
	t, ok := s.topics[c.topic]
	if !ok {
		t = uint32(len(s.names))
		s.names = append(s.names, strings.Clone(c.topic))
		s.topics[s.names[t]] = t
	}
	k := newPartKey(t, c.partition)
	newest := tailCommit{offset: c.offset, ms: c.ms}
	p, ok := g.parts[k]
	if ok && s.opts.Window != 0 {
		p.older = s.keep(append(p.older, p.newest), newest)
	}
	p.newest = newest
	g.parts[k] = p
}

// keep drops what the window and the cap leave out of the commits older
// (oldest first) before newest. The window drops the commits older than
// the newest before it (where the window starts from). The cap thins the
// rest from the middle, so the commits kept still span the window: see
// thin.
func (s *TailState) keep(older []tailCommit, newest tailCommit) []tailCommit {
	i, since := 0, int64(math.MinInt64)
	if s.opts.Window > 0 {
		since = newest.ms - s.opts.Window.Milliseconds()
		for i+1 < len(older) && older[i+1].ms < since {
			i++
		}
	}
	if i > 0 {
		// Copied down so the slice's array does not grow without end.
		older = older[:copy(older, older[i:])]
	}
	for s.opts.MaxCommits > 0 && len(older)+1 > s.opts.MaxCommits {
		older = thin(older, newest, since)
	}
	return older
}

// thin drops one of the commits older (oldest first) before newest, to
// keep a partition's history within the cap without shortening it: the
// oldest (the window's start, or the newest before it), the oldest at or
// after since (the window's first) and newest stay, and so does every
// commit a judge must see, a rewind (an offset lower than the one before)
// and the commit it went back from. Of the others the one dropped leaves
// the smallest gap between its neighbours (the oldest on a tie): the
// commits kept stay about evenly spaced over the window. Only when every
// commit is one of those is the oldest dropped.
func thin(older []tailCommit, newest tailCommit, since int64) []tailCommit {
	drop, gap := 0, int64(math.MaxInt64)
	for j := 1; j < len(older); j++ {
		next := newest
		if j+1 < len(older) {
			next = older[j+1]
		}
		prev, c := older[j-1], older[j]
		if c.offset < prev.offset || next.offset < c.offset || (c.ms >= since && prev.ms < since) {
			continue
		}
		if g := next.ms - prev.ms; g < gap {
			drop, gap = j, g
		}
	}
	copy(older[drop:], older[drop+1:])
	return older[:len(older)-1]
}

// Groups calls fn with each group that has committed offsets and is not
// deleted, in no order.
func (s *TailState) Groups(fn func(group string)) {
	for g, tg := range s.groups {
		if !tg.deleted {
			fn(g)
		}
	}
}

// Commits is group's committed offsets, as OffsetFetch would answer them;
// ok is false for a group with none (or deleted).
func (s *TailState) Commits(group string) (lag.PartitionMap[lag.Commit], bool) {
	g := s.groups[group]
	if g == nil || g.deleted {
		return nil, false
	}
	out := lag.PartitionMap[lag.Commit]{}
	for k, p := range g.parts {
		topic := s.names[k.topic()]
		ps := out[topic]
		if ps == nil {
			ps = map[int32]lag.Commit{}
			out[topic] = ps
		}
		ps[k.partition()] = lag.Commit{Offset: p.newest.offset, LeaderEpoch: -1}
	}
	return out, true
}

// EachCommit calls fn with each committed offset of group, in no order,
// and reports whether the group has any (false for a deleted group, as
// Commits): the round's view without building a map per group.
func (s *TailState) EachCommit(group string, fn func(topic string, partition int32, offset int64)) bool {
	g := s.groups[group]
	if g == nil || g.deleted {
		return false
	}
	for k, p := range g.parts {
		fn(s.names[k.topic()], k.partition(), p.newest.offset)
	}
	return true
}

// History is group's commits kept per partition, oldest first (nil for a
// group with none). A group whose metadata was deleted after its commits
// still has them: a caller that names the group (it exists, or was
// converted) wants them; Groups and Commits pass it over.
func (s *TailState) History(group string) map[Key][]Commit {
	g := s.groups[group]
	if g == nil {
		return nil
	}
	out := make(map[Key][]Commit, len(g.parts))
	for k, p := range g.parts {
		h := make([]Commit, len(p.older)+1)
		for i, c := range p.older {
			h[i] = c.commit()
		}
		h[len(p.older)] = p.newest.commit()
		out[Key{s.names[k.topic()], k.partition()}] = h
	}
	return out
}

// Restart forgets what was read of some partitions of the offsets topic
// (parts, of n in all), to read them again: their groups' commits and
// what their transactions staged.
func (s *TailState) Restart(parts map[int32]bool, n int32) {
	for g := range s.groups {
		if parts[OffsetsPartition(g, n)] {
			delete(s.groups, g)
		}
	}
	for k := range s.pending {
		if parts[k.partition] {
			delete(s.pending, k)
		}
	}
}

// Forget drops the groups keep says no to (keep nil: every group).
func (s *TailState) Forget(keep func(group string) bool) {
	forgetGroups(s.groups, keep)
}

// Partitions is how many group-partitions have a committed offset (the
// state's size: about 100 bytes each plus 16 per commit kept).
func (s *TailState) Partitions() int {
	n := 0
	for _, g := range s.groups {
		n += len(g.parts)
	}
	return n
}

// WarmUp tracks a tailer's first read of the offsets topic up to the high
// watermarks it had when the read started.
type WarmUp struct{ left map[int32]int64 }

// NewWarmUp is the warm-up of partitions from starts to ends (an empty
// partition, start >= end, is done at once).
func NewWarmUp(starts, ends map[int32]int64) *WarmUp {
	w := &WarmUp{left: map[int32]int64{}}
	for p, e := range ends {
		if starts[p] < e {
			w.left[p] = e
		}
	}
	return w
}

// Seen records the record at offset of partition as read.
func (w *WarmUp) Seen(partition int32, offset int64) {
	if e, ok := w.left[partition]; ok && offset+1 >= e {
		delete(w.left, partition)
	}
}

// Left is how many partitions are not read to their end yet.
func (w *WarmUp) Left() int { return len(w.left) }

// Done reports whether every partition has been read to its end.
func (w *WarmUp) Done() bool { return len(w.left) == 0 }
