package health

import (
	"errors"
	"fmt"
	"testing"
)

// Unreadable: only --status-source offsets-topic (no fallback) with the
// topic never read ends the command at once; an error that is not about
// access, another mode, or a topic read before (mid-watch: a failed round
// like any other) does not.
func TestJudgeUnreadable(t *testing.T) {
	denied := fmt.Errorf("%w (reading its metadata: TOPIC_AUTHORIZATION_FAILED)", ErrNoAccess)
	other := errors.New("listing its offsets: broker gone")
	for _, c := range []struct {
		name  string
		mode  string
		reads []error // the topic reads of the rounds before, in order
		err   error
		want  bool
	}{
		{name: "asked for, never read", mode: ModeOffsetsTopic, err: denied, want: true},
		{name: "asked for, an earlier round failed otherwise", mode: ModeOffsetsTopic, reads: []error{other}, err: denied, want: true},
		{name: "asked for, read before (mid-watch)", mode: ModeOffsetsTopic, reads: []error{nil}, err: denied},
		{name: "asked for, not an access error", mode: ModeOffsetsTopic, err: other},
		{name: "asked for, no error", mode: ModeOffsetsTopic},
		{name: "auto falls back", mode: ModeAuto, err: denied},
		{name: "sample", mode: ModeSample, err: denied},
	} {
		t.Run(c.name, func(t *testing.T) {
			j := &Judge{Mode: c.mode}
			for _, e := range c.reads {
				_, _ = j.topicFirst(func() error { return e })
			}
			if got := j.Unreadable(c.err); got != c.want {
				t.Fatalf("Unreadable = %v, want %v", got, c.want)
			}
		})
	}
	if (*Judge)(nil).Unreadable(denied) {
		t.Error("a nil Judge (no --status) is never unreadable")
	}
}
