package semantics

import (
	"os/exec"
	"syscall"
)

// dieWithParent has the kernel SIGKILL the worker when the process that
// started it dies, whatever killed it: a parent ended by kill -9 (no
// Ctrl-C, no cleanup) left its workers running against the cluster as
// live members of the experiment's groups until their crash point.
func dieWithParent(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
