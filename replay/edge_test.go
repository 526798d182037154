package replay

import (
	"strings"
	"testing"
)

// --verify-groups a,a,typo: a group named twice must not hide a mistyped
// group named after it, which would then be "proven unchanged" while the
// proof compared nothing for it.
func TestNamedWithoutCommitsRepeatBeforeTypo(t *testing.T) {
	snap := proofSnapshot{"orders": {commits: map[int32]int64{0: 5}}}
	for _, named := range [][]string{
		{"orders", "orders", "ordres"},
		{"orders", "ordres", "orders", "ordres"},
		{"ordres", "ordres", "orders"},
	} {
		got := namedWithoutCommits(snap, named)
		if strings.Join(got, ",") != "ordres" {
			t.Errorf("namedWithoutCommits(%q) = %q, want [ordres]", named, got)
		}
	}
	if got := namedWithoutCommits(snap, []string{"orders", "orders"}); got != nil {
		t.Errorf("a repeated good group: %q", got)
	}
}
