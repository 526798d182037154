// Package safetext renders names that come from the cluster or the command
// line (group names, client ids, hosts, file paths, arguments) for a human
// reading a terminal, so that no name can move the cursor, erase a line,
// hide bytes or split a row.
//
// Kafka puts almost no limit on a group id: the protocol's STRING is any
// bytes up to 32,767 long, and anyone allowed to commit offsets names one.
// So "evil\x1b[2K\x1b[1Gbilling" would repaint a table row, "bil\x01ling"
// would display as "billing" and a newline would split a row. The rule
// everywhere human-readable:
//
//   - a name made only of printable characters, with no leading or trailing
//     blank and not starting with a double quote, is shown as it is;
//   - any other name is shown as a Go double-quoted string literal
//     (strconv.Quote: \x1b, \n, \u202e, \xff for invalid UTF-8).
//
// A raw name never starts with '"' and a quoted one always does, so the two
// forms cannot be confused. JSON keeps the exact characters, with the ones
// a terminal acts on as \u escapes (JSON, in json.go), and CSV uses its own
// quoting: the rest of this package is for tables, stderr and copy-paste
// commands.
package safetext

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Name returns s as it is when it is unambiguous on a terminal, else
// quoted (see the package comment).
func Name(s string) string {
	if plain(s) {
		return s
	}
	return strconv.Quote(s)
}

// plain reports whether s can be shown unquoted.
func plain(s string) bool {
	if s == "" {
		return true
	}
	if s[0] == '"' || s[0] == ' ' || s[len(s)-1] == ' ' {
		return false
	}
	return plainText(s)
}

// safeRune is a printable non-ASCII rune. strconv.IsPrint excludes the C0
// and C1 controls, DEL, the format characters (bidi overrides U+202A-E and
// isolates U+2066-9, which reorder what follows; zero-width joiners) and
// every space but U+0020 (a no-break space would pass for a blank).
func safeRune(r rune, size int) bool {
	if r == utf8.RuneError && size <= 1 {
		return false
	}
	return r < 0x80 && r >= 0x20 && r < 0x7f || r >= 0x80 && strconv.IsPrint(r) && !unicode.IsSpace(r)
}

// Text makes free text that may embed names (an error message, a broker's
// error string) safe for one line of a terminal: every byte or rune Name
// would quote is written as a Go escape (\x1b, \n, \u202e, \xff). Names
// inside the text are quoted where the message is built (Name, or %q), which
// keeps them unambiguous; Text is the last line of defence where a whole
// line is printed, so nothing reaches the terminal raw.
func Text(s string) string {
	if plainText(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			b.WriteByte(c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if safeRune(r, size) {
			b.WriteString(s[i : i+size])
		} else if r == utf8.RuneError && size <= 1 {
			fmt.Fprintf(&b, `\x%02x`, c)
		} else {
			q := strconv.QuoteRune(r) // 'x' with the escape inside
			b.WriteString(q[1 : len(q)-1])
		}
		i += size
	}
	return b.String()
}

// plainText reports whether every character of s is safe to print.
func plainText(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f { // printable ASCII, the common case
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if !safeRune(r, size) {
			return false
		}
		i += size
	}
	return true
}

// Shell quotes s as one word for a POSIX shell command line the user can
// copy: as it is when made of characters no shell treats specially,
// single-quoted when printable, and in ANSI-C quoting $'...' (bash, zsh,
// ksh, busybox sh, POSIX 2024) when s holds a byte that must not reach the
// terminal raw. In all three forms the shell hands the program exactly
// the bytes of s.
func Shell(s string) string {
	if s != "" && shellSafe(s) {
		return s
	}
	if plainText(s) {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\' || c == '\'':
			b.WriteByte('\\')
			b.WriteByte(c)
			i++
			continue
		case c >= 0x20 && c < 0x7f:
			b.WriteByte(c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if safeRune(r, size) {
			b.WriteString(s[i : i+size])
		} else {
			// Every byte of an unsafe rune as \xHH: $'\u202e' depends on
			// the shell's locale, \xHH never does.
			for j := i; j < i+size; j++ {
				fmt.Fprintf(&b, `\x%02x`, s[j])
			}
		}
		i += size
	}
	b.WriteByte('\'')
	return b.String()
}

func shellSafe(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("._-:/@,+=%", c) >= 0) {
			return false
		}
	}
	return true
}

// List renders names for one table cell or line, unambiguously: a name
// is shown as Name shows it unless it is empty or holds the separator ','
// or a blank, then quoted (strconv.Quote), so a comma outside quotes always
// separates two names. With max > 0, the names beyond the first max are
// counted in textlist.Short's words, "a,b,c and 4 more": an unquoted name
// holds no blank, so the count cannot be read as part of one.
func List(names []string, max int) string { return list(names, max, false) }

// ArgList is List for an error or warning line: each name over 256 bytes
// cut as Arg cuts it, with its length said.
func ArgList(names []string, max int) string { return list(names, max, true) }

func list(names []string, max int, cut bool) string {
	var b strings.Builder
	for i, n := range names {
		if max > 0 && i == max {
			fmt.Fprintf(&b, " and %d more", len(names)-max)
			break
		}
		if i > 0 {
			b.WriteByte(',')
		}
		long := cut && len(n) > maxArg
		whole := n
		if long {
			n = argHead(n)
		}
		if n == "" || !plain(n) || strings.ContainsAny(n, ", ") {
			b.WriteString(strconv.Quote(n))
		} else {
			b.WriteString(n)
		}
		if long {
			fmt.Fprintf(&b, "... (%d bytes)", len(whole))
		}
	}
	return b.String()
}

// maxArg is how much of an argument Arg shows.
const maxArg = 256

// Arg renders a name for an error or warning line, or a command-line
// argument: Name, cut after 256 bytes with the full length said, so an
// error never echoes a 130 KB argument (or a 32 KB group id) whole.
func Arg(s string) string {
	if len(s) <= maxArg {
		return Name(s)
	}
	return Name(argHead(s)) + fmt.Sprintf("... (%d bytes)", len(s))
}

// QuotedArg is Arg always quoted (strconv.Quote), as %q shows a value:
// for a value that is not a name (an id, a spec) and reads best quoted.
func QuotedArg(s string) string {
	if len(s) <= maxArg {
		return strconv.Quote(s)
	}
	return strconv.Quote(argHead(s)) + fmt.Sprintf("... (%d bytes)", len(s))
}

// argHead is the first maxArg bytes of s, cut on a rune boundary.
func argHead(s string) string {
	cut := maxArg
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

// ShortenQuoted applies Arg's rule to every Go double-quoted string
// literal in the line s (what %q and strconv.Quote write): one whose value
// is over 256 bytes becomes QuotedArg of it, "AAA..."... (5000 bytes).
// Parse errors quote the argument they refuse, most with %q where they
// are built, so a whole-line cap kept a 5,000-byte argument and cut the
// reason after it; cut here, the line keeps the reason, however many
// arguments it quotes and whichever way it was built. Text that is not a
// valid literal is left as it is.
func ShortenQuoted(s string) string {
	if len(s) <= maxArg {
		return s
	}
	var b strings.Builder
	last := 0 // s[last:] is not written yet
	for i := strings.IndexByte(s, '"'); i >= 0 && i < len(s); {
		end := literalEnd(s, i)
		if end < 0 {
			break
		}
		if end-i > maxArg {
			if v, err := strconv.Unquote(s[i:end]); err == nil && len(v) > maxArg {
				b.WriteString(s[last:i])
				b.WriteString(QuotedArg(v))
				last = end
			}
		}
		next := strings.IndexByte(s[end:], '"')
		if next < 0 {
			break
		}
		i = end + next
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// maxWord is the longest word ShortenWords leaves whole: twice maxArg, so
// what Arg and the lists already cut ("AAA...A... (5000 bytes)") is not
// cut again.
const maxWord = 2 * maxArg

// ShortenWords applies Arg's rule to every run of text without a blank
// or a quote that is over 512 bytes: its first 256 bytes and its length. An error from
// the operating system carries a path unquoted ("open /tmp/xxx...: file
// name too long"), which ShortenQuoted does not see; a 5,000-byte --backup
// path made a line the whole-line cap cut before its reason.
func ShortenWords(s string) string {
	if len(s) <= maxArg {
		return s
	}
	var b strings.Builder
	start := 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && s[i] != ' ' {
			continue
		}
		// A word with a quote in it is ShortenQuoted's (a literal,
		// already cut, may run past 256 bytes with its quotes).
		if w := s[start:i]; len(w) > maxWord && !strings.ContainsRune(w, '"') {
			b.WriteString(argHead(w))
			fmt.Fprintf(&b, "... (%d bytes)", len(w))
		} else {
			b.WriteString(w)
		}
		if i < len(s) {
			b.WriteByte(' ')
		}
		start = i + 1
	}
	return b.String()
}

// literalEnd returns the index just past the closing quote of the
// double-quoted literal that starts at s[i], or -1 if it is not closed.
func literalEnd(s string, i int) int {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// Lines wraps w (stderr) so that what is written reaches it as Text would
// render it, line breaks kept: whatever message forgot to quote a name, no
// control byte, bidi override or invalid UTF-8 gets to the terminal raw.
// Each Write is filtered on its own; fmt writes a whole message at once,
// so a rune is never split between two of them.
func Lines(w io.Writer) io.Writer { return linesWriter{w} }

type linesWriter struct{ w io.Writer }

func (l linesWriter) Write(p []byte) (int, error) {
	s := string(p)
	if plainText(strings.ReplaceAll(s, "\n", "")) {
		return l.w.Write(p)
	}
	parts := strings.Split(s, "\n")
	for i, part := range parts {
		parts[i] = Text(part)
	}
	if _, err := io.WriteString(l.w, strings.Join(parts, "\n")); err != nil {
		return 0, err
	}
	return len(p), nil
}
