// Command testprogress reads `go test -json` on stdin and prints one line
// per package as soon as the package finishes ("ok  pkg  12.3s", "FAIL
// pkg", "?  pkg [no test files]"), with the output of each failed test
// and of a package that failed outside a test (a build error, a panic,
// a timeout). Plain `go test ./...` prints packages in import-path order,
// so a slow package early in the order (admin) held back every line after
// it and `make test` printed nothing for minutes. It exits 1 when any
// test, package or build failed. `make test` pipes go test through it.
//
//	go test -json ./... 2>&1 | go run ./internal/tools/testprogress
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

func main() {
	os.Exit(run(os.Stdin, os.Stdout, time.Now))
}

// event is one line of `go test -json` (cmd/test2json's TestEvent, plus
// the build events of Go 1.24 and later).
type event struct {
	Action     string
	Package    string
	Test       string
	Output     string
	Elapsed    float64
	ImportPath string
}

type pkgState struct {
	output  []string            // package-level output (no test)
	tests   map[string][]string // each running test's output
	noTests bool
}

func run(in io.Reader, out io.Writer, now func() time.Time) int {
	start := now()
	pkgs := map[string]*pkgState{}
	get := func(p string) *pkgState {
		s := pkgs[p]
		if s == nil {
			s = &pkgState{tests: map[string][]string{}}
			pkgs[p] = s
		}
		return s
	}
	failed, passed := 0, 0
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			fmt.Fprintf(out, "%s\n", line) // not an event: go's own message
			continue
		}
		switch e.Action {
		case "build-output":
			fmt.Fprint(out, e.Output)
			continue
		case "build-fail":
			failed++
			continue
		}
		s := get(e.Package)
		switch {
		case e.Action == "output" && e.Test != "":
			s.tests[e.Test] = append(s.tests[e.Test], e.Output)
		case e.Action == "output":
			if strings.Contains(e.Output, "[no test files]") {
				s.noTests = true
			}
			s.output = append(s.output, e.Output)
		case e.Test != "" && e.Action == "fail":
			fmt.Fprint(out, strings.Join(s.tests[e.Test], ""))
			delete(s.tests, e.Test)
		case e.Test != "" && (e.Action == "pass" || e.Action == "skip"):
			delete(s.tests, e.Test)
		case e.Test == "" && (e.Action == "pass" || e.Action == "skip"):
			passed++
			if s.noTests {
				fmt.Fprintf(out, "?   \t%s\t[no test files]\n", e.Package)
			} else {
				fmt.Fprintf(out, "ok  \t%s\t%.1fs\n", e.Package, e.Elapsed)
			}
			delete(pkgs, e.Package)
		case e.Test == "" && e.Action == "fail":
			failed++
			// What no failed test printed: a panic, a timeout, TestMain.
			for _, l := range s.output {
				// go's own closing "FAIL" lines: this one's line replaces them.
				if !strings.HasPrefix(l, "=== ") && !strings.HasPrefix(l, "--- PASS") && !strings.HasPrefix(l, "PASS") && !strings.HasPrefix(l, "ok ") && l != "FAIL\n" && !strings.HasPrefix(l, "FAIL\t") {
					fmt.Fprint(out, l)
				}
			}
			for _, lines := range s.tests { // tests still running when it died
				fmt.Fprint(out, strings.Join(lines, ""))
			}
			fmt.Fprintf(out, "FAIL\t%s\t%.1fs\n", e.Package, e.Elapsed)
			delete(pkgs, e.Package)
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(out, "testprogress:", err)
		failed++
	}
	fmt.Fprintf(out, "%d packages passed, %d failed, in %s\n", passed, failed, now().Sub(start).Round(time.Second))
	if failed > 0 {
		return 1
	}
	return 0
}
