package buildinfo

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestLdflagsVersion builds the real binary the way release builds do and
// checks that -ldflags "-X main.version=..." reaches both --version and
// `version -o json`: a renamed or unexported variable would make -X a
// silent no-op.
func TestLdflagsVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	const want = "v9.8.7-test"
	bin := filepath.Join(t.TempDir(), "offsetctl")
	build := exec.Command(goTool, "build", "-ldflags", "-X main.version="+want, "-o", bin, "../..") // the module root: package main
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatalf("--version: %v", err)
	}
	if got := string(out); got != "offsetctl "+want+"\n" {
		t.Errorf("--version printed %q", got)
	}
	out, err = exec.Command(bin, "version", "-o", "json").Output()
	if err != nil {
		t.Fatalf("version -o json: %v", err)
	}
	var v struct{ Version, Go string }
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("version -o json: %v\n%s", err, out)
	}
	if v.Version != want || !strings.HasPrefix(v.Go, "go1.") {
		t.Errorf("version -o json = %+v, want version %s", v, want)
	}
}
