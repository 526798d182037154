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
