package config

import (
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
)

// testEnv is a global dir and a project dir under t.TempDir(), and options
// that read only them (and no process environment).
type testEnv struct {
	t       *testing.T
	global  string
	work    string
	environ []string
}

func newEnv(t *testing.T) *testEnv {
	t.Helper()
	root := t.TempDir()
	e := &testEnv{t: t, global: filepath.Join(root, "global"), work: filepath.Join(root, "project"), environ: []string{}}
	for _, d := range []string{e.global, e.work} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

func (e *testEnv) opts() LoadOptions {
	return LoadOptions{GlobalDir: e.global, WorkDir: e.work, Environ: e.environ}
}

func (e *testEnv) writeGlobal(name, content string) string {
	return writeFile(e.t, e.global, name, content)
}

func (e *testEnv) writeProject(name, content string) string {
	return writeFile(e.t, e.work, name, content)
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func (e *testEnv) trust() {
	e.t.Helper()
	if err := Trust(e.opts(), e.work); err != nil {
		e.t.Fatal(err)
	}
}

func (e *testEnv) load() *Config {
	e.t.Helper()
	cfg, err := Load(e.opts())
	if err != nil {
		e.t.Fatalf("Load: %v", err)
	}
	return cfg
}

// loadWarnings loads, wanting success, and returns the warnings joined.
func (e *testEnv) loadWarnings() string {
	e.t.Helper()
	return strings.Join(e.load().Warnings, "\n")
}

// wantProjectProblem: while the project is untrusted, a broken project file
// is a warning naming the file and everything else loads; once trusted it
// is an error as the global file's would be.
func (e *testEnv) wantProjectProblem(parts ...string) {
	e.t.Helper()
	w := e.loadWarnings()
	for _, p := range parts {
		if !strings.Contains(w, p) {
			e.t.Errorf("warnings %q do not contain %q", w, p)
		}
	}
	if !strings.Contains(w, "not trusted") {
		e.t.Errorf("warnings %q do not say the project is not trusted", w)
	}
	e.trust()
	wantErrContains(e.t, e.loadErr(), parts...)
}

func (e *testEnv) loadErr() error {
	e.t.Helper()
	cfg, err := Load(e.opts())
	if err == nil {
		e.t.Fatalf("Load succeeded with %d servers, want an error", len(cfg.Servers))
	}
	return err
}

func server(t *testing.T, cfg *Config, id string) *Server {
	t.Helper()
	for _, s := range cfg.Servers {
		if s.ID == id {
			return s
		}
	}
	t.Fatalf("no server %q (have %v)", id, ids(cfg))
	return nil
}

func ids(cfg *Config) []string {
	var out []string
	for _, s := range cfg.Servers {
		out = append(out, s.ID)
	}
	return out
}

func wantErrContains(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want one containing %q", parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not contain %q", err.Error(), p)
		}
	}
}

func TestLoadEmpty(t *testing.T) {
	e := newEnv(t)
	cfg := e.load()
	if len(cfg.Servers) != 0 || len(cfg.Files) != 0 {
		t.Fatalf("got %+v", cfg)
	}
	if cfg.Names != (Names{Scheme: SchemePrefixed, MaxLength: DefaultMaxNameLength}) {
		t.Fatalf("names = %+v", cfg.Names)
	}
}

func TestLoadDefaults(t *testing.T) {
	e := newEnv(t)
	e.writeGlobal("config.yaml", "servers:\n  mem:\n    command: npx\n")
	s := server(t, e.load(), "mem")
	want := &Server{
		ID: "mem", Transport: TransportStdio, Command: "npx", Enabled: true, Written: Target{Command: "npx"},
		StartupTimeout: 30 * time.Second, RequestTimeout: 60 * time.Second,
		MaxMessageBytes: 16 << 20, Source: filepath.Join(e.global, "config.yaml"), Scope: ScopeUser,
	}
	if !reflect.DeepEqual(s, want) {
		t.Fatalf("got  %+v\nwant %+v", s, want)
	}
}

func TestLoadAllFields(t *testing.T) {
	e := newEnv(t)
	e.environ = []string{"TOKEN=t0k", "HOME=/h"}
	e.writeGlobal("config.yaml", `
servers:
  full:
    transport: stdio
    command: ${HOME}/bin/server
    args: [--port, 8080, "${TOKEN}"]
    env: {DEBUG: true, KEY: "${TOKEN}"}
    cwd: sub/dir
    enabled: false
    startup_timeout: 5s
    request_timeout: 90
    protocol_version: "2025-06-18"
    tools: {allow: ["read_*"], deny: [read_secret]}
    max_message_bytes: 1024
    health_interval: 10s
    reconnect:
      initial_delay: 250ms
      max_delay: 1m
      max_attempts: 5
  web:
    transport: sse
    url: https://example.com/sse?k=${TOKEN}
    headers: {Authorization: "Bearer ${TOKEN}"}
    request_timeout: 2.5
    health_interval: off
    reconnect: {max_attempts: 0}
names:
  scheme: server
  max_length: 40
`)
	cfg := e.load()
	full := server(t, cfg, "full")
	want := &Server{
		ID: "full", Transport: TransportStdio, Command: "/h/bin/server",
		Args:    []string{"--port", "8080", "t0k"},
		Env:     map[string]string{"DEBUG": "true", "KEY": "t0k"},
		Cwd:     filepath.Join(e.global, "sub", "dir"),
		Enabled: false, StartupTimeout: 5 * time.Second, RequestTimeout: 90 * time.Second,
		ProtocolVersion: "2025-06-18",
		Tools:           ToolFilter{Allow: []string{"read_*"}, Deny: []string{"read_secret"}},
		MaxMessageBytes: 1024,
		HealthInterval:  10 * time.Second,
		Reconnect:       Reconnect{InitialDelay: 250 * time.Millisecond, MaxDelay: time.Minute, MaxAttempts: 5},
		Written:         Target{Command: "${HOME}/bin/server", Args: []string{"--port", "8080", "${TOKEN}"}},
		Source:          filepath.Join(e.global, "config.yaml"),
		Scope:           ScopeUser,
	}
	if !reflect.DeepEqual(full, want) {
		t.Fatalf("got  %+v\nwant %+v", full, want)
	}
	web := server(t, cfg, "web")
	if web.Err != nil || web.Transport != TransportSSE || web.URL != "https://example.com/sse?k=t0k" ||
		web.Headers["Authorization"] != "Bearer t0k" || web.RequestTimeout != 2500*time.Millisecond ||
		web.HealthInterval != -1 || web.Reconnect != (Reconnect{}) {
		t.Fatalf("web = %+v", web)
	}
	if cfg.Names != (Names{Scheme: SchemeServer, MaxLength: 40}) {
		t.Fatalf("names = %+v", cfg.Names)
	}
}

func TestLoadFormats(t *testing.T) {
	files := map[string]string{
		"config.yaml": "servers:\n  a:\n    command: x\n    args: [y]\n    request_timeout: 10s\n    health_interval: 15s\n    reconnect: {initial_delay: 1s, max_delay: 20s, max_attempts: 3}\n",
		"config.yml":  "servers:\n  a:\n    command: x\n    args: [y]\n    request_timeout: 10s\n    health_interval: 15\n    reconnect:\n      initial_delay: 1\n      max_delay: 20s\n      max_attempts: 3\n",
		"config.json": `{"servers": {"a": {"command": "x", "args": ["y"], "request_timeout": "10s", "health_interval": "15s", "reconnect": {"initial_delay": "1s", "max_delay": 20, "max_attempts": 3}}}}`,
		"config.toml": "[servers.a]\ncommand = \"x\"\nargs = [\"y\"]\nrequest_timeout = 10\nhealth_interval = 15\nreconnect = { initial_delay = \"1s\", max_delay = 20.0, max_attempts = 3 }\n",
	}
	wantReconnect := Reconnect{InitialDelay: time.Second, MaxDelay: 20 * time.Second, MaxAttempts: 3}
	for name, content := range files {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			p := e.writeGlobal(name, content)
			cfg := e.load()
			s := server(t, cfg, "a")
			if s.Err != nil || s.Command != "x" || !reflect.DeepEqual(s.Args, []string{"y"}) || s.RequestTimeout != 10*time.Second || s.Source != p ||
				s.HealthInterval != 15*time.Second || s.Reconnect != wantReconnect {
				t.Fatalf("got %+v", s)
			}
			if !reflect.DeepEqual(cfg.Files, []string{p}) {
				t.Fatalf("files = %v", cfg.Files)
			}
		})
	}
}

func TestHealthInterval(t *testing.T) {
	cases := []struct {
		file, value string
		want        time.Duration
	}{
		{"config.yaml", "off", -1},
		{"config.yaml", "OFF", -1},
		{"config.yaml", `"off"`, -1},
		{"config.yaml", "0", -1},
		{"config.yaml", `"0"`, -1},
		{"config.yaml", "0s", -1},
		{"config.yaml", "false", -1},
		{"config.yaml", "45s", 45 * time.Second},
		{"config.yaml", "2.5", 2500 * time.Millisecond},
		{"config.yaml", "null", 0},
		{"config.json", `"off"`, -1},
		{"config.json", "0", -1},
		{"config.json", "0.0", -1},
		{"config.json", `"1m"`, time.Minute},
		{"config.json", "90", 90 * time.Second},
		{"config.toml", `"off"`, -1},
		{"config.toml", "0", -1},
		{"config.toml", "false", -1},
		{"config.toml", `"1m30s"`, 90 * time.Second},
		{"config.toml", "5", 5 * time.Second},
	}
	for _, tc := range cases {
		e := newEnv(t)
		var content string
		switch tc.file {
		case "config.yaml":
			content = "servers:\n  a:\n    command: x\n    health_interval: " + tc.value + "\n"
		case "config.json":
			content = `{"servers": {"a": {"command": "x", "health_interval": ` + tc.value + `}}}`
		case "config.toml":
			content = "[servers.a]\ncommand = \"x\"\nhealth_interval = " + tc.value + "\n"
		}
		e.writeGlobal(tc.file, content)
		s := server(t, e.load(), "a")
		if s.Err != nil || s.HealthInterval != tc.want {
			t.Errorf("%s health_interval %s: got %v, %v; want %v", tc.file, tc.value, s.HealthInterval, s.Err, tc.want)
		}
	}
}

// reconnect is a map: layers merge it key by key, and an error names the
// layer that set the offending key.
func TestReconnectMerge(t *testing.T) {
	e := newEnv(t)
	e.writeGlobal("config.yaml", "servers:\n  a:\n    command: x\n    health_interval: 10s\n    reconnect: {initial_delay: 1s, max_attempts: 5}\n")
	e.writeProject(".mcphost.yaml", "servers:\n  a:\n    reconnect: {max_delay: 2m}\n    health_interval: off\n")
	e.trust()
	a := server(t, e.load(), "a")
	if a.Err != nil || a.HealthInterval != -1 || a.Reconnect != (Reconnect{InitialDelay: time.Second, MaxDelay: 2 * time.Minute, MaxAttempts: 5}) {
		t.Fatalf("a = %+v", a)
	}

	// max_delay from the project is below initial_delay from the global
	// file: the error names both fields and the file of max_delay.
	p := e.writeProject(".mcphost.yaml", "servers:\n  a:\n    reconnect: {max_delay: 500ms}\n")
	e.trust()
	a = server(t, e.load(), "a")
	wantErrContains(t, a.Err, "config: "+p+`: server "a": reconnect.max_delay: 500ms is less than reconnect.initial_delay (1s)`)

	g := e.writeGlobal("config.yaml", "servers:\n  a:\n    command: x\n    reconnect: {max_attempts: -2}\n")
	e.writeProject(".mcphost.yaml", "servers:\n  a:\n    reconnect: {max_delay: 1m}\n")
	e.trust()
	a = server(t, e.load(), "a")
	wantErrContains(t, a.Err, "config: "+g+`: server "a": reconnect.max_attempts: must not be negative`)
}

// .mcp.json is read leniently: unknown keys inside reconnect are ignored,
// known ones are used.
func TestMCPJSONReconnect(t *testing.T) {
	e := newEnv(t)
	e.writeProject(".mcp.json", `{"mcpServers": {"a": {"command": "x", "health_interval": "off", "reconnect": {"max_attempts": 2, "backoff": "exp"}}}}`)
	e.trust()
	a := server(t, e.load(), "a")
	if a.Err != nil || a.HealthInterval != -1 || a.Reconnect != (Reconnect{MaxAttempts: 2}) {
		t.Fatalf("a = %+v", a)
	}
}

func TestTOMLUnquotedDate(t *testing.T) {
	e := newEnv(t)
	e.writeGlobal("config.toml", "[servers.a]\ncommand = \"x\"\nprotocol_version = 2025-06-18\n")
	s := server(t, e.load(), "a")
	if s.Err != nil || s.ProtocolVersion != "2025-06-18" {
		t.Fatalf("got %+v", s)
	}
}

// Every layer defines server "s" and sets "args" to its own name; each test
// case removes the layers above one, so the highest remaining one must win.
func TestLayerPrecedence(t *testing.T) {
	type layerSet struct{ global, project, mcpjson, explicit, env, flags bool }
	cases := []struct {
		name   string
		set    layerSet
		want   string // args[0]
		source string // "global", "project", "mcpjson", "explicit", "env", "flags"
	}{
		{"global only", layerSet{global: true}, "global", "global"},
		// A project file cannot change the user's server (see
		// TestProjectCannotChangeUserServer).
		{"project under global", layerSet{global: true, project: true}, "global", "global"},
		{".mcp.json under global", layerSet{global: true, project: true, mcpjson: true}, "global", "global"},
		{".mcp.json over project", layerSet{project: true, mcpjson: true}, "mcpjson", "mcpjson"},
		{"--config over .mcp.json", layerSet{true, true, true, true, false, false}, "explicit", "explicit"},
		{"env over --config", layerSet{true, true, true, true, true, false}, "env", "env"},
		{"flags over env", layerSet{true, true, true, true, true, true}, "flags", "flags"},
		{"flags over global", layerSet{global: true, flags: true}, "flags", "flags"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			sources := map[string]string{"env": "env", "flags": "flags"}
			var wantFiles []string
			if tc.set.global {
				sources["global"] = e.writeGlobal("config.yaml", "servers:\n  s:\n    command: cmd\n    args: [global]\n    env: {G: g}\n")
				wantFiles = append(wantFiles, sources["global"])
			}
			if tc.set.project {
				sources["project"] = e.writeProject(".mcphost.yaml", "servers:\n  s:\n    args: [project]\n")
				wantFiles = append(wantFiles, sources["project"])
			}
			if tc.set.mcpjson {
				sources["mcpjson"] = e.writeProject(".mcp.json", `{"mcpServers": {"s": {"command": "cmd", "args": ["mcpjson"]}}}`)
				wantFiles = append(wantFiles, sources["mcpjson"])
			}
			opts := e.opts()
			if tc.set.explicit {
				sources["explicit"] = writeFile(t, t.TempDir(), "explicit.json", `{"servers": {"s": {"args": ["explicit"]}}}`)
				opts.ConfigFile = sources["explicit"]
				wantFiles = append(wantFiles, sources["explicit"])
			}
			if tc.set.env {
				opts.Environ = []string{`MCPHOST_SERVERS__S__ARGS=["env"]`}
			}
			if tc.set.flags {
				opts.Overrides = map[string]any{"servers.s.args": []string{"flags"}}
			}
			e.trust()
			if g := filepath.Join(e.global, "config.yaml"); !tc.set.global && (tc.set.project || tc.set.mcpjson) {
				wantFiles = append([]string{g}, wantFiles...) // trust wrote it
			}
			cfg, err := Load(opts)
			if err != nil {
				t.Fatal(err)
			}
			s := server(t, cfg, "s")
			if s.Err != nil {
				t.Fatalf("err: %v", s.Err)
			}
			if len(s.Args) != 1 || s.Args[0] != tc.want {
				t.Errorf("args = %v, want [%s]", s.Args, tc.want)
			}
			if s.Source != sources[tc.source] {
				t.Errorf("source = %q, want %q", s.Source, sources[tc.source])
			}
			if !reflect.DeepEqual(cfg.Files, wantFiles) {
				t.Errorf("files = %v, want %v", cfg.Files, wantFiles)
			}
			if tc.set.global && s.Env["G"] != "g" {
				t.Errorf("env from the global layer lost: %v", s.Env)
			}
		})
	}
}

func TestMergeByID(t *testing.T) {
	e := newEnv(t)
	e.writeGlobal("config.yaml", `
servers:
  github:
    command: gh-mcp
    env: {A: "1", B: "2"}
    tools: {allow: ["*"]}
  other:
    url: https://other.example/mcp
`)
	proj := e.writeProject(".mcphost.yaml", `
servers:
  github:
    env: {B: "20", C: "30"}
    tools: {deny: [delete_*]}
    request_timeout: 5s
  local:
    command: ./run
`)
	e.trust()
	cfg := e.load()
	if got := ids(cfg); !reflect.DeepEqual(got, []string{"github", "local", "other"}) {
		t.Fatalf("ids = %v (want sorted)", got)
	}
	gh := server(t, cfg, "github")
	if gh.Command != "gh-mcp" || gh.RequestTimeout != 5*time.Second || gh.Source != proj {
		t.Fatalf("github = %+v", gh)
	}
	// The project's env for the user's server is ignored, with a warning.
	if !reflect.DeepEqual(gh.Env, map[string]string{"A": "1", "B": "2"}) {
		t.Fatalf("env = %v", gh.Env)
	}
	if w := strings.Join(cfg.Warnings, "\n"); !strings.Contains(w, proj) || !strings.Contains(w, `server "github": env ignored`) {
		t.Fatalf("warnings = %q", w)
	}
	if !reflect.DeepEqual(gh.Tools, ToolFilter{Allow: []string{"*"}, Deny: []string{"delete_*"}}) {
		t.Fatalf("tools = %+v", gh.Tools)
	}
	if o := server(t, cfg, "other"); o.Source != filepath.Join(e.global, "config.yaml") {
		t.Fatalf("other source = %q", o.Source)
	}
}

func TestProjectDisablesGlobalServer(t *testing.T) {
	e := newEnv(t)
	e.writeGlobal("config.yaml", "servers:\n  github:\n    command: gh-mcp\n")
	proj := e.writeProject(".mcphost.yaml", "servers:\n  github:\n    enabled: false\n")
	// Not trusted: switching a server off needs no trust.
	gh := server(t, e.load(), "github")
	if gh.Enabled || gh.Untrusted || gh.Err != nil || gh.Command != "gh-mcp" || gh.Source != proj {
		t.Fatalf("github = %+v", gh)
	}
	// Re-enabling it in a higher layer works.
	opts := e.opts()
	opts.Overrides = map[string]any{"servers": map[string]any{"github": map[string]any{"enabled": true}}}
	cfg, err := Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	if gh := server(t, cfg, "github"); !gh.Enabled || gh.Source != "flags" {
		t.Fatalf("github = %+v", gh)
	}
}

func TestOverrideOnlyEntry(t *testing.T) {
	e := newEnv(t)
	e.writeProject(".mcphost.yaml", "servers:\n  ghost:\n    enabled: false\n")
	s := server(t, e.load(), "ghost")
	wantErrContains(t, s.Err, ".mcphost.yaml", `server "ghost"`, "command")
}

func TestMCPJSONAsIs(t *testing.T) {
	e := newEnv(t)
	e.environ = []string{"API_KEY=k"}
	p := e.writeProject(".mcp.json", `{
  "mcpServers": {
    "files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."], "env": {"X": "1"}},
    "remote": {"type": "http", "url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer ${API_KEY}"}},
    "events": {"type": "sse", "url": "https://mcp.example.com/sse"},
    "streamy": {"type": "streamable-http", "url": "https://s.example.com/mcp"},
    "camel": {"type": "streamableHttp", "url": "https://c.example.com/mcp"},
    "sock": {"type": "ws", "url": "wss://w.example.com/mcp"},
    "explicit": {"type": "stdio", "command": "srv", "oauth": {"clientId": "x"}, "timeout": 5}
  },
  "someClaudeSetting": true,
  "inputs": []
}`)
	e.trust()
	cfg := e.load()
	want := map[string]string{
		"files": TransportStdio, "remote": TransportHTTP, "events": TransportSSE,
		"streamy": TransportHTTP, "camel": TransportHTTP, "sock": TransportWebSocket, "explicit": TransportStdio,
	}
	for id, tr := range want {
		s := server(t, cfg, id)
		if s.Err != nil || s.Transport != tr || s.Source != p || s.Untrusted {
			t.Errorf("%s = %+v, want transport %s", id, s, tr)
		}
	}
	if r := server(t, cfg, "remote"); r.Headers["Authorization"] != "Bearer k" {
		t.Errorf("headers = %v", r.Headers)
	}
	if f := server(t, cfg, "files"); !reflect.DeepEqual(f.Args, []string{"-y", "@modelcontextprotocol/server-filesystem", "."}) {
		t.Errorf("args = %v", f.Args)
	}
}

func TestAliases(t *testing.T) {
	e := newEnv(t)
	p := e.writeGlobal("config.yaml", `
mcpServers:
  a: {type: http, url: "https://a.example/mcp"}
  both: {command: x}
servers:
  b: {transport: streamable-http, url: "https://b.example/mcp"}
  both: {command: y}
  agree: {type: sse, transport: sse, url: "https://c.example/sse"}
  disagree: {type: sse, transport: http, url: "https://c.example/sse"}
`)
	cfg := e.load()
	for _, id := range []string{"a", "b"} {
		if s := server(t, cfg, id); s.Err != nil || s.Transport != TransportHTTP {
			t.Errorf("%s = %+v", id, s)
		}
	}
	if s := server(t, cfg, "agree"); s.Err != nil || s.Transport != TransportSSE {
		t.Errorf("agree = %+v", s)
	}
	wantErrContains(t, server(t, cfg, "both").Err, p, `server "both"`, `"servers"`, `"mcpServers"`)
	wantErrContains(t, server(t, cfg, "disagree").Err, p, `server "disagree"`, "transport", "type")
}

func TestInference(t *testing.T) {
	e := newEnv(t)
	e.writeGlobal("config.yaml", `
servers:
  cmd: {command: x}
  web: {url: "https://w.example/mcp"}
  ambiguous: {command: x, url: "https://w.example/mcp"}
  explicit: {transport: websocket, url: "ws://localhost:9000/mcp", command: ignored}
  nothing: {}
`)
	cfg := e.load()
	if s := server(t, cfg, "cmd"); s.Transport != TransportStdio || s.Err != nil {
		t.Errorf("cmd = %+v", s)
	}
	if s := server(t, cfg, "web"); s.Transport != TransportHTTP || s.Err != nil {
		t.Errorf("web = %+v", s)
	}
	if s := server(t, cfg, "explicit"); s.Transport != TransportWebSocket || s.Err != nil || s.URL != "ws://localhost:9000/mcp" {
		t.Errorf("explicit = %+v", s)
	}
	wantErrContains(t, server(t, cfg, "ambiguous").Err, "both command and url")
	wantErrContains(t, server(t, cfg, "nothing").Err, `server "nothing"`, "command")
}

const secret = "sup3r-s3cret-value"

func TestValidationErrors(t *testing.T) {
	cases := []struct {
		name  string
		entry string // YAML of the entry's fields, indented by 4
		field string // must appear in the message
		more  string // another substring
	}{
		{"bad id", "", "bad id", "^[a-zA-Z0-9_-]{1,64}$"},
		{"stdio without command", `{transport: stdio}`, "command", "missing"},
		{"empty command", `{command: ""}`, "command", "empty"},
		{"http without url", `{transport: http}`, "url", "missing"},
		{"sse without url", `{type: sse}`, "url", "missing"},
		{"websocket without url", `{transport: websocket}`, "url", "missing"},
		{"unparseable url", `{url: "http://[::1"}`, "url", "not an absolute URL"},
		{"relative url", `{url: "/mcp"}`, "url", "not an absolute URL"},
		{"http with ws url", `{transport: http, url: "ws://x/mcp"}`, "url", `scheme "ws" does not fit transport http`},
		{"sse with ftp url", `{transport: sse, url: "ftp://x/mcp"}`, "url", "does not fit"},
		{"websocket with ftp url", `{transport: websocket, url: "ftp://x/mcp"}`, "url", "ws://, wss://"},
		{"unknown transport", `{transport: pigeon, command: x}`, "transport", `unknown transport "pigeon"`},
		{"bad duration", `{command: x, request_timeout: "3x"}`, "request_timeout", `"3x" is not a duration (use e.g. "30s")`},
		{"negative duration", `{command: x, startup_timeout: "-1s"}`, "startup_timeout", "positive"},
		{"zero seconds", `{command: x, startup_timeout: 0}`, "startup_timeout", "positive"},
		{"duration of a list", `{command: x, startup_timeout: [1]}`, "startup_timeout", "duration"},
		{"negative max bytes", `{command: x, max_message_bytes: -1}`, "max_message_bytes", "negative"},
		{"fractional max bytes", `{command: x, max_message_bytes: 1.5}`, "max_message_bytes", "whole number"},
		{"bad protocol version", `{command: x, protocol_version: "2025-6-18"}`, "protocol_version", "YYYY-MM-DD"},
		{"impossible date", `{command: x, protocol_version: "2025-13-40"}`, "protocol_version", "YYYY-MM-DD"},
		{"bad allow glob", `{command: x, tools: {allow: ["[a"]}}`, "tools.allow", `bad glob "[a"`},
		{"bad deny glob", `{command: x, tools: {deny: ["ok", "x\\"]}}`, "tools.deny", "bad glob"},
		{"unknown field", `{command: x, request_timout: 3s}`, `unknown field "request_timout"`, `did you mean "request_timeout"?`},
		{"camel case field", `{command: x, requestTimeout: 3s}`, `unknown field "requestTimeout"`, `did you mean "request_timeout"?`},
		{"codex field", `{command: x, startup_timeout_sec: 3}`, `unknown field "startup_timeout_sec"`, `did you mean "startup_timeout"?`},
		{"unknown tools field", `{command: x, tools: {alow: [a]}}`, `unknown field "alow"`, `did you mean "allow"?`},
		{"bad health interval", `{command: x, health_interval: soon}`, "health_interval", `"soon" is not a duration`},
		{"negative health interval", `{command: x, health_interval: "-5s"}`, "health_interval", `positive (or "off" for no health checks)`},
		{"negative health seconds", `{command: x, health_interval: -5}`, "health_interval", "positive"},
		{"health interval true", `{command: x, health_interval: true}`, "health_interval", `"off"`},
		{"health interval list", `{command: x, health_interval: [1]}`, "health_interval", "duration"},
		{"misspelled health field", `{command: x, health_interval_sec: 5}`, `unknown field "health_interval_sec"`, `did you mean "health_interval"?`},
		{"misspelled reconnect", `{command: x, reconect: {max_attempts: 3}}`, `unknown field "reconect"`, `did you mean "reconnect"?`},
		{"reconnect not a map", `{command: x, reconnect: 3}`, "reconnect", "must be a map"},
		{"unknown reconnect field", `{command: x, reconnect: {max_delays: 1m}}`, `reconnect: unknown field "max_delays"`, `did you mean "max_delay"?`},
		{"camel case reconnect field", `{command: x, reconnect: {initialDelay: 1s}}`, `unknown field "initialDelay"`, `did you mean "initial_delay"?`},
		{"zero initial delay", `{command: x, reconnect: {initial_delay: 0}}`, "reconnect.initial_delay", "positive"},
		{"negative initial delay", `{command: x, reconnect: {initial_delay: "-1s"}}`, "reconnect.initial_delay", "positive"},
		{"bad max delay", `{command: x, reconnect: {max_delay: "3x"}}`, "reconnect.max_delay", `"3x" is not a duration`},
		{"max delay below initial", `{command: x, reconnect: {initial_delay: 5s, max_delay: 1s}}`, "reconnect.max_delay: 1s is less than reconnect.initial_delay (5s)", ""},
		{"negative max attempts", `{command: x, reconnect: {max_attempts: -1}}`, "reconnect.max_attempts", "must not be negative (0 means no limit)"},
		{"fractional max attempts", `{command: x, reconnect: {max_attempts: 1.5}}`, "reconnect.max_attempts", "whole number"},
		{"max attempts not a number", `{command: x, reconnect: {max_attempts: many}}`, "reconnect.max_attempts", "whole number"},
		{"huge max attempts", `{command: x, reconnect: {max_attempts: 99999999999}}`, "reconnect.max_attempts", "too large"},
		{"args not a list", `{command: x, args: "a b"}`, "args", "list of strings"},
		{"enabled not a bool", `{command: x, enabled: maybe}`, "enabled", "true or false"},
		{"env not a map", `{command: x, env: [a]}`, "env", "map"},
		{"env value not a string", `{command: x, env: {K: [` + secret + `]}}`, "env.K", "string"},
		{"bad header name", `{url: "https://x/mcp", headers: {"Bad Header": ` + secret + `}}`, "headers", `bad header name "Bad Header"`},
		{"unset var in header", `{url: "https://x/mcp", headers: {Authorization: "Bearer ` + secret + `${NOPE}"}}`, "headers.Authorization", `variable "NOPE" is not set`},
		{"unset var in env", `{command: x, env: {TOKEN: "` + secret + `${NOPE}"}}`, "env.TOKEN", `"NOPE"`},
		{"malformed var in header", `{url: "https://x/mcp", headers: {X: "` + secret + `${oops"}}`, "headers.X", "unterminated"},
		{"unset var in url", `{url: "https://x/${NOPE}"}`, "url", `"NOPE"`},
		{"unset var in args", `{command: x, args: [a, "${NOPE}"]}`, "args[1]", `"NOPE"`},
		{"unset var in command", `{command: "${NOPE}"}`, "command", `"NOPE"`},
		{"entry not a map", `just a string`, "entry must be a map", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			id := "srv"
			if tc.name == "bad id" {
				id = `"bad id!"`
			}
			entry := tc.entry
			if entry == "" {
				entry = "{command: x}"
			}
			p := e.writeGlobal("config.yaml", "servers:\n  "+id+": "+entry+"\n  good: {command: ok}\n")
			cfg := e.load()
			if g := server(t, cfg, "good"); g.Err != nil {
				t.Fatalf("the good server got %v", g.Err)
			}
			wantID := strings.Trim(id, `"`)
			s := server(t, cfg, wantID)
			wantErrContains(t, s.Err, "config: "+p+": server "+`"`+wantID+`"`, tc.field, tc.more)
			if strings.Contains(s.Err.Error(), secret) {
				t.Errorf("error leaks a secret: %v", s.Err)
			}
		})
	}
}

func TestErrorNamesTheLayerOfTheValue(t *testing.T) {
	e := newEnv(t)
	g := e.writeGlobal("config.yaml", "servers:\n  a:\n    command: x\n    request_timeout: 3x\n")
	p := e.writeProject(".mcphost.yaml", "servers:\n  a:\n    enabled: false\n")
	s := server(t, e.load(), "a")
	if s.Source != p {
		t.Fatalf("source = %q", s.Source)
	}
	wantErrContains(t, s.Err, "config: "+g+`: server "a": request_timeout: "3x" is not a duration`)
}

func TestUnsetVarOnlyThatServer(t *testing.T) {
	e := newEnv(t)
	e.environ = []string{"SET=1"}
	p := e.writeGlobal("config.yaml", `
servers:
  broken:
    url: https://x.example/mcp
    headers: {Authorization: "Bearer ${GITHUB_TOKEN}"}
  fine:
    command: x
    env: {V: "${SET}", W: "${UNSET:-dflt}"}
`)
	cfg := e.load()
	wantErrContains(t, server(t, cfg, "broken").Err, p, `server "broken"`, "headers.Authorization", `variable "GITHUB_TOKEN" is not set`)
	f := server(t, cfg, "fine")
	if f.Err != nil || f.Env["V"] != "1" || f.Env["W"] != "dflt" {
		t.Fatalf("fine = %+v", f)
	}
}

func TestSecretNeverInErrors(t *testing.T) {
	e := newEnv(t)
	e.environ = []string{"TOK=" + secret}
	e.writeGlobal("config.yaml", `
servers:
  h1: {url: "https://x/mcp", headers: {Authorization: "Bearer ${TOK}", X: "${MISSING}"}, request_timeout: nope}
  h2: {url: "https://x/mcp", headers: {Authorization: "`+secret+`"}, transport: http, tools: {allow: ["["]}}
  e1: {command: x, env: {A: "`+secret+`", B: "${MISSING}"}, startup_timeout: -3}
  e2: {command: "", env: {A: "${TOK}"}}
  u: {url: "ftp://${TOK}/x"}
`)
	for _, s := range e.load().Servers {
		if s.Err == nil {
			t.Errorf("%s: want an error", s.ID)
			continue
		}
		if strings.Contains(s.Err.Error(), secret) {
			t.Errorf("%s: error leaks a secret: %v", s.ID, s.Err)
		}
	}
}

func TestBadIDs(t *testing.T) {
	e := newEnv(t)
	long := strings.Repeat("a", 65)
	e.writeGlobal("config.json", `{"servers": {"a.b": {"command": "x"}, "`+long+`": {"command": "x"}, "": {"command": "x"}, "ok-1_A": {"command": "x"}}}`)
	cfg := e.load()
	for _, id := range []string{"a.b", long, ""} {
		wantErrContains(t, server(t, cfg, id).Err, "bad id")
	}
	if s := server(t, cfg, "ok-1_A"); s.Err != nil {
		t.Fatal(s.Err)
	}
}

func TestUnknownTopLevelKey(t *testing.T) {
	e := newEnv(t)
	p := e.writeProject(".mcphost.yaml", "server:\n  a: {command: x}\n")
	e.wantProjectProblem(p, `unknown top-level key "server"`, `did you mean "servers"?`)
	e = newEnv(t)
	p = e.writeGlobal("config.yaml", "server:\n  a: {command: x}\n")
	wantErrContains(t, e.loadErr(), p, `unknown top-level key "server"`)
}

func TestTrustedProjectsOnlyGlobal(t *testing.T) {
	e := newEnv(t)
	p := e.writeProject(".mcphost.yaml", "trusted_projects: [{path: /x, sha256: y}]\n")
	e.wantProjectProblem(p, "trusted_projects", "global")
}

func TestTwoFilesOfOneLayer(t *testing.T) {
	e := newEnv(t)
	a := e.writeGlobal("config.yaml", "")
	b := e.writeGlobal("config.json", "{}")
	wantErrContains(t, e.loadErr(), a, b)

	e = newEnv(t)
	a = e.writeProject(".mcphost.yml", "")
	b = e.writeProject(".mcphost.toml", "")
	e.wantProjectProblem(a, b)
}

func TestParseErrorsNameFileAndLine(t *testing.T) {
	cases := []struct {
		name, content, want string
	}{
		{".mcphost.yaml", "servers:\n  a:\n    command: x\n   bad: [\n", "line "},
		{".mcphost.yaml", "servers:\n  a: {command: x}\n  a: {command: y}\n", "line 3"},
		{".mcphost.yaml", "- a\n- b\n", "line 1"},
		{".mcphost.json", "{\n  \"servers\": {\n    \"a\": {\"command\": \"x\",}\n  }\n}\n", ".mcphost.json:3:"},
		{".mcphost.json", "{\n  \"servers\": {}\n", ".mcphost.json:3:"},
		{".mcphost.json", "\n\n[1, 2]", ".mcphost.json:3:"},
		{".mcphost.toml", "[servers.a]\ncommand = \"x\"\nargs = [\n", ".mcphost.toml:"},
		{".mcphost.toml", "[servers.a]\ncommand = \"x\"\ncommand = \"y\"\n", "already defined"}, // go-toml gives no position here
		{".mcp.json", "{\"mcpServers\": {\n\"a\": }}", ".mcp.json:2:"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			e.writeGlobal("config.yaml", "servers:\n  global: {command: x}\n")
			p := e.writeProject(tc.name, tc.content)
			// Untrusted: a warning, and the global server still loads.
			if s := server(t, e.load(), "global"); s.Err != nil {
				t.Fatal(s.Err)
			}
			e.wantProjectProblem("config: "+p, tc.want)
		})
	}
}

func TestConfigFile(t *testing.T) {
	e := newEnv(t)
	p := writeFile(t, t.TempDir(), "team.yaml", "servers:\n  team: {command: x}\n")
	opts := e.opts()
	opts.ConfigFile = p
	cfg, err := Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	if s := server(t, cfg, "team"); s.Untrusted || s.Source != p || s.Err != nil {
		t.Fatalf("team = %+v", s)
	}

	opts.ConfigFile = filepath.Join(t.TempDir(), "missing.yaml")
	_, err = Load(opts)
	wantErrContains(t, err, "missing.yaml")

	opts.ConfigFile = writeFile(t, t.TempDir(), "conf.ini", "")
	_, err = Load(opts)
	wantErrContains(t, err, "conf.ini", "unknown file format")
}

// A --config naming the project's own file is explicit, so trusted, and the
// file is read once.
func TestConfigFileIsProjectFile(t *testing.T) {
	e := newEnv(t)
	p := e.writeProject(".mcphost.yaml", "servers:\n  a: {command: x}\n")
	opts := e.opts()
	opts.ConfigFile = p
	cfg, err := Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	if s := server(t, cfg, "a"); s.Untrusted {
		t.Fatalf("a = %+v", s)
	}
	if !reflect.DeepEqual(cfg.Files, []string{p}) {
		t.Fatalf("files = %v", cfg.Files)
	}
}

func TestNames(t *testing.T) {
	cases := []struct {
		content string
		want    Names
		err     string
	}{
		{"names: {scheme: tool}", Names{SchemeBare, 64}, ""},
		{"names: {scheme: mcp, max_length: 16}", Names{SchemePrefixed, 16}, ""},
		{"names: {scheme: short}", Names{}, `names.scheme: "short" is not a name scheme`},
		{"names: {max_length: 15}", Names{}, "names.max_length"},
		{"names: {max_length: 128}", Names{SchemePrefixed, 128}, ""},
		{"names: {max_length: 129}", Names{}, "names.max_length"},
		{"names: {max_length: ten}", Names{}, "names.max_length"},
		{"names: {schema: tool}", Names{}, `did you mean "scheme"?`},
		{"names: tool", Names{}, "names: must be a map"},
	}
	for _, tc := range cases {
		e := newEnv(t)
		p := e.writeGlobal("config.yaml", tc.content+"\n")
		cfg, err := Load(e.opts())
		if tc.err != "" {
			wantErrContains(t, err, p, tc.err)
			continue
		}
		if err != nil || cfg.Names != tc.want {
			t.Errorf("%q: got %+v, %v", tc.content, cfg, err)
		}
	}
	// A higher layer overrides field by field.
	e := newEnv(t)
	e.writeGlobal("config.yaml", "names: {scheme: tool, max_length: 32}\n")
	e.environ = []string{"MCPHOST_NAMES__MAX_LENGTH=48"}
	if cfg := e.load(); cfg.Names != (Names{SchemeBare, 48}) {
		t.Fatalf("names = %+v", cfg.Names)
	}
}

func TestEnvLayer(t *testing.T) {
	e := newEnv(t)
	e.writeGlobal("config.yaml", "servers:\n  GitHub: {command: gh}\n  github: {command: other}\n  Memory: {command: mem}\n")
	e.environ = []string{
		"MCPHOST_SERVERS__GITHUB__REQUEST_TIMEOUT=45",
		"MCPHOST_SERVERS__MEMORY__ENABLED=false",
		"MCPHOST_SERVERS__MEMORY__ARGS=[\"-y\",\"@modelcontextprotocol/server-memory\"]",
		"MCPHOST_SERVERS__MEMORY__ENV__MEMORY_FILE_PATH=/srv/memory.json",
		"MCPHOST_SERVERS__MEMORY__ENV={\"A\":\"1\",\"MEMORY_FILE_PATH\":\"overridden\"}",
		"MCPHOST_SERVERS__NEWONE__URL=https://new.example/mcp",
		"MCPHOST_SERVERS__NEWONE__TYPE=sse",
		"MCPHOST_SERVERS__NEWONE__HEADERS__Authorization=Bearer ${TOK}",
		"MCPHOST_SERVERS__NEWONE__TOOLS__ALLOW=a_*, b",
		"MCPHOST_SERVERS__NEWONE__TOOLS__DENY=[\"c\"]",
		"MCPHOST_SERVERS__NEWONE__MAX_MESSAGE_BYTES=2048",
		"MCPHOST_SERVERS__NEWONE__HEALTH_INTERVAL=15",
		"MCPHOST_SERVERS__NEWONE__RECONNECT={\"initial_delay\":\"2s\",\"max_delay\":\"10s\",\"max_attempts\":7}",
		"MCPHOST_SERVERS__NEWONE__RECONNECT__MAX_DELAY=1m",
		"MCPHOST_SERVERS__NEWONE__Reconnect__Max_Attempts=0",
		"MCPHOST_SERVERS__MEMORY__HEALTH_INTERVAL=off",
		"MCPHOST_SERVERS__MEMORY__RECONNECT__INITIAL_DELAY=0.5",
		"MCPHOST_NAMES__SCHEME=server",
		"MCPHOST_LOG_LEVEL=debug", // someone else's
		"TOK=t",
	}
	cfg := e.load()
	// Exact id match wins over the case-insensitive one.
	if s := server(t, cfg, "github"); s.RequestTimeout != 45*time.Second || s.Source != "env" {
		t.Errorf("github = %+v", s)
	}
	if s := server(t, cfg, "GitHub"); s.RequestTimeout != DefaultRequestTimeout {
		t.Errorf("GitHub = %+v", s)
	}
	m := server(t, cfg, "Memory")
	if m.Enabled || m.Err != nil || m.Source != "env" || !reflect.DeepEqual(m.Args, []string{"-y", "@modelcontextprotocol/server-memory"}) ||
		!reflect.DeepEqual(m.Env, map[string]string{"A": "1", "MEMORY_FILE_PATH": "/srv/memory.json"}) ||
		m.HealthInterval != -1 || m.Reconnect != (Reconnect{InitialDelay: 500 * time.Millisecond}) {
		t.Errorf("Memory = %+v", m)
	}
	n := server(t, cfg, "newone")
	if n.Err != nil || n.Transport != TransportSSE || n.Headers["Authorization"] != "Bearer t" ||
		!reflect.DeepEqual(n.Tools, ToolFilter{Allow: []string{"a_*", "b"}, Deny: []string{"c"}}) || n.MaxMessageBytes != 2048 ||
		n.HealthInterval != 15*time.Second || n.Reconnect != (Reconnect{InitialDelay: 2 * time.Second, MaxDelay: time.Minute}) {
		t.Errorf("newone = %+v", n)
	}
	if cfg.Names.Scheme != SchemeServer {
		t.Errorf("names = %+v", cfg.Names)
	}
}

func TestEnvLayerErrors(t *testing.T) {
	e := newEnv(t)
	e.environ = []string{
		"MCPHOST_SERVERS__A__ARGS=-y pkg",
		"MCPHOST_SERVERS__A__COMMAND=x",
		"MCPHOST_SERVERS__B__COMMAND=x",
		"MCPHOST_SERVERS__B__TIMEOUT=3",
		"MCPHOST_SERVERS__C__COMMAND=x",
		"MCPHOST_SERVERS__C__HEADERS=" + secret,
		"MCPHOST_SERVERS__D__COMMAND=x",
		"MCPHOST_SERVERS__D__RECONNECT__MAX_DELAYS=1m",
		"MCPHOST_SERVERS__E__COMMAND=x",
		"MCPHOST_SERVERS__E__RECONNECT=" + secret,
		"MCPHOST_SERVERS__F__COMMAND=x",
		"MCPHOST_SERVERS__F__RECONNECT={\"max_attempt\":3}",
		"MCPHOST_SERVERS__G__COMMAND=x",
		"MCPHOST_SERVERS__G__HEALTH_INTERVAL=sometimes",
		"MCPHOST_SERVERS__G__RECONNECT__MAX_ATTEMPTS=-1",
	}
	cfg := e.load()
	wantErrContains(t, server(t, cfg, "a").Err, "config: env: server \"a\": args: MCPHOST_SERVERS__A__ARGS must be a JSON array")
	wantErrContains(t, server(t, cfg, "b").Err, `unknown field "timeout"`)
	c := server(t, cfg, "c")
	wantErrContains(t, c.Err, "MCPHOST_SERVERS__C__HEADERS must be a JSON object")
	if strings.Contains(c.Err.Error(), secret) {
		t.Fatal("leaked")
	}
	wantErrContains(t, server(t, cfg, "d").Err, `config: env: server "d": reconnect: MCPHOST_SERVERS__D__RECONNECT__MAX_DELAYS: unknown field "MAX_DELAYS"`, `did you mean "max_delay"?`)
	ee := server(t, cfg, "e")
	wantErrContains(t, ee.Err, "MCPHOST_SERVERS__E__RECONNECT must be a JSON object", "__MAX_ATTEMPTS")
	if strings.Contains(ee.Err.Error(), secret) {
		t.Fatal("leaked")
	}
	wantErrContains(t, server(t, cfg, "f").Err, `reconnect: unknown field "max_attempt"`, `did you mean "max_attempts"?`)
	g := server(t, cfg, "g")
	wantErrContains(t, g.Err, `config: env: server "g": health_interval: "sometimes" is not a duration`, `config: env: server "g": reconnect.max_attempts: must not be negative`)

	e.environ = []string{"MCPHOST_SERVERS__X=1"}
	wantErrContains(t, e.loadErr(), "MCPHOST_SERVERS__X", "<FIELD>")
}

func TestOverrides(t *testing.T) {
	e := newEnv(t)
	e.writeGlobal("config.yaml", "servers:\n  a: {command: x, env: {K: v}}\n")
	opts := e.opts()
	opts.Overrides = map[string]any{
		"names.scheme":                     "tool",
		"servers.a.request_timeout":        2 * time.Second,
		"servers.a.env":                    map[string]string{"L": "w"},
		"servers.b":                        map[string]any{"url": "https://b/mcp", "max_message_bytes": 10},
		"servers.a.health_interval":        0,
		"servers.a.reconnect":              map[string]any{"max_delay": time.Minute},
		"servers.a.reconnect.max_attempts": 3,
		"servers.b.health_interval":        20 * time.Second,
	}
	cfg, err := Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	a := server(t, cfg, "a")
	if a.Err != nil || a.RequestTimeout != 2*time.Second || a.Source != "flags" || !reflect.DeepEqual(a.Env, map[string]string{"K": "v", "L": "w"}) ||
		a.HealthInterval != -1 || a.Reconnect != (Reconnect{MaxDelay: time.Minute, MaxAttempts: 3}) {
		t.Fatalf("a = %+v", a)
	}
	if b := server(t, cfg, "b"); b.Err != nil || b.MaxMessageBytes != 10 || b.Source != "flags" || b.HealthInterval != 20*time.Second {
		t.Fatalf("b = %+v", b)
	}
	if cfg.Names.Scheme != SchemeBare {
		t.Fatalf("names = %+v", cfg.Names)
	}
	opts.Overrides = map[string]any{"sever.a.command": "x"}
	_, err = Load(opts)
	wantErrContains(t, err, "flags", `"sever"`)
}

func TestTrustLifecycle(t *testing.T) {
	e := newEnv(t)
	e.writeGlobal("config.yaml", "# my global config\nservers:\n  g: {command: global-cmd}\n")
	proj := e.writeProject(".mcphost.yaml", "servers:\n  p: {command: project-cmd}\n  g: {args: [--from-project]}\n")
	e.writeProject(".mcp.json", `{"mcpServers": {"c": {"command": "claude-cmd"}}}`)

	check := func(wantTrusted bool) {
		t.Helper()
		ok, err := IsTrusted(e.opts(), e.work)
		if err != nil || ok != wantTrusted {
			t.Fatalf("IsTrusted = %v, %v; want %v", ok, err, wantTrusted)
		}
		cfg := e.load()
		for _, id := range []string{"p", "c"} {
			s := server(t, cfg, id)
			if s.Untrusted == wantTrusted || s.Err != nil {
				t.Fatalf("%s: Untrusted = %v, Err = %v; want untrusted %v", id, s.Untrusted, s.Err, !wantTrusted)
			}
		}
		// The user's own server g runs as the user wrote it, trusted or
		// not: the project's args for it are ignored.
		if g := server(t, cfg, "g"); g.Untrusted || g.Err != nil || len(g.Args) != 0 {
			t.Fatalf("g = %+v", g)
		}
	}
	check(false)
	e.trust()
	check(true)
	// Trusting again changes nothing (one record per path).
	e.trust()
	data, _ := os.ReadFile(filepath.Join(e.global, "config.yaml"))
	if strings.Count(string(data), "sha256") != 1 || !strings.Contains(string(data), "# my global config") {
		t.Fatalf("global file:\n%s", data)
	}
	// Editing any project file makes it untrusted again.
	writeFile(t, e.work, ".mcphost.yaml", "servers:\n  p: {command: evil-cmd}\n  g: {args: [--from-project]}\n")
	check(false)
	e.trust()
	check(true)
	writeFile(t, e.work, ".mcp.json", `{"mcpServers": {"c": {"command": "claude-cmd2"}}}`)
	check(false)
	// Removing a project file changes the hash too.
	e.trust()
	if err := os.Remove(proj); err != nil {
		t.Fatal(err)
	}
	ok, err := IsTrusted(e.opts(), e.work)
	if err != nil || ok {
		t.Fatalf("IsTrusted after removing a file = %v, %v", ok, err)
	}
	if h := UntrustedHint(e.work); !strings.Contains(h, `mcphost trust `+e.work) {
		t.Fatalf("hint = %q", h)
	}
}

func TestTrustOtherFormats(t *testing.T) {
	for _, name := range []string{"config.json", "config.toml"} {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			content := `{"servers": {"g": {"command": "x"}}, "names": {"scheme": "tool"}}`
			if name == "config.toml" {
				content = "[servers.g]\ncommand = \"x\"\n"
			}
			e.writeGlobal(name, content)
			e.writeProject(".mcphost.yaml", "servers:\n  p: {command: y}\n")
			e.trust()
			e.trust()
			cfg := e.load()
			if server(t, cfg, "p").Untrusted || server(t, cfg, "g").Err != nil {
				t.Fatalf("got %+v", cfg.Servers)
			}
			data, _ := os.ReadFile(filepath.Join(e.global, name))
			if strings.Count(string(data), "sha256") != 1 {
				t.Fatalf("file:\n%s", data)
			}
			if name == "config.json" && !strings.Contains(string(data), `"scheme": "tool"`) {
				t.Fatalf("file:\n%s", data)
			}
		})
	}
}

func TestTrustCreatesGlobalFile(t *testing.T) {
	e := newEnv(t)
	e.global = filepath.Join(e.global, "not", "yet")
	e.writeProject(".mcphost.yaml", "servers:\n  p: {command: y}\n")
	e.trust()
	st, err := os.Stat(filepath.Join(e.global, "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("mode = %v", st.Mode())
	}
	if s := server(t, e.load(), "p"); s.Untrusted {
		t.Fatal("still untrusted")
	}
}

func TestRelativeCwd(t *testing.T) {
	e := newEnv(t)
	e.writeProject(".mcphost.yaml", "servers:\n  a: {command: x, cwd: tools}\n  b: {command: x, cwd: /abs/dir}\n")
	e.environ = []string{"MCPHOST_SERVERS__C__COMMAND=x", "MCPHOST_SERVERS__C__CWD=rel"}
	cfg := e.load()
	if got := server(t, cfg, "a").Cwd; got != filepath.Join(e.work, "tools") {
		t.Errorf("a.cwd = %q", got)
	}
	if got := server(t, cfg, "b").Cwd; got != filepath.Clean("/abs/dir") {
		t.Errorf("b.cwd = %q", got)
	}
	if got := server(t, cfg, "c").Cwd; got != filepath.Join(e.work, "rel") {
		t.Errorf("c.cwd = %q", got)
	}
}

func TestGlobalDirDefault(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	t.Setenv("HOME", dir)
	if err := os.MkdirAll(filepath.Join(dir, "mcphost"), 0o700); err != nil {
		t.Fatal(err)
	}
	p := writeFile(t, filepath.Join(dir, "mcphost"), "config.yaml", "servers:\n  a: {command: x}\n")
	cfg, err := Load(LoadOptions{WorkDir: t.TempDir(), Environ: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	if runtimeUsesXDG() {
		if s := server(t, cfg, "a"); s.Source != p {
			t.Fatalf("a = %+v", s)
		}
	}
}

func runtimeUsesXDG() bool {
	return runtime.GOOS != "darwin" && runtime.GOOS != "windows" && runtime.GOOS != "ios" && runtime.GOOS != "plan9"
}

func TestConfigFileIsGlobalFile(t *testing.T) {
	e := newEnv(t)
	g := e.writeGlobal("config.yaml", "servers:\n  a: {command: x}\n")
	e.writeProject(".mcphost.yaml", "servers:\n  p: {command: y}\n")
	e.trust()
	opts := e.opts()
	opts.ConfigFile = g
	cfg, err := Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(cfg.Files, []string{filepath.Join(e.work, ".mcphost.yaml"), g}) {
		t.Fatalf("files = %v", cfg.Files)
	}
	if p := server(t, cfg, "p"); p.Untrusted {
		t.Fatal("trust records of the global file were not read")
	}
}
