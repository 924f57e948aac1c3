package clientconf

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mcphost/mcphost/host/authn"
	"github.com/mcphost/mcphost/host/config"
)

// importEnv is the machine the test files were written on.
var importEnv = Env{GOOS: "linux", Home: "/home/alice", WorkDir: "/home/alice/src/app"}

// wantImport is what one server of a client file must become.
type wantImport struct {
	entry     config.ServerEntry
	converted []string // each must be (part of) a Converted note
	dropped   []string // exactly the dropped fields
	inputs    []Input  // compared without Value
}

type importCase struct {
	kind  Kind
	file  string // under testdata/import
	scope Scope
	// servers by "scope/id"
	servers map[string]wantImport
	skipped []string
	notes   []string
}

func importCases() []importCase {
	f := false
	// The keychain name of a secret of a file (see SecretName).
	secret := func(file, id, what string) string { return SecretName(file, id, what) }
	ref := func(file, id, what string) string { return "${secret:" + secret(file, id, what) + "}" }
	return []importCase{
		{kind: ClaudeDesktop, file: "claude-desktop/claude_desktop_config.json", scope: ScopeUser, servers: map[string]wantImport{
			"user/filesystem": {entry: config.ServerEntry{Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "/Users/alice/Desktop", "/Users/alice/Downloads"}}},
			"user/github": {entry: config.ServerEntry{Command: "docker", Args: []string{"run", "-i", "--rm", "-e", "GITHUB_PERSONAL_ACCESS_TOKEN", "ghcr.io/github/github-mcp-server"},
				Env: map[string]string{"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_exampleexampleexampleexample0000"}}},
			// Claude Desktop expands nothing: the "$" stay literal.
			"user/Brave-Search": {entry: config.ServerEntry{Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-brave-search"},
				Env: map[string]string{"BRAVE_API_KEY": "pa$$word-$${NOT_EXPANDED}"}},
				converted: []string{`id "Brave Search" → "Brave-Search"`, `env.BRAVE_API_KEY: "$" doubled`}},
		}},
		{kind: ClaudeCode, file: "claude-code/claude.json", scope: ScopeUser, servers: map[string]wantImport{
			"user/sentry":   {entry: config.ServerEntry{URL: "https://mcp.sentry.dev/mcp"}},
			"user/linear":   {entry: config.ServerEntry{Transport: "sse", URL: "https://mcp.linear.app/sse"}},
			"user/airtable": {entry: config.ServerEntry{Command: "npx", Args: []string{"-y", "airtable-mcp-server"}, Env: map[string]string{"AIRTABLE_API_KEY": "${AIRTABLE_API_KEY}"}}},
			// Only this directory's private servers, in the local scope.
			"local/postgres": {entry: config.ServerEntry{Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-postgres", "${DATABASE_URL:-postgresql://localhost/app}"}}},
			"local/sentry": {entry: config.ServerEntry{URL: "https://mcp.sentry.dev/mcp", Headers: map[string]string{"Authorization": "Bearer ${SENTRY_TOKEN}"}},
				dropped: []string{"headersHelper"}},
		}, notes: []string{"1 other directories have servers of their own"}},
		{kind: ClaudeCode, file: "claude-code/.mcp.json", scope: ScopeProject, servers: map[string]wantImport{
			"project/api-server": {entry: config.ServerEntry{URL: "${API_BASE_URL:-https://api.example.com}/mcp", Headers: map[string]string{"Authorization": "Bearer ${API_KEY}"}}},
			"project/corp":       {entry: config.ServerEntry{URL: "https://mcp.corp.example/mcp", OAuth: map[string]any{"client_id": "mcphost-client", "redirect_port": 8080}}},
			"project/price": {entry: config.ServerEntry{Command: "bad-ref", Args: []string{"$${unterminated"}},
				converted: []string{`id "price$" → "price"`, "args[0]: kept literally"}},
		}},
		{kind: Cursor, file: "cursor/mcp.json", scope: ScopeUser, servers: map[string]wantImport{
			"user/context7": {entry: config.ServerEntry{URL: "https://mcp.context7.com/mcp", Headers: map[string]string{"CONTEXT7_API_KEY": "${CONTEXT7_API_KEY}"}},
				converted: []string{"${env:CONTEXT7_API_KEY} → ${CONTEXT7_API_KEY}"}},
			"user/local-tools": {entry: config.ServerEntry{Command: "python3", Args: []string{"/home/alice/src/app/tools/server.py"},
				Env: map[string]string{"PYTHONPATH": "/home/alice/src/app/venv/lib"}, EnvFile: "/home/alice/src/app/.env"},
				converted: []string{"${workspaceFolder} → /home/alice/src/app", "envFile → env_file"}},
			"user/oauth-server": {entry: config.ServerEntry{URL: "https://api.example.com/mcp",
				OAuth: map[string]any{"client_id": "my-client", "client_secret": ref("cursor/mcp.json", "oauth-server", "client_secret"), "scopes": []any{"read", "write"}}},
				converted: []string{"auth → oauth", "kept as the mcphost secret oauth-server.client_secret"},
				inputs:    []Input{{Description: "client_secret of server oauth-server", Password: true, Secret: secret("cursor/mcp.json", "oauth-server", "client_secret")}}},
			"user/sse-server": {entry: config.ServerEntry{Transport: "sse", URL: "http://localhost:8000/sse"}},
		}},
		{kind: Windsurf, file: "windsurf/mcp_config.json", scope: ScopeUser, servers: map[string]wantImport{
			"user/userjot": {entry: config.ServerEntry{URL: "https://api.userjot.com/v1/mcp", Headers: map[string]string{"Authorization": "Bearer ${USERJOT_API_TOKEN}"}}},
			"user/git":     {entry: config.ServerEntry{Command: "uvx", Args: []string{"mcp-server-git"}, Enabled: &f}, converted: []string{"disabled: true → enabled: false"}},
			"user/filesystem": {entry: config.ServerEntry{Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "/home/alice/projects"},
				Tools: &config.ToolsEntry{Deny: []string{"write_file", "move_file"}}}, converted: []string{"${userHome} → /home/alice", "disabledTools → tools.deny"}},
			// ${file:...} cannot be expressed: that header alone is left out.
			"user/from-file": {entry: config.ServerEntry{URL: "https://tools.example.com/mcp", Headers: map[string]string{"X-Team": "platform"}},
				dropped: []string{"headers.Authorization"}},
		}},
		{kind: VSCode, file: "vscode/.vscode/mcp.json", scope: ScopeProject, servers: map[string]wantImport{
			"project/Perplexity": {entry: config.ServerEntry{Command: "npx", Args: []string{"-y", "server-perplexity-ask"},
				Env: map[string]string{"PERPLEXITY_API_KEY": ref("vscode/.vscode/mcp.json", "Perplexity", "perplexity-key")}},
				inputs: []Input{{ID: "perplexity-key", Description: "Perplexity API Key", Password: true, Secret: secret("vscode/.vscode/mcp.json", "Perplexity", "perplexity-key")}}},
			"project/fetch": {entry: config.ServerEntry{Command: "uvx", Args: []string{"mcp-server-fetch"}}},
			"project/github": {entry: config.ServerEntry{URL: "https://api.githubcopilot.com/mcp/", Headers: map[string]string{"Authorization": "Bearer ${GITHUB_TOKEN}"}},
				converted: []string{"${env:GITHUB_TOKEN} → ${GITHUB_TOKEN}"}},
			"project/my-remote": {entry: config.ServerEntry{Transport: "sse", URL: "http://localhost:3000/sse"}},
			"project/db": {entry: config.ServerEntry{Command: "node", Args: []string{"/home/alice/src/app/db/server.js", "--db", "${input:db-name}"},
				Env: map[string]string{"HOME_DIR": "/home/alice", "TOKEN": "${DB_TOKEN}"}, EnvFile: "/home/alice/src/app/.env", Cwd: "/home/alice/src/app"},
				dropped: []string{"dev"}, inputs: []Input{{ID: "db-name", Description: "Database name", Default: "app_dev"}},
				converted: []string{"${input:db-name}: asked once, written as a plain value", "envFile → env_file"}},
			"project/from-gallery":  {entry: config.ServerEntry{Command: "npx", Args: []string{"@playwright/mcp@latest"}}, dropped: []string{"gallery", "version"}},
			"project/unknown-input": {entry: config.ServerEntry{Command: "x-server"}, dropped: []string{"env.KEY"}},
		}},
		{kind: VSCode, file: "vscode/settings.json", scope: ScopeUser, servers: map[string]wantImport{
			"user/memory": {entry: config.ServerEntry{Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-memory"}}},
			"user/remote-api": {entry: config.ServerEntry{URL: "https://api.example.com/mcp", Headers: map[string]string{"Authorization": "Bearer " + ref("vscode/settings.json", "remote-api", "api-token")}},
				inputs: []Input{{ID: "api-token", Description: "API token", Password: true, Secret: secret("vscode/settings.json", "remote-api", "api-token")}}},
		}},
		{kind: Codex, file: "codex/config.toml", scope: ScopeUser, servers: map[string]wantImport{
			"user/context7": {entry: config.ServerEntry{Command: "npx", Args: []string{"-y", "@upstash/context7-mcp"}, StartupTimeout: "20s", RequestTimeout: "60s"},
				converted: []string{"startup_timeout_sec 20 → startup_timeout 20s", "tool_timeout_sec 60 → request_timeout 60s", "env_vars"}},
			"user/docs": {entry: config.ServerEntry{Command: "docs-server", Args: []string{"--port", "4000"}, Cwd: "/srv/docs", Enabled: &f,
				Env:   map[string]string{"API_KEY": "literal$${NOT_A_REF}", "MODE": "prod"},
				Tools: &config.ToolsEntry{Allow: []string{"search", "open"}, Deny: []string{"delete"}}},
				dropped: []string{"required"}, converted: []string{"enabled_tools → tools.allow", "disabled_tools → tools.deny"}},
			"user/figma": {entry: config.ServerEntry{URL: "https://mcp.figma.com/mcp", StartupTimeout: "2500ms", RequestTimeout: "1500ms",
				Headers: map[string]string{"X-Figma-Region": "us-east-1", "X-Tenant": "${FIGMA_TENANT}"},
				Auth:    map[string]any{"type": "bearer", "token": "${FIGMA_OAUTH_TOKEN}"}},
				dropped:   []string{"scopes"},
				converted: []string{"bearer_token_env_var FIGMA_OAUTH_TOKEN → auth: {type: bearer, token: ${FIGMA_OAUTH_TOKEN}}", "http_headers → headers", "env_http_headers X-Tenant"}},
		}},
		{kind: Gemini, file: "gemini/.gemini/settings.json", scope: ScopeProject, servers: map[string]wantImport{
			"project/pythonTools": {entry: config.ServerEntry{Command: "python", Args: []string{"-m", "my_mcp_server", "--port", "8080"},
				Cwd: "/home/alice/src/app/mcp-servers/python", RequestTimeout: "15s",
				Env:   map[string]string{"DATABASE_URL": "${DB_CONNECTION_STRING}", "API_KEY": "${EXTERNAL_API_KEY}"},
				Tools: &config.ToolsEntry{Allow: []string{"safe_tool", "file_reader"}, Deny: []string{"dangerous_tool"}}},
				dropped: []string{"trust"}, converted: []string{"$DB_CONNECTION_STRING → ${DB_CONNECTION_STRING}", "timeout 15000 (ms) → request_timeout 15s", "includeTools → tools.allow"}},
			"project/httpServer": {entry: config.ServerEntry{URL: "http://localhost:3000/mcp", RequestTimeout: "5s", Headers: map[string]string{"Authorization": "Bearer ${MY_TOKEN}"}},
				converted: []string{"httpUrl → url (Streamable HTTP)"}},
			"project/sseServer": {entry: config.ServerEntry{Transport: "sse", URL: "https://api.example.com/sse"}, dropped: []string{"trust", "description"}},
			"project/oauthServer": {entry: config.ServerEntry{Transport: "sse", URL: "https://api.example.com/sse", OAuth: map[string]any{
				"client_id": "gemini-client", "client_secret": ref("gemini/.gemini/settings.json", "oauthServer", "client_secret"), "authorization_url": "https://auth.example.com/authorize",
				"token_url": "https://auth.example.com/token", "scopes": []any{"read", "write"}}},
				dropped: []string{"oauth.redirectUri"},
				inputs:  []Input{{Description: "client_secret of server oauthServer", Password: true, Secret: secret("gemini/.gemini/settings.json", "oauthServer", "client_secret")}}},
			"project/googleServer": {entry: config.ServerEntry{URL: "https://my-gcp-service.run.app/mcp"}, dropped: []string{"oauth", "authProviderType"}},
			"project/off":          {entry: config.ServerEntry{Command: "off-server", Enabled: &f}, converted: []string{"listed in mcp.excluded → enabled: false"}},
		}},
		{kind: Zed, file: "zed/settings.json", scope: ScopeUser, skipped: []string{"mcp-server-github"}, servers: map[string]wantImport{
			"user/hexdocs-mcp": {entry: config.ServerEntry{Command: "npx", Args: []string{"-y", "hexdocs-mcp@0.5.0"}}},
			"user/old-style": {entry: config.ServerEntry{Command: "/usr/local/bin/my-context-server", Args: []string{"run"}, Env: map[string]string{"DEBUG": "1"}},
				converted: []string{"command.path → command"}},
			"user/remote": {entry: config.ServerEntry{URL: "https://mcp.example.com/mcp", Headers: map[string]string{"Authorization": "Bearer abc"}}},
			"user/off":    {entry: config.ServerEntry{Command: "off-server", Enabled: &f}},
		}},
		{kind: Goose, file: "goose/config.yaml", scope: ScopeUser, skipped: []string{"developer"}, servers: map[string]wantImport{
			"user/github": {entry: config.ServerEntry{Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-github"}, RequestTimeout: "300s",
				Env: map[string]string{"GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_PERSONAL_ACCESS_TOKEN}"}},
				dropped: []string{"description", "bundled"}, converted: []string{"cmd → command", "env_keys GITHUB_PERSONAL_ACCESS_TOKEN"}},
			"user/remote": {entry: config.ServerEntry{URL: "https://mcp.example.com/mcp", Headers: map[string]string{"Authorization": "Bearer abc"},
				Enabled: &f, RequestTimeout: "120s", Tools: &config.ToolsEntry{Allow: []string{"search"}}},
				dropped: []string{"description"}, converted: []string{"uri → url", "available_tools → tools.allow"}},
			"user/sse-ext": {entry: config.ServerEntry{Transport: "sse", URL: "http://localhost:8000/sse", RequestTimeout: "300s"}, dropped: []string{"env"}},
		}},
		{kind: Codelia, file: "codelia/.codelia/config.json", scope: ScopeProject, servers: map[string]wantImport{
			"project/remote-tools": {entry: config.ServerEntry{URL: "https://tools.example.com/mcp", Headers: map[string]string{"X-Workspace": "codelia"}, RequestTimeout: "30s"},
				converted: []string{"request_timeout_ms 30000 → request_timeout 30s"}},
			"project/filesystem-local": {entry: config.ServerEntry{Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "/home/alice/src/app"},
				Cwd: "/home/alice/src/app", Env: map[string]string{"NODE_ENV": "production"}, RequestTimeout: "1500ms"}},
			"project/gossiper-oauth": {entry: config.ServerEntry{URL: "https://mcp.gossiper.example/mcp", Enabled: &f, OAuth: map[string]any{
				"authorization_url": "https://mcp.gossiper.example/oauth2/authorize", "token_url": "https://mcp.gossiper.example/oauth2/token",
				"registration_url": "https://mcp.gossiper.example/oauth2/register", "client_id": "codelia",
				"client_secret": ref("codelia/.codelia/config.json", "gossiper-oauth", "client_secret"), "scopes": []any{"mcp", "tools.read"}}},
				inputs: []Input{{Description: "client_secret of server gossiper-oauth", Password: true, Secret: secret("codelia/.codelia/config.json", "gossiper-oauth", "client_secret")}}},
		}},
		{kind: Beans, file: "beans/.beans/mcp.json", scope: ScopeProject, servers: map[string]wantImport{
			"project/database": {entry: config.ServerEntry{Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-postgres"}, Env: map[string]string{"DATABASE_URL": "postgresql://localhost/mydb"}}},
			"project/github":   {entry: config.ServerEntry{Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-github"}, Env: map[string]string{"GITHUB_TOKEN": "${GITHUB_TOKEN}"}}},
			"project/custom-api": {entry: config.ServerEntry{URL: "https://api.example.com/mcp", Auth: map[string]any{"type": "api_key", "header": "X-API-Key", "key": "${CUSTOM_API_KEY}"}},
				converted: []string{"auth api_key"}},
			"project/ws-tools": {entry: config.ServerEntry{Transport: "websocket", URL: "ws://localhost:9000/mcp", Auth: map[string]any{"type": "token_file", "path": "/home/alice/src/app/.beans/token"}},
				dropped: []string{"name"}},
		}},
		{kind: Tenx, file: "tenx/mcp.json", scope: ScopeProject, servers: map[string]wantImport{
			"project/git": {entry: config.ServerEntry{Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-git", "--repository", "."}}},
			"project/github": {entry: config.ServerEntry{URL: "https://api.github.com/mcp", OAuth: map[string]any{"client_id": "your-client-id", "scopes": []any{"read:repo", "write:issues"}}},
				converted: []string{`transport "streamable-http" → transport http`, "authorization → oauth"}},
		}},
	}
}

// TestImportRealFiles reads each client's file as that client writes it
// and compares every server with what mcphost must write.
func TestImportRealFiles(t *testing.T) {
	for _, c := range importCases() {
		t.Run(c.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "import", c.file))
			if err != nil {
				t.Fatal(err)
			}
			res, err := Import(c.kind, data, Source{Path: c.file, Scope: c.scope, Env: importEnv})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]Imported{}
			for _, im := range res.Servers {
				key := string(im.Scope) + "/" + im.Entry.ID
				if _, dup := got[key]; dup {
					t.Errorf("%s imported twice", key)
				}
				got[key] = im
			}
			for key, want := range c.servers {
				im, ok := got[key]
				if !ok {
					t.Errorf("%s: not imported (imported %v, skipped %v)", key, sortedNames(got), res.Skipped)
					continue
				}
				checkImported(t, key, im, want)
			}
			for key := range got {
				if _, ok := c.servers[key]; !ok {
					t.Errorf("%s: imported but not expected", key)
				}
			}
			var skipped []string
			for _, s := range res.Skipped {
				skipped = append(skipped, s.Name)
				if s.Reason == "" {
					t.Errorf("skipped %s without a reason", s.Name)
				}
			}
			if !slices.Equal(skipped, c.skipped) {
				t.Errorf("skipped %v, want %v (%+v)", skipped, c.skipped, res.Skipped)
			}
			for _, n := range c.notes {
				if !slices.ContainsFunc(res.Notes, func(s string) bool { return strings.Contains(s, n) }) {
					t.Errorf("no note %q in %q", n, res.Notes)
				}
			}
		})
	}
}

func checkImported(t *testing.T, key string, im Imported, want wantImport) {
	t.Helper()
	want.entry.ID = im.Entry.ID
	if !reflect.DeepEqual(im.Entry, want.entry) {
		t.Errorf("%s: entry\n got %+v\nwant %+v", key, im.Entry, want.entry)
	}
	for _, c := range want.converted {
		if !slices.ContainsFunc(im.Converted, func(s string) bool { return strings.Contains(s, c) }) {
			t.Errorf("%s: no note %q in %q", key, c, im.Converted)
		}
	}
	var dropped []string
	for _, d := range im.Dropped {
		dropped = append(dropped, d.Field)
		if d.Reason == "" {
			t.Errorf("%s: %s dropped without a reason", key, d.Field)
		}
	}
	slices.Sort(dropped)
	wantDropped := slices.Clone(want.dropped)
	slices.Sort(wantDropped)
	if !slices.Equal(dropped, wantDropped) {
		t.Errorf("%s: dropped %v, want %v (%+v)", key, dropped, wantDropped, im.Dropped)
	}
	var inputs []Input
	for _, in := range im.Inputs {
		in.Value = ""
		inputs = append(inputs, in)
	}
	if !reflect.DeepEqual(inputs, want.inputs) {
		t.Errorf("%s: inputs\n got %+v\nwant %+v", key, inputs, want.inputs)
	}
}

// Every imported entry passes the loader's own checks, once its plain
// inputs are answered.
func TestImportedEntriesValidate(t *testing.T) {
	for _, c := range importCases() {
		data, err := os.ReadFile(filepath.Join("testdata", "import", c.file))
		if err != nil {
			t.Fatal(err)
		}
		res, err := Import(c.kind, data, Source{Path: c.file, Scope: c.scope, Env: importEnv})
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range res.Servers {
			if err := im.Fill(nil).Validate(); err != nil {
				t.Errorf("%s: %s: %v", c.file, im.Entry.ID, err)
			}
		}
	}
}

// Secrets a file held in clear are kept for the keychain, never in a note.
func TestImportSecretValues(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "import", "cursor", "mcp.json"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Import(Cursor, data, Source{Scope: ScopeUser, Env: importEnv})
	if err != nil {
		t.Fatal(err)
	}
	const secret = "cursor-client-secret-0000"
	found := false
	for _, im := range res.Servers {
		for _, in := range im.Inputs {
			found = found || in.Value == secret
		}
		text := strings.Join(im.Converted, "\n")
		for _, d := range im.Dropped {
			text += d.Field + d.Reason
		}
		if strings.Contains(text, secret) || strings.Contains(strings.Join(im.Fill(nil).Args, " "), secret) {
			t.Errorf("%s: the secret is in the notes or the entry", im.Entry.ID)
		}
	}
	if !found {
		t.Error("the client secret is not kept as an input to store")
	}
}

// The answer to a plain input is written literally, whatever "$" it holds.
func TestFillEscapes(t *testing.T) {
	data := []byte(`{"inputs": [{"type": "promptString", "id": "dir"}],
		"servers": {"s": {"command": "srv", "args": ["--dir=${input:dir}{x}"], "cwd": "${input:dir}"}}}`)
	res, err := Import(VSCode, data, Source{Scope: ScopeProject, Env: importEnv})
	if err != nil || len(res.Servers) != 1 {
		t.Fatalf("%v %+v", err, res)
	}
	e := res.Servers[0].Fill(map[string]string{"dir": "/tmp/a$"})
	got, err := config.Expand(e.Args[0], nil)
	if err != nil || got != "--dir=/tmp/a${x}" {
		t.Errorf("args[0] %q expands to %q (%v)", e.Args[0], got, err)
	}
	if e.Cwd != "/tmp/a$" {
		t.Errorf("cwd %q (mcphost does not expand cwd: the answer goes in as it is)", e.Cwd)
	}
	if def := res.Servers[0].Fill(nil); def.Args[0] != "--dir={x}" {
		t.Errorf("no answer and no default: %q", def.Args[0])
	}
}

func TestValidServerID(t *testing.T) {
	for in, want := range map[string]string{
		"github":                "github",
		"Brave Search":          "Brave-Search",
		"@scope/pkg":            "scope-pkg",
		"a__b":                  "a_b",
		"mcphost":               "mcphost-server",
		"MCPHOST":               "MCPHOST-server",
		"":                      "server",
		"..":                    "server",
		"ünïcode":               "n-code",
		strings.Repeat("a", 64): strings.Repeat("a", 64),
	} {
		if got := ValidServerID(in); got != want {
			t.Errorf("ValidServerID(%q) = %q, want %q", in, got, want)
		}
	}
	long1, long2 := ValidServerID(strings.Repeat("x", 70)+"1"), ValidServerID(strings.Repeat("x", 70)+"2")
	if long1 == long2 || config.CheckServerID(long1) != nil || len(long1) != 64 {
		t.Errorf("long names: %q %q", long1, long2)
	}
}

// Two names that become the same id stay two servers.
func TestImportIDCollision(t *testing.T) {
	data := []byte(`{"mcpServers": {"my server": {"command": "a"}, "my-server": {"command": "b"}}}`)
	res, err := Import(ClaudeDesktop, data, Source{Scope: ScopeUser})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, im := range res.Servers {
		ids = append(ids, im.Entry.ID)
	}
	slices.Sort(ids)
	if !slices.Equal(ids, []string{"my-server", "my-server-2"}) {
		t.Errorf("ids %v", ids)
	}
}

// A secret's keychain name reads as its server and input, and is unique to
// the file it comes from: a cloned repository's file that defines the same
// server and input as the user's own does not name the user's secret.
func TestSecretName(t *testing.T) {
	const mine, theirs = "/home/alice/.vscode-user/mcp.json", "/home/alice/src/clone/.vscode/mcp.json"
	a := SecretName(mine, "srv", "api-key")
	if !strings.HasPrefix(a, "srv.api-key.") || len(a) != len("srv.api-key.")+8 || SecretName(mine, "srv", "api-key") != a {
		t.Errorf("SecretName = %q", a)
	}
	if b := SecretName(theirs, "srv", "api-key"); b == a {
		t.Errorf("two files give the same name %q", b)
	}
	long := SecretName(mine, strings.Repeat("s", 64), "in put/€")
	if len(long) > 64 || long == SecretName(mine, strings.Repeat("s", 64), "other") || long == SecretName(theirs, strings.Repeat("s", 64), "in put/€") {
		t.Errorf("long name %q", long)
	}
	for _, name := range []string{a, long} {
		if err := authn.CheckSecretName(name); err != nil {
			t.Error(err)
		}
	}
}

// Files that are broken, or not the client's, are errors or notes: never a
// crash, never a server made up.
func TestImportBadFiles(t *testing.T) {
	for _, c := range []struct {
		kind Kind
		data string
		err  string
	}{
		{ClaudeDesktop, `{"mcpServers": `, "not valid JSON"},
		{ClaudeDesktop, `[1, 2]`, "not an object"},
		{ClaudeDesktop, strings.Repeat("[", 200) + strings.Repeat("]", 200), "nested"},
		{Codex, strings.Repeat("a = [", 200), "nested"},
		{Codex, `[mcp_servers.x`, "not valid TOML"},
		{Goose, "extensions: [\n", "not valid YAML"},
		{Kind("nope"), `{}`, "unknown client"},
	} {
		_, err := Import(c.kind, []byte(c.data), Source{})
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s %.30q: error %v, want %q", c.kind, c.data, err, c.err)
		}
	}
	for _, c := range []struct {
		kind Kind
		data string
	}{
		{ClaudeDesktop, ``},
		{ClaudeDesktop, `{"theme": "dark"}`},
		{ClaudeDesktop, `{"mcpServers": []}`},
		{ClaudeDesktop, `{"mcpServers": {"a": 1, "b": {"command": 2}, "c": {"type": "carrier-pigeon", "command": "x"}, "d": {}}}`},
		{VSCode, `{"servers": {"a": {"command": "x", "env": {"K": "${input:nope}"}}}, "inputs": 3}`},
		{Zed, `{"context_servers": {"a": {"command": {"path": 1}}}}`},
		{Goose, "extensions:\n  a: {type: stdio}\n  b: 3\n"},
	} {
		res, err := Import(c.kind, []byte(c.data), Source{})
		if err != nil {
			t.Errorf("%s %q: %v", c.kind, c.data, err)
			continue
		}
		for _, im := range res.Servers {
			if err := im.Fill(nil).Validate(); err != nil {
				t.Errorf("%s %q: imported an invalid entry %s: %v", c.kind, c.data, im.Entry.ID, err)
			}
		}
	}
}

func TestImportFileMissing(t *testing.T) {
	_, err := ImportFile(Location{Kind: Cursor, Scope: ScopeUser, Path: filepath.Join(t.TempDir(), "mcp.json")}, importEnv)
	if err == nil || !strings.Contains(err.Error(), "mcp.json") {
		t.Fatalf("error %v", err)
	}
}

// A per-directory entry of ~/.claude.json on Windows matches the project
// directory whatever slashes and case it was written with.
func TestClaudeCodeWindowsDirs(t *testing.T) {
	data := []byte(`{"projects": {"c:/Users/Alice/app": {"mcpServers": {"x": {"command": "x"}}}}}`)
	env := Env{GOOS: "windows", WorkDir: `C:\Users\Alice\app`}
	res, err := Import(ClaudeCode, data, Source{Scope: ScopeUser, Env: env})
	if err != nil || len(res.Servers) != 1 || res.Servers[0].Scope != ScopeLocal {
		t.Fatalf("%v %+v", err, res)
	}
}

// Codelia's and the Beans agent's user files move with their variables.
func TestImportLocationsOfOrigins(t *testing.T) {
	vars := map[string]string{}
	env := Env{GOOS: "linux", Home: "/home/alice", WorkDir: "/home/alice/app", Getenv: func(k string) string { return vars[k] }}
	paths := func(k Kind) []string {
		var out []string
		for _, l := range Locations(k, env) {
			out = append(out, l.Path)
		}
		return out
	}
	if got := paths(Codelia); !slices.Equal(got, []string{"/home/alice/.codelia/config.json", "/home/alice/app/.codelia/config.json"}) {
		t.Errorf("codelia: %v", got)
	}
	vars["CODELIA_LAYOUT"] = "xdg"
	if got := paths(Codelia)[0]; got != "/home/alice/.config/codelia/config.json" {
		t.Errorf("codelia xdg: %v", got)
	}
	vars["CODELIA_CONFIG_PATH"] = "/etc/codelia.json"
	if got := paths(Codelia)[0]; got != "/etc/codelia.json" {
		t.Errorf("codelia CODELIA_CONFIG_PATH: %v", got)
	}
	vars["XDG_CONFIG_HOME"] = "/xdg"
	if got := paths(Beans); !slices.Equal(got, []string{"/xdg/beans-agent/mcp.json", "/home/alice/app/.beans/mcp.json"}) {
		t.Errorf("beans: %v", got)
	}
}

// ~/.claude.json holds much more than servers: the rest is stepped over,
// whatever its shape, and the file may be larger than a settings file.
func TestClaudeJSONLarge(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"history": [`)
	for i := 0; b.Len() < int(config.MaxConfigBytes)+1024; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"display": "a prompt with \"quotes\" and {braces} [brackets]", "pastedContents": {}}`)
	}
	b.WriteString(`], "projects": {"/home/alice/src/app": {"history": [[[]]], "mcpServers": {"p": {"command": "p"}}}, "/x": [1], "/y": 3},`)
	b.WriteString(`"mcpServers": {"u": {"type": "http", "url": "https://u.example/mcp"}}, "tail": null}`)
	path := filepath.Join(t.TempDir(), ".claude.json")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := ImportFile(Location{Kind: ClaudeCode, Scope: ScopeUser, Path: path}, importEnv)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, im := range res.Servers {
		got = append(got, string(im.Scope)+"/"+im.Entry.ID)
	}
	if !slices.Equal(got, []string{"user/u", "local/p"}) {
		t.Errorf("servers %v", got)
	}
	for _, bad := range []string{`[]`, `{"mcpServers": {"a": `, `{} {}`, `{"projects": {"/home/alice/src/app": {"mcpServers": [}}}`} {
		if _, err := Import(ClaudeCode, []byte(bad), Source{Path: ".claude.json", Env: importEnv}); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}
