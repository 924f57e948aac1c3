package chain

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/pdk/abi"
)

// A policy plugin that exhausts its stack fails that call as a counted
// fault of the plugin, and its on_error decides: deny refuses the call,
// allow lets it through. The host keeps serving either way.
func TestStackExhaustionAppliesOnError(t *testing.T) {
	for _, tc := range []struct {
		onError string
		denied  bool
	}{
		{host.OnErrorDeny, true},
		{host.OnErrorAllow, false},
	} {
		t.Run(tc.onError, func(t *testing.T) {
			p := open(t, "deep-stack", nil)
			srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
			srv.AddTool(&mcp.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran"}}}, nil
			})
			h, err := host.New(&config.Config{}, host.WithInProcessServer("s", srv),
				host.WithStages(host.StageConfig{Stage: p, Hooks: []abi.Hook{abi.HookPolicy}, OnError: tc.onError}))
			if err != nil {
				t.Fatal(err)
			}
			if err := h.Start(ctx(t)); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { h.Close(context.Background()) })
			before := p.Stats()
			for range 2 { // the second call runs on a fresh instance
				_, err = h.CallTool(ctx(t), "s:echo", nil)
				if denied := errors.Is(err, host.ErrDenied); denied != tc.denied {
					t.Fatalf("on_error %s: err = %v, want denied %v", tc.onError, err, tc.denied)
				}
				if tc.denied && !strings.Contains(err.Error(), "deep-stack") {
					t.Errorf("the denial does not name the plugin: %v", err)
				}
			}
			after := p.Stats()
			if after.Faults != before.Faults+2 || after.InstancesDiscarded != before.InstancesDiscarded+2 {
				t.Errorf("faults %d -> %d, discarded %d -> %d; want each fault counted and its instance discarded",
					before.Faults, after.Faults, before.InstancesDiscarded, after.InstancesDiscarded)
			}
		})
	}
}
