package gateway

import (
	"context"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// missingStructuredNote tells the model why a result it can read is an
// error.
const missingStructuredNote = "[mcphost: sent as an error because the tool declares an outputSchema and this result has no structuredContent " +
	"(results.max_bytes may have left it out); the tool itself did not fail]"

// structuredOrError serves a tool that declares an outputSchema. The MCP
// specification says its results must carry structuredContent, and the
// TypeScript and Python SDKs' clients refuse a success without it (the
// whole result is lost); an error result they pass on as it is. So a
// success without structuredContent (truncation left it out, or the
// backend gave none) reaches the client as an error with its content and a
// note saying why.
func structuredOrError(next mcp.ToolHandler) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := next(ctx, req)
		if err != nil || res == nil || res.IsError || res.StructuredContent != nil || res.InputRequests != nil {
			return res, err
		}
		out := *res
		out.IsError = true
		out.Content = append(slices.Clip(res.Content), &mcp.TextContent{Text: missingStructuredNote})
		return &out, nil
	}
}
