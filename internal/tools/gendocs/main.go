// Command gendocs writes offsetctl's command reference from its cobra
// commands, so the help text is the single source of the reference:
// DIR/cli/*.md (Markdown, one page per command) and DIR/man/*.1 (man
// pages). `make docs` runs it on docs/; .ci/run runs it on a temporary
// directory and fails when the checked-in reference differs.
//
//	go run ./internal/tools/gendocs -out docs
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/offsetctl/offsetctl/internal/cli"
)

// manDate is the date in the man pages' footer. cobra would use the
// current time, which would make every run differ from the checked-in
// pages; a fixed date keeps the output a function of the help text alone.
// Move it forward when cutting a release.
var manDate = time.Date(2026, time.December, 1, 0, 0, 0, 0, time.UTC)

func main() {
	out := flag.String("out", "docs", "directory to write cli/ and man/ into")
	flag.Parse()
	if err := generate(*out); err != nil {
		fmt.Fprintln(os.Stderr, "gendocs:", err)
		os.Exit(1)
	}
}

func generate(dir string) error {
	root := cli.Command()
	disableAutoGenTag(root)
	mdDir, manDir := filepath.Join(dir, "cli"), filepath.Join(dir, "man")
	for _, d := range []string{mdDir, manDir} {
		if err := clean(d); err != nil {
			return err
		}
	}
	if err := doc.GenMarkdownTree(root, mdDir); err != nil {
		return fmt.Errorf("markdown: %w", err)
	}
	header := &doc.GenManHeader{Title: "OFFSETCTL", Section: "1", Source: "offsetctl", Manual: "offsetctl manual", Date: &manDate}
	if err := doc.GenManTree(root, header, manDir); err != nil {
		return fmt.Errorf("man pages: %w", err)
	}
	// The help topics (offsetctl help connection, ...) are hidden
	// commands, which the trees skip: each gets its own page.
	for _, c := range root.Commands() {
		if c.Annotations[cli.HelpTopicAnnotation] == "" {
			continue
		}
		if err := doc.GenMarkdownTree(c, mdDir); err != nil {
			return fmt.Errorf("markdown: %w", err)
		}
		if err := doc.GenManTree(c, header, manDir); err != nil {
			return fmt.Errorf("man pages: %w", err)
		}
	}
	return nil
}

// disableAutoGenTag drops cobra's "Auto generated ... on <date>" line from
// every page: it would change on every run.
func disableAutoGenTag(c *cobra.Command) {
	c.DisableAutoGenTag = true
	for _, sub := range c.Commands() {
		disableAutoGenTag(sub)
	}
}

// clean empties the generated files out of d (creating it if missing), so
// a removed command does not leave its page behind.
func clean(d string) error {
	if err := os.MkdirAll(d, 0o755); err != nil {
		return err
	}
	for _, pattern := range []string{"*.md", "*.1"} {
		old, err := filepath.Glob(filepath.Join(d, pattern))
		if err != nil {
			return err
		}
		for _, f := range old {
			if err := os.Remove(f); err != nil {
				return err
			}
		}
	}
	return nil
}
