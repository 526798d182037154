package main

import (
	"fmt"
	"io/fs"
	"iter"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"unicode"
)

// Link is one link target as written, and the 1-based line it is on.
type Link struct {
	Line   int
	Target string
}

var (
	fence   = regexp.MustCompile("^ {0,3}(```+|~~~+)")
	refDef  = regexp.MustCompile(`^ {0,3}\[[^\]]+\]:\s*(\S+)`)
	heading = regexp.MustCompile(`^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$`)
	htmlID  = regexp.MustCompile(`<a\s+(?:name|id)="([^"]+)"`)
	scheme  = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)
	inline  = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
)

// Extract returns the inline ([text](target), ![alt](target)) and reference
// ([name]: target) link targets of a Markdown text, outside fenced code
// blocks and code spans, where a link is text and not a link.
func Extract(text string) []Link {
	var links []Link
	for i, line := range proseLines(text) {
		if m := refDef.FindStringSubmatch(line); m != nil {
			links = append(links, Link{Line: i + 1, Target: strings.Trim(m[1], "<>")})
			continue
		}
		for _, t := range inlineTargets(line) {
			links = append(links, Link{Line: i + 1, Target: t})
		}
	}
	return links
}

// inlineTargets reads a line left to right, as CommonMark does: a code
// span (a run of n backticks up to the next run of exactly n; an unclosed
// run is literal text) is skipped whole, so a "](" inside it is no link;
// a "](" outside one starts a link destination, read verbatim, backticks
// included (they are part of the destination, not a code span): <...>,
// or up to the first space or the ")" that balances it.
func inlineTargets(line string) []string {
	var out []string
	for i := 0; i < len(line); {
		switch {
		case line[i] == '`':
			n := tickRun(line, i)
			if end := closingRun(line, i+n, n); end >= 0 {
				i = end
			} else {
				i += n
			}
		case strings.HasPrefix(line[i:], "]("):
			t, n := destination(line[i+2:])
			if t != "" {
				out = append(out, t)
			}
			i += 2 + n
		default:
			i++
		}
	}
	return out
}

// closingRun returns the index just past the first run of exactly n
// backticks at or after j, or -1.
func closingRun(line string, j, n int) int {
	for j < len(line) {
		if line[j] != '`' {
			j++
			continue
		}
		m := tickRun(line, j)
		if m == n {
			return j + m
		}
		j += m
	}
	return -1
}

func tickRun(s string, i int) int {
	n := 0
	for i+n < len(s) && s[i+n] == '`' {
		n++
	}
	return n
}

// destination reads the link destination at the start of rest (what
// follows "]("), and how many bytes it took.
func destination(rest string) (string, int) {
	if strings.HasPrefix(rest, "<") {
		if e := strings.IndexByte(rest, '>'); e > 0 {
			return rest[1:e], e + 1
		}
	}
	depth, e := 0, 0
	for ; e < len(rest); e++ {
		c := rest[e]
		if c == '(' {
			depth++
		} else if c == ')' {
			if depth == 0 {
				break
			}
			depth--
		} else if c == ' ' || c == '\t' {
			break
		}
	}
	return rest[:e], e
}

// Anchors returns the fragments a Markdown file's headings answer to on
// GitHub: the heading's text lower-cased, with everything but letters,
// digits, '_', '-' and spaces dropped and spaces made '-'; a repeated
// one gets -1, -2, ...; plus <a name|id="..."> anchors.
func Anchors(text string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	for _, line := range proseLines(text) {
		for _, m := range htmlID.FindAllStringSubmatch(line, -1) {
			out[m[1]] = true
		}
		m := heading.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		s := Slug(m[2])
		if n := seen[s]; n > 0 {
			out[fmt.Sprintf("%s-%d", s, n)] = true
		} else {
			out[s] = true
		}
		seen[s]++
	}
	return out
}

// Slug is GitHub's anchor for a heading's Markdown text.
func Slug(h string) string {
	h = inline.ReplaceAllString(h, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || r == '_' || r == '-':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

// Check walks root for *.md files (skipping .git) and returns one line per
// relative link whose file, directory or heading does not exist, sorted,
// and the number of files read.
func Check(root string) ([]string, int, error) {
	texts := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			texts[p] = string(b)
		}
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	var dead []string
	anchors := map[string]map[string]bool{}
	for p, text := range texts {
		for _, l := range Extract(text) {
			if why := resolve(p, l.Target, texts, anchors); why != "" {
				dead = append(dead, fmt.Sprintf("%s:%d: %s: %s", p, l.Line, l.Target, why))
			}
		}
	}
	sort.Strings(dead)
	return dead, len(texts), nil
}

// resolve says why a link from file from is dead, or "" when it resolves or
// is not relative.
func resolve(from, target string, texts map[string]string, anchors map[string]map[string]bool) string {
	if target == "" || scheme.MatchString(target) || strings.HasPrefix(target, "//") {
		return ""
	}
	path, frag, _ := strings.Cut(target, "#")
	path, _, _ = strings.Cut(path, "?")
	dest := from
	if path != "" {
		u, err := url.PathUnescape(path)
		if err != nil {
			return "bad escape"
		}
		dest = filepath.Join(filepath.Dir(from), filepath.FromSlash(u))
		if _, err := os.Stat(dest); err != nil {
			return "no such file or directory"
		}
	}
	text, ok := texts[dest]
	if frag == "" || !ok {
		return ""
	}
	if anchors[dest] == nil {
		anchors[dest] = Anchors(text)
	}
	if !anchors[dest][strings.ToLower(frag)] {
		return "no heading #" + frag + " in " + filepath.ToSlash(dest)
	}
	return ""
}

// Unindexed returns the *.md files beside the index file (not in
// subdirectories) that the index does not link to.
func Unindexed(index string) ([]string, error) {
	b, err := os.ReadFile(index)
	if err != nil {
		return nil, err
	}
	dir := filepath.Dir(index)
	linked := map[string]bool{}
	for _, l := range Extract(string(b)) {
		path, _, _ := strings.Cut(l.Target, "#")
		linked[filepath.Join(dir, filepath.FromSlash(path))] = true
	}
	pages, err := filepath.Glob(filepath.Join(dir, "*.md"))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range pages {
		if p != index && !linked[p] {
			out = append(out, p)
		}
	}
	return out, nil
}

// The markers an example must carry on the line before its ```console
// block: it is either the output of a run of `offsetctl playground` (the
// commands run against a fresh playground print it, up to what differs per
// run: ids, times, paths, digests) or it is illustrative (a state the
// playground does not create), which the page says in words too.
const (
	MarkPlayground   = "<!-- example: playground -->"
	MarkIllustrative = "<!-- example: illustrative -->"
)

// Unmarked returns the 1-based lines of the ```console blocks of a
// Markdown text whose previous line is neither marker.
func Unmarked(text string) []int {
	var out []int
	lines := strings.Split(text, "\n")
	inFence := ""
	for i, line := range lines {
		m := fence.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		if inFence != "" {
			if strings.HasPrefix(m[1], inFence) && strings.TrimSpace(line) == strings.TrimSpace(m[0]) {
				inFence = ""
			}
			continue
		}
		inFence = m[1][:1]
		if strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), m[1])) != "console" {
			continue
		}
		prev := ""
		if i > 0 {
			prev = strings.TrimSpace(lines[i-1])
		}
		if prev != MarkPlayground && prev != MarkIllustrative {
			out = append(out, i+1)
		}
	}
	return out
}

// proseLines yields the lines of a Markdown text outside fenced code
// blocks, with their index (0-based) in the text.
func proseLines(text string) iter.Seq2[int, string] {
	return func(yield func(int, string) bool) {
		inFence := ""
		for i, line := range strings.Split(text, "\n") {
			if m := fence.FindStringSubmatch(line); m != nil {
				switch {
				case inFence == "":
					inFence = m[1][:1]
				case strings.HasPrefix(m[1], inFence):
					inFence = ""
				}
				continue
			}
			if inFence == "" && !yield(i, line) {
				return
			}
		}
	}
}
