package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zalando/go-keyring"

	"github.com/mcphost/mcphost/host/authn"
	"github.com/mcphost/mcphost/host/clientconf"
)

// importTestdata is the directory of the client files the importers are
// tested with.
var importTestdata = filepath.Join("..", "..", "host", "clientconf", "testdata", "import")

// withHome gives the env a home directory of its own (where clients keep
// their user files) and returns it.
func (e *testEnv) withHome() string {
	e.t.Helper()
	home := e.t.TempDir()
	e.environ = append(e.environ, "HOME="+home)
	return home
}

// copyClientFile puts a client's test file at dst.
func copyClientFile(t *testing.T, src, dst string) string {
	t.Helper()
	return writeFile(t, dst, readFile(t, filepath.Join(importTestdata, src)))
}

// The plan names each server, where it goes and what was converted or
// dropped; nothing is written or stored.
func TestMCPImportDryRun(t *testing.T) {
	keyring.MockInit()
	e := newEnv(t)
	home := e.withHome()
	copyClientFile(t, "cursor/mcp.json", filepath.Join(home, ".cursor", "mcp.json"))
	copyClientFile(t, "tenx/mcp.json", filepath.Join(e.work, ".cursor", "mcp.json"))

	name := clientconf.SecretName(filepath.Join(home, ".cursor", "mcp.json"), "oauth-server", "client_secret")
	r := e.must(exitOK, "mcp", "import", "--from", "cursor", "--dry-run")
	for _, want := range []string{
		"+ context7  http https://mcp.context7.com/mcp  → user scope",
		"+ git  stdio npx -y @modelcontextprotocol/server-git --repository .  → project scope",
		"converted: ${env:CONTEXT7_API_KEY} → ${CONTEXT7_API_KEY}",
		"converted: envFile → env_file",
		"secret: " + name + ", to keep (mcphost secret)",
		"dry run: nothing written",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("no %q in\n%s", want, r)
		}
	}
	if strings.Contains(r.stdout+r.stderr, "cursor-client-secret-0000") {
		t.Errorf("the client secret is printed:\n%s", r)
	}
	for _, p := range []string{filepath.Join(e.global, "config.yaml"), filepath.Join(e.work, ".mcphost.yaml")} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s written by a dry run", p)
		}
	}
	if _, err := authn.Secret(name); !errors.Is(err, authn.ErrNoSecret) {
		t.Errorf("a dry run stored the secret: %v", err)
	}
}

// An id already in the target file is reported and left alone; --force
// replaces it.
func TestMCPImportConflict(t *testing.T) {
	keyring.MockInit()
	e := newEnv(t)
	home := e.withHome()
	copyClientFile(t, "windsurf/mcp_config.json", filepath.Join(home, ".codeium", "windsurf", "mcp_config.json"))
	e.must(exitOK, "mcp", "add", "git", "--url", "https://mine.example/mcp", "--scope", "user")

	r := e.must(exitFailure, "mcp", "import", "--from", "windsurf", "--yes")
	if !strings.Contains(r.stdout, "conflict:") || !strings.Contains(r.stdout, "pass --force") || !strings.Contains(r.stderr, "git") {
		t.Errorf("the conflict is not reported:\n%s", r)
	}
	if got := e.getServer("git")["url"]; got != "https://mine.example/mcp" {
		t.Errorf("the existing entry was changed: url %v", got)
	}
	if s := e.getServer("userjot"); s["url"] != "https://api.userjot.com/v1/mcp" {
		t.Errorf("the other servers are not imported: %v", s)
	}

	r = e.must(exitFailure, "mcp", "import", "--from", "windsurf", "-y")
	if strings.Count(r.stdout, "conflict:") != 4 {
		t.Errorf("a second import must report every server as configured:\n%s", r)
	}
	e.must(exitOK, "mcp", "import", "--from", "windsurf", "--force", "--yes")
	if s := e.getServer("git"); s["command"] != "uvx" || s["enabled"] != false {
		t.Errorf("--force did not replace the entry: %v", s)
	}
}

// --json is the plan (or the result) for programs: statuses, and values of
// env and headers masked.
func TestMCPImportJSON(t *testing.T) {
	keyring.MockInit()
	e := newEnv(t)
	home := e.withHome()
	copyClientFile(t, "claude-desktop/claude_desktop_config.json", filepath.Join(home, ".config", "Claude", "claude_desktop_config.json"))
	e.must(exitOK, "mcp", "add", "github", "--scope", "user", "--", "gh-server")

	// The plan has a conflict: exit 1, as the import would.
	r := e.must(exitFailure, "mcp", "import", "--from", "claude-desktop", "--dry-run", "--json")
	var plan struct {
		DryRun  bool `json:"dry_run"`
		Servers []struct {
			ID, Name, Status, Scope, Transport string
			Entry                              map[string]any
			Converted                          []string
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &plan); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, r)
	}
	status := map[string]string{}
	for _, s := range plan.Servers {
		status[s.ID] = s.Status
		if s.Scope != "user" || s.Transport != "stdio" {
			t.Errorf("%s: scope %s transport %s", s.ID, s.Scope, s.Transport)
		}
		if s.ID == "Brave-Search" && (s.Name != "Brave Search" || len(s.Converted) == 0) {
			t.Errorf("the renamed id is not explained: %+v", s)
		}
	}
	want := map[string]string{"filesystem": "add", "github": "conflict", "Brave-Search": "add"}
	for id, st := range want {
		if status[id] != st {
			t.Errorf("%s: status %q, want %q (%v)", id, status[id], st, status)
		}
	}
	if !plan.DryRun || strings.Contains(r.stdout, "ghp_example") || !strings.Contains(r.stdout, `"GITHUB_PERSONAL_ACCESS_TOKEN": "****"`) {
		t.Errorf("env values are not masked:\n%s", r.stdout)
	}

	r = e.must(exitFailure, "mcp", "import", "--from", "claude-desktop", "--json", "--yes")
	if err := json.Unmarshal([]byte(r.stdout), &plan); err != nil || plan.DryRun {
		t.Fatalf("the result is not JSON alone: %v\n%s", err, r)
	}
	for _, s := range plan.Servers {
		if want := map[string]string{"github": "conflict"}[s.ID]; want == "" && s.Status != "added" || want != "" && s.Status != want {
			t.Errorf("%s: status %s", s.ID, s.Status)
		}
	}
}

// VS Code inputs: asked once on a terminal, the password kept in the OS
// keychain and referred to, the plain answer written; without a terminal
// the command says what to do instead. A project's server that refers to
// the keychain, or whose input's answer would be written into the shared
// project file, is imported only into a scope the user names.
func TestMCPImportVSCodeInputs(t *testing.T) {
	keyring.MockInit()
	e := newEnv(t)
	e.withHome()
	file := copyClientFile(t, "vscode/.vscode/mcp.json", filepath.Join(e.work, ".vscode", "mcp.json"))
	secret := clientconf.SecretName(file, "Perplexity", "perplexity-key")

	r := e.must(exitUsage, "mcp", "import", "--from", "vscode", "--scope", "local", "--yes")
	for _, want := range []string{"on a terminal", "--skip-inputs", "nothing was imported", "mcphost secret set", secret} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("no %q in\n%s", want, r)
		}
	}
	if _, err := os.Stat(e.localFile()); err == nil {
		t.Error("servers were written although the inputs could not be asked for")
	}

	// By default the project's servers go to the project file; the ones
	// that refer to the keychain or ask for a value are not imported, and
	// nothing is asked.
	e.terminal = true
	r = e.runStdin("prod_db\n", "mcp", "import", "--from", "vscode", "--yes")
	e.terminal = false
	if r.code != exitFailure || !strings.Contains(r.stdout, "--scope local") || strings.Contains(r.stderr, "Perplexity API Key") || strings.Contains(r.stderr, "Database name") {
		t.Fatalf("import with the default scope:\n%s", r)
	}
	project := readFile(t, filepath.Join(e.work, ".mcphost.yaml"))
	if strings.Contains(project, "Perplexity") || strings.Contains(project, "prod_db") || !strings.Contains(project, "fetch") {
		t.Errorf("the project file:\n%s", project)
	}

	// Named by the user, the local scope takes them: the password is kept
	// in the keychain, never printed nor written; the prompts say where
	// each answer goes.
	const password = "pplx-secret-value-0123456789"
	e.terminal = true
	r = e.runStdin(password+"\nprod_db\n", "mcp", "import", "--from", "vscode", "--scope", "local", "--yes")
	e.terminal = false
	if r.code != exitOK {
		t.Fatalf("import with answers:\n%s", r)
	}
	if strings.Contains(r.stdout+r.stderr, password) {
		t.Errorf("the password is printed:\n%s", r)
	}
	wantContains(t, "stderr", r.stderr, "kept as the secret "+secret, "written in clear into "+e.localFile())
	if v, err := authn.Secret(secret); err != nil || v != password {
		t.Errorf("keychain: %q %v", v, err)
	}
	if _, ok := e.listServers("--scope", "local")["Perplexity"]; !ok {
		t.Errorf("Perplexity is not in the local scope:\n%s", r)
	}
	if s := e.getServer("Perplexity"); s["error"] != nil {
		t.Errorf("the secret does not resolve: %v", s["error"])
	}
	if s := e.getServer("db"); strings.Join(strs(s["args"]), " ") != filepath.Join(e.work, "db", "server.js")+" --db prod_db" {
		t.Errorf("db args %v", s["args"])
	}
}

// --skip-inputs asks nothing: the plain inputs take their default, and the
// secrets to store are named.
func TestMCPImportSkipInputs(t *testing.T) {
	keyring.MockInit()
	e := newEnv(t)
	e.withHome()
	copyClientFile(t, "vscode/.vscode/mcp.json", filepath.Join(e.work, ".vscode", "mcp.json"))
	r := e.must(exitOK, "mcp", "import", "--from", "vscode", "--skip-inputs", "--scope", "local", "--yes")
	if !strings.Contains(r.stderr, "mcphost secret set Perplexity.perplexity-key") {
		t.Errorf("the secrets to store are not named:\n%s", r)
	}
	if s := e.getServer("db"); !strings.HasSuffix(strings.Join(strs(s["args"]), " "), "--db app_dev") {
		t.Errorf("the default is not written: %v", s["args"])
	}

	// A project file may not refer to the keychain: said before anything
	// is asked or stored.
	r = e.must(exitFailure, "mcp", "import", "--from", "vscode", "--skip-inputs", "--scope", "project", "--force", "--yes")
	if !strings.Contains(r.stdout, "import it with --scope local") || strings.Contains(r.stdout, "Perplexity\" to") {
		t.Errorf("--scope project with a keychain secret:\n%s", r)
	}
}

// Round trip: what is imported is what "mcp list" and "mcp get" show,
// each server in the scope it came from.
func TestMCPImportRoundTrip(t *testing.T) {
	keyring.MockInit()
	e := newEnv(t)
	home := e.withHome()
	copyClientFile(t, "codex/config.toml", filepath.Join(home, ".codex", "config.toml"))
	claude := readFile(t, filepath.Join(importTestdata, "claude-code", "claude.json"))
	claude = strings.ReplaceAll(claude, "/home/alice/src/app", filepath.ToSlash(e.work))
	writeFile(t, filepath.Join(home, ".claude.json"), claude)

	e.must(exitOK, "mcp", "import", "--from", "codex", "--yes")
	e.must(exitOK, "mcp", "import", "--from", "claude-code", "--yes")

	user := e.listServers("--scope", "user")
	for _, id := range []string{"context7", "docs", "figma", "sentry", "linear", "airtable"} {
		if _, ok := user[id]; !ok {
			t.Errorf("%s is not in the user scope: %v", id, user)
		}
	}
	local := e.listServers("--scope", "local")
	if _, ok := local["postgres"]; !ok {
		t.Errorf("the directory's own server is not in the local scope: %v", local)
	}
	if _, ok := user["other"]; ok {
		t.Error("another directory's server was imported")
	}

	docs := e.getServer("docs")
	if docs["enabled"] != false || docs["cwd"] != "/srv/docs" || strings.Join(strs(docs["tools_allow"]), ",") != "search,open" ||
		strings.Join(strs(docs["tools_deny"]), ",") != "delete" {
		t.Errorf("docs: %v", docs)
	}
	if c7 := e.getServer("context7"); c7["startup_timeout"] != "20s" || c7["request_timeout"] != "1m0s" {
		t.Errorf("context7 timeouts: %v", c7)
	}
	figma := e.getServer("figma")
	if figma["transport"] != "http" || figma["url"] != "https://mcp.figma.com/mcp" {
		t.Errorf("figma: %v", figma)
	}
	if linear := e.getServer("linear"); linear["transport"] != "sse" {
		t.Errorf("linear: %v", linear)
	}
	// The local entry of the directory wins over the user entry of the
	// same id, as in Claude Code.
	if s := e.getServer("sentry"); s["headers"] == nil {
		t.Errorf("sentry is not the directory's entry: %v", s)
	}
}

// add-json takes one server in any client's shape and says which.
func TestMCPAddJSON(t *testing.T) {
	keyring.MockInit()
	e := newEnv(t)
	e.withHome()

	r := e.must(exitOK, "mcp", "add-json", "docs", `{"httpUrl": "https://docs.example.com/mcp", "timeout": 30000, "trust": true}`, "--scope", "user")
	for _, want := range []string{"recognised: Gemini CLI", "converted: timeout 30000 (ms) → request_timeout 30s", "dropped trust:", `added server "docs"`} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("no %q in\n%s", want, r)
		}
	}
	if s := e.getServer("docs"); s["request_timeout"] != "30s" || s["transport"] != "http" {
		t.Errorf("docs: %v", s)
	}

	r = e.must(exitUsage, "mcp", "add-json", "docs", `{"command": "x"}`, "--scope", "user")
	if !strings.Contains(r.stderr, "--replace") {
		t.Errorf("an existing id:\n%s", r)
	}
	e.must(exitOK, "mcp", "add-json", "docs", `{"command": "x"}`, "--scope", "user", "--replace")

	r = e.runStdin(`{"cmd": "npx", "args": ["-y", "srv"], "env_keys": ["TOKEN"], "type": "stdio"}`, "mcp", "add-json", "goose-srv", "-")
	if r.code != exitOK || !strings.Contains(r.stdout, "recognised: Goose") {
		t.Fatalf("from stdin:\n%s", r)
	}
	if s := e.getServer("goose-srv"); s["command"] != "npx" {
		t.Errorf("goose-srv: %v", s)
	}

	for _, c := range []struct{ args []string }{
		{[]string{"bad id", `{"command": "x"}`}},
		{[]string{"x", `{"command": `}},
		{[]string{"x", `{"mcpServers": {"a": {"command": "a"}, "b": {"command": "b"}}}`}},
	} {
		r := e.run(append([]string{"mcp", "add-json"}, c.args...)...)
		if r.code != exitUsage || !strings.HasPrefix(r.stderr, "mcphost: clientconf:") {
			t.Errorf("%v:\n%s", c.args, r)
		}
	}
}

func TestMCPImportUsage(t *testing.T) {
	e := newEnv(t)
	home := e.withHome()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"mcp", "import"}, "--from is required"},
		{[]string{"mcp", "import", "--from", "notepad"}, "unknown client"},
		{[]string{"mcp", "import", "--from", "zed"}, "no zed configuration found"},
		{[]string{"mcp", "import", "--from", "zed", "--scope", "everywhere"}, "unknown scope"},
	} {
		r := e.run(c.args...)
		if r.code != exitUsage || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: want %q:\n%s", c.args, c.want, r)
		}
	}
	bad := writeFile(t, filepath.Join(home, "broken.json"), `{"context_servers": `)
	if r := e.run("mcp", "import", "--from", "zed", bad); r.code != exitUsage || !strings.Contains(r.stderr, "broken.json") || !strings.Contains(r.stderr, "nothing was imported") {
		t.Errorf("a broken file:\n%s", r)
	}
}
