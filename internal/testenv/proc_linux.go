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
