package main

import (
	"fmt"
	"path/filepath"
	"reflect"
	"regexp"
	"testing"
)

// servers shows the configured plugins, their hooks and state under the
// server table; in JSON each server lists the plugins of its chain.
func TestServersShowPlugins(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	allow, err := filepath.Abs(fixture(t, "allow-all.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	notWasm := writeFile(t, filepath.Join(t.TempDir(), "broken.wasm"), "not wasm")
	cfg := writeFile(t, filepath.Join(t.TempDir(), "c.json"), fmt.Sprintf(`{
		"servers": {"ts": {"command": %q}, "other": {"command": %q}},
		"plugins": [
			{"name": "allow", "path": %q, "hooks": ["policy"], "servers": ["ts"], "mode": "shadow"},
			{"name": "broken", "path": %q, "hooks": ["policy"]}
		]}`, testServer(t)["command"], testServer(t)["command"], allow, notWasm))
	writeFile(t, filepath.Join(e.work, ".mcphost.yaml"), "plugins:\n  - {name: team, path: team.wasm}\n")

	r := e.must(exitOK, "--config", cfg, "servers")
	wantContains(t, "servers", r.stdout, "PLUGIN", "HOOKS", "STATE", "MODE", "SERVERS", "SOURCE",
		"policy", "loaded", "shadow", "error", "untrusted", "all",
		"\nplugin broken: ", "\nplugin team: from a project file that is not trusted")
	for _, row := range []string{`(?m)^allow .*policy +loaded +shadow +ts +` + regexpQuote(cfg) + `$`, `(?m)^broken +policy +error +enforce +all `, `(?m)^team +untrusted `} {
		if !matches(row, r.stdout) {
			t.Errorf("servers has no row %s:\n%s", row, r.stdout)
		}
	}

	servers := decodeJSON[[]map[string]any](t, e.must(exitOK, "--config", cfg, "servers", "--json"))
	chains := map[string][]any{}
	for _, s := range servers {
		if _, ok := s["connect_ms"]; !ok {
			t.Errorf("server %v lost its own members", s["id"])
		}
		chains[s["id"].(string)] = s["plugins"].([]any)
	}
	want := map[string][]any{
		"ts": {
			map[string]any{"name": "allow", "hooks": []any{"policy"}, "state": "loaded", "mode": "shadow"},
			map[string]any{"name": "broken", "hooks": []any{"policy"}, "state": "error", "mode": "enforce"},
		},
		"other": {
			map[string]any{"name": "broken", "hooks": []any{"policy"}, "state": "error", "mode": "enforce"},
		},
	}
	if !reflect.DeepEqual(chains, want) {
		t.Errorf("plugins per server\n got %v\nwant %v", chains, want)
	}

	// No plugin: no section, and an empty array per server.
	cfg = e.configFile(map[string]any{"ts": testServer(t)})
	e2 := newEnv(t)
	r = e2.must(exitOK, "--config", cfg, "servers")
	wantNotContains(t, "servers", r.stdout, "PLUGIN")
	servers = decodeJSON[[]map[string]any](t, e2.must(exitOK, "--config", cfg, "servers", "--json"))
	if p, ok := servers[0]["plugins"].([]any); !ok || len(p) != 0 {
		t.Errorf("plugins of a server without any: %v", servers[0]["plugins"])
	}
}

func regexpQuote(s string) string { return regexp.QuoteMeta(s) }

func matches(re, s string) bool { return regexp.MustCompile(re).MatchString(s) }
