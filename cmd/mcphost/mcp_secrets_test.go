package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/mcphost/mcphost/internal/hosttest"
)

// Secret values (env and headers) never appear in any output.
func TestSecretsNeverPrinted(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const envSecret, headerSecret, varSecret = "env-s3cr3t-value", "hdr-s3cr3t-value", "var-s3cr3t-value"
	e.environ = []string{"API_TOKEN=" + varSecret}
	var outputs []result
	add := func(args ...string) {
		outputs = append(outputs, e.must(exitOK, append([]string{"mcp", "add"}, args...)...))
	}
	add("local", "--command", "srv", "--env", "TOKEN="+envSecret, "-e", "FROM_VAR=${API_TOKEN}")
	add("remote", "--url", "http://127.0.0.1:9/mcp", "--header", "Authorization=Bearer "+headerSecret, "-H", "X-Key: ${API_TOKEN}", "--scope", "global")
	cfg := e.configFile(map[string]any{"ts": testServer(t), "ts-env": map[string]any{
		"command": hosttest.BuildTestServer(t), "env": map[string]any{"TOKEN": envSecret},
	}})
	for _, args := range [][]string{
		{"mcp", "get", "local"}, {"mcp", "get", "local", "--json"},
		{"mcp", "get", "remote"}, {"mcp", "get", "remote", "--json"},
		{"mcp", "list"}, {"mcp", "list", "--json"}, {"mcp", "list", "--scope", "global", "--json"},
		{"mcp", "list", "--scope", "local"}, {"mcp", "list", "-s", "global"},
		{"--config", cfg, "mcp", "get", "ts-env"}, {"--config", cfg, "mcp", "test", "ts-env"},
		{"--config", cfg, "--log-level", "trace", "servers", "--json"},
		{"--config", cfg, "--log-level", "trace", "servers"},
	} {
		r := e.run(args...)
		// servers exits 1: local and remote do not start.
		if want := exitOK; r.code != want && !(slices.Contains(args, "servers") && r.code == exitFailure) {
			t.Errorf("want exit %d:\n%s", want, r)
		}
		outputs = append(outputs, r)
	}
	// A refused entry does not echo the value either.
	outputs = append(outputs, e.must(exitUsage, "mcp", "add", "x", "--command", "a", "--env", "TOKEN"+envSecret))
	outputs = append(outputs, e.must(exitUsage, "mcp", "add", "x", "--url", "https://h/", "--header", "A=${BAD"+headerSecret))

	for _, r := range outputs {
		for _, secret := range []string{envSecret, headerSecret, varSecret} {
			if strings.Contains(r.stdout, secret) || strings.Contains(r.stderr, secret) {
				t.Errorf("secret %q printed:\n%s", secret, r)
			}
		}
	}
	// The keys are shown, masked.
	s := e.getServer("local")
	if env, _ := s["env"].(map[string]any); env["TOKEN"] != "****" || env["FROM_VAR"] != "****" {
		t.Errorf("local env = %v", s["env"])
	}
	s = e.getServer("remote")
	if h, _ := s["headers"].(map[string]any); h["Authorization"] != "Bearer ****" || h["X-Key"] != "****" {
		t.Errorf("remote headers = %v", s["headers"])
	}
	r := e.must(exitOK, "mcp", "get", "remote")
	wantContains(t, "mcp get", r.stdout, "Authorization", "X-Key", "Bearer ****")
	// --show-secrets reveals them, on request.
	r = e.must(exitOK, "--show-secrets", "mcp", "get", "remote")
	wantContains(t, "mcp get --show-secrets", r.stdout, headerSecret)
}

// A URL's password and query values are secrets too: redacted in listings,
// --json included, and in errors and logs that quote the URL.
func TestURLSecretsNeverPrinted(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const pass, token = "url-pass-5f1e", "query-token-77ab"
	// Nothing listens on port 9 of loopback: connecting fails with an error
	// that quotes the URL.
	u := "http://alice:" + pass + "@127.0.0.1:9/mcp?token=" + token + "&x=1"
	e.must(exitOK, "mcp", "add", "remote", "--url", u, "--transport", "http", "--startup-timeout", "5s")
	var outputs []result
	for _, args := range [][]string{
		{"mcp", "get", "remote"}, {"mcp", "get", "remote", "--json"},
		{"mcp", "list"}, {"mcp", "list", "--json"},
		{"--log-level", "trace", "servers"}, {"--log-level", "trace", "servers", "--json"},
		{"--log-level", "debug", "mcp", "test", "remote"},
	} {
		outputs = append(outputs, e.run(args...))
	}
	for _, r := range outputs {
		if strings.Contains(r.stdout+r.stderr, pass) || strings.Contains(r.stdout+r.stderr, token) {
			t.Errorf("a URL secret was printed:\n%s", r)
		}
	}
	wantContains(t, "mcp get", outputs[0].stdout, "alice:****@127.0.0.1:9", "token=****")
}
