package host_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/pdk/abi"
)

// notesServer is the MCP server the examples connect to: an ordinary go-sdk
// server, run inside the process. A real program would use servers from a
// configuration loaded with config.Load instead, or as well, and build the
// host with chain.NewHost, which carries out the configuration's policy,
// plugins and truncation (see host/chain's Example).
func notesServer() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "notes", Version: "1.0.0"}, nil)
	type addArgs struct {
		Text string `json:"text"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "add_note", Description: "Adds a note."},
		func(_ context.Context, _ *mcp.CallToolRequest, in addArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "noted: " + in.Text}}}, nil, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "delete_notes", Description: "Deletes every note."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "all notes deleted"}}}, nil, nil
		})
	return srv
}

// Connect to a server and call one of its tools by its public name.
func Example() {
	ctx := context.Background()
	h, err := host.New(&config.Config{}, host.WithInProcessServer("notes", notesServer()))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer h.Close(context.Background())
	if err := h.Start(ctx); err != nil {
		fmt.Println(err)
		return
	}

	res, err := h.CallTool(ctx, "mcp__notes__add_note", map[string]any{"text": "buy milk"})
	if err != nil {
		fmt.Println(err)
		return
	}
	// A tool that failed is res.IsError, not an error.
	fmt.Println("error:", res.IsError)
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// error: false
	// noted: buy milk
}

// Every tool of every server, under a public name that is unique across
// servers and safe to hand to a model provider.
func ExampleHost_Tools() {
	ctx := context.Background()
	h, err := host.New(&config.Config{}, host.WithInProcessServer("notes", notesServer()))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer h.Close(context.Background())
	if err := h.Start(ctx); err != nil {
		fmt.Println(err)
		return
	}
	for _, t := range h.Tools() {
		fmt.Printf("%s = %s: %s\n", t.Name, t.Display, t.Description)
	}
	// Output:
	// mcp__notes__add_note = notes:add_note: Adds a note.
	// mcp__notes__delete_notes = notes:delete_notes: Deletes every note.
}

// Each server's state as the host sees it, and the events that report its
// changes.
func ExampleHost_Status() {
	ctx := context.Background()
	var (
		mu     sync.Mutex
		events []string
	)
	h, err := host.New(&config.Config{},
		host.WithInProcessServer("notes", notesServer()),
		// Events arrive on the host's goroutines.
		host.WithEvents(func(e host.Event) {
			if e.Kind == "state" {
				mu.Lock()
				events = append(events, e.Server+" "+string(e.State))
				mu.Unlock()
			}
		}),
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := h.Start(ctx); err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range h.Status() {
		fmt.Printf("%s: %s, %d tools, server %s %s\n", s.ID, s.State, s.Tools, s.ServerName, s.ServerVersion)
	}
	h.Close(context.Background())
	mu.Lock()
	fmt.Println("events:", strings.Join(events, ", "))
	mu.Unlock()
	// Output:
	// notes: ready, 2 tools, server notes 1.0.0
	// events: notes connecting, notes ready
}

// denyDeletes is a native policy stage: any Go value with StageName and
// Policy methods. It sees every call before it is made.
type denyDeletes struct{}

func (denyDeletes) StageName() string { return "deny-deletes" }

func (denyDeletes) Policy(_ context.Context, req *abi.PolicyRequest) (*abi.PolicyDecision, error) {
	if strings.HasPrefix(req.Tool, "delete_") {
		return &abi.PolicyDecision{Decision: abi.Deny, Reason: "deleting is not allowed here"}, nil
	}
	return &abi.PolicyDecision{Decision: abi.Allow}, nil
}

// A policy stage in Go, added to the chain with WithStages. A denied call
// fails with a *host.DeniedError that names the stage and the reason; the
// server never sees it. Wasm policy plugins are added the same way (see
// package host/chain).
func ExampleWithStages() {
	ctx := context.Background()
	h, err := host.New(&config.Config{},
		host.WithInProcessServer("notes", notesServer()),
		host.WithStages(host.StageConfig{Stage: denyDeletes{}, Hooks: []abi.Hook{abi.HookPolicy}}),
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer h.Close(context.Background())
	if err := h.Start(ctx); err != nil {
		fmt.Println(err)
		return
	}

	res, err := h.CallTool(ctx, "mcp__notes__add_note", map[string]any{"text": "keep me"})
	if err == nil {
		fmt.Println("allowed:", res.Content[0].(*mcp.TextContent).Text)
	}

	_, err = h.CallTool(ctx, "mcp__notes__delete_notes", nil)
	var denied *host.DeniedError
	if errors.As(err, &denied) {
		fmt.Printf("denied by %s: %s\n", denied.Stage, denied.Reason)
	}
	fmt.Println("is ErrDenied:", errors.Is(err, host.ErrDenied))
	// Output:
	// allowed: noted: keep me
	// denied by deny-deletes: deleting is not allowed here
	// is ErrDenied: true
}
