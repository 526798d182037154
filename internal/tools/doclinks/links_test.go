package main

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestExtract(t *testing.T) {
	text := strings.Join([]string{
		"See [a](a.md) and ![img](pic.png \"title\") and [x](<with space.md>).",
		"`[not](code.md)` but [yes](b.md#sec) and ``[no](x.md) ` ``",
		"```sh",
		"[no](fenced.md)",
		"```",
		"[ref]: ref.md",
		"[paren](f(1).md) [web](https://example.com/x)",
		// Backticks in a destination are part of it (no code span); a
		// code span that opens before "](" hides the link.
		"[x](a`b`c.md) [y](<`0`>) [z`](no.md)` and [w](w.md)",
	}, "\n")
	var got []string
	for _, l := range Extract(text) {
		got = append(got, l.Target+"@"+string(rune('0'+l.Line)))
	}
	want := []string{"a.md@1", "pic.png@1", "with space.md@1", "b.md#sec@2", "ref.md@6", "f(1).md@7", "https://example.com/x@7", "a`b`c.md@8", "`0`@8", "w.md@8"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Extract:\n got %q\nwant %q", got, want)
	}
}

func TestSlugAndAnchors(t *testing.T) {
	for h, want := range map[string]string{
		"Share groups (KIP-932)":         "share-groups-kip-932",
		"`reset`: the guard":             "reset-the-guard",
		"Security: TLS, SASL, [x](y.md)": "security-tls-sasl-x",
		"snake_case and   spaces":        "snake_case-and---spaces",
	} {
		if got := Slug(h); got != want {
			t.Errorf("Slug(%q) = %q, want %q", h, got, want)
		}
	}
	a := Anchors("# Top\n## Run\n```\n# not a heading\n```\n## Run\n<a name=\"custom\"></a>\n")
	want := map[string]bool{"top": true, "run": true, "run-1": true, "custom": true}
	if !reflect.DeepEqual(a, want) {
		t.Fatalf("Anchors = %v, want %v", a, want)
	}
}

func TestCheckFindsDeadFilesAndHeadings(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("README.md", "[ok](docs/a.md#part-one) [dir](docs/) [gone](docs/gone.md) [bad](docs/a.md#nope) [self](#top)\n# Top\n")
	write("docs/a.md", "# A\n## Part one\n[up](../README.md) [code](../main.go)\n")
	write("main.go", "package main\n")
	dead, files, err := Check(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		filepath.Join(dir, "README.md") + ":1: docs/a.md#nope: no heading #nope in " + filepath.ToSlash(filepath.Join(dir, "docs/a.md")),
		filepath.Join(dir, "README.md") + ":1: docs/gone.md: no such file or directory",
	}
	if files != 2 || !reflect.DeepEqual(dead, want) {
		t.Fatalf("Check = %q (%d files), want %q (2 files)", dead, files, want)
	}
}

func TestUnindexed(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"README.md": "| [a.md](a.md) | [b](b.md#x) |\n",
		"a.md":      "# A\n", "b.md": "# B\n", "c.md": "# C\n",
		"sub/d.md": "# D\n",
	} {
		p := filepath.Join(dir, name)
		_ = os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Unindexed(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{filepath.Join(dir, "c.md")}; !reflect.DeepEqual(got, want) {
		t.Fatalf("Unindexed = %q, want %q", got, want)
	}
}

// TestRepositoryLinks is the check itself, run by make test as well as by
// make docs-check: every relative link in the repository's Markdown resolves
// and docs/README.md lists every page of docs/.
func TestRepositoryLinks(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if rc := run("../../..", "docs/README.md", &stdout, &stderr); rc != 0 {
		t.Fatalf("exit %d:\n%s", rc, stderr.String())
	}
	if !strings.Contains(stdout.String(), "every relative link in") {
		t.Fatalf("stdout %q", stdout.String())
	}
}

func FuzzExtract(f *testing.F) {
	f.Add("[a](b.md) `x` ``[c](d)`` ```\n[e](f)\n```\n[r]: s\n# H (1)")
	f.Add("](<")
	f.Fuzz(func(t *testing.T, text string) {
		for _, l := range Extract(text) {
			if l.Line < 1 || l.Line > strings.Count(text, "\n")+1 {
				t.Fatalf("line %d out of range", l.Line)
			}
			if !strings.Contains(text, l.Target) {
				t.Fatalf("target %q is not in the text", l.Target)
			}
		}
		_ = Anchors(text)
	})
}

func TestUnmarked(t *testing.T) {
	text := strings.Join([]string{
		"# Page",
		MarkPlayground,
		"```console",
		"$ offsetctl groups",
		"```",
		"```console",
		"$ unmarked",
		"```",
		MarkIllustrative,
		"```console",
		"```",
		"```sh",
		"not an example",
		"```",
		"<!-- example: something else -->",
		"````console",
		"```",
		"````",
	}, "\n")
	if got, want := Unmarked(text), []int{6, 16}; !reflect.DeepEqual(got, want) {
		t.Fatalf("Unmarked = %v, want %v", got, want)
	}
}
