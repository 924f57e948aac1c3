package chain_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/chain"
	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/internal/hosttest"
	"github.com/mcphost/mcphost/plugins"
)

// recipeConfig writes a configuration like those of the library's guides
// (docs/library.md, and the README's "Embed the library"): a stdio server, a
// built-in deny and a policy plugin that denies destructive tools except echo
// (the test server's tools carry no annotations, so MCP's defaults make them
// destructive).
func recipeConfig(t *testing.T) (dir string, cfg *config.Config) {
	t.Helper()
	dir = t.TempDir()
	wasm, err := os.ReadFile("../../internal/demo/plugins/deny-destructive.wasm")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "deny-destructive.wasm"), wasm, 0o600); err != nil {
		t.Fatal(err)
	}
	yaml := `servers:
  test:
    command: ` + hosttest.BuildTestServer(t) + `
policy:
  deny: ["*add*"]
plugins:
  - name: org-policy
    path: deny-destructive.wasm
    hooks: [policy]
    config:
      allow: "*echo*"
      confirm_open_world: "false"
    limits:
      timeout_ms: 5000
`
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err = config.Load(config.LoadOptions{GlobalDir: dir, WorkDir: dir, Environ: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	return dir, cfg
}

// The library's recipe (docs/library.md) enforces the configuration: the
// built-in deny and the plugin's deny both stop calls, and the other tools
// work.
func TestREADMERecipeEnforcesPolicies(t *testing.T) {
	dir, cfg := recipeConfig(t)
	// A hang guard, not a speed check: the plugin compiles under the race
	// detector, on machines that may be busy.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	h, err := chain.NewHost(ctx, cfg, chain.Options{Plugins: plugins.Options{CacheDir: filepath.Join(dir, "cache")}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	if err := h.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := h.CallTool(ctx, "mcp__test__echo", map[string]any{"text": "hi"}); err != nil {
		t.Fatalf("echo: %v", err)
	}
	for name, stage := range map[string]string{
		"mcp__test__add": "builtin:glob-policy", // the built-in deny
		"mcp__test__big": "org-policy",          // the plugin's deny
	} {
		_, err := h.CallTool(ctx, name, map[string]any{"a": 1, "b": 2, "n": 3})
		var denied *host.DeniedError
		if !errors.As(err, &denied) || denied.Stage != stage {
			t.Errorf("%s: err = %v, want denied by %s", name, err, stage)
		}
	}
	// What the built-in deny always refuses is not offered to a model,
	// and is still listed, marked, for people.
	for _, tool := range h.Tools() {
		if tool.Name == "mcp__test__add" {
			t.Errorf("Tools offers %s, which policy.deny always refuses", tool.Name)
		}
	}
	found := false
	for _, tool := range h.AllTools() {
		if tool.Name == "mcp__test__add" {
			found = true
			if !strings.Contains(tool.Denied, `"*add*"`) {
				t.Errorf("AllTools: %s Denied = %q, want the deny glob named", tool.Name, tool.Denied)
			}
		}
	}
	if !found {
		t.Error("AllTools does not list mcp__test__add")
	}
}

// host.New alone never gives a host that skips a configuration's
// restrictions: it refuses, naming what was asked and what to use.
func TestHostNewRefusesConfigWithoutItsStages(t *testing.T) {
	_, cfg := recipeConfig(t)
	_, err := host.New(cfg)
	if err == nil {
		t.Fatal("host.New accepted a configuration with policy and plugins it does not apply")
	}
	for _, want := range []string{"policy.deny", "1 plugin", "chain.NewHost"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	for name, c := range map[string]*config.Config{
		"allow":   {Policy: config.Policy{Allow: []string{"*"}}},
		"confirm": {Policy: config.Policy{ConfirmDestructive: true}},
		"results": {Results: config.Results{MaxBytes: 100}},
		"plugins": {Plugins: []*config.Plugin{{Name: "p"}}},
	} {
		if _, err := host.New(c); err == nil || !strings.Contains(err.Error(), "chain.NewHost") {
			t.Errorf("%s: host.New = %v, want a refusal naming chain.NewHost", name, err)
		}
	}
	// A configuration without restrictions needs nothing more.
	h, err := host.New(&config.Config{})
	if err != nil {
		t.Fatal(err)
	}
	h.Close(context.Background())
}
