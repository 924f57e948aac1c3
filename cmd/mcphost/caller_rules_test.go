package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// builtExample is the path of an example plugin's .wasm: from the test
// command's build (MCPHOST_BUILT_PLUGINS) when there is one, so that what is
// tested is what scripts/build-plugins.sh made, else built here with the go
// command (Go examples only), so that a plain `go test` covers it too.
func builtExample(t *testing.T, name string) string {
	t.Helper()
	if dir := os.Getenv("MCPHOST_BUILT_PLUGINS"); dir != "" {
		return filepath.Join(dir, name+".wasm")
	}
	if testing.Short() {
		t.Skip("builds an example plugin to WebAssembly with the go command (not in -short)")
	}
	path := filepath.Join(t.TempDir(), name+".wasm")
	cmd := exec.Command("go", "build", "-buildmode=c-shared", "-trimpath", "-buildvcs=false", "-o", path, "../../examples/plugins/"+name)
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building %s: %v\n%s", name, err, out)
	}
	return path
}

// The caller-rules example, built, as a policy of "mcphost serve" with two
// static tokens: the tool a rule reserves for the SRE token runs for it and
// is a tool error for the other token, one the model can read, naming the
// rule and the caller (never a token); a tool no rule names runs for both.
func TestServeCallerRulesPlugin(t *testing.T) {
	wasm := builtExample(t, "caller-rules")
	e := newEnv(t)
	rules := `[{"name": "sre-only", "tools": ["k8s:delete_*", "k8s:echo"], "scopes": ["sre"], "callers": ["token:sre_token"]}]`
	cfg, err := json.Marshal(map[string]any{
		"servers": map[string]any{"k8s": testServer(t)},
		"plugins": []any{map[string]any{
			"name":   "caller-rules",
			"path":   wasm,
			"hooks":  []string{"policy"},
			"config": map[string]string{"rules": rules},
			// Roomy: the race detector slows the guest; the limit is not
			// what is tested here.
			"limits": map[string]any{"timeout_ms": 30000},
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(e.global, "config.json"), string(cfg))
	const (
		sreToken = "sre-token-0123456789abcdef"
		devToken = "dev-token-0123456789abcdef"
	)
	e.environ = []string{"SRE_TOKEN=" + sreToken, "DEV_TOKEN=" + devToken}
	s := e.serve(strings.NewReader(""), io.Discard, "--http", "127.0.0.1:0",
		"--auth-token-env", "SRE_TOKEN", "--auth-token-env", "DEV_TOKEN")
	defer s.stop(t)
	endpoint := "http://" + s.address(t) + "/mcp"

	ctx, cancel := context.WithTimeout(context.Background(), failAfter)
	defer cancel()
	connect := func(token string) *mcp.ClientSession {
		t.Helper()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "caller-rules-client"}, nil).Connect(ctx,
			&mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: bearer{token}}}, nil)
		if err != nil {
			t.Fatalf("connect: %v\nstderr:\n%s", err, s.stderr.String())
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	call := func(cs *mcp.ClientSession, tool string, args map[string]any) (*mcp.CallToolResult, string) {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v\nstderr:\n%s", tool, err, s.stderr.String())
		}
		var text []string
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				text = append(text, tc.Text)
			}
		}
		return res, strings.Join(text, "\n")
	}
	sre, dev := connect(sreToken), connect(devToken)

	if res, text := call(sre, "mcp__k8s__echo", map[string]any{"text": "sre was here"}); res.IsError || text != "sre was here" {
		t.Fatalf("the SRE caller's call: error %v, %q\nstderr:\n%s", res.IsError, text, s.stderr.String())
	}

	res, text := call(dev, "mcp__k8s__echo", map[string]any{"text": "dev was here"})
	if !res.IsError {
		t.Fatalf("the other caller's call went through: %q", text)
	}
	wantContains(t, "denial", text, "caller-rules", `rule "sre-only"`, `matches "k8s:echo"`, `caller "token:dev_token" has none of the rule's scopes`)
	if strings.Contains(text, "dev was here") {
		t.Fatalf("the denied call reached the server: %q", text)
	}

	// A tool that no rule names is anyone's.
	for _, cs := range []*mcp.ClientSession{sre, dev} {
		if res, text := call(cs, "mcp__k8s__add", map[string]any{"a": 2, "b": 3}); res.IsError {
			t.Fatalf("a call no rule names: %q", text)
		}
	}

	// The tokens themselves are in no output: the reason names the caller
	// by the variable's name.
	if out := text + s.stderr.String(); strings.Contains(out, sreToken) || strings.Contains(out, devToken) {
		t.Fatal("a token reached the output")
	}
}
