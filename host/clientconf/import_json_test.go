package clientconf

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/mcphost/mcphost/host/config"
)

// One entry in each client's shape is recognised by its keys and
// converted like the import of that client's file.
func TestImportJSONShapes(t *testing.T) {
	f := false
	for _, c := range []struct {
		json  string
		shape Shape
		want  config.ServerEntry
	}{
		{`{"command": "npx", "args": ["-y", "srv"], "env": {"K": "${K}"}}`, ShapeClaude,
			config.ServerEntry{Command: "npx", Args: []string{"-y", "srv"}, Env: map[string]string{"K": "${K}"}}},
		{`{"type": "sse", "url": "https://a.example/sse", "headers": {"Authorization": "Bearer ${T}"}}`, ShapeClaude,
			config.ServerEntry{Transport: "sse", URL: "https://a.example/sse", Headers: map[string]string{"Authorization": "Bearer ${T}"}}},
		{`{"command": "srv", "startup_timeout": "30s", "tools": {"deny": ["rm*"]}}`, ShapeMcphost,
			config.ServerEntry{Command: "srv", StartupTimeout: "30s", Tools: &config.ToolsEntry{Deny: []string{"rm*"}}}},
		{`{"url": "https://a.example/mcp", "headers": {"K": "${env:K}"}}`, ShapeCursor,
			config.ServerEntry{URL: "https://a.example/mcp", Headers: map[string]string{"K": "${K}"}}},
		{`{"serverUrl": "https://a.example/mcp", "disabled": true}`, ShapeWindsurf,
			config.ServerEntry{URL: "https://a.example/mcp", Enabled: &f}},
		{`{"type": "stdio", "command": "node", "args": ["${workspaceFolder}/s.js"], "envFile": ".env"}`, ShapeVSCode,
			config.ServerEntry{Command: "node", Args: []string{"/home/alice/src/app/s.js"}, EnvFile: "/home/alice/src/app/.env"}},
		// "code --add-mcp" names the server inside the entry.
		{`{"name": "other", "command": "uvx", "args": ["mcp-server-fetch"], "env": {"K": "${input:k}"}}`, ShapeVSCode,
			config.ServerEntry{Command: "uvx", Args: []string{"mcp-server-fetch"}}},
		{`{"url": "https://a.example/mcp", "bearer_token_env_var": "TOK", "tool_timeout_sec": 90}`, ShapeCodex,
			config.ServerEntry{URL: "https://a.example/mcp", RequestTimeout: "90s", Auth: map[string]any{"type": "bearer", "token": "${TOK}"}}},
		{`{"httpUrl": "https://a.example/mcp", "timeout": 30000, "trust": true}`, ShapeGemini,
			config.ServerEntry{URL: "https://a.example/mcp", RequestTimeout: "30s"}},
		{`{"command": "python", "args": ["s.py"], "timeout": 2000}`, ShapeGemini,
			config.ServerEntry{Command: "python", Args: []string{"s.py"}, RequestTimeout: "2s"}},
		{`{"command": {"path": "/bin/srv", "args": ["run"]}, "settings": {}}`, ShapeZed,
			config.ServerEntry{Command: "/bin/srv", Args: []string{"run"}}},
		{`{"source": "custom", "command": "srv"}`, ShapeZed, config.ServerEntry{Command: "srv"}},
		{`{"type": "stdio", "cmd": "npx", "args": ["srv"], "env_keys": ["TOKEN"], "timeout": 300}`, ShapeGoose,
			config.ServerEntry{Command: "npx", Args: []string{"srv"}, Env: map[string]string{"TOKEN": "${TOKEN}"}, RequestTimeout: "300s"}},
		{`{"transport": "http", "url": "https://a.example/mcp", "request_timeout_ms": 30000}`, ShapeCodelia,
			config.ServerEntry{URL: "https://a.example/mcp", RequestTimeout: "30s"}},
		{`{"transport": "http", "url": "https://a.example/mcp", "auth": {"type": "api_key", "headerName": "X-Key", "apiKey": "${KEY}"}}`, ShapeBeans,
			config.ServerEntry{URL: "https://a.example/mcp", Auth: map[string]any{"type": "api_key", "header": "X-Key", "key": "${KEY}"}}},
		{`{"url": "https://a.example/mcp", "transport": "streamable-http", "authorization": {"type": "oauth2.1", "client_id": "c"}}`, ShapeMcphost,
			config.ServerEntry{URL: "https://a.example/mcp", Transport: "http", OAuth: map[string]any{"client_id": "c"}}},
		// A snippet of a whole file that holds one server.
		{`{"mcpServers": {"whatever": {"command": "srv"}}}`, ShapeClaude, config.ServerEntry{Command: "srv"}},
		{`{"inputs": [{"type": "promptString", "id": "k", "password": true}], "servers": {"x": {"command": "srv", "env": {"K": "${input:k}"}}}}`, ShapeVSCode,
			config.ServerEntry{Command: "srv", Env: map[string]string{"K": "${secret:" + SecretName(jsonSource(importEnv), "s", "k") + "}"}}},
	} {
		im, shape, err := ImportJSON("s", []byte(c.json), importEnv)
		if err != nil {
			t.Errorf("%s: %v", c.json, err)
			continue
		}
		if shape != c.shape {
			t.Errorf("%s: shape %s, want %s", c.json, shape, c.shape)
		}
		c.want.ID = "s"
		if !reflect.DeepEqual(im.Entry, c.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", c.json, im.Entry, c.want)
		}
	}
}

func TestImportJSONErrors(t *testing.T) {
	for _, c := range []struct{ id, json, err string }{
		{"bad id", `{"command": "x"}`, `"bad-id"`},
		{"s", `{"command": `, "not valid JSON"},
		{"s", `"npx"`, "not an object"},
		{"s", `{"mcpServers": {"a": {"command": "x"}, "b": {"command": "y"}}}`, "holds 2 servers"},
		{"s", `{"args": ["x"]}`, "neither a command nor a url"},
		{"s", `{"command": "x", "url": "https://a.example"}`, "both a command and a url"},
		{"s", `{"type": "builtin", "name": "developer"}`, "runs inside Goose"},
		{"s", `{"source": "extension", "settings": {}}`, "Zed extension"},
		{"s", `{"command": "x", "startup_timeout": "soon"}`, "startup_timeout"},
	} {
		_, _, err := ImportJSON(c.id, []byte(c.json), importEnv)
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s %s: error %v, want %q", c.id, c.json, err, c.err)
		}
	}
}

// A Cursor entry pasted for "mcp add-json": the shape is recognised, the
// variables converted, and what mcphost leaves out is said.
func ExampleImportJSON() {
	entry := `{
	  "url": "https://mcp.context7.com/mcp",
	  "headers": {"CONTEXT7_API_KEY": "${env:CONTEXT7_API_KEY}"},
	  "alwaysAllow": ["resolve-library-id"]
	}`
	im, shape, err := ImportJSON("context7", []byte(entry), Env{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("shape:", shape.Description())
	fmt.Println("url:", im.Entry.URL)
	fmt.Println("header:", im.Entry.Headers["CONTEXT7_API_KEY"])
	for _, c := range im.Converted {
		fmt.Println("converted:", c)
	}
	for _, d := range im.Dropped {
		fmt.Printf("dropped %s: %s\n", d.Field, d.Reason)
	}
	// Output:
	// shape: Cursor (mcpServers with ${env:...})
	// url: https://mcp.context7.com/mcp
	// header: ${CONTEXT7_API_KEY}
	// converted: ${env:CONTEXT7_API_KEY} → ${CONTEXT7_API_KEY}
	// dropped alwaysAllow: mcphost decides which calls to allow through its policy, not per server
}

// Reading Codex's config.toml: timeouts, tool lists and a bearer token
// from the environment become mcphost's fields.
func ExampleImport() {
	file := `
[mcp_servers.docs]
url = "https://docs.example.com/mcp"
bearer_token_env_var = "DOCS_TOKEN"
startup_timeout_sec = 20
disabled_tools = ["delete_page"]
`
	res, err := Import(Codex, []byte(file), Source{Path: "config.toml", Scope: ScopeUser})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, im := range res.Servers {
		fmt.Println(im.Entry.ID, im.Entry.URL, im.Entry.StartupTimeout, im.Entry.Tools.Deny, im.Entry.Auth["token"])
		for _, c := range im.Converted {
			fmt.Println(" ", c)
		}
	}
	// Output:
	// docs https://docs.example.com/mcp 20s [delete_page] ${DOCS_TOKEN}
	//   bearer_token_env_var DOCS_TOKEN → auth: {type: bearer, token: ${DOCS_TOKEN}}
	//   startup_timeout_sec 20 → startup_timeout 20s
	//   disabled_tools → tools.deny
}
