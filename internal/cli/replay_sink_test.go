package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetctl/offsetctl/internal/exitcode"
	"github.com/offsetctl/offsetctl/internal/testkit"
	"github.com/offsetctl/offsetctl/replay"
)

// failingSink takes the first limit bytes written to it, then refuses
// every write with err; the write that crosses the limit is taken in part
// (n < len(p)), as a file system at its quota or a pipe does.
type failingSink struct {
	buf   bytes.Buffer
	limit int
	err   error
}

func (s *failingSink) Write(p []byte) (int, error) {
	room := max(s.limit-s.buf.Len(), 0)
	if len(p) <= room {
		return s.buf.Write(p)
	}
	s.buf.Write(p[:room])
	return room, s.err
}

// offsetctlStdout runs offsetctl in-process with stdout (where the
// records go without --out) being w; stderr holds the summary then.
func offsetctlStdout(t *testing.T, c *testkit.Cluster, w io.Writer, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var errb bytes.Buffer
	full := append([]string{"--brokers", c.BrokerList()}, args...)
	a := &app{stdout: w, stderr: &errb, stdin: strings.NewReader(""), getenv: testEnv(t, nil), now: time.Now}
	code := a.execute(ctx, full)
	return result{stderr: errb.String(), code: code}
}

// delivered is every (partition, offset) of the whole JSON lines in out;
// a line cut by a failed write (no newline, or not JSON) is left out.
func delivered(t *testing.T, out []byte) map[int32]map[int64]int {
	t.Helper()
	got := map[int32]map[int64]int{}
	lines := bytes.SplitAfter(out, []byte("\n"))
	for i, l := range lines {
		if len(l) == 0 || l[len(l)-1] != '\n' {
			if i != len(lines)-1 {
				t.Fatalf("line %d is cut but not the last", i)
			}
			continue // the last line, cut
		}
		pl, err := replay.ParseLine(bytes.TrimSuffix(l, []byte("\n")))
		if err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
		if got[pl.Partition] == nil {
			got[pl.Partition] = map[int64]int{}
		}
		got[pl.Partition][pl.Offset]++
	}
	return got
}

// sinkTopic makes a topic of parts partitions of n records of 300-byte
// values: about 400 bytes a JSON line, several MiB in all, so that a
// replay writes its 1 MiB buffer several times.
func sinkTopic(t *testing.T, c *testkit.Cluster, parts int32, n int) string {
	t.Helper()
	topic := c.Topic(parts, nil)
	pad := strings.Repeat("x", 300)
	var recs []*kgo.Record
	for p := range parts {
		for i := range n {
			v := fmt.Sprintf("v-%d-%d-%s", p, i, pad)[:300]
			recs = append(recs, &kgo.Record{Topic: topic, Partition: p, Key: []byte(fmt.Sprintf("k-%d-%d", p, i)), Value: []byte(v)})
		}
	}
	c.ProduceRecords(recs...)
	return topic
}

// checkStopped checks that a replay stopped by a failed write counts only
// what its output holds whole: every record of each partition's
// FROM..TO is in out, RECORDS is their number, and the digest is the
// digest of exactly that range (a replay of it with --format none).
func checkStopped(t *testing.T, c *testkit.Cluster, topic string, res replay.Result, out []byte, digest bool) {
	t.Helper()
	got := delivered(t, out)
	var total int64
	var from, until []string
	for _, pr := range res.Partitions {
		if pr.Records != pr.To-pr.From {
			t.Fatalf("partition %d: %d records for %d..%d", pr.Partition, pr.Records, pr.From, pr.To)
		}
		for o := pr.From; o < pr.To; o++ {
			if got[pr.Partition][o] == 0 {
				t.Fatalf("partition %d: offset %d is counted as replayed (to %d, stop %s) but is not in the output", pr.Partition, o, pr.To, pr.Stop)
			}
		}
		total += pr.Records
		from = append(from, fmt.Sprintf("%d=%d", pr.Partition, pr.From))
		until = append(until, fmt.Sprintf("%d=%d", pr.Partition, pr.To))
	}
	if res.Records != total {
		t.Fatalf("records %d, the partitions say %d", res.Records, total)
	}
	if !digest {
		return
	}
	r := mustRun(t, c, 0, "replay", topic, "--from", strings.Join(from, ","), "--until", strings.Join(until, ","), "--format", "none", "--no-verify", "-q", "-o", "json")
	var whole replay.Result
	decodeJSON(t, r, &whole)
	if whole.Digest != res.Digest || whole.Records != res.Records {
		t.Fatalf("the stopped replay's digest %s (%d records) is not that of the range it says it wrote, %s (%d records)", res.Digest, res.Records, whole.Digest, whole.Records)
	}
}

// TestReplayResumeAfterFailedWrite: a replay whose output refuses a write
// (a full disk, a file size limit, a reader gone) counts a record as done
// only once the write holding it went through. Its CONTINUE WITH resumes
// exactly: the suggested continuations, run into the same kind of sink
// until one ends, give together every record of the range, none skipped
// (a record a failed write cut may come twice).
func TestReplayResumeAfterFailedWrite(t *testing.T) {
	c := testkit.New(t)
	const parts, n = 3, 5000 // about 6 MiB of JSON lines
	topic := sinkTopic(t, c, parts, n)
	for _, tc := range []struct {
		name string
		err  error
		code int
		stop string
	}{
		{"ENOSPC", syscall.ENOSPC, exitcode.Failure, replay.StoppedError},
		{"EFBIG", syscall.EFBIG, exitcode.Failure, replay.StoppedError},
		{"EPIPE", syscall.EPIPE, exitcode.OutputClosed, replay.StoppedOutputClosed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			union := map[int32]map[int64]int{}
			args := []string{"replay", topic, "-q", "--no-verify", "-o", "json"}
			for run := 0; ; run++ {
				if run == 10 {
					t.Fatal("no end after 10 runs")
				}
				// 2.5 MiB a run: two writes of the buffer go through,
				// the third is cut.
				sink := &failingSink{limit: 5 << 19, err: tc.err}
				r := offsetctlStdout(t, c, sink, args...)
				var res replay.Result
				// The summary, then the audit line.
				if err := json.NewDecoder(strings.NewReader(r.stderr)).Decode(&res); err != nil {
					t.Fatalf("run %d: exit %d, no JSON summary on stderr: %v\n%.2000s\nstdout %.300s", run, r.code, err, r.stderr, sink.buf.String())
				}
				checkStopped(t, c, topic, res, sink.buf.Bytes(), run == 0)
				for p, offs := range delivered(t, sink.buf.Bytes()) {
					if union[p] == nil {
						union[p] = map[int64]int{}
					}
					for o := range offs {
						union[p][o]++
					}
				}
				if r.code == 0 {
					if res.Stopped != replay.StoppedEnd || res.ResumeFrom != "" {
						t.Fatalf("run %d: exit 0 with stopped %s, resume %q", run, res.Stopped, res.ResumeFrom)
					}
					break
				}
				if r.code != tc.code || res.Stopped != tc.stop || res.ResumeFrom == "" {
					t.Fatalf("run %d: exit %d, stopped %s, resume %q; want exit %d, %s and a resume point\n%.2000s", run, r.code, res.Stopped, res.ResumeFrom, tc.code, tc.stop, r.stderr)
				}
				if run == 0 && res.Records == 0 {
					t.Fatal("the first run wrote 2 MiB whole but counts no record")
				}
				args = []string{"replay", topic, "-q", "--no-verify", "-o", "json", "--from", res.ResumeFrom}
			}
			for p := range int32(parts) {
				if len(union[p]) != n {
					for o := range int64(n) {
						if union[p][o] == 0 {
							t.Fatalf("partition %d: offset %d is in no output (%d of %d offsets written)", p, o, len(union[p]), n)
						}
					}
				}
				for o := range union[p] {
					if o < 0 || o >= n {
						t.Fatalf("partition %d: offset %d is outside the range", p, o)
					}
				}
			}
		})
	}
}

// TestReplayOutDevFull: --out /dev/full refuses every write: nothing is
// counted as replayed, every partition resumes from its start, and the
// digest is that of no record.
func TestReplayOutDevFull(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	c := testkit.New(t)
	topic := sinkTopic(t, c, 3, 3000)
	r := offsetctl(t, c, "replay", topic, "--out", "/dev/full", "-q", "--no-verify", "-o", "json")
	var res replay.Result
	decodeJSON(t, r, &res)
	empty := mustRun(t, c, 0, "replay", topic, "--from", "0=0,1=0,2=0", "--until", "0=0,1=0,2=0", "--format", "none", "--no-verify", "-q", "-o", "json")
	var none replay.Result
	decodeJSON(t, empty, &none)
	if r.code != exitcode.Failure || res.Stopped != replay.StoppedError || res.Records != 0 || res.Bytes != 0 ||
		res.ResumeFrom != "0=0,1=0,2=0" || res.Digest != none.Digest || !strings.Contains(r.stderr, "no space left on device") {
		t.Fatalf("exit %d, stopped %s, records %d, bytes %d, resume %q, digest %s (want %s)\n%s", r.code, res.Stopped, res.Records, res.Bytes, res.ResumeFrom, res.Digest, none.Digest, r.stderr)
	}
	for _, pr := range res.Partitions {
		if pr.To != 0 || pr.Records != 0 || pr.Stop != replay.StoppedError || pr.FirstTs != nil {
			t.Fatalf("partition %+v: nothing reached the output", pr)
		}
	}

	// The failed write names --out cut, never whole (a link with a long
	// name to /dev/full).
	long := filepath.Join(t.TempDir(), strings.Repeat("l", 250))
	if err := os.Symlink("/dev/full", long); err != nil {
		t.Skipf("symlink: %v", err)
	}
	r = offsetctl(t, c, "replay", topic, "--out", long, "-q", "--no-verify")
	if r.code != exitcode.Failure || strings.Contains(r.stderr, long) || !strings.Contains(r.stderr, "bytes): no space left on device") {
		t.Fatalf("exit %d, stderr %s", r.code, r.stderr)
	}
}

// TestReplayClosedStdoutResume: with stdout's reader gone before the
// first write (`| (exec <&-; ...)`), no record was delivered: the replay
// stops output-closed (141) and resumes every partition from its start,
// --max 1 included (its one record was never written).
func TestReplayClosedStdoutResume(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(3, nil)
	c.Produce(topic, map[int32]int{0: 20, 1: 20, 2: 20}, time.Time{})
	for _, extra := range [][]string{nil, {"--max", "1"}, {"--format", "raw"}} {
		rd, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		rd.Close()
		r := offsetctlStdout(t, c, w, append([]string{"replay", topic, "-q", "--no-verify", "-o", "json"}, extra...)...)
		w.Close()
		var res replay.Result
		if err := json.NewDecoder(strings.NewReader(r.stderr)).Decode(&res); err != nil {
			t.Fatalf("%v: exit %d, stderr is not the summary: %v\n%s", extra, r.code, err, r.stderr)
		}
		if r.code != exitcode.OutputClosed || res.Stopped != replay.StoppedOutputClosed || res.Records != 0 || res.ResumeFrom != "0=0,1=0,2=0" {
			t.Fatalf("%v: exit %d, stopped %s, records %d, resume %q; want 141, output-closed, 0, every partition from 0", extra, r.code, res.Stopped, res.Records, res.ResumeFrom)
		}
		for _, pr := range res.Partitions {
			if pr.To != 0 || pr.Stop != replay.StoppedOutputClosed {
				t.Fatalf("%v: partition %+v: none of its records was written", extra, pr)
			}
		}
	}
}
