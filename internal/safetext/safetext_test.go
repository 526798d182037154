package safetext

import (
	"fmt"
	"os/exec"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// hostile are the names tried against the tool (issue 11), plus the other
// classes of invisible or reordering characters.
var hostile = []string{
	"evil\x1b[2K\x1b[1Gbilling", // erase line, cursor home: a fake row
	"bil\x01ling",               // displays as billing
	"a\nb",                      // splits a row
	"a\tb",                      // shifts columns
	"a\rb",                      // overwrites from the line start
	"del\x7f",                   // DEL
	"c1\u009b2K",                // C1 CSI: an escape sequence on some terminals
	"bad\xffutf8",               // invalid UTF-8
	"rtl\u202egnillib",          // bidi override: displays reversed
	"iso\u2066x",                // bidi isolate
	"zw\u200bj",                 // zero-width space
	"nb\u00a0sp",                // no-break space passes for a blank
	" lead", "trail ",           // invisible blanks
	`"quoted"`, // would pass for a quoted name
}

func TestNameQuotesHostileNames(t *testing.T) {
	for _, s := range hostile {
		got := Name(s)
		if !strings.HasPrefix(got, `"`) {
			t.Errorf("Name(%q) = %q: not quoted", s, got)
			continue
		}
		back, err := strconv.Unquote(got)
		if err != nil || back != s {
			t.Errorf("Name(%q) = %q does not unquote to the name (%q, %v)", s, got, back, err)
		}
		if !terminalSafe(got) {
			t.Errorf("Name(%q) = %q holds a control character", s, got)
		}
	}
}

func TestNamePlainNamesUnchanged(t *testing.T) {
	for _, s := range []string{"", "billing", "orders.billing-v2", `back\slash`, "a b", "gruppe-ü", "日本語", "emoji-🙂", `x"y`, "it's"} {
		if got := Name(s); got != s {
			t.Errorf("Name(%q) = %q, want it unchanged", s, got)
		}
	}
}

func TestText(t *testing.T) {
	cases := []struct{ in, want string }{
		{"group billing: not found", "group billing: not found"},
		{"group evil\x1b[2K: x", `group evil\x1b[2K: x`},
		{"a\nb", `a\nb`},
		{"bad\xff", `bad\xff`},
		{"rtl\u202ex", `rtl\u202ex`},
		{"c1\u009b", `c1\u009b`},
		{"ü ok", "ü ok"},
	}
	for _, c := range cases {
		if got := Text(c.in); got != c.want {
			t.Errorf("Text(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestArgShortens(t *testing.T) {
	long := strings.Repeat("g", 130_000)
	got := Arg(long)
	if len(got) > 300 || !strings.Contains(got, "(130000 bytes)") {
		t.Fatalf("Arg(130 KB) = %q", got)
	}
	// The cut never splits a rune.
	got = Arg(strings.Repeat("ü", 200))
	if !utf8.ValidString(got) || strings.HasPrefix(got, `"`) {
		t.Fatalf("Arg(ü×100) = %q", got)
	}
	if got := Arg("short"); got != "short" {
		t.Fatalf("Arg(short) = %q", got)
	}
}

// TestShellRoundTrip hands every quoted name to a real shell and checks it
// receives the exact bytes: the undo line must restore that very group.
func TestShellRoundTrip(t *testing.T) {
	names := append([]string{"billing", "it's", "", "a b", "$HOME", "`id`", `\`, "!x", "-dash", "*"}, hostile...)
	for _, shell := range []string{"bash", "zsh"} {
		path, err := exec.LookPath(shell)
		if err != nil {
			t.Logf("%s not installed: skipped", shell)
			continue
		}
		for _, s := range names {
			q := Shell(s)
			if !terminalSafe(q) {
				t.Errorf("Shell(%q) = %q holds a control character", s, q)
			}
			out, err := exec.Command(path, "-c", "printf %s "+q).Output()
			if err != nil {
				t.Fatalf("%s -c printf %s: %v", shell, q, err)
			}
			if string(out) != s {
				t.Errorf("%s: Shell(%q) = %s gave %q", shell, s, q, out)
			}
		}
	}
}

// terminalSafe: no C0, DEL, C1, bidi/format or invalid UTF-8.
func terminalSafe(s string) bool { return plainText(s) }

func FuzzName(f *testing.F) {
	for _, s := range hostile {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := Name(s)
		if !terminalSafe(n) {
			t.Fatalf("Name(%q) = %q is not terminal-safe", s, n)
		}
		if n != s {
			back, err := strconv.Unquote(n)
			if err != nil || back != s || !strings.HasPrefix(n, `"`) {
				t.Fatalf("Name(%q) = %q is ambiguous", s, n)
			}
		}
		if !terminalSafe(Text(s)) || !terminalSafe(Shell(s)) || !terminalSafe(Arg(s)) {
			t.Fatalf("Text/Shell/Arg(%q) not terminal-safe", s)
		}
	})
}

func TestLines(t *testing.T) {
	var b strings.Builder
	w := Lines(&b)
	n, err := w.Write([]byte("warning: group evil\x1b[2K skipped\nnext line\n"))
	if err != nil || n != len("warning: group evil\x1b[2K skipped\nnext line\n") {
		t.Fatalf("Write = %d, %v", n, err)
	}
	if want := "warning: group evil\\x1b[2K skipped\nnext line\n"; b.String() != want {
		t.Fatalf("got %q, want %q", b.String(), want)
	}
}

func TestList(t *testing.T) {
	for _, tc := range []struct {
		names []string
		max   int
		want  string
	}{
		{nil, 3, ""},
		{[]string{"billing"}, 3, "billing"},
		{[]string{"a,b"}, 3, `"a,b"`},
		{[]string{"a", "b"}, 3, "a,b"},
		{[]string{"a,b", "c"}, 3, `"a,b",c`},
		{[]string{"orders billing", "x"}, 3, `"orders billing",x`},
		{[]string{"", "x"}, 3, `"",x`},
		{[]string{"evil\x1b[2K", `"q"`}, 3, `"evil\x1b[2K","\"q\""`},
		{[]string{"g1", "g2", "g3", "g4", "g5"}, 3, "g1,g2,g3 and 2 more"},
		{[]string{"g1", "g2", "g3"}, 3, "g1,g2,g3"},
		{[]string{"g1", "g2", "g3", "g4"}, 0, "g1,g2,g3,g4"},
	} {
		if got := List(tc.names, tc.max); got != tc.want {
			t.Errorf("List(%q, %d) = %q, want %q", tc.names, tc.max, got, tc.want)
		}
	}
}

// parseList reads List's output (without a count) back into names.
func parseList(s string) ([]string, error) {
	var out []string
	for s != "" {
		var n string
		if s[0] == '"' {
			q, err := strconv.QuotedPrefix(s)
			if err != nil {
				return nil, err
			}
			n, _ = strconv.Unquote(q)
			s = s[len(q):]
		} else {
			i := strings.IndexByte(s, ',')
			if i < 0 {
				i = len(s)
			}
			n, s = s[:i], s[i:]
		}
		out = append(out, n)
		if s == "" {
			break
		}
		if s[0] != ',' || len(s) == 1 {
			return nil, fmt.Errorf("no separator before %q", s)
		}
		s = s[1:]
	}
	return out, nil
}

// Unambiguous: whatever the names, List's output reads back as them, and
// holds no control byte.
func FuzzList(f *testing.F) {
	f.Add("a,b", "c")
	f.Add("", " x ")
	f.Add(`"`, "a\nb")
	f.Fuzz(func(t *testing.T, a, b string) {
		names := []string{a, b}
		got := List(names, 0)
		back, err := parseList(got)
		if err != nil || !reflect.DeepEqual(back, names) {
			t.Fatalf("List(%q) = %q reads back as %q (%v)", names, got, back, err)
		}
		if Text(got) != got {
			t.Fatalf("List(%q) = %q is not terminal-safe", names, got)
		}
	})
}

// ShortenQuoted cuts each quoted value over 256 bytes as Arg does, keeps
// the text around it, and leaves short values and non-literals alone.
func TestShortenQuoted(t *testing.T) {
	a := strings.Repeat("A", 5000)
	a256 := a[:256]
	u := strings.Repeat("ü", 200) // 400 bytes, cut on a rune boundary
	for _, tc := range []struct{ name, in, want string }{
		{"short", `--to "abc": bad`, `--to "abc": bad`},
		{"no quotes", "x " + a, "x " + a},
		{"one long", `--to "` + a + `": want earliest`, `--to "` + a256 + `"... (5000 bytes): want earliest`},
		{"two long", `--to "time:` + a + `": time "` + a + `": want RFC 3339`,
			`--to "time:` + a[:251] + `"... (5005 bytes): time "` + a256 + `"... (5000 bytes): want RFC 3339`},
		{"escapes", `x "` + strings.Repeat(`\x1b`, 300) + `" y`, `x "` + strings.Repeat(`\x1b`, 256) + `"... (300 bytes) y`},
		{"quote inside", `x "` + strings.Repeat(`\"`, 300) + `" y`, `x "` + strings.Repeat(`\"`, 256) + `"... (300 bytes) y`},
		{"runes", `x "` + u + `" y`, `x "` + u[:256] + `"... (400 bytes) y`},
		{"exactly 256", `x "` + a256 + `" y`, `x "` + a256 + `" y`},
		{"unclosed", `x "` + a, `x "` + a},
		{"bad escape", `x "\q` + a + `" y`, `x "\q` + a + `" y`},
		{"short then long", `"a" and "` + a + `"`, `"a" and "` + a256 + `"... (5000 bytes)`},
	} {
		if got := ShortenQuoted(tc.in); got != tc.want {
			t.Errorf("%s: ShortenQuoted = %s, want %s", tc.name, Arg(got), Arg(tc.want))
		}
	}
}

func TestQuotedArgAndArgList(t *testing.T) {
	a := strings.Repeat("A", 5000)
	for _, tc := range []struct{ got, want string }{
		{QuotedArg("01m8t"), `"01m8t"`},
		{QuotedArg("EV\x1b[31mIL"), `"EV\x1b[31mIL"`},
		{QuotedArg(a), `"` + a[:256] + `"... (5000 bytes)`},
		{ArgList([]string{"g1", a, "a b"}, 5), "g1," + a[:256] + `... (5000 bytes),"a b"`},
		{ArgList([]string{"g1", "g2", "g3"}, 2), "g1,g2 and 1 more"},
		{ArgList([]string{"e\x1b" + a}, 5), `"e\x1b` + a[:254] + `"... (5002 bytes)`},
	} {
		if tc.got != tc.want {
			t.Errorf("got %s, want %s", Arg(tc.got), Arg(tc.want))
		}
	}
}

// FuzzShortenQuoted: never panics, keeps a terminal-safe line safe, and
// leaves a line without a long literal as it is.
func FuzzShortenQuoted(f *testing.F) {
	for _, s := range []string{`--to "abc": x`, `"` + strings.Repeat("A", 300) + `" y`, `"\q` + strings.Repeat("b", 300) + `"`, `"x`, `""""`, `"\`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := ShortenQuoted(s)
		if plainText(s) && !plainText(got) {
			t.Fatalf("ShortenQuoted(%q) = %q is not terminal-safe", s, got)
		}
		if len(s) <= maxArg && got != s {
			t.Fatalf("ShortenQuoted(%q) = %q changed a short line", s, got)
		}
	})
}

// TestShortenWords: a run of text without a blank over 256 bytes (an
// unquoted path in an OS error) is cut to 256 bytes and its length; the
// words around it, and shorter runs, are kept as they are.
func TestShortenWords(t *testing.T) {
	long := strings.Repeat("x", 5000)
	for in, want := range map[string]string{
		"short line": "short line",
		"open /tmp/" + long + ": file name too long": "open " + ("/tmp/" + long)[:256] + "... (5006 bytes) file name too long",
		// Up to 512 bytes a word stays whole: what Arg cut already
		// ("AAA...A... (5000 bytes)") is not cut again.
		strings.Repeat("a", 512) + " " + strings.Repeat("b", 513): strings.Repeat("a", 512) + " " + strings.Repeat("b", 256) + "... (513 bytes)",
		strings.Repeat("a", 256) + "... (5000 bytes)":             strings.Repeat("a", 256) + "... (5000 bytes)",
		long:       strings.Repeat("x", 256) + "... (5000 bytes)",
		"é" + long: "é" + strings.Repeat("x", 254) + "... (5002 bytes)",
		// ShortenQuoted's: a word with a quote stays whole.
		`--from "` + long[:600] + `"...`: `--from "` + long[:600] + `"...`,
	} {
		if got := ShortenWords(in); got != want {
			t.Errorf("ShortenWords(%.40q...) = %.300q, want %.300q", in, got, want)
		}
	}
}
