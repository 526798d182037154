package replay

import (
	"fmt"
	"io/fs"
	"maps"
	"math"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/offsetctl/offsetctl/internal/exitcode"

	"github.com/twmb/franz-go/pkg/kgo"
)

// gatedWriter stands in for WriteCheckpoint: each write hands its
// checkpoint to the test when it starts and completes only when the test
// releases it, as a slow fsync would.
type gatedWriter struct {
	started  chan Checkpoint
	release  chan struct{}
	inFlight atomic.Int32
	most     atomic.Int32
	calls    atomic.Int32
}

func newGatedWriter() *gatedWriter {
	return &gatedWriter{started: make(chan Checkpoint), release: make(chan struct{})}
}

func (w *gatedWriter) write(_ string, c Checkpoint) error {
	n := w.inFlight.Add(1)
	if n > w.most.Load() {
		w.most.Store(n)
	}
	w.calls.Add(1)
	w.started <- c
	<-w.release
	w.inFlight.Add(-1)
	return nil
}

// ckptBackfiller is a backfiller of source partition 0 (range 0..1000,
// target partition 0 empty at start) whose checkpoint writes go to w,
// with its checkpoint loop running.
func ckptBackfiller(t *testing.T, w *gatedWriter, interval time.Duration, pause func(time.Duration, <-chan struct{}) bool, now func() time.Time) *backfiller {
	t.Helper()
	b := &backfiller{
		src:     "src",
		plan:    Plan{Partitions: []PartitionPlan{{Partition: 0, From: 0, Bound: 1000}}},
		parts:   map[int32]*inflight{0: {}},
		targets: map[int32]*targetAcks{},
		stop:    make(chan struct{}),
	}
	ck := newCheckpointer(CheckpointOptions{Path: "unused", Interval: interval}, CheckpointJob{SourceTopic: "src", TargetTopic: "dst"})
	ck.ranges[0] = CheckpointRange{Partition: 0, From: 0, Bound: 1000}
	ck.baseEnds[0] = 0
	ck.write, ck.pause, ck.now = w.write, pause, now
	b.ck = ck
	b.wg.Add(1)
	go b.checkpointLoop()
	return b
}

// sendCopies queues copies of source offsets from..to-1 of partition 0 as
// copy does, returning their sequence numbers.
func sendCopies(b *backfiller, from, to int64) []int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	inf := b.parts[0]
	var seqs []int64
	for off := from; off < to; off++ {
		seqs = append(seqs, inf.base+int64(len(inf.queue)))
		inf.queue = append(inf.queue, slot{offset: off})
		b.pending.Add(1)
	}
	return seqs
}

// ack answers the copy of source offset off (sequence seq) as written at
// target offset off, through the producer callback's own code.
func ack(b *backfiller, seq, off int64) {
	b.answer(0, seq, off, &kgo.Record{Partition: 0, Offset: off}, nil)
}

func nextStarted(t *testing.T, w *gatedWriter) Checkpoint {
	t.Helper()
	select {
	case c := <-w.started:
		return c
	case <-time.After(10 * time.Second):
		t.Fatal("no checkpoint write started after an acknowledgement")
		return Checkpoint{}
	}
}

func noneStarted(t *testing.T, w *gatedWriter, why string) {
	t.Helper()
	select {
	case c := <-w.started:
		t.Fatalf("a write started %s (next %d)", why, c.Ranges[0].Next)
	case <-time.After(50 * time.Millisecond):
	}
}

// covers checks that c records the acknowledged prefix through next-1 and
// the target end past it.
func covers(t *testing.T, c Checkpoint, next int64) {
	t.Helper()
	if len(c.Ranges) != 1 || c.Ranges[0].Next != next || len(c.TargetEnds) != 1 || c.TargetEnds[0].Offset != next || c.AckedBeyond != 0 {
		t.Fatalf("checkpoint %+v %+v beyond %d, want next and target end %d", c.Ranges, c.TargetEnds, c.AckedBeyond, next)
	}
}

// TestCheckpointFollowsAcks (issue 9: "fsynced after each acknowledged
// batch"): with the default (no --checkpoint-interval) an acknowledgement
// starts a write that covers it at once, without waiting for any
// interval; the 99 acknowledgements that arrive while that write is in
// flight (a slow fsync) are covered by exactly one more write, never two
// at once; and the next acknowledgement is again followed by its write.
func TestCheckpointFollowsAcks(t *testing.T) {
	w := newGatedWriter()
	noPause := func(d time.Duration, _ <-chan struct{}) bool {
		t.Errorf("the default paced a write (%s)", d)
		return true
	}
	b := ckptBackfiller(t, w, DefaultCheckpointInterval, noPause, time.Now)
	seqs := sendCopies(b, 0, 101)
	noneStarted(t, w, "before any acknowledgement")

	ack(b, seqs[0], 0)
	covers(t, nextStarted(t, w), 1)
	for off := int64(1); off < 100; off++ {
		ack(b, seqs[off], off)
	}
	noneStarted(t, w, "while another was in flight")
	w.release <- struct{}{}
	covers(t, nextStarted(t, w), 100) // every acknowledgement made meanwhile, in one write
	w.release <- struct{}{}
	noneStarted(t, w, "with nothing acknowledged since the last one")

	ack(b, seqs[100], 100)
	covers(t, nextStarted(t, w), 101)
	w.release <- struct{}{}

	close(b.stop)
	b.wg.Wait()
	if got := w.calls.Load(); got != 3 || b.ck.res.Writes != 3 {
		t.Fatalf("%d writes (%d counted) for 101 acknowledgements in three bursts, want 3", got, b.ck.res.Writes)
	}
	if most := w.most.Load(); most != 1 {
		t.Fatalf("%d writes in flight at once, want 1", most)
	}
}

// TestCheckpointIntervalPaces: with --checkpoint-interval the first
// acknowledgement is written at once, and a later one waits out the rest
// of the interval (measured on the injected clock) before the write that
// covers it and everything acknowledged during the wait; the end of the
// backfill ends the wait without a write (the final write is
// finishCheckpoint's).
func TestCheckpointIntervalPaces(t *testing.T) {
	w := newGatedWriter()
	t0 := time.Date(2026, 12, 2, 1, 0, 0, 0, time.UTC)
	var clock atomic.Int64
	now := func() time.Time { return t0.Add(time.Duration(clock.Load())) }
	waits := make(chan time.Duration)
	resume := make(chan struct{})
	pace := func(d time.Duration, stop <-chan struct{}) bool {
		waits <- d
		select {
		case <-resume:
			return true
		case <-stop:
			return false
		}
	}
	b := ckptBackfiller(t, w, time.Minute, pace, now)
	seqs := sendCopies(b, 0, 20)

	ack(b, seqs[0], 0)
	covers(t, nextStarted(t, w), 1)
	w.release <- struct{}{}

	clock.Store(int64(20 * time.Second))
	ack(b, seqs[1], 1)
	select {
	case d := <-waits:
		if d != 40*time.Second {
			t.Fatalf("waited %s, want the 40s left of the interval", d)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the acknowledgement was neither written nor paced")
	}
	for off := int64(2); off < 10; off++ {
		ack(b, seqs[off], off)
	}
	noneStarted(t, w, "before the interval was over")
	resume <- struct{}{}
	covers(t, nextStarted(t, w), 10)
	w.release <- struct{}{}

	ack(b, seqs[10], 10)
	<-waits
	close(b.stop)
	b.wg.Wait()
	if got := w.calls.Load(); got != 2 {
		t.Fatalf("%d writes, want 2", got)
	}
}

// TestCheckpointResumeBoundPastLogEnd: a checkpoint whose range ends past
// the source's log end now is refused with exit 2 before anything is
// copied (QA: a file with bound 10^18 was accepted and the resume waited
// for offsets that never come, until killed). A bound at the log end is
// the normal case and resumes.
func TestCheckpointResumeBoundPastLogEnd(t *testing.T) {
	old := sampleCheckpoint() // partition 0: 0..100 at 40; partition 1: 5..5
	plan := func(end0 int64) Plan {
		return Plan{Topic: "orders", Partitions: []PartitionPlan{
			{Partition: 0, LogStart: 0, LogEnd: end0, From: 0, Bound: end0},
			{Partition: 1, LogStart: 0, LogEnd: 5, From: 0, Bound: 5},
		}}
	}
	for _, tc := range []struct {
		name string
		end0 int64
		err  string
	}{
		{"at the log end", 100, ""},
		{"log grew since", 150, ""},
		{"past the log end", 99, "partition 0's range ends at offset 100 but the source log ends at 99 now"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ck := newCheckpointer(CheckpointOptions{Path: "unused"}, old.Job)
			out, err := ck.resume(&old, plan(tc.end0), "bf.ckpt")
			if tc.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				if len(out.Partitions) == 0 || out.Partitions[0].From != 40 || out.Partitions[0].Bound != 100 || ck.res.PossibleDuplicates != old.AckedBeyond {
					t.Fatalf("resumed plan %+v, duplicates %d", out.Partitions, ck.res.PossibleDuplicates)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) || exitcode.Code(err) != exitcode.Usage {
				t.Fatalf("error %v (exit %d), want %q with exit 2", err, exitcode.Code(err), tc.err)
			}
		})
	}
}

// TestCheckpointResumeCounts: a resume's possible duplicates are the
// copies acknowledged past next, the records others wrote below the
// target ends, and what the target gained past them since, per target
// partition; hostile counts saturate instead of overflowing.
func TestCheckpointResumeCounts(t *testing.T) {
	plan := Plan{Topic: "orders", Partitions: []PartitionPlan{
		{Partition: 0, LogStart: 0, LogEnd: 100, From: 0, Bound: 100},
		{Partition: 1, LogStart: 0, LogEnd: 5, From: 0, Bound: 5},
	}}
	for _, tc := range []struct {
		name         string
		othersBelow  int64
		ends         map[int32]int64
		want         int64
		targetOffset int64
	}{
		// acked_beyond 2 + others 5 + (50 − 41) + (3 − 0); partition 7
		// is not in the file and partition 1 did not move back.
		{"all three", 5, map[int32]int64{0: 50, 1: 3, 7: 9}, 19, 41},
		{"none since", 0, map[int32]int64{0: 41, 1: 0}, 2, 41},
		{"a target end past now", 0, map[int32]int64{0: 30, 1: 0}, 2, 41},
		{"saturated", math.MaxInt64, map[int32]int64{0: math.MaxInt64, 1: 0}, math.MaxInt64, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old := sampleCheckpoint() // acked_beyond 2, target ends 0: 41, 1: 0
			old.OthersBelow, old.TargetEnds[0].Offset = tc.othersBelow, tc.targetOffset
			var lines []string
			ck := newCheckpointer(CheckpointOptions{Path: "unused", Notef: func(f string, a ...any) { lines = append(lines, fmt.Sprintf(f, a...)) }}, old.Job)
			maps.Copy(ck.baseEnds, tc.ends)
			if _, err := ck.resume(&old, plan, "bf.ckpt"); err != nil {
				t.Fatal(err)
			}
			if ck.res.PossibleDuplicates != tc.want {
				t.Fatalf("possible duplicates %d, want %d", ck.res.PossibleDuplicates, tc.want)
			}
			if len(lines) != 1 || !strings.Contains(lines[0], fmt.Sprintf(": %d record(s) already in orders-copy may be duplicates", tc.want)) {
				t.Fatalf("resume line %q", lines)
			}
		})
	}
}

// TestCheckpointStartWriteErrors: the starting checkpoint that cannot be
// written is exit 2 when the path is the cause (no permission) and exit 1
// when the disk is (ENOSPC, EIO), nothing copied either way; a full disk
// was exit 2, "fix your command".
func TestCheckpointStartWriteErrors(t *testing.T) {
	for _, tc := range []struct {
		err  error
		code int
	}{
		{&fs.PathError{Op: "open", Path: "/x/.bf.ckpt.tmp-1", Err: syscall.EACCES}, exitcode.Usage},
		{&fs.PathError{Op: "write", Path: "/x/.bf.ckpt.tmp-1", Err: syscall.ENOSPC}, exitcode.Failure},
		{&fs.PathError{Op: "sync", Path: "/x/.bf.ckpt.tmp-1", Err: syscall.EIO}, exitcode.Failure},
	} {
		b := &backfiller{src: "src", plan: Plan{Partitions: []PartitionPlan{{Partition: 0, From: 0, Bound: 10}}}}
		ck := newCheckpointer(CheckpointOptions{Path: "bf.ckpt"}, CheckpointJob{SourceTopic: "src", TargetTopic: "dst"})
		ck.ranges[0] = CheckpointRange{Partition: 0, From: 0, Bound: 10}
		ck.write = func(string, Checkpoint) error { return tc.err }
		b.ck = ck
		err := b.writeStart("bf.ckpt")
		if exitcode.Code(err) != tc.code || !strings.Contains(err.Error(), "nothing was copied") {
			t.Errorf("%v: %v (exit %d), want exit %d", tc.err, err, exitcode.Code(err), tc.code)
		}
	}
}
