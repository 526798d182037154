package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetctl/offsetctl/internal/exitcode"
	"github.com/offsetctl/offsetctl/internal/testkit"
	"github.com/offsetctl/offsetctl/replay"
)

// offsetctlBinary builds the real offsetctl (main, with its SIGPIPE
// handling) once per test binary: a closed pipe is only real between
// processes.
var offsetctlBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "offsetctl-bin-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "offsetctl")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/offsetctl/offsetctl").CombinedOutput()
	if err != nil {
		return "", &exec.ExitError{Stderr: out}
	}
	return bin, nil
})

func builtOffsetctl(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	bin, err := offsetctlBinary()
	if err != nil {
		t.Fatalf("go build: %v %s", err, err.(*exec.ExitError).Stderr)
	}
	return bin
}

// pipeline runs `offsetctl ARGS | head -1` in bash with pipefail and
// returns head's output, offsetctl's stderr and offsetctl's status.
func pipeline(t *testing.T, c *testkit.Cluster, args ...string) (string, string, int) {
	t.Helper()
	bin := builtOffsetctl(t)
	errFile := filepath.Join(t.TempDir(), "stderr")
	script := `set -o pipefail; "$0" "$@" 2>"$ERRFILE" | head -1; echo "status=${PIPESTATUS[0]}"`
	cmd := exec.Command("bash", append([]string{"-c", script, bin}, args...)...)
	cmd.Env = append(os.Environ(), "KAFKA_BROKERS="+c.BrokerList(), "ERRFILE="+errFile)
	var out bytes.Buffer
	cmd.Stdout = &out
	_ = cmd.Run() // the status of interest is offsetctl's, echoed by the script
	errb, _ := os.ReadFile(errFile)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	last := lines[len(lines)-1]
	var status int
	if _, err := fmt.Sscanf(last, "status=%d", &status); err != nil {
		t.Fatalf("no status in %q (stderr %s)", out.String(), errb)
	}
	return strings.Join(lines[:len(lines)-1], "\n"), string(errb), status
}

// TestReplayPipeClosedByReader: `replay T --format raw | head -1` ends the
// replay quietly when head leaves; the status says whether every record
// asked for was written (141, as a shell reports for a tool ended by
// SIGPIPE), and --max N for the N records read is a plain success.
func TestReplayPipeClosedByReader(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(1, nil)
	// 4 MiB: more than the replay's 1 MiB write buffer and a pipe's
	// 64 KiB, so the reader leaves while records are still coming.
	const total = 4000
	pad := strings.Repeat("x", 1<<10)
	recs := make([]*kgo.Record, total)
	for i := range recs {
		recs[i] = &kgo.Record{Topic: topic, Partition: 0, Value: []byte(fmt.Sprintf("v-0-%d-%s", i, pad))}
	}
	c.ProduceRecords(recs...)
	first := "v-0-0-" + pad

	out, errb, status := pipeline(t, c, "replay", topic, "--format", "raw", "-q", "-o", "json")
	if out != first || status != exitcode.OutputClosed {
		t.Fatalf("| head -1: output %.20q, status %d, want the first record and %d\nstderr: %s", out, status, exitcode.OutputClosed, errb)
	}
	if strings.Contains(errb, "broken pipe") || strings.Contains(errb, "offsetctl:") {
		t.Fatalf("not quiet: %s", errb)
	}
	var res replay.Result
	if err := json.Unmarshal([]byte(errb), &res); err != nil {
		t.Fatalf("summary on stderr is not the JSON result: %v\n%s", err, errb)
	}
	pr := res.Partitions[0]
	if res.Stopped != replay.StoppedOutputClosed || res.Records >= total || pr.Stop != replay.StoppedOutputClosed ||
		pr.To >= total || res.ResumeFrom != fmt.Sprintf("0=%d", pr.To) || !res.Verification.Unchanged {
		t.Fatalf("summary: stopped %s, records %d, partition %+v, resume %q", res.Stopped, res.Records, pr, res.ResumeFrom)
	}

	// Ask for what is read: every record asked for is written, status 0.
	out, errb, status = pipeline(t, c, "replay", topic, "--format", "raw", "-q", "--max", "1")
	if out != first || status != 0 || !strings.Contains(errb, "STOPPED max") {
		t.Fatalf("--max 1 | head -1: output %q status %d stderr %s", out, status, errb)
	}
	// A tail with no end asks for no last record: the reader leaving
	// ends it as Ctrl-C does, status 0.
	out, errb, status = pipeline(t, c, "replay", topic, "--format", "raw", "-q", "--follow")
	if out != first || status != 0 || !strings.Contains(errb, "STOPPED output-closed") || strings.Contains(errb, "broken pipe") {
		t.Fatalf("--follow | head -1: output %q status %d stderr %s", out, status, errb)
	}
	// A tail with an end it did not reach: not everything was written.
	_, errb, status = pipeline(t, c, "replay", topic, "--format", "raw", "-q", "--follow", "--until", fmt.Sprint(total+5))
	if status != exitcode.OutputClosed || strings.Contains(errb, "broken pipe") {
		t.Fatalf("--follow --until | head -1: status %d stderr %s", status, errb)
	}
	// Every record read but the last write refused (they all fit in the
	// write buffer): still not all written.
	_, errb, status = pipeline(t, c, "replay", topic, "--format", "raw", "-q", "--max", "300")
	if status != exitcode.OutputClosed || !strings.Contains(errb, "STOPPED output-closed") || strings.Contains(errb, "broken pipe") {
		t.Fatalf("--max 300 | head -1: status %d stderr %s", status, errb)
	}
}

// TestResetExecuteClosedStdoutStaysLoud: a reset that committed and then
// cannot print its table says so (exit 1, "broken pipe"): the commit is
// real and the user must know the output was lost.
func TestResetExecuteClosedStdoutStaysLoud(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(1, nil)
	c.Produce(topic, map[int32]int{0: 10}, time.Time{})
	group := testkit.Name(t, "g")
	c.Commit(group, topic, map[int32]int64{0: 2})
	bin := builtOffsetctl(t)

	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close() // the reader is gone before anything is written
	var errb bytes.Buffer
	cmd := exec.Command(bin, "reset", group, "--topic", topic, "--to", "latest", "--execute", "--backup", filepath.Join(t.TempDir(), "b.csv"))
	cmd.Env = append(os.Environ(), "KAFKA_BROKERS="+c.BrokerList())
	cmd.Stdout, cmd.Stderr = w, &errb
	runErr := cmd.Run()
	w.Close()
	ee, ok := runErr.(*exec.ExitError)
	if !ok || ee.ExitCode() != 1 || !strings.Contains(errb.String(), "broken pipe") {
		t.Fatalf("reset --execute with a closed stdout: %v, stderr %s", runErr, errb.String())
	}
	if got := c.Committed(group)[topic][0]; got != 10 {
		t.Fatalf("committed %d after the reset, want 10", got)
	}
}
