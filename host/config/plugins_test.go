package config

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcphost/mcphost/pdk/abi"
)

func plugin(t *testing.T, cfg *Config, name string) *Plugin {
	t.Helper()
	for _, p := range cfg.Plugins {
		if p.Name == name {
			return p
		}
	}
	t.Fatalf("no plugin %q (have %v)", name, pluginNames(cfg))
	return nil
}

func pluginNames(cfg *Config) []string {
	var out []string
	for _, p := range cfg.Plugins {
		out = append(out, p.Name)
	}
	return out
}

const pinned = "E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855"

func TestPluginAllFields(t *testing.T) {
	e := newEnv(t)
	e.environ = []string{"GH_TOKEN=" + secret, "PLUGDIR=/opt/plugins"}
	p := e.writeGlobal("config.yaml", `
plugins:
  - name: deny-destructive
    path: plugins/deny.wasm
    sha256: `+pinned+`
    hooks: [policy, filter_tools]
    servers: ["git*", prod]
    config: {allow: "read_*", port: 8080, strict: true}
    limits: {timeout_ms: 250, memory_mb: 32, max_output_bytes: 4096}
    on_error: allow
    mode: shadow
  - name: header-auth
    path: ${PLUGDIR}/auth.wasm
    hooks: auth
    secrets: {token: "${GH_TOKEN}"}
    allowed_hosts: [Auth.Example.com, "*.example.org"]
    allow_private: true
`)
	cfg := e.load()
	if got := pluginNames(cfg); !reflect.DeepEqual(got, []string{"deny-destructive", "header-auth"}) {
		t.Fatalf("order = %v", got)
	}
	d := plugin(t, cfg, "deny-destructive")
	if d.Err != nil {
		t.Fatal(d.Err)
	}
	want := &Plugin{
		Name:    "deny-destructive",
		Path:    filepath.Join(e.global, "plugins", "deny.wasm"),
		SHA256:  strings.ToLower(pinned),
		Hooks:   []abi.Hook{abi.HookPolicy, abi.HookFilterTools},
		Servers: []string{"git*", "prod"},
		Config:  map[string]string{"allow": "read_*", "port": "8080", "strict": "true"},
		Limits:  PluginLimits{Timeout: 250 * time.Millisecond, MemoryMB: 32, MaxOutputBytes: 4096},
		OnError: OnErrorAllow,
		Mode:    ModeShadow,
		Source:  p,
	}
	if !reflect.DeepEqual(d, want) {
		t.Fatalf("got  %+v\nwant %+v", d, want)
	}
	a := plugin(t, cfg, "header-auth")
	if a.Err != nil {
		t.Fatal(a.Err)
	}
	if a.Path != "/opt/plugins/auth.wasm" || !reflect.DeepEqual(a.Hooks, []abi.Hook{abi.HookAuth}) {
		t.Fatalf("auth = %+v", a)
	}
	if a.Secrets["token"] != secret || len(a.Secrets) != 1 {
		t.Fatalf("secrets = %d entries", len(a.Secrets))
	}
	if !reflect.DeepEqual(a.AllowedHosts, []string{"auth.example.com", "*.example.org"}) || !a.AllowPrivate {
		t.Fatalf("hosts = %v private=%v", a.AllowedHosts, a.AllowPrivate)
	}
	if a.Limits != DefaultPluginLimits() || a.Mode != ModeEnforce || a.OnError != "" {
		t.Fatalf("defaults: %+v %q %q", a.Limits, a.Mode, a.OnError)
	}
}

func TestPluginSecretsNeverPrinted(t *testing.T) {
	e := newEnv(t)
	e.environ = []string{"GH_TOKEN=" + secret}
	e.writeGlobal("config.yaml", "plugins:\n  - {name: a, path: a.wasm, secrets: {token: \"${GH_TOKEN}\"}}\n")
	a := plugin(t, e.load(), "a")
	if a.Secrets["token"] != secret {
		t.Fatal("secret not read")
	}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q"} {
		if s := fmt.Sprintf(verb, a); strings.Contains(s, secret) {
			t.Errorf("%s prints the secret: %s", verb, s)
		}
		if s := fmt.Sprintf(verb, *a); strings.Contains(s, secret) {
			t.Errorf("%s of the value prints the secret: %s", verb, s)
		}
	}
	if s := fmt.Sprint(a.Secrets); s != "map[token:<redacted>]" {
		t.Errorf("String = %s", s)
	}
	data, err := json.Marshal(a)
	if err != nil || strings.Contains(string(data), secret) {
		t.Errorf("JSON %s %v", data, err)
	}
	if got := a.Secrets.Names(); !reflect.DeepEqual(got, []string{"token"}) {
		t.Errorf("names = %v", got)
	}
}

func TestPluginFormats(t *testing.T) {
	for name, content := range map[string]string{
		"config.json": `{"plugins": [{"name": "a", "path": "a.wasm", "hooks": ["policy"], "limits": {"timeout_ms": 50}}, {"name": "b", "path": "b.wasm"}]}`,
		"config.toml": "[[plugins]]\nname = \"a\"\npath = \"a.wasm\"\nhooks = [\"policy\"]\nlimits = {timeout_ms = 50}\n\n[[plugins]]\nname = \"b\"\npath = \"b.wasm\"\n",
		"config.yaml": "plugins:\n- name: a\n  path: a.wasm\n  hooks: [policy]\n  limits:\n    timeout_ms: 50\n- {name: b, path: b.wasm}\n",
	} {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			e.writeGlobal(name, content)
			cfg := e.load()
			if got := pluginNames(cfg); !reflect.DeepEqual(got, []string{"a", "b"}) {
				t.Fatalf("order = %v", got)
			}
			a := plugin(t, cfg, "a")
			if a.Err != nil || a.Limits.Timeout != 50*time.Millisecond || a.Path != filepath.Join(e.global, "a.wasm") {
				t.Fatalf("a = %+v", a)
			}
		})
	}
}

func TestPluginLayersAreAdditive(t *testing.T) {
	e := newEnv(t)
	g := e.writeGlobal("config.yaml", "plugins:\n  - {name: org-policy, path: p.wasm, hooks: [policy]}\n  - {name: redact, path: r.wasm}\n")
	pr := e.writeProject(".mcphost.yaml", "plugins:\n  - {name: team-names, path: t.wasm}\n  - {name: org-policy, path: evil.wasm, on_error: allow}\n")
	e.trust()
	x := writeFile(t, t.TempDir(), "extra.yaml", "plugins:\n  - {name: extra, path: x.wasm}\n")
	opts := e.opts()
	opts.ConfigFile = x
	cfg, err := Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"org-policy", "redact", "team-names", "org-policy", "extra"}
	if got := pluginNames(cfg); !reflect.DeepEqual(got, want) {
		t.Fatalf("order = %v, want %v", got, want)
	}
	first, dup := cfg.Plugins[0], cfg.Plugins[3]
	if first.Err != nil || first.Source != g || first.OnError != "" || !strings.HasSuffix(first.Path, "p.wasm") {
		t.Fatalf("the global entry changed: %+v", first)
	}
	wantErrContains(t, dup.Err, "config: "+pr+`: plugin "org-policy": name:`, "already defined in "+g)
	if dup.Source != pr {
		t.Fatalf("dup source %q", dup.Source)
	}
	if p := plugin(t, cfg, "extra"); p.Err != nil || p.Source != x {
		t.Fatalf("extra = %+v", p)
	}
}

func TestPluginDuplicateInOneFile(t *testing.T) {
	e := newEnv(t)
	p := e.writeGlobal("config.yaml", "plugins:\n  - {name: a, path: a.wasm}\n  - {name: a, path: b.wasm}\n")
	cfg := e.load()
	if cfg.Plugins[0].Err != nil {
		t.Fatal(cfg.Plugins[0].Err)
	}
	wantErrContains(t, cfg.Plugins[1].Err, "config: "+p+`: plugin "a": name:`, "earlier in this file")
}

func TestPluginUntrustedProject(t *testing.T) {
	e := newEnv(t)
	e.environ = []string{"AWS_SECRET=" + secret}
	e.writeGlobal("config.yaml", "plugins:\n  - {name: org, path: o.wasm}\n")
	e.writeProject(".mcphost.yaml", "plugins:\n  - {name: sneaky, path: s.wasm, secrets: {k: \"${AWS_SECRET}\"}}\n  - {name: unset, path: u.wasm, secrets: {k: \"${NOT_SET}\"}}\n")
	cfg := e.load()
	if o := plugin(t, cfg, "org"); o.Untrusted || o.Err != nil {
		t.Fatalf("org = %+v", o)
	}
	s := plugin(t, cfg, "sneaky")
	if !s.Untrusted || s.Err != nil || s.Secrets != nil {
		t.Fatalf("sneaky = %+v (secrets read: %v)", s, s.Secrets != nil)
	}
	// Variables of untrusted entries are not read, so not reported either.
	if u := plugin(t, cfg, "unset"); !u.Untrusted || u.Err != nil {
		t.Fatalf("unset = %+v", u)
	}
	e.trust()
	cfg = e.load()
	if s := plugin(t, cfg, "sneaky"); s.Untrusted || s.Secrets["k"] != secret {
		t.Fatalf("after trust: %+v", s)
	}
	wantErrContains(t, plugin(t, cfg, "unset").Err, "secrets.k", `variable "NOT_SET" is not set`)
}

func TestPluginValidationErrors(t *testing.T) {
	cases := []struct {
		name  string
		entry string // YAML flow map
		field string
		more  string
	}{
		{"missing name", `{path: a.wasm}`, "plugins[0]: name", "missing"},
		{"bad name", `{name: "a b", path: a.wasm}`, "name", `bad name "a b"`},
		{"name not a string", `{name: [x], path: a.wasm}`, "name", "must be a string"},
		{"missing path", `{name: p}`, "path", "missing"},
		{"empty path", `{name: p, path: ""}`, "path", "empty"},
		{"unset var in path", `{name: p, path: "${NOPE}/a.wasm"}`, "path", `variable "NOPE" is not set`},
		{"bad sha", `{name: p, path: a.wasm, sha256: abc}`, "sha256", "64 hex digits"},
		{"unknown hook", `{name: p, path: a.wasm, hooks: [polcy]}`, "hooks", `unknown hook "polcy" (did you mean "policy"?)`},
		{"hook twice", `{name: p, path: a.wasm, hooks: [auth, auth]}`, "hooks", "twice"},
		{"hooks not a list", `{name: p, path: a.wasm, hooks: {a: 1}}`, "hooks", "list"},
		{"bad server glob", `{name: p, path: a.wasm, servers: ["[x"]}`, "servers", "bad glob"},
		{"config not a map", `{name: p, path: a.wasm, config: [1]}`, "config", "map"},
		{"config value", `{name: p, path: a.wasm, config: {k: [1]}}`, "config.k", "string"},
		{"limits not a map", `{name: p, path: a.wasm, limits: 5}`, "limits", "map"},
		{"unknown limit", `{name: p, path: a.wasm, limits: {timeout: 5}}`, "limits", `unknown field "timeout" (did you mean "timeout_ms"?)`},
		{"zero timeout", `{name: p, path: a.wasm, limits: {timeout_ms: 0}}`, "limits.timeout_ms", "from 1 to 60000"},
		{"timeout as duration", `{name: p, path: a.wasm, limits: {timeout_ms: 1s}}`, "limits.timeout_ms", `"1s" must be a whole number`},
		{"huge memory", `{name: p, path: a.wasm, limits: {memory_mb: 5000}}`, "limits.memory_mb", "from 1 to 4096"},
		{"fractional output", `{name: p, path: a.wasm, limits: {max_output_bytes: 1.5}}`, "limits.max_output_bytes", "whole number"},
		{"literal secret", `{name: p, path: a.wasm, secrets: {token: "` + secret + `"}}`, "secrets.token", "reference to an environment variable"},
		{"secret with default", `{name: p, path: a.wasm, secrets: {token: "${X:-` + secret + `}"}}`, "secrets.token", "reference"},
		{"secrets as list", `{name: p, path: a.wasm, secrets: [token]}`, "secrets", "map of secret names"},
		{"bad secret name", `{name: p, path: a.wasm, secrets: {"a b": "${X}"}}`, "secrets", `bad secret name "a b"`},
		{"unset secret", `{name: p, path: a.wasm, secrets: {token: "${NOPE}"}}`, "secrets.token", `variable "NOPE" is not set`},
		{"empty secret", `{name: p, path: a.wasm, secrets: {token: "${EMPTY}"}}`, "secrets.token", `variable "EMPTY" is empty`},
		{"bad host glob", `{name: p, path: a.wasm, allowed_hosts: ["https://x.example"]}`, "allowed_hosts", "not a host-name glob"},
		{"host with port", `{name: p, path: a.wasm, allowed_hosts: ["x.example:443"]}`, "allowed_hosts", "no scheme, port or path"},
		{"hosts without auth", `{name: p, path: a.wasm, hooks: [policy], allowed_hosts: [x.example]}`, "allowed_hosts", "only auth plugins"},
		{"allow_private not bool", `{name: p, path: a.wasm, allow_private: maybe}`, "allow_private", "true or false"},
		{"bad on_error", `{name: p, path: a.wasm, on_error: ignore}`, "on_error", `"ignore" is not deny, allow or fallback`},
		{"fallback for policy", `{name: p, path: a.wasm, hooks: [policy], on_error: fallback}`, "on_error", "only for map_names"},
		{"bad mode", `{name: p, path: a.wasm, mode: dry-run}`, "mode", `"dry-run" is not enforce or shadow`},
		{"unknown field", `{name: p, path: a.wasm, timeout_ms: 5}`, `unknown field "timeout_ms"`, ""},
		{"misspelt field", `{name: p, path: a.wasm, allowed_host: [x]}`, `unknown field "allowed_host"`, `did you mean "allowed_hosts"?`},
		{"entry not a map", `just-a-string`, "plugins[0]", "must be a map"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			e.environ = []string{"EMPTY=", "X=" + secret}
			p := e.writeGlobal("config.yaml", "plugins:\n  - "+tc.entry+"\n  - {name: good, path: g.wasm}\n")
			cfg := e.load()
			if len(cfg.Plugins) != 2 {
				t.Fatalf("plugins = %v", pluginNames(cfg))
			}
			if g := cfg.Plugins[1]; g.Err != nil || g.Name != "good" {
				t.Fatalf("the good plugin got %v", g.Err)
			}
			err := cfg.Plugins[0].Err
			who := `plugin "p"`
			if strings.Contains(tc.entry, "name: p") == false {
				who = ""
			}
			wantErrContains(t, err, "config: "+p+": "+who, tc.field, tc.more)
			if strings.Contains(err.Error(), secret) {
				t.Errorf("error leaks a secret: %v", err)
			}
		})
	}
}

// An entry with errors keeps what could be read, so that the host can still
// put a failing stage for the right hooks, with the right on_error, into the
// chain.
func TestPluginErrKeepsHooksAndOnError(t *testing.T) {
	e := newEnv(t)
	e.writeGlobal("config.yaml", "plugins:\n  - {name: p, path: a.wasm, hooks: [policy], on_error: deny, limits: {timeout_ms: -1}}\n")
	p := plugin(t, e.load(), "p")
	if p.Err == nil || !reflect.DeepEqual(p.Hooks, []abi.Hook{abi.HookPolicy}) || p.OnError != OnErrorDeny || p.Mode != ModeEnforce {
		t.Fatalf("p = %+v", p)
	}
}

func TestPluginsFileLevelErrors(t *testing.T) {
	e := newEnv(t)
	p := e.writeGlobal("config.yaml", "plugins: {a: {path: a.wasm}}\n")
	wantErrContains(t, e.loadErr(), p, "plugins: must be a list")

	e = newEnv(t)
	e.writeGlobal("config.yaml", "plugin:\n  - {name: a, path: a.wasm}\n")
	wantErrContains(t, e.loadErr(), `unknown top-level key "plugin"`, `did you mean "plugins"?`)

	e = newEnv(t)
	opts := e.opts()
	opts.Overrides = map[string]any{"plugins": []any{}}
	_, err := Load(opts)
	wantErrContains(t, err, "flags", `unknown key "plugins"`)
}

func TestPluginsNotReadFromMCPJSON(t *testing.T) {
	e := newEnv(t)
	e.writeProject(".mcp.json", `{"mcpServers": {"a": {"command": "x"}}, "plugins": [{"name": "p", "path": "p.wasm"}]}`)
	e.trust()
	if cfg := e.load(); len(cfg.Plugins) != 0 {
		t.Fatalf("plugins from .mcp.json: %v", pluginNames(cfg))
	}
}

func TestPluginsLoadScope(t *testing.T) {
	e := newEnv(t)
	e.writeGlobal("config.yaml", "plugins:\n  - {name: g, path: g.wasm}\n")
	e.writeProject(".mcphost.yaml", "plugins:\n  - {name: p, path: p.wasm}\n")
	e.trust()
	for scope, want := range map[Scope][]string{
		ScopeEffective: {"g", "p"},
		ScopeGlobal:    {"g"},
		ScopeProject:   {"p"},
	} {
		cfg, err := LoadScope(e.opts(), scope)
		if err != nil {
			t.Fatal(err)
		}
		if got := pluginNames(cfg); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %v, want %v", scope, got, want)
		}
	}
}

// Writing a server into a file keeps its plugins list as it was.
func TestWriteKeepsPlugins(t *testing.T) {
	for _, name := range []string{"config.yaml", "config.json", "config.toml"} {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			content := map[string]string{
				"config.yaml": "# org plugins\nplugins:\n  - name: a # first\n    path: a.wasm\n    hooks: [policy]\n",
				"config.json": `{"plugins": [{"name": "a", "path": "a.wasm", "hooks": ["policy"]}]}`,
				"config.toml": "[[plugins]]\nname = \"a\"\npath = \"a.wasm\"\nhooks = [\"policy\"]\n",
			}[name]
			p := e.writeGlobal(name, content)
			if _, err := AddServer(e.opts(), ScopeGlobal, ServerEntry{ID: "s", Command: "x"}, false); err != nil {
				t.Fatal(err)
			}
			cfg := e.load()
			a := plugin(t, cfg, "a")
			if a.Err != nil || !reflect.DeepEqual(a.Hooks, []abi.Hook{abi.HookPolicy}) {
				t.Fatalf("a = %+v", a)
			}
			if name == "config.yaml" && !strings.Contains(readString(t, p), "# first") {
				t.Errorf("comment lost:\n%s", readString(t, p))
			}
		})
	}
}

// The configuration example of the plugins reference (plugins/README.md,
// marked <!-- test: FILE -->) loads without any error.
func TestPluginsReferenceExample(t *testing.T) {
	doc, err := os.ReadFile("../../plugins/README.md")
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile("(?s)<!-- test: (\\S+) -->\n```[a-z]*\n(.*?)```")
	blocks := re.FindAllStringSubmatch(string(doc), -1)
	if len(blocks) == 0 {
		t.Fatal("no example")
	}
	for _, b := range blocks {
		e := newEnv(t)
		e.environ = []string{"GITHUB_TOKEN=t"}
		e.writeGlobal(b[1], b[2])
		cfg := e.load()
		if len(cfg.Plugins) == 0 {
			t.Fatal("no plugins")
		}
		for _, p := range cfg.Plugins {
			if p.Err != nil {
				t.Errorf("%s: %v", p.Name, p.Err)
			}
		}
	}
}
