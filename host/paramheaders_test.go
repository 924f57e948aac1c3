package host_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/internal/hosttest"
	"github.com/mcphost/mcphost/internal/testenv"
)

// SEP-2243, which go-sdk implements and mcphost relies on: parameters
// marked x-mcp-header travel as Mcp-Param-* headers over HTTP (Base64 where
// the value is not plain printable ASCII, none for null), and a tool with a
// malformed mark is left out, logged, while the server's other tools stay.
func TestToolParamHeaders(t *testing.T) {
	srv := hosttest.NewEchoServer()
	ok := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
	}
	srv.AddTool(&mcp.Tool{Name: "routed", InputSchema: json.RawMessage(`{"type":"object","properties":{
		"region":{"type":"string","x-mcp-header":"Region"},
		"n":{"type":"integer","x-mcp-header":"N"},
		"flag":{"type":"boolean","x-mcp-header":"Flag"},
		"text":{"type":"string","x-mcp-header":"Text"},
		"gone":{"type":"string","x-mcp-header":"Gone"},
		"plain":{"type":"string"}}}`)}, ok)
	// go-sdk refuses to serve malformed marks, so they are slipped into the
	// listing.
	var bad []*mcp.Tool
	for name, schema := range map[string]string{
		"empty":     `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":""}}}`,
		"object":    `{"type":"object","properties":{"a":{"type":"object","x-mcp-header":"A"}}}`,
		"number":    `{"type":"object","properties":{"a":{"type":"number","x-mcp-header":"A"}}}`,
		"duplicate": `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"X"},"b":{"type":"string","x-mcp-header":"x"}}}`,
		"colon":     `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"A:B"}}}`,
		"space":     `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"A B"}}}`,
		"nonascii":  `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"Région"}}}`,
	} {
		bad = append(bad, &mcp.Tool{Name: "bad_" + name, InputSchema: json.RawMessage(schema)})
	}
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if lr, isList := res.(*mcp.ListToolsResult); isList && err == nil {
				lr.Tools = append(lr.Tools, bad...)
			}
			return res, err
		}
	})
	var mu sync.Mutex
	var got http.Header
	capture := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Mcp-Param-Region") != "" {
				mu.Lock()
				got = r.Header.Clone()
				mu.Unlock()
			}
			next.ServeHTTP(w, r)
		})
	}
	u := hosttest.ServeHTTP(t, srv, capture)
	var logs testenv.Buffer
	logger := hclog.New(&hclog.LoggerOptions{Output: &logs, Level: hclog.Warn})
	h := startHost(t, &config.Config{Servers: []*config.Server{{ID: "web", Transport: config.TransportHTTP, URL: u, Enabled: true}}}, host.WithLogger(logger))
	for _, name := range []string{"empty", "object", "number", "duplicate", "colon", "space", "nonascii"} {
		if _, listed := h.Resolve("web:bad_" + name); listed {
			t.Errorf("bad_%s is listed; a tool with an invalid x-mcp-header must be left out", name)
		}
		if !strings.Contains(logs.String(), "tool=bad_"+name) {
			t.Errorf("leaving out bad_%s was not logged:\n%s", name, logs.String())
		}
	}
	if _, err := h.CallTool(testContext(t), "web:routed", map[string]any{
		"region": "us-west1", "n": 42, "flag": false, "text": " Hello, 世界", "gone": nil, "plain": "x",
	}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	want := map[string]string{
		"Mcp-Param-Region": "us-west1", "Mcp-Param-N": "42", "Mcp-Param-Flag": "false",
		"Mcp-Param-Text": "=?base64?IEhlbGxvLCDkuJbnlYw=?=", "Mcp-Param-Gone": "",
	}
	for k, v := range want {
		if got.Get(k) != v {
			t.Errorf("%s = %q, want %q", k, got.Get(k), v)
		}
	}
	for k := range got {
		if strings.EqualFold(k, "Mcp-Param-Plain") {
			t.Errorf("an unmarked parameter was mirrored: %s", k)
		}
	}
	if _, ok := h.Resolve("web:echo"); !ok {
		t.Error("the server's other tools were left out too")
	}
}
