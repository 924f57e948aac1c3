package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/internal/hosttest"
)

// files lists every file under dir, to show that a command wrote nothing.
func files(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A server given after -- is used without being configured: tools, call
// (by its bare name too), tools show and servers; nothing is written.
func TestAdhocStdioServer(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	bin := hosttest.BuildTestServer(t)
	// A configured server is left out: only the ad-hoc one runs.
	cfg := e.configFile(map[string]any{"configured": brokenServer(t)})
	before := append(files(t, e.global), files(t, e.work)...)

	r := e.must(exitOK, "--config", cfg, "tools", "--", bin)
	wantContains(t, "tools", r.stdout, "mcp__adhoc__echo", "adhoc:echo", "Returns its text argument.")
	wantNotContains(t, "tools", r.stdout+r.stderr, "configured", "no-such-server")

	tools := decodeJSON[[]map[string]any](t, e.must(exitOK, "tools", "--json", "--", bin))
	if len(tools) == 0 || tools[0]["server"] != "adhoc" {
		t.Errorf("tools --json: %v", tools)
	}

	for _, name := range []string{"echo", "adhoc:echo", "mcp__adhoc__echo"} {
		r = e.must(exitOK, "--config", cfg, "call", name, "text=hi there", "--", bin)
		if r.stdout != "hi there\n" {
			t.Errorf("call %s: stdout %q", name, r.stdout)
		}
	}
	// -e sets the server's environment (a secret: shown with
	// --show-secrets only); flags after -- are the server's.
	r = e.must(exitOK, "call", "env", "name=ADHOC_VAR", "-e", "ADHOC_VAR=from-flag", "--", bin, "-deep-schema", "3")
	if r.stdout != "****\n" {
		t.Errorf("call env: stdout %q, want the value redacted", r.stdout)
	}
	r = e.must(exitOK, "--show-secrets", "call", "env", "name=ADHOC_VAR", "-e", "ADHOC_VAR=from-flag", "--", bin)
	if r.stdout != "from-flag\n" {
		t.Errorf("call env --show-secrets: stdout %q", r.stdout)
	}

	r = e.must(exitOK, "tools", "show", "add", "--", bin)
	wantContains(t, "tools show", r.stdout, "mcp__adhoc__add", "Adds a and b")
	// The usage line can be copied: it names the server as the command did.
	wantContains(t, "tools show", r.stdout, "  mcphost call mcp__adhoc__add a=NUMBER b=NUMBER -- "+shellQuote(bin)+"\n")

	servers := decodeJSON[[]map[string]any](t, e.must(exitOK, "servers", "--json", "--", bin))
	if len(servers) != 1 || servers[0]["id"] != "adhoc" || servers[0]["source"] != "command line" || servers[0]["state"] != "ready" {
		t.Errorf("servers --json: %v", servers)
	}

	after := append(files(t, e.global), files(t, e.work)...)
	if strings.Join(before, "\n") != strings.Join(after, "\n") {
		t.Errorf("an ad-hoc server wrote files:\nbefore %q\nafter  %q", before, after)
	}
}

// The configuration's policy applies to an ad-hoc server like to any other.
func TestAdhocServerKeepsPolicy(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	bin := hosttest.BuildTestServer(t)
	cfg := writeFile(t, filepath.Join(t.TempDir(), "c.yaml"), "policy: {deny: ['adhoc:echo']}\n")
	r := e.must(exitFailure, "--config", cfg, "call", "echo", "text=x", "--", bin)
	wantContains(t, "stderr", r.stderr, "denied", "adhoc:echo")
	e.must(exitOK, "--config", cfg, "call", "add", "a=1", "b=2", "--", bin)
}

// A configured server named "adhoc" does not clash: the ad-hoc one takes
// the next free id.
func TestAdhocIDTaken(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	bin := hosttest.BuildTestServer(t)
	cfg := e.configFile(map[string]any{"adhoc": brokenServer(t)})
	r := e.must(exitOK, "--config", cfg, "tools", "--", bin)
	wantContains(t, "tools", r.stdout, "mcp__adhoc-2__echo")
	r = e.must(exitOK, "--config", cfg, "call", "echo", "text=x", "--", bin)
	if r.stdout != "x\n" {
		t.Errorf("stdout %q", r.stdout)
	}
}

// headerServer is a Streamable HTTP (and SSE) MCP server on loopback that
// wants an Authorization header, with a tool that echoes it.
func headerServer(t *testing.T) (streamable, sse string) {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "remote", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "whoami", Description: "Echoes the Authorization header.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			got := ""
			if req.Extra != nil && req.Extra.Header != nil {
				got = req.Extra.Header.Get("Authorization")
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "you sent: " + got}}}, nil
		})
	srv.AddResource(&mcp.Resource{URI: "note://adhoc/readme", Name: "readme", MIMEType: "text/plain"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "note://adhoc/readme", Text: "hello"}}}, nil
		})
	srv.AddPrompt(&mcp.Prompt{Name: "greet", Arguments: []*mcp.PromptArgument{{Name: "who", Required: true}}},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "hi"}}}}, nil
		})
	guard := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer tok-adhoc-7f3e" {
				http.Error(w, "no", http.StatusForbidden)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", guard(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)))
	mux.Handle("/sse", guard(mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return srv }, nil)))
	ts := httptest.NewServer(mux) // loopback
	t.Cleanup(ts.Close)
	return ts.URL + "/mcp", ts.URL + "/sse"
}

// --url with -H and -t; the header value is a secret: never printed.
func TestAdhocURLServer(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	streamable, sse := headerServer(t)
	e.environ = []string{"ADHOC_TOKEN=tok-adhoc-7f3e"}

	r := e.must(exitOK, "tools", "--url", streamable, "-H", "Authorization: Bearer tok-adhoc-7f3e")
	wantContains(t, "tools", r.stdout, "mcp__adhoc__whoami")
	r = e.must(exitOK, "tools", "--url", sse, "-t", "sse", "-H", "Authorization=Bearer ${ADHOC_TOKEN}")
	wantContains(t, "tools over sse", r.stdout, "mcp__adhoc__whoami")

	r = e.must(exitOK, "call", "--url", streamable, "-H", "Authorization: Bearer ${ADHOC_TOKEN}", "whoami")
	wantContains(t, "call", r.stdout, "you sent: ****")
	wantNotContains(t, "call", r.stdout+r.stderr, "tok-adhoc-7f3e")

	// resources and prompts list the ad-hoc server's too.
	r = e.must(exitOK, "resources", "--url", streamable, "-H", "Authorization: Bearer ${ADHOC_TOKEN}")
	wantContains(t, "resources", r.stdout, "adhoc", "note://adhoc/readme", "text/plain")
	r = e.must(exitOK, "prompts", "--url", sse, "-t", "sse", "-H", "Authorization: Bearer ${ADHOC_TOKEN}")
	wantContains(t, "prompts", r.stdout, "greet", "who")

	// Refused without the header: the server is named, the exit is 1.
	r = e.must(exitFailure, "tools", "--url", streamable, "-H", "Authorization: Bearer wrong-token-1")
	wantContains(t, "stderr", r.stderr, "adhoc")
	wantNotContains(t, "output", r.stdout+r.stderr, "wrong-token-1")
}

func TestAdhocUsageErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	cfg := e.configFile(map[string]any{"ts": brokenServer(t)})
	wantUsageErrors(t, e, []usageCase{
		{[]string{"tools", "--"}, []string{"ad-hoc server: give the command to start after --"}},
		{[]string{"tools", "--url", "ftp://127.0.0.1/x"}, []string{"ad-hoc server: --url: ", "ftp"}},
		{[]string{"tools", "--url", "http://127.0.0.1:9/", "-t", "pigeon"}, []string{"ad-hoc server: --transport: ", "pigeon"}},
		{[]string{"tools", "-H", "A: secret-value-1", "--", "x"}, []string{"--header is for --url servers"}},
		{[]string{"tools", "--url", "http://127.0.0.1:9/", "-H", "secret-value-1"}, []string{"--header 1: write \"Name: value\""}},
		{[]string{"--config", cfg, "tools", "--server", "ts", "--", "x"}, []string{"--server picks one of the configured servers"}},
		{[]string{"tools", "extra"}, []string{`unknown command "extra"`, "mcphost tools --help"}},
		{[]string{"tools", "shwo", "echo"}, []string{`unknown command "shwo" for "mcphost tools"; did you mean "show"?`}},
		{[]string{"servers", "--watch", "--", "x"}, []string{"--watch follows the configured servers"}},
		{[]string{"call", "--", "x"}, []string{"accepts 1 arg(s)", "give the tool's name"}},
		{[]string{"tools", "show", "--", "x"}, []string{"accepts 1 arg(s) (the tool's name) before --"}},
	})
	r := e.run("tools", "--url", "http://127.0.0.1:9/", "-H", "secret-value-1")
	wantNotContains(t, "stderr", r.stderr, "secret-value-1")
}
