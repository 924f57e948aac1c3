package main

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/builtin"
	"github.com/mcphost/mcphost/internal/hosttest"
)

// A 48 KB file read with results.max_bytes 300: the command prints what
// the caller gets, within 300 bytes of JSON and the envelope; the file
// stays readable in full, as text, from the next command, and as the
// stored JSON with --json.
func TestCallWithMaxBytesBoundsTheWholeResult(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	file := strings.Repeat("a line of the file\n", 48<<10/19) + "END OF FILE\n"
	e.hostOpts = []host.Option{host.WithInProcessServer("fs", hosttest.NewFileServer(file))}
	cfg := writeFile(t, filepath.Join(t.TempDir(), "c.yaml"), "results: {max_bytes: 300}\n")

	r := e.must(exitOK, "--config", cfg, "call", "fs:read", "--json")
	var res mcp.CallToolResult
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("call --json: %v\n%s", err, r)
	}
	compact, _ := json.Marshal(&res)
	if len(compact) > 300+builtin.TruncateEnvelopeBytes {
		t.Errorf("call --json: %d bytes of result for results.max_bytes 300:\n%.400s", len(compact), compact)
	}
	if res.StructuredContent != nil || !strings.Contains(r.stdout, "left out: structuredContent") {
		t.Errorf("call --json: structuredContent passed on, or its leaving out not said:\n%.400s", r.stdout)
	}

	r = e.must(exitOK, "--config", cfg, "call", "fs:read")
	if len(r.stdout) > 300+builtin.TruncateEnvelopeBytes || strings.Contains(r.stdout, "END OF FILE") {
		t.Errorf("call: %d bytes printed:\n%.400s", len(r.stdout), r.stdout)
	}
	uri := regexp.MustCompile(`mcphost://results/[0-9a-f]{24}`).FindString(r.stdout)
	if uri == "" {
		t.Fatalf("call: no full result named:\n%s", r)
	}

	// The full result reads as a result: its text as it is, structured
	// content summed up, not a JSON document with the file escaped in it.
	r = e.must(exitOK, "--config", cfg, "read", uri)
	if !strings.HasPrefix(r.stdout, "a line of the file\na line of the file\n") || !strings.Contains(r.stdout, "END OF FILE\n") ||
		!strings.Contains(r.stdout, "[structured content: ") {
		t.Errorf("read: not the result's text:\n%.300s", r.stdout)
	}
	r = e.must(exitOK, "--config", cfg, "read", uri, "--json")
	var stored mcp.CallToolResult
	if err := json.Unmarshal([]byte(r.stdout), &stored); err != nil || stored.StructuredContent == nil ||
		len(stored.Content) != 1 || stored.Content[0].(*mcp.TextContent).Text != file {
		t.Errorf("read --json: not the stored result (%v):\n%.300s", err, r.stdout)
	}
}
