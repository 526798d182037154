//go:build !linux

package semantics

import "os/exec"

// dieWithParent: only Linux has a parent-death signal; elsewhere a worker
// of a parent killed outright runs to its crash point (see launcher_linux.go).
func dieWithParent(*exec.Cmd) {}
