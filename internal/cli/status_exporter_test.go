package cli

import (
	"fmt"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/offsetctl/offsetctl/internal/testkit"
)

// TestExporterStatus: `exporter --status` judges each group from its own
// rounds (no request of its own): a consumer that commits and gains is
// OK, one that stopped under lag STOP, one rewound by a raw OffsetCommit
// REWIND, one idle at its log end OK; one series per status, 1 for the
// current, and per partition with --status-partitions. The same test runs
// on kfake and on Apache Kafka (KAFKA_BROKERS).
func TestExporterStatus(t *testing.T) {
	c := testkit.New(t)
	busy, quiet := c.Topic(1, nil), c.Topic(1, nil)
	c.Produce(busy, map[int32]int{0: 200}, time.Now())
	c.Produce(quiet, map[int32]int{0: 10}, time.Now())
	name := func(s string) string { return testkit.Name(t, "exp-status-"+s) }
	gaining, stopped, rewound, idle := name("gaining"), name("stopped"), name("rewound"), name("idle")
	c.Commit(gaining, busy, map[int32]int64{0: 10})
	c.Commit(stopped, busy, map[int32]int64{0: 10})
	c.Commit(rewound, busy, map[int32]int64{0: 150})
	c.Commit(idle, quiet, map[int32]int64{0: 10})

	// The gaining consumer: 2 records written and 6 committed past every
	// 200 ms (lag 190 falling), as long as the test runs.
	off := int64(10)
	defer keepCommitting(t, 0, 200*time.Millisecond, func(int64) error {
		c.Produce(busy, map[int32]int{0: 2}, time.Now())
		off = min(off+6, 200)
		c.Commit(gaining, busy, map[int32]int64{0: off})
		return nil
	})()

	e := startExporter(t, c, nil, "--interval", "1s", "--time-lag=false", "--status", "--status-window", "8s", "--status-partitions", gaining, stopped, rewound, idle)
	e.waitScrape(t, "the first judgement", func(f map[string]*dto.MetricFamily) bool { return groupStatus(f, rewound) != "" })
	c.Commit(rewound, busy, map[int32]int64{0: 20})
	want := map[string]string{gaining: "OK", stopped: "STOP", rewound: "REWIND", idle: "OK"}
	var last string
	fams := e.waitScrape(t, "every group's expected status", func(f map[string]*dto.MetricFamily) bool {
		var got []string
		ok := true
		for g, w := range want {
			s := groupStatus(f, g)
			got = append(got, fmt.Sprintf("%s=%s", g, s))
			ok = ok && s == w
		}
		last = strings.Join(got, " ")
		return ok
	})
	t.Logf("statuses: %s", last)
	if n := len(series(fams, "kafka_consumergroup_status")); n != 5*len(want) {
		t.Errorf("%d status series, want 5 per group", n)
	}
	l := fmt.Sprintf("consumergroup=%s,partition=0,status=STOP,topic=%s", stopped, busy)
	if v, ok := value(fams, "kafka_consumergroup_partition_status", l); !ok || v != 1 {
		t.Errorf("partition status %s: %v %v", l, v, ok)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		// Only the flags given are named (QA: --status-partitions alone
		// named --status-window too).
		{[]string{"--status-window", "1m"}, "offsetctl: --status-window goes with --status\n"},
		{[]string{"--status-partitions"}, "offsetctl: --status-partitions goes with --status\n"},
		{[]string{"--status-partitions", "--status-window", "1m"}, "offsetctl: --status-window and --status-partitions go with --status\n"},
		{[]string{"--status", "--interval", "15s", "--status-window", "20s"}, "--status-window must span at least two rounds (2 × --interval = 30s), got 20s"},
	} {
		r := mustRun(t, c, 2, append([]string{"exporter", "--listen", "127.0.0.1:0"}, tc.args...)...)
		if !strings.Contains(r.stderr, tc.want) || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
			t.Errorf("%v: stderr %q, want one line with %q", tc.args, r.stderr, tc.want)
		}
	}
}
