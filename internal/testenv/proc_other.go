//go:build !unix

package testenv

import (
	"os"
	"os/exec"
	"time"
)

func setProcessGroup(*exec.Cmd) {}

// signalGroup kills the process: there are no process groups here.
func signalGroup(cmd *exec.Cmd, _ int, _ bool) {
	_ = cmd.Process.Kill()
}

// ProcessAlive reports whether a process with this pid exists.
func ProcessAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	p.Release()
	return true
}

// CPUTime is not measured here: it returns 0.
func CPUTime() time.Duration { return 0 }

func listensOn(int, int) (owned, ok bool) { return false, false }
