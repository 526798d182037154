package exitcode

import (
	"errors"
	"fmt"
	"testing"
)

func TestCode(t *testing.T) {
	cases := []struct {
		err  error
		want int
	}{
		{nil, OK},
		{errors.New("boom"), Failure},
		{Usagef("bad %s", "flag"), Usage},
		{fmt.Errorf("wrapped: %w", Usagef("bad")), Usage},
		{Unverifiedf("moved"), Unverified},
		{AsUsage(errors.New("x")), Usage},
		{Flag("--to", errors.New(`"x": want earliest`)), Usage},
		{fmt.Errorf("plan: %w", Flag("--to", Usagef("bad"))), Usage},
	}
	for _, c := range cases {
		if got := Code(c.err); got != c.want {
			t.Errorf("Code(%v) = %d, want %d", c.err, got, c.want)
		}
	}
	if AsUsage(nil) != nil {
		t.Error("AsUsage(nil) must stay nil")
	}
	if Flag("--to", nil) != nil {
		t.Error("Flag(nil) must stay nil")
	}
	if got := Flag("--to", errors.New(`"x": want earliest`)).Error(); got != `--to "x": want earliest` {
		t.Errorf("Flag message = %q", got)
	}
	// A value not echoed: the flag and a colon, as for pflag's values
	// (it read "--by want partition, ...").
	if got := Flag("--by", errors.New(`want partition, topic or group`)).Error(); got != `--by: want partition, topic or group` {
		t.Errorf("Flag message = %q", got)
	}
	if Usagef("bad %d", 3).Error() != "bad 3" {
		t.Error("message lost")
	}
}
