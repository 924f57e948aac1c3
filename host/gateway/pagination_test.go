package gateway_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/host/gateway"
	"github.com/mcphost/mcphost/internal/testenv"
)

// Pagination on both sides: the host reads a backend that lists 1100
// tools 100 a page, and the gateway lists them to its client in pages
// (go-sdk's 1000 a page), the client following the cursor to the end.
func TestPaginationBothSides(t *testing.T) {
	testenv.CheckGoroutines(t)
	ctx := ctxFor(t)
	const count = 1100
	b := mcp.NewServer(&mcp.Implementation{Name: "many", Version: "1"}, &mcp.ServerOptions{PageSize: 100})
	for i := range count {
		mcp.AddTool(b, &mcp.Tool{Name: fmt.Sprintf("t%04d", i)}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{}, nil, nil
		})
	}
	cfg := &config.Config{Servers: []*config.Server{{ID: "b", Transport: config.TransportInProcess, Enabled: true,
		StartupTimeout: bound, RequestTimeout: bound, Source: "test"}}}
	h, err := host.New(cfg, host.WithInProcessServer("b", b))
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	g := gateway.New(h, gateway.Options{})
	g.Sync(ctx)
	ct, st := mcp.NewInMemoryTransports()
	ss, err := g.Server().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Wait()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "pager"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	first, err := cs.ListTools(ctx, nil)
	if err != nil || first.NextCursor == "" || len(first.Tools) >= count {
		t.Fatalf("first page: %d tools, next cursor %q, %v; want a partial page", len(first.Tools), first.NextCursor, err)
	}
	seen := map[string]bool{}
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		seen[tool.Name] = true
	}
	if len(seen) != count || !seen["mcp__b__t0000"] || !seen[fmt.Sprintf("mcp__b__t%04d", count-1)] {
		t.Fatalf("the client saw %d distinct tools; want %d", len(seen), count)
	}
}
