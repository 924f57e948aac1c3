//go:build unix

package testenv

import (
	"os/exec"
	"syscall"
	"time"
)

func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// signalGroup sends SIGTERM (or SIGKILL) to the process group pgid.
func signalGroup(_ *exec.Cmd, pgid int, kill bool) {
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	_ = syscall.Kill(-pgid, sig)
}

// ProcessAlive reports whether a process with this pid exists and is not a
// zombie (on Linux, read from /proc; elsewhere, signal 0).
func ProcessAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	if alive, ok := procAlive(pid); ok {
		return alive
	}
	return syscall.Kill(pid, 0) == nil
}

// CPUTime returns the user plus system CPU time this process has used so far.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
