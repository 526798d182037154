package exporter

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/offsetctl/offsetctl/internal/cluster"
	"github.com/offsetctl/offsetctl/internal/lag"
)

// TestNamedGroupMissing: a group named in the request whose read says it
// does not exist is counted at every gather in the group errors, with
// offsetctl_consumergroup_missing 1 and no lag series, while the gather
// stays complete (success 1, the snapshot age not growing: the groups that
// exist were read),
// told to Missing when it starts and when it ends, not every round; a
// gather that fails before reaching it keeps it missing and counts it. A
// group only matched (--all-groups, --regex) that a read says does not
// exist just leaves, as before.
func TestNamedGroupMissing(t *testing.T) {
	clock := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	deleted := handSnapshot(70, 110)
	deleted.Groups[1] = lag.GroupSnapshot{GroupInfo: lag.GroupInfo{Group: "idle", State: "Dead"}}
	g := &fakeGatherer{batch: 1, snaps: []*lag.Snapshot{handSnapshot(40, 100), deleted, deleted, nil, handSnapshot(80, 120)},
		errs: []error{nil, nil, nil, errors.New("listing groups: broker down"), nil}}
	var told []string
	c := New(cluster.Config{}, Options{Interval: 10 * time.Second, Now: func() time.Time { return clock },
		Request: lag.GatherRequest{Groups: []string{"billing", "idle"}},
		Missing: func(group string, missing bool, rounds int) {
			told = append(told, fmt.Sprintf("%s missing %v after %d", group, missing, rounds))
		}})
	type want struct {
		success, groupErrs, age float64
		missing                 string // the offsetctl_consumergroup_missing lines
		idleLag                 bool
		told                    string
	}
	for i, w := range []want{
		{1, 0, 0, "billing 0, idle 0", true, ""},
		{1, 1, 0, "billing 0, idle 1", false, "idle missing true after 0"},
		{1, 1, 0, "billing 0, idle 1", false, ""},
		{0, 2, 10, "billing 0, idle 1", false, ""}, // failed: billing carried, idle not reached
		{1, 0, 0, "billing 0, idle 0", true, "idle missing false after 2"},
	} {
		told = nil
		c.GatherOnce(context.Background(), g)
		page := pageText(t, c)
		var missing []string
		for _, grp := range []string{"billing", "idle"} {
			for _, v := range []string{"0", "1"} {
				if strings.Contains(page, `offsetctl_consumergroup_missing{consumergroup="`+grp+`"} `+v+"\n") {
					missing = append(missing, grp+" "+v)
				}
			}
		}
		if got := strings.Join(missing, ", "); got != w.missing {
			t.Errorf("round %d: missing series %q, want %q", i+1, got, w.missing)
		}
		if got := strings.Contains(page, `kafka_consumergroup_lag{consumergroup="idle"`); got != w.idleLag {
			t.Errorf("round %d: idle's lag series %v, want %v", i+1, got, w.idleLag)
		}
		if got := strings.Join(told, "; "); got != w.told {
			t.Errorf("round %d: Missing told %q, want %q", i+1, got, w.told)
		}
		health := scraped(c)
		for name, v := range map[string]float64{"offsetctl_gather_success": w.success, "offsetctl_gather_group_errors": w.groupErrs, "offsetctl_snapshot_age_seconds": w.age} {
			fams, err := health.Gather()
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range fams {
				if f.GetName() == name && f.Metric[0].GetGauge().GetValue() != v {
					t.Errorf("round %d: %s %v, want %v", i+1, name, f.Metric[0].GetGauge().GetValue(), v)
				}
			}
		}
		clock = clock.Add(10 * time.Second)
	}

	// Matched, not named: a read that says it does not exist removes it,
	// and the gather is complete.
	m := New(cluster.Config{}, Options{Interval: 10 * time.Second, Now: func() time.Time { return clock },
		Request: lag.GatherRequest{AllGroups: true}})
	g2 := &fakeGatherer{batch: 1, snaps: []*lag.Snapshot{handSnapshot(40, 100), deleted}}
	m.GatherOnce(context.Background(), g2)
	m.GatherOnce(context.Background(), g2)
	if page := pageText(t, m); !m.Healthy() || strings.Contains(page, "offsetctl_consumergroup_missing") || strings.Contains(page, `consumergroup="idle"`) {
		t.Errorf("a matched group deleted: healthy %v, page:\n%s", m.Healthy(), page)
	}
}
