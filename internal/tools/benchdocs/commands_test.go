package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestSplit(t *testing.T) {
	for in, want := range map[string][]string{
		`go test -run '^$' -bench 'A|B' ./x`: {"go", "test", "-run", "^$", "-bench", "A|B", "./x"},
		`a "b \"c\" d" e\f`:                  {"a", `b "c" d`, `e\f`},
		`  ''  x`:                            {"", "x"},
		``:                                   nil,
	} {
		if got := Split(in); !reflect.DeepEqual(got, want) {
			t.Errorf("Split(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCommands(t *testing.T) {
	text := strings.Join([]string{
		"OFFSETCTL_BENCH_SHORT_NAMES=1 go test -run '^$' -bench BenchmarkReset10kPartitions -benchtime 5x -count 3 ./internal/cli",
		"    go test -run '^$' -bench 'Reset10kPartitions' -benchtime 3x -timeout 30m .",
		"KAFKA_BROKERS=x go test ./exporter -run '^$' -bench BenchmarkExporterGather -benchtime 5x",
		"`go test -run '^$' -bench 'Benchmark(A|B)' -benchtime 2s ./replay`: and `go test ./x` too",
		"go test -bench=X ./y   # a comment ./z",
		"go test -run TestX ./internal/cli",
	}, "\n")
	want := []Command{
		{1, "BenchmarkReset10kPartitions", "./internal/cli"},
		{2, "Reset10kPartitions", "."},
		{3, "BenchmarkExporterGather", "./exporter"},
		{4, "Benchmark(A|B)", "./replay"},
		{5, "X", "./y"},
	}
	if got := Commands(text); !reflect.DeepEqual(got, want) {
		t.Fatalf("Commands:\n got %+v\nwant %+v", got, want)
	}
}

// TestRun: a command over a package without tests, one whose regexp
// matches no benchmark, one naming no package and one that fails are each
// a line naming the page, line and why; ./... and repeats are skipped.
func TestRun(t *testing.T) {
	root := t.TempDir()
	page := "```sh\n" + strings.Join([]string{
		"go test -run '^$' -bench BenchmarkGood -benchtime 1x ./good",
		"go test -run '^$' -bench BenchmarkGood -benchtime 1x ./good",
		"go test -run '^$' -bench BenchmarkX .",
		"go test -run '^$' -bench BenchmarkGone ./good",
		"go test -run '^$' -bench BenchmarkGood",
		"go test -run '^$' -bench BenchmarkGood ./broken",
		"go test -run '^$' -bench . ./...",
	}, "\n") + "\n```\n"
	if err := os.MkdirAll(filepath.Join(root, "bench"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "bench", "p.md"), []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	var calls []string
	list := func(dir, regex, pkg string) (string, error) {
		calls = append(calls, regex+" "+pkg)
		switch {
		case pkg == ".":
			return "?   \tm\t[no test files]\n", nil
		case pkg == "./broken":
			return "# m/broken\nbroken/x_test.go:1: syntax error\n", errors.New("exit status 1")
		case regex == "BenchmarkGood":
			return "BenchmarkGood\nok  \tm/good\t0.01s\n", nil
		}
		return "ok  \tm/good\t0.01s\n", nil
	}
	var stdout, stderr bytes.Buffer
	if rc := run(root, &stdout, &stderr, list); rc != 1 {
		t.Fatalf("exit %d, want 1", rc)
	}
	p := filepath.Join(root, "bench", "p.md")
	want := p + ":4: go test -bench BenchmarkX .: the package has no test files\n" +
		p + ":5: go test -bench BenchmarkGone ./good: no benchmark matches\n" +
		p + ":6: go test -bench BenchmarkGood : names no package (./PKG): go test would run the current directory's\n" +
		p + ":7: go test -bench BenchmarkGood ./broken: go test -list failed: broken/x_test.go:1: syntax error\n" +
		"benchdocs: 4 documented benchmark command(s) measure nothing\n"
	if stderr.String() != want {
		t.Fatalf("stderr:\n%s\nwant:\n%s", stderr.String(), want)
	}
	if len(calls) != 4 {
		t.Fatalf("go test -list calls %q: want one per distinct command with a package, none for ./...", calls)
	}
}

func FuzzCommands(f *testing.F) {
	f.Add("go test -run '^$' -bench 'A|B' -benchtime 1x ./x # c")
	f.Add("`go test -bench=\"X\\\"\" .`")
	f.Fuzz(func(t *testing.T, text string) {
		for _, c := range Commands(text) {
			if c.Line < 1 || c.Line > strings.Count(text, "\n")+1 {
				t.Fatalf("line %d out of range", c.Line)
			}
			if c.Package != "" && !strings.HasPrefix(c.Package, ".") {
				t.Fatalf("package %q", c.Package)
			}
		}
	})
}
