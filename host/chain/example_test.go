package chain_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/chain"
	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/plugins"
)

// Build a host from a configuration with chain.NewHost: it carries out the
// configuration's built-in policy and its plugins on every call (host.New
// alone refuses such a configuration). The plugin is
// examples/plugins/deny-destructive, built to WebAssembly (the copy that
// `mcphost demo` embeds); it denies tools that say they may destroy data.
// The built-in deny glob also keeps its tools out of h.Tools, the list a
// model is offered.
func Example() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "mcphost-example-")
	defer os.RemoveAll(dir)
	wasm, err := os.ReadFile("../../internal/demo/plugins/deny-destructive.wasm")
	if err != nil {
		fmt.Println(err)
		return
	}
	os.WriteFile(filepath.Join(dir, "deny-destructive.wasm"), wasm, 0o600)
	os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(`
policy:
  deny: ["*purge*"]
plugins:
  - name: org-policy
    path: deny-destructive.wasm   # relative to this file
    hooks: [policy]
    config:
      confirm_open_world: "false"
    limits:
      timeout_ms: 5000
`), 0o600)

	cfg, err := config.Load(config.LoadOptions{GlobalDir: dir, WorkDir: dir, Environ: []string{}})
	if err != nil {
		fmt.Println(err)
		return
	}

	// A server with a harmless tool and two destructive ones.
	srv := mcp.NewServer(&mcp.Implementation{Name: "files", Version: "1.0.0"}, nil)
	yes, no := true, false
	ok := func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
	}
	destructive := &mcp.ToolAnnotations{DestructiveHint: &yes, OpenWorldHint: &no}
	mcp.AddTool(srv, &mcp.Tool{Name: "list", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &no}}, ok)
	mcp.AddTool(srv, &mcp.Tool{Name: "wipe", Annotations: destructive}, ok)
	mcp.AddTool(srv, &mcp.Tool{Name: "purge", Annotations: destructive}, ok)

	h, err := chain.NewHost(ctx, cfg, chain.Options{Plugins: plugins.Options{CacheDir: filepath.Join(dir, "cache")}},
		host.WithInProcessServer("files", srv))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer h.Close(context.Background()) // releases the plugins too
	if err := h.Start(ctx); err != nil {
		fmt.Println(err)
		return
	}

	for _, t := range h.Tools() {
		fmt.Println("offered:", t.Name)
	}
	for _, name := range []string{"mcp__files__list", "mcp__files__wipe", "mcp__files__purge"} {
		_, err := h.CallTool(ctx, name, nil)
		var denied *host.DeniedError
		switch {
		case errors.As(err, &denied):
			fmt.Printf("%s: denied by %s\n", name, denied.Stage)
		case err != nil:
			fmt.Printf("%s: %v\n", name, err)
		default:
			fmt.Printf("%s: called\n", name)
		}
	}
	// Output:
	// offered: mcp__files__list
	// offered: mcp__files__wipe
	// mcp__files__list: called
	// mcp__files__wipe: denied by org-policy
	// mcp__files__purge: denied by builtin:glob-policy
}
