// Package buildinfo works out which offsetctl this is from what the build
// recorded, so that every way of building it reports a version:
//
//   - a release build stamps it: go build -ldflags "-X main.version=v1.2.3"
//     (what goreleaser and `make build` do);
//   - `go install github.com/offsetctl/offsetctl@v1.2.3` records v1.2.3 as
//     the main module's version in the binary's build info;
//   - a build from a checkout records the VCS revision (Go's -buildvcs,
//     on by default in a git work tree) and, since Go 1.24, a
//     pseudo-version such as v0.0.0-20261201191857-59d957c1ab12+dirty;
//   - anything else (go test, -buildvcs=false outside a module proxy) is
//     "devel".
package buildinfo

import (
	"runtime/debug"
	"strings"
)

// Devel is the version of a build that recorded none.
const Devel = "devel"

// Info is the resolved version of this binary.
type Info struct {
	// Version is the release version (v1.2.3), the module version go
	// install recorded, or "devel" / "devel+<revision>".
	Version string
	// Revision is the VCS commit the binary was built from (12 hex
	// digits, "-dirty" when the work tree had changes), or "".
	Revision string
}

// Read resolves the running binary's version; stamped is main.version
// (empty unless set with -ldflags -X).
func Read(stamped string) Info {
	bi, _ := debug.ReadBuildInfo()
	return Resolve(stamped, bi)
}

// Resolve is Read with the build info given (nil when there is none). It
// does no I/O. Order: the stamped version, then the main module's version,
// then "devel" with the revision when one was recorded.
func Resolve(stamped string, bi *debug.BuildInfo) Info {
	var info Info
	if bi != nil {
		info.Revision = revision(bi.Settings)
	}
	switch v := strings.TrimSpace(stamped); {
	case v != "":
		info.Version = v
	case bi != nil && bi.Main.Version != "" && bi.Main.Version != "(devel)":
		// "(devel)" is what the go command records for a main module
		// built from source without a version it could work out.
		info.Version = bi.Main.Version
	case info.Revision != "":
		info.Version = Devel + "+" + info.Revision
	default:
		info.Version = Devel
	}
	return info
}

// revision is the short VCS revision from the build settings go records
// with -buildvcs (vcs.revision, vcs.modified), or "".
func revision(settings []debug.BuildSetting) string {
	var rev string
	var dirty bool
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return ""
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "-dirty"
	}
	return rev
}
