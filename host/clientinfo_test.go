package host_test

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/internal/buildinfo"
)

// whoAmI answers with the name and version the client gave the server.
func whoAmI() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "whoami", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "client"},
		func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			text := "no client info"
			if p := req.Session.InitializeParams(); p != nil && p.ClientInfo != nil {
				text = p.ClientInfo.Name + " " + p.ClientInfo.Version
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
		})
	return srv
}

func TestClientInfo(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []host.Option
		want string
	}{
		{"default", nil, "mcphost " + buildinfo.ModuleVersion()},
		{"embedder's name and version", []host.Option{host.WithClientInfo("my-agent", "2.1.0")}, "my-agent 2.1.0"},
		{"empty keeps the default", []host.Option{host.WithClientInfo("", "")}, "mcphost " + buildinfo.ModuleVersion()},
		{"version only", []host.Option{host.WithClientInfo("", "1.2.3")}, "mcphost 1.2.3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := startHost(t, nil, append(tc.opts, host.WithInProcessServer("who", whoAmI()))...)
			res, err := h.CallTool(testContext(t), "mcp__who__client", nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Content[0].(*mcp.TextContent).Text; got != tc.want {
				t.Errorf("the server saw %q, want %q", got, tc.want)
			}
		})
	}
}
