package main

import (
	"strings"
	"testing"
)

func TestVersionAndCompletion(t *testing.T) {
	r := mustRun(t, nil, 0, "version")
	if !strings.HasPrefix(r.stdout, "offsetctl "+version) || !strings.Contains(r.stdout, "go1.") {
		t.Errorf("version output %q", r.stdout)
	}
	var v struct{ Version, Go, OS, Arch string }
	decodeJSON(t, mustRun(t, nil, 0, "version", "-o", "json"), &v)
	if v.Version != version || !strings.HasPrefix(v.Go, "go1.") || v.OS == "" || v.Arch == "" {
		t.Errorf("version -o json = %+v", v)
	}
	if r := mustRun(t, nil, 0, "version", "-o", "csv"); !strings.HasPrefix(r.stdout, "version,revision,go,os,arch\n"+version+",") {
		t.Errorf("version -o csv = %q", r.stdout)
	}
	for shell, marker := range map[string]string{"bash": "__start_offsetctl", "zsh": "#compdef offsetctl", "fish": "complete -c offsetctl"} {
		r := mustRun(t, nil, 0, "completion", shell)
		if !strings.Contains(r.stdout, marker) {
			t.Errorf("completion %s lacks %q", shell, marker)
		}
	}
	// Help lists every command a user can run.
	r = mustRun(t, nil, 0, "--help")
	for _, c := range []string{"groups", "lag", "demo", "playground", "version", "completion"} {
		if !strings.Contains(r.stdout, "  "+c+" ") {
			t.Errorf("--help does not list %s", c)
		}
	}
}

func TestOneLine(t *testing.T) {
	for in, want := range map[string]string{
		"a":                           "a",
		"mode auto: x\nmode async: y": "mode auto: x; mode async: y",
		"  a   b \n\n c\t d\n":        "a b; c d",
		"":                            "",
	} {
		if got := oneLine(in); got != want {
			t.Errorf("oneLine(%q) = %q, want %q", in, got, want)
		}
	}
}
