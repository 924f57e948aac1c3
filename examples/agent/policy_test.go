package main

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The agent carries out the configuration's policies: the model is not
// offered the tool the built-in deny always refuses, and a call that a
// policy plugin denies is answered to the model as a failure, never run.
func TestAgentAppliesTheConfigurationsPolicies(t *testing.T) {
	e := newAgentEnv(t)
	wasm, err := os.ReadFile("../../internal/demo/plugins/deny-destructive.wasm")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(e.config)
	if err := os.WriteFile(filepath.Join(dir, "deny-destructive.wasm"), wasm, 0o600); err != nil {
		t.Fatal(err)
	}
	// The echo server's tools carry no annotations: MCP's defaults make
	// them destructive, so the plugin denies echo (only big is allowed).
	policy := `policy:
  deny: ["*add*"]
plugins:
  - name: org-policy
    path: deny-destructive.wasm
    hooks: [policy]
    config:
      allow: "*big*"
      confirm_open_world: "false"
    limits:
      timeout_ms: 5000
`
	f, err := os.OpenFile(e.config, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(policy)
	f.Close()

	m := &fakeModel{t: t, format: "openai"}
	srv := httptest.NewServer(m)
	defer srv.Close()
	stdout, stderr, err := e.run(modelEnv("openai", srv.URL), "say ping")
	if err != nil {
		t.Fatalf("run: %v\nstderr:\n%s", err, stderr)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if slices.Contains(m.offered, "mcp__echo__add") || !slices.Contains(m.offered, "mcp__echo__big") {
		t.Errorf("offered %v: want big, and not add (policy.deny)", m.offered)
	}
	if len(m.results) != 1 || !strings.Contains(m.results[0], "org-policy") || !strings.Contains(m.results[0], "denied") {
		t.Errorf("the model was told %q, want the plugin's denial", m.results)
	}
	if strings.Contains(stdout, "ping-openai") && !strings.Contains(stdout, "denied") {
		t.Errorf("the denied call ran: %s", stdout)
	}
}
