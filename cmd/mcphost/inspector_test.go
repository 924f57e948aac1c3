//go:build linux

package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcphost/mcphost/internal/hosttest"
	"github.com/mcphost/mcphost/internal/testenv"
)

// The MCP Inspector's CLI (npm @modelcontextprotocol/inspector, a client
// built on the TypeScript SDK that this project does not control) lists and
// calls the backends' tools through "mcphost serve": over stdio, where the
// Inspector starts the mcphost binary itself, and over Streamable HTTP at
// /mcp of a "mcphost serve --http" started here.
func TestInspectorCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the mcphost binary and runs the npm MCP Inspector")
	}
	t.Parallel()
	npmBin := testenv.NPMBin(t)
	inspector := filepath.Join(npmBin, "mcp-inspector")
	if fi, err := os.Stat(inspector); err != nil || fi.Mode()&0o111 == 0 {
		testenv.Missing(t, "%s not found: run scripts/npm-deps.sh to install the MCP Inspector (or set %s)", inspector, testenv.EnvNPMBin)
	}
	bin := buildMCPHost(t) // once for both subtests
	ts := hosttest.BuildTestServer(t)

	t.Run("stdio", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		cfg := writeFile(t, filepath.Join(dir, "mcphost.json"), configJSON(t, map[string]any{
			"local": map[string]any{"command": ts},
		}))
		// The Inspector's launcher has a --config flag of its own, which
		// would take mcphost's "--config FILE" from the command line: the
		// command goes into an Inspector servers file instead (its
		// documented --config/--server mode).
		servers, err := json.Marshal(map[string]any{"mcpServers": map[string]any{
			"gateway": map[string]any{"command": bin, "args": []string{"serve", "--config", cfg}},
		}})
		if err != nil {
			t.Fatal(err)
		}
		inspectorCfg := writeFile(t, filepath.Join(dir, "inspector.json"), string(servers))
		target := []string{"--config", inspectorCfg, "--server", "gateway"}
		inspectorListAndCall(t, inspector, npmBin, target, "mcp__local__echo", "through mcphost over stdio")
	})

	t.Run("http", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		// names.scheme "tool": the backend's bare tool names.
		b, err := json.Marshal(map[string]any{
			"servers": map[string]any{"local": map[string]any{"command": ts}},
			"names":   map[string]any{"scheme": "tool"},
		})
		if err != nil {
			t.Fatal(err)
		}
		cfg := writeFile(t, filepath.Join(dir, "mcphost.json"), string(b))
		addr := startServeHTTP(t, bin, "--config", cfg)
		target := []string{"http://" + addr + "/mcp", "--transport", "http"}
		inspectorListAndCall(t, inspector, npmBin, target, "echo", "through mcphost over Streamable HTTP")
	})
}

// inspectorListAndCall runs the Inspector CLI against target twice: it lists
// the tools, expecting tool among them, and calls tool with text, expecting
// the text back.
func inspectorListAndCall(t *testing.T, inspector, npmBin string, target []string, tool, text string) {
	t.Helper()
	out := runInspector(t, inspector, npmBin, append(append([]string{}, target...), "--method", "tools/list")...)
	var list struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("tools/list: the Inspector printed no JSON (%v):\n%s", err, out)
	}
	var names []string
	found := false
	for _, tl := range list.Tools {
		names = append(names, tl.Name)
		found = found || tl.Name == tool
	}
	if !found {
		t.Fatalf("tools/list: no %s among %v", tool, names)
	}

	out = runInspector(t, inspector, npmBin, append(append([]string{}, target...),
		"--method", "tools/call", "--tool-name", tool, "--tool-arg", "text="+text)...)
	var res struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("tools/call: the Inspector printed no JSON (%v):\n%s", err, out)
	}
	if res.IsError || len(res.Content) != 1 || res.Content[0].Type != "text" || res.Content[0].Text != text {
		t.Fatalf("tools/call %s: want the text %q back, got:\n%s", tool, text, out)
	}
}

// runInspector runs "mcp-inspector --cli args..." with the project-local
// Node first in PATH, in an empty home (so an mcphost it starts reads no
// user configuration), bounded by failAfter, and returns its stdout. The
// Inspector and whatever it started are in their own process group, killed
// when the deadline passes or the test ends.
func runInspector(t *testing.T, inspector, npmBin string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), failAfter)
	defer cancel()
	home := t.TempDir()
	cmd := exec.CommandContext(ctx, inspector, append([]string{"--cli"}, args...)...)
	// The Inspector reads ../package.json relative to its working directory
	// when there is one: run it where there is none.
	cmd.Dir = t.TempDir()
	cmd.Env = []string{
		"PATH=" + testenv.PathWith(npmBin),
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	var stdout, stderr testenv.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", inspector, err)
	}
	pgid := cmd.Process.Pid
	// Nothing the Inspector started outlives the test.
	t.Cleanup(func() { _ = syscall.Kill(-pgid, syscall.SIGKILL) })
	err := cmd.Wait()
	if ctx.Err() != nil {
		t.Fatalf("mcp-inspector --cli %s did not finish within %s:\nstdout:\n%s\nstderr:\n%s",
			strings.Join(args, " "), failAfter, stdout.String(), stderr.String())
	}
	if err != nil {
		t.Fatalf("mcp-inspector --cli %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String()
}

// startServeHTTP starts "mcphost serve --http 127.0.0.1:0 args..." as a
// child process in an empty home and returns the address it prints on
// stderr. When the test ends it is sent SIGTERM (so that it stops its
// servers), then killed with its process group if it has not exited.
func startServeHTTP(t *testing.T, bin string, args ...string) string {
	t.Helper()
	return startServe(t, bin, args...).addr
}

// served is a running "mcphost serve --http".
type served struct {
	addr   string
	pgid   int           // its process group: mcphost and its backends
	exited chan struct{} // closed when mcphost has exited
}

// kill ends the gateway and its backends at once (SIGKILL), as a crash,
// and returns when it is gone: no request of the test races its end.
func (s served) kill(t *testing.T) {
	t.Helper()
	_ = syscall.Kill(-s.pgid, syscall.SIGKILL)
	select {
	case <-s.exited:
	case <-time.After(failAfter):
		t.Fatalf("mcphost serve still running %s after SIGKILL", failAfter)
	}
}

func startServe(t *testing.T, bin string, args ...string) served {
	t.Helper()
	home := t.TempDir()
	cmd := exec.Command(bin, append([]string{"serve", "--http", "127.0.0.1:0"}, args...)...)
	cmd.Dir = t.TempDir()
	cmd.Env = []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "PATH=" + os.Getenv("PATH")}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var stderr testenv.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var waitErr error
	exited := make(chan struct{})
	go func() { waitErr = cmd.Wait(); close(exited) }()
	pgid := cmd.Process.Pid
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(failAfter):
			t.Errorf("mcphost serve did not exit after SIGTERM:\n%s", stderr.String())
		}
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	})

	deadline := time.After(failAfter)
	for {
		if m := servingAddr.FindStringSubmatch(stderr.String()); m != nil {
			return served{addr: m[1], pgid: pgid, exited: exited}
		}
		select {
		case <-exited:
			err := waitErr
			t.Fatalf("mcphost serve exited (%v) before serving:\n%s", err, stderr.String())
		case <-deadline:
			t.Fatalf("mcphost serve named no address within %s:\n%s", failAfter, stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
}
