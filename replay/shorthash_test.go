package replay

import "testing"

// Hashes in error lines are cut to 12 digits; one of 12 or fewer is shown
// whole, and a missing payload hash is said in words.
func TestShortHash(t *testing.T) {
	for _, c := range []struct{ in, want, none string }{
		{"", "", "a partition has no payload_hash"},
		{"abc", "abc", "abc"},
		{"0123456789ab", "0123456789ab", "0123456789ab"},
		{"0123456789abc", "0123456789ab…", "0123456789ab…"},
	} {
		if got := shortHash(c.in); got != c.want {
			t.Errorf("shortHash(%q) = %q, want %q", c.in, got, c.want)
		}
		if got := orNoneHash(c.in); got != c.none {
			t.Errorf("orNoneHash(%q) = %q, want %q", c.in, got, c.none)
		}
	}
}
