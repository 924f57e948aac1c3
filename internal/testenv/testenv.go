// Package testenv finds what end-to-end tests need outside Go: the npm MCP
// servers and the Node that runs them (installed by scripts/npm-deps.sh into
// testdata/npm), free ports, and child processes that are always cleaned up.
package testenv

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Environment variables read by this package.
const (
	// EnvNPMBin overrides the folder holding the npm binaries.
	EnvNPMBin = "MCPHOST_NPM_BIN"
	// EnvRequireE2E makes missing end-to-end prerequisites fail the test
	// instead of skipping it (as CI does).
	EnvRequireE2E = "MCPHOST_REQUIRE_E2E"
)

// npmBins are the executables NPMBin promises.
var npmBins = []string{"node", "mcp-server-everything", "mcp-server-filesystem", "mcp-server-memory", "conformance"}

// Required reports whether missing prerequisites must fail tests rather
// than skip them: MCPHOST_REQUIRE_E2E or CI is set.
func Required() bool {
	return os.Getenv(EnvRequireE2E) != "" || os.Getenv("CI") != ""
}

// Missing ends the test because a prerequisite is missing: t.Fatalf when
// Required, t.Skip otherwise.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if Required() {
		t.Fatalf("%s (%s or CI is set, so this fails instead of skipping)", msg, EnvRequireE2E)
	}
	t.Skip(msg)
}

// ModuleRoot returns the directory holding go.mod, found by walking up from
// the working directory (a test runs in its package's directory).
func ModuleRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatalf("testenv: %v", err)
	}
	for {
		if fi, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil && !fi.IsDir() {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatalf("testenv: no go.mod above the working directory")
		}
		dir = parent
	}
}

// NPMBin returns the absolute path of the folder with the npm binaries
// (node, mcp-server-everything, mcp-server-filesystem, mcp-server-memory,
// conformance): $MCPHOST_NPM_BIN, else testdata/npm/node_modules/.bin under
// the module root. When one is missing the test is skipped, or fails when
// Required.
func NPMBin(t testing.TB) string {
	t.Helper()
	dir := os.Getenv(EnvNPMBin)
	if dir == "" {
		dir = filepath.Join(ModuleRoot(t), "testdata", "npm", "node_modules", ".bin")
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	for _, name := range npmBins {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
			Missing(t, "testenv: %s not found in %s: run scripts/npm-deps.sh to install the npm test servers (or set %s)", name, dir, EnvNPMBin)
		}
	}
	if err := checkNode(dir); err != nil {
		Missing(t, "testenv: %v: run scripts/npm-deps.sh to install the npm test servers and Node 22 (or set %s)", err, EnvNPMBin)
	}
	return dir
}

// minNodeMajor is the oldest Node the npm servers and the conformance suite run on.
const minNodeMajor = 22

var nodeChecks sync.Map // dir -> error (nil when fine)

// checkNode runs dir/node --version once per dir and checks the major version.
func checkNode(dir string) error {
	if v, ok := nodeChecks.Load(dir); ok {
		err, _ := v.(error)
		return err
	}
	err := func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, filepath.Join(dir, "node"), "--version").Output()
		if err != nil {
			return fmt.Errorf("%s --version: %v", filepath.Join(dir, "node"), err)
		}
		v := strings.TrimSpace(string(out))
		major, _, _ := strings.Cut(strings.TrimPrefix(v, "v"), ".")
		if n, err := strconv.Atoi(major); err != nil || n < minNodeMajor {
			return fmt.Errorf("node in %s is %q, need >= %d", dir, v, minNodeMajor)
		}
		return nil
	}()
	nodeChecks.Store(dir, err)
	return err
}

// PathWith returns a PATH value with dir first, followed by the current PATH.
func PathWith(dir string) string {
	if p := os.Getenv("PATH"); p != "" {
		return dir + string(os.PathListSeparator) + p
	}
	return dir
}

// Env returns os.Environ() with the npm bin folder first in PATH, so the
// servers' "#!/usr/bin/env node" finds the Node >= 22 installed there.
func Env(t testing.TB) []string {
	t.Helper()
	return EnvWith(os.Environ(), "PATH", PathWith(NPMBin(t)))
}

// ServerEnv returns the environment entries to put in a stdio
// config.Server's Env (merged over the host's environment): PATH with the
// npm bin folder first, plus extra (pairs of key, value).
func ServerEnv(t testing.TB, extra ...string) map[string]string {
	t.Helper()
	env := map[string]string{"PATH": PathWith(NPMBin(t))}
	for i := 0; i+1 < len(extra); i += 2 {
		env[extra[i]] = extra[i+1]
	}
	return env
}

// EnvWith returns environ with key set to value.
func EnvWith(environ []string, key, value string) []string {
	out := make([]string, 0, len(environ)+1)
	for _, kv := range environ {
		if k, _, _ := strings.Cut(kv, "="); k != key {
			out = append(out, kv)
		}
	}
	return append(out, key+"="+value)
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago.
// Another process may take it before it is used: callers that start a server
// on it should retry with another port when the server cannot bind.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("testenv: free port: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// Process is a child process started by StartProcess in its own process
// group. The whole group is killed when the test ends.
type Process struct {
	Cmd *exec.Cmd

	mu     sync.Mutex
	output strings.Builder
	exited chan struct{}
	err    error
}

// Output returns what the process wrote to stdout and stderr so far.
func (p *Process) Output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.output.String()
}

// Exited is closed when the process has exited.
func (p *Process) Exited() <-chan struct{} { return p.exited }

func (p *Process) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.output.Len() < 1<<20 {
		p.output.Write(b)
	}
	return len(b), nil
}

// StartProcess starts name with args and env in a new process group and
// registers a cleanup that kills the group (SIGTERM, then SIGKILL) and waits
// for the process. Its output is kept for Output.
func StartProcess(t testing.TB, env []string, name string, args ...string) *Process {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = env
	setProcessGroup(cmd)
	p := &Process{Cmd: cmd, exited: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = p, p
	if err := cmd.Start(); err != nil {
		t.Fatalf("testenv: start %s: %v", name, err)
	}
	go func() {
		err := cmd.Wait()
		p.mu.Lock()
		p.err = err
		p.mu.Unlock()
		close(p.exited)
	}()
	t.Cleanup(func() { p.stop(t) })
	return p
}

// stop kills the process group and waits for the leader (bounded).
func (p *Process) stop(t testing.TB) {
	pgid := p.Cmd.Process.Pid
	signalGroup(p.Cmd, pgid, false)
	select {
	case <-p.exited:
	case <-time.After(5 * time.Second):
	}
	// Whatever is left in the group (the leader, or its children) is killed.
	signalGroup(p.Cmd, pgid, true)
	select {
	case <-p.exited:
	case <-time.After(10 * time.Second):
		t.Errorf("testenv: process %d did not exit after SIGKILL", pgid)
	}
}

// WaitPort waits until addr accepts TCP connections, the process exits, or
// timeout passes. It returns an error with the process output when the
// server did not come up.
func (p *Process) WaitPort(addr string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var d net.Dialer
	for {
		c, err := d.DialContext(ctx, "tcp", addr)
		if err == nil {
			// A dial of a loopback port nobody listens on can connect to
			// itself (TCP simultaneous open, when the kernel picks the
			// same port as the source): that is not the server.
			self := c.LocalAddr().String() == c.RemoteAddr().String()
			c.Close()
			if !self && p.listens(addr) {
				return nil
			}
		}
		select {
		case <-p.exited:
			p.mu.Lock()
			werr := p.err
			p.mu.Unlock()
			return fmt.Errorf("%w (%v); output:\n%s", errExited, werr, p.Output())
		case <-ctx.Done():
			return fmt.Errorf("%s not accepting connections after %s; output:\n%s", addr, timeout, p.Output())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// listens reports whether the listener at addr is the process's own, where
// that can be told (Linux): a dial can also reach another process that
// holds the port for a moment (a free-port probe of a test running in
// parallel), before the server listens.
func (p *Process) listens(addr string) bool {
	_, portText, err := net.SplitHostPort(addr)
	port, perr := strconv.Atoi(portText)
	if err != nil || perr != nil || p.Cmd.Process == nil {
		return true
	}
	owned, ok := listensOn(p.Cmd.Process.Pid, port)
	return owned || !ok
}

var errExited = errors.New("process exited before accepting connections")

// StartNPMHTTPServer starts an npm server binary (from NPMBin) that listens on
// the port given in the PORT env var, on a free port, and waits (bounded)
// until 127.0.0.1:port accepts connections. It retries with another port if
// the server exits at start (the port was taken meanwhile). It returns the
// base URL http://127.0.0.1:port and the process; the process group is
// killed when the test ends.
func StartNPMHTTPServer(t testing.TB, bin string, args ...string) (string, *Process) {
	t.Helper()
	dir := NPMBin(t)
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		port := FreePort(t)
		env := EnvWith(Env(t), "PORT", strconv.Itoa(port))
		p := StartProcess(t, env, filepath.Join(dir, bin), args...)
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		err := p.WaitPort(addr, 60*time.Second)
		if err == nil {
			return "http://" + addr, p
		}
		lastErr = err
		if !errors.Is(err, errExited) {
			break
		}
		p.stop(t)
	}
	t.Fatalf("testenv: %s %s: %v", bin, strings.Join(args, " "), lastErr)
	return "", nil
}
