//go:build linux

package transports_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcphost/mcphost/internal/testenv"
	"github.com/mcphost/mcphost/transports"
)

// A daemon a server starts (setsid and a double fork: out of the process
// group, orphaned) is adopted by mcphost, the child subreaper, and ended
// when the server ends: nothing is left behind.
func TestStdioDaemonIsEnded(t *testing.T) {
	transports.BecomeSubreaper() // as the mcphost command does
	pidFile := filepath.Join(t.TempDir(), "daemon.pid")
	tr := newStdio(t, stdioSpec(t, "daemonizer", "-daemonize", pidFile), fastClose)
	conn, err := tr.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	deadline := time.Now().Add(bound)
	for pid == 0 {
		if data, err := os.ReadFile(pidFile); err == nil {
			pid, _ = strconv.Atoi(strings.TrimSpace(string(data)))
		}
		if time.Now().After(deadline) {
			conn.Close()
			t.Fatal("the daemon did not start")
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Cleanup(func() {
		if testenv.ProcessAlive(pid) {
			p, _ := os.FindProcess(pid)
			p.Kill()
		}
	})
	if ppid := parentPID(t, pid); ppid != os.Getpid() {
		t.Errorf("the daemon's parent is %d, want mcphost (%d) as its subreaper", ppid, os.Getpid())
	}
	if err := conn.Close(); err != nil {
		t.Fatal(err)
	}
	deadline = time.Now().Add(bound)
	for testenv.ProcessAlive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("the daemon %d outlived its server", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func parentPID(t *testing.T, pid int) int {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	f := bytes.Fields(data[bytes.LastIndexByte(data, ')')+1:])
	ppid, _ := strconv.Atoi(string(f[1]))
	return ppid
}
