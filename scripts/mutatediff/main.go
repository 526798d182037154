// Command mutatediff tells gremlins which lines changed since a baseline,
// following moves: a line that git blame -M -C -C traces back to the
// baseline commit (through a git mv, or cut from one file and pasted into
// another in the same commit) is not changed, however its file is named now.
//
// gremlins v0.6.0 reads `git diff --merge-base REF` in the package
// directory. A plain diff there sees a file moved into the package (admin/
// to internal/admin/, or internal/admin/ to internal/lag/) as new, every
// line of it: a move alone blew CI's mutant budget. scripts/mutate.sh puts
// this program first on gremlins' PATH under the name git:
//
//	git diff --merge-base REF   a diff that adds exactly the changed lines
//	                            of each non-test .go file below the current
//	                            directory, paths relative to it
//	git ...                     anything else runs the real git ($MUTATEDIFF_GIT)
//
// and `mutatediff -count REF DIR` prints how many lines of DIR's non-test
// .go files changed since REF (0: nothing to mutate there).
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "mutatediff:", err)
		os.Exit(1)
	}
}

func run(args []string, out *os.File) error {
	realGit := os.Getenv("MUTATEDIFF_GIT")
	if realGit == "" {
		realGit = "git"
	}
	switch {
	case len(args) == 3 && args[0] == "-count":
		total := 0
		err := eachChanged(realGit, args[1], args[2], func(_ string, lines []int, _ []string) { total += len(lines) })
		if err == nil {
			fmt.Fprintln(out, total)
		}
		return err
	case len(args) == 3 && args[0] == "diff" && args[1] == "--merge-base":
		w := bufio.NewWriter(out)
		err := eachChanged(realGit, args[2], ".", func(name string, lines []int, text []string) { writeFile(w, name, lines, text) })
		if ferr := w.Flush(); err == nil {
			err = ferr
		}
		return err
	}
	path, err := exec.LookPath(realGit)
	if err != nil {
		return err
	}
	return syscall.Exec(path, append([]string{"git"}, args...), os.Environ())
}

// eachChanged calls fn for every non-test .go file below dir with the
// numbers (1-based, ascending) and text of its lines changed since ref.
func eachChanged(git, ref, dir string, fn func(name string, lines []int, text []string)) error {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != dir && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return err
	}
	sort.Strings(files)
	for _, f := range files {
		lines, text, err := changedLines(git, ref, f)
		if err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		if len(lines) > 0 {
			rel, _ := filepath.Rel(dir, f)
			fn(filepath.ToSlash(rel), lines, text)
		}
	}
	return nil
}

// changedLines blames the working-tree file (no final revision: the
// lines not committed yet count too) from ref on: -M follows lines
// moved within a file, -C -C lines moved or copied from any file of the
// commit that created or changed this one, and whole-file renames are
// followed anyway; -w, a line only re-indented (a block moved into a
// function of its own) is not changed. A line blamed on the boundary (ref or older) is
// unchanged; any other (a later commit, or not committed yet) changed. A
// file git does not track is changed throughout.
func changedLines(git, ref, file string) ([]int, []string, error) {
	content, err := os.ReadFile(file)
	if err != nil {
		return nil, nil, err
	}
	text := strings.Split(strings.TrimSuffix(string(content), "\n"), "\n")
	if exec.Command(git, "ls-files", "--error-unmatch", "--", file).Run() != nil {
		all := make([]int, len(text))
		for i := range all {
			all[i] = i + 1
		}
		return all, text, nil
	}
	cmd := exec.Command(git, "blame", "--porcelain", "-w", "-M", "-C", "-C", "^"+ref, "--", file)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	blame, err := cmd.Output()
	if err != nil {
		return nil, nil, fmt.Errorf("git blame: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	return parseBlame(blame), text, nil
}

// parseBlame reads git blame --porcelain: a header "SHA ORIG FINAL [N]"
// per line, the commit's details (among them "boundary") the first time a
// commit appears, then the line itself after a tab.
func parseBlame(b []byte) []int {
	boundary := map[string]bool{}
	var changed []int
	var sha string
	var final int
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "\t"):
			if !boundary[sha] {
				changed = append(changed, final)
			}
		case line == "boundary":
			boundary[sha] = true
		default:
			f := strings.Fields(line)
			if len(f) >= 3 && len(f[0]) == 40 {
				sha = f[0]
				fmt.Sscan(f[2], &final)
			}
		}
	}
	return changed
}

// writeFile writes one file's changed lines as a diff that adds them, one
// hunk per run of consecutive lines (what gremlins reads: a hunk's new
// start and its added lines).
func writeFile(w *bufio.Writer, name string, lines []int, text []string) {
	fmt.Fprintf(w, "diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n", name, name, name, name)
	for i := 0; i < len(lines); {
		j := i
		for j+1 < len(lines) && lines[j+1] == lines[j]+1 {
			j++
		}
		fmt.Fprintf(w, "@@ -%d,0 +%d,%d @@\n", lines[i]-1, lines[i], j-i+1)
		for k := i; k <= j; k++ {
			fmt.Fprintf(w, "+%s\n", text[lines[k]-1])
		}
		i = j + 1
	}
}
