//go:build linux

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcphost/mcphost/host/builtin"
	"github.com/mcphost/mcphost/internal/testenv"
)

// The case that made results.max_bytes cover the whole result:
// server-filesystem's read_text_file on a 48 KB file, behind "mcphost
// serve" with max_bytes 300, called by the MCP Inspector's CLI, whose
// TypeScript SDK client validates results against the tool's outputSchema.
// The client gets a bounded error result it can pass on (the text that
// fits, what was left out, where the whole file is), not the file twice,
// and not a refusal for a missing structuredContent.
func TestInspectorCLITruncatedSchemaResult(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the mcphost binary and runs the npm MCP Inspector and server-filesystem")
	}
	t.Parallel()
	npmBin := testenv.NPMBin(t)
	inspector := filepath.Join(npmBin, "mcp-inspector")
	if fi, err := os.Stat(inspector); err != nil || fi.Mode()&0o111 == 0 {
		testenv.Missing(t, "%s not found: run scripts/npm-deps.sh to install the MCP Inspector (or set %s)", inspector, testenv.EnvNPMBin)
	}
	bin := buildMCPHost(t)
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "big.txt")
	if err := os.WriteFile(file, []byte(strings.Repeat("a line of the file\n", 48<<10/19)+"END OF FILE\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := json.Marshal(map[string]any{
		"servers": map[string]any{"fs": map[string]any{"command": filepath.Join(npmBin, "mcp-server-filesystem"), "args": []string{dir}}},
		"names":   map[string]any{"scheme": "tool"},
		"results": map[string]any{"max_bytes": 300},
	})
	if err != nil {
		t.Fatal(err)
	}
	cfgFile := writeFile(t, filepath.Join(t.TempDir(), "mcphost.json"), string(cfg))
	servers, err := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"gateway": map[string]any{"command": bin, "args": []string{"serve", "--config", cfgFile}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	inspectorCfg := writeFile(t, filepath.Join(t.TempDir(), "inspector.json"), string(servers))
	out := runInspector(t, inspector, npmBin, "--config", inspectorCfg, "--server", "gateway",
		"--method", "tools/call", "--tool-name", "read_text_file", "--tool-arg", "path="+file)
	var res struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
			URI  string `json:"uri"`
		} `json:"content"`
		StructuredContent any  `json:"structuredContent"`
		IsError           bool `json:"isError"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("tools/call: the Inspector printed no JSON (%v):\n%s", err, out)
	}
	compact, _ := json.Marshal(res)
	if len(compact) > 300+builtin.TruncateEnvelopeBytes || strings.Contains(out, "END OF FILE") {
		t.Errorf("tools/call: %d bytes of result for max_bytes 300:\n%.500s", len(compact), out)
	}
	if !res.IsError || res.StructuredContent != nil || !strings.Contains(out, "a line of the file") ||
		!strings.Contains(out, "left out: structuredContent") || !strings.Contains(out, "mcphost://results/") {
		t.Errorf("tools/call: want an error result with the start of the file and the marker:\n%s", out)
	}
}
