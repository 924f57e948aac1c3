package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/internal/demo"
	"github.com/mcphost/mcphost/pdk/abi"
)

func (a *app) demoCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "demo",
		Short: "Run mcphost against its embedded demo server and narrate each step",
		Long: `Run mcphost against an MCP server compiled into the binary. The demo server
is connected through the same code path as a real one (over in-memory
transports); nothing is read from your configuration and nothing leaves the process.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.runDemo(cmd.Context())
		},
	}
}

// demoStep prints a numbered heading.
type demoNarrator struct {
	w    io.Writer
	step int
}

func (n *demoNarrator) say(format string, args ...any) {
	n.step++
	fmt.Fprintf(n.w, "\n== %d. %s\n", n.step, fmt.Sprintf(format, args...))
}

func (a *app) runDemo(ctx context.Context) error {
	n := &demoNarrator{w: a.stdout}
	n.say("Loading the demo's WebAssembly plugins and starting the embedded demo server %q", demo.Name)
	dir, err := os.MkdirTemp("", "mcphost-demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	paths, err := demo.WritePlugins(dir)
	if err != nil {
		return err
	}
	limits := config.DefaultPluginLimits()
	// Generous for a first run on a busy machine: the demo is about what
	// plugins decide, not about tight budgets.
	limits.Timeout = 2 * time.Second
	cfg := &config.Config{
		Plugins: []*config.Plugin{
			{Name: "deny-destructive", Path: paths["deny-destructive"], Hooks: []abi.Hook{abi.HookPolicy}, Limits: limits},
			{Name: "redact-secrets", Path: paths["redact-secrets"], Hooks: []abi.Hook{abi.HookTransformResult}, Limits: limits},
		},
		Results: config.Results{MaxBytes: 2048},
	}
	var audit []host.AuditEvent
	var auditMu sync.Mutex
	h, err := a.startHostWith(ctx, cfg,
		host.WithInProcessServer("demo", demo.NewServer()),
		host.WithAudit(func(e host.AuditEvent) { auditMu.Lock(); audit = append(audit, e); auditMu.Unlock() }),
		host.WithConfirmer(func(_ context.Context, req host.ConfirmRequest) (bool, error) {
			a.termMu.Lock()
			defer a.termMu.Unlock()
			fmt.Fprintf(a.stdout, "  %s asks: %s — allow %s:%s? [y/N] y   (the demo answers for you; mcphost call asks on your terminal, or takes --yes)\n",
				req.Stage, req.Reason, req.Server, req.Tool)
			return true, nil
		}),
	)
	if err != nil {
		return err
	}
	defer a.closeHost(h)
	st := h.Status()[0]
	if st.State != host.StateReady {
		return fmt.Errorf("demo server is %s: %s", st.State, st.Error)
	}
	fmt.Fprintf(a.stdout, "connected: %s %s, protocol %s, %d tools, in %s\n",
		st.ServerName, st.ServerVersion, st.ProtocolVersion, st.Tools, st.ConnectDuration.Round(time.Microsecond))
	for _, name := range demo.PluginNames {
		sum, _ := demo.PluginSHA256(name)
		fmt.Fprintf(a.stdout, "plugin %-17s sandboxed Wasm, sha256 %s…\n", name, sum[:16])
	}

	n.say("Tools, with the public names an agent sees (scheme mcp__<server>__<tool>)")
	tw := table(a.stdout)
	fmt.Fprintln(tw, "PUBLIC NAME\tSERVER:TOOL\tHINTS")
	for _, t := range h.Tools() {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", t.Name, t.Display, hints(t.Annotations))
	}
	if err := tw.Flush(); err != nil {
		return err
	}

	call := func(tool string, args map[string]any, opts ...host.CallOption) (*mcp.CallToolResult, error) {
		name := publicName(h, tool)
		fmt.Fprintf(a.stdout, "$ mcphost call %s --args '%s'\n", name, compactJSON(args))
		res, err := h.CallTool(ctx, name, args, opts...)
		if err != nil {
			fmt.Fprintf(a.stdout, "error: %v\n", err)
			return nil, err
		}
		return res, nil
	}

	n.say("Calling a tool: echo")
	if res, err := call("echo", map[string]any{"text": "hello from mcphost"}); err == nil {
		printResult(a.stdout, res)
	}

	n.say("Structured output: add returns text and structuredContent")
	if res, err := call("add", map[string]any{"a": 2, "b": 40}); err == nil {
		printResult(a.stdout, res)
	}

	n.say("Progress notifications from a slow tool (every call has a deadline)")
	slowDone := false // under termMu: progress that arrives late is not printed
	res, err := call("slow", map[string]any{"duration_ms": 600}, host.WithProgress(func(p host.Progress) {
		a.termMu.Lock()
		defer a.termMu.Unlock()
		if !slowDone {
			fmt.Fprintf(a.stdout, "  progress %.0f/%.0f %s\n", p.Progress, p.Total, p.Message)
		}
	}))
	a.termMu.Lock()
	slowDone = true
	a.termMu.Unlock()
	if err == nil {
		printResult(a.stdout, res)
	}

	n.say("A deadline that is too short: the call is cancelled on the server")
	_, _ = call("slow", map[string]any{"duration_ms": 5000}, host.WithTimeout(200*time.Millisecond))

	n.say("A denied call: delete_note is annotated destructive, and the deny-destructive policy plugin (Go) denies it")
	_, _ = call("delete_note", map[string]any{"name": "todo"})

	n.say("A confirmed call: fetch_weather reaches the outside world, so the policy asks first")
	if res, err := call("fetch_weather", map[string]any{"city": "Lisbon"}); err == nil {
		printResult(a.stdout, res)
	}

	n.say("A redacted result: read_settings leaks credentials; the redact-secrets transform plugin (Rust) removes them")
	if res, err := call("read_settings", map[string]any{}); err == nil {
		printResult(a.stdout, res)
	}

	n.say("A truncated result: big_report is 64 KiB, results.max_bytes is 2048, and the full result is kept")
	if res, err := call("big_report", map[string]any{"kb": 64}); err == nil {
		text := textOf(res)
		lines := strings.Split(text, "\n")
		fmt.Fprintf(a.stdout, "%d bytes of text reach the agent; the first lines and the marker:\n", len(text))
		for _, l := range lines[:min(2, len(lines))] {
			fmt.Fprintf(a.stdout, "  %s\n", l)
		}
		fmt.Fprintf(a.stdout, "  …\n  %s\n", strings.TrimSpace(lines[len(lines)-1]))
		for _, c := range res.Content {
			if link, ok := c.(*mcp.ResourceLink); ok {
				fmt.Fprintf(a.stdout, "$ mcphost read %s\n", link.URI)
				if rr, err := h.ReadResource(ctx, "", link.URI); err == nil && len(rr.Contents) > 0 {
					fmt.Fprintf(a.stdout, "the full result: %d bytes of JSON, nothing lost\n", len(rr.Contents[0].Text))
				} else if err != nil {
					fmt.Fprintf(a.stdout, "error: %v\n", err)
				}
			}
		}
	}

	n.say("Resources and prompts")
	if res, err := h.Resources(ctx, "demo"); err == nil {
		for _, r := range res {
			fmt.Fprintf(a.stdout, "resource %s (%s)\n", r.URI, r.Name)
		}
	}
	if pr, err := h.GetPrompt(ctx, "summarize", map[string]string{"topic": "MCP hosts"}); err == nil {
		fmt.Fprintln(a.stdout, "$ mcphost prompt summarize --arg topic='MCP hosts'")
		for _, m := range pr.Messages {
			if tc, ok := m.Content.(*mcp.TextContent); ok {
				fmt.Fprintf(a.stdout, "[%s] %s\n", m.Role, oneLine(tc.Text, 100))
			}
		}
	}

	n.say("The audit trail: every stage decision, with its duration")
	auditMu.Lock()
	tw = table(a.stdout)
	fmt.Fprintln(tw, "STAGE\tHOOK\tTOOL\tOUTCOME\tTOOK")
	for _, e := range audit {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", e.Stage, e.Hook, e.Tool, e.Outcome, e.Duration.Round(time.Microsecond))
	}
	auditMu.Unlock()
	if err := tw.Flush(); err != nil {
		return err
	}

	n.say("Done. Try it on your own servers:")
	fmt.Fprintln(a.stdout, `  mcphost mcp add everything -- npx -y @modelcontextprotocol/server-everything
  mcphost tools
  mcphost call mcp__everything__echo --args '{"message":"hi"}'`)
	return nil
}

func publicName(h *host.Host, tool string) string {
	if t, ok := h.Resolve("demo:" + tool); ok {
		return t.Name
	}
	return "demo:" + tool
}

func textOf(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

func hints(a *mcp.ToolAnnotations) string {
	if a == nil {
		return ""
	}
	var h []string
	if a.ReadOnlyHint {
		h = append(h, "read-only")
	}
	if a.DestructiveHint != nil && *a.DestructiveHint {
		h = append(h, "destructive")
	}
	if a.IdempotentHint {
		h = append(h, "idempotent")
	}
	if a.OpenWorldHint != nil && *a.OpenWorldHint {
		h = append(h, "open-world")
	}
	return strings.Join(h, ",")
}
