package textlist

import "testing"

func TestShort(t *testing.T) {
	for _, tc := range []struct {
		items []string
		max   int
		sep   string
		want  string
	}{
		{nil, 5, ", ", ""},
		{[]string{"a", "b"}, 5, ", ", "a, b"},
		{[]string{"1", "2", "3"}, 2, ",", "1,2 and 1 more"},
		{[]string{"a", "b", "c", "d", "e", "f", "g"}, 5, " ", "a b c d e and 2 more"},
	} {
		if got := Short(tc.items, tc.max, tc.sep); got != tc.want {
			t.Errorf("Short(%q, %d, %q) = %q, want %q", tc.items, tc.max, tc.sep, got, tc.want)
		}
	}
}

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		word string
		want string
	}{
		{0, "member", "0 members"},
		{1, "member", "1 member"},
		{2, "event", "2 events"},
		{-1, "event", "-1 events"},
	} {
		if got := Count(tc.n, tc.word); got != tc.want {
			t.Errorf("Count(%d, %q) = %q, want %q", tc.n, tc.word, got, tc.want)
		}
	}
	if got := Count(1, "duplicate"); got != "1 duplicate" {
		t.Errorf("Count(int 1) = %q", got)
	}
}
