package cli

import (
	"regexp"
	"strings"
	"testing"
)

// TestGroupsStateLimitsThresholds (QA): `groups --state Stable --fail-if
// total-lag>5` exited 4 naming an Empty group the output left out: --state
// filtered the rows but not the thresholds, unlike -r, --exclude and
// --min-lag. Thresholds are checked on the rows the report shows.
func TestGroupsStateLimitsThresholds(t *testing.T) {
	f := newResetFixture(t)
	g := f.group(t) // Empty, total lag 20
	sel := regexp.QuoteMeta(g)
	r := mustRun(t, f.c, 0, "groups", "-r", sel, "--state", "Stable", "--fail-if", "total-lag>5", "-o", "json")
	if strings.Contains(r.stdout, g) || strings.Contains(r.stderr, "threshold crossed") {
		t.Fatalf("--state Stable: stdout %s\nstderr %s", r.stdout, r.stderr)
	}
	r = mustRun(t, f.c, 4, "groups", "-r", sel, "--state", "Empty", "--fail-if", "total-lag>5")
	if !strings.Contains(r.stdout, g) || !strings.Contains(r.stderr, "threshold crossed by group "+g) {
		t.Fatalf("--state Empty: stdout %s\nstderr %s", r.stdout, r.stderr)
	}
}
