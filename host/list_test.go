package host_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/host"
)

// A server that lists in pages (two items a page) is read to the end:
// every tool, resource and prompt.
func TestListsFollowPages(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "paged", Version: "1"}, &mcp.ServerOptions{PageSize: 2})
	for i := range 5 {
		mcp.AddTool(s, &mcp.Tool{Name: fmt.Sprintf("t%d", i)}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{}, nil, nil
		})
		uri := fmt.Sprintf("test://r%d", i)
		s.AddResource(&mcp.Resource{URI: uri, Name: uri}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{}, nil
		})
		s.AddPrompt(&mcp.Prompt{Name: fmt.Sprintf("p%d", i)}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{}, nil
		})
	}
	h := startHost(t, nil, host.WithInProcessServer("paged", s))
	res, _ := h.ListedResources("paged")
	if tools, prompts := len(h.Tools()), len(h.ListedPrompts("paged")); tools != 5 || len(res) != 5 || prompts != 5 {
		t.Fatalf("listed %d tools, %d resources, %d prompts; want 5 of each", tools, len(res), prompts)
	}
}

// A server whose list never ends (a next cursor on every page) costs a
// bounded number of items: the host keeps 50000 tools, says it left the rest
// out, and the server is ready.
func TestEndlessListIsBounded(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "endless", Version: "1"}, &mcp.ServerOptions{
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
	})
	var n atomic.Int64
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method != "tools/list" {
				return next(ctx, method, req)
			}
			var page []*mcp.Tool
			for range 50 {
				page = append(page, &mcp.Tool{Name: fmt.Sprintf("t%d", n.Add(1)), InputSchema: map[string]any{"type": "object"}})
			}
			return &mcp.ListToolsResult{Tools: page, NextCursor: "more"}, nil
		}
	})
	h := startHost(t, nil, host.WithInProcessServer("endless", s))
	st := statusOf(t, h, "endless")
	if st.State != host.StateReady || st.Tools != 50000 || len(st.Warnings) != 1 || !strings.Contains(st.Warnings[0], "more than 50000") {
		t.Fatalf("status %s, %d tools, warnings %q; want ready, 50000 and a warning", st.State, st.Tools, st.Warnings)
	}
	if asked := n.Load(); asked > 50050 {
		t.Fatalf("the host read %d tools of an endless list", asked)
	}
}
