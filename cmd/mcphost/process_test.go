//go:build linux

package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcphost/mcphost/internal/hosttest"
	"github.com/mcphost/mcphost/internal/testenv"
)

// buildMCPHost builds the mcphost binary into a temporary directory.
func buildMCPHost(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "mcphost")
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	cmd := exec.Command(goBin, "build", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// startMCPHost runs the mcphost binary with args in an empty home and
// working directory; done receives Wait's result.
func startMCPHost(t *testing.T, bin string, args ...string) (*exec.Cmd, <-chan error, *testenv.Buffer, *testenv.Buffer) {
	t.Helper()
	home := t.TempDir()
	cmd := exec.Command(bin, args...)
	cmd.Dir = t.TempDir()
	cmd.Env = []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "PATH=" + os.Getenv("PATH")}
	var stdout, stderr testenv.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	return cmd, done, &stdout, &stderr
}

// procStat returns the state letter and parent pid of pid from /proc, or
// ok=false when there is no such process.
func procStat(pid int) (state byte, ppid int, ok bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false
	}
	// pid (comm) state ppid ...; comm may contain spaces and ')'.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 2 || len(f[0]) != 1 {
		return 0, 0, false
	}
	ppid, _ = strconv.Atoi(f[1])
	return f[0][0], ppid, true
}

// alive reports whether pid is a running (not zombie) process whose command
// line contains exe, so that a reused pid does not count.
func alive(pid int, exe string) bool {
	state, _, ok := procStat(pid)
	if !ok || state == 'Z' || state == 'X' {
		return false
	}
	cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	return err == nil && bytes.Contains(cmdline, []byte(exe))
}

// mcphost exiting never leaves a server process behind: SIGTERM during a
// call to a server that ignores stdin EOF and has a grandchild ends mcphost
// gracefully, and the server and its grandchild are gone afterwards.
func TestSIGTERMLeavesNoServerBehind(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the mcphost binary")
	}
	t.Parallel()
	bin := buildMCPHost(t)
	ts := hosttest.BuildTestServer(t)
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	cfg := writeFile(t, filepath.Join(dir, "mcphost.json"), configJSON(t, map[string]any{
		"ts": map[string]any{"command": ts, "args": []string{"-spawn-child", "-ignore-stdin-eof", "-child-pid-file", pidFile}},
	}))
	cmd, done, stdout, stderr := startMCPHost(t, bin, "--config", cfg, "--log-level", "info", "call", "ts:slow", "--args", `{"ms":600000}`)
	exited := false
	t.Cleanup(func() {
		if !exited {
			_ = cmd.Process.Kill()
			<-done
		}
	})

	// Wait until the server has started its grandchild and mcphost is
	// connected (the call follows at once).
	var childPID int
	deadline := time.Now().Add(failAfter)
	for {
		if b, err := os.ReadFile(pidFile); err == nil {
			childPID, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
		if childPID > 0 && strings.Contains(stderr.String(), "connected") {
			break
		}
		select {
		case err := <-done:
			exited = true
			t.Fatalf("mcphost exited before the signal (%v):\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server did not start within %s:\nstderr:\n%s", failAfter, stderr.String())
		}
	}
	_, serverPID, ok := procStat(childPID)
	if !ok || !alive(serverPID, ts) || !alive(childPID, ts) {
		t.Fatalf("server %d and grandchild %d should be running", serverPID, childPID)
	}
	// If the test fails, do not leave the processes it started behind.
	t.Cleanup(func() {
		if alive(serverPID, ts) {
			_ = syscall.Kill(-serverPID, syscall.SIGKILL)
		}
		if alive(childPID, ts) {
			_ = syscall.Kill(childPID, syscall.SIGKILL)
		}
	})

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		exited = true
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatalf("wait: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatalf("mcphost still running 15s after SIGTERM:\nstderr:\n%s", stderr.String())
	}
	if ps := cmd.ProcessState; !ps.Exited() || ps.ExitCode() != exitInterrupted {
		t.Errorf("mcphost ended with %v, want exit status 130 (a handled signal):\nstderr:\n%s", ps, stderr.String())
	}
	wantContains(t, "stderr", stderr.String(), "interrupted")
	if stdout.String() != "" {
		t.Errorf("stdout = %q", stdout.String())
	}

	deadline = time.Now().Add(15 * time.Second)
	for alive(serverPID, ts) || alive(childPID, ts) {
		if time.Now().After(deadline) {
			t.Fatalf("after mcphost exited: server %d alive %v, grandchild %d alive %v",
				serverPID, alive(serverPID, ts), childPID, alive(childPID, ts))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A server that never answers initialize is killed at its startup_timeout:
// after a one-shot command it is gone (with its grandchild), although it
// ignores stdin EOF and SIGTERM; the command made one attempt, said which
// server failed and exited 1. Ctrl-C while such a server is starting ends
// mcphost with 130, naming the server, and leaves nothing behind either.
func TestHungServerLeavesNothingBehind(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the mcphost binary")
	}
	t.Parallel()
	bin := buildMCPHost(t)
	ts := hosttest.BuildTestServer(t)
	for _, interrupt := range []bool{false, true} {
		dir := t.TempDir()
		pidFile := filepath.Join(dir, "child.pid")
		cfg := writeFile(t, filepath.Join(dir, "mcphost.json"), configJSON(t, map[string]any{
			"hung": map[string]any{"command": ts, "startup_timeout": "1s",
				"args": []string{"-hang-initialize", "-ignore-stdin-eof", "-ignore-sigterm", "-spawn-child", "-child-pid-file", pidFile}},
		}))
		if interrupt {
			// Long enough that only the interrupt ends the start.
			cfg = writeFile(t, cfg, strings.Replace(readFile(t, cfg), `"1s"`, `"10m"`, 1))
		}
		cmd, done, stdout, stderr := startMCPHost(t, bin, "--config", cfg, "servers")
		var childPID int
		deadline := time.Now().Add(failAfter)
		for childPID == 0 {
			if b, err := os.ReadFile(pidFile); err == nil {
				childPID, _ = strconv.Atoi(strings.TrimSpace(string(b)))
			}
			if time.Now().After(deadline) {
				_ = cmd.Process.Kill()
				t.Fatalf("the server did not start:\n%s", stderr.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
		_, serverPID, _ := procStat(childPID)
		t.Cleanup(func() {
			if alive(childPID, ts) {
				_ = syscall.Kill(childPID, syscall.SIGKILL)
			}
			if serverPID > 1 && alive(serverPID, ts) {
				_ = syscall.Kill(serverPID, syscall.SIGKILL)
			}
		})
		if interrupt {
			if err := cmd.Process.Signal(os.Interrupt); err != nil {
				t.Fatal(err)
			}
		}
		select {
		case <-done:
		case <-time.After(failAfter):
			_ = cmd.Process.Kill()
			t.Fatalf("mcphost did not end:\n%s", stderr.String())
		}
		want, says := exitFailure, "1 of 1 servers did not start: hung"
		if interrupt {
			want, says = exitInterrupted, "interrupted while connecting to hung"
		}
		if code := cmd.ProcessState.ExitCode(); code != want {
			t.Errorf("interrupt %v: exit %d, want %d:\n%s", interrupt, code, want, stderr.String())
		}
		wantContains(t, "stderr", stderr.String(), says)
		if !interrupt {
			wantContains(t, "stdout", stdout.String(), "startup_timeout")
		}
		deadline = time.Now().Add(failAfter)
		for alive(childPID, ts) || (serverPID > 1 && alive(serverPID, ts)) {
			if time.Now().After(deadline) {
				t.Fatalf("interrupt %v: after mcphost exited, server %d or its grandchild %d is still running", interrupt, serverPID, childPID)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// --args @FILE reads a regular file only: a FIFO (which would block for
// ever) or a device is refused at once, naming the file.
func TestArgsFileMustBeRegular(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	fifo := filepath.Join(t.TempDir(), "args.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{fifo, "/dev/zero"} {
		r := e.must(exitUsage, "call", "x:y", "--args", "@"+f)
		wantContains(t, "stderr", r.stderr, f, "not a regular file")
	}
}
