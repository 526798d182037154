// Command doclinks checks every relative link in the repository's Markdown
// files: the file or directory it names must exist, and a #fragment into a
// Markdown file must name one of its headings (GitHub's anchor rule). Links
// with a scheme (https:, mailto:) are not followed. `make docs-check` runs
// it; it prints one line per dead link and exits 1 when there is any. It
// also checks that docs/README.md, the index, links every page beside it,
// and that every console example of README.md and docs/*.md says whether
// it is from a playground run or illustrative (see MarkPlayground).
//
//	go run ./internal/tools/doclinks [-root DIR]
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

func main() {
	root := flag.String("root", ".", "repository root: every *.md under it (git-tracked or not, .git skipped)")
	index := flag.String("index", "docs/README.md", "an index page (relative to -root) that must link every *.md beside it")
	flag.Parse()
	os.Exit(run(*root, *index, os.Stdout, os.Stderr))
}

func run(root, index string, stdout, stderr io.Writer) int {
	dead, files, err := Check(root)
	if err != nil {
		fmt.Fprintln(stderr, "doclinks:", err)
		return 1
	}
	missing, err := Unindexed(filepath.Join(root, index))
	if err != nil {
		fmt.Fprintln(stderr, "doclinks:", err)
		return 1
	}
	for _, p := range missing {
		dead = append(dead, fmt.Sprintf("%s: not linked from %s", p, index))
	}
	examples, err := filepath.Glob(filepath.Join(root, filepath.Dir(index), "*.md"))
	if err != nil {
		fmt.Fprintln(stderr, "doclinks:", err)
		return 1
	}
	for _, p := range append([]string{filepath.Join(root, "README.md")}, examples...) {
		b, err := os.ReadFile(p)
		if err != nil {
			fmt.Fprintln(stderr, "doclinks:", err)
			return 1
		}
		for _, l := range Unmarked(string(b)) {
			dead = append(dead, fmt.Sprintf("%s:%d: a console example marked neither %s nor %s", p, l, MarkPlayground, MarkIllustrative))
		}
	}
	for _, d := range dead {
		fmt.Fprintln(stderr, d)
	}
	if len(dead) > 0 {
		fmt.Fprintf(stderr, "doclinks: %d problem(s) in %d Markdown files\n", len(dead), files)
		return 1
	}
	fmt.Fprintf(stdout, "doclinks: every relative link in %d Markdown files resolves\n", files)
	return 0
}
