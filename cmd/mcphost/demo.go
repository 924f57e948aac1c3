package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/internal/demo"
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
	n.say("Starting the embedded demo server %q and connecting to it", demo.Name)
	cfg := &config.Config{}
	h, err := a.startHostWith(ctx, cfg, host.WithInProcessServer("demo", demo.NewServer()))
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

	n.say("A tool annotated destructive (policy plugins can deny or confirm such calls)")
	if res, err := call("delete_note", map[string]any{"name": "todo"}); err == nil {
		printResult(a.stdout, res)
	}

	n.say("A large result: %s", "big_report")
	if res, err := call("big_report", map[string]any{"kb": 64}); err == nil {
		text := textOf(res)
		lines := strings.Split(text, "\n")
		fmt.Fprintf(a.stdout, "%d bytes in %d lines; the first three:\n", len(text), len(lines))
		for _, l := range lines[:min(3, len(lines))] {
			fmt.Fprintf(a.stdout, "  %s\n", l)
		}
	}

	n.say("Resources and prompts")
	if res, err := h.Resources(ctx, ""); err == nil {
		for _, r := range res {
			fmt.Fprintf(a.stdout, "resource %s (%s)\n", r.URI, r.Name)
		}
	}
	if rr, err := h.ReadResource(ctx, "", "demo://readme"); err == nil {
		fmt.Fprintln(a.stdout, "$ mcphost read demo://readme")
		for _, c := range rr.Contents {
			fmt.Fprintln(a.stdout, oneLine(c.Text, 100))
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
