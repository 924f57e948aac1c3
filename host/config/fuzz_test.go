package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fuzzFileNames are where FuzzLoad writes its file; "local" is the local
// file of the work directory.
var fuzzFileNames = []string{".mcphost.yaml", ".mcphost.json", ".mcphost.toml", ".mcp.json", "config.yaml", "config.json", "config.toml", "local"}

// FuzzLoad writes arbitrary bytes as one config file and loads it: Load,
// LoadScope and the writers must return errors, never panic, and a secret
// from the environment must never show in an error.
func FuzzLoad(f *testing.F) {
	seeds := []struct {
		file uint8
		data string
	}{
		{0, "servers:\n  a: {command: x, args: [1, \"${S}\"], env: {K: \"${S}\"}}\n  b: {url: \"https://h/${S}\", headers: {A: \"${NOPE}\"}}\nnames: {scheme: tool}\n"},
		{0, "mcpServers:\n  a: &x {command: y}\n  b: *x\n  c: {<<: *x, request_timeout: 3}\n"},
		{0, "servers:\n  a:\n    tools: {allow: ['[']}\n    protocol_version: 2025-06-18\n"},
		{1, `{"servers": {"a": {"type": "sse", "url": "http://x", "max_message_bytes": 1e300}}}`},
		{1, `{"servers": {"a": null, "b": [], "c": {"enabled": "maybe", "startup_timeout": -1}}}`},
		{2, "[servers.a]\ncommand = \"x\"\nstartup_timeout = 1.5\nprotocol_version = 2025-06-18\n[names]\nmax_length = 20\n"},
		{2, "[[servers]]\na = 1\n"},
		{3, `{"mcpServers": {"a": {"command": "x", "whatever": {}}}, "other": 1}`},
		{4, "trusted_projects:\n  - {path: /x, sha256: y}\nservers: {a: {command: x}}\n"},
		{5, `{"trusted_projects": "nope"}`},
		{6, "servers = 3\n"},
		{0, "servers:\n  a: {command: x, env: {K: [1, 2]}, headers: {\"\": x}, cwd: 7}\n"},
		{0, "\xff\xfe"},
		{0, "plugins:\n  - {name: a, path: a.wasm, hooks: [policy, auth], secrets: {t: \"${S}\"}, allowed_hosts: [\"*.x\"], limits: {timeout_ms: 5}}\n  - {name: a, path: \"${S}\"}\n  - 7\n"},
		{0, "plugins:\n  - {name: m, path: m.wasm, hooks: map_names, on_error: fallback, mode: shadow, config: {k: [1]}, servers: [\"[\"]}\n"},
		{1, `{"plugins": [{"name": "x", "path": "", "sha256": "zz", "limits": {"memory_mb": 1e9}, "secrets": {"t": "${S:-x}"}}]}`},
		{2, "[[plugins]]\nname = \"a\"\npath = \"a.wasm\"\nsecrets = {t = \"plain\"}\n"},
		{0, "plugins: {a: 1}\n"},
		{0, "servers:\n  a: {command: x, health_interval: off, reconnect: {initial_delay: 1s, max_delay: 500ms, max_attempts: -1, maxDelay: 3}}\n  b: {command: y, health_interval: 0, reconnect: 2}\n"},
		{1, `{"servers": {"a": {"command": "x", "health_interval": 1e300, "reconnect": {"initial_delay": "0s", "max_attempts": 1e10}}}}`},
		{2, "[servers.a]\ncommand = \"x\"\nhealth_interval = false\n[servers.a.reconnect]\nmax_delay = 2.5\nmax_attempts = 3\n"},
		{3, `{"mcpServers": {"a": {"command": "x", "health_interval": "-1s", "reconnect": {"backoff": 2, "max_delay": null}}}}`},
		{0, "servers:\n  a: {url: \"https://h\", auth: {type: bearer, token: \"${S}\"}}\n  b: {url: \"https://h\", oauth: {client_id: x, scopes: \"a b\", redirect_port: 99999, dpop: maybe}}\n  c: {url: \"https://h\", authorization: {type: oauth2.1, client_id: x}, auth: {type: none}}\n"},
		{1, `{"servers": {"a": {"url": "https://h", "auth": {"type": "client_credentials", "client_id": "x", "private_key": "${S}", "signing_algorithm": "HS256", "token": 1}}}}`},
		{3, `{"mcpServers": {"a": {"type": "http", "url": "https://h", "oauth": {"clientId": "x", "callbackPort": "8080"}}, "b": {"command": "x", "oauth": {}}}}`},
		{2, "[servers.a]\nurl = \"https://h\"\n[servers.a.auth]\ntype = \"jwt_bearer\"\nassertion_file = \"t\"\nassertion = \"${S}\"\n"},
		{0, "servers:\n  a: {command: x, env_file: ../g/e.env, env: {K: \"${secret:k}\"}}\n  b: {command: x, envFile: /etc/passwd}\n"},
		{4, "servers:\n  a: {url: \"https://h\", headers: {A: \"${secret:s}\"}, auth: {type: bearer, token: \"${secret:t}\"}, env_file: e.env}\n"},
		{7, "servers:\n  a: {command: y, args: [\"${secret:s}\"], env_file: \"${S}\"}\n  b: {enabled: false}\nnames: {scheme: tool}\n"},
		{7, "trusted_projects: []\nplugins: [{name: p, path: p.wasm, secrets: {t: \"${secret:x}\"}}]\n"},
		{2, "[" + strings.Repeat("a.", 120) + "a]\nx = 1\n"},
		{2, "x = {a.b = [" + strings.Repeat("{c.d = [", 200) + "\n"},
		{0, "servers:\n  a: {command: x, args: [\"${secret:a}${\"], env_file: .env}\n"},
	}
	for _, s := range seeds {
		f.Add(s.file, []byte(s.data))
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		root := t.TempDir()
		global := filepath.Join(root, "g")
		work := filepath.Join(root, "w")
		if err := os.MkdirAll(global, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(work, 0o700); err != nil {
			t.Fatal(err)
		}
		name := fuzzFileNames[int(which)%len(fuzzFileNames)]
		dir := work
		opts := LoadOptions{GlobalDir: global, WorkDir: work, Environ: []string{"S=" + secret},
			Secret: func(string) (string, error) { return secret, nil }}
		if strings.HasPrefix(name, "config.") {
			dir = global
		}
		if name == "local" {
			p, _, err := ScopeFile(opts, ScopeLocal)
			if err != nil {
				t.Fatal(err)
			}
			dir, name = filepath.Dir(p), filepath.Base(p)
			if err := os.MkdirAll(dir, 0o700); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
		// An env file beside every place an env_file may name.
		for _, d := range []string{global, work} {
			if err := os.WriteFile(filepath.Join(d, "e.env"), []byte("E="+secret+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		check := func(err error) {
			if err != nil && strings.Contains(err.Error(), secret) {
				t.Fatalf("error leaks the secret: %v", err)
			}
		}
		cfg, err := Load(opts)
		check(err)
		if err == nil {
			for i, s := range cfg.Servers {
				check(s.Err)
				if i > 0 && cfg.Servers[i-1].ID >= s.ID {
					t.Fatalf("servers not sorted: %q before %q", cfg.Servers[i-1].ID, s.ID)
				}
				if s.Err == nil && s.Transport == TransportStdio && s.Command == "" {
					t.Fatalf("server %q: stdio without command but no error", s.ID)
				}
				if r := s.Reconnect; s.Err == nil && (r.InitialDelay < 0 || r.MaxDelay < 0 || r.MaxAttempts < 0 ||
					(r.InitialDelay > 0 && r.MaxDelay > 0 && r.MaxDelay < r.InitialDelay) || s.HealthInterval < -1) {
					t.Fatalf("server %q: invalid reconnect or health settings but no error: %+v %v", s.ID, r, s.HealthInterval)
				}
			}
			for _, p := range cfg.Plugins {
				check(p.Err)
				if strings.Contains(fmt.Sprintf("%+v %v", p.Secrets, p.Secrets), secret) {
					t.Fatalf("plugin %q prints a secret", p.Name)
				}
				if p.Err != nil {
					continue
				}
				if !ValidID(p.Name) || !filepath.IsAbs(p.Path) || p.Limits.Timeout <= 0 || p.Limits.MemoryMB < 1 || p.Limits.MaxOutputBytes < 1 {
					t.Fatalf("plugin without error but invalid: %+v", p)
				}
			}
		}
		_, err = LoadScope(opts, ScopeProject)
		check(err)
		_, err = IsTrusted(opts, work)
		check(err)
		scope := ScopeProject
		switch {
		case dir == global:
			scope = ScopeGlobal
		case dir != work:
			scope = ScopeLocal
		}
		_, loadErr := LoadScope(opts, scope)
		_, err = SetEnabled(opts, scope, "a", false)
		check(err)
		_, err = AddServer(opts, scope, ServerEntry{ID: "z", Command: "x"}, true)
		check(err)
		if err == nil && loadErr == nil {
			// What was written into a file that loaded must load.
			if _, err := LoadScope(opts, scope); err != nil {
				t.Fatalf("after AddServer the file does not load: %v", err)
			}
		}
		_, err = RemoveServer(opts, scope, "a")
		check(err)
	})
}
