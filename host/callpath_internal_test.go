package host

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/pdk/abi"
)

// transformStage is a transform stage made of a function.
type transformStage struct {
	name string
	fn   func([]byte) []byte
}

func (s transformStage) StageName() string { return s.name }

func (s transformStage) TransformResult(_ context.Context, req *abi.TransformResultRequest) (*abi.TransformResultResponse, error) {
	return &abi.TransformResultResponse{Result: s.fn(req.Result)}, nil
}

// A chain whose transforms all pass the result through hands back the
// result itself, not a decoded copy of its encoding; one that changes it
// hands back the change.
func TestApplyTransformsPassThrough(t *testing.T) {
	same := transformStage{"same", func(b []byte) []byte { return b }}
	copied := transformStage{"copied", func(b []byte) []byte { return append([]byte(nil), b...) }}
	upper := transformStage{"upper", func([]byte) []byte {
		return []byte(`{"content":[{"type":"text","text":"CHANGED"}]}`)
	}}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hello"}}}
	for _, c := range []struct {
		name    string
		stages  []Stage
		changed bool
	}{
		{"none", nil, false},
		{"same", []Stage{same}, false},
		{"same+copied", []Stage{same, copied, same}, false},
		{"changed", []Stage{same, upper, copied}, true},
	} {
		var cfgs []StageConfig
		for _, s := range c.stages {
			cfgs = append(cfgs, StageConfig{Stage: s})
		}
		h, err := New(&config.Config{}, WithStages(cfgs...))
		if err != nil {
			t.Fatal(err)
		}
		got, err := h.applyTransforms(context.Background(), Tool{Server: "s", Tool: "t"}, nil, res)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if c.changed {
			if got == res || got.Content[0].(*mcp.TextContent).Text != "CHANGED" {
				t.Errorf("%s: %+v, want the transformed result", c.name, got.Content[0])
			}
		} else if got != res {
			t.Errorf("%s: a copy of the result, want the result itself", c.name)
		}
	}
}

// The parameters mirrored into headers are worked out when the registry is
// built, for every name a tool resolves by.
func TestResolveCarriesParamHeaders(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	handler := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	}
	srv.AddTool(&mcp.Tool{Name: "routed", InputSchema: json.RawMessage(
		`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"n":{"type":"integer"}}}`)}, handler)
	srv.AddTool(&mcp.Tool{Name: "plain", InputSchema: json.RawMessage(`{"type":"object"}`)}, handler)
	h, err := New(&config.Config{Servers: []*config.Server{{ID: "s", Transport: config.TransportInProcess, Enabled: true}}}, WithInProcessServer("s", srv))
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	if err := h.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"s:routed", h.mustName(t, "routed")} {
		c := h.resolve(name)
		if c == nil || len(c.paramHeaders) != 1 || c.paramHeaders[0] != (paramHeader{property: "region", header: "Mcp-Param-Region"}) {
			t.Fatalf("resolve(%q) = %+v", name, c)
		}
		if got := paramHeaderValues(c.paramHeaders, map[string]any{"region": "eu"}); got.Get("Mcp-Param-Region") != "eu" {
			t.Errorf("headers %v", got)
		}
	}
	if c := h.resolve("s:plain"); c == nil || len(c.paramHeaders) != 0 {
		t.Fatalf("plain: %+v", c)
	}
	if h.resolve("nope") != nil {
		t.Fatal("an unknown name resolved")
	}
}

func (h *Host) mustName(t *testing.T, tool string) string {
	t.Helper()
	for _, tl := range h.Tools() {
		if tl.Tool == tool {
			return tl.Name
		}
	}
	t.Fatalf("no tool %q", tool)
	return ""
}
