package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mcphost/mcphost/internal/hosttest"
)

func TestMCPRemove(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	project := filepath.Join(e.work, ".mcphost.yaml")
	global := filepath.Join(e.global, "config.yaml")
	local := e.localFile()
	e.must(exitOK, "mcp", "add", "a", "-s", "project", "--command", "x")
	e.must(exitOK, "mcp", "add", "b", "-s", "project", "--command", "y")
	e.must(exitOK, "mcp", "add", "g", "--command", "z", "--scope", "global")
	e.must(exitOK, "mcp", "add", "l", "--command", "w")

	r := e.must(exitOK, "mcp", "remove", "a", "-s", "project")
	wantContains(t, "stdout", r.stdout, `removed server "a"`, project, "project scope")
	if l := e.listServers(); l["a"] != nil || l["b"] == nil || l["g"] == nil || l["l"] == nil {
		t.Errorf("after remove a: %v", l)
	}
	r = e.must(exitUsage, "mcp", "remove", "a", "-s", "project")
	wantContains(t, "stderr", r.stderr, `"a"`, project, `no server "a" is configured`)
	// g is in the user file, not in the project file: the message says where.
	r = e.must(exitUsage, "mcp", "remove", "g", "--scope", "project")
	wantContains(t, "stderr", r.stderr, `"g"`, project, "comes from "+global, "mcphost mcp disable g", "user scope")
	// Without --scope, from the one scope that has it; rm is remove.
	r = e.must(exitOK, "mcp", "rm", "g")
	wantContains(t, "stdout", r.stdout, global, "user scope")
	r = e.must(exitOK, "mcp", "remove", "l")
	wantContains(t, "stdout", r.stdout, local, "local scope")
	if l := e.listServers(); l["g"] != nil || l["l"] != nil {
		t.Errorf("after remove g, l: %v", l)
	}
	r = e.must(exitUsage, "mcp", "rm", "nope")
	wantContains(t, "stderr", r.stderr, `"nope"`, "mcphost mcp list")
	e.must(exitUsage, "mcp", "remove", "b", "--scope", "effective")

	// An id in two scopes: remove says which, and removes nothing.
	e.must(exitOK, "mcp", "add", "b", "--command", "mine")
	r = e.must(exitUsage, "mcp", "remove", "b")
	wantContains(t, "stderr", r.stderr, "local ("+local+")", "project ("+project+")", "--scope")
	e.must(exitOK, "mcp", "remove", "b", "-s", "local")
	if s := e.getServer("b"); s["command"] != "y" {
		t.Errorf("b after removing the local one: %v", s)
	}
}

// With no project file, remove -s project says so plainly, and where the
// server comes from.
func TestMCPRemoveWithoutProjectFile(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	global := filepath.Join(e.global, "config.yaml")
	e.must(exitOK, "mcp", "add", "g", "-s", "user", "--command", "z")
	r := e.must(exitUsage, "mcp", "remove", "g", "-s", "project")
	wantContains(t, "stderr", r.stderr, "no .mcphost.* in "+e.work, "nothing to remove", `server "g" comes from `+global,
		"mcphost mcp disable g", "user scope")
	if _, err := os.Stat(filepath.Join(e.work, ".mcphost.yaml")); err == nil {
		t.Error("remove created a project file")
	}
	writeFile(t, filepath.Join(e.work, ".mcp.json"), `{"mcpServers": {"cc": {"command": "c"}}}`)
	r = e.must(exitUsage, "mcp", "remove", "cc")
	wantContains(t, "stderr", r.stderr, "Claude Code's file", "mcphost mcp disable cc")
}

func TestMCPEnableDisable(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	project := filepath.Join(e.work, ".mcphost.yaml")
	global := filepath.Join(e.global, "config.yaml")
	local := e.localFile()
	ts := hosttest.BuildTestServer(t)
	e.must(exitOK, "mcp", "add", "p", "-s", "project", "--command", "x")
	e.must(exitOK, "mcp", "add", "g", "--scope", "global", "--command", ts)

	r := e.must(exitOK, "mcp", "disable", "p", "-s", "project")
	wantContains(t, "stdout", r.stdout, `disabled server "p"`, project)
	if l := e.listServers(); l["p"]["enabled"] != false {
		t.Errorf("p after disable: %v", l["p"])
	}
	e.must(exitOK, "mcp", "enable", "p", "--scope", "project")
	if l := e.listServers(); l["p"]["enabled"] != true {
		t.Errorf("p after enable: %v", l["p"])
	}

	// The user's server is ready before, and disabled by default in the
	// local scope: without copying it, without touching the user file or
	// the project file, and without any trust.
	globalBefore, projectBefore := readFile(t, global), readFile(t, project)
	servers := decodeJSON[[]map[string]any](t, e.must(exitOK, "servers", "--json"))
	if st := stateOf(servers, "g"); st != "ready" {
		t.Errorf("g before disable: %v", servers)
	}
	r = e.must(exitOK, "mcp", "disable", "g")
	wantContains(t, "stdout", r.stdout, `disabled server "g"`, local, "only you")
	if readFile(t, global) != globalBefore || readFile(t, project) != projectBefore {
		t.Errorf("disabling in the local scope changed a shared file")
	}
	if l := e.listServers(); l["g"]["enabled"] != false || l["g"]["source"] != local || l["g"]["command"] != ts {
		t.Errorf("g after local disable: %v", l["g"])
	}
	if l := e.listServers("--scope", "user"); l["g"]["enabled"] != true {
		t.Errorf("g in the user scope: %v", l["g"])
	}
	servers = decodeJSON[[]map[string]any](t, e.must(exitOK, "servers", "--json"))
	if st := stateOf(servers, "g"); st != "disabled" {
		t.Errorf("g after disable: %v", servers)
	}
	e.must(exitOK, "mcp", "enable", "g")
	servers = decodeJSON[[]map[string]any](t, e.must(exitOK, "servers", "--json"))
	if st := stateOf(servers, "g"); st != "ready" {
		t.Errorf("g after enable: %v", servers)
	}

	// A project override: disabling needs no trust; enabling writes
	// "enabled: true" there, which needs trust: the command says so.
	r = e.must(exitOK, "mcp", "disable", "g", "-s", "project")
	wantContains(t, "stdout", r.stdout, `disabled server "g"`, project)
	r = e.must(exitOK, "mcp", "enable", "g", "-s", "project")
	wantContains(t, "stdout", r.stdout, `enabled server "g"`, project, "mcphost trust")

	r = e.must(exitUsage, "mcp", "disable", "nope")
	wantContains(t, "stderr", r.stderr, `"nope"`)
	r = e.must(exitUsage, "mcp", "disable", "p", "--scope", "global")
	wantContains(t, "stderr", r.stderr, `"p"`, "local scope")
}

// A project's server switched on in the local scope takes its source from
// the local file, in the user's config directory: every "not trusted" hint
// still names the project, the directory to give "mcphost trust".
func TestMCPEnableProjectServerHintNamesProject(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	writeFile(t, filepath.Join(e.work, ".mcp.json"), `{"mcpServers": {"cc": {"command": "c", "enabled": false}}}`)
	want := `run "mcphost trust ` + e.work + `"`
	r := e.must(exitOK, "mcp", "enable", "cc")
	wantContains(t, "mcp enable stdout", r.stdout, e.localFile(), want)
	r = e.must(exitOK, "servers")
	wantContains(t, "servers stdout", r.stdout, "untrusted", want)
	r = e.must(exitUsage, "mcp", "test", "cc")
	wantContains(t, "mcp test stderr", r.stderr, want)
	for _, out := range []string{r.stdout + r.stderr, e.must(exitOK, "servers").stdout} {
		wantNotContains(t, "output", out, "trust "+filepath.Join(e.global, "local"))
	}
}

// mcp list and mcp get show a server's whole command line: an argument
// with a newline is written $'...\n...' (nothing hides on a line of its
// own), and the value after a --token-like flag is masked.
func TestMCPShowsCommandLinesWhole(t *testing.T) {
	e := newEnv(t)
	cfg := e.configFile(map[string]any{
		"lint": map[string]any{"command": "sh", "args": []any{"-c", "echo linting\ntouch pwned", "--api-key", "sk-live-0123456789"}},
	})
	r := e.must(exitOK, "--config", cfg, "mcp", "list")
	wantContains(t, "mcp list", r.stdout, `sh -c $'echo linting\ntouch pwned'`)
	wantNotContains(t, "mcp list", r.stdout, "sk-live-0123456789")
	r = e.must(exitOK, "--config", cfg, "mcp", "get", "lint")
	wantContains(t, "mcp get", r.stdout, `$'echo linting\ntouch pwned'`, "--api-key ****")
	wantNotContains(t, "mcp get", r.stdout, "sk-live-0123456789")
	r = e.must(exitOK, "--config", cfg, "--show-secrets", "mcp", "get", "lint")
	wantContains(t, "mcp get --show-secrets", r.stdout, "sk-live-0123456789")
}
