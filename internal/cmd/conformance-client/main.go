// Command conformance-client is the client that the official MCP
// conformance suite drives (scripts/conformance.sh). It is built on the
// host package, so the suite judges mcphost's own connection, naming and
// call path, not a bare SDK client.
//
// The suite runs it with the scenario server's URL as the last argument, the
// scenario name in MCP_CONFORMANCE_SCENARIO and, for some scenarios, what a
// user would do in MCP_CONFORMANCE_CONTEXT ({"toolCalls": [...]}). The
// client acts as a person using mcphost would: it connects, lists the tools
// and calls them, each the way the context says, or else each once with
// arguments made from its input schema. Tools that mcphost refuses (an
// invalid x-mcp-header, say) are not listed, so they are never called.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/authn"
	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/internal/elicitform"
)

const serverID = "conformance"

// toolCall is one call the scenario asks for.
type toolCall struct {
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
}

// userActions are the scenarios whose description asks the client for a
// particular action beyond calling tools (the suite's own words, quoted).
var userActions = map[string]func(context.Context, *host.Host) error{
	// "Round-trip the focal tool's inputSchema back via tools/call on the
	// echo tool, passing it verbatim as the schema argument": what a host
	// shows of a tool's schema is what the server sent.
	"json-schema-2020-12-preservation": func(ctx context.Context, h *host.Host) error {
		focal, ok := h.Resolve(serverID + ":json_schema_2020_12_tool")
		if !ok {
			return errors.New("the focal tool json_schema_2020_12_tool is not listed")
		}
		for _, t := range h.Tools() {
			if t.Name != focal.Name {
				return callTool(ctx, h, t.Tool, map[string]any{"schema": focal.InputSchema})
			}
		}
		return errors.New("no echo tool listed")
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
	var sc scenarioContext
	if raw := os.Getenv("MCP_CONFORMANCE_CONTEXT"); raw != "" {
		if err := json.Unmarshal([]byte(raw), &sc); err != nil {
			return fmt.Errorf("MCP_CONFORMANCE_CONTEXT: %w", err)
		}
	}
	a, err := sc.auth(scenario)
	if err != nil {
		return err
	}
	cfg := &config.Config{Servers: []*config.Server{{
		ID: serverID, Transport: config.TransportHTTP, URL: url, Enabled: true, Source: "conformance", Auth: a,
	}}}
	logger := hclog.New(&hclog.LoggerOptions{Name: "conformance-client", Output: os.Stderr, Level: hclog.Debug})
	h, err := host.New(cfg,
		host.WithLogger(logger),
		host.WithElicitationHandler(acceptDefaults),
		// A person at a browser who approves (the suite's authorization
		// endpoint answers at once), and may do so while servers run.
		host.WithAuthUI(approver{}, authn.AskAlways),
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
	for _, w := range st.Warnings {
		logger.Warn(w)
	}
	if act, ok := userActions[scenario]; ok {
		return act(ctx, h)
	}
	if len(sc.ToolCalls) > 0 {
		var errs []error
		for _, c := range sc.ToolCalls {
			errs = append(errs, callTool(ctx, h, c.Name, c.Arguments))
		}
		return errors.Join(errs...)
	}
	// Every listed tool, once, as a person trying each would.
	var errs []error
	for _, t := range h.Tools() {
		errs = append(errs, callTool(ctx, h, t.Tool, argumentsFor(t.InputSchema)))
	}
	return errors.Join(errs...)
}

// approver plays the person at the browser: the suite's authorization
// endpoint approves at once with a redirect, which it follows to mcphost's
// loopback callback (as a browser would).
type approver struct{}

func (approver) Open(ctx context.Context, _ string, authURL string) error {
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	if loc == "" {
		return fmt.Errorf("authorization endpoint answered %d without a redirect", resp.StatusCode)
	}
	if _, err := url.Parse(loc); err != nil {
		return fmt.Errorf("authorization redirect: %w", err)
	}
	req, err = http.NewRequestWithContext(ctx, http.MethodGet, loc, nil)
	if err != nil {
		return err
	}
	resp, err = client.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	return nil
}

// argumentsFor makes arguments for a tool from its input schema: each
// required property gets its default, or its first enum value, or a value
// of its type.
func argumentsFor(schema any) map[string]any {
	args := map[string]any{}
	s, _ := schema.(map[string]any)
	props, _ := s["properties"].(map[string]any)
	required, _ := s["required"].([]any)
	for _, r := range required {
		name, _ := r.(string)
		p, _ := props[name].(map[string]any)
		args[name] = sampleValue(p)
	}
	return args
}

func sampleValue(p map[string]any) any {
	if d, ok := p["default"]; ok {
		return d
	}
	if e, ok := p["enum"].([]any); ok && len(e) > 0 {
		return e[0]
	}
	switch p["type"] {
	case "integer", "number":
		return 1
	case "boolean":
		return true
	case "object":
		return map[string]any{}
	case "array":
		return []any{}
	}
	return "sample"
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

// callTool calls one tool. A server that answers the call with a JSON-RPC
// error (it does not implement tools/call, say) is logged: the client did
// its part. Anything else that fails the call fails the scenario.
func callTool(ctx context.Context, h *host.Host, tool string, args map[string]any) error {
	res, err := h.CallTool(ctx, serverID+":"+tool, args)
	var answered *jsonrpc.Error
	if errors.As(err, &answered) {
		fmt.Fprintf(os.Stderr, "conformance-client: the server refused the call of %s: %v\n", tool, err)
		return nil
	}
	if err != nil {
		return err
	}
	if res.IsError {
		return fmt.Errorf("tool %s reported an error", tool)
	}
	return nil
}
