package health

import (
	"cmp"
	"context"
	"fmt"
	"sync"
	"time"
)

// Tailer keeps a TailState of the whole offsets topic: it reads every
// partition from its log start (the topic is compacted: about one record
// per group-partition, plus what the cleaner has not reached) to the high
// watermark it had at the start (the warm-up), then goes on consuming,
// with TopicReader's consumer (TopicReader.client). lag --watch --status
// reads only its groups' partitions, from the window's start, into the
// same TailState (Tail).
type Tailer struct {
	Reader  TopicReader // Admin and NewClient; Idle ends a warm-up stuck short of its end
	Options TailOptions

	mu    sync.Mutex
	state *TailState
	warm  bool
	left  int // partitions not yet read to their start-time end
	err   error
	ready chan struct{}
	once  sync.Once
}

// tailWait is how long a broker may hold the Tailer's fetch for
// tailMinBytes: a broker answers a fetch as soon as it has a byte, so
// under a steady commit load (50,000 a second) the tail made many small
// fetches, each a request, a response read and a wake-up; waiting for
// 1 MiB or 500 ms cut its CPU per record by about a third on Apache Kafka
// 4.4 (bench/exporter_tail.md). The Tailer follows the topic for rounds
// seconds apart, so half a second more is nothing. The wait stays under a
// third of idle (Reader.Idle, 3 s when unset): idle with no record ends
// the warm-up, and a fetch held by the broker must not look like a topic
// with nothing more to read.
func tailWait(idle time.Duration) time.Duration {
	if idle <= 0 {
		idle = 3 * time.Second
	}
	return max(min(500*time.Millisecond, idle/3), 10*time.Millisecond).Truncate(time.Millisecond)
}

const tailMinBytes = 1 << 20

// NewTailer returns a Tailer; Run starts it.
func NewTailer(r TopicReader, o TailOptions) *Tailer {
	return &Tailer{Reader: r, Options: o, state: NewTailState(o), ready: make(chan struct{}), left: -1}
}

// Ready is closed when the warm-up is done.
func (t *Tailer) Ready() <-chan struct{} { return t.ready }

// Status is the warm-up's progress and the last error (nil once reading
// works again): warm, the partitions left (-1 before the ends are known).
func (t *Tailer) Status() (warm bool, left int, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.warm, t.left, t.err
}

// View calls fn with the state, locked: fn must not keep it.
func (t *Tailer) View(fn func(*TailState)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	fn(t.state)
}

func (t *Tailer) setErr(err error) {
	t.mu.Lock()
	t.err = err
	t.mu.Unlock()
}

// Run reads until ctx ends. Each failure to start (the topic unreadable:
// an error wrapping ErrNoAccess) is kept for Status and tried again after
// a backoff; a read that fails mid-way is retried by the client.
func (t *Tailer) Run(ctx context.Context) {
	for wait := time.Second; ctx.Err() == nil; wait = min(2*wait, 30*time.Second) {
		err := t.run(ctx)
		if ctx.Err() != nil {
			return
		}
		t.setErr(err)
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
	}
}

// run is one start: the partitions and their bounds, then the consumer.
func (t *Tailer) run(ctx context.Context) error {
	n, err := t.Reader.count(ctx)
	if err != nil {
		return err
	}
	starts, err := t.Reader.Admin.ListStartOffsets(ctx, OffsetsTopic)
	if err == nil {
		err = starts.Error()
	}
	if err != nil {
		return t.Reader.wrap("listing its offsets", err)
	}
	ends, err := t.Reader.Admin.ListEndOffsets(ctx, OffsetsTopic) // the high watermark: see TopicReader.Read
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		return t.Reader.wrap("listing its offsets", err)
	}
	s, e := map[int32]int64{}, map[int32]int64{}
	for p, o := range starts[OffsetsTopic] {
		s[p] = o.Offset
	}
	for p, o := range ends[OffsetsTopic] {
		e[p] = o.Offset
	}
	cl, err := t.Reader.NewClient()
	if err != nil {
		return err
	}
	defer cl.Close()
	t.mu.Lock()
	// A restart (the topic became unreadable) reads from the log start
	// again: rounds wait for its warm-up rather than show a state that
	// misses what was read before.
	t.state, t.warm = NewTailState(t.Options), false
	t.state.LostBefore(s, n)
	t.mu.Unlock()
	return t.consume(ctx, newFetcher(cl, s, tailWait(t.Reader.Idle), tailMinBytes), NewWarmUp(s, e))
}

// consume applies every record fetched until ctx ends. The warm-up is
// done when each partition has been read to its end, or when no record at
// all came for Idle (the last offsets before an end can be empty; three
// times as long before the first record, as the first fetch also
// connects): a partition left unread while others still bring records
// keeps the rounds waiting, never shows them a partial state. A fetch that fails is tried again after
// a backoff that grows to 5 s (at once while other partitions have
// records), its error kept for Status meanwhile; one that says the topic
// is not ours to read ends the run.
func (t *Tailer) consume(ctx context.Context, f *fetcher, w *WarmUp) error {
	idle := t.Reader.Idle
	if idle <= 0 {
		idle = 3 * time.Second
	}
	wait, last, backoff := 3*idle, time.Now(), time.Duration(0)
	t.warmed(w, false)
	for ctx.Err() == nil {
		res, err := f.poll(ctx)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil && noAccess(err) {
			err = t.Reader.wrap("reading it", err)
			t.setErr(err)
			return err
		}
		t.mu.Lock()
		if len(res.restart) > 0 {
			t.state.Restart(res.restart, f.count)
			starts := map[int32]int64{}
			for p := range res.restart {
				starts[p] = f.next[p] // its log start: read again from there
			}
			t.state.LostBefore(starts, f.count)
		}
		n, aerr := f.apply(res, t.state.apply)
		t.mu.Unlock()
		for _, fp := range res.parts {
			w.Seen(fp.partition, f.next[fp.partition]-1)
		}
		if err = cmp.Or(err, aerr, res.err); err != nil {
			t.setErr(t.Reader.wrap("reading it", err))
			// The others go on at once while they have records:
			// one partition waiting for a leader must not hold
			// every group's commits back by the backoff.
			if backoff = min(max(2*backoff, 100*time.Millisecond), 5*time.Second); n == 0 {
				select {
				case <-ctx.Done():
				case <-time.After(backoff):
				}
			}
		} else {
			t.setErr(nil)
			backoff = 0
		}
		if n > 0 {
			last, wait = time.Now(), idle
		}
		t.warmed(w, n == 0 && time.Since(last) >= wait)
	}
	return ctx.Err()
}

// warmed publishes the warm-up's progress and closes Ready when it is
// done (or idle says nothing more is coming).
func (t *Tailer) warmed(w *WarmUp, idle bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.left = w.Left()
	if (w.Done() || idle) && !t.warm {
		t.warm = true
		t.once.Do(func() { close(t.ready) })
	}
}

// NotWarm is the error of a round asked before the warm-up is done.
func NotWarm(left int) error {
	if left < 0 {
		return fmt.Errorf("%s: warming up (listing its partitions)", OffsetsTopic)
	}
	return fmt.Errorf("%s: warming up (%d partition(s) not yet read to their end)", OffsetsTopic, left)
}
