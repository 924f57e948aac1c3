//go:build !unix

package transports

import (
	"os"
	"os/exec"
)

// Platforms without process groups: only the direct child is signalled.

const canWaitNoReap = false

type signal int

const (
	sigTerm signal = iota
	sigKill
)

func setProcessGroup(*exec.Cmd) {}

func killGroup(pid int, _ signal) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}

func waitExitNoReap(int) (string, bool) { return "", false }

func groupAlive(int) bool { return false }

func becomeSubreaper() {}

func killTokenHolders(string, int) int { return 0 }
