package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/internal/demo"
)

// reading or getting one fails with a message naming it.
func TestResourcesAndPromptsWithoutAny(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	cfg := e.configFile(map[string]any{"ts": testServer(t)})

	r := e.must(exitOK, "--config", cfg, "resources", "--json")
	got := decodeJSON[map[string][]any](t, r)
	if got["resources"] == nil || got["templates"] == nil || len(got["resources"])+len(got["templates"]) != 0 {
		t.Errorf("resources --json = %s, want empty arrays", r.stdout)
	}
	r = e.must(exitOK, "--config", cfg, "resources")
	wantContains(t, "resources table", r.stdout, "URI")
	r = e.must(exitOK, "--config", cfg, "prompts", "--json")
	if strings.TrimSpace(r.stdout) != "[]" {
		t.Errorf("prompts --json = %q, want []", r.stdout)
	}
	// A name that resolves to nothing is a usage error, like an unknown tool.
	r = e.must(exitUsage, "--config", cfg, "read", "test://nothing")
	wantContains(t, "stderr", r.stderr, "test://nothing")
	r = e.must(exitUsage, "--config", cfg, "prompt", "nothing")
	wantContains(t, "stderr", r.stderr, `"nothing"`)
	r = e.must(exitUsage, "--config", cfg, "resources", "--server", "nope")
	wantContains(t, "stderr", r.stderr, `"nope"`)

	// A named server that is not available is a failure; without a name,
	// the others are listed and the broken one is named on stderr.
	cfg = e.configFile(map[string]any{"ts": testServer(t), "bad": brokenServer(t)})
	for _, cmd := range []string{"resources", "prompts"} {
		r = e.must(exitFailure, "--config", cfg, cmd, "--server", "bad")
		wantContains(t, "stderr", r.stderr, "bad", "no-such-server")
		r = e.must(exitOK, "--config", cfg, cmd)
		wantContains(t, "stderr", r.stderr, "warning: server bad", "no-such-server")
	}
}

// Resources and prompts of a server that has them: the demo server, run in
// process through the same host code path.
func TestResourcesAndPromptsDemoServer(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.hostOpts = []host.Option{host.WithInProcessServer("demo", demo.NewServer())}

	r := e.must(exitOK, "resources")
	wantContains(t, "resources", r.stdout, "SERVER", "demo://readme", "readme", "demo://notes/welcome", "(template)")
	r = e.must(exitOK, "resources", "--json")
	got := decodeJSON[map[string][]map[string]any](t, r)
	var uris []string
	for _, res := range got["resources"] {
		if res["server"] != "demo" {
			t.Errorf("resource %v: server is not demo", res)
		}
		uris = append(uris, res["uri"].(string))
	}
	if !slices.Contains(uris, "demo://readme") || len(got["templates"]) == 0 {
		t.Errorf("resources --json = %s", r.stdout)
	}

	r = e.must(exitOK, "read", "demo://readme")
	wantContains(t, "read", r.stdout, "# mcphost demo server")
	r = e.must(exitOK, "read", "demo://notes/welcome", "--json")
	if res := decodeJSON[map[string]any](t, r); res["contents"] == nil {
		t.Errorf("read --json = %s", r.stdout)
	}

	r = e.must(exitOK, "prompts")
	wantContains(t, "prompts", r.stdout, "demo:summarize", "topic*")
	r = e.must(exitOK, "prompts", "--json")
	prompts := decodeJSON[[]map[string]any](t, r)
	if len(prompts) == 0 || prompts[0]["display"] != "demo:summarize" {
		t.Errorf("prompts --json = %s", r.stdout)
	}

	r = e.must(exitOK, "prompt", "summarize", "--arg", "topic=MCP hosts")
	wantContains(t, "prompt", r.stdout, "[user]", "MCP hosts")
	r = e.must(exitOK, "prompt", "demo:summarize", "--arg", "topic=gateways", "--json")
	wantContains(t, "prompt --json", decodeJSON[map[string]any](t, r)["messages"].([]any)[0].(map[string]any)["content"].(map[string]any)["text"].(string), "gateways")
	// A missing required argument is found before the server is asked.
	r = e.must(exitUsage, "prompt", "summarize")
	wantContains(t, "stderr", r.stderr, "missing required argument topic")
	r = e.must(exitFailure, "prompt", "summarize", "--no-check")
	wantContains(t, "stderr", r.stderr, "topic")

	r = e.must(exitOK, "call", "demo:echo", "--args", `{"text":"in process"}`)
	wantContains(t, "stdout", r.stdout, "in process")
}
