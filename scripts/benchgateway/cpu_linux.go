package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// clockTick is USER_HZ, the unit of the times in /proc/PID/stat: 100 on
// every Linux architecture Go supports.
const clockTick = time.Second / 100

// treeCPU returns the user+system CPU time used so far by pid (gateway)
// and, added up, by its descendants (backend): the live ones, and those
// that have exited and been waited for (counted in their parent's cutime
// and cstime), read from /proc.
func treeCPU(pid int) (gateway, backend time.Duration, ok bool) {
	type proc struct {
		ppid          int
		cpu, children time.Duration
	}
	procs := map[int]proc{}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, f := range stats {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ... utime(14) stime(15) cutime(16)
		// cstime(17); comm may hold spaces and ')'.
		i := strings.LastIndexByte(string(data), ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(string(data[i+1:]))
		if len(fields) < 15 {
			continue
		}
		p, err1 := strconv.Atoi(filepath.Base(filepath.Dir(f)))
		ppid, err2 := strconv.Atoi(fields[1])
		utime, err3 := strconv.ParseInt(fields[11], 10, 64)
		stime, err4 := strconv.ParseInt(fields[12], 10, 64)
		cutime, err5 := strconv.ParseInt(fields[13], 10, 64)
		cstime, err6 := strconv.ParseInt(fields[14], 10, 64)
		if err1 != nil || err2 != nil || err3 != nil || err4 != nil || err5 != nil || err6 != nil {
			continue
		}
		procs[p] = proc{ppid: ppid, cpu: time.Duration(utime+stime) * clockTick, children: time.Duration(cutime+cstime) * clockTick}
	}
	root, found := procs[pid]
	if !found {
		return 0, 0, false
	}
	children := map[int][]int{}
	for p, pr := range procs {
		children[pr.ppid] = append(children[pr.ppid], p)
	}
	backend = root.children
	queue := append([]int(nil), children[pid]...)
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		backend += procs[p].cpu + procs[p].children
		queue = append(queue, children[p]...)
	}
	return root.cpu, backend, true
}

// selfCPU returns the user+system CPU time this process used so far.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
