package clientconf

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcphost/mcphost/host/config"
)

// Shape names the client whose way of writing one server entry ImportJSON
// recognised.
type Shape string

// The shapes ImportJSON recognises.
const (
	ShapeMcphost  Shape = "mcphost"     // mcphost's own fields (tenx's too)
	ShapeClaude   Shape = "claude"      // Claude Desktop / Claude Code: command, args, env, type, url, headers
	ShapeCursor   Shape = "cursor"      // Claude's fields with ${env:VAR} and ${workspaceFolder}
	ShapeWindsurf Shape = "windsurf"    // serverUrl, disabledTools
	ShapeVSCode   Shape = "vscode"      // envFile, ${input:ID}, dev
	ShapeCodex    Shape = "codex"       // Codex's [mcp_servers.<id>] fields, as JSON
	ShapeGemini   Shape = "gemini"      // httpUrl, includeTools, trust, timeout in ms
	ShapeZed      Shape = "zed"         // "command": {"path"}, source, settings
	ShapeGoose    Shape = "goose"       // cmd, envs, env_keys, uri
	ShapeCodelia  Shape = "codelia"     // request_timeout_ms
	ShapeBeans    Shape = "beans-agent" // an auth block with headerName/apiKey
)

// Description says which client writes a shape, for messages.
func (s Shape) Description() string {
	switch s {
	case ShapeMcphost:
		return "mcphost's own entry"
	case ShapeClaude:
		return "Claude Desktop / Claude Code (mcpServers)"
	case ShapeCursor:
		return "Cursor (mcpServers with ${env:...})"
	case ShapeWindsurf:
		return "Windsurf (serverUrl)"
	case ShapeVSCode:
		return "VS Code (servers)"
	case ShapeCodex:
		return "Codex (mcp_servers, as JSON)"
	case ShapeGemini:
		return "Gemini CLI (mcpServers)"
	case ShapeZed:
		return "Zed (context_servers)"
	case ShapeGoose:
		return "Goose (extensions)"
	case ShapeCodelia:
		return "Codelia (mcp.servers)"
	case ShapeBeans:
		return "Beans agent (servers)"
	}
	return string(s)
}

// wrappers are the keys under which clients keep their servers: a pasted
// snippet of a whole file holding one server is taken too.
var wrappers = []string{"mcpServers", "servers", "mcp_servers", "context_servers", "extensions"}

// ImportJSON reads one server entry written in any client's shape (see
// Shape) for "mcp add-json": the shape is recognised by its keys and the
// entry converted by the same code as the import of that client's file.
// env resolves ${workspaceFolder} and the like.
func ImportJSON(id string, data []byte, env Env) (*Imported, Shape, error) {
	if err := config.CheckServerID(id); err != nil {
		return nil, "", fmt.Errorf("clientconf: %w (for instance %q)", err, ValidServerID(id))
	}
	if int64(len(data)) > config.MaxConfigBytes {
		return nil, "", fmt.Errorf("clientconf: server %q: the JSON is over the limit of %d bytes", id, config.MaxConfigBytes)
	}
	root, err := parseClientFile(FormatJSONC, data)
	if err != nil {
		return nil, "", fmt.Errorf("clientconf: server %q: %w", id, err)
	}
	im := &Imported{Name: id, Entry: config.ServerEntry{ID: id}}
	m, inputs, err := unwrap(id, root, im)
	if err != nil {
		return nil, "", err
	}
	shape := detectShape(m)
	if inputs != nil && shape != ShapeMcphost {
		shape = ShapeVSCode
	}
	if shape == ShapeMcphost {
		raw, err := json.Marshal(m)
		if err != nil {
			return nil, "", fmt.Errorf("clientconf: server %q: %w", id, err)
		}
		e, err := config.ParseServerEntry(id, raw)
		if err != nil {
			return nil, "", err
		}
		im.Entry = e
		return im, shape, nil
	}
	kind, read := readerOf(shape)
	r := newEntryReader(kind, m, im, env, jsonSource(env))
	if shape == ShapeVSCode {
		r.inputs = inputs
		if r.inputs == nil {
			r.inputs = map[string]vsInput{}
		}
	}
	if shape == ShapeClaude || shape == ShapeCursor || shape == ShapeVSCode {
		// "code --add-mcp" JSON names the server inside the entry.
		if n, ok := r.text("name"); ok && n != id {
			im.drop("name", "the id is the one given on the command line")
		}
	}
	read(r)
	if r.skipReason == "" {
		r.settle()
	}
	if r.skipReason != "" {
		return nil, shape, fmt.Errorf("clientconf: server %q (%s): %s", id, shape.Description(), r.skipReason)
	}
	if err := im.validate(); err != nil {
		return nil, shape, fmt.Errorf("clientconf: server %q (%s): %w", id, shape.Description(), err)
	}
	return im, shape, nil
}

// jsonSource is what the keychain names of a pasted entry's secrets are
// made unique to (see SecretName): the command line, in its directory.
func jsonSource(env Env) string { return "add-json\x00" + env.WorkDir }

// unwrap takes the one server out of a pasted file snippet
// ({"mcpServers": {"x": {...}}}), with VS Code's inputs beside it.
func unwrap(id string, root map[string]any, im *Imported) (map[string]any, map[string]vsInput, error) {
	for _, w := range wrappers {
		sec, ok := root[w].(map[string]any)
		if !ok {
			continue
		}
		rest := len(root) - 1
		_, hasInputs := root["inputs"]
		if hasInputs {
			rest--
		}
		if rest != 0 {
			continue // a field of the entry that happens to have this name
		}
		if len(sec) != 1 {
			return nil, nil, fmt.Errorf("clientconf: server %q: %q holds %d servers; give one entry, or use \"mcphost mcp import\" for a whole file", id, w, len(sec))
		}
		name := sortedNames(sec)[0]
		entry, ok := sec[name].(map[string]any)
		if !ok {
			return nil, nil, fmt.Errorf("clientconf: server %q: the entry under %q is not an object of fields", id, w)
		}
		im.convertf("took the one server (%q) out of %q", printableField(name), w)
		var inputs map[string]vsInput
		if hasInputs {
			f := &fileReader{res: &Result{}}
			inputs = f.vsInputs(root, "inputs")
			for _, n := range f.res.Notes {
				im.convertf("%s", n)
			}
		}
		return entry, inputs, nil
	}
	return root, nil, nil
}

// Keys that only one client writes, checked in this order.
var shapeKeys = []struct {
	shape Shape
	keys  []string
}{
	{ShapeZed, []string{"source", "settings"}},
	{ShapeGoose, []string{"cmd", "uri", "envs", "env_keys", "bundled", "available_tools", "display_name"}},
	{ShapeGemini, []string{"httpUrl", "includeTools", "excludeTools", "trust", "authProviderType", "targetAudience", "targetServiceAccount"}},
	{ShapeCodex, []string{"bearer_token_env_var", "bearer_token", "http_headers", "env_http_headers", "startup_timeout_sec",
		"startup_timeout_ms", "tool_timeout_sec", "enabled_tools", "disabled_tools", "env_vars", "required"}},
	{ShapeCodelia, []string{"request_timeout_ms"}},
	{ShapeWindsurf, []string{"serverUrl", "disabledTools"}},
	{ShapeVSCode, []string{"envFile", "dev", "sandboxEnabled", "sandbox", "gallery"}},
	{ShapeMcphost, []string{"startup_timeout", "request_timeout", "tools", "health_interval", "reconnect", "max_message_bytes", "protocol_version", "authorization"}},
}

// detectShape recognises a client by the keys and references an entry
// holds; plain command/args/env or url/headers are Claude's.
func detectShape(m map[string]any) Shape {
	if _, isMap := m["command"].(map[string]any); isMap {
		return ShapeZed
	}
	if t, _ := m["type"].(string); t == "builtin" || t == "streamable_http" || t == "platform" || t == "inline_python" {
		return ShapeGoose
	}
	for _, sk := range shapeKeys {
		for _, k := range sk.keys {
			if _, ok := m[k]; ok {
				return sk.shape
			}
		}
	}
	if a, ok := m["auth"].(map[string]any); ok {
		switch {
		case a["headerName"] != nil || a["apiKey"] != nil || a["tokenPath"] != nil:
			return ShapeBeans
		case a["CLIENT_ID"] != nil || a["CLIENT_SECRET"] != nil:
			return ShapeCursor
		default:
			return ShapeMcphost
		}
	}
	if o, ok := m["oauth"].(map[string]any); ok && (o["client_id"] != nil || o["scopes"] != nil && o["clientId"] == nil) {
		return ShapeMcphost
	}
	if _, ok := m["transport"]; ok {
		return ShapeMcphost
	}
	if t, ok := m["timeout"]; ok {
		if _, isNum := numberOf(t); isNum {
			return ShapeGemini // milliseconds; Goose's (seconds) comes with its own keys
		}
	}
	text, _ := json.Marshal(m)
	switch s := string(text); {
	case strings.Contains(s, "${input:"):
		return ShapeVSCode
	case strings.Contains(s, "${env:"), strings.Contains(s, "${workspaceFolder"), strings.Contains(s, "${userHome}"):
		return ShapeCursor
	}
	return ShapeClaude
}

// readerOf is the kind (for variable syntax and messages) and entry reader
// of a shape.
func readerOf(s Shape) (Kind, func(*entryReader)) {
	switch s {
	case ShapeCursor:
		return Cursor, readMCPServer
	case ShapeWindsurf:
		return Windsurf, readMCPServer
	case ShapeVSCode:
		return VSCode, readVSCodeServer
	case ShapeCodex:
		return Codex, readCodexServer
	case ShapeGemini:
		return Gemini, readGeminiServer
	case ShapeZed:
		return Zed, readZedServer
	case ShapeGoose:
		return Goose, readGooseExtension
	case ShapeCodelia:
		return Codelia, readCodeliaServer
	case ShapeBeans:
		return Beans, readBeansServer
	}
	return ClaudeCode, readMCPServer
}
