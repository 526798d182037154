package main

import "strings"

// Command is one documented `go test -bench` command: its benchmark
// regexp, its package argument and the 1-based line it is on.
type Command struct {
	Line    int
	Regex   string
	Package string
}

// Commands finds the `go test` commands with -bench in a Markdown text:
// in code blocks and in `code spans`, one per line, words split as a
// shell splits them (single and double quotes, no expansion).
func Commands(text string) []Command {
	var out []Command
	for i, line := range strings.Split(text, "\n") {
		for {
			k := strings.Index(line, "go test ")
			if k < 0 {
				break
			}
			line = line[k+len("go test "):]
			words := Split(cut(line))
			c, ok := parse(words)
			if ok {
				c.Line = i + 1
				out = append(out, c)
			}
		}
	}
	return out
}

// cut ends a command at a code span's closing backtick or a comment.
func cut(s string) string {
	if i := strings.IndexByte(s, '`'); i >= 0 {
		s = s[:i]
	}
	if i := strings.Index(s, " #"); i >= 0 {
		s = s[:i]
	}
	return s
}

// parse reads -bench's value and the package (a word starting with "."
// that is no flag's value).
func parse(words []string) (Command, bool) {
	var c Command
	found := false
	for i := 0; i < len(words); i++ {
		w := words[i]
		switch {
		case w == "-bench" && i+1 < len(words):
			c.Regex, found = words[i+1], true
			i++
		case strings.HasPrefix(w, "-bench="):
			c.Regex, found = strings.TrimPrefix(w, "-bench="), true
		case strings.HasPrefix(w, "-") && !strings.Contains(w, "=") && i+1 < len(words) && !strings.HasPrefix(words[i+1], "-") && !strings.HasPrefix(words[i+1], "."):
			i++ // a flag's value (-run '^$', -benchtime 5x, -timeout 30m)
		case strings.HasPrefix(w, "."):
			c.Package = w
		}
	}
	return c, found
}

// Split splits a command line into words: whitespace separates them,
// single quotes keep everything, double quotes keep everything but a
// backslash-escaped quote or backslash.
func Split(s string) []string {
	var (
		words []string
		cur   strings.Builder
		in    bool
		quote byte
	)
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case quote == '\'':
			if ch == '\'' {
				quote = 0
			} else {
				cur.WriteByte(ch)
			}
		case quote == '"':
			if ch == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\') {
				i++
				cur.WriteByte(s[i])
			} else if ch == '"' {
				quote = 0
			} else {
				cur.WriteByte(ch)
			}
		case ch == '\'' || ch == '"':
			quote, in = ch, true
		case ch == ' ' || ch == '\t':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(ch)
			in = true
		}
	}
	if in {
		words = append(words, cur.String())
	}
	return words
}
