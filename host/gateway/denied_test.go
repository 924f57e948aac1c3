package gateway_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/builtin"
	"github.com/mcphost/mcphost/host/gateway"
	"github.com/mcphost/mcphost/internal/hosttest"
)

// The gateway's tools/list leaves out what the policy always denies: its
// clients are models' tool lists. A client that calls such a tool anyway
// is refused by the policy, with its reason, and the refusal is audited.
func TestToolsListLeavesOutDeniedTools(t *testing.T) {
	auditPath := filepath.Join(t.TempDir(), "audit.jsonl")
	audit := &gateway.AuditLog{Path: auditPath}
	t.Cleanup(func() { audit.Close() })
	f := startWith(t, "", []host.StageConfig{{Stage: builtin.GlobPolicy{Deny: []string{"*add*"}}}}, nil, gateway.Options{Audit: audit})
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
	res, err := f.client.CallTool(ctx, &mcp.CallToolParams{Name: "mcp__b__add", Arguments: map[string]any{"a": 1, "b": 2}})
	if err != nil {
		t.Fatalf("a call of the denied tool: %v; want the policy's refusal as a tool error", err)
	}
	if !res.IsError || !strings.Contains(hosttest.Text(res), `"*add*"`) {
		t.Fatalf("a call of the denied tool: %q; want the policy's refusal naming the glob", hosttest.Text(res))
	}
	// A name that is no tool at all is still unknown.
	if _, err := f.client.CallTool(ctx, &mcp.CallToolParams{Name: "mcp__b__nothing"}); err == nil {
		t.Error("a call of an unknown tool did not fail")
	}
	data, err := os.ReadFile(auditPath)
	if err != nil {
		t.Fatal(err)
	}
	var rec gateway.AuditRecord
	if err := json.Unmarshal([]byte(strings.TrimSpace(string(data))), &rec); err != nil {
		t.Fatalf("audit log %q: %v", data, err)
	}
	if rec.Tool != "mcp__b__add" || !strings.Contains(string(data), "deny") {
		t.Errorf("audit record %s: want the denied call of mcp__b__add", data)
	}
}
