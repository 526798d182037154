package report

import (
	"fmt"
	"io"
)

// VersionInfo is what `offsetctl version` reports.
type VersionInfo struct {
	Version  string `json:"version"`
	Revision string `json:"revision,omitempty"` // VCS revision of a build from a checkout
	Go       string `json:"go"`
	OS       string `json:"os"`
	Arch     string `json:"arch"`
}

// Version writes v: one line as a table, an object as JSON, a header and a
// row as CSV.
func Version(w io.Writer, f Format, v VersionInfo) error {
	switch f {
	case JSON:
		return WriteJSON(w, v)
	case CSV:
		return WriteCSV(w, []string{"VERSION", "REVISION", "GO", "OS", "ARCH"}, [][]string{{v.Version, v.Revision, v.Go, v.OS, v.Arch}})
	}
	rev := ""
	if v.Revision != "" {
		rev = " (" + v.Revision + ")"
	}
	_, err := fmt.Fprintf(w, "offsetctl %s%s %s %s/%s\n", v.Version, rev, v.Go, v.OS, v.Arch)
	return err
}
