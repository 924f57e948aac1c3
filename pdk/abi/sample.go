package abi

import "encoding/json"

// SampleRequest returns a request of hook with every field filled, as the
// host would send it, for a plugin author to read the fields off (mcphost
// plugin test --sample HOOK) or to start a test from. It is built from the
// types of this package, so it changes with them; a test checks that no
// field is left empty and that the document decodes as the hook's request.
// nil for a hook that is not one of ABI v1.
//
// Booleans are set where that is coherent (a read-only tool is neither
// destructive nor open-world) so that each shows in the JSON, which leaves
// out false values of omitempty fields.
func SampleRequest(hook Hook) any {
	switch hook {
	case HookPolicy:
		return &PolicyRequest{
			Server:      "files",
			Tool:        "read_file",
			Name:        "mcp__files__read_file",
			Arguments:   map[string]any{"path": "notes/todo.txt", "head": 10.0},
			Annotations: sampleAnnotations(),
			Meta:        map[string]any{"progressToken": "call-1"},
			Caller:      sampleCaller(),
			Pin:         "pinned",
		}
	case HookFilterTools:
		return &FilterToolsRequest{
			Server: "files",
			Tools: []ToolInfo{{
				Name:        "read_file",
				Title:       "Read file",
				Description: "Reads a text file.",
				Annotations: sampleAnnotations(),
				InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"head":{"type":"number"}},"required":["path"]}`),
				Pin:         "pinned",
			}},
		}
	case HookMapNames:
		return &MapNamesRequest{
			Tools:       []NameKey{{Server: "files", Tool: "read_file", Title: "Read file"}},
			Constraints: NameConstraints{MaxLength: 64, Pattern: "^[a-zA-Z0-9_-]{1,64}$"},
		}
	case HookTransformResult:
		return &TransformResultRequest{
			Server:    "files",
			Tool:      "read_file",
			Name:      "mcp__files__read_file",
			Arguments: map[string]any{"path": "notes/todo.txt", "head": 10.0},
			Result:    json.RawMessage(`{"content":[{"type":"text","text":"buy milk\n"}],"structuredContent":{"content":"buy milk\n"}}`),
		}
	case HookAuth:
		return &AuthRequest{
			Server: "corp",
			URL:    "https://mcp.corp.example/mcp",
			Challenge: &Challenge{
				Status:          401,
				WWWAuthenticate: `Bearer resource_metadata="https://mcp.corp.example/.well-known/oauth-protected-resource"`,
			},
		}
	}
	return nil
}

func sampleAnnotations() *ToolAnnotations {
	no := false
	return &ToolAnnotations{Title: "Read file", ReadOnlyHint: true, DestructiveHint: &no, IdempotentHint: true, OpenWorldHint: &no}
}

func sampleCaller() *Caller {
	return &Caller{Kind: "gateway", ID: "alice@example.com", Session: "session-1", Scopes: []string{"files:read"}, ClientID: "desktop-client"}
}
