package hosttest

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// NewFileServer answers its one tool, "read", as server-filesystem's
// read_text_file does: the file as text and again as structuredContent,
// under an outputSchema. It stands for a real server whose results carry
// the same bytes twice (the truncation tests).
func NewFileServer(file string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "files", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "read", InputSchema: json.RawMessage(`{"type":"object"}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"content":{"type":"string"}},"required":["content"]}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: file}},
				StructuredContent: map[string]any{"content": file}}, nil
		})
	return s
}
