package cli

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"

	"github.com/offsetctl/offsetctl/internal/testkit"
)

// shareSeries is the exporter's series of one group that say its lag: the
// offsets, lags and sums of its partitions, its info line, and its stale
// marks (a map of "name{labels}" to value).
func shareSeries(f map[string]*dto.MetricFamily, group string) map[string]float64 {
	out := map[string]float64{}
	for _, name := range []string{"kafka_consumergroup_current_offset", "kafka_consumergroup_lag", "kafka_consumergroup_lag_sum",
		"kafka_consumergroup_current_offset_sum", "kafka_consumergroup_members", "kafka_consumergroup_info",
		"offsetctl_consumergroup_stale", "offsetctl_lag_stale"} {
		for labels, v := range series(f, name) {
			if strings.Contains(","+labels+",", ",consumergroup="+group+",") {
				out[name+"{"+labels+"}"] = v
			}
		}
	}
	return out
}

// TestExporterShareGroupsSelected: a share group (KIP-932) is exported
// with the same series whether it is named, matched by --regex or taken
// by --all-groups, as `lag` shows it all three ways (its start offsets
// 2, 5 and 10 of logs ending at 10: lags 8, 5 and 0). Before, a named
// share group was exported and --regex/--all-groups silently left every
// share group out: a missing series, read as no lag.
func TestExporterShareGroupsSelected(t *testing.T) {
	c := testkit.New(t)
	f := newShareFixture(t, c)
	consumer := testkit.Name(t, "plain")
	c.Commit(consumer, f.topic, map[int32]int64{0: 1})

	want := map[string]float64{}
	for p, w := range []struct{ start, lag float64 }{{2, 8}, {5, 5}, {10, 0}} {
		l := fmt.Sprintf("{consumergroup=%s,partition=%d,topic=%s}", f.group, p, f.topic)
		want["kafka_consumergroup_current_offset"+l] = w.start
		want["kafka_consumergroup_lag"+l] = w.lag
	}
	want[fmt.Sprintf("kafka_consumergroup_lag_sum{consumergroup=%s,topic=%s}", f.group, f.topic)] = 13
	want[fmt.Sprintf("kafka_consumergroup_current_offset_sum{consumergroup=%s,topic=%s}", f.group, f.topic)] = 17
	want[fmt.Sprintf("kafka_consumergroup_members{consumergroup=%s}", f.group)] = 0
	want[fmt.Sprintf("kafka_consumergroup_info{consumergroup=%s,protocol=share,state=Empty,type=share}", f.group)] = 1
	want[fmt.Sprintf("offsetctl_consumergroup_stale{consumergroup=%s}", f.group)] = 0

	selections := []struct {
		name string
		args []string
	}{
		{"named", []string{f.group}},
		{"--regex", []string{"--regex", regexp.QuoteMeta(f.group)}},
		{"--all-groups", []string{"--all-groups"}},
	}
	for _, sel := range selections {
		t.Run(strings.TrimLeft(sel.name, "-"), func(t *testing.T) {
			e := startExporter(t, c, nil, append([]string{"--interval", "1s"}, sel.args...)...)
			// The group exists before the exporter starts: its first
			// complete gather has read it.
			fams := e.waitScrape(t, "a complete gather", gatheredOK)
			got := shareSeries(fams, f.group)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s: the share group's series\n%v\nwant (as named and as lag shows)\n%v", sel.name, got, want)
			}
			// The time lag of a share-partition is the age of the record
			// at its start offset (written two hours ago); none to wait
			// on at the log end.
			tl := func(p int) (float64, bool) {
				return value(fams, "kafka_consumergroup_lag_seconds", fmt.Sprintf("consumergroup=%s,partition=%d,topic=%s", f.group, p, f.topic))
			}
			if v, ok := tl(0); !ok || v < 7000 || v > 9000 {
				t.Errorf("%s: lag_seconds of partition 0 %v (%v), want about 7200", sel.name, v, ok)
			}
			if v, ok := tl(2); !ok || v != 0 {
				t.Errorf("%s: lag_seconds of partition 2 (caught up) %v (%v), want 0", sel.name, v, ok)
			}
			if v, _ := value(fams, "offsetctl_gather_group_errors", ""); v != 0 {
				t.Errorf("%s: offsetctl_gather_group_errors %v, want 0", sel.name, v)
			}
			if sel.name == "--all-groups" {
				if v, ok := value(fams, "kafka_consumergroup_lag", fmt.Sprintf("consumergroup=%s,partition=0,topic=%s", consumer, f.topic)); !ok || v != 9 {
					t.Errorf("--all-groups: the consumer group's lag %v (%v), want 9", v, ok)
				}
			}
			// Nothing on stderr but the serving line, and a gather cut by
			// its 1 s interval on a loaded machine (a real broker at load
			// 9 took longer): no share group left out or warned about.
			for _, line := range strings.Split(strings.TrimSpace(e.stderr.String()), "\n") {
				if !strings.Contains(line, "exporter serving ") && !strings.Contains(line, "gather: context deadline exceeded") &&
					!strings.Contains(line, "complete again after") {
					t.Errorf("%s: stderr says more than serving:\n%s", sel.name, e.stderr.String())
					break
				}
			}
		})
	}
}
