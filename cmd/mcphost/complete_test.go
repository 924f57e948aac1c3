package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// complete runs "mcphost __complete ARGS..." in-process, as the bash, zsh
// and fish scripts do on TAB, and returns the candidates (value and
// description, split at the tab) without the directive line.
func (e *testEnv) complete(args ...string) []string {
	e.t.Helper()
	r := e.must(exitOK, append([]string{"__complete"}, args...)...)
	var out []string
	for _, line := range strings.Split(r.stdout, "\n") {
		if strings.HasPrefix(line, ":") {
			return out
		}
		out = append(out, line)
	}
	e.t.Fatalf("no directive line in the completion:\n%s", r)
	return nil
}

// values are the candidates without their descriptions.
func values(candidates []string) []string {
	var out []string
	for _, c := range candidates {
		v, _, _ := strings.Cut(c, "\t")
		out = append(out, v)
	}
	return out
}

func wantValues(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	if g := values(got); !slices.Equal(g, want) {
		t.Errorf("%s: candidates %q, want %q", what, g, want)
	}
}

// call mcp__ev<TAB> completes the public names of the last listing, kept
// on disk by "tools": with no listing yet there are none, and no server is
// started on TAB (the server's command is broken when the names are
// offered). Another project's listing is not offered.
func TestCompleteToolNamesFromCache(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	writeFile(t, filepath.Join(e.global, "config.json"), configJSON(t, map[string]any{"ev": testServer(t), "other": testServer(t)}))
	if got := e.complete("call", "mcp__ev"); len(got) != 0 {
		t.Fatalf("completion before any listing: %q, want none", got)
	}
	e.must(exitOK, "tools")

	writeFile(t, filepath.Join(e.global, "config.json"), configJSON(t, map[string]any{"ev": brokenServer(t), "other": brokenServer(t)}))
	got := e.complete("call", "mcp__ev__e")
	wantValues(t, "call mcp__ev__e", got, "mcp__ev__echo", "mcp__ev__env")
	if !slices.Contains(got, "mcp__ev__echo\tReturns its text argument.") {
		t.Errorf("echo's description is not shown: %q", got)
	}
	wantValues(t, "tools show mcp__other__ad", e.complete("tools", "show", "mcp__other__ad"), "mcp__other__add")
	if got := e.complete("call", "mcp__ev__echo", "te"); len(got) != 0 {
		t.Errorf("a KEY=VALUE word completed to %q", got)
	}

	other := &testEnv{t: t, global: e.global, state: e.state, cache: e.cache, work: t.TempDir(), environ: []string{}}
	if got := other.complete("call", "mcp__ev"); len(got) != 0 {
		t.Errorf("another project is offered %q", got)
	}
	// A server taken out of the configuration takes its names with it.
	writeFile(t, filepath.Join(e.global, "config.json"), configJSON(t, map[string]any{"other": brokenServer(t)}))
	if got := e.complete("call", "mcp__ev"); len(got) != 0 {
		t.Errorf("a removed server's names are offered: %q", got)
	}
}

// "call" writes the cache too, for the one server it started, keeping what
// an earlier listing said of the others.
func TestCompleteCacheWrittenByCall(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	writeFile(t, filepath.Join(e.global, "config.json"), configJSON(t, map[string]any{"ev": testServer(t), "other": testServer(t, "-tools", "1")}))
	e.must(exitOK, "call", "mcp__ev__echo", "text=hi")
	wantValues(t, "after call", e.complete("call", "mcp__ev__ad"), "mcp__ev__add")
	if got := e.complete("call", "mcp__other"); len(got) != 0 {
		t.Errorf("a server the call did not start is offered: %q", got)
	}
	e.must(exitOK, "servers")
	wantValues(t, "after servers", e.complete("call", "mcp__other__t"), "mcp__other__t00001")
	e.must(exitOK, "call", "mcp__ev__echo", "text=hi")
	wantValues(t, "after a second call", e.complete("call", "mcp__other__t"), "mcp__other__t00001")
}

// A cache that is not JSON, of another version or over the size cap is no
// cache: no candidates, no error, nothing on stderr.
func TestCompleteIgnoresCorruptCache(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	writeFile(t, filepath.Join(e.global, "config.json"), configJSON(t, map[string]any{"ev": testServer(t)}))
	e.must(exitOK, "tools")
	path := e.completionCache()
	for _, bad := range []string{"{not json", `{"version": 99, "servers": {"ev": [{"name": "mcp__ev__x"}]}}`, strings.Repeat(" ", maxCompletionCacheBytes+1)} {
		if err := os.WriteFile(path, []byte(bad), 0o600); err != nil {
			t.Fatal(err)
		}
		r := e.must(exitOK, "__complete", "call", "mcp__ev")
		if got := e.complete("call", "mcp__ev"); len(got) != 0 {
			t.Errorf("cache %.20q: candidates %q", bad, got)
		}
		if strings.Contains(r.stderr, "rror") && !strings.Contains(r.stderr, "Completion ended") {
			t.Errorf("cache %.20q: stderr %s", bad, r.stderr)
		}
	}
}

// completionCache is the path of the env's cache file.
func (e *testEnv) completionCache() string {
	e.t.Helper()
	a := newApp(nil, nil, nil)
	a.globalDir, a.cacheDir, a.workDir = e.global, e.cache, e.work
	p, err := a.completionCacheFile()
	if err != nil {
		e.t.Fatal(err)
	}
	return p
}

// Names and descriptions come from servers: a description cannot add a
// line, a control sequence or a field to the shell's list, and a name a
// shell would split or act on is not offered.
func TestCompleteEscapesServerText(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	writeFile(t, filepath.Join(e.global, "config.json"), configJSON(t, map[string]any{"ev": brokenServer(t)}))
	cache := toolCache{Version: completionCacheVersion, Servers: map[string][]cachedTool{"ev": {
		{Name: "mcp__ev__a", Description: "first line\nmcp__ev__injected\tfake\x1b]52;c;aGk=\x07 \u202eevil" + strings.Repeat(" long", 100)},
		{Name: "mcp__ev__b\nmcp__ev__c", Description: "two names"},
		{Name: "mcp__ev__$(touch x)", Description: "a command"},
	}}}
	data, err := json.Marshal(cache)
	if err != nil {
		t.Fatal(err)
	}
	path := e.completionCache()
	writeFile(t, path, string(data))
	got := e.complete("call", "mcp__ev")
	if len(got) != 1 {
		t.Fatalf("candidates %q, want only mcp__ev__a", got)
	}
	name, desc, _ := strings.Cut(got[0], "\t")
	if name != "mcp__ev__a" || strings.ContainsAny(desc, "\t\n\x1b\x07\u202e") || len([]rune(desc)) > maxCachedDescRunes {
		t.Errorf("candidate %q", got[0])
	}
	if !strings.HasPrefix(desc, "first line mcp__ev__injected fake") {
		t.Errorf("description %q lost its text", desc)
	}
}

// Completion does not open the secret store (a keychain may prompt), so a
// server whose entry uses ${secret:NAME} cannot be resolved there; its
// tools are offered all the same.
func TestCompleteServerWithSecret(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	writeFile(t, filepath.Join(e.global, "config.yaml"), "servers:\n  ev: {command: ev-server, env: {TOKEN: \"${secret:ev-token}\"}}\n")
	data, err := json.Marshal(toolCache{Version: completionCacheVersion, Servers: map[string][]cachedTool{"ev": {{Name: "mcp__ev__echo"}}}})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, e.completionCache(), string(data))
	wantValues(t, "call mcp__ev", e.complete("call", "mcp__ev"), "mcp__ev__echo")
	wantValues(t, "mcp get", e.complete("mcp", "get", ""), "ev")
}

// Server ids (mcp get/remove/enable/disable/test, login, logout, --server)
// and plugin names come from the configuration; flags with fixed values
// complete them; client install completes the clients.
func TestCompleteConfigAndFlagValues(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	writeFile(t, filepath.Join(e.global, "config.yaml"), `servers:
  ev: {command: ev-server}
  evil: {url: "https://x.example/mcp", enabled: false}
  web: {url: "https://y.example/mcp"}
plugins:
  - {name: deny-rm, path: /nowhere/deny.wasm}
`)
	for _, cmd := range [][]string{{"mcp", "get"}, {"mcp", "remove"}, {"mcp", "enable"}, {"mcp", "disable"}, {"mcp", "test"}} {
		wantValues(t, strings.Join(cmd, " "), e.complete(append(cmd, "ev")...), "ev", "evil")
	}
	// A stdio server has no login.
	for _, cmd := range [][]string{{"login"}, {"logout"}} {
		wantValues(t, strings.Join(cmd, " "), e.complete(append(cmd, "ev")...), "evil")
	}
	got := e.complete("mcp", "get", "")
	wantValues(t, "mcp get", got, "ev", "evil", "web")
	if !slices.Contains(got, "evil\thttp, disabled") {
		t.Errorf("evil is not described as disabled: %q", got)
	}
	if got := e.complete("mcp", "get", "ev", ""); len(got) != 0 {
		t.Errorf("a second id completed: %q", got)
	}
	for _, cmd := range [][]string{{"tools", "--server"}, {"resources", "--server"}, {"prompts", "--server"}, {"read", "--server"}} {
		wantValues(t, strings.Join(cmd, " "), e.complete(append(cmd, "w")...), "web")
	}
	wantValues(t, "plugin remove", e.complete("plugin", "remove", ""), "deny-rm")

	wantValues(t, "tools --format", e.complete("tools", "--format", ""), "openai", "openai-responses", "anthropic", "gemini", "mcp")
	wantValues(t, "mcp add -t", e.complete("mcp", "add", "-t", ""), "stdio", "http", "sse", "websocket")
	wantValues(t, "tools -t", e.complete("tools", "-t", ""), "http", "sse", "websocket")
	wantValues(t, "plugin test --sample", e.complete("plugin", "test", "--sample", ""), "filter_tools", "map_names", "policy", "transform_result", "auth")
	from := values(e.complete("mcp", "import", "--from", ""))
	for _, k := range []string{"claude-code", "cursor", "vscode"} {
		if !slices.Contains(from, k) {
			t.Errorf("mcp import --from: %q lacks %s", from, k)
		}
	}
	wantValues(t, "mcp add -s", e.complete("mcp", "add", "-s", ""), "local", "project", "user")
	wantValues(t, "mcp list --scope", e.complete("mcp", "list", "--scope", ""), "effective", "local", "project", "user")
	wantValues(t, "client install --scope", e.complete("client", "install", "--scope", ""), "user", "project")
	wantValues(t, "plugin list -s", e.complete("plugin", "list", "-s", ""), "effective", "local", "project", "user")
	wantValues(t, "client install cu", e.complete("client", "install", "cu"), "cursor")
	if got := e.complete("client", "uninstall", "claude-"); !slices.Contains(got, "claude-desktop\tClaude Desktop") {
		t.Errorf("client uninstall claude-: %q", got)
	}
}
