//go:build linux

package testenv

import (
	"bytes"
	"os"
	"strconv"
)

// procAlive reads /proc/pid/stat: a zombie (exited, not yet reaped by its
// parent) does not count as alive.
func procAlive(pid int) (alive, ok bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		if os.IsNotExist(err) {
			return false, true
		}
		return false, false
	}
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return false, false
	}
	f := bytes.Fields(data[i+1:])
	if len(f) == 0 {
		return false, false
	}
	s := f[0]
	return !(len(s) == 1 && (s[0] == 'Z' || s[0] == 'X')), true
}

// listensOn reports whether process pid holds a listening TCP socket on
// port (IPv4 or IPv6), from /proc/net/tcp{,6} and the process's open
// files. ok is false when that cannot be read.
func listensOn(pid, port int) (owned, ok bool) {
	inodes := map[string]bool{}
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		data, err := os.ReadFile(table)
		if err != nil {
			continue
		}
		for _, line := range bytes.Split(data, []byte("\n"))[1:] {
			f := bytes.Fields(line)
			if len(f) < 10 || string(f[3]) != "0A" { // 0A: LISTEN
				continue
			}
			_, hexPort, found := bytes.Cut(f[1], []byte(":"))
			if p, err := strconv.ParseUint(string(hexPort), 16, 32); !found || err != nil || int(p) != port {
				continue
			}
			inodes["socket:["+string(f[9])+"]"] = true
		}
	}
	fds, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/fd")
	if err != nil {
		return false, false
	}
	for _, fd := range fds {
		if target, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/fd/" + fd.Name()); err == nil && inodes[target] {
			return true, true
		}
	}
	return false, true
}
