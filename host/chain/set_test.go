package chain

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/pdk/abi"
	"github.com/mcphost/mcphost/plugins"
)

// A configuration with good, broken and untrusted plugins, through the
// config loader: the good ones load, each broken one becomes a stage that
// fails every call (on_error decides), untrusted ones are left out.
func TestLoadSetFromConfig(t *testing.T) {
	root := t.TempDir()
	global, work := filepath.Join(root, "g"), filepath.Join(root, "w")
	os.MkdirAll(global, 0o700)
	os.MkdirAll(work, 0o700)
	// Relative paths are taken from the config file's directory.
	for _, f := range []string{"allow-all", "start-trap", "all-hooks"} {
		data, err := os.ReadFile(fixture(f))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(global, f+".wasm"), data, 0o600)
	}
	os.WriteFile(filepath.Join(global, "config.yaml"), []byte(`
plugins:
  - name: good
    path: allow-all.wasm
    servers: ["git*"]
    mode: shadow
  - name: broken
    path: start-trap.wasm
    hooks: [policy]
  - name: bad-entry
    path: allow-all.wasm
    hooks: [policy, filter_tools]
    limits: {timeout_ms: 0}
    on_error: allow
  - name: unknown-hooks
    path: nowhere.wasm
  - name: names
    path: all-hooks.wasm
    hooks: [map_names]
    on_error: fallback
`), 0o600)
	os.WriteFile(filepath.Join(work, ".mcphost.yaml"), []byte("plugins:\n  - {name: project, path: x.wasm}\n"), 0o600)
	cfg, err := config.Load(config.LoadOptions{GlobalDir: global, WorkDir: work, Environ: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	opts, lb := testOptions(t)
	set, err := plugins.Load(ctx(t), Specs(cfg.Plugins), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close(ctx(t))

	st := set.Status()
	var names []string
	for _, s := range st {
		names = append(names, s.Name)
	}
	if want := []string{"good", "broken", "bad-entry", "unknown-hooks", "names", "project"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("status order %v", names)
	}
	if st[0].Err != nil || st[0].Description == nil || st[0].SHA256 == "" {
		t.Fatalf("good: %+v", st[0])
	}
	wantError(t, st[1].Err, plugins.KindLoad, `plugin "broken": `+filepath.Join(global, "start-trap.wasm")+`: first instance: instantiating`)
	wantError(t, st[2].Err, plugins.KindLoad, `plugin "bad-entry": invalid configuration`, "limits.timeout_ms")
	wantError(t, st[3].Err, plugins.KindLoad, `plugin "unknown-hooks"`, "nowhere.wasm")
	if !st[5].Untrusted || st[5].Err != nil {
		t.Fatalf("project: %+v", st[5])
	}
	if err := set.Err(); err == nil || !strings.Contains(err.Error(), "broken") || !strings.Contains(err.Error(), "bad-entry") || strings.Contains(err.Error(), "project") {
		t.Fatalf("Err = %v", err)
	}
	if !strings.Contains(lb.String(), "plugin not loaded; its hooks fail every call") {
		t.Fatalf("no log of the failures:\n%s", lb)
	}

	stages := Stages(set)
	got := map[string]host.StageConfig{}
	var order []string
	for _, s := range stages {
		got[s.Stage.StageName()] = s
		order = append(order, s.Stage.StageName())
	}
	if want := []string{"good", "broken", "bad-entry", "unknown-hooks", "names"}; !reflect.DeepEqual(order, want) {
		t.Fatalf("stage order %v", order)
	}
	check := func(name string, hooks []abi.Hook, servers []string, mode, onError string) {
		t.Helper()
		s := got[name]
		if !reflect.DeepEqual(s.Hooks, hooks) || !reflect.DeepEqual(s.Servers, servers) || s.Mode != mode || s.OnError != onError {
			t.Errorf("%s: %+v", name, s)
		}
	}
	check("good", []abi.Hook{abi.HookPolicy}, []string{"git*"}, host.ModeShadow, "")
	check("broken", []abi.Hook{abi.HookPolicy}, nil, host.ModeEnforce, "")
	check("bad-entry", []abi.Hook{abi.HookFilterTools, abi.HookPolicy}, nil, host.ModeEnforce, host.OnErrorAllow)
	// Hooks unknown (never loaded): it fails closed on every hook.
	check("unknown-hooks", abi.Hooks, nil, host.ModeEnforce, "")
	check("names", []abi.Hook{abi.HookMapNames}, nil, host.ModeEnforce, host.OnErrorFallback)

	if d, err := got["good"].Stage.(host.PolicyStage).Policy(ctx(t), shortReq); err != nil || d.Decision != abi.Allow {
		t.Fatalf("good: %+v %v", d, err)
	}
	_, err = got["broken"].Stage.(host.PolicyStage).Policy(ctx(t), shortReq)
	wantError(t, err, plugins.KindLoad, `plugins: plugin "broken": hook policy: not loaded: `, "start-trap.wasm: first instance")
	_, err = got["unknown-hooks"].Stage.(host.AuthStage).Auth(ctx(t), &abi.AuthRequest{})
	wantError(t, err, plugins.KindLoad, `plugin "unknown-hooks": hook auth: not loaded`)
	if len(set.Plugins()) != 5 {
		t.Fatalf("%d plugins in the set, want 5 (the untrusted project entry left out)", len(set.Plugins()))
	}

	if err := set.Close(ctx(t)); err != nil {
		t.Fatal(err)
	}
	_, err = got["good"].Stage.(host.PolicyStage).Policy(ctx(t), shortReq)
	wantError(t, err, plugins.KindClosed)
}
