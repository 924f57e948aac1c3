package main

import (
	"context"
	"fmt"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/term"

	"github.com/mcphost/mcphost/internal/elicitform"
	"github.com/mcphost/mcphost/internal/redact"
	"github.com/mcphost/mcphost/internal/termtext"
)

// isTerminal reports whether f is an interactive terminal.
func isTerminal(v any) bool {
	for unwrapped := false; !unwrapped; {
		switch w := v.(type) {
		case *termtext.Writer:
			v = w.Raw()
		case *redact.Writer:
			v = w.Unwrap()
		default:
			unwrapped = true
		}
	}
	f, ok := v.(*os.File)
	if !ok {
		return false
	}
	// A character device is not enough: /dev/null is one, and a command
	// run with </dev/null must not wait on a form nobody sees.
	return term.IsTerminal(int(f.Fd()))
}

// elicit answers a server's request for input: a small form on a terminal,
// a decline without one (nobody could answer).
func (a *app) elicit(_ context.Context, server string, req *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	if req == nil {
		return &mcp.ElicitResult{Action: "decline"}, nil
	}
	if req.Mode == "url" || req.URL != "" {
		a.termMu.Lock()
		fmt.Fprintf(a.stderr, "server %s asks you to open %s: %s\n", server, req.URL, req.Message)
		a.termMu.Unlock()
		return &mcp.ElicitResult{Action: "decline"}, nil
	}
	if !a.isTerminal(a.stdin) || !a.isTerminal(a.stderr) {
		a.log.Warn("declined an elicitation request: no terminal to ask on", "server", server)
		return &mcp.ElicitResult{Action: "decline"}, nil
	}
	a.termMu.Lock()
	defer a.termMu.Unlock()
	fmt.Fprintf(a.stderr, "[%s]", server)
	return elicitform.Ask(a.stdin, a.stderr, req.Message, req.RequestedSchema)
}
