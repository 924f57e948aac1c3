package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mcphost/mcphost/pdk/abi"
)

const writtenPin = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

const commentedPluginsYAML = `# Org plugins. Keep this comment.
servers:
  fs: {command: x}
plugins:
  # The policy.
  - name: first
    path: first.wasm # beside this file
names:
  scheme: mcp
`

func TestAddPluginYAMLKeepsCommentsAndOrder(t *testing.T) {
	e := newEnv(t)
	e.environ = []string{"CORP_TOKEN=t"}
	p := e.writeGlobal("config.yaml", commentedPluginsYAML)
	entry := PluginEntry{
		Name: "second", Path: "/opt/plugins/second.wasm", SHA256: writtenPin,
		Hooks: []string{"policy", "auth"}, Servers: []string{"fs", "gh-*"},
		Config: map[string]string{"allow": "fs:read_*", "b": "2"}, Secrets: map[string]string{"token": "${CORP_TOKEN}"},
		AllowedHosts: []string{"login.corp.example"}, OnError: "allow", Mode: "shadow", TimeoutMS: 250, MemoryMB: 32,
	}
	got, err := AddPlugin(e.opts(), ScopeUser, entry, false)
	if err != nil || got != p {
		t.Fatalf("AddPlugin = %q, %v", got, err)
	}
	out := readString(t, p)
	for _, want := range []string{"# Org plugins. Keep this comment.", "# The policy.", "# beside this file", "names:", "sha256: " + writtenPin, "token: ${CORP_TOKEN}"} {
		if !strings.Contains(out, want) {
			t.Errorf("lost or missing %q:\n%s", want, out)
		}
	}
	if !(strings.Index(out, "name: first") < strings.Index(out, "name: second") && strings.Index(out, "name: second") < strings.Index(out, "names:")) {
		t.Errorf("order changed:\n%s", out)
	}
	// The documented field order.
	order := []string{"name: second", "path:", "sha256:", "hooks:", "servers:", "config:", "limits:", "secrets:", "allowed_hosts:", "on_error:", "mode:"}
	second := out[strings.Index(out, "name: second"):]
	last := -1
	for _, k := range order {
		i := strings.Index(second, k)
		if i < last {
			t.Errorf("%q out of order:\n%s", k, out)
		}
		last = i
	}
	cfg := e.load()
	if names := pluginNames(cfg); !reflect.DeepEqual(names, []string{"first", "second"}) {
		t.Fatalf("plugins = %v", names)
	}
	s := plugin(t, cfg, "second")
	if s.Err != nil || s.Path != "/opt/plugins/second.wasm" || s.SHA256 != writtenPin || !reflect.DeepEqual(s.Hooks, []abi.Hook{abi.HookPolicy, abi.HookAuth}) ||
		s.Config["allow"] != "fs:read_*" || s.Secrets["token"] != "t" || s.Mode != ModeShadow || s.OnError != OnErrorAllow ||
		s.Limits.Timeout.Milliseconds() != 250 || s.Limits.MemoryMB != 32 || s.Limits.MaxOutputBytes != DefaultPluginMaxOutputBytes {
		t.Fatalf("second = %+v", s)
	}

	// The name is taken: an error unless replace, which keeps the place.
	_, err = AddPlugin(e.opts(), ScopeUser, PluginEntry{Name: "first", Path: "/x.wasm"}, false)
	if !errors.Is(err, ErrPluginExists) {
		t.Fatalf("err = %v, want ErrPluginExists", err)
	}
	wantErrContains(t, err, p, `plugin "first"`, "replace")
	if _, err := AddPlugin(e.opts(), ScopeUser, PluginEntry{Name: "first", Path: "/new.wasm", Hooks: []string{"filter_tools"}}, true); err != nil {
		t.Fatal(err)
	}
	cfg = e.load()
	if names := pluginNames(cfg); !reflect.DeepEqual(names, []string{"first", "second"}) {
		t.Fatalf("after replace: %v", names)
	}
	if f := plugin(t, cfg, "first"); f.Path != "/new.wasm" || f.Hooks[0] != abi.HookFilterTools {
		t.Fatalf("first = %+v", f)
	}
	if !strings.Contains(readString(t, p), "# Org plugins. Keep this comment.") {
		t.Error("replace lost the head comment")
	}

	// Remove keeps the rest.
	if _, err := RemovePlugin(e.opts(), ScopeUser, "first"); err != nil {
		t.Fatal(err)
	}
	if names := pluginNames(e.load()); !reflect.DeepEqual(names, []string{"second"}) {
		t.Fatalf("after remove: %v", names)
	}
	_, err = RemovePlugin(e.opts(), ScopeUser, "first")
	if !errors.Is(err, ErrNoSuchPlugin) {
		t.Fatalf("err = %v, want ErrNoSuchPlugin", err)
	}
	wantErrContains(t, err, p, `no plugin "first" in this file`)
}

// JSON and TOML files are decoded and re-encoded; what was added loads.
func TestAddPluginJSONAndTOML(t *testing.T) {
	for _, name := range []string{"config.json", "config.toml"} {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			start := `{"servers": {"a": {"command": "x"}}, "plugins": [{"name": "one", "path": "/one.wasm"}]}`
			if strings.HasSuffix(name, ".toml") {
				start = "[servers.a]\ncommand = \"x\"\n\n[[plugins]]\nname = \"one\"\npath = \"/one.wasm\"\n"
			}
			p := e.writeGlobal(name, start)
			if _, err := AddPlugin(e.opts(), ScopeUser, PluginEntry{Name: "two", Path: "/two.wasm", SHA256: writtenPin, Hooks: []string{"policy"}, Config: map[string]string{"k": "v"}, TimeoutMS: 50}, false); err != nil {
				t.Fatal(err)
			}
			cfg := e.load()
			if names := pluginNames(cfg); !reflect.DeepEqual(names, []string{"one", "two"}) {
				t.Fatalf("plugins = %v\n%s", names, readString(t, p))
			}
			two := plugin(t, cfg, "two")
			if two.Err != nil || two.SHA256 != writtenPin || two.Config["k"] != "v" || two.Limits.Timeout.Milliseconds() != 50 {
				t.Fatalf("two = %+v", two)
			}
			if len(cfg.Servers) != 1 {
				t.Fatalf("servers lost:\n%s", readString(t, p))
			}
			if _, err := RemovePlugin(e.opts(), ScopeUser, "one"); err != nil {
				t.Fatal(err)
			}
			if names := pluginNames(e.load()); !reflect.DeepEqual(names, []string{"two"}) {
				t.Fatalf("after remove: %v", names)
			}
		})
	}
}

// A plugin added to a trusted project keeps the project trusted, and a
// plugin file inside the project is written relative to the project file.
func TestAddPluginProjectScope(t *testing.T) {
	e := newEnv(t)
	e.writeProject(".mcphost.yaml", "servers:\n  a: {command: x}\n")
	e.trust()
	wasm := filepath.Join(e.work, "plugins", "p$1.wasm")
	if err := os.MkdirAll(filepath.Dir(wasm), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(wasm, []byte("\x00asm"), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := AddPlugin(e.opts(), ScopeProject, PluginEntry{Name: "local", Path: wasm}, false)
	if err != nil {
		t.Fatal(err)
	}
	if out := readString(t, p); !strings.Contains(out, "path: plugins/p$$1.wasm") {
		t.Errorf("path not relative or $ not doubled:\n%s", out)
	}
	if ok, err := IsTrusted(e.opts(), ""); err != nil || !ok {
		t.Fatalf("project no longer trusted after mcphost's own edit: %v %v", ok, err)
	}
	cfg := e.load()
	if l := plugin(t, cfg, "local"); l.Untrusted || l.Err != nil || l.Path != wasm {
		t.Fatalf("local = %+v, want path %s", l, wasm)
	}
	// Outside the project the path stays absolute.
	outside := filepath.Join(t.TempDir(), "o.wasm")
	if _, err := AddPlugin(e.opts(), ScopeProject, PluginEntry{Name: "outside", Path: outside}, false); err != nil {
		t.Fatal(err)
	}
	if o := plugin(t, e.load(), "outside"); o.Path != outside {
		t.Fatalf("outside = %+v", o)
	}
}

// A name another file uses is refused: the loader would make the later
// entry a stage that fails every call.
func TestAddPluginNameInAnotherFile(t *testing.T) {
	e := newEnv(t)
	g := e.writeGlobal("config.yaml", "plugins:\n  - {name: org, path: /org.wasm}\n")
	_, err := AddPlugin(e.opts(), ScopeProject, PluginEntry{Name: "org", Path: "/mine.wasm"}, true)
	if !errors.Is(err, ErrPluginExists) {
		t.Fatalf("err = %v", err)
	}
	wantErrContains(t, err, `plugin "org" is already defined in `+g)
	if _, statErr := os.Stat(filepath.Join(e.work, ".mcphost.yaml")); !errors.Is(statErr, os.ErrNotExist) {
		t.Errorf("a project file was written")
	}
	_, err = RemovePlugin(e.opts(), ScopeProject, "org")
	wantErrContains(t, err, "it is defined in "+g)
}

func TestAddPluginRefusesInvalidEntries(t *testing.T) {
	e := newEnv(t)
	p := e.writeGlobal("config.yaml", "servers: {}\n")
	before := readString(t, p)
	for _, tc := range []struct {
		entry PluginEntry
		want  string
	}{
		{PluginEntry{Name: "bad name", Path: "/x.wasm"}, "bad name"},
		{PluginEntry{Name: "x", Path: "/x.wasm", Hooks: []string{"polcy"}}, `unknown hook "polcy"`},
		{PluginEntry{Name: "x", Path: "/x.wasm", SHA256: "abc"}, "not a SHA-256 hash"},
		{PluginEntry{Name: "x", Path: "/x.wasm", Hooks: []string{"policy"}, AllowedHosts: []string{"a.example"}}, "only auth plugins"},
		{PluginEntry{Name: "x", Path: "/x.wasm", Secrets: map[string]string{"t": "not a var"}}, "reference to an environment variable"},
		{PluginEntry{Name: "x", Path: "/x.wasm", TimeoutMS: 999999}, "limits.timeout_ms"},
		{PluginEntry{Name: "x", Path: "/x.wasm", Mode: "loud"}, "not enforce or shadow"},
		{PluginEntry{Name: "x", Path: ""}, "path"},
	} {
		_, err := AddPlugin(e.opts(), ScopeUser, tc.entry, false)
		wantErrContains(t, err, tc.want, "not written")
	}
	if after := readString(t, p); after != before {
		t.Errorf("file changed:\n%s", after)
	}
}

// A write is checked by the rules of its scope: a keychain reference, which
// loading refuses in a project file, is refused before it is written there,
// with the message loading gives; the local and user scopes take it.
func TestAddPluginProjectRefusesKeychainSecret(t *testing.T) {
	e := newEnv(t)
	entry := PluginEntry{Name: "gh", Path: "/gh.wasm", Hooks: []string{"auth"}, Secrets: map[string]string{"t": "${secret:gh}"}}
	_, err := AddPlugin(e.opts(), ScopeProject, entry, false)
	wantErrContains(t, err, "secrets.t: ${secret:gh} is not allowed in a project file", "not written")
	if _, exists, _ := ScopeFile(e.opts(), ScopeProject); exists {
		t.Error("a refused entry created the project file")
	}
	for _, scope := range []Scope{ScopeLocal, ScopeUser} {
		entry.Name = "gh" + string(scope)
		if _, err := AddPlugin(e.opts(), scope, entry, false); err != nil {
			t.Errorf("%s: %v", scope, err)
		}
	}
}

func TestPluginWriteOddFiles(t *testing.T) {
	for _, tc := range []struct {
		content, want string
	}{
		{"base: &b [1]\nplugins: *b\n", "plain list"},
		{"plugins: {a: 1}\n", "plugins"},
		{"plugins: 3\n", "plugins"},
	} {
		e := newEnv(t)
		p := e.writeGlobal("config.yaml", tc.content)
		_, err := AddPlugin(e.opts(), ScopeUser, PluginEntry{Name: "x", Path: "/x.wasm"}, false)
		wantErrContains(t, err, tc.want)
		if got := readString(t, p); got != tc.content {
			t.Errorf("file changed:\n%s", got)
		}
	}
	// "plugins:" with nothing, and "plugins: []", take an entry.
	for _, content := range []string{"plugins:\n", "plugins: [] # none yet\n"} {
		e := newEnv(t)
		e.writeGlobal("config.yaml", content)
		if _, err := AddPlugin(e.opts(), ScopeUser, PluginEntry{Name: "x", Path: "/x.wasm"}, false); err != nil {
			t.Fatalf("%q: %v", content, err)
		}
		if names := pluginNames(e.load()); !reflect.DeepEqual(names, []string{"x"}) {
			t.Fatalf("%q: plugins = %v", content, names)
		}
	}
	// Removing from a file without a plugins list, or no file at all.
	e := newEnv(t)
	_, err := RemovePlugin(e.opts(), ScopeUser, "x")
	if !errors.Is(err, ErrNoSuchPlugin) {
		t.Fatalf("no file: %v", err)
	}
	e.writeGlobal("config.yaml", "servers: {}\n")
	_, err = RemovePlugin(e.opts(), ScopeUser, "x")
	if !errors.Is(err, ErrNoSuchPlugin) {
		t.Fatalf("no list: %v", err)
	}
}

// FuzzPluginWrite writes arbitrary bytes as the global file and adds and
// removes a plugin: errors, never a panic, and a file that loaded before a
// successful edit loads after it.
func FuzzPluginWrite(f *testing.F) {
	for _, s := range []struct {
		ext  uint8
		data string
	}{
		{0, commentedPluginsYAML},
		{0, "plugins:\n  - &a {name: x, path: a.wasm}\n  - *a\n"},
		{0, "plugins:\n  - 7\n  - [name, x]\n  - {name: [x]}\n"},
		{0, "plugins: !!seq\n"},
		{1, `{"plugins": [{"name": "x", "path": "/a.wasm"}, null, 3]}`},
		{1, `{"plugins": {"x": {}}}`},
		{2, "[[plugins]]\nname = \"x\"\npath = \"/a.wasm\"\n"},
		{2, "plugins = [1, 2]\n"},
	} {
		f.Add(s.ext, []byte(s.data))
	}
	exts := []string{"config.yaml", "config.json", "config.toml"}
	f.Fuzz(func(t *testing.T, ext uint8, data []byte) {
		global, work := t.TempDir(), t.TempDir()
		if err := os.WriteFile(filepath.Join(global, exts[int(ext)%len(exts)]), data, 0o600); err != nil {
			t.Fatal(err)
		}
		opts := LoadOptions{GlobalDir: global, WorkDir: work, Environ: []string{}}
		_, loadErr := Load(opts)
		for _, replace := range []bool{false, true} {
			_, err := AddPlugin(opts, ScopeUser, PluginEntry{Name: "x", Path: "/b.wasm", Hooks: []string{"policy"}}, replace)
			if err == nil && loadErr == nil {
				if _, err := Load(opts); err != nil {
					t.Fatalf("after AddPlugin the file does not load: %v", err)
				}
			}
		}
		_, _ = RemovePlugin(opts, ScopeUser, "x")
	})
}

// The local scope (private to the user and this directory) takes plugins
// too, trusted as the user's own file is.
func TestAddPluginLocalScope(t *testing.T) {
	e := newEnv(t)
	p, err := AddPlugin(e.opts(), ScopeLocal, PluginEntry{Name: "mine", Path: "/opt/mine.wasm", Hooks: []string{"policy"}}, false)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(p, e.global) {
		t.Errorf("local file %s is not in the user's config directory", p)
	}
	if m := plugin(t, e.load(), "mine"); m.Untrusted || m.Err != nil || m.Source != p {
		t.Fatalf("mine = %+v", m)
	}
	if _, err := RemovePlugin(e.opts(), ScopeLocal, "mine"); err != nil {
		t.Fatal(err)
	}
	if names := pluginNames(e.load()); len(names) != 0 {
		t.Fatalf("after remove: %v", names)
	}
}
