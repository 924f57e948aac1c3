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

// A program built on config.Load and chain.NewHost carries out the
// administrator's managed layer: its policy plugin runs first, a server
// its rules block never starts, and a plugin of the user's that it does not
// allow is not loaded.
func TestLibraryHonoursManagedLayer(t *testing.T) {
	root := t.TempDir()
	managed, user := filepath.Join(root, "managed"), filepath.Join(root, "user")
	for _, d := range []string{managed, user} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	wasm, err := os.ReadFile("../../internal/demo/plugins/deny-destructive.wasm")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(managed, "deny-destructive.wasm"), wasm, 0o644); err != nil {
		t.Fatal(err)
	}
	server := hosttest.BuildTestServer(t)
	write := func(path, content string) {
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(managed, "managed.yaml"), `managed:
  plugins: managed_only
  denied_servers:
    - {id: "shadow*"}
plugins:
  - name: org-policy
    path: deny-destructive.wasm
    hooks: [policy]
    config: {allow: "*echo*", confirm_open_world: "false"}
    limits: {timeout_ms: 5000}
`)
	write(filepath.Join(user, "config.yaml"), `servers:
  test: {command: `+server+`}
  shadow-it: {command: `+server+`}
plugins:
  - {name: mine, path: does-not-exist.wasm}
`)
	cfg, err := config.Load(config.LoadOptions{GlobalDir: user, WorkDir: user, ManagedDir: managed, Environ: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	// A hang guard, not a speed check: the plugin compiles under the race
	// detector, on machines that may be busy.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	h, err := chain.NewHost(ctx, cfg, chain.Options{Plugins: plugins.Options{CacheDir: filepath.Join(root, "cache")}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	if err := h.Start(ctx); err != nil {
		t.Fatal(err)
	}
	for _, st := range h.Status() {
		if st.ID == "shadow-it" && (st.State != host.StateBlocked || !strings.Contains(st.Error, "denied_servers[0]")) {
			t.Errorf("shadow-it: state %s, error %q; want blocked by the rule", st.State, st.Error)
		}
	}
	if _, err := h.CallTool(ctx, "mcp__test__echo", map[string]any{"text": "hi"}); err != nil {
		t.Fatalf("echo: %v", err)
	}
	_, err = h.CallTool(ctx, "mcp__test__big", map[string]any{"n": 3})
	var denied *host.DeniedError
	if !errors.As(err, &denied) || denied.Stage != "org-policy" {
		t.Errorf("big: err = %v, want denied by the managed plugin", err)
	}
	_, err = h.CallTool(ctx, "shadow-it:echo", map[string]any{"text": "hi"})
	if err == nil || !strings.Contains(err.Error(), "blocked by denied_servers[0]") {
		t.Errorf("a call to the blocked server: %v", err)
	}
	if err := h.SetEnabled(ctx, "shadow-it", true); err == nil {
		t.Error("a blocked server was enabled")
	}
}
