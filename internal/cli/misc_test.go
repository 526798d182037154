package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/offsetctl/offsetctl/internal/buildinfo"
	"github.com/offsetctl/offsetctl/internal/testkit"
)

func TestVersionAndCompletion(t *testing.T) {
	// A test binary records no module version and no VCS revision (and
	// nothing is stamped), so the version is what buildinfo falls back to.
	version := buildinfo.Read("").Version
	if version != buildinfo.Devel {
		t.Fatalf("test binary version = %q, want %q", version, buildinfo.Devel)
	}
	r := mustRun(t, nil, 0, "version")
	if !strings.HasPrefix(r.stdout, "offsetctl "+version) || !strings.Contains(r.stdout, "go1.") {
		t.Errorf("version output %q", r.stdout)
	}
	var v struct{ Version, Go, OS, Arch string }
	decodeJSON(t, mustRun(t, nil, 0, "version", "-o", "json"), &v)
	if v.Version != version || !strings.HasPrefix(v.Go, "go1.") || v.OS == "" || v.Arch == "" {
		t.Errorf("version -o json = %+v", v)
	}
	if r := mustRun(t, nil, 0, "version", "-o", "csv"); !strings.HasPrefix(r.stdout, "VERSION,REVISION,GO,OS,ARCH\n"+version+",") {
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

func TestErrorLine(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{errors.New("a"), "a"},
		{errors.Join(errors.New("mode auto: x"), errors.New("mode async: y")), "mode auto: x; mode async: y"},
		{fmt.Errorf("run: %w", errors.Join(errors.New("a\nb"), errors.New("c"))), "run: a b c"},
		{errors.New("unknown command \"lgs\" for \"offsetctl\"\n\nDid you mean this?\n\tlag\n"), `unknown command "lgs" for "offsetctl" Did you mean this? lag`},
		{errors.New("  a   b \n c\t d\n"), "a b c d"},
	} {
		if got := errorLine(tc.err); got != tc.want {
			t.Errorf("errorLine(%q) = %q, want %q", tc.err, got, tc.want)
		}
	}
}

// Wrong argument counts are exit 2 with one line naming the command and
// its usage (not cobra's "accepts 1 arg(s), received 2").
func TestArgumentCounts(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		// delete-group and delete-offsets select like lag since issue 13
		// (several groups, --all-groups, -r).
		{[]string{"delete-offsets", "--topic", "t"}, "name one or more groups, or use --all-groups"},
		{[]string{"delete-group"}, "name one or more groups, or use --all-groups"},
		{[]string{"groups", "x"}, `groups takes no arguments, got "x": offsetctl groups`},
		{[]string{"version", "x", "y"}, `version takes no arguments, got "x" "y"`},
		{[]string{"delete-offsets", "a", "--all-groups", "--topic", "t"}, `name groups or use --all-groups, not both`},
		{[]string{"undo", "1", "2", "3", "4", "5", "6", "7"}, `undo takes one argument (the audit entry id (see offsetctl history)), got 7: "1" "2" "3" "4" "5" and 2 more: `},
		{[]string{"demo", "x"}, `demo takes no arguments`},
		{[]string{"playground", "x"}, `playground takes no arguments`},
		{[]string{"semantics", "x"}, `unknown command "x" for semantics (its commands: count)`},
		{[]string{"semantics", "count"}, "name the processed log(s) to count: offsetctl semantics count FILE..."},
		// QA: diff and history answered in cobra's words ("accepts between
		// 1 and 2 arg(s), received 0"), and an empty --group listed the
		// whole audit trail.
		{[]string{"diff"}, "name the snapshot to compare: offsetctl diff SNAPSHOT [SNAPSHOT] | --profile A --profile B GROUP..."},
		{[]string{"diff", "a", "b", "c"}, `diff takes one or two snapshots, got 3: "a" "b" "c": offsetctl diff SNAPSHOT [SNAPSHOT] | --profile A --profile B GROUP...`},
		{[]string{"history", "x"}, `history takes no arguments, got "x"`},
		{[]string{"history", "--group", ""}, "--group is empty: name one, or leave the flag out for every entry"},
		{[]string{"history", "--topic", " "}, "--topic is empty"},
	} {
		r := offsetctl(t, nil, tc.args...)
		if r.code != 2 || r.stdout != "" || !strings.HasPrefix(r.stderr, "offsetctl: "+tc.want) {
			t.Errorf("%v: exit %d stdout %q stderr %q; want 2 and %q", tc.args, r.code, r.stdout, r.stderr, tc.want)
		}
		if strings.Count(strings.TrimRight(r.stderr, "\n"), "\n") != 0 {
			t.Errorf("%v: stderr is not one line: %q", tc.args, r.stderr)
		}
	}
}

// --bootstrap-server, the Apache tools' spelling, is --brokers.
func TestBootstrapServerIsBrokers(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(1, nil)
	g := testkit.Name(t, "g")
	c.Commit(g, topic, map[int32]int64{0: 0})
	for _, args := range [][]string{
		{"--bootstrap-server", c.BrokerList(), "lag", g, "-o", "json"},
		{"lag", g, "--bootstrap-server=" + c.BrokerList(), "-o", "json"},
	} {
		var rep lagJSON
		decodeJSON(t, mustRun(t, nil, 0, args...), &rep)
		if len(rep.Groups) != 1 || rep.Groups[0].Group != g || len(rep.Groups[0].Partitions) != 1 {
			t.Errorf("%v: %+v", args, rep.Groups)
		}
	}
}

// TestVersionFlagAgrees: --version and `version -o json` report the same
// version, whether main stamped one (release builds) or not, through the
// public entry point main uses.
func TestVersionFlagAgrees(t *testing.T) {
	for _, stamped := range []string{"", "v1.2.3", "v2.0.0-rc.1+build.7"} {
		run := func(args ...string) string {
			t.Helper()
			var out, errb bytes.Buffer
			if code := Run(context.Background(), args, &out, &errb, WithVersion(stamped)); code != 0 {
				t.Fatalf("stamped %q: offsetctl %v: exit %d: %s", stamped, args, code, errb.String())
			}
			return out.String()
		}
		var v struct{ Version string }
		if err := json.Unmarshal([]byte(run("version", "-o", "json")), &v); err != nil {
			t.Fatal(err)
		}
		want := stamped
		if want == "" {
			want = buildinfo.Devel
		}
		if v.Version != want {
			t.Errorf("stamped %q: version -o json says %q, want %q", stamped, v.Version, want)
		}
		if got := run("--version"); got != "offsetctl "+want+"\n" {
			t.Errorf("stamped %q: --version printed %q, want %q", stamped, got, "offsetctl "+want+"\n")
		}
		if got := run("version"); !strings.HasPrefix(got, "offsetctl "+want+" go1.") {
			t.Errorf("stamped %q: version printed %q", stamped, got)
		}
	}
}
