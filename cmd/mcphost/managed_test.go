package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/zalando/go-keyring"
)

// The administrator's managed layer as the command sees it.

// orgManaged is a managed file: a server of the administrator's, a policy
// that denies big, and a rule that blocks every server called shadow*.
const orgManaged = `managed:
  denied_servers:
    - {id: "shadow*"}
servers:
  corp: {command: TESTSERVER}
policy:
  deny: ["*big*"]
`

// writeManaged writes the env's managed file; TESTSERVER in content is
// replaced by the test server's command.
func (e *testEnv) writeManaged(content string) string {
	e.t.Helper()
	content = strings.ReplaceAll(content, "TESTSERVER", testServer(e.t)["command"].(string))
	return writeFile(e.t, filepath.Join(e.managed, "managed.yaml"), content)
}

// blockedWords are the words every command uses for a server that
// denied_servers[0] of file blocks.
func blockedWords(file string) string {
	return "blocked by denied_servers[0] in " + file + " (ask your administrator)"
}

// Every command reads the managed directory it is given, and nothing else:
// the managed layer's servers show with their scope.
func TestCLIReadsManagedDir(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.writeManaged("servers:\n  corp: {command: TESTSERVER}\n")
	got := e.listServers()
	if got["corp"] == nil || got["corp"]["scope"] != "managed" {
		t.Fatalf("mcp list --json: corp = %v, want scope managed", got["corp"])
	}
}

// A user file, a trusted project file and --config all try to weaken the
// managed layer (replace its server's command, empty the policy, run a
// server its rule blocks): none of them can, as the command sees it.
func TestManagedLayerHoldsAgainstEveryLayer(t *testing.T) {
	weaken := `servers:
  corp: {command: BROKEN}
  shadow-it: {command: TESTSERVER}
policy:
  deny: []
  allow: ["*"]
`
	for _, layer := range []string{"user", "project", "config"} {
		t.Run(layer, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			managed := e.writeManaged(orgManaged)
			content := strings.NewReplacer("TESTSERVER", testServer(t)["command"].(string),
				"BROKEN", brokenServer(t)["command"].(string)).Replace(weaken)
			var flags []string
			switch layer {
			case "user":
				writeFile(t, filepath.Join(e.global, "config.yaml"), content)
			case "project":
				writeFile(t, filepath.Join(e.work, ".mcphost.yaml"), content)
				e.must(exitOK, "trust")
			case "config":
				flags = []string{"--config", writeFile(t, filepath.Join(t.TempDir(), "c.yaml"), content)}
			}
			run := func(code int, args ...string) result {
				t.Helper()
				return e.must(code, append(slices.Clone(flags), args...)...)
			}

			r := run(exitOK, "servers", "--json")
			var st []map[string]any
			if err := json.Unmarshal([]byte(r.stdout), &st); err != nil {
				t.Fatalf("servers --json: %v\n%s", err, r)
			}
			states := map[string]map[string]any{}
			for _, s := range st {
				states[s["id"].(string)] = s
			}
			if states["corp"]["state"] != "ready" {
				t.Errorf("corp: %v; want ready, with the administrator's command", states["corp"])
			}
			if states["shadow-it"]["state"] != "blocked" || states["shadow-it"]["error"] != blockedWords(managed) {
				t.Errorf("shadow-it: %v; want blocked with %q", states["shadow-it"], blockedWords(managed))
			}
			wantContains(t, "servers stderr", r.stderr, "the administrator defines this server")

			// Still the administrator's: what runs, and where it comes from.
			got := decodeJSON[map[string]any](t, run(exitOK, "mcp", "get", "corp", "--json"))
			if got["command"] != testServer(t)["command"] || got["scope"] != "managed" || got["source"] != managed {
				t.Errorf("mcp get corp: %v; want the managed command, scope and source", got)
			}
			r = run(exitFailure, "call", "corp:big", "n=3")
			wantContains(t, "call of a tool the managed policy denies", r.stderr, "denied")
			r = run(exitUsage, "call", "shadow-it:echo", "text=hi")
			wantContains(t, "call of a blocked server's tool", r.stderr, blockedWords(managed))

			// mcp add says what servers says, and writes nothing.
			scope := map[string]string{"user": "user", "project": "project", "config": "local"}[layer]
			r = run(exitUsage, "mcp", "add", "shadow-two", "--scope", scope, "--", testServer(t)["command"].(string))
			wantContains(t, "mcp add of a blocked server", r.stderr, `server "shadow-two": `+blockedWords(managed), "not written")
			if _, ok := e.listServers(flags...)["shadow-two"]; ok {
				t.Error("mcp add wrote the blocked server")
			}
		})
	}
}

// A blocked server and a blocked plugin show as blocked, with the rule and
// the file, wherever servers and plugins are shown; what would start or
// enable one is refused with the same words.
func TestManagedBlockedInEveryCommand(t *testing.T) {
	keyring.MockInit()
	t.Parallel()
	e := newEnv(t)
	e.withHome()
	managed := e.writeManaged(strings.Replace(orgManaged, "managed:\n", "managed:\n  plugins: managed_only\n", 1))
	words := blockedWords(managed)
	writeFile(t, filepath.Join(e.global, "config.yaml"), strings.NewReplacer("TESTSERVER", testServer(t)["command"].(string)).Replace(`servers:
  mine: {command: TESTSERVER}
  shadow-it: {command: TESTSERVER}
  shadow-web: {url: "http://127.0.0.1:9/mcp"}
plugins:
  - {name: my-policy, path: mine.wasm, hooks: [policy]}
`))

	r := e.must(exitOK, "servers")
	wantContains(t, "servers", r.stdout, "shadow-it: "+words, "blocked")
	wantContains(t, "servers (plugins)", r.stdout, "plugin my-policy: not used: blocked: plugins is managed_only in "+managed)
	r = e.must(exitOK, "tools")
	wantContains(t, "tools stderr", r.stderr, "warning: server shadow-it is not available (blocked): "+words)

	r = e.must(exitOK, "mcp", "list")
	wantContains(t, "mcp list", r.stdout, "blocked by denied_servers[0] in", "managed")
	listed := e.listServers()
	if listed["shadow-it"]["blocked"] != words || listed["corp"]["scope"] != "managed" {
		t.Errorf("mcp list --json: shadow-it %v, corp %v", listed["shadow-it"], listed["corp"])
	}
	if only := e.listServers("--scope", "managed"); len(only) != 1 || only["corp"] == nil {
		t.Errorf("mcp list --scope managed: %v, want corp alone", only)
	}
	r = e.must(exitOK, "mcp", "get", "shadow-it")
	wantContains(t, "mcp get", r.stdout, "\nblocked: ", words)

	var plugins []pluginListEntry
	if err := json.Unmarshal([]byte(e.must(exitOK, "plugin", "list", "--json").stdout), &plugins); err != nil {
		t.Fatal(err)
	}
	if len(plugins) != 1 || !strings.Contains(plugins[0].Blocked, "plugins is managed_only in "+managed) {
		t.Errorf("plugin list --json: %+v", plugins)
	}
	r = e.must(exitOK, "plugin", "list")
	wantContains(t, "plugin list", r.stdout, "(blocked)", "my-policy: not used: blocked: plugins is managed_only")
	// plugin add is refused as mcp add is, in the words Load uses.
	r = e.must(exitUsage, "plugin", "add", fixture(t, "allow-all.wasm"), "--name", "another", "--scope", "user")
	wantContains(t, "plugin add", r.stderr, `plugin "another": blocked: plugins is managed_only in `+managed, "not written")

	// Refused, with the words, and nothing written.
	before, _ := os.ReadFile(e.localFile())
	for _, args := range [][]string{
		{"mcp", "enable", "shadow-it"},
		{"mcp", "test", "shadow-it"},
		{"login", "shadow-web", "--no-browser"},
	} {
		r := e.must(exitUsage, args...)
		wantContains(t, strings.Join(args, " "), r.stderr, "blocked by denied_servers[0] in "+managed)
	}
	if after, _ := os.ReadFile(e.localFile()); string(after) != string(before) {
		t.Errorf("mcp enable of a blocked server wrote the local file:\n%s", after)
	}

	// The managed file is not the command's to edit; a user may still
	// switch a managed server off for themselves.
	r = e.must(exitUsage, "mcp", "remove", "corp")
	wantContains(t, "mcp remove corp", r.stderr, "administrator's", "mcphost mcp disable corp")
	r = e.must(exitUsage, "mcp", "disable", "corp", "--scope", "managed")
	wantContains(t, "mcp disable --scope managed", r.stderr, "--scope managed", "does not edit")
	e.must(exitOK, "mcp", "disable", "corp")
	if got := e.listServers()["corp"]; got["enabled"] != false {
		t.Errorf("corp after mcp disable: %v", got)
	}

	// Completion does not offer a blocked server to what would start it.
	if got := values(e.complete("mcp", "enable", "")); slices.Contains(got, "shadow-it") {
		t.Errorf("mcp enable completes %v", got)
	}
	if got := e.complete("mcp", "get", "shadow-"); !slices.Contains(got, "shadow-it\tstdio, blocked") {
		t.Errorf("mcp get completes %q", got)
	}
}

// An import writes the servers the managed layer allows and reports, per
// server, the one it blocks (before asking for anything); add-json refuses
// with the same words.
func TestManagedImportReportsBlocked(t *testing.T) {
	keyring.MockInit()
	t.Parallel()
	e := newEnv(t)
	e.withHome()
	managed := e.writeManaged(orgManaged)
	writeFile(t, filepath.Join(e.work, ".cursor", "mcp.json"), `{"mcpServers":{"fine":{"command":"echo","args":["ok"]},"shadow-cursor":{"command":"echo","args":["no"]}}}`)
	r := e.must(exitFailure, "mcp", "import", "--from", "cursor", "--scope", "local", "--yes")
	wantContains(t, "import", r.stdout, "shadow-cursor", "not imported: "+blockedWords(managed))
	listed := e.listServers()
	if listed["fine"] == nil || listed["shadow-cursor"] != nil {
		t.Errorf("after the import: %v; want fine and not shadow-cursor", listed)
	}
	r = e.must(exitUsage, "mcp", "add-json", "shadow-json", `{"command": "echo"}`)
	wantContains(t, "add-json", r.stderr, `server "shadow-json" not added: `+blockedWords(managed))
}

// client install does not count a server the managed layer blocks among
// those mcphost serves: its tools would not show twice, they would not
// show at all.
func TestClientInstallBlockedIsNotServed(t *testing.T) {
	e, home := newClientEnv(t)
	e.writeManaged(orgManaged)
	writeFile(t, filepath.Join(home, ".cursor", "mcp.json"), `{"mcpServers": {"shadow-files": {"command": "node", "args": ["x.js"]}}}`)
	cfg := e.configFile(map[string]any{"shadow-files": map[string]any{"command": "node", "args": []any{"x.js"}}})
	r := e.must(exitOK, "--config", cfg, "client", "install", "cursor", "--command", fakeMcphost, "--dry-run")
	wantNotContains(t, "install", r.stdout, "which mcphost serves too")
}
