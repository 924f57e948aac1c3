package gateway_test

import (
	"context"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/gateway"
	"github.com/mcphost/mcphost/internal/hosttest"
)

// A client older than 2026-07-28 that plays no rounds of its own (as
// clients not written with go-sdk) is asked as many rounds as the request
// needs: a backend asking in four rounds, a policy's confirmation followed
// by a backend's question. It never gets an empty result, and nothing is
// left pending.
func TestOlderClientGetsEveryRound(t *testing.T) {
	var mu sync.Mutex
	var asked []string
	older := &mcp.ClientOptions{MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			mu.Lock()
			asked = append(asked, req.Params.Message)
			mu.Unlock()
			props, _ := req.Params.RequestedSchema.(map[string]any)["properties"].(map[string]any)
			if _, ok := props["confirm"]; ok {
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}, nil
			}
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "ada"}}, nil
		}}
	ctx := ctxFor(t)

	f := startClient(t, mrtrBackend, "2025-11-25", nil, older, gateway.Options{})
	addBackendTool(t, f, "rounds", func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		next := map[string]string{"": "r1", "r1": "r2", "r2": "r3", "r3": "r4"}[req.Params.RequestState]
		if next == "" {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done " + req.Params.RequestState}}}, nil, nil
		}
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"q": &mcp.ElicitParams{Message: "round " + next, RequestedSchema: nameForm()}},
			RequestState: next}, nil, nil
	})
	res, err := f.client.CallTool(ctx, &mcp.CallToolParams{Name: "mcp__b__rounds"})
	if err != nil || res.IsError || hosttest.Text(res) != "done r4" || len(asked) != 4 {
		t.Fatalf("four rounds: %q %v, asked %q", hosttest.Text(res), err, asked)
	}
	if !gateway.WaitIdle(f.relay, ctx) {
		t.Fatal("a call is left pending")
	}

	asked = nil
	f2 := startClient(t, mrtrBackend, "2025-11-25", []host.StageConfig{{Stage: confirmAll{}}}, older, gateway.Options{})
	res, err = f2.client.CallTool(ctx, &mcp.CallToolParams{Name: "mcp__b__ask"})
	if err != nil || res.IsError || hosttest.Text(res) != "accept:ada" || len(asked) != 2 {
		t.Fatalf("confirmation, then the backend's question: %q %v, asked %q", hosttest.Text(res), err, asked)
	}
	if !gateway.WaitIdle(f2.relay, ctx) {
		t.Fatal("a call is left pending")
	}
}
