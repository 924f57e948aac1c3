package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// The administrator's managed layer as the command sees it.

// writeManaged writes the env's managed file; TESTSERVER in content is
// replaced by the test server's command.
func (e *testEnv) writeManaged(content string) string {
	e.t.Helper()
	content = strings.ReplaceAll(content, "TESTSERVER", testServer(e.t)["command"].(string))
	return writeFile(e.t, filepath.Join(e.managed, "managed.yaml"), content)
}

// Every command reads the managed directory it is given, and nothing else:
// the managed layer's servers show with their scope.
func TestCLIReadsManagedDir(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.writeManaged("servers:\n  corp: {command: TESTSERVER}\n")
	got := e.listServers()
	if got["corp"] == nil || got["corp"]["scope"] != "managed" {
		t.Fatalf("mcp list --json: corp = %v, want scope managed", got["corp"])
	}
}
