package gateway_test

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/host/gateway"
)

// A backend that lists a resource whose URI does not parse, or a template
// that is not one, costs only those entries: the gateway serves the rest
// and does not crash (go-sdk's server panics on them).
func TestBadResourceListingsAreLeftOut(t *testing.T) {
	b := mcp.NewServer(&mcp.Implementation{Name: "bad", Version: "1"}, &mcp.ServerOptions{
		Capabilities: &mcp.ServerCapabilities{Resources: &mcp.ResourceCapabilities{}},
	})
	b.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			switch method {
			case "resources/list":
				return &mcp.ListResourcesResult{Resources: []*mcp.Resource{{URI: "test://good", Name: "good"}, {URI: "bad\x7f:uri", Name: "bad"}}}, nil
			case "resources/templates/list":
				return &mcp.ListResourceTemplatesResult{ResourceTemplates: []*mcp.ResourceTemplate{
					{URITemplate: "test://t/{id}", Name: "good"}, {URITemplate: "test://t/{unclosed", Name: "bad"}}}, nil
			}
			return next(ctx, method, req)
		}
	})
	h, err := host.New(&config.Config{}, host.WithInProcessServer("bad", b))
	if err != nil {
		t.Fatal(err)
	}
	ctx := ctxFor(t)
	cs := gatewayClient(t, h)
	rs, err := cs.ListResources(ctx, nil)
	if err != nil || len(rs.Resources) != 1 || rs.Resources[0].URI != "test://good" {
		t.Fatalf("resources: %+v %v", rs, err)
	}
	ts, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil || len(ts.ResourceTemplates) != 2 { // the good one and mcphost's results
		t.Fatalf("templates: %+v %v", ts, err)
	}
}

// gatewayClient starts h, serves it through a gateway and returns a
// client of that gateway; all end with the test.
func gatewayClient(t *testing.T, h *host.Host) *mcp.ClientSession {
	t.Helper()
	ctx := ctxFor(t)
	if err := h.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	g := gateway.New(h, gateway.Options{})
	g.Sync(ctx)
	ct, st := mcp.NewInMemoryTransports()
	if _, err := g.Server().Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}
