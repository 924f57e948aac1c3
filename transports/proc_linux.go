//go:build linux

package transports

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"unsafe"
)

// canWaitNoReap reports that waitExitNoReap works here: the group can be
// cleaned up while the exited leader is still a zombie, so its pid (the
// group id) cannot be reused by an unrelated process while we signal it.
const canWaitNoReap = true

// waitExitNoReap blocks until process pid exits and describes how, without
// reaping it (waitid with WNOWAIT).
func waitExitNoReap(pid int) (string, bool) {
	var info [128]byte // siginfo_t
	for {
		_, _, errno := syscall.Syscall6(syscall.SYS_WAITID, 1 /* P_PID */, uintptr(pid),
			uintptr(unsafe.Pointer(&info[0])), syscall.WEXITED|syscall.WNOWAIT, 0, 0)
		if errno == syscall.EINTR {
			continue
		}
		if errno != 0 {
			return "", false
		}
		break
	}
	// siginfo_t: si_signo, si_errno, si_code (int32 each), then the union,
	// aligned like a pointer; for SIGCHLD it starts with pid, uid, status.
	code := *(*int32)(unsafe.Pointer(&info[8]))
	off := 12
	if unsafe.Sizeof(uintptr(0)) == 8 {
		off = 16
	}
	status := *(*int32)(unsafe.Pointer(&info[off+8]))
	switch code {
	case 1: // CLD_EXITED
		return describeExitCode(int(status)), true
	case 2, 3: // CLD_KILLED, CLD_DUMPED
		return fmt.Sprintf("killed by signal %d (%s)", status, syscall.Signal(status)), true
	}
	return "", true
}

// groupAlive reports whether a process other than a zombie is in group pgid.
// kill(-pgid, 0) cannot tell: the exited leader (not reaped yet) and orphans
// waiting for an init that does not reap (as in some containers) are zombies
// that still count as members.
func groupAlive(pgid int) bool {
	d, err := os.Open("/proc")
	if err != nil {
		return syscall.Kill(-pgid, 0) == nil
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	want := []byte(strconv.Itoa(pgid))
	for _, n := range names {
		if n == "" || n[0] < '0' || n[0] > '9' {
			continue
		}
		data, err := os.ReadFile("/proc/" + n + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...; comm may contain spaces and ')'.
		i := bytes.LastIndexByte(data, ')')
		if i < 0 {
			continue
		}
		f := bytes.Fields(data[i+1:])
		if len(f) < 3 || !bytes.Equal(f[2], want) {
			continue
		}
		if s := f[0]; len(s) == 1 && (s[0] == 'Z' || s[0] == 'X') {
			continue
		}
		return true
	}
	return false
}
