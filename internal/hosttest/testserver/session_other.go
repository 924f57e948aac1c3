//go:build !unix

package main

import "os/exec"

// newSession: no sessions here; the daemon is only detached by the exit
// of its parent.
func newSession(*exec.Cmd) {}
