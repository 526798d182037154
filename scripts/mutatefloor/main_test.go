package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseEquivalents(t *testing.T) {
	in := "# comment\n\n" +
		"replay/digest.go | CONDITIONALS_BOUNDARY | if len(r.Key) > inlineMax { | streaming and inlining hash the same bytes\n" +
		"  a/b.go | INVERT_LOGICAL | x := a | b || c | reason with || in it\n"
	got, err := ParseEquivalents(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []Equivalent{
		{File: "replay/digest.go", Mutator: "CONDITIONALS_BOUNDARY", Source: "if len(r.Key) > inlineMax {", Reason: "streaming and inlining hash the same bytes", Line: 3},
		{File: "a/b.go", Mutator: "INVERT_LOGICAL", Source: "x := a | b || c", Reason: "reason with || in it", Line: 4},
	}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("got %+v", got)
	}
	for in, msg := range map[string]string{
		"a.go | X | src\n":             "line 1: want FILE | MUTATOR | SOURCE LINE | REASON",
		"a.go | X | src |  \n":         "line 1: want FILE | MUTATOR | SOURCE LINE | REASON",
		"a.go |  | src | why\n":        "line 1: empty file, mutator or source line",
		"\na.go | lower | src | why\n": `line 2: mutator "lower" is not a gremlins mutator name`,
		"just words\n":                 "line 1: want FILE | MUTATOR | SOURCE LINE | REASON",
	} {
		if _, err := ParseEquivalents(strings.NewReader(in)); err == nil || err.Error() != msg {
			t.Errorf("%q: %v, want %s", in, err, msg)
		}
	}
}

func FuzzParseEquivalents(f *testing.F) {
	for _, s := range []string{"a.go | X | s | r\n", "# c\n", " | | | ", "a | B | c | d | e"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		eqs, err := ParseEquivalents(strings.NewReader(s))
		if err != nil {
			return
		}
		for _, e := range eqs {
			if e.File == "" || e.Mutator == "" || e.Source == "" || e.Reason == "" {
				t.Fatalf("accepted an incomplete entry %+v", e)
			}
		}
	})
}

func TestCountExcludesOnlyListedEquivalents(t *testing.T) {
	mutants := []Mutant{
		{File: "p/a.go", Mutator: "CONDITIONALS_BOUNDARY", Status: "LIVED", Source: "if x > 5 {", Line: 9},
		{File: "p/a.go", Mutator: "CONDITIONALS_NEGATION", Status: "LIVED", Source: "if x > 5 {", Line: 9, Column: 2},
		{File: "p/a.go", Mutator: "CONDITIONALS_NEGATION", Status: "KILLED", Source: "if y {", Line: 3},
		{File: "p/b.go", Mutator: "CONDITIONALS_BOUNDARY", Status: "KILLED", Source: "if x > 5 {", Line: 1},
		{File: "p/a.go", Mutator: "ARITHMETIC_BASE", Status: "NOT COVERED", Source: "a + b", Line: 4},
		{File: "p/a.go", Mutator: "ARITHMETIC_BASE", Status: "TIMED OUT", Source: "a - b", Line: 5},
		{File: "p/a.go", Mutator: "INVERT_LOOPCTRL", Status: "LIVED", Source: "continue", Prev: "if len(line) == 0 {", Line: 7},
		{File: "p/a.go", Mutator: "INVERT_LOOPCTRL", Status: "KILLED", Source: "continue", Prev: "if done {", Line: 12},
		// Another column of a listed line, killed: it counts as killed.
		{File: "p/a.go", Mutator: "CONDITIONALS_BOUNDARY", Status: "KILLED", Source: "if x > 5 {", Line: 9, Column: 9},
		// An entry that matches only killed mutants is reported unused.
		{File: "p/a.go", Mutator: "INVERT_LOGICAL", Status: "KILLED", Source: "if a && b {", Line: 20},
	}
	eqs := []Equivalent{
		{File: "p/a.go", Mutator: "CONDITIONALS_BOUNDARY", Source: "if x > 5 {", Reason: "r"},
		{File: "p/a.go", Mutator: "INVERT_LOOPCTRL", Source: "break", Reason: "r"},
		{File: "p/a.go", Mutator: "INVERT_LOOPCTRL", Source: "if len(line) == 0 { ⏎ continue", Reason: "r"},
		{File: "q/a.go", Mutator: "INVERT_LOOPCTRL", Source: "continue", Reason: "other package"},
		{File: "p/untested.go", Mutator: "INVERT_LOOPCTRL", Source: "continue", Reason: "no mutant of this file was tested"},
		{File: "p/a.go", Mutator: "INVERT_LOGICAL", Source: "if a && b {", Reason: "wrong: the mutant was killed"},
	}
	got := Count("p", mutants, eqs)
	if got.Killed != 5 || got.Lived != 1 || got.Excluded != 2 || got.Other != 2 || len(got.Survivors) != 1 ||
		got.Survivors[0].Mutator != "CONDITIONALS_NEGATION" || len(got.Unused) != 2 || got.Unused[0].Mutator != "INVERT_LOOPCTRL" ||
		got.Unused[1].Mutator != "INVERT_LOGICAL" {
		t.Fatalf("tally %+v", got)
	}
	if e := got.Efficacy(); e != 100*5.0/6 {
		t.Fatalf("efficacy %v", e)
	}
	if e := (Tally{}).Efficacy(); e != 100 {
		t.Fatalf("nothing tested: %v", e)
	}
	if e := (Tally{Killed: 9, Lived: 1}).Efficacy(); e != 90 {
		t.Fatalf("9 of 10: %v", e)
	}
}

// run reads a real gremlins report, attaches source lines from the
// package directory and fails below the floor.
func TestRunAgainstFloor(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.MkdirAll("p", 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join("p", "a.go"), []byte("package p\n\tif x > 5 {\n\tif y {\n\n\t\tcontinue\n"), 0o644)
	os.WriteFile("eq.txt", []byte("p/a.go | CONDITIONALS_BOUNDARY | if x > 5 { | x is never 5\np/a.go | INVERT_LOOPCTRL | if y { ⏎ continue | y is last\n"), 0o644)
	os.WriteFile("r.json", []byte(`{"files":[{"file_name":"a.go","mutations":[
		{"type":"CONDITIONALS_BOUNDARY","status":"LIVED","line":2,"column":7},
		{"type":"CONDITIONALS_NEGATION","status":"LIVED","line":2,"column":7},
		{"type":"CONDITIONALS_NEGATION","status":"KILLED","line":3,"column":5},
		{"type":"INVERT_LOOPCTRL","status":"LIVED","line":5,"column":3}]}]}`), 0o644)
	var out bytes.Buffer
	err := run([]string{"-pkg", "p", "-report", "r.json", "-equivalents", "eq.txt", "-floor", "50"}, &out)
	if err != nil || !strings.Contains(out.String(), "LIVED p/a.go:2:7 CONDITIONALS_NEGATION: if x > 5 {\n") ||
		!strings.Contains(out.String(), "p: killed 1, lived 1, equivalent (excluded) 2, not covered/timed out/not viable 0: efficacy 50.0% (floor 50%) ok\n") {
		t.Fatalf("%v\n%s", err, out.String())
	}
	out.Reset()
	err = run([]string{"-pkg", "p", "-report", "r.json", "-equivalents", "eq.txt", "-floor", "90"}, &out)
	if err == nil || err.Error() != "p: efficacy 50.0% below the floor of 90%" || !strings.Contains(out.String(), "BELOW THE FLOOR") {
		t.Fatalf("%v\n%s", err, out.String())
	}
}
