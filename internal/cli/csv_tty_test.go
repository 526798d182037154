//go:build linux

package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"golang.org/x/sys/unix"

	"github.com/offsetctl/offsetctl/internal/testkit"
)

// openPTY opens a pseudo-terminal: what a program writes to tty, a test
// reads from ptm.
func openPTY(t *testing.T) (ptm, tty *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		m.Close()
		t.Skipf("unlocking the pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		m.Close()
		t.Skipf("naming the pseudo-terminal: %v", err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		t.Skipf("opening the pseudo-terminal: %v", err)
	}
	return m, s
}

// runOnTerminal runs offsetctl in-process with stdout on a
// pseudo-terminal: its exit code and what the terminal received.
func runOnTerminal(t *testing.T, c *testkit.Cluster, args ...string) (int, string) {
	t.Helper()
	ptm, tty := openPTY(t)
	got := make(chan []byte, 1)
	go func() { b, _ := io.ReadAll(ptm); got <- b }()
	a := &app{stdout: tty, stderr: io.Discard, stdin: strings.NewReader(""), getenv: testEnv(t, nil), now: time.Now}
	code := a.execute(context.Background(), append([]string{"--brokers", c.BrokerList()}, args...))
	tty.Close()
	out := string(<-got)
	ptm.Close()
	return code, out
}

// TestCSVToTerminalEscapesNames: -o csv keeps a name's exact bytes in a
// file or a pipe, but on a terminal a group named with ESC and BEL is
// escaped as every other output to a terminal is (QA: `lag -o csv` and
// `groups -o csv` repainted the terminal red and rang its bell on Apache
// Kafka 4.4).
func TestCSVToTerminalEscapesNames(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(1, nil)
	c.Produce(topic, map[int32]int{0: 3}, time.Time{})
	group := testkit.Name(t, "evil\x1b[31mRED\a")
	c.Commit(group, topic, map[int32]int64{0: 1})

	for _, args := range [][]string{{"lag", group, "-o", "csv"}, {"groups", "-o", "csv"}} {
		code, out := runOnTerminal(t, c, args...)
		if code != 0 {
			t.Fatalf("%s: exit %d", args[0], code)
		}
		if strings.ContainsAny(out, "\x1b\a") || !strings.Contains(out, `evil\x1b[31mRED\a`) {
			t.Errorf("%s -o csv on a terminal: %q", args[0], out)
		}

		r := mustRun(t, c, 0, args...) // not a terminal: the exact bytes
		if !strings.Contains(r.stdout, group) {
			t.Errorf("%s -o csv to a buffer lost the name's bytes: %q", args[0], r.stdout)
		}
	}
}

// TestCSVToTerminalEscapesLineBreaks: a line break inside a quoted CSV
// cell is a forged row on a terminal (QA: a group named
// "zz\npayments,classic,Stable,3,payments,0,\n" drew a payments row in
// `groups -o csv` and `lag -o csv`), so there it is written as \n and each
// record is one line; a pipe still gets the exact bytes, RFC 4180 quoted.
func TestCSVToTerminalEscapesLineBreaks(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(1, nil)
	c.Produce(topic, map[int32]int{0: 3}, time.Time{})
	group := "zz\npayments,classic,Stable,3,payments,0,\n" + testkit.Name(t, "x")
	c.Commit(group, topic, map[int32]int64{0: 1})
	escaped := `"zz\npayments,classic,Stable,3,payments,0,\n` + group[len("zz\npayments,classic,Stable,3,payments,0,\n"):] + `"`

	for _, args := range [][]string{{"lag", group, "-o", "csv"}, {"groups", "-r", "zz.*", "-o", "csv"}, {"lag", "-r", "zz.*", "--by", "group", "-o", "csv"}} {
		code, out := runOnTerminal(t, c, args...)
		if code != 0 {
			t.Fatalf("%q: exit %d", args, code)
		}
		// The terminal turns each \n into \r\n: two records, two lines.
		lines := strings.Split(strings.TrimSuffix(out, "\r\n"), "\r\n")
		if len(lines) != 2 || !strings.HasPrefix(lines[1], escaped+",") || strings.ContainsAny(out, "\x1b\a") {
			t.Errorf("%q -o csv on a terminal: %q", args, out)
		}
		r := mustRun(t, c, 0, args...) // not a terminal: the exact bytes
		if !strings.Contains(r.stdout, "\n\""+group+"\",") {
			t.Errorf("%q -o csv to a buffer lost the name's bytes: %q", args, r.stdout)
		}
	}
}

// TestReplayRawToTerminalEscapesValues: replay --format raw writes record
// values as they are to a file or a pipe (that is its point), but on a
// terminal a value holding ESC and BEL is escaped, as cluster data always
// is there (QA: a terminal acted on the values' escape sequences).
func TestReplayRawToTerminalEscapesValues(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(1, nil)
	value := "pay\x1b[31mRED\a"
	c.ProduceRecords(&kgo.Record{Topic: topic, Partition: 0, Value: []byte(value)})
	args := []string{"replay", topic, "--format", "raw", "-q", "--no-verify"}

	code, out := runOnTerminal(t, c, args...)
	if code != 0 {
		t.Fatalf("replay: exit %d", code)
	}
	if strings.ContainsAny(out, "\x1b\a") || !strings.Contains(out, `pay\x1b[31mRED\a`) {
		t.Errorf("replay --format raw on a terminal: %q", out)
	}

	r := mustRun(t, c, 0, args...) // not a terminal: the exact bytes
	if r.stdout != value+"\n" {
		t.Errorf("replay --format raw to a buffer: %q, want %q", r.stdout, value+"\n")
	}
}
