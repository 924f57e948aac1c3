package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// managedEnv is a testEnv with a managed directory.
type managedEnv struct {
	*testEnv
	managed string
}

func newManagedEnv(t *testing.T, managedYAML string) *managedEnv {
	t.Helper()
	e := &managedEnv{testEnv: newEnv(t), managed: filepath.Join(t.TempDir(), "managed")}
	if err := os.MkdirAll(e.managed, 0o755); err != nil {
		t.Fatal(err)
	}
	if managedYAML != "" {
		writeFile(t, e.managed, "managed.yaml", managedYAML)
	}
	return e
}

func (e *managedEnv) opts() LoadOptions {
	o := e.testEnv.opts()
	o.ManagedDir = e.managed
	return o
}

func (e *managedEnv) load() *Config {
	e.t.Helper()
	cfg, err := Load(e.opts())
	if err != nil {
		e.t.Fatal(err)
	}
	return cfg
}

func serverOf(t *testing.T, cfg *Config, id string) *Server {
	t.Helper()
	for _, s := range cfg.Servers {
		if s.ID == id {
			return s
		}
	}
	t.Fatalf("no server %q", id)
	return nil
}

func hasWarning(cfg *Config, parts ...string) bool {
	for _, w := range cfg.Warnings {
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(w, p)
		}
		if ok {
			return true
		}
	}
	return false
}

func TestManagedServerRules(t *testing.T) {
	e := newManagedEnv(t, `
managed:
  allowed_servers:
    - {id: "corp-*"}
    - {command: npx, args: ["-y", "@modelcontextprotocol/server-*", "**"]}
    - {url: "https://*.corp.example/mcp*"}
  denied_servers:
    - {command: npx, args: ["-y", "@modelcontextprotocol/server-filesystem", "**"]}
    - {url: "http://*"}
`)
	e.writeGlobal("config.yaml", `
servers:
  corp-wiki: {command: /opt/wiki}
  everything: {command: npx, args: ["-y", "@modelcontextprotocol/server-everything"]}
  files: {command: npx, args: ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]}
  remote: {url: "https://tools.corp.example/mcp?token=x"}
  plain: {url: "http://tools.corp.example/mcp"}
  other: {command: python3, args: [server.py]}
  user-at: {url: "https://someone:pw@evil.example/mcp"}
`)
	cfg := e.load()
	managed := filepath.Join(e.managed, "managed.yaml")
	want := map[string]string{
		"corp-wiki":  "",
		"everything": "",
		"files":      "blocked by denied_servers[0] in " + managed,
		"remote":     "",
		"plain":      "blocked by denied_servers[1] in " + managed,
		"other":      "blocked: not in allowed_servers of " + managed,
		"user-at":    "blocked: not in allowed_servers of " + managed,
	}
	for id, w := range want {
		got := serverOf(t, cfg, id).Blocked
		if w == "" && got != "" || w != "" && !strings.HasPrefix(got, w) {
			t.Errorf("%s: Blocked = %q, want %q", id, got, w)
		}
	}
	if cfg.Managed == nil || !slices.Equal(cfg.Managed.Files, []string{managed}) {
		t.Fatalf("Managed = %+v", cfg.Managed)
	}
}

func TestManagedOnlyItsServers(t *testing.T) {
	e := newManagedEnv(t, `
managed:
  allow_user_servers: false
  allow_project_servers: false
servers:
  corp: {command: /opt/corp-mcp}
`)
	e.writeGlobal("config.yaml", "servers:\n  mine: {command: /bin/mine}\n")
	e.writeProject(".mcphost.yaml", "servers:\n  proj: {command: /bin/proj}\n")
	e.trust()
	cfg := e.load()
	if b := serverOf(t, cfg, "corp").Blocked; b != "" {
		t.Errorf("the managed server is blocked: %s", b)
	}
	if s := serverOf(t, cfg, "corp"); s.Scope != ScopeManaged {
		t.Errorf("corp scope = %q", s.Scope)
	}
	if b := serverOf(t, cfg, "mine").Blocked; !strings.Contains(b, "allow_user_servers is false") {
		t.Errorf("mine: %q", b)
	}
	if b := serverOf(t, cfg, "proj").Blocked; !strings.Contains(b, "allow_project_servers is false") {
		t.Errorf("proj: %q", b)
	}
}

// A user file, a trusted project file, --config, MCPHOST_* variables and
// flags all try to weaken the managed layer; none does.
func TestManagedCannotBeWeakened(t *testing.T) {
	e := newManagedEnv(t, `
managed:
  plugins: pinned
  lock_settings: [names.scheme, servers.locked]
servers:
  corp: {command: /opt/corp-mcp, tools: {deny: ["delete_*"]}}
policy:
  allow: ["corp:*", "mine:*"]
  deny: ["*:drop_*"]
  confirm_destructive: true
results:
  max_bytes: 100000
names:
  scheme: server
plugins:
  - {name: corp-policy, path: corp.wasm, sha256: "`+strings.Repeat("a", 64)+`"}
`)
	weaken := `
servers:
  corp: {command: /bin/evil, enabled: false, tools: {deny: ["write_*"], allow: ["*"]}}
  locked: {command: /bin/x}
policy:
  allow: ["*"]
  confirm_except: ["*"]
results:
  max_bytes: 0
names:
  scheme: tool
plugins:
  - {name: corp-policy, path: other.wasm}
  - {name: mine, path: mine.wasm}
`
	e.writeGlobal("config.yaml", weaken)
	explicit := writeFile(t, t.TempDir(), "extra.yaml", strings.ReplaceAll(weaken, "mine", "extra"))
	e.writeProject(".mcphost.yaml", "servers:\n  corp: {command: /bin/project, env: {LD_PRELOAD: x}}\npolicy:\n  confirm_except: ['*']\n")
	e.trust()
	o := e.opts()
	o.ConfigFile = explicit
	o.Environ = []string{"MCPHOST_NAMES_SCHEME=tool", "MCPHOST_RESULTS_MAX_BYTES=0"}
	o.Overrides = map[string]any{"names.scheme": "tool", "servers.corp.command": "/bin/flag"}
	cfg, err := Load(o)
	if err != nil {
		t.Fatal(err)
	}
	corp := serverOf(t, cfg, "corp")
	if corp.Command != "/opt/corp-mcp" || corp.Enabled || corp.Blocked != "" {
		t.Errorf("corp = command %q enabled %v blocked %q; want the managed command, switched off by the user", corp.Command, corp.Enabled, corp.Blocked)
	}
	if !slices.Equal(corp.Tools.Deny, []string{"delete_*", "write_*", "write_*"}) && !slices.Equal(corp.Tools.Deny, []string{"delete_*", "write_*"}) {
		t.Errorf("corp tools.deny = %v; the managed globs must stay, the user's add", corp.Tools.Deny)
	}
	if len(corp.Tools.Allow) != 0 || len(corp.Env) != 0 {
		t.Errorf("corp allow %v env %v: other layers changed the managed server", corp.Tools.Allow, corp.Env)
	}
	for _, s := range cfg.Servers {
		if s.ID == "locked" {
			t.Errorf("servers.locked is locked, yet a user entry made it: %+v", s)
		}
	}
	if cfg.Names.Scheme != SchemeServer {
		t.Errorf("names.scheme = %q; it is locked to server", cfg.Names.Scheme)
	}
	if !slices.Contains(cfg.Policy.Deny, "*:drop_*") || !cfg.Policy.ConfirmDestructive || len(cfg.Policy.ConfirmExcept) != 0 {
		t.Errorf("policy = %+v", cfg.Policy)
	}
	if !slices.ContainsFunc(cfg.Policy.AllowAlso, func(l []string) bool { return slices.Equal(l, []string{"corp:*", "mine:*"}) }) {
		t.Errorf("the managed allow list is not held: %+v", cfg.Policy)
	}
	if cfg.Results.MaxBytes != 100000 {
		t.Errorf("results.max_bytes = %d; the managed cap may be lowered, not removed", cfg.Results.MaxBytes)
	}
	if len(cfg.Plugins) == 0 || cfg.Plugins[0].Name != "corp-policy" || cfg.Plugins[0].Blocked != "" || cfg.Plugins[0].Err != nil {
		t.Fatalf("the managed plugin is not first and whole: %+v", cfg.Plugins)
	}
	for _, p := range cfg.Plugins[1:] {
		switch {
		case p.Name == "corp-policy" && p.Err == nil:
			t.Errorf("a user plugin replaced the managed one: %+v", p)
		case (p.Name == "mine" || p.Name == "extra") && !strings.Contains(p.Blocked, "plugins is pinned in"):
			t.Errorf("%s: Blocked = %q; unpinned plugins are not allowed", p.Name, p.Blocked)
		}
	}
	for _, w := range [][]string{
		{"names.scheme is ignored: the administrator locked it"},
		{"servers.locked is ignored"},
		{"server \"corp\"", "command", "the administrator defines this server"},
		{"policy.confirm_except is ignored: the administrator's managed configuration"},
		{"results.max_bytes is ignored: the administrator's managed configuration sets it"},
	} {
		if !hasWarning(cfg, w...) {
			t.Errorf("no warning with %q in\n%s", w, strings.Join(cfg.Warnings, "\n"))
		}
	}
}

func TestManagedLowerLimitsKept(t *testing.T) {
	e := newManagedEnv(t, "results: {max_bytes: 100000}\npolicy: {confirm_destructive: true}\n")
	e.writeGlobal("config.yaml", "results: {max_bytes: 5000}\n")
	if got := e.load().Results.MaxBytes; got != 5000 {
		t.Errorf("max_bytes = %d: a lower cap of the user's must apply", got)
	}
}

func TestManagedOnlyPlugins(t *testing.T) {
	e := newManagedEnv(t, "managed: {plugins: managed_only}\nplugins:\n  - {name: corp, path: corp.wasm}\n")
	e.writeGlobal("config.yaml", "plugins:\n  - {name: mine, path: mine.wasm, sha256: \""+strings.Repeat("b", 64)+"\"}\n")
	cfg := e.load()
	if len(cfg.Plugins) != 2 || cfg.Plugins[0].Blocked != "" || !strings.Contains(cfg.Plugins[1].Blocked, "plugins is managed_only in") {
		t.Fatalf("plugins = %+v", cfg.Plugins)
	}
}

func TestManagedFragmentsInNameOrder(t *testing.T) {
	e := newManagedEnv(t, "managed: {allow_user_servers: false}\n")
	d := filepath.Join(e.managed, "managed.d")
	if err := os.Mkdir(d, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, d, "20-open.yaml", "managed: {allow_user_servers: true}\n")
	writeFile(t, d, "10-deny.json", `{"managed": {"denied_servers": [{"id": "bad*"}]}}`)
	writeFile(t, d, "README", "not a config file\n")
	writeFile(t, d, ".hidden.yaml", "{{{ not parsed")
	e.writeGlobal("config.yaml", "servers:\n  bad1: {command: x}\n  good: {command: y}\n")
	cfg := e.load()
	if got := len(cfg.Managed.Files); got != 3 {
		t.Errorf("files = %v", cfg.Managed.Files)
	}
	if b := serverOf(t, cfg, "good").Blocked; b != "" {
		t.Errorf("20-open.yaml comes last and allows user servers; good: %q", b)
	}
	if b := serverOf(t, cfg, "bad1").Blocked; !strings.Contains(b, "10-deny.json") {
		t.Errorf("bad1: %q", b)
	}
}

func TestManagedBadFileStopsLoad(t *testing.T) {
	for name, content := range map[string]string{
		"parse":   "managed: [",
		"field":   "managed: {allowed_server: []}\n",
		"rule":    "managed: {denied_servers: [{}]}\n",
		"glob":    "managed: {denied_servers: [{id: \"[\"}]}\n",
		"plugins": "managed: {plugins: some}\n",
		"lock":    "managed: {lock_settings: [servers.a.nope]}\n",
		"top":     "allowed_servers: []\n",
	} {
		t.Run(name, func(t *testing.T) {
			e := newManagedEnv(t, content)
			_, err := Load(e.opts())
			if err == nil || !strings.Contains(err.Error(), "administrator") || !strings.Contains(err.Error(), e.managed) {
				t.Fatalf("err = %v", err)
			}
		})
	}
}

func TestManagedKeyOnlyInManagedFile(t *testing.T) {
	e := newManagedEnv(t, "")
	e.writeGlobal("config.yaml", "managed: {allow_user_servers: true}\n")
	_, err := Load(e.opts())
	if err == nil || !strings.Contains(err.Error(), "managed: is only read from the administrator's managed file") {
		t.Fatalf("err = %v", err)
	}
}

// The directory comes from LoadOptions or the build, never from the
// environment.
func TestManagedDirNotFromEnvironment(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "managed.yaml", "managed: {denied_servers: [{id: \"*\"}]}\n")
	old := defaultManagedDir
	defaultManagedDir = dir
	t.Cleanup(func() { defaultManagedDir = old })
	e := newEnv(t)
	e.writeGlobal("config.yaml", "servers:\n  a: {command: x}\n")
	o := e.opts()
	o.Environ = []string{"MCPHOST_MANAGED_DIR=" + t.TempDir(), "ProgramData=" + t.TempDir(), "XDG_CONFIG_DIRS=" + t.TempDir()}
	cfg, err := Load(o)
	if err != nil {
		t.Fatal(err)
	}
	if b := serverOf(t, cfg, "a").Blocked; !strings.Contains(b, "denied_servers[0]") {
		t.Fatalf("a: %q", b)
	}
}

func TestAddServerRefusedByManaged(t *testing.T) {
	e := newManagedEnv(t, "managed:\n  denied_servers: [{command: \"npx\", args: [\"-y\", \"evil-*\", \"**\"]}]\nservers:\n  corp: {command: /opt/corp}\n")
	path, err := AddServer(e.opts(), ScopeUser, ServerEntry{ID: "x", Command: "/usr/local/bin/npx", Args: []string{"-y", "evil-server"}}, false)
	want := "blocked by denied_servers[0] in " + filepath.Join(e.managed, "managed.yaml")
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "not written") {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(path); err == nil {
		t.Errorf("%s was written", path)
	}
	_, err = AddServer(e.opts(), ScopeUser, ServerEntry{ID: "corp", Command: "/bin/other"}, false)
	if err == nil || !strings.Contains(err.Error(), "the administrator defines this server") {
		t.Fatalf("err = %v", err)
	}
	if _, err := AddServer(e.opts(), ScopeUser, ServerEntry{ID: "ok", Command: "npx", Args: []string{"-y", "fine"}}, false); err != nil {
		t.Fatal(err)
	}
}

// FuzzManaged loads arbitrary bytes as the managed file under a user file
// with servers and plugins: no panic; a managed file that loads blocks
// only what is not its own, naming the file; AddServer answers.
func FuzzManaged(f *testing.F) {
	for _, s := range []string{
		"managed: {allowed_servers: [{id: \"a*\"}, {command: npx, args: [\"-y\", \"**\"]}], denied_servers: [{url: \"http://*\"}]}\n",
		"managed: {allow_user_servers: false, plugins: managed_only, lock_settings: [names, servers.a.command]}\nservers: {b: {command: y}}\n",
		"managed: {denied_servers: [{args: []}, {registry: x}], require_signed_plugins: true}\npolicy: {allow: [\"*\"], confirm_except: [\"*\"]}\nresults: {max_bytes: 5}\n",
		`{"managed": {"lock_settings": ["plugins", "policy.deny"], "plugins": "pinned"}, "plugins": [{"name": "p", "path": "p.wasm"}]}`,
		"[managed]\nallow_project_servers = false\n[[managed.denied_servers]]\nid = \"*\"\n",
		"managed: {denied_servers: [{id: \"[\"}]}\n",
		"managed: 7\n",
	} {
		f.Add(uint8(0), []byte(s))
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		root := t.TempDir()
		managed, global, work := filepath.Join(root, "m"), filepath.Join(root, "g"), filepath.Join(root, "w")
		for _, d := range []string{managed, global, work} {
			if err := os.MkdirAll(d, 0o700); err != nil {
				t.Fatal(err)
			}
		}
		name := []string{"managed.yaml", "managed.json", "managed.toml"}[int(which)%3]
		writeFile(t, managed, name, string(data))
		writeFile(t, global, "config.yaml", "servers:\n  a: {command: npx, args: [-y, x]}\n  b: {url: \"http://h/x\"}\n  c: {command: z, tools: {deny: [q]}}\nnames: {scheme: tool}\nplugins:\n  - {name: u, path: u.wasm}\n")
		opts := LoadOptions{GlobalDir: global, WorkDir: work, ManagedDir: managed, Environ: []string{}}
		cfg, err := Load(opts)
		if err == nil {
			for _, s := range cfg.Servers {
				if s.Blocked == "" {
					continue
				}
				if cfg.Managed == nil || slices.Contains(cfg.Managed.Servers, s.ID) {
					t.Fatalf("server %q blocked without a managed layer of its own: %q", s.ID, s.Blocked)
				}
				if !strings.Contains(s.Blocked, managed) {
					t.Fatalf("server %q: %q does not name the file", s.ID, s.Blocked)
				}
			}
		}
		_, _ = AddServer(opts, ScopeUser, ServerEntry{ID: "n", Command: "npx", Args: []string{"-y", "y"}}, true)
	})
}

func TestAddPluginRefusedByManaged(t *testing.T) {
	e := newManagedEnv(t, "managed: {plugins: pinned}\n")
	_, err := AddPlugin(e.opts(), ScopeUser, PluginEntry{Name: "p", Path: "/x/p.wasm", Hooks: []string{"policy"}}, false)
	if err == nil || !strings.Contains(err.Error(), "blocked: plugins is pinned in") || !strings.Contains(err.Error(), "not written") {
		t.Fatalf("err = %v", err)
	}
	if _, err := AddPlugin(e.opts(), ScopeUser, PluginEntry{Name: "p", Path: "/x/p.wasm", SHA256: strings.Repeat("c", 64), Hooks: []string{"policy"}}, false); err != nil {
		t.Fatal(err)
	}
	writeFile(t, e.managed, "managed.yaml", "managed: {plugins: managed_only}\n")
	_, err = AddPlugin(e.opts(), ScopeUser, PluginEntry{Name: "q", Path: "/x/q.wasm", SHA256: strings.Repeat("c", 64), Hooks: []string{"policy"}}, false)
	if err == nil || !strings.Contains(err.Error(), "plugins is managed_only in") {
		t.Fatalf("err = %v", err)
	}
}

// An entry of another layer with nothing left once restricted leaves the
// server the managed file's: its Source stays the managed file.
func TestManagedServerKeepsItsSource(t *testing.T) {
	e := newManagedEnv(t, "servers:\n  corp: {command: /opt/corp-mcp}\n")
	o := e.opts()
	o.Overrides = map[string]any{"servers.corp.command": "/bin/flag"}
	cfg, err := Load(o)
	if err != nil {
		t.Fatal(err)
	}
	if s := serverOf(t, cfg, "corp"); s.Source != filepath.Join(e.managed, "managed.yaml") || s.Command != "/opt/corp-mcp" {
		t.Errorf("corp: source %q command %q", s.Source, s.Command)
	}
}

// The managed layer's pinning is a floor; locked, it is fixed; its pins
// file is the host's managed pins.
func TestManagedPinning(t *testing.T) {
	e := newManagedEnv(t, "pinning: {changed: confirm, new: confirm}\nmanaged: {lock_settings: [pinning.new]}\n")
	writeFile(t, e.managed, "pins.json", "{}")
	e.writeGlobal("config.yaml", "pinning: {changed: warn, new: allow}\n")
	cfg := e.load()
	if cfg.Pinning.ChangedAction() != PinConfirm || cfg.Pinning.NewAction() != PinConfirm {
		t.Errorf("pinning = %+v; the user's file weakened the managed layer", cfg.Pinning)
	}
	if !hasWarning(cfg, "pinning.changed: warn is ignored: the administrator's managed configuration sets it") ||
		!hasWarning(cfg, "pinning.new is ignored: the administrator locked it") {
		t.Errorf("warnings:\n%s", strings.Join(cfg.Warnings, "\n"))
	}
	if !slices.Equal(cfg.Pinning.ManagedFiles, []string{filepath.Join(e.managed, "pins.json")}) {
		t.Errorf("ManagedFiles = %v", cfg.Pinning.ManagedFiles)
	}
	e.writeGlobal("config.yaml", "pinning: {changed: hide}\n")
	if got := e.load().Pinning.ChangedAction(); got != PinHide {
		t.Errorf("changed = %s: a stricter user setting must apply", got)
	}
}

// The review's bypasses: another file of a command's name, a PATH of the
// server's own, a path spelled otherwise or linked, a host glob reaching
// into the path, a URL spelled otherwise.
func TestManagedRulesMatchWhatRuns(t *testing.T) {
	bin := t.TempDir()
	real := filepath.Join(bin, "testserver")
	writeFile(t, bin, "testserver", "#!/bin/sh\n")
	if err := os.Chmod(real, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, filepath.Join(bin, "ts-link")); err != nil {
		t.Fatal(err)
	}
	e := newManagedEnv(t, `
managed:
  allowed_servers:
    - {command: npx}
    - {url: "https://*.corp.example/*"}
    - {command: "`+filepath.Join(bin, "ok-*")+`"}
  denied_servers:
    - {command: "`+real+`"}
    - {url: "https://evil.corp.example/*"}
    - {url: "https://tools.corp.example/admin/*"}
`)
	writeFile(t, e.work, "npx", "#!/bin/sh\n")
	e.writeGlobal("config.yaml", `
servers:
  rel-npx: {command: ./npx}
  own-path: {command: npx, env: {PATH: "`+e.work+`"}}
  dotted: {command: "`+bin+`/./testserver"}
  linked: {command: "`+filepath.Join(bin, "ts-link")+`"}
  up: {command: "../testserver", cwd: "`+filepath.Join(bin, "sub")+`"}
  cross: {url: "https://attacker.example/.corp.example/mcp"}
  port: {url: "https://evil.corp.example:0443/mcp"}
  dot: {url: "https://evil.corp.example./mcp"}
  pct: {url: "https://tools.corp.example/%61dmin/x"}
  dbl: {url: "https://tools.corp.example//admin/x"}
  dots: {url: "https://tools.corp.example/x/../admin/x"}
  fine: {url: "https://tools.corp.example:8443/mcp"}
`)
	cfg := e.load()
	for _, id := range []string{"rel-npx", "own-path", "dotted", "linked", "up", "cross", "port", "dot", "pct", "dbl", "dots"} {
		if serverOf(t, cfg, id).Blocked == "" {
			t.Errorf("%s is not blocked", id)
		}
	}
	if b := serverOf(t, cfg, "fine").Blocked; b != "" {
		t.Errorf("fine: %s", b)
	}
	for _, id := range []string{"dotted", "linked", "up"} {
		if b := serverOf(t, cfg, id).Blocked; !strings.Contains(b, "denied_servers[0]") {
			t.Errorf("%s: %q, want the deny rule", id, b)
		}
	}
}

func TestConfigFlagNamingManagedFile(t *testing.T) {
	e := newManagedEnv(t, "managed: {plugins: pinned}\n")
	o := e.opts()
	o.ConfigFile = filepath.Join(e.managed, "managed.yaml")
	_, err := Load(o)
	if err == nil || !strings.Contains(err.Error(), "is the administrator's managed configuration, which mcphost reads already") {
		t.Fatalf("err = %v", err)
	}
}

// A layer may come back down to the managed floor after a stricter one.
func TestManagedPinningFloorNotCurrent(t *testing.T) {
	e := newManagedEnv(t, "pinning: {new: confirm}\n")
	e.writeGlobal("config.yaml", "pinning: {new: hide}\n")
	o := e.opts()
	o.ConfigFile = writeFile(t, t.TempDir(), "c.yaml", "pinning: {new: confirm}\n")
	cfg, err := Load(o)
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Pinning.NewAction(); got != PinConfirm {
		t.Errorf("new = %s, want --config's confirm (the managed floor)", got)
	}
}

func TestWrittenTargetIsBeforeExpansion(t *testing.T) {
	e := newManagedEnv(t, "")
	e.environ = []string{"TOK=111", "H=h.example"}
	e.writeGlobal("config.yaml", "servers:\n  a: {command: x, args: [\"--token=${TOK}\"]}\n  b: {url: \"https://${H}/mcp\"}\n")
	cfg := e.load()
	if a := serverOf(t, cfg, "a"); a.Args[0] != "--token=111" || !slices.Equal(a.Written.Args, []string{"--token=${TOK}"}) || a.Written.Command != "x" {
		t.Errorf("a: args %v written %+v", a.Args, a.Written)
	}
	if b := serverOf(t, cfg, "b"); b.Written.URL != "https://${H}/mcp" {
		t.Errorf("b: written %+v", b.Written)
	}
}
