package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/offsetctl/offsetctl/internal/iostreams"
	"github.com/offsetctl/offsetctl/internal/testkit"
)

// TestTerminalFactsSetByTest: the commands ask the app's iostreams value,
// not the writers, so a test can say "stderr is a terminal" over plain
// buffers: replay then draws its bar, and -o csv escapes names on stdout.
func TestTerminalFactsSetByTest(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(1, nil)
	c.Produce(topic, map[int32]int{0: 7}, time.Time{})
	group := testkit.Name(t, "bel\a")
	c.Commit(group, topic, map[int32]int64{0: 1})

	run := func(stdoutTTY, stderrTTY bool, args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		ios := iostreams.Test(strings.NewReader(""), &out, &errb)
		ios.SetStdoutTTY(stdoutTTY)
		ios.SetStderrTTY(stderrTTY)
		a := &app{stdout: &out, stderr: &errb, stdin: strings.NewReader(""), getenv: testEnv(t, nil), now: time.Now, io: ios}
		code := a.execute(context.Background(), append([]string{"--brokers", c.BrokerList()}, args...))
		return code, out.String(), errb.String()
	}
	if code, _, errs := run(false, true, "replay", topic, "--format", "none"); code != 0 || !strings.Contains(errs, "\rreplay") {
		t.Errorf("stderr set as a terminal: exit %d, no bar in %q", code, errs)
	}
	if code, _, errs := run(false, false, "replay", topic, "--format", "none"); code != 0 || strings.Contains(errs, "\r") {
		t.Errorf("stderr not a terminal: exit %d, stderr %q", code, errs)
	}
	if code, out, _ := run(true, false, "lag", group, "-o", "csv"); code != 0 || strings.Contains(out, "\a") || !strings.Contains(out, `bel\a`) {
		t.Errorf("stdout set as a terminal, -o csv: exit %d, %q", code, out)
	}
	if code, out, _ := run(false, false, "lag", group, "-o", "csv"); code != 0 || !strings.Contains(out, "bel\a") {
		t.Errorf("stdout not a terminal, -o csv keeps the bytes: exit %d, %q", code, out)
	}
}
