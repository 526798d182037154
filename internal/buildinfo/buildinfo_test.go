package buildinfo

import (
	"runtime/debug"
	"testing"
)

func TestResolve(t *testing.T) {
	vcs := func(rev, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	const rev = "59d957c1ab12f00dfeedbeef0123456789abcdef"
	cases := []struct {
		name    string
		stamped string
		bi      *debug.BuildInfo
		want    Info
	}{
		{"no build info", "", nil, Info{Version: "devel"}},
		{"stamped, no build info", "v1.2.3", nil, Info{Version: "v1.2.3"}},
		{"stamped wins over the module version", "v1.2.3",
			&debug.BuildInfo{Main: debug.Module{Version: "v1.0.0"}, Settings: vcs(rev, "false")},
			Info{Version: "v1.2.3", Revision: "59d957c1ab12"}},
		{"stamped value is trimmed", " v1.2.3\n", nil, Info{Version: "v1.2.3"}},
		{"blank stamp falls through", "  ", &debug.BuildInfo{Main: debug.Module{Version: "v0.4.0"}}, Info{Version: "v0.4.0"}},
		{"go install @v1.2.3", "", &debug.BuildInfo{Main: debug.Module{Path: "github.com/offsetctl/offsetctl", Version: "v1.2.3"}},
			Info{Version: "v1.2.3"}},
		{"checkout pseudo-version", "",
			&debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261201191857-59d957c1ab12+dirty"}, Settings: vcs(rev, "true")},
			Info{Version: "v0.0.0-20261201191857-59d957c1ab12+dirty", Revision: "59d957c1ab12-dirty"}},
		{"(devel) with a revision", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs(rev, "false")},
			Info{Version: "devel+59d957c1ab12", Revision: "59d957c1ab12"}},
		{"(devel) with a dirty revision", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs(rev, "true")},
			Info{Version: "devel+59d957c1ab12-dirty", Revision: "59d957c1ab12-dirty"}},
		{"(devel) without vcs", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, Info{Version: "devel"}},
		{"empty module version (go test)", "", &debug.BuildInfo{}, Info{Version: "devel"}},
		{"short revision kept whole", "", &debug.BuildInfo{Settings: vcs("abc123", "false")}, Info{Version: "devel+abc123", Revision: "abc123"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Resolve(c.stamped, c.bi); got != c.want {
				t.Errorf("Resolve(%q) = %+v, want %+v", c.stamped, got, c.want)
			}
		})
	}
}
