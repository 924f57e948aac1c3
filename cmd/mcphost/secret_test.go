package main

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/zalando/go-keyring"
)

// A token kept in the keychain ("mcphost secret set") lets a client into
// "serve --http --auth-token-keychain"; the value never reaches output
// but for --generate's one print.
func TestServeWithKeychainToken(t *testing.T) {
	keyring.MockInit()
	e := gatewayEnv(t)
	const token = "keychain-token-0123456789"
	if r := e.runStdin(token+"\n", "secret", "set", "sre"); r.code != 0 || strings.Contains(r.stdout+r.stderr, token) {
		t.Fatalf("secret set:\n%s", r)
	}
	e.terminal = true
	if r := e.runStdin(token, "secret", "set", "typed"); r.code != exitUsage || !strings.Contains(r.stderr, "--generate") {
		t.Fatalf("a value typed on a terminal must be refused:\n%s", r)
	}
	e.terminal = false
	gen := e.must(0, "secret", "set", "ci", "--generate")
	if len(strings.TrimSpace(gen.stdout)) < 32 {
		t.Fatalf("generated token %q", gen.stdout)
	}
	// Any secret may be short (an API key, a password); nothing on stdin
	// says so; a gateway token is held to 16 characters where it is used.
	if r := e.runStdin("", "secret", "set", "empty"); r.code != exitUsage || !strings.Contains(r.stderr, "nothing was read on stdin") {
		t.Fatalf("nothing on stdin:\n%s", r)
	}
	if r := e.runStdin("pw", "secret", "set", "short"); r.code != 0 {
		t.Fatalf("a short secret:\n%s", r)
	}
	if r := e.run("serve", "--http", "127.0.0.1:0", "--auth-token-keychain", "short"); r.code != exitUsage || !strings.Contains(r.stderr, "at least 16 characters") {
		t.Fatalf("a short gateway token:\n%s", r)
	}
	if r := e.run("serve", "--http", "127.0.0.1:0", "--auth-token-keychain", "nobody"); r.code != exitUsage || !strings.Contains(r.stderr, "mcphost secret set nobody") {
		t.Fatalf("a missing secret:\n%s", r)
	}

	s := e.serve(strings.NewReader(""), io.Discard, "--http", "127.0.0.1:0", "--auth-token-keychain", "sre")
	defer s.stop(t)
	base := "http://" + s.address(t)
	resp, err := http.Post(base+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("no token: %d", resp.StatusCode)
	}
	ctx, cancel := context.WithTimeout(context.Background(), failAfter)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "http-client"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: &http.Client{Transport: bearer{token}}}, nil)
	if err != nil {
		t.Fatalf("connect: %v\nstderr:\n%s", err, s.stderr.String())
	}
	defer cs.Close()
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "mcp__local__echo", Arguments: map[string]any{"text": "keychain"}}); err != nil || res.IsError {
		t.Fatalf("call: %+v %v", res, err)
	}
	if strings.Contains(s.stderr.String(), token) {
		t.Fatal("the token reached stderr")
	}
	e.must(0, "secret", "delete", "sre")
}
