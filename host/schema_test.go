package host_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/host"
)

// A tool whose schema is too large or too deep is left out with a warning;
// the server's other tools are kept.
func TestOversizedSchemasAreLeftOut(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	handler := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	}
	deep := strings.Repeat(`{"type":"object","properties":{"x":`, 60) + `{"type":"string"}` + strings.Repeat(`}}`, 60)
	props := make([]string, 0, 20000)
	for i := range 20000 {
		props = append(props, `"p`+strings.Repeat("x", 8)+strconv.Itoa(i)+`":{"type":"string","description":"`+strings.Repeat("d", 40)+`"}`)
	}
	huge := `{"type":"object","properties":{` + strings.Join(props, ",") + `}}`
	srv.AddTool(&mcp.Tool{Name: "ok", InputSchema: json.RawMessage(`{"type":"object"}`)}, handler)
	srv.AddTool(&mcp.Tool{Name: "deep", InputSchema: json.RawMessage(deep)}, handler)
	srv.AddTool(&mcp.Tool{Name: "huge", InputSchema: json.RawMessage(huge)}, handler)
	h := startHost(t, nil, host.WithInProcessServer("s", srv))
	var names []string
	for _, tool := range h.Tools() {
		names = append(names, tool.Tool)
	}
	if strings.Join(names, ",") != "ok" {
		t.Fatalf("tools %v, want only ok", names)
	}
	st := statusOf(t, h, "s")
	w := strings.Join(st.Warnings, "\n")
	if st.State != host.StateReady || !strings.Contains(w, `tool "deep" left out: its input schema nests 121 levels deep, over the limit of 100`) ||
		!strings.Contains(w, `tool "huge" left out: its input schema is`) || !strings.Contains(w, "over the limit of 1 MiB") {
		t.Fatalf("status %+v", st)
	}
}
