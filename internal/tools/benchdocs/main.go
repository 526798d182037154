// Command benchdocs checks that every benchmark command the Markdown pages
// document (a `go test ... -bench REGEX ... PKG` line in bench/*.md and
// docs/*.md) finds at least one benchmark: it runs `go test -list REGEX
// PKG`, which compiles the package's tests and runs none, and fails when
// the package has no test files or no benchmark matches (a page whose
// command measures nothing). `make docs-check` runs it. Commands over
// ./... (make bench) are skipped: they find every benchmark by design.
//
//	go run ./internal/tools/benchdocs [-root DIR]
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

func main() {
	root := flag.String("root", ".", "repository root")
	flag.Parse()
	os.Exit(run(*root, os.Stdout, os.Stderr, goList))
}

// goList runs `go test -list regex pkg` in dir and returns its output.
func goList(dir, regex, pkg string) (string, error) {
	cmd := exec.Command("go", "test", "-list", regex, pkg)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func run(root string, stdout, stderr io.Writer, list func(dir, regex, pkg string) (string, error)) int {
	var pages []string
	for _, g := range []string{"bench/*.md", "docs/*.md"} {
		m, err := filepath.Glob(filepath.Join(root, g))
		if err != nil {
			fmt.Fprintln(stderr, "benchdocs:", err)
			return 1
		}
		pages = append(pages, m...)
	}
	bad, checked := 0, map[string]bool{}
	for _, page := range pages {
		text, err := os.ReadFile(page)
		if err != nil {
			fmt.Fprintln(stderr, "benchdocs:", err)
			return 1
		}
		for _, c := range Commands(string(text)) {
			if c.Package == "./..." || checked[c.Regex+" "+c.Package] {
				continue
			}
			checked[c.Regex+" "+c.Package] = true
			if why := check(root, c, list); why != "" {
				fmt.Fprintf(stderr, "%s:%d: go test -bench %s %s: %s\n", page, c.Line, c.Regex, c.Package, why)
				bad++
			}
		}
	}
	if bad > 0 {
		fmt.Fprintf(stderr, "benchdocs: %d documented benchmark command(s) measure nothing\n", bad)
		return 1
	}
	fmt.Fprintf(stdout, "benchdocs: each of the %d documented benchmark commands finds its benchmark\n", len(checked))
	return 0
}

// check says why a documented command would measure nothing, or "".
func check(root string, c Command, list func(dir, regex, pkg string) (string, error)) string {
	if c.Package == "" {
		return "names no package (./PKG): go test would run the current directory's"
	}
	out, err := list(root, c.Regex, c.Package)
	if strings.Contains(out, "[no test files]") {
		return "the package has no test files"
	}
	if err != nil {
		return "go test -list failed: " + strings.TrimSpace(lastLine(out))
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "Benchmark") {
			return ""
		}
	}
	return "no benchmark matches"
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}
