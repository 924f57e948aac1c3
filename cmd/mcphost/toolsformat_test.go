package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcphost/mcphost/internal/hosttest"
)

// tools --format prints each provider's tool list from a real server, with
// the test server's "add" tool converted: OpenAI strict mode, Anthropic's
// input_schema, Gemini's declarations.
func TestToolsFormat(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	bin := hosttest.BuildTestServer(t)

	openai := decodeJSON[[]map[string]any](t, e.must(exitOK, "tools", "--format", "openai", "--", bin))
	add := findTool(t, openai, func(m map[string]any) string {
		f, _ := m["function"].(map[string]any)
		name, _ := f["name"].(string)
		return name
	})
	if add["type"] != "function" {
		t.Errorf("openai: type %v", add["type"])
	}
	fn := add["function"].(map[string]any)
	params, _ := fn["parameters"].(map[string]any)
	if fn["strict"] != true || params["additionalProperties"] != false {
		t.Errorf("openai: want a strict schema, got %v", fn)
	}

	anthropic := decodeJSON[[]map[string]any](t, e.must(exitOK, "tools", "--format", "anthropic", "--", bin))
	a := findTool(t, anthropic, func(m map[string]any) string { s, _ := m["name"].(string); return s })
	if s, _ := a["input_schema"].(map[string]any); s["type"] != "object" {
		t.Errorf("anthropic: input_schema %v", a["input_schema"])
	}

	gemini := decodeJSON[[]map[string]any](t, e.must(exitOK, "tools", "--format", "gemini", "--", bin))
	g := findTool(t, gemini, func(m map[string]any) string { s, _ := m["name"].(string); return s })
	if _, ok := g["parameters"].(map[string]any); !ok {
		t.Errorf("gemini: parameters %v", g["parameters"])
	}

	r := e.run("tools", "--format", "cohere", "--", bin)
	if r.code != exitUsage {
		t.Errorf("unknown format: exit %d, stderr %s", r.code, r.stderr)
	}
	wantContains(t, "unknown format", r.stderr, "--format", "openai")
	r = e.run("tools", "--format", "openai", "--json", "--", bin)
	if r.code != exitUsage {
		t.Errorf("--format with --json: exit %d", r.code)
	}
}

// findTool returns the element of tools whose name (by nameOf) is the test
// server's add tool.
func findTool(t *testing.T, tools []map[string]any, nameOf func(map[string]any) string) map[string]any {
	t.Helper()
	for _, m := range tools {
		if nameOf(m) == "mcp__adhoc__add" {
			return m
		}
	}
	t.Fatalf("no mcp__adhoc__add in %v", tools)
	return nil
}

// A tool the policy always denies is not exported to a model in any
// format; "tools" still lists it, marked, and --json says why.
func TestToolsFormatLeavesOutDeniedTools(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	bin := hosttest.BuildTestServer(t)
	cfg := writeFile(t, filepath.Join(t.TempDir(), "c.yaml"), "policy: {deny: ['*add*']}\n")
	for _, f := range []string{"openai", "openai-responses", "anthropic", "gemini", "mcp"} {
		r := e.must(exitOK, "--config", cfg, "tools", "--format", f, "--", bin)
		if strings.Contains(r.stdout, `"mcp__adhoc__add"`) {
			t.Errorf("--format %s exports the denied tool:\n%s", f, r.stdout)
		}
		if !strings.Contains(r.stdout, "mcp__adhoc__echo") {
			t.Errorf("--format %s lost an allowed tool:\n%s", f, r.stdout)
		}
	}
	r := e.must(exitOK, "--config", cfg, "tools", "--", bin)
	wantContains(t, "tools", r.stdout, "mcp__adhoc__add", "DENIED", "*add*")
	r = e.must(exitOK, "--config", cfg, "tools", "show", "add", "--", bin)
	wantContains(t, "tools show", r.stdout, "DENIED", "*add*", "every call is refused")
	listed := decodeJSON[[]map[string]any](t, e.must(exitOK, "--config", cfg, "tools", "--json", "--", bin))
	for _, m := range listed {
		if m["name"] == "mcp__adhoc__add" {
			if d, _ := m["denied"].(string); !strings.Contains(d, "*add*") {
				t.Errorf("--json: denied %q, want the deny glob named", d)
			}
			return
		}
	}
	t.Errorf("--json does not list the denied tool: %v", listed)
}
