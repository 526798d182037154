package cli

import (
	"runtime"

	"github.com/spf13/cobra"

	"github.com/offsetctl/offsetctl/internal/buildinfo"
	"github.com/offsetctl/offsetctl/report"
)

func (a *app) versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the offsetctl version",
		Long: `Print the offsetctl version, the VCS revision it was built from (when the
build recorded one), the Go version and the platform. The version is the one a
release build stamped, else the module version "go install ...@VERSION"
recorded, else "devel" (with the revision of a build from a checkout).`,
		Example: `  offsetctl version
  offsetctl version -o json`,
		Args: noArgs,
		RunE: func(*cobra.Command, []string) error {
			b := buildinfo.Read(a.stamped)
			v := report.VersionInfo{Version: b.Version, Revision: b.Revision, Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH}
			return report.Version(a.stdout, a.format, v)
		},
	}
}
