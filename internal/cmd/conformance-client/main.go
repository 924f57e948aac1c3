// Command conformance-client is the client that the official MCP
// conformance suite drives (scripts/conformance.sh). It is built on the
// host package, so the suite judges mcphost's own connection, naming and
// call path, not a bare SDK client.
//
// The suite runs it with the scenario server's URL as the last argument and
// the scenario name in MCP_CONFORMANCE_SCENARIO.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/internal/elicitform"
)

const serverID = "conformance"

// scenarios maps a scenario name to what the client does once connected.
// Scenarios not listed only connect and list tools.
var scenarios = map[string]func(context.Context, *host.Host) error{
	"tools_call": func(ctx context.Context, h *host.Host) error {
		return callTool(ctx, h, "add_numbers", map[string]any{"a": 5, "b": 3})
	},
	"elicitation-sep1034-client-defaults": func(ctx context.Context, h *host.Host) error {
		return callTool(ctx, h, "test_client_elicitation_defaults", nil)
	},
	"sse-retry": func(ctx context.Context, h *host.Host) error {
		return callTool(ctx, h, "test_reconnection", nil)
	},
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: conformance-client [flags] SERVER_URL (scenario in MCP_CONFORMANCE_SCENARIO)")
		os.Exit(2)
	}
	url := os.Args[len(os.Args)-1]
	scenario := os.Getenv("MCP_CONFORMANCE_SCENARIO")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := run(ctx, scenario, url); err != nil {
		fmt.Fprintf(os.Stderr, "conformance-client: scenario %q: %v\n", scenario, err)
		os.Exit(1)
	}
}

func run(ctx context.Context, scenario, url string) error {
	cfg := &config.Config{Servers: []*config.Server{{
		ID: serverID, Transport: config.TransportHTTP, URL: url, Enabled: true, Source: "conformance",
	}}}
	logger := hclog.New(&hclog.LoggerOptions{Name: "conformance-client", Output: os.Stderr, Level: hclog.Debug})
	h, err := host.New(cfg,
		host.WithLogger(logger),
		host.WithElicitationHandler(acceptDefaults),
	)
	if err != nil {
		return err
	}
	defer func() {
		cctx, ccancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer ccancel()
		_ = h.Close(cctx)
	}()
	if err := h.Start(ctx); err != nil {
		return err
	}
	st := h.Status()[0]
	if st.State != host.StateReady {
		return fmt.Errorf("server is %s: %s", st.State, st.Error)
	}
	fn, ok := scenarios[scenario]
	if !ok {
		return nil
	}
	return fn(ctx, h)
}

// acceptDefaults accepts every form elicitation with the schema's defaults,
// as SEP-1034 asks of a client that does not ask a person.
func acceptDefaults(_ context.Context, _ string, req *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	content, err := elicitform.Defaults(req.RequestedSchema)
	if err != nil {
		return nil, err
	}
	return &mcp.ElicitResult{Action: "accept", Content: content}, nil
}

func callTool(ctx context.Context, h *host.Host, tool string, args map[string]any) error {
	res, err := h.CallTool(ctx, serverID+":"+tool, args)
	if err != nil {
		return err
	}
	if res.IsError {
		return errors.New("tool reported an error")
	}
	return nil
}
