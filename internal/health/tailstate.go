package health

import (
	"iter"
	"math"
	mathbits "math/bits"
	"strings"
	"time"

	"github.com/offsetctl/offsetctl/internal/lag"
)

// TailRecord is one record of __consumer_offsets as a reader consumes it
// (the exporter's Tailer, lag --watch --status's Tail, lag --status's
// TopicReader.Read: all apply it to a TailState).
type TailRecord struct {
	Partition    int32 // of __consumer_offsets
	Offset       int64 // the record's, in that partition
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

// tailPart is one group-partition's commits as a sparse tailTopic keeps
// them and as all yields them: the newest (the committed offset); older,
// with a window, the ones before it, oldest first (always nil without:
// TailOptions.Window 0).
type tailPart struct {
	newest tailCommit
	older  []tailCommit
}

// tailGroup is what a TailState knows of one group.
type tailGroup struct {
	name   string                // the key in TailState.groups
	topics map[uint32]*tailTopic // by the topic's number in TailState.names: none empty
	// deleted: a tombstone of the group's metadata came after its last
	// commit. The group is not shown; its offsets are kept, as a classic
	// group converted to a KIP-848 one (or back) gets the same tombstone
	// and keeps its offsets. A group really deleted gets a tombstone per
	// offset too, which removes it.
	deleted bool
}

// tailTopic is a group's partitions of one topic. Dense, slices indexed
// by partition, while the partitions held are numbered from 0 to less
// than denseFits allows: a commit of a group's 1,000 partitions (1,000
// consecutive records) then writes consecutive memory, with no hashing.
// Dense, the newest commits are a slice of their own (16 bytes a
// partition: the exporter's default keeps nothing else, so a commit
// touches a third of the memory a 48-byte slot of newest, history and
// flag took), which partitions are held a bitset beside it (any int64 is
// a legal offset and time: no value can mark a free slot), and the
// histories a parallel slice made only when they are kept (hist: a
// window, TailOptions.Window != 0).
// Sparse, a map, once a partition is negative or far past the count held
// (a group holding partition 1,000,000 alone must not cost a slice of a
// million); it turns dense again once the count catches up with the
// highest partition it took (lo and hi: the bounds of the partitions
// taken while sparse, never lowered by a delete).
type tailTopic struct {
	newest []tailCommit   // dense: by partition; a free slot's is zero
	held   []uint64       // dense: bit p%64 of word p/64 set when p is held
	older  [][]tailCommit // dense with hist: by partition, as newest
	sparse map[int32]*tailPart
	lo, hi int32
	n      int  // partitions held
	hist   bool // histories are kept (older)
}

// denseMin is the partitions a dense tailTopic may always cover, however
// few it holds: 64 slots are 1 KiB (2.5 with histories).
const denseMin = 64

// denseFits reports whether a dense tailTopic holding n partitions may
// cover partition p: p not negative and below max(denseMin, 4n), so that
// its slice is never more than 4 times what it holds (denseMin aside).
func denseFits(p int32, n int) bool {
	return p >= 0 && int(p) < max(denseMin, 4*n)
}

// words is how many words of a bitset cover n bits.
func words(n int) int { return (n + 63) / 64 }

// has reports whether a dense tailTopic holds partition i (i < len(newest)).
func (t *tailTopic) has(i int) bool { return t.held[i/64]&(1<<(i%64)) != 0 }

// slot is partition p's newest commit and, when histories are kept, the
// commits before it (nil when not), taken (isNew) when p was not held: a
// new one's history is empty. The pointers are valid until the next slot
// or remove.
func (t *tailTopic) slot(p int32) (newest *tailCommit, older *[]tailCommit, isNew bool) {
	if t.sparse == nil {
		if uint(p) >= uint(len(t.newest)) {
			if !denseFits(p, t.n+1) {
				t.toSparse(p)
				return t.sparseSlot(p)
			}
			t.grow(int(p) + 1)
		}
		w, b := uint(p)/64, uint64(1)<<(uint(p)%64)
		isNew = t.held[w]&b == 0
		if isNew {
			t.held[w] |= b
			t.n++
		}
		if t.hist {
			older = &t.older[p]
		}
		return &t.newest[p], older, isNew
	}
	return t.sparseSlot(p)
}

// grow makes a dense tailTopic's slices cover n partitions (n more than
// they do).
func (t *tailTopic) grow(n int) {
	t.newest = append(t.newest, make([]tailCommit, n-len(t.newest))...)
	t.held = append(t.held, make([]uint64, words(n)-len(t.held))...)
	if t.hist {
		t.older = append(t.older, make([][]tailCommit, n-len(t.older))...)
	}
}

// sparseSlot is slot of a sparse tailTopic, which it turns dense when the
// partition taken lets it.
func (t *tailTopic) sparseSlot(p int32) (*tailCommit, *[]tailCommit, bool) {
	s := t.sparse[p]
	isNew := s == nil
	if isNew {
		s = &tailPart{}
		t.sparse[p] = s
		t.n++
		t.lo, t.hi = min(t.lo, p), max(t.hi, p)
		if t.lo >= 0 && denseFits(t.hi, t.n) {
			t.toDense()
			newest, older, _ := t.slot(p)
			return newest, older, true
		}
	}
	if t.hist {
		return &s.newest, &s.older, isNew
	}
	return &s.newest, nil, isNew
}

// toSparse moves a dense tailTopic's partitions to its map; p is the
// partition about to be taken.
func (t *tailTopic) toSparse(p int32) {
	t.sparse = make(map[int32]*tailPart, t.n+1)
	t.lo, t.hi = p, p
	for i, c := range t.dense() {
		t.sparse[i] = &tailPart{newest: c.newest, older: c.older}
		t.lo, t.hi = min(t.lo, i), max(t.hi, i)
	}
	t.newest, t.held, t.older = nil, nil, nil
}

// toDense moves a sparse tailTopic's partitions (none negative, the
// highest hi) to slices.
func (t *tailTopic) toDense() {
	t.grow(int(t.hi) + 1)
	for p, c := range t.sparse {
		t.newest[p] = c.newest
		t.held[p/64] |= 1 << (p % 64)
		if t.hist {
			t.older[p] = c.older
		}
	}
	t.sparse = nil
}

// remove drops partition p and reports whether it was held.
func (t *tailTopic) remove(p int32) bool {
	if t.sparse != nil {
		if t.sparse[p] == nil {
			return false
		}
		delete(t.sparse, p)
	} else {
		if uint(p) >= uint(len(t.newest)) || !t.has(int(p)) {
			return false
		}
		t.held[p/64] &^= 1 << (p % 64)
		t.newest[p] = tailCommit{}
		if t.hist {
			t.older[p] = nil // taken again, it starts with no history
		}
	}
	t.n--
	return true
}

// all is the partitions held: a dense tailTopic's in order. The older
// yielded is the state's own slice.
func (t *tailTopic) all() iter.Seq2[int32, tailPart] {
	return func(yield func(int32, tailPart) bool) {
		for p, c := range t.sparse {
			if !yield(p, *c) {
				return
			}
		}
		t.dense()(yield)
	}
}

// dense is a dense tailTopic's partitions held, in order (none when
// sparse): the held words' set bits, a word of 64 free slots passed over
// at once.
func (t *tailTopic) dense() iter.Seq2[int32, tailPart] {
	return func(yield func(int32, tailPart) bool) {
		for w, bits := range t.held {
			for bits != 0 {
				i := w*64 + mathbits.TrailingZeros64(bits)
				bits &= bits - 1
				c := tailPart{newest: t.newest[i]}
				if t.hist {
					c.older = t.older[i]
				}
				if !yield(int32(i), c) {
					return
				}
			}
		}
	}
}

// tailCursor is the group and topic the last commit went to: the records
// of one OffsetCommit are consecutive in the log (a group committing 1,000
// partitions writes 1,000 records of the same group and, mostly, topic),
// so the next one is compared by its bytes with them before any map is
// hashed. Its strings are the state's own copies (the group's name, a
// name of TailState.names). Reset whenever a group or a group's topic is
// dropped, so it never points at one no longer in the state.
type tailCursor struct {
	g     *tailGroup
	topic string
	t     *tailTopic
}

type txnKey struct {
	partition int32
	producer  int64
}

// stagedKey is a group's partition, as the offsets topic keys its commits.
type stagedKey struct {
	group, topic string
	partition    int32
}

// staging is what is known of a stagedKey some open transactions have
// staged a commit for: how many such commits (n), and the record offset of
// the commit materialized since the first of them (after; -1: none). A
// staged commit takes effect at its COMMIT marker only if its record comes
// after the one materialized, as the coordinator decides: a plain commit
// made while a transaction was open wins over the transaction's
// (Kafka's OffsetMetadataManager.replayEndTransactionMarker).
type staging struct {
	n     int
	after int64
}

// TailState is the committed offsets and recent commits of every group,
// built from the records of __consumer_offsets in log order, as the group
// coordinator applies them: a commit at once; an offset tombstone removes
// the partition (the group when it was its last); a group metadata
// tombstone hides the group; a commit staged by a transaction
// (TxnOffsetCommit) only at its producer's COMMIT marker in the same
// partition, never when it aborts or while it is open, and not over a
// commit whose record came after it (see staging). It is pure (no clock,
// no broker): the Tailer feeds it. Not safe for concurrent use.
type TailState struct {
	opts    TailOptions
	groups  map[string]*tailGroup
	pending map[txnKey][]offsetCommit // copies: kept past their records
	// lost is the partitions of the offsets topic (of parts) whose log
	// starts past offset 0, by partition: its log start (LostBefore).
	lost   map[int32]int64
	parts  int32
	staged map[stagedKey]staging // the keys of pending's commits
	topics map[string]uint32     // topic name -> its number, an index of names
	names  []string
	last   tailCursor
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
	return &TailState{opts: o, groups: map[string]*tailGroup{}, pending: map[txnKey][]offsetCommit{},
		staged: map[stagedKey]staging{}, topics: map[string]uint32{}}
}

// Apply takes the next record of one partition of the offsets topic. It
// keeps no reference into r's Key or Value (a reader may reuse them once
// Apply returns: the Tailer recycles its records); Want is called with a
// group name that does, so Want must not keep it.
func (s *TailState) Apply(r TailRecord) { s.apply(&r) }

// apply is Apply by reference: the tail's batch reader passes each record
// without a copy (it applies every commit of the cluster).
func (s *TailState) apply(r *TailRecord) {
	s.Records++
	if r.Control {
		k := txnKey{r.Partition, r.Producer}
		staged := s.pending[k]
		delete(s.pending, k)
		commit := commitMarker(r.Key)
		for _, c := range staged {
			ck := stagedKey{c.group, c.topic, c.partition}
			st := s.staged[ck]
			if st.n--; st.n <= 0 {
				delete(s.staged, ck)
			} else {
				s.staged[ck] = st
			}
			if commit && c.rec > st.after {
				s.applyOffset(&c)
				s.materialized(c)
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
	var c offsetCommit
	ok, err := decodeCommit(r.Key, r.Value, &c)
	if err != nil {
		s.Undecodable++
	}
	if !ok || (s.opts.Want != nil && !s.opts.Want(c.group)) {
		return
	}
	c.rec = r.Offset
	if r.Txn && !c.deleted {
		// Kept past the record: copied.
		c.group, c.topic = strings.Clone(c.group), strings.Clone(c.topic)
		k := txnKey{r.Partition, r.Producer}
		s.pending[k] = append(s.pending[k], c)
		ck := stagedKey{c.group, c.topic, c.partition}
		st, ok := s.staged[ck]
		if !ok {
			st.after = -1
		}
		st.n++
		s.staged[ck] = st
		return
	}
	// A tombstone takes effect at once, transactional or not, and drops
	// the commits staged for its partition (as the coordinator does).
	s.applyOffset(&c)
	if len(s.staged) > 0 {
		if c.deleted {
			s.unstage(c)
		} else {
			s.materialized(c)
		}
	}
}

// materialized notes that c, now the committed offset, came after the
// commits staged for its partition so far.
func (s *TailState) materialized(c offsetCommit) {
	ck := stagedKey{c.group, c.topic, c.partition}
	if st, ok := s.staged[ck]; ok {
		st.after = c.rec
		s.staged[ck] = st
	}
}

// unstage drops the commits staged for c's partition (an offset tombstone).
func (s *TailState) unstage(c offsetCommit) {
	ck := stagedKey{c.group, c.topic, c.partition}
	if _, ok := s.staged[ck]; !ok {
		return
	}
	delete(s.staged, ck)
	for k, cs := range s.pending {
		kept := cs[:0]
		for _, p := range cs {
			if p.group != c.group || p.topic != c.topic || p.partition != c.partition {
				kept = append(kept, p)
			}
		}
		s.pending[k] = kept
	}
}

// applyOffset applies one commit (or offset tombstone); c's strings may
// alias a record's key: the group and topic names kept are copies.
func (s *TailState) applyOffset(c *offsetCommit) {
	if s.opts.Want != nil && !s.opts.Want(c.group) {
		return // forgotten while its transaction was open
	}
	if c.deleted {
		s.deleteOffset(*c)
		return
	}
	g, t := s.partsOf(c.group, c.topic)
	g.deleted = false
	newest := tailCommit{offset: c.offset, ms: c.ms}
	last, older, isNew := t.slot(c.partition)
	if !isNew && older != nil {
		*older = s.keep(append(*older, *last), newest)
	}
	*last = newest
}

// partsOf is group's partitions of topic, both made when new: the
// cursor's when the commit is of the same group and topic as the last.
func (s *TailState) partsOf(group, topic string) (*tailGroup, *tailTopic) {
	cur := &s.last
	if cur.g == nil || cur.g.name != group {
		g := s.groups[group]
		if g == nil {
			g = &tailGroup{name: strings.Clone(group), topics: map[uint32]*tailTopic{}}
			s.groups[g.name] = g
		}
		*cur = tailCursor{g: g}
	}
	if cur.t == nil || cur.topic != topic {
		n, ok := s.topics[topic]
		if !ok {
			n = uint32(len(s.names))
			s.names = append(s.names, strings.Clone(topic))
			s.topics[s.names[n]] = n
		}
		t := cur.g.topics[n]
		if t == nil {
			t = &tailTopic{hist: s.opts.Window != 0}
			cur.g.topics[n] = t
		}
		cur.topic, cur.t = s.names[n], t
	}
	return cur.g, cur.t
}

// deleteOffset applies an offset tombstone: the partition goes, its topic
// with its last partition, the group with its last topic.
func (s *TailState) deleteOffset(c offsetCommit) {
	g := s.groups[c.group]
	if g == nil {
		return
	}
	n, ok := s.topics[c.topic]
	t := g.topics[n]
	if !ok || t == nil || !t.remove(c.partition) {
		return
	}
	if t.n == 0 {
		delete(g.topics, n)
		s.last = tailCursor{}
	}
	if len(g.topics) == 0 {
		delete(s.groups, c.group)
	}
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
	out := make(lag.PartitionMap[lag.Commit], len(g.topics))
	for n, t := range g.topics {
		ps := make(map[int32]lag.Commit, t.n)
		for p, c := range t.all() {
			ps[p] = lag.Commit{Offset: c.newest.offset, LeaderEpoch: -1}
		}
		out[s.names[n]] = ps
	}
	return out, true
}

// AppendCommits appends each committed offset of group to rows (a sparse
// topic's partitions in no order, then a dense one's in partition order)
// and reports whether the group has any (false for a deleted group, as
// Commits): the round's view without a map per group, written straight
// into the rows the round reuses. At 500 groups x 1,000 partitions a call
// per commit through the partition iterators was a tenth of the round's
// CPU (bench/exporter_tail.md).
func (s *TailState) AppendCommits(group string, rows []lag.CommitRow) ([]lag.CommitRow, bool) {
	g := s.groups[group]
	if g == nil || g.deleted {
		return rows, false
	}
	for n, t := range g.topics {
		topic := s.names[n]
		for p, c := range t.sparse {
			rows = append(rows, lag.CommitRow{Topic: topic, Partition: p, Offset: c.newest.offset})
		}
		for w, bits := range t.held {
			for bits != 0 {
				i := w*64 + mathbits.TrailingZeros64(bits)
				bits &= bits - 1
				rows = append(rows, lag.CommitRow{Topic: topic, Partition: int32(i), Offset: t.newest[i].offset})
			}
		}
	}
	return rows, true
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
	out := make(map[Key][]Commit, g.partitions())
	for n, t := range g.topics {
		for p, c := range t.all() {
			h := make([]Commit, len(c.older)+1)
			for i, o := range c.older {
				h[i] = o.commit()
			}
			h[len(c.older)] = c.newest.commit()
			out[Key{s.names[n], p}] = h
		}
	}
	return out
}

// LostBefore notes which partitions of the offsets topic (of n in all)
// start past offset 0, given their log starts: records before a start are
// gone (a cleanup.policy with delete, as Kafka's cleaner alone never moves
// a log start and Kafka refuses DeleteRecords on an internal topic), and
// with them, maybe, the only commit of a group-partition that the
// coordinator still holds. Read from such a log, a group can miss commits
// or be missing: Lost says so.
func (s *TailState) LostBefore(starts map[int32]int64, n int32) {
	if s.lost == nil {
		s.lost = map[int32]int64{}
	}
	s.parts = n
	for p, start := range starts {
		if start > 0 {
			s.lost[p] = start
		}
	}
}

// Lost is whether group's commits may be missing from the state: its
// partition of the offsets topic and that partition's log start (see
// LostBefore).
func (s *TailState) Lost(group string) (partition int32, start int64, lost bool) {
	if len(s.lost) == 0 {
		return 0, 0, false
	}
	p := OffsetsPartition(group, s.parts)
	start, lost = s.lost[p]
	return p, start, lost
}

// Restart forgets what was read of some partitions of the offsets topic
// (parts, of n in all), to read them again: their groups' commits and
// what their transactions staged.
func (s *TailState) Restart(parts map[int32]bool, n int32) {
	s.last = tailCursor{}
	for g := range s.groups {
		if parts[OffsetsPartition(g, n)] {
			delete(s.groups, g)
		}
	}
	for k, cs := range s.pending {
		if parts[k.partition] {
			delete(s.pending, k)
			for _, c := range cs {
				delete(s.staged, stagedKey{c.group, c.topic, c.partition})
			}
		}
	}
}

// Forget drops the groups keep says no to (keep nil: every group).
func (s *TailState) Forget(keep func(group string) bool) {
	s.last = tailCursor{}
	forgetGroups(s.groups, keep)
}

// Partitions is how many group-partitions have a committed offset (the
// state's size: 16 bytes each and a bit, 40 with a window, plus the
// slices' spare capacity and the empty slots of partitions numbered with
// gaps, plus 16 per older commit kept).
func (s *TailState) Partitions() int {
	n := 0
	for _, g := range s.groups {
		n += g.partitions()
	}
	return n
}

// partitions is how many partitions g holds, of every topic.
func (g *tailGroup) partitions() int {
	n := 0
	for _, t := range g.topics {
		n += t.n
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
