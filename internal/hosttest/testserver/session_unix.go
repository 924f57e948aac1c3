//go:build unix

package main

import (
	"os/exec"
	"syscall"
)

// newSession starts cmd in a new session, as a daemon does (setsid).
func newSession(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }
