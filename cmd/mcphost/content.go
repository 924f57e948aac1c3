package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/host/builtin"
)

// printResult prints the text content and one line for every other content.
func printResult(w io.Writer, res *mcp.CallToolResult) {
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			fmt.Fprintln(w, c.Text)
		case *mcp.ImageContent:
			fmt.Fprintf(w, "[image %s, %d bytes]\n", c.MIMEType, len(c.Data))
		case *mcp.AudioContent:
			fmt.Fprintf(w, "[audio %s, %d bytes]\n", c.MIMEType, len(c.Data))
		case *mcp.ResourceLink:
			fmt.Fprintf(w, "[resource link %s", c.URI)
			if c.Name != "" {
				fmt.Fprintf(w, " %q", c.Name)
			}
			fmt.Fprintln(w, "]")
		case *mcp.EmbeddedResource:
			printEmbedded(w, c.Resource)
		default:
			fmt.Fprintf(w, "[%T content]\n", c)
		}
	}
	if res.StructuredContent != nil {
		b, err := json.Marshal(res.StructuredContent)
		if err == nil {
			fmt.Fprintf(w, "[structured content: %s]\n", oneLine(string(b), 200))
		}
	}
}

func printEmbedded(w io.Writer, r *mcp.ResourceContents) {
	if r == nil {
		fmt.Fprintln(w, "[embedded resource]")
		return
	}
	if r.Text != "" {
		fmt.Fprintf(w, "[embedded resource %s]\n%s\n", r.URI, r.Text)
		return
	}
	fmt.Fprintf(w, "[embedded resource %s %s, %d bytes]\n", r.URI, r.MIMEType, len(r.Blob))
}

// storedResult is the tool result that reading uri returned when uri names
// the full result of a truncated call (mcphost://results/ID): one JSON
// document, printed as a result rather than as a JSON text.
func storedResult(uri string, res *mcp.ReadResourceResult) (*mcp.CallToolResult, bool) {
	prefix := builtin.ResultURIPrefix
	if len(uri) < len(prefix) || !strings.EqualFold(uri[:len(prefix)], prefix) || len(res.Contents) != 1 || res.Contents[0] == nil {
		return nil, false
	}
	var out mcp.CallToolResult
	if err := out.UnmarshalJSON([]byte(res.Contents[0].Text)); err != nil {
		return nil, false
	}
	return &out, true
}

// printContents prints what resources/read returned.
func printContents(w io.Writer, contents []*mcp.ResourceContents) {
	for _, c := range contents {
		if c == nil {
			continue
		}
		if c.Blob != nil {
			fmt.Fprintf(w, "[%s %s, %d bytes, base64: %s]\n", c.URI, c.MIMEType, len(c.Blob), oneLine(base64.StdEncoding.EncodeToString(c.Blob), 60))
			continue
		}
		fmt.Fprintln(w, c.Text)
	}
}

func printContentItem(a *app, c mcp.Content) {
	printResult(a.stdout, &mcp.CallToolResult{Content: []mcp.Content{c}})
}
