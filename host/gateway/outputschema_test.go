package gateway_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/builtin"
	"github.com/mcphost/mcphost/internal/hosttest"
)

// A client that validates results against the tool's outputSchema (the
// TypeScript and Python SDKs do) refuses a success without
// structuredContent, and the model then gets nothing. When
// results.max_bytes leaves a tool's structuredContent out, the client gets
// an error result instead: the text that fits and why, which it passes on.
func TestResultWithoutStructuredContentIsAnErrorForSchemaTools(t *testing.T) {
	store := builtin.NewResultStore(0)
	f := start(t, []host.StageConfig{{Stage: builtin.Truncate{MaxBytes: 20, Store: store}}}, nil)
	ctx := ctxFor(t)
	tools, err := f.client.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	schema := map[string]bool{}
	for _, tl := range tools.Tools {
		schema[tl.Name] = tl.OutputSchema != nil
	}
	if !schema["mcp__b__add"] || schema["mcp__b__echo"] {
		t.Fatalf("output schemas listed: %v, want add's only", schema)
	}

	res, err := f.client.CallTool(ctx, &mcp.CallToolParams{Name: "mcp__b__add", Arguments: map[string]any{"a": 2, "b": 3}})
	if err != nil {
		t.Fatal(err)
	}
	text := hosttest.Text(res)
	if res.StructuredContent == nil && !res.IsError {
		t.Fatalf("a tool with an outputSchema answered a success without structuredContent, which validating clients refuse: %s", text)
	}
	if res.StructuredContent != nil || !strings.Contains(text, "left out: structuredContent") || !strings.Contains(text, "outputSchema") {
		t.Errorf("want structuredContent left out and the reason given; got %v, %q", res.StructuredContent, text)
	}
	// The note is within the envelope max_bytes allows for.
	if b, _ := json.Marshal(res); len(b) > 20+builtin.TruncateEnvelopeBytes {
		t.Errorf("%d bytes for max_bytes 20: %s", len(b), b)
	}

	// A tool without an outputSchema needs no structuredContent: its
	// truncated result stays a success.
	res, err = f.client.CallTool(ctx, &mcp.CallToolParams{Name: "mcp__b__echo", Arguments: map[string]any{"text": strings.Repeat("x", 100)}})
	if err != nil || res.IsError || !strings.Contains(hosttest.Text(res), "truncated by mcphost") {
		t.Fatalf("echo: %v %+v", err, res)
	}
}
