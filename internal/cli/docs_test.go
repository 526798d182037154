package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/offsetctl/offsetctl/internal/testkit"
)

// The README and docs/ are documentation users copy from: these tests keep
// them honest where a machine can check them.

// readmeMaxBytes is the front page's budget (issue 12: "at most about
// 15 KB"); the reference belongs in docs/.
const readmeMaxBytes = 15 * 1024

func repoFile(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestReadmeSize(t *testing.T) {
	if n := len(repoFile(t, "README.md")); n > readmeMaxBytes {
		t.Errorf("README.md is %d bytes, over the %d-byte front-page budget: move reference text to docs/", n, readmeMaxBytes)
	}
}

// TestExitCodesDocumented: the README's exit-code table and the root
// command's help topic (offsetctl help exit-codes) list the same codes with
// the same meaning's first words.
func TestExitCodesDocumented(t *testing.T) {
	row := regexp.MustCompile(`(?m)^\| (\d+) \| ((?:[^|\\]|\\\|)+) \|$`)
	readme := map[string]string{}
	for _, m := range row.FindAllStringSubmatch(repoFile(t, "README.md"), -1) {
		readme[m[1]] = strings.TrimSpace(m[2])
	}
	line := regexp.MustCompile(`(?m)^  (\d+)  (.+)$`)
	help := map[string]string{}
	r := mustRun(t, nil, 0, "help", "exit-codes")
	for _, m := range line.FindAllStringSubmatch(r.stdout, -1) {
		help[m[1]] = m[2]
	}
	if len(readme) < 4 || len(help) != len(readme) {
		t.Fatalf("exit codes: README has %v, --help has %v", readme, help)
	}
	for code, text := range readme {
		h, ok := help[code]
		if !ok {
			t.Errorf("--help does not list exit code %s (%s)", code, text)
			continue
		}
		// Both start with the same words (the README may add a link or
		// a parenthesis).
		words := strings.Fields(strings.NewReplacer("`", "", ",", "", ":", "", ";", "").Replace(h))
		if len(words) > 3 {
			words = words[:3]
		}
		if !strings.HasPrefix(strings.NewReplacer("`", "", ",", "", ":", "", ";", "").Replace(text), strings.Join(words, " ")) {
			t.Errorf("exit code %s: README says %q, --help says %q", code, text, h)
		}
	}
}

// docCommandLines returns every offsetctl command line of a markdown file:
// lines of code blocks starting with "$ offsetctl " or "offsetctl " and
// inline code spans `offsetctl ...`, cut at a pipe, redirection, comment
// or list separator.
func docCommandLines(text string) []string {
	var out []string
	inline := regexp.MustCompile("`offsetctl ([^`]+)`")
	fence, script := false, false
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "```") {
			fence = !fence
			// In a sh block every line is a command; in others (console
			// sessions) only the "$ " lines are, the rest is output.
			script = fence && strings.TrimPrefix(l, "```") == "sh"
			continue
		}
		if fence {
			s := strings.TrimSpace(l)
			if !script && !strings.HasPrefix(s, "$ ") {
				continue
			}
			s = strings.TrimPrefix(s, "$ ")
			if strings.HasPrefix(s, "offsetctl ") {
				out = append(out, strings.TrimPrefix(s, "offsetctl "))
			}
			continue
		}
		for _, m := range inline.FindAllStringSubmatch(l, -1) {
			out = append(out, m[1])
		}
	}
	return out
}

// shellWords splits a documented command line into its arguments, up to
// the first shell operator or comment. Quotes are removed; placeholders
// like GROUP stay as they are.
func shellWords(line string) []string {
	var words []string
	for _, w := range strings.Fields(line) {
		if w == "|" || w == "#" || w == ";" || w == "&&" || w == "..." || strings.HasPrefix(w, ">") ||
			strings.HasPrefix(w, "2>") || strings.HasPrefix(w, "<") || strings.HasPrefix(w, "|") {
			break
		}
		if i := strings.IndexAny(w, "|;"); i > 0 && !strings.Contains(w, "'") {
			words = append(words, strings.Trim(w[:i], `'"`))
			break
		}
		words = append(words, strings.Trim(w, `'"`))
	}
	return words
}

// flagOf finds the flag a documented "--name", "--name=value" or "-x"
// names on cmd, including the persistent flags of its parents.
func flagOf(cmd *cobra.Command, w string) bool {
	name := strings.TrimLeft(w, "-")
	if i := strings.IndexByte(name, '='); i >= 0 {
		name = name[:i]
	}
	if strings.HasPrefix(w, "--") {
		return cmd.Flag(name) != nil
	}
	if len(name) != 1 {
		return false
	}
	for c := cmd; c != nil; c = c.Parent() {
		if c.Flags().ShorthandLookup(name) != nil || c.PersistentFlags().ShorthandLookup(name) != nil {
			return true
		}
	}
	return false
}

// TestDocsCommandsExist: every `offsetctl CMD --flag` in the README and
// docs/ names a command offsetctl has and flags that command accepts, so
// a renamed flag cannot leave its examples behind.
func TestDocsCommandsExist(t *testing.T) {
	files := []string{"README.md"}
	pages, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if err != nil || len(pages) < 8 {
		t.Fatalf("docs pages: %v %v", pages, err)
	}
	for _, p := range pages {
		files = append(files, filepath.Join("docs", filepath.Base(p)))
	}
	a := &app{stdin: strings.NewReader(""), getenv: func(string) string { return "" }, now: time.Now}
	root := a.rootCmd()
	// cobra adds --help, --version and the help command (`offsetctl help
	// connection`) when it executes; add them now.
	root.InitDefaultHelpFlag()
	root.InitDefaultVersionFlag()
	root.InitDefaultHelpCmd()
	checked := map[string]int{}
	for _, f := range files {
		for _, line := range docCommandLines(repoFile(t, f)) {
			words := shellWords(line)
			if len(words) == 0 || words[0] == strings.ToUpper(words[0]) && !strings.HasPrefix(words[0], "-") {
				continue // a placeholder: `offsetctl COMMAND --help`
			}
			cmd, _, err := root.Find(words)
			if err != nil || cmd == root {
				if err == nil && strings.HasPrefix(words[0], "-") {
					// `offsetctl --version`, `offsetctl --help`.
					cmd = root
				} else {
					t.Errorf("%s: `offsetctl %s` names no command (%v)", f, line, err)
					continue
				}
			}
			checked[cmd.CommandPath()]++
			for _, w := range words {
				if strings.HasPrefix(w, "-") && len(w) > 1 && !isNumber(w) && !flagOf(cmd, w) {
					t.Errorf("%s: `offsetctl %s`: %s has no flag %s", f, line, cmd.CommandPath(), w)
				}
			}
		}
	}
	// The check must have something to check: every user-facing command
	// appears in the documentation.
	var missing []string
	for _, c := range root.Commands() {
		if c.Hidden || c.Name() == "help" {
			continue
		}
		if checked[c.CommandPath()] == 0 {
			found := false
			for p := range checked {
				found = found || strings.HasPrefix(p, c.CommandPath()+" ")
			}
			if !found {
				missing = append(missing, c.Name())
			}
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("commands without a documented example: %v", missing)
	}
}

func isNumber(w string) bool {
	_, err := strconv.ParseInt(w, 10, 64)
	return err == nil
}

// docBlock is the fenced block of doc that follows the first line holding
// after (the fence lines left out), or "" when there is none.
func docBlock(doc, after string) string {
	i := strings.Index(doc, after)
	if i < 0 {
		return ""
	}
	rest := doc[i:]
	start := strings.Index(rest, "\n```")
	if start < 0 {
		return ""
	}
	rest = rest[start+4:]
	rest = rest[strings.IndexByte(rest, '\n')+1:]
	if end := strings.Index(rest, "\n```"); end >= 0 {
		return rest[:end]
	}
	return ""
}

// jsonKeys is every object key of the JSON document s, at any depth.
func jsonKeys(t *testing.T, s string) []string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("decoding %.200s: %v", s, err)
	}
	seen := map[string]bool{}
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				seen[k] = true
				walk(e)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(v)
	keys := make([]string, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// TestDocsJSONKeys: the JSON that docs/lag.md, docs/replay.md and help
// formatting show as real output names every key the command prints.
// QA found replay's "resume_from" and per-partition "stop", and lag's
// "coordinator", printed but missing from them.
func TestDocsJSONKeys(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(3, nil)
	c.Produce(topic, map[int32]int{0: 20, 1: 20, 2: 20}, time.Now().Add(-time.Minute))
	g := testkit.Name(t, "g")
	c.Commit(g, topic, map[int32]int64{0: 15, 1: 12, 2: 20})
	help := mustRun(t, nil, 0, "help", "formatting").stdout
	lagShape := help[strings.Index(help, "  lag "):strings.Index(help, "  lag --by topic")]
	for _, tc := range []struct {
		args      []string
		doc, text string // where the output is shown
	}{
		{[]string{"lag", g, "-o", "json"}, "docs/lag.md", docBlock(repoFile(t, "docs/lag.md"), "JSON (`-o json`; `log_start`/`log_end` are -1")},
		{[]string{"lag", g, "-o", "json"}, "help formatting", lagShape},
		{[]string{"replay", topic, "--partitions", "1", "--max", "2", "--format", "none", "-o", "json", "-q"}, "docs/replay.md",
			docBlock(repoFile(t, "docs/replay.md"), "output, with the inner objects folded onto one line here for length:")},
	} {
		if tc.text == "" {
			t.Fatalf("%s: the JSON shown for %v was not found", tc.doc, tc.args)
		}
		for _, k := range jsonKeys(t, mustRun(t, c, 0, tc.args...).stdout) {
			if !strings.Contains(tc.text, `"`+k+`"`) {
				t.Errorf("%s: the JSON of offsetctl %s has %q, the output shown does not", tc.doc, strings.Join(tc.args, " "), k)
			}
		}
	}
}
