package main

import (
	"path/filepath"
	"testing"
)

func TestDemo(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	// The demo reads no configuration: a broken global file does not matter.
	writeFile(t, filepath.Join(e.global, "config.yaml"), "servers: [\n")
	r := e.must(exitOK, "demo")
	wantContains(t, "demo output", r.stdout,
		// the tool list
		"PUBLIC NAME", "mcp__demo__echo", "demo:echo", "mcp__demo__delete_note", "destructive",
		// the echo result
		"$ mcphost call mcp__demo__echo", "hello from mcphost",
		// structured output
		`[structured content: {"sum":42}]`,
		// progress lines and the slow tool's result
		"  progress ", "waited 600 ms",
		// the deadline error
		`error: server "demo": tool "slow": no answer within 200ms`,
		// the big report summary
		"bytes in", "lines; the first three:", "USAGE REPORT",
		// resources and the prompt
		"resource demo://readme (readme)", "# mcphost demo server",
		"$ mcphost prompt summarize", "[user] Summarize what you know about MCP hosts",
	)
	wantNotContains(t, "demo stderr", r.stderr, "mcphost:")
}
