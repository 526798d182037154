package topicname

import (
	"errors"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		name string
		want Problem
		char rune
	}{
		{"orders", 0, 0},
		{"a.b_c-D9", 0, 0},
		{strings.Repeat("z", 249), 0, 0},
		{"", Empty, 0},
		{".", Dots, 0},
		{"..", Dots, 0},
		{"...", 0, 0},
		{"a b", IllegalChar, ' '},
		{"é", IllegalChar, 'é'},
		{"z{", IllegalChar, '{'},
		{"\xff", IllegalChar, '\uFFFD'},
		{strings.Repeat("z", 250), TooLong, 0},
		{strings.Repeat("z", 250) + "/", IllegalChar, '/'},
	} {
		err := Check(tc.name)
		var e *Error
		switch {
		case tc.want == 0 && err != nil:
			t.Errorf("%q: %v, want legal", tc.name, err)
		case tc.want != 0 && (!errors.As(err, &e) || e.Problem != tc.want || e.Char != tc.char):
			t.Errorf("%q: %v, want problem %d char %q", tc.name, err, tc.want, tc.char)
		}
	}
}

func FuzzCheck(f *testing.F) {
	for _, s := range []string{"", ".", "orders", "a b", strings.Repeat("z", 250)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if Check(s) == nil && (s == "" || len(s) > MaxLen || IllegalIndex(s) >= 0 || s == "." || s == "..") {
			t.Fatalf("accepted %q", s)
		}
	})
}
