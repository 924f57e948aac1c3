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
		// the plugins: a denied call, a confirmed call, a redacted result
		"plugin deny-destructive", "plugin redact-secrets",
		`error: server "demo": tool "delete_note": denied by deny-destructive`,
		"deny-destructive asks: open-world", "Lisbon:",
		"api_key = [REDACTED:api_key]", "[REDACTED:email]",
		// a truncated result and its full-result resource
		"[truncated by mcphost: showing ", " of 65595 bytes of text; the full result is the resource mcphost://results/", "$ mcphost read mcphost://results/", "nothing lost",
		// resources and the prompt
		"resource demo://readme (readme)",
		"$ mcphost prompt summarize", "[user] Summarize what you know about MCP hosts",
		// the audit trail
		"deny-destructive  policy", "confirmed", "redact-secrets    transform_result",
	)
	wantNotContains(t, "demo output", r.stdout, "sk-demo", "ops-team@example.com")
	wantNotContains(t, "demo stderr", r.stderr, "mcphost:")
}
