package plugintest

import (
	"encoding/json"
	"fmt"

	"github.com/mcphost/mcphost/pdk/abi"
)

// The checks of the policy hook and the requests they use.

// PolicyRequests are the requests the policy checks use.
func PolicyRequests() []*abi.PolicyRequest {
	return []*abi.PolicyRequest{
		{Server: "files", Tool: "read_file", Name: "mcp__files__read_file", Arguments: map[string]any{"path": "notes/a.txt"},
			Annotations: &abi.ToolAnnotations{ReadOnlyHint: true}, Caller: &abi.Caller{Kind: "cli"}},
		{Server: "files", Tool: "delete_file", Name: "mcp__files__delete_file", Arguments: map[string]any{"path": "/etc/passwd"},
			Annotations: &abi.ToolAnnotations{DestructiveHint: boolp(true)}},
		{Server: "web", Tool: "fetch", Name: "web_fetch", Arguments: map[string]any{"url": "https://example.com", "n": 3.5, "deep": []any{1, "x", nil}},
			Annotations: &abi.ToolAnnotations{OpenWorldHint: boolp(true), DestructiveHint: boolp(false)}, Meta: map[string]any{"progressToken": 7}},
		{Server: "github", Tool: "create_issue", Name: "github_create_issue", Arguments: map[string]any{},
			Caller: &abi.Caller{Kind: "gateway", ID: "user@example.com", Session: "s1"}},
		{Server: "x", Tool: "no_args", Name: "no_args"},
		{Server: "ünï", Tool: "ツール", Name: "tool_1", Arguments: map[string]any{"text": "línea\nnext \"quoted\" \u2028"}},
	}
}

func (c *checker) policy() {
	st := c.stage.(abi.PolicyStage)
	check(c, hookCheck[abi.PolicyRequest, abi.PolicyDecision]{
		hook: abi.HookPolicy,
		reqs: PolicyRequests(),
		label: func(i int, req *abi.PolicyRequest) string {
			return fmt.Sprintf("request %d (%s/%s)", i, req.Server, req.Tool)
		},
		call:       st.Policy,
		nilMsg:     "nil decision without an error",
		repeatable: true,
		valid: func(name string, _ *abi.PolicyRequest, d *abi.PolicyDecision) bool {
			switch d.Decision {
			case abi.Allow, abi.Deny, abi.Confirm:
			default:
				c.fail(abi.HookPolicy, name, fmt.Sprintf("decision %q is not allow, deny or confirm", d.Decision))
			}
			if d.Arguments != nil {
				data, err := json.Marshal(d.Arguments)
				if err != nil || len(data) == 0 || data[0] != '{' {
					c.fail(abi.HookPolicy, name, "rewritten arguments are not a JSON object")
				}
			}
			return true
		},
	})
}
