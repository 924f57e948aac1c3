// Package demo is the MCP server embedded in the `mcphost demo` command.
//
// It exists so that every feature of the host can be tried, documented and
// tested without installing a third-party server: plain and structured tool
// results, progress and cancellation, destructive and open-world annotations
// (which policies key on), oversized results (which result stages reduce),
// resources, resource templates, prompts and completions.
//
// Everything it returns is deterministic — no clock, no randomness, no
// network — so its output can be used in golden files. The one exception is
// the timing of the progress notifications of the slow tool.
package demo

import (
	"bytes"
	"context"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The demo server: its state, how it is made, and the results its tools return.

// Name is the implementation name the demo server reports.
const Name = "mcphost-demo"

// Version is the implementation version the demo server reports. It is fixed
// rather than the mcphost version so that transcripts stay stable.
const Version = "1.0.0"

// server holds the demo's mutable state: the notes. One NewServer is one
// notebook, shared by all sessions of that server (as a real server's
// backing store would be).
type server struct {
	srv *mcp.Server

	mu    sync.Mutex
	notes map[string]string // name -> text

	// slowReturned, if set, is called when a slow call returns, with the
	// error it returns. Tests use it to observe that cancellation reached
	// the handler, which the client cannot see.
	slowReturned func(error)
}

// NewServer returns a new demo server named "mcphost-demo". Each call has its
// own set of notes, seeded with the same two notes.
func NewServer() *mcp.Server {
	return newServer(nil).srv
}

func newServer(slowReturned func(error)) *server {
	s := &server{
		notes:        make(map[string]string),
		slowReturned: slowReturned,
	}
	s.srv = mcp.NewServer(&mcp.Implementation{Name: Name, Title: "mcphost demo server", Version: Version},
		&mcp.ServerOptions{
			Instructions: "A demo server for trying mcphost. All data is canned or in memory; " +
				"nothing leaves the process.",
			CompletionHandler: s.complete,
		})
	s.srv.AddReceivingMiddleware(nullArgumentsAsEmpty)
	s.addTools()
	s.addResources()
	s.addPrompts()
	s.mu.Lock()
	for _, name := range seedNoteNames {
		s.putNoteLocked(name, seedNotes[name])
	}
	s.mu.Unlock()
	return s
}

// nullArgumentsAsEmpty rewrites `"arguments": null` in tools/call to `{}`.
// go-sdk v1.8.0 unmarshals null into a nil map and then panics applying
// schema defaults to it (slow and big_report have defaults), which would
// take down the whole process. Absent arguments are already treated as {}.
func nullArgumentsAsEmpty(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if r, ok := req.(*mcp.CallToolRequest); ok && r.Params != nil &&
			bytes.Equal(bytes.TrimSpace(r.Params.Arguments), []byte("null")) {
			r.Params.Arguments = nil
		}
		return next(ctx, method, req)
	}
}

func ptr[T any](v T) *T { return &v }

func textResult(format string, args ...any) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf(format, args...)}}}
}

func errorResult(format string, args ...any) *mcp.CallToolResult {
	r := textResult(format, args...)
	r.IsError = true
	return r
}
