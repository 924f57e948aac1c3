package main

import (
	"fmt"
	"strings"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/internal/stderrtail"
	"github.com/mcphost/mcphost/internal/termtext"
)

// How every command shows why a server failed: its error, then the lines
// of its stderr that say why (the same ones in servers, tools, call, mcp
// test and doctor; see stderrtail).

// errorIndent starts each line of a failure after its first.
const errorIndent = "\n  "

// serverError is a server's error for a line that already names the
// server: without the error's own "server "ID": " prefix (the cause is said
// once). An entry's several problems are mcphost's own lines and are shown
// as lines; anything else is escaped as one line (a line break in server
// text must not fake a line of ours).
func serverError(s host.ServerStatus) string {
	prefix := fmt.Sprintf("server %q: ", s.ID)
	if len(s.Errors) > 1 {
		lines := make([]string, len(s.Errors))
		for i, e := range s.Errors {
			lines[i] = termtext.Line(strings.TrimPrefix(e, prefix))
		}
		return strings.Join(lines, errorIndent)
	}
	return termtext.Line(strings.TrimPrefix(s.Error, prefix))
}

// serverFailure is serverError followed by the stderr lines that say why
// the server failed (those its error does not quote already), each on a
// line of its own, escaped.
func serverFailure(s host.ServerStatus) string {
	var b strings.Builder
	b.WriteString(serverError(s))
	for _, line := range stderrtail.Below(s.Stderr, s.Error) {
		b.WriteString(errorIndent + "stderr| " + termtext.Line(line))
	}
	return b.String()
}
