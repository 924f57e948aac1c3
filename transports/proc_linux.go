//go:build linux

package transports

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"
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

// prSetChildSubreaper is PR_SET_CHILD_SUBREAPER (linux/prctl.h).
const prSetChildSubreaper = 36

var subreaperOnce sync.Once

// becomeSubreaper makes this process the child subreaper of everything it
// starts (see BecomeSubreaper). Done once.
func becomeSubreaper() {
	subreaperOnce.Do(func() {
		_, _, _ = syscall.RawSyscall6(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0, 0, 0, 0)
	})
}

// killTokenHolders ends every process whose environment carries
// tokenVar=token (everything one server started, however it detached:
// daemons leave the process group but keep the environment), except pid
// except (the server itself, which its reaper waits for). Processes that
// mcphost adopted as subreaper are reaped. It returns how many it killed.
func killTokenHolders(token string, except int) int {
	d, err := os.Open("/proc")
	if err != nil {
		return 0
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	want := []byte(tokenVar + "=" + token + "\x00")
	self := os.Getpid()
	killed := 0
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err != nil || pid == except || pid == self {
			continue
		}
		if zombieChild(pid, self) && !isLeader(pid) {
			// Adopted (as subreaper) and already dead, say a process of a
			// server's group killed after the server: reap it, or it stays
			// a zombie as long as mcphost runs.
			reapAdopted(pid)
			continue
		}
		env, err := os.ReadFile("/proc/" + n + "/environ")
		if err != nil || !bytes.Contains(append(env, 0), want) {
			continue
		}
		if syscall.Kill(pid, syscall.SIGKILL) != nil {
			continue
		}
		killed++
		if parentOf(pid) == self {
			reapAdopted(pid)
		}
	}
	return killed
}

// zombieChild reports whether pid is a zombie whose parent is self.
func zombieChild(pid, self int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return false
	}
	f := bytes.Fields(data[i+1:])
	if len(f) < 2 || len(f[0]) != 1 || f[0][0] != 'Z' {
		return false
	}
	ppid, _ := strconv.Atoi(string(f[1]))
	return ppid == self
}

func parentOf(pid int) int {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0
	}
	f := bytes.Fields(data[i+1:])
	if len(f) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(string(f[1]))
	return ppid
}

// reapAdopted waits (briefly) for an adopted process mcphost killed, so it
// does not stay a zombie. Only pids found by their token are waited for:
// never a server's own process, whose exec.Cmd waits for it.
func reapAdopted(pid int) {
	deadline := time.Now().Add(killWait)
	for time.Now().Before(deadline) {
		var ws syscall.WaitStatus
		got, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
		if got == pid || err != nil {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}
