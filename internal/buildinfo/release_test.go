package buildinfo

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// goreleaserConfig is the part of .goreleaser.yaml that a release depends
// on; unknown keys are ignored here (goreleaser check validates the rest).
type goreleaserConfig struct {
	Version int `yaml:"version"`
	Builds  []struct {
		Env     []string `yaml:"env"`
		GOOS    []string `yaml:"goos"`
		GOARCH  []string `yaml:"goarch"`
		Flags   []string `yaml:"flags"`
		LDFlags []string `yaml:"ldflags"`
	} `yaml:"builds"`
	Archives []struct {
		Files []any `yaml:"files"`
	} `yaml:"archives"`
	Checksum struct {
		Algorithm string `yaml:"algorithm"`
	} `yaml:"checksum"`
	SBOMs []map[string]any `yaml:"sboms"`
}

// TestReleaseConfig: .goreleaser.yaml builds linux, darwin and windows on
// amd64 and arm64 with -trimpath and the version stamped, with checksums
// and an SBOM, and `make release` (the fallback without goreleaser) builds
// exactly the same platforms.
func TestReleaseConfig(t *testing.T) {
	b, err := os.ReadFile("../../.goreleaser.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var c goreleaserConfig
	if err := yaml.Unmarshal(b, &c); err != nil {
		t.Fatalf(".goreleaser.yaml: %v", err)
	}
	if c.Version != 2 || len(c.Builds) != 1 || len(c.Archives) != 1 {
		t.Fatalf(".goreleaser.yaml: version %d, %d builds, %d archives; want version 2, one build, one archive", c.Version, len(c.Builds), len(c.Archives))
	}
	bld := c.Builds[0]
	var platforms []string
	for _, goos := range bld.GOOS {
		for _, arch := range bld.GOARCH {
			platforms = append(platforms, goos+"/"+arch)
		}
	}
	slices.Sort(platforms)
	want := []string{"darwin/amd64", "darwin/arm64", "linux/amd64", "linux/arm64", "windows/amd64", "windows/arm64"}
	if !slices.Equal(platforms, want) {
		t.Errorf("goreleaser platforms = %v, want %v", platforms, want)
	}
	if !slices.Contains(bld.Flags, "-trimpath") {
		t.Errorf("goreleaser build flags %v lack -trimpath", bld.Flags)
	}
	if !slices.Contains(bld.Env, "CGO_ENABLED=0") {
		t.Errorf("goreleaser build env %v lacks CGO_ENABLED=0", bld.Env)
	}
	if !strings.Contains(strings.Join(bld.LDFlags, " "), "-X main.version=") {
		t.Errorf("goreleaser ldflags %v do not stamp main.version", bld.LDFlags)
	}
	if c.Checksum.Algorithm != "sha256" || len(c.SBOMs) == 0 {
		t.Errorf("goreleaser checksum %q, %d sboms; want sha256 and an SBOM", c.Checksum.Algorithm, len(c.SBOMs))
	}
	if !slices.ContainsFunc(c.Archives[0].Files, func(f any) bool { return f == "LICENSE" }) {
		t.Errorf("goreleaser archives do not ship LICENSE: %v", c.Archives[0].Files)
	}

	mk, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^RELEASE_PLATFORMS \?= (.+)$`).FindSubmatch(mk)
	if m == nil {
		t.Fatal("Makefile has no RELEASE_PLATFORMS")
	}
	made := strings.Fields(string(m[1]))
	slices.Sort(made)
	if !slices.Equal(made, want) {
		t.Errorf("make release platforms = %v, want %v (as .goreleaser.yaml)", made, want)
	}
}
