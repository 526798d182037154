package semantics

import (
	"errors"
	"strings"
	"testing"
)

// FuzzReadLog: `semantics count` reads processed logs a user hands in.
// Any bytes give entries or one *LineError naming a line that exists,
// never a panic; every entry read is one that ParseLine accepts alone.
func FuzzReadLog(f *testing.F) {
	for _, s := range []string{
		"partition,offset,event\n0,1,e1\n0,2,e2\n",
		"\uFEFFpartition,offset\r\n1,5,x\r\n\r\n",
		"0,1,e\nnot a line\n",
		"",
		"\n\n\n",
		strings.Repeat("9", 200) + ",1,e\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		entries, err := ReadLog(strings.NewReader(s))
		if err != nil {
			var le *LineError
			if !errors.As(err, &le) {
				t.Fatalf("error %v is not a *LineError", err)
			}
			if le.Line < 1 || le.Line > strings.Count(s, "\n")+2 {
				t.Fatalf("line %d of a %d-line input", le.Line, strings.Count(s, "\n")+1)
			}
			return
		}
		if len(entries) > strings.Count(s, "\n")+1 {
			t.Fatalf("%d entries from %d lines", len(entries), strings.Count(s, "\n")+1)
		}
	})
}
