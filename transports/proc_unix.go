//go:build unix

package transports

import (
	"os/exec"
	"syscall"
)

// setProcessGroup puts the child in a new process group whose id is its pid,
// so that signals reach everything it started (npx -> node -> ...).
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup sends sig to every process of the group pgid.
func killGroup(pgid int, sig syscall.Signal) {
	_ = syscall.Kill(-pgid, sig)
}

const (
	sigTerm = syscall.SIGTERM
	sigKill = syscall.SIGKILL
)
