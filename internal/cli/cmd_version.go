package cli

import (
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/offsetctl/offsetctl/report"
)

// version is the release version; builds from a checkout add the VCS
// revision from the build info.
const version = "0.1.0"

func (a *app) versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the offsetctl version",
		Args:  noArgs,
		RunE: func(*cobra.Command, []string) error {
			v := report.VersionInfo{Version: version, Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH}
			if bi, ok := debug.ReadBuildInfo(); ok {
				for _, s := range bi.Settings {
					if s.Key == "vcs.revision" && len(s.Value) >= 12 {
						v.Revision = s.Value[:12]
					}
				}
			}
			return report.Version(a.stdout, a.format, v)
		},
	}
}
