package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcphost/mcphost/internal/hosttest"
)

// getServer returns `mcp get ID --json`.
func (e *testEnv) getServer(id string) map[string]any {
	e.t.Helper()
	return decodeJSON[map[string]any](e.t, e.must(exitOK, "mcp", "get", id, "--json"))
}

// listServers returns `mcp list --json` (with extra flags) by id.
func (e *testEnv) listServers(flags ...string) map[string]map[string]any {
	e.t.Helper()
	r := e.must(exitOK, append([]string{"mcp", "list", "--json"}, flags...)...)
	out := map[string]map[string]any{}
	for _, s := range decodeJSON[[]map[string]any](e.t, r) {
		out[s["id"].(string)] = s
	}
	return out
}

func strs(v any) []string {
	var out []string
	list, _ := v.([]any)
	for _, x := range list {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestMCPAdd(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	project := filepath.Join(e.work, ".mcphost.yaml")
	global := filepath.Join(e.global, "config.yaml")

	r := e.must(exitOK, "mcp", "add", "flags", "-s", "project", "--command", "srv", "--arg", "one", "--arg", "two words", "--env", "MODE=test", "--cwd", "sub", "--request-timeout", "90s")
	wantContains(t, "stdout", r.stdout, `added server "flags"`, project, "mcphost trust")
	s := e.getServer("flags")
	if s["command"] != "srv" || !slices.Equal(strs(s["args"]), []string{"one", "two words"}) || s["transport"] != "stdio" ||
		s["source"] != project || s["request_timeout"] != "1m30s" || s["untrusted"] != true || s["enabled"] != true {
		t.Errorf("flags = %v", s)
	}

	// Everything after -- is the command, flags included.
	e.must(exitOK, "mcp", "add", "dash", "--scope", "project", "--", "npx", "-y", "--quiet", "@scope/pkg")
	s = e.getServer("dash")
	if s["command"] != "npx" || !slices.Equal(strs(s["args"]), []string{"-y", "--quiet", "@scope/pkg"}) {
		t.Errorf("dash = %v", s)
	}

	e.must(exitOK, "mcp", "add", "remote", "--scope", "project", "--url", "https://example.com/mcp", "--header", "Authorization=Bearer ${TOKEN}", "--header", "X-Team=core")
	s = e.getServer("remote")
	if s["url"] != "https://example.com/mcp" || s["transport"] != "http" {
		t.Errorf("remote = %v", s)
	}
	if h, _ := s["headers"].(map[string]any); len(h) != 2 || h["X-Team"] == nil {
		t.Errorf("remote headers = %v", s["headers"])
	}
	wantContains(t, "project file", readFile(t, project), "${TOKEN}", "X-Team")

	e.must(exitOK, "mcp", "add", "ws", "--url", "ws://127.0.0.1:9/mcp", "--transport", "websocket")
	if s := e.getServer("ws"); s["transport"] != "websocket" {
		t.Errorf("ws = %v", s)
	}
	e.must(exitOK, "mcp", "add", "sse", "--url", "http://127.0.0.1:9/sse", "--transport", "sse")
	if s := e.getServer("sse"); s["transport"] != "sse" {
		t.Errorf("sse = %v", s)
	}

	r = e.must(exitOK, "mcp", "add", "everywhere", "--scope", "global", "--command", "g")
	wantContains(t, "stdout", r.stdout, global)
	wantNotContains(t, "stdout", r.stdout, "trust")
	if s := e.getServer("everywhere"); s["source"] != global || s["untrusted"] != false {
		t.Errorf("everywhere = %v", s)
	}
	wantNotContains(t, "project file", readFile(t, project), "everywhere")

	e.must(exitOK, "mcp", "add", "off", "-s", "project", "--command", "x", "--disabled")
	if s := e.getServer("off"); s["enabled"] != false {
		t.Errorf("off = %v", s)
	}

	// An existing id is refused unless replaced.
	r = e.must(exitUsage, "mcp", "add", "flags", "-s", "project", "--command", "other")
	wantContains(t, "stderr", r.stderr, `"flags"`, "already exists", project)
	if s := e.getServer("flags"); s["command"] != "srv" {
		t.Errorf("a refused add changed the entry: %v", s)
	}
	e.must(exitOK, "mcp", "add", "flags", "-s", "project", "--command", "other", "--replace")
	if s := e.getServer("flags"); s["command"] != "other" || s["args"] != nil {
		t.Errorf("replaced flags = %v", s)
	}
}

func TestMCPAddRefusesInvalidEntries(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.must(exitOK, "mcp", "add", "keep", "--command", "x")
	local := e.localFile()
	before := readFile(t, local)
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"x"}, []string{"a URL", "a command", "--url", "--command"}},
		{[]string{"x", "--command", "a", "--url", "http://h"}, []string{"a URL", "a command"}},
		{[]string{"x", "--command", "a", "--", "b"}, []string{"not both"}},
		{[]string{"x", "--command", "a", "b"}, []string{"not both"}},
		{[]string{"x", "https://h/mcp", "--url", "https://h/mcp"}, []string{"not both"}},
		{[]string{"x", "https://h/mcp", "extra"}, []string{`"extra"`, "after the URL"}},
		{[]string{"x", "a", "--", "b"}, []string{"after --"}},
		{[]string{"x", "npx", "-y", "pkg"}, []string{"-y/--yes", "-- CMD ARGS"}},
		{[]string{"x", "npx", "--quiet", "pkg"}, []string{"unknown flag: --quiet", "-- CMD ARGS"}},
		{[]string{"bad id", "--command", "a"}, []string{"bad id", "a-zA-Z0-9"}},
		{[]string{"x", "--url", "ftp://h/"}, []string{"ftp", "http://"}},
		{[]string{"x", "--url", "http://h/", "--transport", "carrier-pigeon"}, []string{"carrier-pigeon", "stdio, sse, http or websocket"}},
		{[]string{"x", "--command", "a", "--transport", "websocket"}, []string{"url"}},
		{[]string{"x", "--command", "a", "--startup-timeout", "-1s"}, []string{"startup_timeout", "positive"}},
		{[]string{"x", "--command", "a", "--request-timeout", "soon"}, []string{"request_timeout", "soon"}},
		{[]string{"x", "--command", "a", "--env", "NOVALUE"}, []string{"--env", "KEY=VALUE"}},
		{[]string{"x", "--url", "http://h/", "--header", "=v"}, []string{"--header 1", "Name: value"}},
		{[]string{"x", "--url", "http://h/", "-H", "ok: 1", "-H", "no header"}, []string{"--header 2", "Name: value"}},
		{[]string{"x", "--url", "http://h/", "-H", "bad name: v"}, []string{"--header 1", `"bad name" is not a header name`}},
		{[]string{"x", "--command", "a", "--header", "A=b"}, []string{"--header", "remote servers"}},
		{[]string{"x", "--url", "http://h/", "--env", "A=b"}, []string{"--env", "a command"}},
		{[]string{"x", "http://h/", "--env-file", ".env"}, []string{"--env-file", "a command"}},
		{[]string{"x", "--command", "a", "--scope", "effective"}, []string{"read only"}},
		{[]string{"x", "--command", "a", "--scope", "nowhere"}, []string{"nowhere", "local, project or user"}},
		{[]string{"x", "--command", "a", "--include-tools", "["}, []string{"tools.allow"}},
		{[]string{"x", "--command", "a", "-e", "K=${secret:}"}, []string{"env.K", "secret name"}},
		{[]string{"x", "--command", "${"}, []string{"command"}},
	} {
		r := e.run(append([]string{"mcp", "add"}, tc.args...)...)
		if r.code != exitUsage {
			t.Errorf("want exit 2:\n%s", r)
			continue
		}
		wantContains(t, "stderr of mcp add "+strings.Join(tc.args, " "), r.stderr, tc.want...)
	}
	if after := readFile(t, local); after != before {
		t.Errorf("refused adds changed the local file:\n%s", after)
	}
	for _, p := range []string{filepath.Join(e.global, "config.yaml"), filepath.Join(e.work, ".mcphost.yaml")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("refused adds created %s", p)
		}
	}
}

func TestMCPListScopes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	project := filepath.Join(e.work, ".mcphost.yaml")
	global := filepath.Join(e.global, "config.yaml")
	local := e.localFile()
	e.must(exitOK, "mcp", "add", "g", "--scope", "global", "--command", "gcmd")
	e.must(exitOK, "mcp", "add", "p", "-s", "project", "--command", "pcmd", "--arg", "a1")
	e.must(exitOK, "mcp", "add", "l", "--command", "lcmd")

	eff := e.listServers()
	if len(eff) != 3 || eff["g"]["source"] != global || eff["p"]["source"] != project || eff["p"]["untrusted"] != true ||
		eff["l"]["source"] != local || eff["l"]["untrusted"] != false {
		t.Errorf("effective = %v", eff)
	}
	if eff["g"]["scope"] != "user" || eff["p"]["scope"] != "project" || eff["l"]["scope"] != "local" {
		t.Errorf("scopes = %v %v %v", eff["g"]["scope"], eff["p"]["scope"], eff["l"]["scope"])
	}
	if p := e.listServers("--scope", "project"); len(p) != 1 || p["p"] == nil {
		t.Errorf("project = %v", p)
	}
	for _, name := range []string{"global", "user"} {
		if g := e.listServers("--scope", name); len(g) != 1 || g["g"] == nil {
			t.Errorf("%s = %v", name, g)
		}
	}
	if l := e.listServers("-s", "local"); len(l) != 1 || l["l"] == nil {
		t.Errorf("local = %v", l)
	}

	r := e.must(exitOK, "mcp", "list")
	wantContains(t, "mcp list", r.stdout, "SCOPE", "SOURCE", global, project, local, "pcmd a1", "untrusted", "mcphost trust")
	r = e.must(exitOK, "mcp", "ls", "--scope", "user")
	wantContains(t, "mcp ls --scope user", r.stdout, "gcmd", global)
	wantNotContains(t, "mcp ls --scope user", r.stdout, "pcmd", "lcmd")
	r = e.must(exitOK, "mcp", "list", "--scope", "project")
	wantNotContains(t, "mcp list --scope project", r.stdout, "gcmd", "lcmd")
	r = e.must(exitOK, "mcp", "list", "-s", "local")
	wantContains(t, "mcp list -s local", r.stdout, "lcmd", local)
	wantNotContains(t, "mcp list -s local", r.stdout, "gcmd", "pcmd")
	r = e.must(exitUsage, "mcp", "list", "--scope", "nowhere")
	wantContains(t, "stderr", r.stderr, "nowhere", "local, project or user")

	// --config and MCPHOST_* variables are part of the effective view.
	cfg := e.configFile(map[string]any{"c": map[string]any{"command": "ccmd"}})
	e.environ = []string{"MCPHOST_SERVERS__ENVSRV__COMMAND=ecmd"}
	eff = e.listServers("--config", cfg)
	if eff["c"]["source"] != cfg || eff["envsrv"]["source"] != "env" || eff["c"]["untrusted"] != false {
		t.Errorf("effective with --config and env = %v", eff)
	}

	// A broken entry is listed with its error; the others still are.
	writeFile(t, filepath.Join(e.global, "config.yaml"), "servers:\n  g:\n    command: gcmd\n  broken:\n    url: ftp://x\n")
	r = e.must(exitOK, "mcp", "list")
	wantContains(t, "mcp list", r.stdout, "broken", "error:", "ftp", "gcmd")
}

func TestMCPGetUnknown(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.must(exitUsage, "mcp", "get", "nope")
	wantContains(t, "stderr", r.stderr, `"nope"`, "mcphost mcp list")
	r = e.must(exitUsage, "mcp", "test", "nope")
	wantContains(t, "stderr", r.stderr, `"nope"`, "mcphost mcp list")
}

func stateOf(servers []map[string]any, id string) any {
	for _, s := range servers {
		if s["id"] == id {
			return s["state"]
		}
	}
	return nil
}

func TestMCPTest(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	cfg := e.configFile(map[string]any{
		"ts":  testServer(t),
		"bad": brokenServer(t),
		"off": map[string]any{"command": hosttest.BuildTestServer(t), "enabled": false},
		"die": testServer(t, "-crash-at-start"),
	})
	r := e.must(exitOK, "--config", cfg, "mcp", "test", "ts")
	wantContains(t, "mcp test ts", r.stdout, "testing ts", "connect + initialize + lists: ", "testserver 1.0.0", "tools: ", "mcp__ts__echo", "mcp__ts__slow", "OK")

	r = e.must(exitFailure, "--config", cfg, "mcp", "test", "bad")
	wantContains(t, "stdout", r.stdout, "FAIL", "no-such-server")
	wantContains(t, "stderr", r.stderr, "bad", "no-such-server")

	r = e.must(exitFailure, "--config", cfg, "mcp", "test", "die")
	wantContains(t, "stdout", r.stdout, "FAIL", "crashing at start")

	r = e.must(exitOK, "--config", cfg, "mcp", "test", "off")
	wantContains(t, "stdout", r.stdout, "disabled", "OK")
}

func TestTrust(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	project := writeFile(t, filepath.Join(e.work, ".mcphost.yaml"), configJSON(t, map[string]any{"proj": testServer(t)}))

	untrusted := func(when string) {
		t.Helper()
		servers := decodeJSON[[]map[string]any](t, e.must(exitOK, "servers", "--json"))
		if len(servers) != 1 || servers[0]["state"] != "untrusted" {
			t.Fatalf("%s: %v, want proj untrusted", when, servers)
		}
		wantContains(t, "error", servers[0]["error"].(string), "mcphost trust", e.work)
		r := e.must(exitUsage, "call", "proj:echo", "--args", `{"text":"x"}`)
		wantContains(t, "stderr", r.stderr, "mcphost trust")
	}
	ready := func(when string) {
		t.Helper()
		servers := decodeJSON[[]map[string]any](t, e.must(exitOK, "servers", "--json"))
		if len(servers) != 1 || servers[0]["state"] != "ready" {
			t.Fatalf("%s: %v, want proj ready", when, servers)
		}
	}

	untrusted("before trust")
	r := e.must(exitUsage, "mcp", "test", "proj")
	wantContains(t, "stderr", r.stderr, "mcphost trust")
	r = e.must(exitOK, "trust", e.work)
	wantContains(t, "stdout", r.stdout, e.work)
	ready("after trust")
	r = e.must(exitOK, "call", "proj:echo", "--args", `{"text":"trusted"}`)
	wantContains(t, "stdout", r.stdout, "trusted")

	// Editing the file makes the project untrusted again.
	if err := os.WriteFile(project, []byte(readFile(t, project)+"# edited\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	untrusted("after an edit")
	// Without an argument, trust takes the project directory.
	e.must(exitOK, "trust")
	ready("after trusting again")

	// Adding a .mcp.json is a change too.
	writeFile(t, filepath.Join(e.work, ".mcp.json"), `{"mcpServers": {}}`)
	untrusted("after adding .mcp.json")

	// A --config file is trusted: the same server from it starts.
	cfg := e.configFile(map[string]any{"explicit": testServer(t)})
	servers := decodeJSON[[]map[string]any](t, e.must(exitOK, "--config", cfg, "servers", "--json"))
	if stateOf(servers, "explicit") != "ready" || stateOf(servers, "proj") != "untrusted" {
		t.Errorf("with --config: %v", servers)
	}

	r = e.must(exitUsage, "trust", filepath.Join(e.work, "missing"))
	wantContains(t, "stderr", r.stderr, "missing", "not a directory")
}
