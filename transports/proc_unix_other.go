//go:build unix && !linux

package transports

import "syscall"

// Without waitid(WNOWAIT) the leader is reaped first and the group is
// signalled afterwards; a pid reused within that instant is the accepted risk.
const canWaitNoReap = false

func waitExitNoReap(int) (string, bool) { return "", false }

func groupAlive(pgid int) bool { return syscall.Kill(-pgid, 0) == nil }
