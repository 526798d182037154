package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/offsetctl/offsetctl/internal/lag"
)

func TestLagTableProgress(t *testing.T) {
	eta := 250.4
	zero := 0.0
	for _, tc := range []struct {
		name string
		p    *lag.Progress
		want string
	}{
		{"first round", nil, "GROUP g  TYPE classic  STATE Stable  MEMBERS 1  TOTAL-LAG 7"},
		{"catching up", &lag.Progress{ConsumeRate: 12.25, ProduceRate: 2, CatchUpSeconds: &eta},
			"GROUP g  TYPE classic  STATE Stable  MEMBERS 1  TOTAL-LAG 7  CONSUMING 12.2/s  PRODUCED 2.0/s  CATCH-UP 4m10s"},
		{"behind", &lag.Progress{ConsumeRate: 1, ProduceRate: 3, FallingBehind: true},
			"GROUP g  TYPE classic  STATE Stable  MEMBERS 1  TOTAL-LAG 7  CONSUMING 1.0/s  PRODUCED 3.0/s  FALLING BEHIND"},
		{"stalled, nothing produced", &lag.Progress{FallingBehind: true},
			"GROUP g  TYPE classic  STATE Stable  MEMBERS 1  TOTAL-LAG 7  CONSUMING 0.0/s  PRODUCED 0.0/s  NOT CONSUMING"},
		{"keeping pace with lag", &lag.Progress{ConsumeRate: 4, ProduceRate: 4, FallingBehind: true},
			"GROUP g  TYPE classic  STATE Stable  MEMBERS 1  TOTAL-LAG 7  CONSUMING 4.0/s  PRODUCED 4.0/s  NOT GAINING"},
		{"caught up", &lag.Progress{ConsumeRate: 5, ProduceRate: 5, CatchUpSeconds: &zero},
			"GROUP g  TYPE classic  STATE Stable  MEMBERS 1  TOTAL-LAG 7  CONSUMING 5.0/s  PRODUCED 5.0/s  CAUGHT UP"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := lag.LagReport{Groups: []lag.GroupLag{{Group: "g", Type: "classic", State: "Stable", Members: 1, TotalLag: 7, Progress: tc.p}}}
			var b bytes.Buffer
			if err := Lag(&b, Table, rep); err != nil {
				t.Fatal(err)
			}
			first, _, _ := strings.Cut(b.String(), "\n")
			if first != tc.want {
				t.Fatalf("group line\n got %q\nwant %q", first, tc.want)
			}
		})
	}
}
