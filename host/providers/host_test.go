package providers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/builtin"
	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/host/providers"
	"github.com/mcphost/mcphost/internal/hosttest"
)

// bound is a failure bound for waits, never a performance expectation.
const bound = 20 * time.Second

// The whole round through a host: its tools converted, a call in each
// provider's shape resolved and made, the result in the provider's shape.
func TestRoundTripThroughHost(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	h, err := host.New(&config.Config{}, host.WithInProcessServer("echo", hosttest.NewEchoServer()))
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cctx, ccancel := context.WithTimeout(context.Background(), bound)
		defer ccancel()
		h.Close(cctx)
	})
	tools := h.Tools()
	if len(tools) != 3 {
		t.Fatalf("tools %v", tools)
	}
	// A call of "add" in each provider's shape; %s is the name the model
	// knows the tool by.
	calls := map[providers.Format]string{
		providers.OpenAI:          `{"id":"c1","type":"function","function":{"name":%q,"arguments":"{\"a\":1,\"b\":2}"}}`,
		providers.OpenAIResponses: `{"type":"function_call","call_id":"c1","name":%q,"arguments":"{\"a\":1,\"b\":2}"}`,
		providers.Anthropic:       `{"type":"tool_use","id":"c1","name":%q,"input":{"a":1,"b":2}}`,
		providers.Gemini:          `{"functionCall":{"id":"c1","name":%q,"args":{"a":1,"b":2}}}`,
		providers.MCP:             `{"name":%q,"arguments":{"a":1,"b":2}}`,
	}
	wants := map[providers.Format]string{
		providers.OpenAI:          `"content":"{\"sum\":3}"`,
		providers.OpenAIResponses: `"output":"{\"sum\":3}"`,
		providers.Anthropic:       `"content":[{"type":"text","text":"{\"sum\":3}"}]`,
		providers.Gemini:          `"response":{"output":{"sum":3}}`,
		providers.MCP:             `"structuredContent":{"sum":3}`,
	}
	for _, f := range providers.Formats() {
		ts, err := providers.Convert(f, tools, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(ts.Warnings) > 0 {
			t.Errorf("%s: warnings %v", f, ts.Warnings)
		}
		var add string
		for _, tl := range tools {
			if tl.Tool == "add" {
				add, _ = ts.ProviderName(tl.Name)
			}
		}
		call, err := ts.ParseCall([]byte(fmt.Sprintf(calls[f], add)))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		res, err := h.CallTool(ctx, call.Tool, call.Arguments)
		out, merr := json.Marshal(ts.Result(call, res, err))
		if merr != nil || !strings.Contains(string(out), wants[f]) {
			t.Errorf("%s: result %s (%v), want it to hold %s", f, out, merr, wants[f])
		}
	}
}

// A tool the policy always denies is not offered to the model, in any
// format: not from Tools, and not when AllTools' marked list is converted.
func TestDeniedToolsAreNotOffered(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	h, err := host.New(&config.Config{}, host.WithInProcessServer("echo", hosttest.NewEchoServer()),
		host.WithStages(host.StageConfig{Stage: builtin.GlobPolicy{Deny: []string{"*add*"}}}))
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	for _, f := range providers.Formats() {
		for list, tools := range map[string][]host.Tool{"Tools": h.Tools(), "AllTools": h.AllTools()} {
			ts, err := providers.Convert(f, tools, nil)
			if err != nil {
				t.Fatal(err)
			}
			out, _ := json.Marshal(ts.Tools)
			if strings.Contains(string(out), "mcp__echo__add") {
				t.Errorf("%s from %s offers the denied tool: %s", f, list, out)
			}
			if !strings.Contains(string(out), "mcp__echo__echo") {
				t.Errorf("%s from %s lost an allowed tool: %s", f, list, out)
			}
			if _, ok := ts.ProviderName("mcp__echo__add"); ok {
				t.Errorf("%s from %s maps a name for the denied tool", f, list)
			}
		}
	}
}
