package config_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcphost/mcphost/host/config"
)

// Two layers that both set many env keys of one server merge key by key,
// each key's origin kept, in time linear in the keys (it was quadratic: a
// project file of 40000 keys took 15 s to load).
func TestMergeManyKeys(t *testing.T) {
	const n = 20000
	dir, global := t.TempDir(), t.TempDir()
	env := map[string]any{}
	for i := range n {
		env[fmt.Sprintf("K%d", i)] = "v"
	}
	write := func(name string, servers map[string]any) {
		b, err := json.Marshal(servers)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(".mcphost.json", map[string]any{"servers": map[string]any{"x": map[string]any{"command": "srv", "env": env}}})
	write(".mcp.json", map[string]any{"mcpServers": map[string]any{"x": map[string]any{"command": "srv", "env": env}}})
	cfg, err := config.Load(config.LoadOptions{GlobalDir: global, WorkDir: dir, Environ: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Servers) != 1 || len(cfg.Servers[0].Env) != n {
		t.Fatalf("servers %d, env of the first %d", len(cfg.Servers), len(cfg.Servers[0].Env))
	}
}
