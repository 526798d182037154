// Command mutatefloor checks a gremlins report against a kill-rate floor.
//
//	go run ./scripts/mutatefloor -pkg admin -report out.json -equivalents scripts/mutate-equivalents.txt -floor 90
//
// gremlins (github.com/go-gremlins/gremlins) writes, with -o, a JSON report
// of every mutant it made: file (base name), line, column, mutator type and
// status. Efficacy is KILLED / (KILLED + LIVED): mutants no test covers, and
// those that timed out or did not compile, count for neither side, as in
// gremlins itself. Mutants listed in the equivalents file (a change that
// cannot alter behaviour, such as a sort tie-break between distinct keys)
// are excluded, and nothing else is (a killed mutant never is: it cannot
// have been equivalent). An equivalent is named by file, mutator
// and the text of its source line, not by line number, so entries survive
// edits elsewhere in the file.
//
// It prints the surviving mutants with their source lines, and exits 1 when
// the package's efficacy is below the floor.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Equivalent is one line of the equivalents file:
//
//	FILE | MUTATOR | SOURCE LINE | REASON
//
// FILE is the path from the module root (admin/reset.go), SOURCE LINE the
// mutated line with its indentation trimmed. A line too common to name one
// place (continue) may be given with the line before it: "if x {" ⏎ "continue"
// is written "if x { ⏎ continue". The reason is required (the
// line is trimmed, so a line ending in " | " has fewer than four fields).
type Equivalent struct {
	File, Mutator, Source, Reason string
	Line                          int // in the equivalents file
}

const sep = " | "

// ParseEquivalents reads an equivalents file: blank lines and lines
// starting with # are ignored.
func ParseEquivalents(r io.Reader) ([]Equivalent, error) {
	var out []Equivalent
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		// The source text may itself contain " | " (a || b does not, a
		// | b does): FILE and MUTATOR are the first two fields, REASON
		// the last, SOURCE everything between.
		first := strings.Index(line, sep)
		last := strings.LastIndex(line, sep)
		// The two separators may overlap ("a | | b"): the last must start
		// after the first one ends.
		if first < 0 || last < first+len(sep) {
			return nil, fmt.Errorf("line %d: want FILE | MUTATOR | SOURCE LINE | REASON", n)
		}
		file, rest := line[:first], line[first+len(sep):last]
		mutator, source, ok := strings.Cut(rest, sep)
		e := Equivalent{File: strings.TrimSpace(file), Mutator: strings.TrimSpace(mutator), Source: strings.TrimSpace(source),
			Reason: strings.TrimSpace(line[last+len(sep):]), Line: n}
		switch {
		case !ok:
			return nil, fmt.Errorf("line %d: want FILE | MUTATOR | SOURCE LINE | REASON", n)
		case e.File == "" || e.Mutator == "" || e.Source == "":
			return nil, fmt.Errorf("line %d: empty file, mutator or source line", n)
		case strings.ToUpper(e.Mutator) != e.Mutator || strings.ContainsAny(e.Mutator, " \t"):
			return nil, fmt.Errorf("line %d: mutator %q is not a gremlins mutator name", n, e.Mutator)
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// Report is the part of a gremlins -o report this reads.
type Report struct {
	Files []struct {
		FileName  string `json:"file_name"`
		Mutations []struct {
			Type   string `json:"type"`
			Status string `json:"status"`
			Line   int    `json:"line"`
			Column int    `json:"column"`
		} `json:"mutations"`
	} `json:"files"`
}

// Mutant is one mutant of the report, with its source line and the
// nearest non-blank line before it.
type Mutant struct {
	File, Mutator, Status, Source, Prev string
	Line, Column                        int
}

// contextSep joins a line to the one before it in an equivalent's source.
const contextSep = " ⏎ "

func (e Equivalent) matches(m Mutant) bool {
	return e.File == m.File && e.Mutator == m.Mutator && (e.Source == m.Source || e.Source == m.Prev+contextSep+m.Source)
}

// Tally is a package's result.
type Tally struct {
	Killed, Lived, Excluded, Other int
	Survivors                      []Mutant
	// Unused lists the equivalents of files with tested mutants that
	// matched no surviving one (stale after an edit, no longer covered, or
	// wrong: every mutant it names was killed); a run of changed lines only
	// tests some files.
	Unused []Equivalent
}

// Efficacy is killed / (killed + lived) in percent; 100 when nothing
// was tested.
func (t Tally) Efficacy() float64 {
	if t.Killed+t.Lived == 0 {
		return 100
	}
	return 100 * float64(t.Killed) / float64(t.Killed+t.Lived)
}

// Count tallies mutants of package pkg against the equivalents.
func Count(pkg string, mutants []Mutant, eqs []Equivalent) Tally {
	var t Tally
	used := make([]bool, len(eqs))
	tested := map[string]bool{}
	for _, m := range mutants {
		if m.Status != "KILLED" && m.Status != "LIVED" {
			t.Other++
			continue
		}
		tested[m.File] = true
		// An equivalent mutant cannot be killed: a killed mutant that
		// matches an entry is another mutant on the same line (an entry
		// names a line, not a column), and it counts as killed.
		excluded := false
		for i, e := range eqs {
			if m.Status == "LIVED" && e.matches(m) {
				excluded, used[i] = true, true
			}
		}
		switch {
		case excluded:
			t.Excluded++
		case m.Status == "KILLED":
			t.Killed++
		default:
			t.Lived++
			t.Survivors = append(t.Survivors, m)
		}
	}
	for i, e := range eqs {
		if !used[i] && filepath.Dir(e.File) == pkg && tested[e.File] {
			t.Unused = append(t.Unused, e)
		}
	}
	sort.Slice(t.Survivors, func(i, j int) bool {
		a, b := t.Survivors[i], t.Survivors[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
	return t
}

// readMutants decodes a report and attaches each mutant's source line,
// read from dir (the package directory).
func readMutants(pkg, dir string, r io.Reader) ([]Mutant, error) {
	var rep Report
	if err := json.NewDecoder(r).Decode(&rep); err != nil {
		return nil, fmt.Errorf("reading the gremlins report: %w", err)
	}
	var out []Mutant
	for _, f := range rep.Files {
		lines, err := readLines(filepath.Join(dir, filepath.Base(f.FileName)))
		if err != nil {
			return nil, err
		}
		for _, m := range f.Mutations {
			src, prev := "", ""
			if m.Line >= 1 && m.Line <= len(lines) {
				src = strings.TrimSpace(lines[m.Line-1])
				for i := m.Line - 2; i >= 0 && prev == ""; i-- {
					prev = strings.TrimSpace(lines[i])
				}
			}
			out = append(out, Mutant{File: pkg + "/" + filepath.Base(f.FileName), Mutator: m.Type, Status: m.Status, Source: src, Prev: prev, Line: m.Line, Column: m.Column})
		}
	}
	return out, nil
}

func readLines(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return strings.Split(string(b), "\n"), nil
}

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "mutatefloor:", err)
		os.Exit(1)
	}
}

var errBelowFloor = errors.New("below the floor")

func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("mutatefloor", flag.ContinueOnError)
	pkg := fs.String("pkg", "", "package directory from the module root (admin)")
	report := fs.String("report", "", "gremlins -o JSON report")
	eqPath := fs.String("equivalents", "scripts/mutate-equivalents.txt", "equivalent mutants file")
	floor := fs.Float64("floor", 90, "minimum efficacy, percent")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *pkg == "" || *report == "" {
		return errors.New("-pkg and -report are required")
	}
	ef, err := os.Open(*eqPath)
	if err != nil {
		return err
	}
	defer ef.Close()
	eqs, err := ParseEquivalents(ef)
	if err != nil {
		return fmt.Errorf("%s: %w", *eqPath, err)
	}
	rf, err := os.Open(*report)
	if err != nil {
		return err
	}
	defer rf.Close()
	mutants, err := readMutants(*pkg, *pkg, rf)
	if err != nil {
		return err
	}
	t := Count(*pkg, mutants, eqs)
	for _, m := range t.Survivors {
		fmt.Fprintf(out, "LIVED %s:%d:%d %s: %s\n", m.File, m.Line, m.Column, m.Mutator, m.Source)
	}
	for _, e := range t.Unused {
		fmt.Fprintf(out, "note: equivalent on line %d matched no tested mutant: %s %s %q\n", e.Line, e.File, e.Mutator, e.Source)
	}
	verdict := "ok"
	if t.Efficacy() < *floor {
		verdict = "BELOW THE FLOOR"
	}
	fmt.Fprintf(out, "%s: killed %d, lived %d, equivalent (excluded) %d, not covered/timed out/not viable %d: efficacy %.1f%% (floor %.0f%%) %s\n",
		*pkg, t.Killed, t.Lived, t.Excluded, t.Other, t.Efficacy(), *floor, verdict)
	if t.Efficacy() < *floor {
		return fmt.Errorf("%s: efficacy %.1f%% %w of %.0f%%", *pkg, t.Efficacy(), errBelowFloor, *floor)
	}
	return nil
}
