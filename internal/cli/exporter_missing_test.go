package cli

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/offsetctl/offsetctl/internal/testkit"
)

// TestExporterNamedGroupMissing: a group named on the command line that
// does not exist (QA: `exporter orders-bilIing`, a typo) is a group not
// read at every gather, as `lag` says "group does not exist" (exit 1):
// offsetctl_consumergroup_missing 1, counted in
// offsetctl_gather_group_errors, one stderr line when it starts being
// missing and one when it exists, not one per round. It was a complete
// gather, with nothing on the page or on stderr. The gather stays complete
// for the groups that exist (offsetctl_gather_success 1, a snapshot age
// under two intervals): with success 0 and the age growing, a typo fired
// the "gather failing" and "lag stale" alerts for groups read fresh at
// every round. A named group deleted
// after it was exported is the same case: its lag series go (it has no
// lag), and it is missing again.
func TestExporterNamedGroupMissing(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(1, nil)
	c.Produce(topic, map[int32]int{0: 30}, time.Now())
	present := testkit.Name(t, "orders-billing")
	c.Commit(present, topic, map[int32]int64{0: 10})
	typo := testkit.Name(t, "orders-bilIing")
	hostile := typo + "\x1b[2J"
	e := startExporter(t, c, nil, "--interval", "1s", "--time-lag=false", present, typo, hostile)

	lagOf := func(f map[string]*dto.MetricFamily, g string) (float64, bool) {
		return value(f, "kafka_consumergroup_lag", fmt.Sprintf("consumergroup=%s,partition=0,topic=%s", g, topic))
	}
	e.waitScrape(t, "a first gather", func(f map[string]*dto.MetricFamily) bool {
		_, ok := lagOf(f, present)
		return ok
	})
	time.Sleep(1500 * time.Millisecond) // another round: still said once
	fams := e.scrape(t)
	check := func(what string, f map[string]*dto.MetricFamily, success, groupErrs float64, missing map[string]float64) {
		t.Helper()
		if v, ok := value(f, "offsetctl_gather_success", ""); !ok || v != success {
			t.Errorf("%s: offsetctl_gather_success %v (%v), want %v", what, v, ok, success)
		}
		if v, ok := value(f, "offsetctl_snapshot_age_seconds", ""); !ok || v > 2 {
			t.Errorf("%s: offsetctl_snapshot_age_seconds %v (%v), want under 2 (1 s gathers, each complete)", what, v, ok)
		}
		if v, ok := value(f, "offsetctl_gather_group_errors", ""); !ok || v != groupErrs {
			t.Errorf("%s: offsetctl_gather_group_errors %v (%v), want %v", what, v, ok, groupErrs)
		}
		want := map[string]float64{}
		for g, v := range missing {
			want["consumergroup="+g] = v
		}
		if got := series(f, "offsetctl_consumergroup_missing"); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: offsetctl_consumergroup_missing %v, want %v", what, got, want)
		}
	}
	// The hostile name's label value: its ESC written as the text \x1b.
	hostileLabel := typo + `\x1b[2J`
	check("typo", fams, 1, 2, map[string]float64{present: 0, typo: 1, hostileLabel: 1})
	if v, ok := lagOf(fams, present); !ok || v != 20 {
		t.Errorf("typo: the present group's lag %v (%v), want 20", v, ok)
	}
	if _, ok := lagOf(fams, typo); ok {
		t.Errorf("typo: a lag series for a group that does not exist")
	}
	if n := len(series(fams, "kafka_consumergroup_members")); n != 1 {
		t.Errorf("typo: %d members series, want the present group's only", n)
	}
	missingLine := func(g string) *regexp.Regexp {
		return regexp.MustCompile(`(?m)^offsetctl: warning: exporter: named group ` + regexp.QuoteMeta(g) +
			` does not exist \(a typo, or deleted\?\): it has no lag to export; offsetctl_consumergroup_missing is 1 and every gather counts it in offsetctl_gather_group_errors until it exists$`)
	}
	existsLine := regexp.MustCompile(`(?m)^offsetctl: note: exporter: named group ` + regexp.QuoteMeta(typo) + ` exists now \(after (\d+) gather\(s\) that found it missing\)$`)
	stderr := e.stderr.String()
	if n := len(missingLine(typo).FindAllString(stderr, -1)); n != 1 {
		t.Errorf("typo: %d lines saying %s is missing, want 1:\n%s", n, typo, stderr)
	}
	if n := len(missingLine(fmt.Sprintf("%q", hostile)).FindAllString(stderr, -1)); n != 1 || strings.Contains(stderr, "\x1b") {
		t.Errorf("typo: %d lines saying the hostile name is missing (quoted), want 1, and no raw ESC:\n%q", n, stderr)
	}
	if strings.Contains(stderr, "exporter: gather:") {
		t.Errorf("typo: a gather warning besides the missing groups' own lines:\n%s", stderr)
	}

	// The group is created (the typo's name committed): it exists, is
	// exported, and the gather is complete once the other one is too.
	c.Commit(typo, topic, map[int32]int64{0: 25})
	fams = e.waitScrape(t, "the typo group exported", func(f map[string]*dto.MetricFamily) bool {
		_, ok := lagOf(f, typo)
		return ok
	})
	check("created", fams, 1, 1, map[string]float64{present: 0, typo: 0, hostileLabel: 1})
	if v, _ := lagOf(fams, typo); v != 5 {
		t.Errorf("created: lag %v, want 30-25 = 5", v)
	}
	if m := existsLine.FindAllStringSubmatch(e.stderr.String(), -1); len(m) != 1 || m[0][1] == "0" {
		t.Errorf("created: %d lines saying %s exists now (with a count), want 1:\n%s", len(m), typo, e.stderr.String())
	}

	// Deleted after it was seen: missing again, its lag series gone.
	if _, err := c.Admin().DeleteGroups(testkit.Ctx(t), typo); err != nil {
		t.Fatal(err)
	}
	fams = e.waitScrape(t, "the deleted group missing", func(f map[string]*dto.MetricFamily) bool {
		v, _ := value(f, "offsetctl_consumergroup_missing", "consumergroup="+typo)
		return v == 1
	})
	check("deleted", fams, 1, 2, map[string]float64{present: 0, typo: 1, hostileLabel: 1})
	if _, ok := lagOf(fams, typo); ok {
		t.Errorf("deleted: the group's lag series is still served")
	}
	time.Sleep(2500 * time.Millisecond) // more rounds: nothing more said
	stderr = e.stderr.String()
	if n := len(missingLine(typo).FindAllString(stderr, -1)); n != 2 {
		t.Errorf("deleted: %d lines saying %s is missing, want 2 (at start, and once deleted):\n%s", n, typo, stderr)
	}
	if lines := strings.Count(stderr, "\n"); lines != 5 {
		t.Errorf("stderr has %d lines, want serving, two missing at start, exists now, missing again:\n%s", lines, stderr)
	}
	fams = e.scrape(t)
	if v, _ := value(fams, "offsetctl_gather_success", ""); v != 1 {
		t.Errorf("offsetctl_gather_success %v with named groups missing and the others read, want 1", v)
	}
}
