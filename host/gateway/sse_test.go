package gateway_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/gateway"
	"github.com/mcphost/mcphost/internal/hosttest"
	"github.com/mcphost/mcphost/pdk/abi"
)

// callerSeen allows every call and notes who made the last one.
type callerSeen struct{ last atomic.Value }

func (*callerSeen) StageName() string { return "test:caller-seen" }

func (c *callerSeen) Policy(_ context.Context, req *abi.PolicyRequest) (*abi.PolicyDecision, error) {
	if req.Caller != nil {
		c.last.Store(*req.Caller)
	}
	return &abi.PolicyDecision{Decision: abi.Allow}, nil
}

// Over /sse as over /mcp, policies and the audit log see the caller's
// identity and session, and the session is the caller's alone: another
// token's posts into it are refused.
func TestSSEKeepsTheCaller(t *testing.T) {
	seen := &callerSeen{}
	auditPath := filepath.Join(t.TempDir(), "audit.jsonl")
	audit := &gateway.AuditLog{Path: auditPath}
	t.Cleanup(func() { audit.Close() })
	f := startWith(t, "", []host.StageConfig{{Stage: seen}}, nil, gateway.Options{Audit: audit})
	base := serveHTTP(t, f, gateway.HTTPOptions{})
	ctx := ctxFor(t)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "sse-client"}, nil).Connect(ctx, &mcp.SSEClientTransport{Endpoint: base + "/sse", HTTPClient: clientOf("alice")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "mcp__b__echo", Arguments: map[string]any{"text": "over sse"}})
	if err != nil || hosttest.Text(res) != "over sse" {
		t.Fatalf("call over /sse: %v %v", res, err)
	}
	caller, _ := seen.last.Load().(abi.Caller)
	if caller.ID != "token:alice" || caller.Session == "" {
		t.Fatalf("the policy saw %+v; want token:alice and a session", caller)
	}
	data, err := os.ReadFile(auditPath)
	if err != nil {
		t.Fatal(err)
	}
	var rec gateway.AuditRecord
	if err := json.Unmarshal([]byte(strings.TrimSpace(string(data))), &rec); err != nil {
		t.Fatalf("audit log %q: %v", data, err)
	}
	if rec.Caller != "token:alice" || rec.Session != caller.Session {
		t.Fatalf("audit record %+v; want caller token:alice, session %s", rec, caller.Session)
	}

	_, endpoint := openSSE(t, base, "alice")
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	if code := postSSE(t, base+endpoint, "bob", ping); code != http.StatusForbidden {
		t.Fatalf("bob posting into alice's /sse session: %d; want 403", code)
	}
	if code := postSSE(t, base+endpoint, "alice", ping); code != http.StatusAccepted {
		t.Fatalf("alice posting into her own /sse session: %d; want 202", code)
	}
	if code := postSSE(t, base+"/sse?sessionid=nosuchsession", "alice", ping); code != http.StatusNotFound {
		t.Fatalf("a post to no session: %d; want 404", code)
	}
}
