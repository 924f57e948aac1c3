package hosttest_test

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/host/hosttest"
	"github.com/mcphost/mcphost/transports"
)

func TestMain(m *testing.M) {
	code := m.Run()
	hosttest.CleanupTestServer()
	os.Exit(code)
}

func echo(t *testing.T, tr mcp.Transport) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "hosttest", Version: "1"}, nil).Connect(ctx, tr, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}})
	if err != nil {
		t.Fatalf("echo: %v", err)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; got != "hi" {
		t.Errorf("echo = %q", got)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "add", Arguments: map[string]any{"a": 1, "b": 2}})
	if err != nil {
		t.Fatalf("add: %v", err)
	}
	if sc, _ := res.StructuredContent.(map[string]any); sc["sum"] != 3.0 {
		t.Errorf("add = %#v", res.StructuredContent)
	}
}

func TestBuildTestServer(t *testing.T) {
	bin := hosttest.BuildTestServer(t)
	if bin != hosttest.BuildTestServer(t) {
		t.Error("built twice")
	}
	// Plain go-sdk command transport: the binary is an ordinary MCP server.
	echo(t, &mcp.CommandTransport{Command: exec.Command(bin)})
}

func TestEchoServerInMemory(t *testing.T) {
	st, ct := mcp.NewInMemoryTransports()
	ss, err := hosttest.NewEchoServer().Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	echo(t, ct)
}

func TestServeHelpers(t *testing.T) {
	srv := hosttest.NewEchoServer()
	t.Run("http", func(t *testing.T) {
		echo(t, &mcp.StreamableClientTransport{Endpoint: hosttest.ServeHTTP(t, srv)})
	})
	t.Run("sse", func(t *testing.T) {
		echo(t, &mcp.SSEClientTransport{Endpoint: hosttest.ServeSSE(t, srv)})
	})
	t.Run("websocket", func(t *testing.T) {
		tr, err := transports.New(&config.Server{ID: "ws", Transport: config.TransportWebSocket, URL: hosttest.ServeWebSocket(t, srv)}, transports.Options{})
		if err != nil {
			t.Fatal(err)
		}
		echo(t, tr)
	})
}
