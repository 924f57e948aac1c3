package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/mcphost/mcphost/host"
)

func TestToolsShow(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	cfg := e.configFile(map[string]any{"ts": testServer(t)})

	r := e.must(exitOK, "--config", cfg, "tools", "show", "mcp__ts__add")
	for _, line := range []string{`name +mcp__ts__add`, `server +ts`, `tool +add`, `usage +mcphost call mcp__ts__add a=NUMBER b=NUMBER`} {
		if !regexp.MustCompile(`(?m)^` + line + `$`).MatchString(r.stdout) {
			t.Errorf("tools show has no line %q:\n%s", line, r.stdout)
		}
	}
	wantContains(t, "tools show", r.stdout,
		"description:\n  Adds a and b (structured output).\n",
		"arguments:\n  a  number  required",
		"input schema:\n  {\n", `"type": "object"`, `"required": [`,
		"output schema:\n", `"sum"`)
	// server:tool works too, and --json is the tool as "tools --json" has it.
	tool := decodeJSON[map[string]any](t, e.must(exitOK, "--config", cfg, "tools", "show", "ts:add", "--json"))
	if tool["name"] != "mcp__ts__add" || tool["server"] != "ts" || tool["tool"] != "add" || tool["inputSchema"] == nil || tool["outputSchema"] == nil {
		t.Errorf("tools show --json = %v", tool)
	}
	r = e.must(exitOK, "--config", cfg, "tools", "show", "ts:echo")
	wantContains(t, "tools show echo", r.stdout, "mcphost call mcp__ts__echo text=TEXT")
	wantNotContains(t, "tools show echo", r.stdout, "output schema")
}

// The description, title and names of a hostile server are escaped, and a
// line break in them cannot make a line that passes for mcphost's own.
func TestToolsShowEscapes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.hostOpts = []host.Option{host.WithInProcessServer("evil", destructiveServer())}
	r := e.must(exitOK, "tools", "show", "evil:wipe"+spoofedLine)
	noControls(t, "tools show", r.stdout+r.stderr)
	noSpoofedLine(t, "tools show", r.stdout)
	wantContains(t, "tools show", r.stdout, "destructiveHint=true", `Wipes.`)
	for _, line := range strings.Split(r.stdout, "\n") {
		if strings.HasPrefix(line, "call ") {
			t.Errorf("a line of server text starts at the margin: %q", line)
		}
	}
	r = e.must(exitOK, "tools", "show", "evil:wipe"+spoofedLine, "--json")
	if tool := decodeJSON[map[string]any](t, r); tool["server"] != "evil" {
		t.Errorf("--json: %v", tool)
	}
}
