package gctune

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// cgroupMemoryLimit is the memory limit of this process's cgroup (v2, or
// v1's memory controller), 0 when there is none or it cannot be read.
func cgroupMemoryLimit() uint64 {
	f, err := os.Open("/proc/self/cgroup")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// "0::/path" (v2) or "N:memory:/path" (v1).
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		switch {
		case parts[0] == "0" && parts[1] == "":
			if n := readLimit(filepath.Join("/sys/fs/cgroup", parts[2], "memory.max")); n > 0 {
				return n
			}
		case strings.Contains(","+parts[1]+",", ",memory,"):
			if n := readLimit(filepath.Join("/sys/fs/cgroup/memory", parts[2], "memory.limit_in_bytes")); n > 0 {
				return n
			}
		}
	}
	return 0
}

// readLimit reads a cgroup limit file: a number of bytes, or "max" (none).
// v1 says "none" with a number near the largest int64.
func readLimit(path string) uint64 {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	n, err := strconv.ParseUint(strings.TrimSpace(string(data)), 10, 64)
	if err != nil || n >= 1<<62 {
		return 0
	}
	return n
}
