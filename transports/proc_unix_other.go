//go:build unix && !linux

package transports

import "syscall"

// Without waitid(WNOWAIT) the leader is reaped first and the group is
// signalled afterwards; a pid reused within that instant is the accepted risk.
const canWaitNoReap = false

func waitExitNoReap(int) (string, bool) { return "", false }

func groupAlive(pgid int) bool { return syscall.Kill(-pgid, 0) == nil }

// becomeSubreaper: only Linux has child subreapers; elsewhere a server's
// daemonized descendants that left its process group are found by their
// environment token only while mcphost can still see them.
func becomeSubreaper() {}

// killTokenHolders: not available without /proc; the process group is what
// mcphost ends.
func killTokenHolders(string, int) int { return 0 }
