package gateway_test

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/builtin"
)

// The gateway's tools/list leaves out what the policy always denies: its
// clients are models' tool lists.
func TestToolsListLeavesOutDeniedTools(t *testing.T) {
	f := start(t, []host.StageConfig{{Stage: builtin.GlobPolicy{Deny: []string{"*add*"}}}}, nil)
	ctx := ctxFor(t)
	tools, err := f.client.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, tl := range tools.Tools {
		names[tl.Name] = true
	}
	if names["mcp__b__add"] {
		t.Errorf("tools/list offers mcp__b__add, which the policy always denies: %v", names)
	}
	if !names["mcp__b__echo"] {
		t.Errorf("tools/list lost mcp__b__echo: %v", names)
	}
	// A client that calls it anyway is refused by the policy.
	res, err := f.client.CallTool(ctx, &mcp.CallToolParams{Name: "mcp__b__add", Arguments: map[string]any{"a": 1, "b": 2}})
	if err == nil && !res.IsError {
		t.Errorf("a call of the denied tool went through: %+v", res)
	}
}
