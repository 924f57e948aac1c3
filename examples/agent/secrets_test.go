package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/internal/hosttest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	hosttest.CleanupTestServer()
	os.Exit(code)
}

// The key taken out of the environment is not in what a stdio server
// inherits: asked for the variable, the server (a real process) has none.
func TestAgentKeyNotInheritedByStdioServers(t *testing.T) {
	t.Setenv(keyVariable, testKey)
	env := environment()
	if env(keyVariable) != testKey {
		t.Fatal("the key is lost")
	}
	file := filepath.Join(t.TempDir(), "agent.yaml")
	yaml := "servers:\n  t:\n    command: " + quoteYAML(hosttest.BuildTestServer(t)) + "\n"
	if err := os.WriteFile(file, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(config.LoadOptions{ConfigFile: file, GlobalDir: t.TempDir(), WorkDir: t.TempDir(), Environ: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	h, err := host.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	if err := h.Start(ctx); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{keyVariable, "PATH"} {
		res, err := h.CallTool(ctx, "mcp__t__env", map[string]any{"name": name})
		if err != nil {
			t.Fatal(err)
		}
		got := hosttest.Text(res)
		if name == keyVariable && got != "" {
			t.Errorf("the server sees %s (%d bytes)", keyVariable, len(got))
		}
		if name == "PATH" && got == "" { // the tool reads the environment at all
			t.Errorf("the server sees no PATH")
		}
	}
}

func quoteYAML(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// The key can come from a file (read once, whole, trimmed), which keeps it
// out of the process environment altogether.
func TestAgentKeyFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("key", "  "+testKey+"\n")
	settingsWith := func(vars map[string]string) (*settings, error) {
		vars["MCPHOST_AGENT_MODEL"] = "m"
		return readSettings(func(k string) string { return vars[k] })
	}
	s, err := settingsWith(map[string]string{keyFileVariable: good})
	if err != nil || s.apiKey != testKey {
		t.Fatalf("key file: %v, key of %d bytes", err, len(s.apiKey))
	}
	for _, tc := range []struct {
		vars map[string]string
		want string
	}{
		{map[string]string{keyFileVariable: good, keyVariable: testKey}, "use one"},
		{map[string]string{keyFileVariable: filepath.Join(dir, "missing")}, keyFileVariable + ": open "},
		{map[string]string{keyFileVariable: write("empty", " \n")}, "empty"},
		{map[string]string{keyFileVariable: write("big", strings.Repeat(testKey, 2000))}, "over 16 KiB"},
		{map[string]string{keyFileVariable: write("lines", testKey+"\n"+testKey)}, "more than one line"},
	} {
		_, err := settingsWith(tc.vars)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), testKey) {
			t.Errorf("%v: error %v, want one saying %q", tc.vars, err, tc.want)
		}
	}
}

// Secrets of the configuration (here the token in a server's URL) reach
// neither the terminal nor the model provider: a failed call quotes the
// URL, and its error becomes the tool's result sent to the model.
func TestAgentScrubsConfigSecrets(t *testing.T) {
	const token, short = "sekrit-token-value", "s3cr"
	var down atomic.Bool
	cut := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if down.Load() { // the server goes away: the call fails quoting its URL
				if c, _, err := w.(http.Hijacker).Hijack(); err == nil {
					c.Close()
				}
				return
			}
			h.ServeHTTP(w, r)
		})
	}
	mcpURL := hosttest.ServeHTTP(t, hosttest.NewEchoServer(), cut)
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	file := filepath.Join(t.TempDir(), "agent.yaml")
	yaml := "servers:\n  echo:\n    url: " + mcpURL + "/mcp?token=" + token + "\n" +
		"  dead:\n    url: " + dead.URL + "/mcp?k=" + short + "\n"
	if err := os.WriteFile(file, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	e := &agentEnv{t: t, config: file}
	m := &fakeModel{t: t, format: "anthropic"}
	model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		down.Store(true)
		m.ServeHTTP(w, r)
	}))
	defer model.Close()
	stdout, stderr, err := e.run(modelEnv("anthropic", model.URL), "say ping")
	if err != nil {
		t.Fatalf("run: %v\nstderr:\n%s", err, stderr)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.results) != 1 || !strings.Contains(m.results[0], "token=****") {
		t.Errorf("the model was given %q, want the failure with the token scrubbed", m.results)
	}
	if !strings.Contains(stderr, "server dead is") || !strings.Contains(stderr, "k=****") {
		t.Errorf("stderr does not show the dead server, scrubbed:\n%s", stderr)
	}
	for _, secret := range []string{token, short, testKey} {
		if strings.Contains(stdout+stderr+strings.Join(m.results, "\n"), secret) {
			t.Errorf("%q was printed or sent to the model:\nstdout %s\nstderr %s\nresults %q", secret, stdout, stderr, m.results)
		}
	}
}
